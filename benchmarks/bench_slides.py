"""Benchmark: the whole-course workshop deck against plain python-pptx, in one run.

Measured: building the whole-course deck in English and Chinese (plan, font
measurement, pagination, drawing, reproducible save) from the verified content.
Baseline: python-pptx writing the same number of plain title-and-bullets slides
(title plus four bullets, default template) and saving them. Both are timed in
alternating rounds after one warm-up (fonts opened, diagrams drawn: those are
one-off costs shared with the Anki deck); the ratio of the medians must be at most
2.0. Prints ``slides: <ratio>x (target <=2.0x) PASS|FAIL``; exits 1 on FAIL.

    .venv/bin/python benchmarks/bench_slides.py
"""
from __future__ import annotations

import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pptx import Presentation  # noqa: E402

from generator.loader import load_course  # noqa: E402
from generator.render.base import RenderJob  # noqa: E402
from generator.render.slides import build_presentation  # noqa: E402
from generator.verify import verify  # noqa: E402

TARGET = 2.0
ROUNDS = 7


def plain_deck(count: int) -> bytes:
    """``count`` title-and-bullets slides written with python-pptx's own API."""
    prs = Presentation()
    layout = prs.slide_layouts[1]
    for number in range(count):
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = f"Slide {number}: torch.backends in practice"
        body = slide.placeholders[1].text_frame
        body.text = "benchmark times candidate algorithms per input shape"
        for bullet in ("deterministic restricts the choice", "enabled lets PyTorch call cuDNN",
                       "allow_tf32 trades precision for speed"):
            body.add_paragraph().text = bullet
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def slide_count(data: bytes) -> int:
    return len(Presentation(io.BytesIO(data)).slides)


def timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def main() -> int:
    course = load_course(ROOT / "content")
    with tempfile.TemporaryDirectory() as cache:
        verification = verify(course, cache_dir=Path(cache))
    jobs = [RenderJob(course, verification, lang, ROOT / "build") for lang in ("en", "zh")]
    slides = sum(slide_count(build_presentation(job)) for job in jobs)  # also the warm-up
    plain_deck(slides)

    def whole_course():
        for job in jobs:
            build_presentation(job)

    ours, theirs = [], []
    for _ in range(ROUNDS):
        ours.append(timed(whole_course))
        theirs.append(timed(plain_deck, slides))
    ratio = statistics.median(ours) / statistics.median(theirs)
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print(f"slides: {ratio:.2f}x (target <={TARGET:.1f}x) {verdict}  "
          f"[{slides} slides: {statistics.median(ours) * 1000:.0f} ms vs python-pptx "
          f"{statistics.median(theirs) * 1000:.0f} ms]")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
