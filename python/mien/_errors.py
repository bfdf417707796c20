"""Mien's errors as Python exceptions, carrying the command line's message and the input's name."""

from __future__ import annotations

from typing import Optional


class MienError(Exception):
    """Something Mien could not do.

    Attributes:
        message: what went wrong, as the ``mien`` command line words it.
        input: the input (file, folder, camera) it concerns, when there is one.
    """

    def __init__(self, message: str, input: Optional[str] = None) -> None:
        self.message = message
        self.input = input
        super().__init__(f"{input}: {message}" if input else message)


class InputError(MienError):
    """An input could not be read or analysed: missing, empty, corrupt, truncated or of a wrong type."""


class ModelError(MienError):
    """Mien's models are missing, altered (a checksum differs) or cannot be loaded."""


class OptionsError(MienError, ValueError):
    """The options are invalid (also a ``ValueError``)."""


class EngineError(MienError):
    """The engine (the bundled ``mien`` program) ended abnormally: killed, crashed or not found."""


class MienWarning(UserWarning):
    """Some inputs failed while the others were analysed (their results are returned)."""
