"""The quiz's QTI packages (``generator/render/quiz/qti.py``): QTI 1.2 and 2.1 content packages that validate
against the IMS schemas kept in ``tests/schemas/`` (offline, with lxml; see its NOTICE.md) and read back
with the Moodle XML's questions, option order, feedback, points and scoring. No Typst: the packages are
built straight from the questions."""
from __future__ import annotations

import functools
import io
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
import yaml
from lxml import etree

from generator.loader import load_course
from generator.render.base import RenderJob
from generator.render.quiz import qti
from generator.render.quiz.moodle import moodle_xml
from generator.render.quiz.select import select
from generator.verify import FactResult, Verification

SCHEMAS = Path(__file__).resolve().parent / "schemas"
Q12 = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
Q21 = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"
TITLE = {"en": "Backends check", "zh": "后端小测"}
LANGS = ("en", "zh")

# ------------------------------------------------------------------ a small course, its answers written out
WORDS = ("north", "east", "south", "west")


def _fixture_question(ident: str, kind: str, right: tuple[int, ...], points=None) -> dict:
    count = 2 if kind == "truefalse" else 4
    question = {"id": ident, "kind": kind,
                "stem": {"en": f"Which {ident} holds? Uses `torch.backends` & <b>", "zh": f"{ident} 哪个成立？"},
                "options": [{"text": {"en": f"{ident} {WORDS[j]}", "zh": f"{ident} 第 {j} 项"},
                             "correct": j in right,
                             "why": {"en": f"{ident} {WORDS[j]} because {j}", "zh": f"{ident} 理由 {j}"}}
                            for j in range(count)],
                "facts": [f"{ident}-fact"], "difficulty": 2, "tags": ["qti"]}
    if points is not None:
        question["points"] = points
    return question


FIXTURE = [("qt-single", "single", (2,), None), ("qt-multi", "multi", (0, 2), None),
           ("qt-truefalse", "truefalse", (1,), None), ("qt-scenario", "scenario", (0, 1), None),
           ("qt-weighted", "multi", (0, 1, 2), 4)]
# What the course says, written out: points, the right options' English texts, and the points each ticked
# option adds (right, wrong) under the key's rule (several answers: +points/right, -points/wrong, floor 0).
EXPECTED = {
    "qt-single": (1, {"qt-single south"}, None),
    "qt-multi": (2, {"qt-multi north", "qt-multi south"}, (1.0, -1.0)),
    "qt-truefalse": (1, {"qt-truefalse east"}, None),
    "qt-scenario": (3, {"qt-scenario north", "qt-scenario east"}, (1.5, -1.5)),
    "qt-weighted": (4, {"qt-weighted north", "qt-weighted east", "qt-weighted south"}, (4 / 3, -4.0)),
}


@pytest.fixture(scope="module")
def small_course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qti-content")
    facts = [{"id": f"{ident}-fact", "claim": {"en": f"claim of {ident}", "zh": f"{ident} 的论断"},
              "check": {"exists": "torch.backends.cudnn"}} for ident, *_ in FIXTURE]
    module = {"module": "torch.backends.qtilab", "order": 50, "facts": facts,
              "questions": [_fixture_question(*row) for row in FIXTURE]}
    (folder / "qtilab.yaml").write_text(yaml.safe_dump(module, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return load_course(folder)


def passed(course) -> Verification:
    """Every fact passed here: what the texts say about verification does not matter to these tests."""
    results = {fact.id: FactResult(fact.id, "pass", "", "x.yaml", 1, ()) for fact in course.facts}
    return Verification("2.13.0+cpu", "3.11.7", {"cuda": False}, "2026-03-04", results)


def packages(course, lang: str, tmp_path: Path):
    """(job, questions, the QTI 1.2 zip, the QTI 2.1 zip) of every question that can share a quiz."""
    job = RenderJob(course, passed(course), lang, tmp_path)
    questions = select(course.modules, limit=None, seed=7)
    return (job, questions, qti.qti12_package(job, questions, TITLE[lang], "quiz-s7"),
            qti.qti21_package(job, questions, TITLE[lang], "quiz-s7"))


# ------------------------------------------------------------------ validation and reading back
@functools.cache
def schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


def validated(package: bytes, item_schema: str) -> dict[str, bytes]:
    """The package's files, each checked against its schema (the manifest against IMS CP 1.1)."""
    archive = zipfile.ZipFile(io.BytesIO(package))
    files = {name: archive.read(name) for name in archive.namelist()}
    assert "imsmanifest.xml" in files
    for name, data in files.items():
        chosen = schema("imscp_v1p1.xsd" if name == "imsmanifest.xml" else item_schema)
        document = etree.fromstring(data)
        assert chosen.validate(document), (name, str(chosen.error_log.last_error))
    return files


def text_of(html_text: str) -> str:
    """The text of an HTML fragment (tags dropped, entities read)."""
    return "".join(ET.fromstring(f"<x>{html_text}</x>").itertext())


def read_qti12(files: dict[str, bytes]) -> list[dict]:
    manifest = ET.fromstring(files["imsmanifest.xml"])
    (resource,) = manifest.iter(f"{CP}resource")
    assert resource.get("type") == "imsqti_xmlv1p2"
    root = ET.fromstring(files[resource.get("href")])
    items = []
    for item in root.iter(f"{Q12}item"):
        fields = {f.findtext(f"{Q12}fieldlabel"): f.findtext(f"{Q12}fieldentry")
                  for f in item.iter(f"{Q12}qtimetadatafield")}
        labels = item.find(f"{Q12}presentation/{Q12}response_lid/{Q12}render_choice")
        options = [(label.get("ident"), text_of(label.findtext(f".//{Q12}mattext"))) for label in labels]
        feedback = {fb.get("ident"): text_of(fb.findtext(f".//{Q12}mattext")) for fb in item.iter(f"{Q12}itemfeedback")}
        scores, shown = {}, {}
        for condition in item.iter(f"{Q12}respcondition"):
            equal = condition.find(f"{Q12}conditionvar/{Q12}varequal")
            key = equal.text if equal is not None else None
            shown[key] = [d.get("linkrefid") for d in condition.iter(f"{Q12}displayfeedback")]
            for setvar in condition.iter(f"{Q12}setvar"):
                scores[key] = (setvar.get("action"), float(setvar.text))
        items.append({"id": item.get("title"), "points": int(fields["points_possible"]),
                      "weighting": int(fields["qmd_weighting"]), "options": options, "scores": scores,
                      "feedback": feedback, "shown": shown,
                      "multiple": item.find(f".//{Q12}response_lid").get("rcardinality") == "Multiple"})
    return items


def read_qti21(files: dict[str, bytes]) -> list[dict]:
    manifest = ET.fromstring(files["imsmanifest.xml"])
    hrefs = {r.get("identifier"): r.get("href") for r in manifest.iter(f"{CP}resource")}
    (test,) = [r for r in manifest.iter(f"{CP}resource") if r.get("type") == "imsqti_test_xmlv2p1"]
    test_root = ET.fromstring(files[test.get("href")])
    refs = [ref.get("href") for ref in test_root.iter(f"{Q21}assessmentItemRef")]
    assert [hrefs[d.get("identifierref")] for d in test.iter(f"{CP}dependency")] == refs
    items = []
    for href in refs:
        root = ET.fromstring(files[href])
        declaration = root.find(f"{Q21}responseDeclaration")
        mapping = declaration.find(f"{Q21}mapping")
        maxscore = next(d for d in root.iter(f"{Q21}outcomeDeclaration") if d.get("identifier") == "MAXSCORE")
        options = [(c.get("identifier"), "".join(c.itertext()).strip()) for c in root.iter(f"{Q21}simpleChoice")]
        items.append({"id": root.get("title"), "points": float(maxscore.findtext(f".//{Q21}value")),
                      "upper": float(mapping.get("upperBound")), "lower": float(mapping.get("lowerBound")),
                      "correct": {v.text for v in declaration.iter(f"{Q21}value")},
                      "mapped": {e.get("mapKey"): float(e.get("mappedValue")) for e in mapping},
                      "options": options, "multiple": declaration.get("cardinality") == "multiple",
                      "max_choices": root.find(f".//{Q21}choiceInteraction").get("maxChoices"),
                      "feedback": {f.get("identifier"): "".join(f.itertext()).strip()
                                   for f in root.iter(f"{Q21}modalFeedback")}})
    return items


def moodle_questions(job, questions) -> list[dict]:
    """What the Moodle XML says of each question: points, options (text, fraction %, feedback) in order."""
    root = ET.fromstring(moodle_xml(job, questions, "t"))
    return [{"id": q.findtext("name/text"), "points": int(q.findtext("defaultgrade")),
             "options": [(text_of(a.findtext("text")), float(a.get("fraction")), text_of(a.findtext("feedback/text")))
                         for a in q.iter("answer")]}
            for q in root.iter("question") if q.get("type") == "multichoice"]


def qti12_score(item: dict, ticked: set[str]) -> float:
    """Points for ``ticked`` letters as QTI 1.2 processes the item: Set/Add percentages, clamped to 0..100."""
    percent = 0.0
    for letter in sorted(ticked):
        action, value = item["scores"].get(letter, ("Add", 0.0))
        percent = value if action == "Set" else percent + value
    return max(0.0, min(100.0, percent)) * item["points"] / 100


def qti21_score(item: dict, ticked: set[str]) -> float:
    total = sum(item["mapped"][letter] for letter in ticked)
    return max(item["lower"], min(item["upper"], total))


def key_score(points: int, right: set[str], letters: list[str], several: bool, ticked: set[str]) -> float:
    """The key's rule, restated from the README: all or nothing for a single pick; for several answers each
    right one ticked earns points/right, each wrong one loses points/wrong, never below 0."""
    if not several:
        return float(points) if ticked == right else 0.0
    wrong = len(letters) - len(right)
    earned = sum(points / len(right) for t in ticked if t in right) - sum(points / wrong for t in ticked if t not in right)
    return max(0.0, earned)


def tick_patterns(letters: list[str], several: bool):
    if not several:
        return [{letter} for letter in letters]
    return [{mark for i, mark in enumerate(letters) if mask >> i & 1} for mask in range(1 << len(letters))]


# ------------------------------------------------------------------ the small course
@pytest.mark.parametrize("lang", LANGS)
def test_fixture_packages_validate_and_read_back_with_the_written_out_answers(lang, small_course, tmp_path):
    job, questions, twelve, twentyone = packages(small_course, lang, tmp_path)
    assert sorted(q.id for q in questions) == sorted(EXPECTED)
    items12 = read_qti12(validated(twelve, "qtiv1p2/ims_qtiasiv1p2.xsd"))
    items21 = read_qti21(validated(twentyone, "qtiv2p1/imsqti_v2p1.xsd"))
    assert [i["id"] for i in items12] == [i["id"] for i in items21] == [q.id for q in questions]
    for question, one, two in zip(questions, items12, items21):
        points, right_texts, weights = EXPECTED[question.id]
        right_letters = {letter for letter, option in qti.option_letters(question, job) if option.correct}
        assert {job.t(o.text) for o in question.options if o.correct} == {
            text for letter, text in one["options"] if letter in right_letters}
        if lang == "en":
            assert {text for letter, text in one["options"] if letter in right_letters} == right_texts
        assert one["points"] == one["weighting"] == points and two["points"] == two["upper"] == points
        assert two["correct"] == right_letters and two["lower"] == 0
        assert one["multiple"] == two["multiple"] == (weights is not None)
        assert two["max_choices"] == ("0" if weights else "1")
        if weights:
            for letter, _ in one["options"]:
                expected = weights[0] if letter in right_letters else weights[1]
                assert two["mapped"][letter] == pytest.approx(expected, abs=1e-4)
                assert one["scores"][letter] == ("Add", pytest.approx(expected / points * 100, abs=1e-3))
        else:
            assert one["scores"] == {letter: ("Set", 100.0) for letter in right_letters}
            assert two["mapped"] == {letter: (points if letter in right_letters else 0) for letter, _ in two["options"]}


@pytest.mark.parametrize("lang", LANGS)
def test_packages_are_deterministic_zips_with_fixed_times_and_sorted_entries(lang, small_course, tmp_path):
    first = packages(small_course, lang, tmp_path)[2:]
    second = packages(small_course, lang, tmp_path / "again")[2:]
    assert first == second
    for package in first:
        infos = zipfile.ZipFile(io.BytesIO(package)).infolist()
        assert [i.filename for i in infos] == sorted(i.filename for i in infos)
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    names = zipfile.ZipFile(io.BytesIO(first[1])).namelist()
    assert names == sorted(["imsmanifest.xml", "test.xml", *(f"items/{ident}.xml" for ident in EXPECTED)])


def test_a_tampered_package_fails_the_schema(small_course, tmp_path):
    """The validation is real: an item missing its required choices is refused."""
    files = validated(packages(small_course, "en", tmp_path)[3], "qtiv2p1/imsqti_v2p1.xsd")
    broken = files["items/qt-single.xml"].replace(b"<simpleChoice", b"<simpleChoise").replace(
        b"</simpleChoice>", b"</simpleChoise>")
    assert not schema("qtiv2p1/imsqti_v2p1.xsd").validate(etree.fromstring(broken))


# ------------------------------------------------------------------ the shipped course, both languages
@pytest.fixture(scope="module")
def shipped_packages(course, tmp_path_factory):
    return {lang: packages(course, lang, tmp_path_factory.mktemp(f"qti-{lang}")) for lang in LANGS}


@pytest.mark.parametrize("lang", LANGS)
def test_shipped_packages_validate_and_match_the_course_and_the_moodle_xml(lang, shipped_packages):
    job, questions, twelve, twentyone = shipped_packages[lang]
    assert len(questions) > 50
    items12 = read_qti12(validated(twelve, "qtiv1p2/ims_qtiasiv1p2.xsd"))
    items21 = read_qti21(validated(twentyone, "qtiv2p1/imsqti_v2p1.xsd"))
    moodle = moodle_questions(job, questions)
    assert [i["id"] for i in items12] == [i["id"] for i in items21] == [m["id"] for m in moodle] == [
        q.id for q in questions]
    for question, one, two, mood in zip(questions, items12, items21, moodle):
        lettered = qti.option_letters(question, job)
        letters = [letter for letter, _ in lettered]
        right = {letter for letter, option in lettered if option.correct}
        assert one["points"] == two["points"] == mood["points"] == question.points
        assert two["correct"] == right
        # the Moodle XML's options, in its order, with its texts and feedback
        assert [text for _, text in one["options"]] == [text for text, _, _ in mood["options"]]
        assert [text for _, text in two["options"]] == [text for text, _, _ in mood["options"]]
        assert [one["feedback"][f"{letter}_fb"] for letter in letters] == [fb for _, _, fb in mood["options"]]
        assert [two["feedback"][letter] for letter in letters] == [fb for _, _, fb in mood["options"]]
        assert all(one["shown"][letter] == [f"{letter}_fb"] for letter in letters)
        several = len(right) > 1 or question.kind == "multi"
        for ticked in tick_patterns(letters, several):
            expected = key_score(question.points, right, letters, several, ticked)
            assert qti12_score(one, ticked) == pytest.approx(expected, abs=1e-3), (question.id, ticked)
            assert qti21_score(two, ticked) == pytest.approx(expected, abs=1e-3), (question.id, ticked)
            moodle_percent = sum(f for (_, f, _), letter in zip(mood["options"], letters) if letter in ticked)
            assert max(0.0, moodle_percent) * question.points / 100 == pytest.approx(expected, abs=1e-3)
