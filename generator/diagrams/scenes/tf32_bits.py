"""The floating-point formats bit by bit: sign, exponent and mantissa of FP32, TF32, BF16 and FP16."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..layouts import CourseMap
    from ..pen import Pen

NAME = "tf32-bits"
WORDS = {
    "en": {
        "slide_headline": "TF32: float32's exponent, float16's mantissa", "slide_ask": "Which bits does TF32 drop from float32?",
        "tf32_title": "Floating-point formats: sign | exponent | mantissa bits",
        "sign": "sign",
        "exponent": "exponent",
        "mantissa": "mantissa",
        "tf32_rule": "TF32 keeps FP32's range (8 exponent bits) with FP16's precision (10 mantissa bits).",
        "alt": "Bits of each floating-point format as sign, exponent and mantissa: FP32 1, 8, 23; TF32 1, 8, 10; "
               "BF16 1, 8, 7; FP16 1, 5, 10. TF32 keeps FP32's range (8 exponent bits) with FP16's precision "
               "(10 mantissa bits).",
    },
    "zh": {
        "slide_headline": "TF32：float32 的指数，float16 的尾数", "slide_ask": "TF32 丢掉了 float32 的哪些位？",
        "tf32_title": "浮点格式：符号位 | 指数位 | 尾数位",
        "sign": "符号",
        "exponent": "指数",
        "mantissa": "尾数",
        "tf32_rule": "TF32 保留 FP32 的范围（8 个指数位）和 FP16 的精度（10 个尾数位）。",
        "alt": "各浮点格式的符号位、指数位和尾数位：FP32 为 1、8、23；TF32 为 1、8、10；BF16 为 1、8、7；"
               "FP16 为 1、5、10。TF32 保留 FP32 的范围（8 个指数位）和 FP16 的精度（10 个尾数位）。",
    },
}
FORMATS = (("FP32", (1, 8, 23)), ("TF32", (1, 8, 10)), ("BF16", (1, 8, 7)), ("FP16", (1, 5, 10)))


def draw(pen: Pen, _course: CourseMap) -> float:
    """A legend (what each colour is), then a bar per format, a cell per part as wide as its bits."""
    pad = 24
    y = pen.title("tf32_title")
    parts = (("sign", "other"), ("exponent", "cpu"), ("mantissa", "gpu"))
    x: float = pad
    for key, colour in parts:
        pen.rectangle(x, y + 6, x + 28, y + 34, fill=pen.accent(colour))
        label = pen.words[key]
        pen.text(x + 38, y, label, width=300)
        x += 38 + pen.length(label) + 30
    y += 60 if pen.upright else 52
    bar, pitch = (64, 90) if pen.upright else (56, 72)
    unit = (pen.width - 2 * pad - 120) / 32
    for name, bits in FORMATS:
        pen.text(pad, y + 14 - (64 - bar) / 2, name, width=120, size=30, bold=True)
        x = pad + 120
        for count, (_, colour) in zip(bits, parts):
            pen.rectangle(x, y, x + count * unit, y + bar, fill=pen.accent(colour), edge=2)
            if count > 1:
                pen.text(x, y + 14 - (64 - bar) / 2, str(count), width=count * unit, bold=True,
                         fill=pen.palette.on_accent, centre=True)
            x += count * unit
        y += pitch
    return pen.note(y, "tf32_rule")
