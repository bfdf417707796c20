#!/usr/bin/env python3
"""Builds dist/mien-<version>-py3-none-manylinux_<glibc>_<arch>.whl from the release bundle (`make wheel`).

Like ruff's and uv's wheels it carries a native program, so one wheel serves every CPython from 3.10 (the
openvino wheel's floor): the Python package `mien` (python/mien) with the bundle under `mien/_bundle/`
(bin/mien, lib/mien, the models and the licences), and a `mien` console command that execs the bundled
program.

OpenVINO is not carried: the wheel depends on the pinned `openvino` wheel and the program finds that wheel's
libraries (and its oneTBB) through its RUNPATH, `site-packages/openvino/libs` seen from `mien/_bundle`.
Measured: carrying OpenVINO makes the wheel 102.8 MB, over PyPI's 100 MB default limit; without it, 75 MB.

The platform tag comes from the newest glibc symbol version the bundle uses
(share/doc/mien/SYSTEM-REQUIREMENTS). The wheel is written with fixed timestamps and in name order, so the
same bundle gives the same bytes.

Usage: build_wheel.py BUNDLE_DIR PYTHON_SOURCE_DIR OUT_DIR VERSION
"""

import base64
import hashlib
import io
import platform
import re
import subprocess
import sys
import zipfile
from pathlib import Path

LIMIT_BYTES = 100 * 1000 * 1000  # PyPI's default upload limit per file
# The pinned OpenVINO (scripts/install-openvino.sh's); its wheel provides these libraries.
OPENVINO_VERSION = re.search(
    r"^VERSION=(\S+)$", (Path(__file__).resolve().parents[1] / "install-openvino.sh").read_text(), re.M
).group(1)
FROM_OPENVINO_WHEEL = ("libopenvino", "libtbb.so")


def with_runpath(path: Path, runpath: str) -> bytes:
    """A copy of the ELF file with another RUNPATH (patchelf on a temporary copy)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / path.name
        shutil.copy2(path, copy)
        subprocess.run(["patchelf", "--set-rpath", runpath, str(copy)], check=True)
        return copy.read_bytes()


def main() -> None:
    bundle, source, out, version = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
    package_version = re.search(r'__version__ = "(.*)"', (source / "mien" / "_version.py").read_text()).group(1)
    if package_version != version:
        sys.exit(f"build_wheel: python/mien/_version.py says {package_version}, Mien is {version}")
    glibc = re.search(r"GLIBC_(\d+)\.(\d+)", (bundle / "share/doc/mien/SYSTEM-REQUIREMENTS").read_text())
    arch = platform.machine()
    tag = f"py3-none-manylinux_{glibc.group(1)}_{glibc.group(2)}_{arch}"
    name = f"mien-{version}"
    dist_info = f"{name}.dist-info"
    try:
        epoch = int(subprocess.run(["git", "log", "-1", "--format=%ct"], capture_output=True, text=True).stdout)
    except ValueError:
        epoch = 315532800
    import time

    stamp = time.gmtime(max(epoch, 315532800))[:6]

    files = []  # (archive name, bytes, executable)
    for path in sorted((source / "mien").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files.append((f"mien/{path.relative_to(source / 'mien').as_posix()}", path.read_bytes(), False))
    for part in ["bin", "lib", "share/mien", "share/doc"]:
        for path in sorted((bundle / part).rglob("*")):
            if not path.is_file() or path.name.startswith(FROM_OPENVINO_WHEEL):
                continue
            relative = path.relative_to(bundle).as_posix()
            executable = relative == "bin/mien" or ".so" in path.name
            data = path.read_bytes()
            if executable:
                # site-packages/mien/_bundle/{bin,lib/mien} -> site-packages/openvino/libs
                up = "../../.." if relative.startswith("bin/") else "../../../.."
                data = with_runpath(path, f"$ORIGIN/{'../lib/mien' if relative.startswith('bin/') else '.'}"
                                    f":$ORIGIN/{up}/openvino/libs")
            files.append((f"mien/_bundle/{relative}", data, executable))

    readme = (source / "README.md").read_text()
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        "Name: mien",
        f"Version: {version}",
        "Summary: Reads faces in pictures and videos the way Affectiva's Affdex SDK did: expressions, emotions, "
        "head pose and more, as pandas DataFrames",
        "License: MIT AND Apache-2.0 AND LGPL-2.1-or-later AND BSD-2-Clause AND BSD-3-Clause AND IJG AND Libpng AND libtiff AND Zlib AND CC0-1.0",
        "Requires-Python: >=3.10",  # the openvino wheel's own floor
        f"Requires-Dist: openvino=={OPENVINO_VERSION}",
        "Requires-Dist: numpy>=1.21",
        "Requires-Dist: pandas>=1.3",
        "Provides-Extra: progress",
        "Requires-Dist: tqdm; extra == \"progress\"",
        "Provides-Extra: plot",
        "Requires-Dist: matplotlib>=3.5; extra == \"plot\"",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Topic :: Scientific/Engineering :: Image Recognition",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])
    wheel = "\n".join(["Wheel-Version: 1.0", "Generator: mien build_wheel.py", "Root-Is-Purelib: false",
                       f"Tag: {tag}", ""])
    entry_points = "[console_scripts]\nmien = mien._cli:main\n"
    files += [
        (f"{dist_info}/METADATA", metadata.encode(), False),
        (f"{dist_info}/WHEEL", wheel.encode(), False),
        (f"{dist_info}/entry_points.txt", entry_points.encode(), False),
        (f"{dist_info}/licenses/LICENSE", (bundle / "share/doc/mien/LICENSE").read_bytes(), False),
        (f"{dist_info}/licenses/LICENSES.md", (bundle / "share/doc/mien/LICENSES.md").read_bytes(), False),
    ]
    record = io.StringIO()
    for archive_name, data, _ in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.write(f"{archive_name},sha256={digest},{len(data)}\n")
    record.write(f"{dist_info}/RECORD,,\n")
    files.append((f"{dist_info}/RECORD", record.getvalue().encode(), False))

    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}-{tag}.whl"
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for archive_name, data, executable in files:
            info = zipfile.ZipInfo(archive_name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            archive.writestr(info, data, compresslevel=9)
    size = target.stat().st_size
    print(f"build_wheel: {target} ({size / 1e6:.1f} MB, {len(files)} files)")
    if size > LIMIT_BYTES:
        sys.exit(f"build_wheel: {size / 1e6:.1f} MB is over PyPI's {LIMIT_BYTES / 1e6:.0f} MB limit")


if __name__ == "__main__":
    main()
