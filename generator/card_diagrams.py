"""The diagrams as the Anki cards show them: upright, readable on a phone, light and night, per language.

A card shows a diagram at most as wide as the card: 366 CSS pixels on a 390 px
phone, 720 on a desktop. Drawn 720 px wide with no text under ``MIN_LABEL_PX``,
every label shows at least 12 px high on such a phone (26 × 366 / 720 ≈ 13).
The night variant has the card's night background, so no white slab lights up a
dark screen; the CSS shows the one that matches the mode. Chinese diagrams take
their words from ``diagram_labels`` and draw them with the shipped Noto Sans CJK
subset; code names stay in DejaVu Sans. Same course, same bytes. The slides keep
the landscape diagrams of ``generator.diagrams``.
"""
from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .diagram_labels import LABELS
from .diagram_names import DIAGRAM_NAMES
from .diagrams import ACCENTS, GROUPS
from .fonts import bundled_font, diagram_cjk_font
from .model import Course

WIDTH = 720
MIN_LABEL_PX = 26
PAD = 24
_CANVAS_HEIGHT = 2400  # drawn on this, then cut to what was drawn
_WORDS = re.compile(r"[\x21-\x7e]+ *| +|[^\x00-\x7f] *")  # an ASCII word, or one CJK character, with its spaces


@dataclass(frozen=True)
class DiagramColours:
    paper: tuple[int, int, int]
    ink: tuple[int, int, int]
    muted: tuple[int, int, int]
    on_accent: tuple[int, int, int] = (255, 255, 255)


LIGHT = DiagramColours(paper=(255, 255, 255), ink=(29, 33, 37), muted=(92, 102, 112))
NIGHT = DiagramColours(paper=(31, 32, 35), ink=(228, 230, 232), muted=(162, 171, 180))  # card.css's night --bg, --fg, --muted


@dataclass(frozen=True)
class Variant:
    """Which picture of a diagram: ``lang`` of its words, ``night`` for dark mode."""

    lang: str
    night: bool

    @property
    def palette(self) -> DiagramColours:
        return NIGHT if self.night else LIGHT


def card_diagram_png(name: str, course: Course, variant: Variant) -> bytes:
    """The card picture of diagram ``name`` as PNG bytes."""
    if name not in _DRAWERS:
        raise KeyError(f"unknown diagram '{name}' (known: {', '.join(_DRAWERS)})")
    return _cached_png(name, course.map_names, variant)


def card_diagram_filename(name: str, course: Course, variant: Variant) -> str:
    """``torchdeck-<name>-<lang>[-night]-<hash>.png``: changes whenever the picture does."""
    digest = hashlib.sha256(card_diagram_png(name, course, variant)).hexdigest()[:12]
    return f"torchdeck-{name}-{variant.lang}{'-night' if variant.night else ''}-{digest}.png"


@lru_cache(maxsize=64)
def _cached_png(name: str, modules: tuple[str, ...], variant: Variant) -> bytes:
    image = Image.new("RGB", (WIDTH, _CANVAS_HEIGHT), variant.palette.paper)
    pen = _Pen(ImageDraw.Draw(image), variant.palette, LABELS.get(variant.lang, LABELS["en"]))
    bottom = _DRAWERS[name](pen, modules)
    buffer = io.BytesIO()
    image.crop((0, 0, WIDTH, int(bottom) + PAD)).save(buffer, format="PNG")
    return buffer.getvalue()


@lru_cache(maxsize=None)
def _font(size: int, bold: bool, cjk: bool):
    path = diagram_cjk_font(bold) if cjk else bundled_font("DejaVu Sans", bold)
    return ImageFont.truetype(str(path), size)


class _Pen:
    """Draws wrapped text, boxes and arrows in one palette; every method returns the bottom it drew to."""

    def __init__(self, draw: ImageDraw.ImageDraw, palette: DiagramColours, words: dict[str, str]):
        self.draw, self.palette, self.words = draw, palette, words

    def lines(self, text: str, width: float, size: int, bold: bool) -> list[tuple[str, ImageFont.FreeTypeFont]]:
        """``text`` broken at its ``\\n`` and wherever a line would be wider than ``width``, each line with
        its font: DejaVu Sans for a plain ASCII paragraph, the CJK font for one with Chinese."""
        if size < MIN_LABEL_PX:
            raise ValueError(f"text of {size} px is under the {MIN_LABEL_PX} px a phone needs")
        out = []
        for paragraph in text.split("\n"):
            font = _font(size, bold, not paragraph.isascii())
            line = ""
            for word in _WORDS.findall(paragraph):
                if line and self.draw.textlength((line + word).rstrip(), font=font) > width:
                    out.append((line.rstrip(), font))
                    line = word.lstrip()
                else:
                    line += word
            out.append((line.rstrip(), font))
        return out

    def text(self, x: float, y: float, text: str, *, width: float, size: int = MIN_LABEL_PX, bold: bool = False,
             fill=None, centre: bool = False) -> float:
        step = round(size * 1.35)
        for line, font in self.lines(text, width, size, bold):
            left = x + (width - self.draw.textlength(line, font=font)) / 2 if centre else x
            self.draw.text((left, y), line, font=font, fill=fill or self.palette.ink)
            y += step
        return y

    def text_height(self, text: str, width: float, size: int, bold: bool) -> float:
        return len(self.lines(text, width, size, bold)) * round(size * 1.35)

    def box(self, x0: float, y0: float, x1: float, text: str, *, fill=None, outline=None, size: int = 28,
            bold: bool = True, inner: int = 14, ink=None) -> float:
        """A rounded box around centred ``text``: filled with an accent (white text) or outlined (ink text)."""
        height = self.text_height(text, x1 - x0 - 2 * inner, size, bold) + 2 * inner
        self.draw.rounded_rectangle((x0, y0, x1, y0 + height), radius=14, fill=fill,
                                    outline=outline, width=4 if outline else 0)
        ink = ink or (self.palette.on_accent if fill else self.palette.ink)
        self.text(x0 + inner, y0 + inner - size * 0.12, text, width=x1 - x0 - 2 * inner, size=size, bold=bold,
                  fill=ink, centre=True)
        return y0 + height

    def title(self, key: str) -> float:
        """The diagram's heading across the top; returns where what follows starts."""
        return self.text(PAD, PAD, self.words[key], width=WIDTH - 2 * PAD, size=32, bold=True) + 18

    def note(self, y: float, key: str) -> float:
        """The muted sentence under a diagram."""
        return self.text(PAD, y + 26, self.words[key], width=WIDTH - 2 * PAD, fill=self.palette.muted)

    def arrow(self, start, end, *, label: str = "", colour=None) -> None:
        colour = colour or self.palette.muted
        self.draw.line([start, end], fill=colour, width=5)
        (x1, y1), (x2, y2) = start, end
        length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        self.draw.polygon([end, (x2 - 20 * ux + 10 * uy, y2 - 20 * uy - 10 * ux),
                           (x2 - 20 * ux - 10 * uy, y2 - 20 * uy + 10 * ux)], fill=colour)
        if label:
            self.text((x1 + x2) / 2 + 14, (y1 + y2) / 2 - MIN_LABEL_PX * 0.7, label, width=200, bold=True,
                      fill=colour)


def _draw_backends_map(pen: _Pen, modules: tuple[str, ...]) -> float:
    bottom = pen.box(WIDTH / 2 - 170, PAD, WIDTH / 2 + 170, "torch.backends", fill=pen.palette.ink, size=32,
                     ink=pen.palette.paper)
    taught = set(modules)
    known = {m for _, names in GROUPS.values() for m in names}
    groups = [(key, [m for m in names if m in taught]) for key, (_, names) in GROUPS.items()]
    groups[-1][1].extend(m for m in modules if m not in known and m != "backends")
    column_width = (WIDTH - 3 * PAD) / 2
    tops = [bottom + 70, bottom + 70]
    for key, names in groups:  # each group goes under the shorter column
        column = tops.index(min(tops))
        x0 = PAD + column * (column_width + PAD)
        x1 = x0 + column_width
        if tops[column] == bottom + 70:
            pen.arrow((WIDTH / 2, bottom), ((x0 + x1) / 2, bottom + 64))
        y = pen.box(x0, tops[column], x1, pen.words[key], fill=ACCENTS[key], size=28) + 10
        for name in names:
            y = pen.box(x0 + 16, y, x1 - 16, name, outline=ACCENTS[key], size=MIN_LABEL_PX, bold=False, inner=8) + 8
        tops[column] = y + 24
    return max(tops) - 24


def _draw_cudnn_flags(pen: _Pen, _modules) -> float:
    words = pen.words
    y = pen.title("cudnn_title")
    steps = [(words["bit_exact"], "deterministic = True\nbenchmark = False", ACCENTS["gpu"]),
             (words["shapes_fixed"], "benchmark = True\n" + words["autotune"], ACCENTS["gpu"]),
             (words["shapes_vary"], "benchmark = False\n" + words["defaults_fine"], ACCENTS["cpu"])]
    rail = PAD + 24  # the "no" path runs down the left edge, past the answers
    for index, (question, answer, colour) in enumerate(steps):
        question_bottom = pen.box(PAD, y, WIDTH - PAD, question, fill=ACCENTS["other"], size=28)
        answer_top = question_bottom + 70
        yes = words["yes"] if index < len(steps) - 1 else ""
        pen.arrow((WIDTH / 2 + 40, question_bottom), (WIDTH / 2 + 40, answer_top), label=yes, colour=pen.palette.ink)
        answer_bottom = pen.box(rail + 60, answer_top, WIDTH - PAD, answer, fill=colour, size=MIN_LABEL_PX,
                                bold=False)
        if index < len(steps) - 1:
            next_top = answer_bottom + 40
            pen.arrow((rail, question_bottom), (rail, next_top), colour=pen.palette.ink)
            pen.text(rail + 10, question_bottom + 8, words["no"], width=120, bold=True)
            y = next_top
        else:
            y = answer_bottom
    return pen.note(y, "cudnn_debug")


def _draw_sdpa_backends(pen: _Pen, _modules) -> float:
    words = pen.words
    y = pen.title("sdpa_title")
    steps = [("1  FLASH_ATTENTION", words["flash_detail"], ACCENTS["gpu"]),
             ("2  EFFICIENT_ATTENTION", words["efficient_detail"], ACCENTS["gpu"]),
             ("3  MATH", words["math_detail"], ACCENTS["cpu"]),
             ("4  CUDNN_ATTENTION", words["cudnn_detail"], ACCENTS["gpu"])]
    for index, (title, detail, colour) in enumerate(steps):
        if index:
            pen.arrow((WIDTH / 2, y + 4), (WIDTH / 2, y + 56))
            y += 60
        y = pen.box(PAD, y, WIDTH - PAD, title, fill=colour, size=30)
        y = pen.text(PAD + 16, y + 8, detail, width=WIDTH - 2 * PAD - 16)
    return pen.note(y, "sdpa_rule")


def _draw_tf32_bits(pen: _Pen, _modules) -> float:
    words = pen.words
    y = pen.title("tf32_title")
    parts = (("sign", ACCENTS["other"]), ("exponent", ACCENTS["cpu"]), ("mantissa", ACCENTS["gpu"]))
    x: float = PAD
    for key, colour in parts:  # the legend: what each colour is
        pen.draw.rectangle((x, y + 6, x + 28, y + 34), fill=colour)
        label = words[key]
        pen.text(x + 38, y, label, width=300)
        x += 38 + pen.draw.textlength(label, font=_font(MIN_LABEL_PX, False, not label.isascii())) + 30
    y += 60
    unit = (WIDTH - 2 * PAD - 120) / 32
    for name, bits in (("FP32", (1, 8, 23)), ("TF32", (1, 8, 10)), ("BF16", (1, 8, 7)), ("FP16", (1, 5, 10))):
        pen.text(PAD, y + 14, name, width=120, size=30, bold=True)
        x = PAD + 120
        for count, (_, colour) in zip(bits, parts):
            pen.draw.rectangle((x, y, x + count * unit, y + 64), fill=colour, outline=pen.palette.paper, width=2)
            if count > 1:
                pen.text(x, y + 14, str(count), width=count * unit, bold=True, fill=pen.palette.on_accent,
                         centre=True)
            x += count * unit
        y += 90
    return pen.note(y, "tf32_rule")


_DRAWERS = {
    "backends-map": _draw_backends_map,
    "cudnn-flags": _draw_cudnn_flags,
    "sdpa-backends": _draw_sdpa_backends,
    "tf32-bits": _draw_tf32_bits,
}
assert set(_DRAWERS) == set(DIAGRAM_NAMES), "every diagram name needs a card drawer"
