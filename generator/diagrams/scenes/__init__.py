"""Every diagram, one module each: found here, so adding a diagram is adding its module.

A scene module imports nothing at run time (``tools/make_cjk_font.py`` reads each on its own to learn
which characters the Chinese labels need) and holds, for one diagram:

- ``NAME``: what a lesson's ``diagrams:`` writes;
- ``WORDS``: per language, every label it draws and its ``alt`` text (the picture's description on a
  slide), so a new language is a new entry;
- ``draw(pen, course) -> bottom``: the picture, drawn once for both layouts with ``pen`` (``pen.upright``
  says whether to stack what a landscape slide puts side by side); ``course`` is a ``CourseMap``;
- optionally ``describe(words, course) -> alt text``, where the description depends on the course.
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def _found() -> dict[str, ModuleType]:
    modules = [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)]
    return {module.NAME: module for module in sorted(modules, key=lambda m: m.NAME)}


SCENES = _found()
DIAGRAM_NAMES = tuple(SCENES)


def cjk_characters(word_lists) -> str:
    """Every character the Chinese labels of ``word_lists`` (each scene's ``WORDS``) draw with the CJK font:
    those of each label that is not plain ASCII (an ``alt`` text and a slide's ``slide_`` words are never drawn)."""
    return "".join(sorted({c for words in word_lists for key, text in words.get("zh", {}).items()
                           if key != "alt" and not key.startswith(("alt_", "slide_")) and not text.isascii()
                           for c in text}))
