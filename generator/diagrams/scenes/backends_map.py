"""The module map: torch.backends and its modules, grouped by the hardware they serve.

Drawn from the course (the modules it teaches), so it never drifts from the content; a workshop's
map shows the whole course with the workshop's own modules filled in.
"""
from __future__ import annotations

from math import ceil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..layouts import CourseMap
    from ..pen import Pen

NAME = "backends-map"
GROUPS = {
    "gpu": ("cuda", "cudnn", "cusparselt", "miopen", "mha"),
    "cpu": ("cpu", "mkl", "mkldnn", "openmp", "nnpack", "xnnpack", "kleidiai", "xeon"),
    "apple": ("mps",),
    "other": ("opt_einsum", "quantized", "python_native"),
}
WORDS = {
    "en": {
        "slide_headline": "Where each module sits: by the hardware it serves", "slide_ask": "Where on this map does your own setup land?","gpu": "NVIDIA / AMD GPU", "cpu": "CPU", "apple": "Apple GPU", "other": "Cross-cutting",
           "highlighted": "Filled: the modules taught here",
           "alt": "Map of torch.backends, its modules grouped by the hardware they serve: {groups}.",
           "alt_group": "{group}: {names}", "alt_and": ", ", "alt_then": "; ",
           "alt_highlighted": " Taught here: {names}."},
    "zh": {
        "slide_headline": "各模块的位置：按所服务的硬件分组", "slide_ask": "你自己的环境落在这张图的哪个位置？","gpu": "NVIDIA / AMD GPU", "cpu": "CPU", "apple": "Apple GPU", "other": "通用",
           "highlighted": "实心：本次讲授的模块",
           "alt": "torch.backends 模块图，各模块按所服务的硬件分组：{groups}。",
           "alt_group": "{group}：{names}", "alt_and": "、", "alt_then": "；",
           "alt_highlighted": "本次讲授：{names}。"},
}
ROOT = "torch.backends"
LINE = 35  # units: one line of a smallest label (26 × 1.35)


def groups_of(modules: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """Each group with the modules of the course it holds; a module no group names goes with the cross-cutting."""
    taught = set(modules)
    known = {m for names in GROUPS.values() for m in names}
    groups = [(key, [m for m in names if m in taught]) for key, names in GROUPS.items()]
    groups[-1][1].extend(m for m in modules if m not in known and m != "backends")
    return groups


def describe(words: dict[str, str], course: CourseMap) -> str:
    groups = words["alt_then"].join(words["alt_group"].format(group=words[key], names=words["alt_and"].join(names))
                                    for key, names in groups_of(course.modules) if names)
    text = words["alt"].format(groups=groups)
    if course.highlighted:
        text += words["alt_highlighted"].format(names=words["alt_and"].join(course.highlighted))
    return text


def draw(pen: Pen, course: CourseMap) -> float:
    return _upright(pen, course) if pen.upright else _landscape(pen, course)


def _item(pen: Pen, x0: float, y: float, x1: float, name: str, key: str, course: CourseMap, inner: int) -> float:
    """A module's box: outlined in its group's colour; where a map highlights some, those filled, the rest muted."""
    if not course.highlighted:
        return pen.box(x0, y, x1, name, outline=pen.accent(key), size=26, bold=False, inner=inner)
    if name in course.highlighted:
        return pen.box(x0, y, x1, name, fill=pen.accent(key), size=26, bold=True, inner=inner)
    return pen.box(x0, y, x1, name, outline=pen.palette.muted, size=26, bold=False, inner=inner, ink=pen.palette.muted)


def _root(pen: Pen, top: float) -> float:
    return pen.box(pen.width / 2 - 170, top, pen.width / 2 + 170, ROOT, fill=pen.palette.ink, size=32,
                   ink=pen.palette.paper)


def _legend(pen: Pen, x: float, y: float, width: float) -> float:
    pen.rectangle(x, y + 4, x + 28, y + 32, fill=pen.accent("cpu"))
    return pen.text(x + 40, y, pen.words["highlighted"], width=width - 40)


def _upright(pen: Pen, course: CourseMap) -> float:
    """Two columns under the root, each group under the shorter one."""
    pad = 24
    bottom = _root(pen, pad)
    column_width = (pen.width - 3 * pad) / 2
    tops = [bottom + 70, bottom + 70]
    for key, names in groups_of(course.modules):
        column = tops.index(min(tops))
        x0 = pad + column * (column_width + pad)
        x1 = x0 + column_width
        if tops[column] == bottom + 70:
            pen.arrow((pen.width / 2, bottom), ((x0 + x1) / 2, bottom + 64))
        y = pen.box(x0, tops[column], x1, pen.words[key], fill=pen.accent(key), size=28) + 10
        for name in names:
            y = _item(pen, x0 + 16, y, x1 - 16, name, key, course, 8) + 8
        tops[column] = y + 24
    bottom = max(tops) - 24
    return _legend(pen, pad, bottom + 24, pen.width - 2 * pad) if course.highlighted else bottom


def _landscape(pen: Pen, course: CourseMap) -> float:
    """A column per group under the root, a group's modules in as many sub-columns as the height needs; each
    column as wide as its longest name, the room left shared out."""
    pad, gap, inner, step = 24, 24, 6, 8
    x: float
    if course.highlighted:
        _legend(pen, pad, pad, pen.width / 2 - 170 - 2 * pad)
    bottom = _root(pen, pad)
    groups = [(key, names) for key, names in groups_of(course.modules) if names]
    height = pen.layout.height or 0.0
    rows = max(len(names) for _, names in groups)
    while True:
        columns = [max(1, ceil(len(names) / rows)) for _, names in groups]
        needs = [max([pen.length(n) + 2 * inner + 8 for n in names] + [120]) for _, names in groups]
        spare = pen.width - 2 * pad - gap * (len(groups) - 1) - sum(c * w for c, w in zip(columns, needs))
        widths = [c * w + spare * c / sum(columns) for c, w in zip(columns, needs)]
        header = max(pen.text_height(pen.words[key], w - 28, 28, True) for (key, _), w in zip(groups, widths)) + 28
        end = bottom + 56 + header + 10 + rows * (LINE + 2 * inner + step)
        if end <= height - pad or rows == 1:
            break
        rows -= 1
    x = pad
    ends = []
    for (key, names), count, width in zip(groups, columns, widths):
        pen.arrow((pen.width / 2, bottom), (x + width / 2, bottom + 50))
        pen.box(x, bottom + 56, x + width, pen.words[key], fill=pen.accent(key), size=28)
        top = bottom + 56 + header + 10
        inner_width = (width - step * (count - 1)) / count
        for index, name in enumerate(names):
            left = x + (index // rows) * (inner_width + step)
            y = top + (index % rows) * (LINE + 2 * inner + step)
            ends.append(_item(pen, left, y, left + inner_width, name, key, course, inner))
        x += width + gap
    return max(ends)
