"""Which cuDNN switch for which situation: three questions, each answered by a setting."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..layouts import CourseMap
    from ..pen import Pen

NAME = "cudnn-flags"
WORDS = {
    "en": {
        "slide_headline": "Which cuDNN switch for which situation", "slide_ask": "Which path does your own training job take?",
        "cudnn_title": "cuDNN flags: which switch for which situation?",
        "yes": "yes",
        "no": "no",
        "bit_exact": "Need bit-exact reruns?",
        "shapes_fixed": "Input shapes fixed?",
        "shapes_vary": "Shapes vary (NLP, detection)",
        "autotune": "(autotune once per shape)",
        "defaults_fine": "(defaults are fine)",
        "cudnn_debug": "Debugging a suspected cuDNN bug? enabled = False runs PyTorch's own kernels.",
        "alt": "Decision chart for the cuDNN flags. Need bit-exact reruns? Yes: deterministic = True, "
               "benchmark = False. No: input shapes fixed? Yes: benchmark = True, autotuned once per shape. "
               "No, shapes vary: benchmark = False, the defaults are fine. To rule out a suspected cuDNN bug, "
               "enabled = False runs PyTorch's own kernels.",
    },
    "zh": {
        "slide_headline": "什么情况用哪个 cuDNN 开关", "slide_ask": "你自己的训练任务走的是哪条路径？",
        "cudnn_title": "cuDNN 开关：什么情况用哪个？",
        "yes": "是",
        "no": "否",
        "bit_exact": "需要逐位一致的重跑？",
        "shapes_fixed": "输入形状固定？",
        "shapes_vary": "形状多变（NLP、检测）",
        "autotune": "（每种形状自动调优一次）",
        "defaults_fine": "（默认即可）",
        "cudnn_debug": "怀疑 cuDNN 有缺陷？enabled = False 改用 PyTorch 自己的内核。",
        "alt": "cuDNN 开关的决策图。需要逐位一致的重跑？是：deterministic = True，benchmark = False。"
               "否：输入形状固定？是：benchmark = True，每种形状自动调优一次。否，形状多变：benchmark = False，"
               "默认即可。怀疑 cuDNN 有缺陷时，enabled = False 改用 PyTorch 自己的内核。",
    },
}


def _steps(pen: Pen) -> list[tuple[str, str, str]]:
    words = pen.words
    return [(words["bit_exact"], "deterministic = True\nbenchmark = False", "gpu"),
            (words["shapes_fixed"], "benchmark = True\n" + words["autotune"], "gpu"),
            (words["shapes_vary"], "benchmark = False\n" + words["defaults_fine"], "cpu")]


def draw(pen: Pen, _course: CourseMap) -> float:
    return _upright(pen) if pen.upright else _landscape(pen)


def _upright(pen: Pen) -> float:
    """Each question over its answer; the "no" path runs down the left edge, past the answers."""
    pad = 24
    y = pen.title("cudnn_title")
    steps = _steps(pen)
    rail = pad + 24
    for index, (question, answer, colour) in enumerate(steps):
        question_bottom = pen.box(pad, y, pen.width - pad, question, fill=pen.accent("other"), size=28)
        answer_top = question_bottom + 70
        yes = pen.words["yes"] if index < len(steps) - 1 else ""
        pen.arrow((pen.width / 2 + 40, question_bottom), (pen.width / 2 + 40, answer_top), label=yes,
                  colour=pen.palette.ink)
        answer_bottom = pen.box(rail + 60, answer_top, pen.width - pad, answer, fill=pen.accent(colour), size=26,
                                bold=False)
        if index < len(steps) - 1:
            next_top = answer_bottom + 40
            pen.arrow((rail, question_bottom), (rail, next_top), colour=pen.palette.ink)
            pen.text(rail + 10, question_bottom + 8, pen.words["no"], width=120, bold=True)
            y = next_top
        else:
            y = answer_bottom
    return pen.note(y, "cudnn_debug")


def _landscape(pen: Pen) -> float:
    """Questions down the left, each answer to its right ("yes"); the "no" path runs down between questions."""
    pad = 24
    y = pen.title("cudnn_title")
    split = pen.width * 0.48
    answer_left = split + 110
    steps = _steps(pen)
    for index, (question, answer, colour) in enumerate(steps):
        answer_height = pen.text_height(answer, pen.width - pad - answer_left - 20, 26, False) + 20
        question_height = pen.text_height(question, split - pad - 28, 28, True) + 28
        row = max(answer_height, question_height)
        question_top = y + (row - question_height) / 2
        question_bottom = pen.box(pad, question_top, split, question, fill=pen.accent("other"), size=28)
        middle = question_top + question_height / 2
        pen.arrow((split, middle), (answer_left, middle), colour=pen.palette.ink)
        if index < len(steps) - 1:
            pen.text(split + 16, middle - 42, pen.words["yes"], width=answer_left - split - 16, bold=True)
        pen.box(answer_left, y + (row - answer_height) / 2, pen.width - pad, answer, fill=pen.accent(colour),
                size=26, bold=False, inner=10)
        y += row
        if index < len(steps) - 1:
            rail = pad + (split - pad) / 2
            pen.arrow((rail, question_bottom), (rail, y + 34), colour=pen.palette.ink)
            pen.text(rail + 14, question_bottom - 2, pen.words["no"], width=120, bold=True)
            y += 34
    return pen.note(y - 10, "cudnn_debug")
