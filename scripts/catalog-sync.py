#!/usr/bin/env python3
"""Writes what the metric catalog decides into the files that cannot read it at run time, or checks them.

    scripts/catalog-sync.py --mien .build/debug/mien           # write (make catalog)
    scripts/catalog-sync.py --mien .build/debug/mien --check   # fail naming stale files (make test)

From ``mien metrics --json``:
- the JSON schema's face properties of the stored metrics (``"stored": true``: one number a face keeps in
  ``FaceResult.measures``: valence, engagement, blinks per minute, the metrics derived from the others and those
  an entry measures itself), so no hand-written part of the schema names them, in ``Schema/`` (the service links
  to it);
- the table in ``docs/metrics.md`` between its ``metric-catalog`` markers (``mien metrics --markdown``);
- ``python/mien/_measures.py``: one typed property of ``mien.Face`` per stored metric.

The grouped metrics (expressions, emoji, emotions) and the categories are in the hand-written schema and Python
types, which tests check against the catalog; a stored metric needs nothing but its catalog entry and its own
file.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The service's copy (Sources/MienService/Resources/detector-result.schema.json) is a link to this file.
SCHEMAS = [ROOT / "Schema/detector-result.schema.json"]
DOCS = ROOT / "docs/metrics.md"
PYTHON = ROOT / "python/mien/_measures.py"
GENERATED = "stored metric: written by scripts/catalog-sync.py from the metric catalog"


def property_schema(entry: dict) -> dict:
    unit = entry["unit"]
    if unit == "score":
        schema = {"$ref": "#/$defs/score"}
    elif unit == "signed score":
        schema = {"type": "number", "minimum": -100, "maximum": 100}
    elif unit == "flag":
        schema = {"type": "boolean"}
    elif unit == "per minute":
        schema = {"type": "number", "minimum": 0}
    else:
        schema = {"type": "number"}
    return {"$comment": GENERATED, "description": entry["doc"], **schema}


def schema_text(text: str, stored: list) -> str:
    schema = json.loads(text)
    properties = schema["$defs"]["face"]["properties"]
    for name in [name for name, value in properties.items() if value.get("$comment") == GENERATED]:
        del properties[name]
    for entry in stored:
        properties[entry["name"]] = property_schema(entry)
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def docs_text(text: str, table: str) -> str:
    start, end = "<!-- metric-catalog:start -->\n", "<!-- metric-catalog:end -->"
    head, rest = text.split(start, 1)
    return head + start + table + end + rest.split(end, 1)[1]


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name.replace(".", "_")).lower()


def python_text(stored: list) -> str:
    types = {"flag": "Optional[bool]"}
    lines = [
        '"""The metrics a face keeps as one number each (``"stored": true`` in ``mien metrics --json``), as typed',
        'properties of ``mien.Face``.',
        "",
        "Written by ``scripts/catalog-sync.py`` from ``mien metrics --json`` (``make catalog``); do not edit.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Dict, Optional",
        "",
        "",
        "class StoredMetrics:",
        '    """Each property is None when its metric is off or cannot be computed for the face."""',
        "",
        "    data: Dict[str, Any]",
    ]
    for entry in stored:
        lines += [
            "",
            "    @property",
            f"    def {snake(entry['name'])}(self) -> {types.get(entry['unit'], 'Optional[float]')}:",
            *textwrap.wrap(f'"""{entry["doc"]} (``{entry["name"]}``, {entry["unit"]}; group ``{entry["group"]}``)"""',
                           width=110, initial_indent="        ", subsequent_indent="        "),
            f"        return self.data.get({entry['name']!r})",
        ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mien", required=True, help="the mien executable whose catalog is written")
    parser.add_argument("--check", action="store_true", help="only say which files differ (exit 1 if any)")
    arguments = parser.parse_args()
    catalog = json.loads(subprocess.run([arguments.mien, "metrics", "--json"], check=True, capture_output=True,
                                        text=True).stdout)
    stored = [entry for entry in catalog["metrics"] if entry.get("stored")]
    table = subprocess.run([arguments.mien, "metrics", "--markdown"], check=True, capture_output=True,
                           text=True).stdout
    wanted = {path: schema_text(path.read_text(encoding="utf-8"), stored) for path in SCHEMAS}
    wanted[DOCS] = docs_text(DOCS.read_text(encoding="utf-8"), table)
    wanted[PYTHON] = python_text(stored)
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if arguments.check:
        for path in stale:
            print(f"catalog-sync: {path.relative_to(ROOT)} does not match the metric catalog: run `make catalog`")
        print(f"catalog-sync: {len(wanted) - len(stale)} of {len(wanted)} files match the catalog "
              f"({len(stored)} stored metrics)")
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path], encoding="utf-8")
        print(f"catalog-sync: wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
