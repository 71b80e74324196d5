"""Outputs: one subpackage per format, all reading the same verified course and knowing nothing of
each other. Each implements the ``Output`` contract (``base.py``): an options type, and
``render(job, options) -> list[Path]`` that writes its files through ``generator.atomic``. Adding an
output means adding its folder here and one line to ``OUTPUTS``."""
from __future__ import annotations

import importlib
from types import ModuleType

# name -> (the options type the subpackage exposes, whether `torchdeck build` renders it with its defaults);
# `torchdeck build` renders them in this order. A handout needs a workshop: it is built on its own.
OUTPUTS = {"anki": ("AnkiOptions", True), "slides": ("SlidesOptions", True), "quiz": ("QuizOptions", True),
           "site": ("SiteOptions", True), "handout": ("HandoutOptions", False)}


def output(name: str) -> ModuleType:
    """The subpackage of output ``name`` (imported on first use: the CLI starts fast)."""
    if name not in OUTPUTS:
        raise KeyError(f"no output named {name!r} (known: {', '.join(OUTPUTS)})")
    return importlib.import_module(f".{name}", __name__)


def options(name: str, **values):
    """Output ``name``'s options type, filled with ``values``."""
    return getattr(output(name), OUTPUTS[name][0])(**values)


def in_build() -> list[str]:
    """The outputs ``torchdeck build`` renders, in order."""
    return [name for name, (_, built) in OUTPUTS.items() if built]
