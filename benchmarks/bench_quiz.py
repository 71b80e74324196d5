"""Benchmark: a 200-question quiz sheet plus its answer key in under 1.5 s of wall time.

Each question tests a fact of its own (a quiz never holds two questions on one fact), and
the render writes everything a quiz is: the sheet, its one-page answer sheet, the key, the
marking grid, Moodle XML and GIFT.

Synthetic bilingual questions (a third with code, a quarter scenarios whose stems
open with an emoji, as the shipped "tuning master" ones do, so the colour emoji
font is part of the measure). Each
language is timed cold: the Typst compiler is created afresh, so its scan of the
system fonts is included, and so are selection, shuffling, the Moodle XML and the
writes. The figure is the slower of English and Chinese; a 1-question quiz timed
the same way is printed beside it as the fixed cost.

Run: .venv/bin/python benchmarks/bench_quiz.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.model import Course, Module  # noqa: E402
from generator.render import quiz, typesetting  # noqa: E402
from generator.render.base import RenderJob  # noqa: E402
from generator.verify import FactResult, Verification  # noqa: E402

QUESTIONS = 200
TARGET_S = 1.5
KINDS = ("single", "multi", "scenario", "truefalse")


def synthetic_question(i: int) -> dict:
    kind = KINDS[i % len(KINDS)]
    count = 2 if kind == "truefalse" else 4
    correct = {0} if kind in ("single", "truefalse") else {0, 2}
    question = {
        "id": f"bench-q{i:03d}", "kind": kind, "points": 1 + i % 3, "difficulty": 1 + i % 3,
        "stem": {"en": f"Question {i}: when does `torch.backends.cudnn.benchmark = True` speed up training, "
                       f"and what does it cost the first time a new input shape arrives?",
                 "zh": f"第 {i} 题：`torch.backends.cudnn.benchmark = True` 何时能加快训练？遇到新的输入形状时第一次要付出什么代价？"},
        "options": [{"text": {"en": f"Option {j} of question {i}: cuDNN times candidate algorithms",
                              "zh": f"第 {i} 题选项 {j}：cuDNN 试跑候选算法"},
                     "correct": j in correct,
                     "why": {"en": f"Reason {j}: the choice is cached per input shape.",
                             "zh": f"理由 {j}：选择按输入形状缓存。"}} for j in range(count)],
        "facts": [f"bench-fact-{i}"],
    }
    if kind == "scenario":
        question["stem"] = {lang: f"\N{VIDEO GAME} {text}" for lang, text in question["stem"].items()}
    if i % 3 == 0:
        question["code"] = ("import torch\ntorch.backends.cudnn.benchmark = True\n"
                            f"x = torch.randn(8, 3, 224, 224)  # batch {i}\ny = torch.nn.Conv2d(3, 16, 3)(x)\n")
    return question


def synthetic_course(questions: int) -> Course:
    module = Module.model_validate({
        "module": "torch.backends.cudnn",
        "facts": [{"id": f"bench-fact-{i}", "claim": {"en": "cudnn.benchmark is False by default",
                                                      "zh": "cudnn.benchmark 默认为 False"},
                   "check": {"default": "torch.backends.cudnn.benchmark", "equals": False}} for i in range(questions)],
        "questions": [synthetic_question(i) for i in range(questions)],
    })
    return Course((module,))


def cold_render(course: Course, lang: str, out_dir: Path) -> float:
    verification = Verification("2.13.0+cpu", "3.11", {}, "2026-01-01",
                                {f.id: FactResult(f.id, "pass", "", "bench", 1) for f in course.facts})
    typesetting._compiler.cache_clear()
    started = time.perf_counter()
    quiz.render(RenderJob(course, verification, lang, out_dir), quiz.QuizOptions(versions=1))
    return time.perf_counter() - started


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        baseline = max(cold_render(synthetic_course(1), lang, out / "one") for lang in ("en", "zh"))
        big = synthetic_course(QUESTIONS)
        measured = max(cold_render(big, lang, out / "big") for lang in ("en", "zh"))
    verdict = "PASS" if measured < TARGET_S else "FAIL"
    print(f"quiz: {measured:.2f} s for a {QUESTIONS}-question sheet + key, 1-question baseline {baseline:.2f} s "
          f"(target < {TARGET_S} s) {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
