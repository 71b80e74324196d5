"""Benchmark: 10,000 synthetic cards to an .apkg, against genanki alone writing 10,000 plain notes.

Both are measured in this run, best of three. The gated number is our build
from cold: a fresh manifest, and the in-process caches of highlighted code and
diagram images emptied, so nothing of a previous round is reused (as in a fresh
``torchdeck deck`` process). The synthetic cards mix all five kinds evenly, with
facts (one in seven needing CUDA), lessons and a diagram as in the real content.
A big deck's code is coloured in a forked process while the other notes
render; for the record the line also gives the time colouring the 2,000 code
cards takes alone, in one process, and the ratio once code and diagrams are
cached in-process (the second language of one ``torchdeck deck`` run).

    .venv/bin/python benchmarks/bench_anki.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import genanki

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's generator, not the installed one

from generator.diagrams import canvas as diagram_canvas  # noqa: E402
from generator.model import Course, Module  # noqa: E402
from generator.render import anki  # noqa: E402
from generator.render import html as html_output  # noqa: E402
from generator.render.base import RenderJob  # noqa: E402
from generator.render.html import code_block  # noqa: E402
from generator.verify import FactResult, Verification  # noqa: E402

CARDS = 10_000
MODULES = ("cudnn", "cuda", "mps", "mkldnn", "opt_einsum", "cpu", "mha", "nnpack", "openmp", "xnnpack")
TARGET = 3.0
ROUNDS = 3


def synthetic_course(cards: int) -> Course:
    per_module = cards // len(MODULES)
    modules = [Module.model_validate(_module_data(order, name, per_module)) for order, name in enumerate(MODULES)]
    return Course(tuple(modules))


def _module_data(order: int, name: str, count: int) -> dict:
    facts = [{"id": f"{name}-fact-{i}", "claim": {"en": f"`torch.backends.{name}` claim {i}", "zh": f"声明 {i}"},
              "check": {"exists": f"torch.backends.{name}"}, "requires": ["cuda"] if i % 7 == 0 else []}
             for i in range(count // 10)]
    lessons = [{"id": f"{name}-lesson-{i}", "title": f"Lesson {i}", "diagrams": ["cudnn-flags"] if i == 0 else [],
                "facts": [f["id"] for f in facts[i::5]]} for i in range(5)]
    return {"module": f"torch.backends.{name}", "order": order, "facts": facts, "lessons": lessons,
            "cards": [_card(name, i, facts[i % len(facts)]["id"]) for i in range(count)]}


def _card(module: str, i: int, fact: str) -> dict:
    base = {"id": f"{module}-card-{i}", "facts": [fact], "tags": ["synthetic"], "difficulty": 1 + i % 3,
            "extra": {"en": f"🧠 mnemonic {i}", "zh": f"🧠 记忆 {i}"}}
    text = {"en": f"What does `torch.backends.{module}.flag_{i}` do when x < {i} & y > 0?",
            "zh": f"`torch.backends.{module}.flag_{i}` 在 x < {i} 时做什么？"}
    kind = ("basic", "reverse", "cloze", "mcq", "code")[i % 5]
    if kind in ("basic", "reverse"):
        return {**base, "kind": kind, "front": text, "back": {"en": f"It toggles {{{{{i}}}}}.", "zh": f"切换 {i}"}}
    if kind == "cloze":
        return {**base, "kind": "cloze", "text": {"en": f"Flag {i} defaults to {{{{c1::False}}}} on {{{{c2::CPU {i}}}}}.",
                                                  "zh": f"开关 {i} 默认为 {{{{c1::False}}}}。"}}
    if kind == "mcq":
        options = [{"text": f"option {j} of {i}", "correct": j == i % 3, "why": f"because {j}"} for j in range(3)]
        return {**base, "kind": "mcq", "question": text, "options": options}
    code = f"import torch\n\ndef set_{i}():\n    torch.backends.{module}.flag_{i} = True  # card {i}\n"
    return {**base, "kind": "code", "front": text, "code": code, "back": "`True`"}


def synthetic_verification(course: Course) -> Verification:
    results = {f.id: FactResult(f.id, "skip" if f.requires else "pass", "", "synthetic", 0, tuple(f.requires))
               for f in course.facts}
    return Verification("2.13.0+cpu", "3.11", {}, "2026-01-01", results)


def time_genanki(folder: Path, notes: int) -> float:
    model = genanki.Model(1607392319, "Plain", fields=[{"name": "Front"}, {"name": "Back"}],
                          templates=[{"name": "Card 1", "qfmt": "{{Front}}",
                                      "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}])
    started = time.perf_counter()
    deck = genanki.Deck(2059400110, "Plain")
    for i in range(notes):
        deck.add_note(genanki.Note(model=model, fields=[f"question {i}", f"answer {i}"]))
    genanki.Package(deck).write_to_file(str(folder / "plain.apkg"))
    return time.perf_counter() - started


def time_torchdeck(folder: Path, course: Course, verification: Verification, round_number: int, *, cold: bool) -> float:
    """One build of the package from a fresh manifest; ``cold`` empties the code and diagram caches first."""
    if cold:
        html_output._CODE_BLOCKS.clear()
        diagram_canvas.png.cache_clear()
    job = RenderJob(course, verification, "en", folder)
    lock = folder / f"deck-{cold}-{round_number}.lock"
    started = time.perf_counter()
    anki.render(job, anki.AnkiOptions(lock))
    return time.perf_counter() - started


def time_pygments(course: Course) -> float:
    """Colouring every code card alone, in this process, for the record."""
    html_output._CODE_BLOCKS.clear()
    started = time.perf_counter()
    for card in course.cards:
        if card.kind == "code":
            code_block(card.code_in("en"), card.language)
    return time.perf_counter() - started


def main() -> int:
    course = synthetic_course(CARDS)
    verification = synthetic_verification(course)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        baseline = min(time_genanki(folder, CARDS) for _ in range(ROUNDS))
        cold = min(time_torchdeck(folder, course, verification, n, cold=True) for n in range(ROUNDS))
        warm = min(time_torchdeck(folder, course, verification, n, cold=False) for n in range(ROUNDS))
        pygments = time_pygments(course)
    ratio = cold / baseline
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print(f"anki: {ratio:.2f}x genanki ({cold:.3f}s for {len(course.cards)} cards vs {baseline:.3f}s for {CARDS} "
          f"plain notes; of ours, colouring the code alone {pygments:.3f}s = {pygments / baseline:.2f}x; "
          f"with code and diagrams already drawn {warm / baseline:.2f}x) (target {TARGET:.1f}x) {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
