#!/usr/bin/env python3
"""Every conversion to an integer in the study code and what it reads says how it handles a value out of range.

Issue 94: a viewing message whose timing p95 was 1e19 passed as finite, and a later `Int(value)` trapped (SIGILL):
`/complete`, the dashboard and `mien study` then crashed on every request. An unlabelled `Int(x)` on a floating value
traps when x is not finite or out of range, so here each conversion names its rule:

- `Int(checked: x)` (nil when x is not finite or beyond ±2^53), `Int(saturating: x)` (clamped; MienCore's
  WholeNumber.swift), `Int(exactly:)`, `Int(clamping:)`, `Int(truncatingIfNeeded:)`, `Int(bitPattern:)`;
- `Int(decimal: text)` or `Int(text, radix: N)` to read a number from text (nil when it is not one), `UInt8(ascii:)`;
- a line that says why it cannot trap (`// integer-audit: ...`), as WholeNumber.swift's own two do.

An unlabelled call (`Int(`, `Int64(`, `UInt64(`, ... followed by anything but one of these labels) fails the check,
naming file and line. The checked folders are listed in the Makefile's lint target.
"""

import re
import sys
from pathlib import Path

LABELS = ("checked", "saturating", "exactly", "clamping", "truncatingIfNeeded", "bitPattern", "decimal", "ascii")
CALL = re.compile(r"(?<![\w.])(U?Int(?:8|16|32|64)?)\(\s*(?!\))")


def strings_blanked(line):
    """The line with string literals' text blanked but their interpolations (`\\(...)`) kept, and a trailing
    comment dropped: conversions inside an interpolation are code too."""
    out, depth, in_string, index = [], [], False, 0
    while index < len(line):
        char = line[index]
        if in_string:
            if char == "\\" and line[index + 1:index + 2] == "(":
                depth.append(0)
                in_string = False
                out.append("  ")
                index += 2
                continue
            if char == "\\":
                out.append("  ")
                index += 2
                continue
            if char == '"':
                in_string = False
            out.append(" ")
        else:
            if char == '"':
                in_string = True
                out.append(" ")
            elif line.startswith("//", index):
                break
            elif depth and char == "(":
                depth[-1] += 1
                out.append(char)
            elif depth and char == ")":
                if depth[-1] == 0:
                    depth.pop()
                    in_string = True
                    out.append(" ")
                else:
                    depth[-1] -= 1
                    out.append(char)
            else:
                out.append(char)
        index += 1
    return "".join(out)


def violations(path):
    found = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        code = "" if line.lstrip().startswith("//") else strings_blanked(line)
        for match in CALL.finditer(code):
            rest = code[match.end():]
            label = re.match(r"(\w+)\s*:", rest)
            if label and label.group(1) in LABELS:
                continue
            # A text read in a stated base (`UInt8(hex, radix: 16)`): nil when it is not a number.
            if re.match(r"[^()]*(\([^()]*\)[^()]*)*,\s*radix\s*:", rest):
                continue
            if "integer-audit:" in line:
                continue
            found.append((number, line.strip()))
    return found


def main(folders):
    failures = 0
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.swift")) if Path(folder).is_dir() else [Path(folder)]:
            for number, text in violations(path):
                print(f"{path}:{number}: an integer conversion without its rule (Int(checked:), Int(saturating:), "
                      f"Int(decimal:), ...): {text}")
                failures += 1
    if failures:
        print(f"integer-audit: {failures} conversion(s) that can trap on a value from outside", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
