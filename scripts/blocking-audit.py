#!/usr/bin/env python3
"""scripts/blocking-audit.py FOLDER...: calls that block, written straight into an async function's body.

An async function runs on Swift's cooperative pool (one thread per core): a call that blocks there (a file written
and fsynced, FFmpeg opening a file, a semaphore or a thread's sleep) holds a thread every other task of the process
needs (docs/developing.md, "Blocking work"). Such a call belongs in a closure handed to `BlockingWork` (`run`,
`bounded`, `start`, a `Lane`) or to NIO's file I/O. This reads the Swift sources with a brace count, not a parser,
and lists each such call with its line; `make lint` fails on any. A synchronous function called from async code is
not followed (its name says what it does); a closure is async code when it is a task's or a route's.

A line may say why it may block with `// blocking-audit: REASON` (none does today).
"""
import os
import re
import sys

BLOCKING = re.compile(
    r"FileManager\.default\.(createDirectory|removeItem|copyItem|moveItem|contentsOfDirectory|attributesOfItem"
    r"|createFile|replaceItem|setAttributes)"
    r"|FileHandle\(|\.synchronize\(\)|\bfsync\(|Data\(contentsOf|String\(contentsOf|\.write\(to:|writeAtomically\("
    r"|VideoFileSource\(|ImageDecoder\.decode|\.nextFrame\(\)|Thread\.sleep|\busleep\(|DispatchSemaphore"
    r"|(?<!await )\b\w+\.wait\(\)|\.waitUntilExit\(|readDataToEndOfFile"
)
# Closures that run as async code: tasks, and Hummingbird's route handlers.
ASYNC_CLOSURE = re.compile(
    r"\b(Task(\.detached)?|addTask|addTaskUnlessCancelled|withTaskCancellationHandler)\s*(\(|\{)"
    r"|\.(get|post|put|patch|delete|head|on|ws)\(\s*\"[^\"]*\"[^)]*\)\s*\{|\bgroup\(\s*\"[^\"]*\"\)\.\w+\("
)
# Closures whose body runs off the pool.
OFF_POOL = re.compile(r"BlockingWork\.(run|bounded|start)\b|\blane\.run\b|\.fileIO\b|\bFileIO\b|NIOThreadPool")


def is_async(signature: str) -> bool:
    """Whether a `func` signature (up to its `{`) is async: `async` after its parameter list, before `->`."""
    start = signature.find("(")
    if start < 0:
        return False
    level = 0
    for index in range(start, len(signature)):
        level += {"(": 1, ")": -1}.get(signature[index], 0)
        if level == 0:
            effects = signature[index + 1 :].split("->")[0]
            return re.search(r"\basync\b", effects) is not None
    return False


def audit(path: str) -> list[str]:
    found = []
    # Open scopes: (kind, brace depth outside it), kind in async, sync, off.
    scopes: list[tuple[str, int]] = []
    depth = 0
    pending = None  # a `func` signature read until its `{`
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        allowed = "blocking-audit:" in code
        code = re.sub(r"//.*", "", code)
        if re.search(r"\bfunc\b", code):
            # A requirement without a body (a protocol's) is dropped when the next declaration begins.
            pending = code
        elif pending is not None:
            pending = None if ("}" in code and "{" not in code) else pending + code
        if pending is not None and "{" in code:
            scopes.append(("async" if is_async(pending) else "sync", depth))
            pending = None
        if ASYNC_CLOSURE.search(line) and "{" in code:
            scopes.append(("async", depth))
        if OFF_POOL.search(code):
            scopes.append(("off", depth))
        kinds = [kind for kind, _ in scopes]
        if "async" in kinds and not allowed and BLOCKING.search(code):
            innermost = max(index for index, kind in enumerate(kinds) if kind == "async")
            if all(kind == "async" for kind in kinds[innermost:]):
                found.append(f"{path}:{number}: {line.strip()}")
        depth += code.count("{") - code.count("}")
        while scopes and depth <= scopes[-1][1] and ("{" in code or "}" in code):
            scopes.pop()
    return found


def main() -> int:
    found = []
    for folder in sys.argv[1:]:
        for directory, _, files in os.walk(folder):
            for name in sorted(files):
                if name.endswith(".swift"):
                    found += audit(os.path.join(directory, name))
    for line in found:
        print(line)
    if found:
        print(
            f"blocking-audit: {len(found)} blocking call(s) in async functions: run them in a closure given to "
            "BlockingWork (run, bounded, a Lane) or NIO's file I/O, or say why not with // blocking-audit: REASON"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
