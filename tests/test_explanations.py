"""Explanation (from ℹ on) is set apart in every output, counted apart, and lint holds fact parts to their facts."""
from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET

import pytest
import yaml
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from click.testing import CliRunner
from pptx import Presentation

from generator.cli import main
from generator.loader import load_course
from generator.statements import counts

FACTS = [{"id": "bench-default", "claim": {"en": "cudnn.benchmark is False by default", "zh": "默认 False"},
          "check": {"default": "torch.backends.cudnn.benchmark", "equals": False}}]
ADVICE = {"en": "`False`. ℹ Turn it on when input sizes stay the same.", "zh": "`False`。ℹ 输入尺寸固定时再打开。"}


def module(**extra):
    return {"module": "torch.backends.t", "title": {"en": "T", "zh": "T"}, "summary": {"en": "S", "zh": "S"},
            "facts": FACTS, **extra}


CARDS = [{"id": "bench-card", "kind": "basic", "front": {"en": "Default of `cudnn.benchmark`?", "zh": "`cudnn.benchmark` 的默认值？"},
          "back": ADVICE, "facts": ["bench-default"]}]
QUESTIONS = [{"id": "bench-q", "kind": "single", "stem": {"en": "Default of `cudnn.benchmark`?", "zh": "`cudnn.benchmark` 的默认值？"},
              "facts": ["bench-default"],
              "options": [{"text": "False", "correct": True, "why": ADVICE},
                          {"text": "True", "why": {"en": "It is off by default.", "zh": "默认关闭。"}}]}]
LESSONS = [{"id": "bench-lesson", "title": {"en": "Benchmark", "zh": "基准"}, "facts": ["bench-default"],
            "points": [ADVICE], "notes": {"en": "n", "zh": "n"}, "ask": {"en": "a?", "zh": "问？"}}]


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


def write(folder, content):
    folder.mkdir(parents=True, exist_ok=True)
    text = yaml.dump(content, Dumper=_NoAliases, allow_unicode=True, sort_keys=False)
    (folder / "t.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("explain")
    content = write(root / "content", module(cards=CARDS, questions=QUESTIONS, lessons=LESSONS))
    result = CliRunner().invoke(main, ["build", "--content", str(content), "--out", str(root / "out"), "--lang", "en",
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    return root / "out"


def test_anki_sets_the_explanation_apart(built, tmp_path):
    (package,) = built.glob("*.apkg")
    col = Collection(str(tmp_path / "c.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(package),
                                                         options=ImportAnkiPackageOptions()))
        (note_id,) = col.find_notes("")
        back = col.get_note(note_id).fields[1]
        answer = col.get_note(note_id).cards()[0].answer()
    finally:
        col.close()
    assert back.startswith("<code>False</code>.") and '<span class="explain">ℹ Turn it on' in back
    assert ".explain { font-style: italic" in answer


def test_slides_set_the_explanation_in_italics(built):
    (deck,) = built.glob("*.pptx")
    paragraphs = [paragraph.runs for slide in Presentation(deck).slides for shape in slide.shapes
                  if shape.has_text_frame for paragraph in shape.text_frame.paragraphs]
    runs = [run for paragraph in paragraphs for run in paragraph]
    # the explanation's runs, from its ℹ (a run of its own, in a font that has the sign) to the paragraph's end
    explained = [paragraph for paragraph in paragraphs if "ℹ Turn it on" in "".join(run.text for run in paragraph)]
    explanation = [run for paragraph in explained
                   for run in paragraph[next(i for i, run in enumerate(paragraph) if "ℹ" in run.text):]]
    assert explanation and all(run.font.italic for run in explanation)
    fact = [run for run in runs if run.text == "False" and not run.font.italic]
    assert fact


def test_quiz_key_and_moodle_show_the_explanation(built):
    key = next(built.glob("quiz*.key.pdf"))
    text = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(key), "-"], capture_output=True,
                          check=True).stdout.decode()
    assert "ℹ Turn it on when input sizes stay the same." in " ".join(text.split())
    moodle = ET.parse(next(built.glob("quiz*.moodle.xml"))).getroot()
    feedback = [a.findtext("feedback/text") for a in moodle.iter("answer")]
    assert any("<code>False</code>. <em>ℹ Turn it on when input sizes stay the same.</em>" in f for f in feedback)


def test_statements_are_counted_proven_or_explanation(tmp_path):
    course = load_course(write(tmp_path, module(cards=CARDS, questions=QUESTIONS, lessons=LESSONS)))
    assert counts(course) == {"anki": (1, 1), "slides": (3, 2), "quiz": (2, 1)}


def lint(tmp_path, **extra):
    write(tmp_path, module(**extra))
    return CliRunner().invoke(main, ["lint", "--content", str(tmp_path)])


def test_a_number_no_cited_fact_mentions_is_a_finding_until_marked_explanation(tmp_path):
    card = {**CARDS[0], "back": {"en": "`False` since 1.12.", "zh": "自 1.12 起为 `False`。"}}
    result = lint(tmp_path, cards=[card])
    assert result.exit_code == 1
    assert "t.yaml:" in result.output and "bench-card.back: states 1.12, which no fact it cites mentions" in result.output
    card["back"] = {"en": "`False`. ℹ It was True before 1.12.", "zh": "`False`。ℹ 1.12 之前为 True。"}
    assert lint(tmp_path / "again", cards=[card]).exit_code == 0


def test_gpu_behaviour_needs_a_fact_that_needs_a_gpu(tmp_path):
    card = {**CARDS[0], "back": {"en": "`False`; turning it on is faster.", "zh": "`False`；打开会更快。"}}
    result = lint(tmp_path, cards=[card])
    assert "describes GPU behaviour ('faster') but cites no fact that needs a GPU" in result.output
    gpu_fact = {"id": "bench-gpu", "claim": {"en": "benchmark picks the fastest algorithm", "zh": "选最快算法"},
                "check": {"expr": "torch.backends.cudnn.is_available()"}, "requires": ["cudnn"]}
    card["facts"] = ["bench-default", "bench-gpu"]
    write(tmp_path / "again", {**module(cards=[card]), "facts": FACTS + [gpu_fact]})
    result = CliRunner().invoke(main, ["lint", "--content", str(tmp_path / "again")])
    assert "GPU behaviour" not in result.output
