"""The pen every scene draws with: wrapped text, boxes and arrows in one palette, in a layout's units.

Positions and sizes are in units (``layouts``); the pen turns them into canvas pixels. Words of a
paragraph without Chinese are drawn in the shipped DejaVu Sans, one with Chinese in the shipped
cut of Noto Sans CJK SC (``tools/make_cjk_font.py``), so a diagram's pixels never depend on the
machine's fonts. Every line of text drawn is kept in ``drawn`` (its text, its size in canvas pixels and
whether bold), for the tests.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from PIL import ImageDraw, ImageFont

from ..fonts import bundled_font, diagram_cjk_font
from .layouts import ACCENTS, MIN_LABEL, PAD, Colour, Layout, Palette

_WORDS = re.compile(r"[\x21-\x7e]+ *| +|[^\x00-\x7f] *")  # an ASCII word, or one CJK character, with its spaces


@lru_cache(maxsize=None)
def font(size: int, bold: bool, cjk: bool) -> ImageFont.FreeTypeFont:
    path = diagram_cjk_font(bold) if cjk else bundled_font("DejaVu Sans", bold)
    return ImageFont.truetype(str(path), size)


class Pen:
    """Draws on ``draw`` in ``layout``'s units; every drawing method returns the bottom it drew to."""

    def __init__(self, draw: ImageDraw.ImageDraw, layout: Layout, palette: Palette, words: dict[str, str]):
        self.draw, self.layout, self.palette, self.words = draw, layout, palette, words
        self.width = layout.width
        self.drawn: list[tuple[str, int, bool]] = []

    @property
    def upright(self) -> bool:
        return self.layout.upright

    @staticmethod
    def accent(key: str) -> Colour:
        return ACCENTS[key]

    # ------------------------------------------------------------ units to pixels
    def _px(self, value: float) -> float:
        return value * self.layout.scale

    def _xy(self, *values: float) -> tuple[float, ...]:
        return tuple(self._px(v) for v in values)

    def _font(self, size: int, bold: bool, cjk: bool) -> ImageFont.FreeTypeFont:
        return font(round(size * self.layout.scale), bold, cjk)

    def length(self, text: str, size: int = MIN_LABEL, bold: bool = False) -> float:
        """How wide ``text`` is drawn, in units."""
        return self.draw.textlength(text, font=self._font(size, bold, not text.isascii())) / self.layout.scale

    # ------------------------------------------------------------------- text
    def lines(self, text: str, width: float, size: int, bold: bool) -> list[tuple[str, bool]]:
        """``text`` broken at its ``\\n`` and wherever a line would be wider than ``width``, each line with
        whether it is drawn in the CJK font (a paragraph with Chinese) or DejaVu Sans (a plain ASCII one)."""
        if size < MIN_LABEL:
            raise ValueError(f"text of {size} units is under the {MIN_LABEL} the smallest label may be")
        out = []
        for paragraph in text.split("\n"):
            cjk = not paragraph.isascii()
            face = self._font(size, bold, cjk)
            line = ""
            for word in _WORDS.findall(paragraph):
                if line and self.draw.textlength((line + word).rstrip(), font=face) / self.layout.scale > width:
                    out.append((line.rstrip(), cjk))
                    line = word.lstrip()
                else:
                    line += word
            out.append((line.rstrip(), cjk))
        return out

    def text(self, x: float, y: float, text: str, *, width: float, size: int = MIN_LABEL, bold: bool = False,
             fill: Optional[Colour] = None, centre: bool = False) -> float:
        step = round(size * 1.35)
        for line, cjk in self.lines(text, width, size, bold):
            face = self._font(size, bold, cjk)
            left = x + (width - self.draw.textlength(line, font=face) / self.layout.scale) / 2 if centre else x
            self.draw.text((self._px(left), self._px(y)), line, font=face, fill=fill or self.palette.ink)
            self.drawn.append((line, int(face.size), bold))
            y += step
        return y

    def text_height(self, text: str, width: float, size: int, bold: bool) -> float:
        return len(self.lines(text, width, size, bold)) * round(size * 1.35)

    # ------------------------------------------------------------------ shapes
    def box(self, x0: float, y0: float, x1: float, text: str, *, fill: Optional[Colour] = None,
            outline: Optional[Colour] = None, size: int = 28, bold: bool = True, inner: int = 14,
            ink: Optional[Colour] = None) -> float:
        """A rounded box around centred ``text``: filled with an accent (white text) or outlined (ink text)."""
        height = self.text_height(text, x1 - x0 - 2 * inner, size, bold) + 2 * inner
        self.draw.rounded_rectangle(self._xy(x0, y0, x1, y0 + height), radius=self._px(14), fill=fill,
                                    outline=outline, width=round(self._px(4)) if outline else 0)
        ink = ink or (self.palette.on_accent if fill else self.palette.ink)
        self.text(x0 + inner, y0 + inner - size * 0.12, text, width=x1 - x0 - 2 * inner, size=size, bold=bold,
                  fill=ink, centre=True)
        return y0 + height

    def rectangle(self, x0: float, y0: float, x1: float, y1: float, *, fill: Colour, edge: int = 0) -> None:
        """A plain rectangle; ``edge``: a border of that many units in the paper's colour."""
        self.draw.rectangle(self._xy(x0, y0, x1, y1), fill=fill, outline=self.palette.paper if edge else None,
                            width=round(self._px(edge)))

    def arrow(self, start: tuple[float, float], end: tuple[float, float], *, label: str = "",
              colour: Optional[Colour] = None) -> None:
        colour = colour or self.palette.muted
        (x1, y1), (x2, y2) = start, end
        self.draw.line([self._xy(x1, y1), self._xy(x2, y2)], fill=colour, width=round(self._px(5)))
        length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        head = [(x2, y2), (x2 - 20 * ux + 10 * uy, y2 - 20 * uy - 10 * ux), (x2 - 20 * ux - 10 * uy, y2 - 20 * uy + 10 * ux)]
        self.draw.polygon([self._xy(x, y) for x, y in head], fill=colour)
        if label:
            self.text((x1 + x2) / 2 + 14, (y1 + y2) / 2 - MIN_LABEL * 0.7, label, width=200, bold=True, fill=colour)

    # ------------------------------------------------------------- headings
    def title(self, key: str) -> float:
        """The diagram's heading across the top; returns where what follows starts."""
        return self.text(PAD, PAD, self.words[key], width=self.width - 2 * PAD, size=32, bold=True) + 18

    def note(self, y: float, key: str) -> float:
        """The muted sentence under a diagram."""
        return self.text(PAD, y + 26, self.words[key], width=self.width - 2 * PAD, fill=self.palette.muted)
