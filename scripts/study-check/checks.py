"""What the study-check scripts share: a check that records a failure and goes on, and the verdict at the end."""

import sys

problems = []


def check(condition, message):
    """Records `message` as a problem when `condition` is false; returns the condition."""
    if not condition:
        problems.append(message)
        print(f"  FAILED: {message}")
    return condition


def verdict(part):
    """Exits with every problem found, or returns when there was none."""
    if problems:
        sys.exit(f"study-check{part}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))
