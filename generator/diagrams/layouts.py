"""Where a diagram is shown (an upright card, a landscape slide) and in which colours; plain data, no Pillow.

A scene draws in *units*: the card's pixels. A layout says how many canvas pixels a unit is
(``scale``), how wide and (for a slide) how high its canvas is in units, and how small its
smallest label may be (``MIN_LABEL`` units in every layout). The numbers a scene writes (a 26-unit
label, a 24-unit margin) so mean the same on a card and on a slide; only the room differs.

Card: 720 px wide, as tall as what was drawn; shown at most as wide as the card (366 CSS px on a
390 px phone), so a 26 px label shows 13 px high there.
Slide: 1746 × 770 px, the Diagram layout's body (873.6 × 385.2 pt in ``templates/slides.pptx``) at
2 px a point, so the picture fills it; a unit is 1.45 px, so a 26-unit label is 38 px, 19 pt on
the slide: readable from the back of a room (18 pt and up).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

Colour = tuple[int, int, int]

MIN_LABEL = 26  # units: no text is drawn smaller
PAD = 24  # units: the margin around a diagram


@dataclass(frozen=True)
class Layout:
    """A diagram's shape: ``width`` × ``height`` units (``height`` None: as tall as what was drawn),
    each unit ``scale`` canvas pixels; ``upright`` tells a scene to stack what a landscape one puts side
    by side."""

    name: str
    width: float
    height: Optional[float]
    scale: float
    upright: bool


CARD = Layout("card", 720, None, 1.0, upright=True)
SLIDE = Layout("slide", 1746 / 1.45, 770 / 1.45, 1.45, upright=False)


@dataclass(frozen=True)
class Palette:
    paper: Colour
    ink: Colour
    muted: Colour
    on_accent: Colour = (255, 255, 255)


LIGHT = Palette(paper=(255, 255, 255), ink=(29, 33, 37), muted=(92, 102, 112))
NIGHT = Palette(paper=(31, 32, 35), ink=(228, 230, 232), muted=(162, 171, 180))  # card.css's night --bg, --fg, --muted
ACCENTS: dict[str, Colour] = {"gpu": (118, 185, 0), "cpu": (0, 113, 197), "apple": (142, 142, 147),
                              "other": (238, 76, 44)}


@dataclass(frozen=True)
class Variant:
    """Which picture of a diagram: ``lang`` of its words, ``night`` for dark mode (cards only), ``layout``."""

    lang: str
    night: bool = False
    layout: Layout = CARD

    @property
    def palette(self) -> Palette:
        return NIGHT if self.night else LIGHT


@dataclass(frozen=True)
class CourseMap:
    """What a diagram depicts of the course: the short names of the modules it shows (in teaching order) and
    those it highlights (a workshop's own; none: nothing is highlighted)."""

    modules: tuple[str, ...]
    highlighted: tuple[str, ...] = ()
