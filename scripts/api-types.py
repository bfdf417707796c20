#!/usr/bin/env python3
"""Counts the types `import Mien` exposes: public structs, classes, enums, protocols, actors and type aliases
(nested ones included) in the symbol graphs of Mien, MienCore and MienVision, and of MienStudies, the study
library beside it.

    swift package dump-symbol-graph --minimum-access-level public && scripts/api-types.py [--list] [--expect N]

With --expect N (`make lint`), a total other than N fails: a new public type is a decision, taken by updating the
count in the Makefile (API_TYPES) in the same commit.
"""
import json
import pathlib
import sys

KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.actor", "swift.typealias"}
folder = pathlib.Path(".build/x86_64-unknown-linux-gnu/symbolgraph")
total = 0
for module in ["Mien", "MienCore", "MienVision", "MienStudies"]:
    names = set()
    for path in folder.glob(f"{module}*.symbols.json"):
        graph = json.loads(path.read_text())
        if graph["module"]["name"] != module:
            continue
        for symbol in graph["symbols"]:
            if symbol["kind"]["identifier"] in KINDS and symbol["accessLevel"] == "public":
                names.add(".".join(symbol["pathComponents"]))
    if not list(folder.glob(f"{module}*.symbols.json")):
        sys.exit(f"api-types: no symbol graph for {module} in {folder} (run swift package dump-symbol-graph)")
    total += len(names)
    print(f"{module}: {len(names)}")
    if "--list" in sys.argv:
        print("  " + " ".join(sorted(names)))
print(f"total: {total}")
if "--expect" in sys.argv:
    expected = int(sys.argv[sys.argv.index("--expect") + 1])
    if total != expected:
        sys.exit(f"api-types: {total} public types, the Makefile pins {expected} (API_TYPES): a type made public or "
                 f"no longer public is a decision; list them with scripts/api-types.py --list, then update API_TYPES")
