#!/usr/bin/env python3
"""Checks what each target imports against docs/developing.md's table "What may import what".

    scripts/import-rules.py            (make lint)

The table is the rule: one row per target, the modules it may import, and for a module allowed only in some files
of the target, `Module (File.swift, Other.swift)`. The standard library's neighbours (Foundation, Dispatch,
Synchronization, Glibc, Testing in test targets) are always allowed. A target under Sources/ or Tests/ with no row
fails too, so a new target is a decision written down beside the others.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs/developing.md"
ALWAYS = {"Foundation", "Dispatch", "Synchronization", "Glibc"}
IMPORT = re.compile(r"^(?:@[\w()]+\s+)*(?:public |package |internal |private |fileprivate )?import (\w+)", re.M)


def rules():
    """{target: {module: None (anywhere) or a set of file names}} from the doc's table."""
    text = DOC.read_text()
    start = text.find("### What may import what")
    if start < 0:
        sys.exit(f"import-rules: {DOC} has no section 'What may import what'")
    table = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`") or cells[0] == "target":
            continue
        target = cells[0].strip("`")
        allowed = {}
        # `Module` or `Module` (File.swift, File.swift), separated by commas outside parentheses.
        for match in re.finditer(r"`(\w+)`(?:\s*\(([^)]*)\))?", cells[1]):
            files = {name.strip().strip("`") for name in match.group(2).split(",")} if match.group(2) else None
            allowed[match.group(1)] = files
        table[target] = allowed
    if not table:
        sys.exit(f"import-rules: the table in {DOC} has no rows")
    return table


def main():
    table = rules()
    failures = []
    for kind in ("Sources", "Tests"):
        for folder in sorted((ROOT / kind).iterdir()):
            swift = sorted(folder.rglob("*.swift"))
            if not folder.is_dir() or not swift:
                continue
            target = folder.name
            if target not in table:
                failures.append(f"{kind}/{target}: no row in {DOC.name}'s 'What may import what'")
                continue
            allowed = table[target]
            always = ALWAYS | ({"Testing"} if kind == "Tests" else set())
            for path in swift:
                for module in IMPORT.findall(path.read_text()):
                    if module in always or module == target:
                        continue
                    if module not in allowed:
                        failures.append(f"{path.relative_to(ROOT)}: imports {module}, which {target} may not")
                    elif allowed[module] is not None and path.name not in allowed[module]:
                        failures.append(
                            f"{path.relative_to(ROOT)}: imports {module}, which {target} may only in "
                            f"{', '.join(sorted(allowed[module]))}")
    if failures:
        print("\n".join(failures))
        sys.exit(f"import-rules: {len(failures)} import(s) against docs/developing.md's rules")
    print(f"import-rules: {len(table)} targets import only what docs/developing.md allows")


main()
