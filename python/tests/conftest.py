"""Shared fixtures: the engine under test (MIEN_EXECUTABLE, set by `make python-test`), the sample and a clip."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "Samples" / "astronaut.jpg"


@pytest.fixture(scope="session")
def engine() -> str:
    path = os.environ.get("MIEN_EXECUTABLE")
    if not path:
        pytest.fail("MIEN_EXECUTABLE is not set: run the suite with `make python-test`")
    return path


@pytest.fixture(scope="session")
def clip() -> Path:
    """A 20-frame clip of the sample panning and zooming (made by `make python-test` with MienDev)."""
    path = Path(os.environ.get("MIEN_TEST_CLIP", ""))
    if not path.is_file():
        pytest.fail("MIEN_TEST_CLIP does not name the test clip: run the suite with `make python-test`")
    return path


def run_cli(engine: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([engine, *arguments], capture_output=True, text=True, timeout=600)
