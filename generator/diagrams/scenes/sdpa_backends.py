"""scaled_dot_product_attention's default backend priority: the four kernels in the order they are tried."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..layouts import CourseMap
    from ..pen import Pen

NAME = "sdpa-backends"
WORDS = {
    "en": {
        "slide_headline": "The order in which SDPA tries its backends", "slide_ask": "Which backend would your own model reach first?",
        "sdpa_title": "scaled_dot_product_attention: default backend priority",
        "flash_detail": "fp16/bf16, CUDA, head_dim limits",
        "efficient_detail": "memory-efficient kernel",
        "math_detail": "plain PyTorch ops, runs everywhere",
        "cudnn_detail": "cuDNN fused attention",
        "sdpa_rule": "The first enabled backend whose constraints the inputs meet runs.",
        "alt": "The default backend priority of scaled_dot_product_attention: 1 FLASH_ATTENTION (fp16/bf16, "
               "CUDA, head_dim limits), 2 EFFICIENT_ATTENTION (memory-efficient kernel), 3 MATH (plain PyTorch "
               "ops, runs everywhere), 4 CUDNN_ATTENTION (cuDNN fused attention). The first enabled backend "
               "whose constraints the inputs meet runs.",
    },
    "zh": {
        "slide_headline": "SDPA 依次尝试各后端的顺序", "slide_ask": "你自己的模型会先落到哪个后端？",
        "sdpa_title": "scaled_dot_product_attention：默认后端优先级",
        "flash_detail": "fp16/bf16、CUDA、head_dim 有限制",
        "efficient_detail": "省内存的内核",
        "math_detail": "普通 PyTorch 运算，处处可用",
        "cudnn_detail": "cuDNN 融合注意力",
        "sdpa_rule": "运行第一个已启用、且输入满足其约束的后端。",
        "alt": "scaled_dot_product_attention 的默认后端优先级：1 FLASH_ATTENTION（fp16/bf16、CUDA、head_dim 有限制），"
               "2 EFFICIENT_ATTENTION（省内存的内核），3 MATH（普通 PyTorch 运算，处处可用），"
               "4 CUDNN_ATTENTION（cuDNN 融合注意力）。运行第一个已启用、且输入满足其约束的后端。",
    },
}


def _steps(pen: Pen) -> list[tuple[str, str, str]]:
    words = pen.words
    return [("1  FLASH_ATTENTION", words["flash_detail"], "gpu"),
            ("2  EFFICIENT_ATTENTION", words["efficient_detail"], "gpu"),
            ("3  MATH", words["math_detail"], "cpu"),
            ("4  CUDNN_ATTENTION", words["cudnn_detail"], "gpu")]


def draw(pen: Pen, _course: CourseMap) -> float:
    """The kernels top to bottom, each with what it needs or is: upright under its box, landscape beside it."""
    pad = 24
    y = pen.title("sdpa_title")
    box_right = pen.width - pad if pen.upright else pen.width * 0.45
    centre = pen.width / 2 if pen.upright else (pad + box_right) / 2
    arrow = 56 if pen.upright else 22
    for index, (title, detail, colour) in enumerate(_steps(pen)):
        if index:
            pen.arrow((centre, y + 4), (centre, y + arrow))
            y += arrow + 4
        top = y
        y = pen.box(pad, y, box_right, title, fill=pen.accent(colour), size=30)
        if pen.upright:
            y = pen.text(pad + 16, y + 8, detail, width=pen.width - 2 * pad - 16)
        else:
            width = pen.width - pad - box_right - 40
            pen.text(box_right + 40, (top + y - pen.text_height(detail, width, 26, False)) / 2, detail, width=width)
    return pen.note(y, "sdpa_rule")
