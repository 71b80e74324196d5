"""Diagrams: each scene drawn once, for a landscape slide or an upright card, in the deck's language.

``scenes/`` holds one module per diagram (its name, its words per language and its drawing; adding a
diagram is adding one there); ``layouts`` says what a card and a slide are, ``pen`` draws in a
layout's units with the shipped fonts, ``canvas`` turns a scene into PNG bytes. Drawn from the course
where they depict it (the module map shows the modules the content teaches), so they never drift
from it; the same course gives the same bytes, and a picture's file name carries a hash of them.

Nothing here imports Pillow until a picture is drawn: the loader reads ``DIAGRAM_NAMES`` cheaply.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from .layouts import CARD, SLIDE, CourseMap, Layout, Variant
from .scenes import DIAGRAM_NAMES, SCENES

if TYPE_CHECKING:
    from ..model import Course

__all__ = ["CARD", "DIAGRAM_NAMES", "SLIDE", "CourseMap", "Layout", "Variant", "card_diagram_filename",
           "card_diagram_png", "course_map", "diagram_alt", "diagram_headline", "diagram_png", "labels_drawn"]


def course_map(course: Course) -> CourseMap:
    """What the diagrams show of ``course``: every module (a selection's map shows the whole course), the
    ones a workshop teaches highlighted."""
    return CourseMap(course.map_names, course.highlighted)


def diagram_png(name: str, course: Course, lang: str = "en") -> bytes:
    """The slide picture of diagram ``name``: landscape, labels in ``lang``, as PNG bytes."""
    return _png(name, course_map(course), Variant(lang, False, SLIDE))


def card_diagram_png(name: str, course: Course, variant: Variant) -> bytes:
    """The card picture of diagram ``name`` (upright; ``variant``: its language, light or night) as PNG bytes."""
    return _png(name, course_map(course), variant)


def card_diagram_filename(name: str, course: Course, variant: Variant) -> str:
    """``torchdeck-<name>-<lang>[-night]-<hash>.png``: changes whenever the picture does."""
    digest = hashlib.sha256(card_diagram_png(name, course, variant)).hexdigest()[:12]
    return f"torchdeck-{name}-{variant.lang}{'-night' if variant.night else ''}-{digest}.png"


def diagram_headline(name: str, lang: str) -> tuple[str, str]:
    """What a slide showing diagram ``name`` says of it, in ``lang``: its headline and a question for the room."""
    scene = _scene(name)
    words = scene.WORDS.get(lang, scene.WORDS["en"])
    return words["slide_headline"], words["slide_ask"]


def diagram_alt(name: str, course: Course, lang: str) -> str:
    """What the picture shows, in words (a slide's alt text), in ``lang``."""
    scene = _scene(name)
    words = scene.WORDS.get(lang, scene.WORDS["en"])
    describe = getattr(scene, "describe", None)
    return describe(words, course_map(course)) if describe else words["alt"]


def labels_drawn(name: str, course: Course, variant: Variant) -> list[tuple[str, int, bool]]:
    """Each line of text the picture draws: its text, its size in the picture's pixels, whether bold."""
    from .canvas import drawn

    _scene(name)
    return drawn(name, course_map(course), variant)


def _png(name: str, course: CourseMap, variant: Variant) -> bytes:
    from .canvas import png

    _scene(name)
    return png(name, course, variant)


def _scene(name: str):
    if name not in SCENES:
        raise KeyError(f"unknown diagram '{name}' (known: {', '.join(DIAGRAM_NAMES)})")
    return SCENES[name]
