"""Diagrams drawn as PNG images, shared by the Anki deck and the slides.

Drawn with Pillow from the course itself where they depict it (the module map
lists the modules the content teaches), so they never drift from the content.
Output is deterministic: the same course gives the same bytes, and media names
carry a hash of those bytes.
"""
from __future__ import annotations

import hashlib
import io
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .diagram_names import DIAGRAM_NAMES
from .fonts import bundled_font
from .model import Course

__all__ = ["DIAGRAM_NAMES", "diagram_png", "diagram_filename"]

WIDTH, HEIGHT = 1600, 900
INK, PAPER, MUTED = (33, 37, 41), (255, 255, 255), (108, 117, 125)
ACCENTS = {"gpu": (118, 185, 0), "cpu": (0, 113, 197), "apple": (142, 142, 147), "other": (238, 76, 44)}
GROUPS = {
    "gpu": ("NVIDIA / AMD GPU", ("cuda", "cudnn", "cusparselt", "miopen", "mha")),
    "cpu": ("CPU", ("cpu", "mkl", "mkldnn", "openmp", "nnpack", "xnnpack", "kleidiai", "xeon")),
    "apple": ("Apple GPU", ("mps",)),
    "other": ("Cross-cutting", ("opt_einsum", "quantized", "python_native")),
}
@lru_cache(maxsize=None)
def _font(size: int, bold: bool = False):
    """DejaVu Sans as shipped inside the package: a diagram's pixels never depend on the machine's fonts."""
    return ImageFont.truetype(str(bundled_font("DejaVu Sans", bold)), size)


def diagram_png(name: str, course: Course) -> bytes:
    """The diagram ``name`` as PNG bytes."""
    if name not in _DRAWERS:
        raise KeyError(f"unknown diagram '{name}' (known: {', '.join(DIAGRAM_NAMES)})")
    return _cached_png(name, course.map_names)


def diagram_filename(name: str, course: Course) -> str:
    """A media file name that changes whenever the picture does: ``torchdeck-<name>-<hash>.png``."""
    digest = hashlib.sha256(diagram_png(name, course)).hexdigest()[:12]
    return f"torchdeck-{name}-{digest}.png"


@lru_cache(maxsize=32)
def _cached_png(name: str, modules: tuple[str, ...]) -> bytes:
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    _DRAWERS[name](ImageDraw.Draw(image), modules)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _box(draw, xy, text, fill, *, size=30, bold=True, ink=PAPER):
    draw.rounded_rectangle(xy, radius=18, fill=fill)
    _centered(draw, xy, text, size=size, bold=bold, ink=ink)


def _centered(draw, xy, text, *, size=30, bold=False, ink=INK):
    font = _font(size, bold)
    lines = text.split("\n")
    heights = [draw.textbbox((0, 0), line, font=font)[3] for line in lines]
    y = (xy[1] + xy[3]) / 2 - (sum(heights) + 8 * (len(lines) - 1)) / 2
    for line, height in zip(lines, heights):
        width = draw.textlength(line, font=font)
        draw.text(((xy[0] + xy[2]) / 2 - width / 2, y), line, font=font, fill=ink)
        y += height + 8


def _arrow(draw, start, end, *, label="", color=INK):
    draw.line([start, end], fill=color, width=5)
    (x1, y1), (x2, y2) = start, end
    length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    left = (x2 - 22 * ux + 11 * uy, y2 - 22 * uy - 11 * ux)
    right = (x2 - 22 * ux - 11 * uy, y2 - 22 * uy + 11 * ux)
    draw.polygon([end, left, right], fill=color)
    if label:
        mid = ((x1 + x2) / 2 + 12, (y1 + y2) / 2 - 34)
        draw.text(mid, label, font=_font(26, True), fill=color)


def _draw_backends_map(draw, modules):
    _box(draw, (600, 40, 1000, 130), "torch.backends", INK, size=40)
    taught = set(modules)
    columns = [(key, label, [m for m in names if m in taught]) for key, (label, names) in GROUPS.items()]
    known = {m for _, (_, names) in GROUPS.items() for m in names}
    extra = [m for m in modules if m not in known and m != "backends"]
    columns[-1][2].extend(extra)
    width = WIDTH // len(columns)
    for index, (key, label, names) in enumerate(columns):
        x0 = index * width + 30
        x1 = x0 + width - 60
        _arrow(draw, (800, 130), ((x0 + x1) / 2, 200), color=MUTED)
        _box(draw, (x0, 200, x1, 270), label, ACCENTS[key], size=30)
        for row, name in enumerate(names):
            y0 = 300 + row * 70
            draw.rounded_rectangle((x0 + 20, y0, x1 - 20, y0 + 56), radius=12, outline=ACCENTS[key], width=4)
            _centered(draw, (x0 + 20, y0, x1 - 20, y0 + 56), name, size=28)


def _draw_cudnn_flags(draw, _modules):
    draw.text((40, 30), "cuDNN flags: which switch for which situation?", font=_font(40, True), fill=INK)
    question = (90, 140, 610, 260)
    _box(draw, question, "Need bit-exact\nreruns?", ACCENTS["other"], size=32)
    _arrow(draw, (610, 200), (900, 200), label="yes")
    _box(draw, (900, 130, 1560, 270), "deterministic = True\nbenchmark = False", ACCENTS["gpu"], size=32)
    _arrow(draw, (350, 260), (350, 380), label="no")
    _box(draw, (90, 380, 610, 500), "Input shapes\nfixed?", ACCENTS["other"], size=32)
    _arrow(draw, (610, 440), (900, 440), label="yes")
    _box(draw, (900, 370, 1560, 510), "benchmark = True\n(autotune once per shape)", ACCENTS["gpu"], size=32)
    _arrow(draw, (350, 500), (350, 620), label="no")
    _box(draw, (90, 620, 610, 740), "Shapes vary\n(NLP, detection)", ACCENTS["other"], size=32)
    _arrow(draw, (610, 680), (900, 680))
    _box(draw, (900, 610, 1560, 750), "benchmark = False\n(defaults are fine)", ACCENTS["cpu"], size=32)
    draw.text((40, 800), "Debugging a suspected cuDNN bug? enabled = False runs PyTorch's own kernels.",
              font=_font(30), fill=MUTED)


def _draw_sdpa_backends(draw, _modules):
    draw.text((40, 30), "scaled_dot_product_attention: default backend priority", font=_font(40, True), fill=INK)
    steps = [("1  FLASH_ATTENTION", "fp16/bf16, CUDA, head_dim limits", ACCENTS["gpu"]),
             ("2  EFFICIENT_ATTENTION", "memory-efficient kernel", ACCENTS["gpu"]),
             ("3  MATH", "plain PyTorch ops, runs everywhere", ACCENTS["cpu"]),
             ("4  CUDNN_ATTENTION", "cuDNN fused attention", ACCENTS["gpu"])]
    for index, (title, detail, color) in enumerate(steps):
        y0 = 140 + index * 180
        _box(draw, (80, y0, 760, y0 + 120), title, color, size=34)
        draw.text((800, y0 + 40), detail, font=_font(32), fill=INK)
        if index < len(steps) - 1:
            _arrow(draw, (420, y0 + 120), (420, y0 + 180), color=MUTED)
    draw.text((800, 830), "The first enabled backend whose constraints the inputs meet runs.",
              font=_font(26), fill=MUTED)


def _draw_tf32_bits(draw, _modules):
    draw.text((40, 30), "Floating-point formats: sign | exponent | mantissa bits", font=_font(40, True), fill=INK)
    formats = [("FP32", 1, 8, 23), ("TF32", 1, 8, 10), ("BF16", 1, 8, 7), ("FP16", 1, 5, 10)]
    unit = 38
    for row, (name, sign, exponent, mantissa) in enumerate(formats):
        y0 = 150 + row * 180
        draw.text((40, y0 + 20), name, font=_font(40, True), fill=INK)
        x = 240
        for count, color, label in ((sign, ACCENTS["other"], "s"), (exponent, ACCENTS["cpu"], "exp"),
                                    (mantissa, ACCENTS["gpu"], "mantissa")):
            draw.rectangle((x, y0, x + count * unit, y0 + 90), fill=color, outline=PAPER, width=3)
            _centered(draw, (x, y0, x + count * unit, y0 + 90), f"{count}" if count < 3 else f"{label} {count}",
                      size=26, bold=True, ink=PAPER)
            x += count * unit
    draw.text((40, 840), "TF32 keeps FP32's range (8 exponent bits) with FP16's precision (10 mantissa bits).",
              font=_font(28), fill=MUTED)


_DRAWERS = {
    "backends-map": _draw_backends_map,
    "cudnn-flags": _draw_cudnn_flags,
    "sdpa-backends": _draw_sdpa_backends,
    "tf32-bits": _draw_tf32_bits,
}
assert set(_DRAWERS) == set(DIAGRAM_NAMES), "every diagram name needs a drawer"
