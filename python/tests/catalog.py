"""The metric catalog as ``mien metrics --json`` prints it, and the check that a face (its JSON form) holds exactly
the catalog's fields for some metric groups: what every surface's tests ask of it."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Set

from conftest import run_cli

#: A face's own fields, present whatever metrics are on.
FACE_OWN = {"faceId", "faceBounds", "confidence", "facePoints", "keypoints", "mesh", "points68", "blendshapes",
            "orientation", "quality", "flags"}


def catalog(engine: str) -> Dict[str, Any]:
    done = run_cli(engine, "metrics", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def groups_of(word: str, all_groups: Iterable[str]) -> Set[str]:
    return set(all_groups) if word == "all" else set() if word == "none" else {word}


def leaves(face: Dict[str, Any]) -> Set[str]:
    found: Set[str] = set()

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict) and value:
            for key, inner in value.items():
                walk(inner, f"{path}.{key}")
        else:
            found.add(path)

    for key, value in face.items():
        if key not in FACE_OWN:
            walk(value, key)
    return found


def mismatches(face: Dict[str, Any], groups: Set[str], entries: List[Dict[str, Any]]) -> List[str]:
    chosen = [entry for entry in entries if entry["group"] in groups]
    required = [field for entry in chosen if not entry["onlyInStreams"] for field in entry["fields"]]
    allowed = [field for entry in chosen for field in entry["fields"]]
    found = leaves(face)

    def covers(field: str, leaf: str) -> bool:
        return leaf == field or leaf.startswith(field + ".")

    problems = [f"{leaf} is not a field of {sorted(groups)}" for leaf in sorted(found)
                if not any(covers(field, leaf) for field in allowed)]
    problems += [f"{field} is missing" for field in required if not any(covers(field, leaf) for leaf in found)]
    return problems
