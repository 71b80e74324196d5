"""Outputs: one subpackage per format, all reading the same verified course and knowing nothing of
each other. Each exposes an options type and ``render(job, options) -> list[Path]``; adding an
output means adding a folder here and its name to ``OUTPUTS``."""
from __future__ import annotations

import importlib
from types import ModuleType

# name -> the options type the subpackage exposes; `torchdeck build` renders them in this order
OUTPUTS = {"anki": "AnkiOptions", "slides": "SlidesOptions", "quiz": "QuizOptions"}


def output(name: str) -> ModuleType:
    """The subpackage of output ``name`` (imported on first use: the CLI starts fast)."""
    if name not in OUTPUTS:
        raise KeyError(f"no output named {name!r} (known: {', '.join(OUTPUTS)})")
    return importlib.import_module(f".{name}", __name__)


def options(name: str, **values):
    """Output ``name``'s options type, filled with ``values``."""
    return getattr(output(name), OUTPUTS[name])(**values)
