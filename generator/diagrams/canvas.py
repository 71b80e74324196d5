"""A scene drawn onto a canvas of its layout and saved as PNG bytes (cached: the same input, the same bytes)."""
from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw

from .layouts import PAD, CourseMap, Variant
from .pen import Pen
from .scenes import SCENES

_TALLEST = 2400  # units: a canvas is drawn this tall, then cut to what was drawn (a card) or to its layout


def _drawn(name: str, course: CourseMap, variant: Variant) -> tuple[Image.Image, Pen]:
    layout, palette, scene = variant.layout, variant.palette, SCENES[name]
    canvas = Image.new("RGB", (round(layout.width * layout.scale), round(_TALLEST * layout.scale)), palette.paper)
    pen = Pen(ImageDraw.Draw(canvas), layout, palette, scene.WORDS.get(variant.lang, scene.WORDS["en"]))
    bottom = scene.draw(pen, course) + PAD
    if layout.height is None:  # a card: as tall as what was drawn
        return canvas.crop((0, 0, canvas.width, int(bottom))), pen
    return canvas.crop((0, 0, canvas.width, round(max(layout.height, bottom) * layout.scale))), pen  # its body's shape


@lru_cache(maxsize=64)
def png(name: str, course: CourseMap, variant: Variant) -> bytes:
    image, _ = _drawn(name, course, variant)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def drawn(name: str, course: CourseMap, variant: Variant) -> list[tuple[str, int, bool]]:
    return _drawn(name, course, variant)[1].drawn
