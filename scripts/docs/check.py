#!/usr/bin/env python3
"""The docs check of `make test`: every relative link and anchor in README.md and docs/*.md resolves, and every
command in a code block under a "Try it" heading runs.

Usage: scripts/docs/check.py [--mien PATH]   (from the repository's root; without --mien, links only)

Links are checked outside code (fenced blocks and inline code spans): a relative target must exist (from the
page's folder), and an anchor must be a heading of the target page, slugged as GitHub does (lower case,
punctuation dropped, spaces to hyphens, "-1", "-2" for repeats). A "Try it" block's lines run one by one with
bash from the repository's root, `mien` on PATH being the given binary; any exit status but 0 fails the check.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HTML_SOURCE = re.compile(r"<(?:img|a)\s[^>]*(?:src|href)=\"([^\"]+)\"")
FENCE = re.compile(r"^\s*(```|~~~)")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def prose_lines(text: str):
    """(line number, line) outside fenced code blocks, with inline code spans blanked."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "``", line)


def slug(heading: str) -> str:
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its words
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(page.read_text()):
        match = re.match(r"#{1,6} (.*)", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def check_links() -> list[str]:
    problems = []
    cache: dict[Path, set[str]] = {}
    count = 0
    for page in pages():
        for number, line in prose_lines(page.read_text()):
            for match in [*LINK.finditer(line), *HTML_SOURCE.finditer(line)]:
                target = match.group(1)
                if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                count += 1
                path_part, _, anchor = target.partition("#")
                where = f"{page.relative_to(ROOT)}:{number}"
                resolved = (page.parent / path_part).resolve() if path_part else page
                if not resolved.exists():
                    problems.append(f"{where}: {target}: no such file")
                    continue
                if anchor:
                    if resolved.suffix != ".md":
                        problems.append(f"{where}: {target}: an anchor into a file that is not Markdown")
                        continue
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved)
                    if anchor not in cache[resolved]:
                        problems.append(f"{where}: {target}: no heading with that anchor")
    print(f"docs-check: {count} relative links in {len(pages())} pages")
    return problems


def try_it_commands() -> list[tuple[str, str]]:
    """(where, command) for every line of a code block under a "Try it" heading."""
    found = []
    for page in pages():
        lines = page.read_text().split("\n")
        level = None
        fenced = False
        for number, line in enumerate(lines, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            heading = None if fenced else re.match(r"(#{1,6}) (.*)", line)
            if heading:
                depth = len(heading.group(1))
                if re.search(r"\btry it\b", heading.group(2), re.IGNORECASE):
                    level = depth
                elif level is not None and depth <= level:
                    level = None
                continue
            if fenced and level is not None and line.strip() and not line.lstrip().startswith("#"):
                found.append((f"{page.relative_to(ROOT)}:{number}", line.strip()))
    return found


def run_commands(mien: Path) -> list[str]:
    problems = []
    commands = try_it_commands()
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "mien").symlink_to(mien.resolve())
        env = dict(os.environ, PATH=f"{scratch}:{os.environ['PATH']}")
        for where, command in commands:
            try:
                done = subprocess.run(
                    ["bash", "-o", "pipefail", "-c", command], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                    capture_output=True, text=True, timeout=300)
            except subprocess.TimeoutExpired:
                problems.append(f"{where}: `{command}` did not finish in 300 s")
                continue
            if done.returncode != 0:
                tail = "\n    ".join(done.stderr.strip().split("\n")[-5:])
                problems.append(f"{where}: `{command}` exited {done.returncode}:\n    {tail}")
    print(f"docs-check: {len(commands)} commands under \"Try it\" headings run with {mien}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mien", type=Path, help="the mien binary the Try it commands run")
    arguments = parser.parse_args()
    problems = check_links()
    if arguments.mien:
        problems += run_commands(arguments.mien)
    for problem in problems:
        print(f"docs-check: {problem}", file=sys.stderr)
    print(f"docs-check: {'FAILED, ' + str(len(problems)) + ' problems' if problems else 'passed'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
