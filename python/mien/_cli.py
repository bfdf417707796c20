"""The ``mien`` command a pip install puts on PATH: the bundled program itself, exec'd in this process."""

from __future__ import annotations

import os
import sys

from ._engine import executable
from ._errors import MienError


def main() -> None:
    try:
        path = executable()
    except MienError as error:
        print(f"mien: error: {error}", file=sys.stderr)
        sys.exit(3)
    os.execv(path, [path, *sys.argv[1:]])


if __name__ == "__main__":
    main()
