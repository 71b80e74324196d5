"""Quiz handouts, read back from the files: versions, answer key, Chinese, emoji, Moodle XML, page breaks.

Two courses, each built once per module:

* a lab module this file writes into a temporary folder. Every stem and option text
  is distinctive (a text found in a PDF names one question and one option), so the
  tests can demand exact counts, compare the key's letters with each version's
  shuffled options, and find literal Typst markup, emoji, code, a long stem, scenarios
  and a question resting on a fact that needs CUDA;
* the shipped course (``course``/``verification`` from conftest), whose texts change
  as authors write. Its tests only assert properties that hold for any content:
  every question sits on every sheet in one piece, at the number the key gives it.

PDFs are read with ``pdftotext -raw`` (content-stream order: the "1 pt" label follows
the stem, it never cuts into it); pypdf only looks at fonts, colours and metadata.
"""
from __future__ import annotations

import functools
import html
import os
import pickle
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import typst
import yaml
from click.testing import CliRunner
from pypdf import PdfReader

from generator.cli import main
from generator.errors import BuildError
from generator.fonts import FOLDER as FONTS_FOLDER
from generator.fonts import unprintable_emoji
from generator.ledger import Run
from generator.loader import load_course
from generator.model import POINTS, Module
from generator.render import quiz, typesetting
from generator.render.base import RenderJob
from generator.render.quiz.select import SelectionError, make_versions, select
from generator.verify import FactResult, Verification
from generator.wording import WORDS
from helpers import as_in_pdf, without_spaces

SEED = 7
STEM = "quiz-s7"  # the files of the lab quiz (seed 7)
VERSIONS = ("A", "B", "C")
LITERAL_STEM = ("Markup stays text: #set page(width: 1cm) $x^2$ *bold* _under_ <label> @ref a#b {braces} ~tilde a=b "
                "back\\slash")
LITERAL_OPTION = "#emph[no] and $y$ with *stars* _x_ <tag> @cite"
HTML_OPTION = "plain <b>html</b> & co"
GPU_FACT = "lab-gpu-claim"
SENTENCE_FACT = "lab-sentence-claim"  # a claim that ends with a full stop, cited first
PLAIN_FACT = "lab-cudnn-exists"
GAME, BRAIN = "\N{VIDEO GAME}", "\N{BRAIN}"
DIRECTIONS = (("north", "向北"), ("east", "向东"), ("south", "向南"), ("west", "向西"))
LONG_EN = (" The {w} job trains a convolutional network whose input shapes change every step, the team needs "
           "exact reruns on two machines, and the nightly benchmark must still finish before the stand-up.")
LONG_ZH = "{w} 任务训练一个卷积网络，每一步输入形状都在变化，团队要求在两台机器上完全复现，夜间基准测试还必须在早会前跑完。"
# word, kind, indices of the right options, features
PLAN = (
    ("amber", "single", (1,), {"code"}),
    ("birch", "multi", (0, 2), set()),
    ("cobalt", "scenario", (1, 3), set()),
    ("dune", "truefalse", (0,), set()),
    ("ember", "single", (2,), {"gpu"}),
    ("fjord", "multi", (3,), set()),
    ("garnet", "scenario", (0,), set()),
    ("harbor", "truefalse", (1,), set()),
    ("indigo", "single", (0,), {"long", "long_code"}),
    ("juniper", "multi", (0, 1, 3), {"code"}),
    ("kestrel", "scenario", (0, 2), {"emoji"}),
    ("lagoon", "single", (3,), set()),
    ("mosaic", "multi", (1, 2), set()),
    ("nectar", "scenario", (2,), set()),
    ("onyx", "truefalse", (0,), set()),
    ("prism", "single", (1,), set()),
)
# The order every output (Moodle, GIFT, slides, deck) shows each lab question's options in, as indices into its
# options: written out, as generator/render/order.py's rules give it (its id's shuffle; the correct option of a
# single placed by the course's balanced cycle; a true/false's "True" first, and these read "True, dune holds",
# never "True", so they stay as written). A change of the rules shows here as a deliberate edit.
SHOWN = {
    "lab-amber": (3, 2, 1, 0), "lab-birch": (3, 2, 0, 1), "lab-cobalt": (2, 3, 0, 1), "lab-dune": (0, 1),
    "lab-ember": (2, 0, 3, 1), "lab-fjord": (1, 3, 0, 2), "lab-garnet": (1, 2, 0, 3), "lab-harbor": (0, 1),
    "lab-indigo": (0, 3, 2, 1), "lab-juniper": (2, 3, 0, 1), "lab-kestrel": (0, 1, 2, 3), "lab-lagoon": (0, 3, 2, 1),
    "lab-mosaic": (1, 0, 3, 2), "lab-nectar": (2, 1, 0, 3), "lab-onyx": (0, 1), "lab-prism": (0, 3, 2, 1),
    "lab-literal": (1, 0),
}
# Every lab PDF's footer: 16 facts pass, the GPU one is skipped, dated by the ledger's newest run.
FOOTER = {"en": "verified against torch 2.13.0+cpu (17 pass, 1 skip) · 2026-03-04",
          "zh": "已对照 torch 2.13.0+cpu 验证（17 项通过，1 项跳过） · 2026-03-04"}
CATEGORY = {"en": "$course$/top/torchdeck/torch.backends quiz", "zh": "$course$/top/torchdeck/torch.backends 测验"}


def shown_options(question) -> list:
    """``question``'s options in the written-out order ``SHOWN``."""
    return [question.options[i] for i in SHOWN[question.id]]


# ------------------------------------------------------------------ lab content
def _options(word: str, kind: str, right: tuple[int, ...], features: set) -> list[dict]:
    if kind == "truefalse":
        texts = [{"en": f"True, {word} holds", "zh": f"{word} 对"}, {"en": f"False, {word} fails", "zh": f"{word} 错"}]
    else:
        texts = [{"en": f"{word} heads {en}", "zh": f"{word} {zh}"} for en, zh in DIRECTIONS]
    if "emoji" in features:
        texts[0] = {lang: f"{BRAIN} {text}" for lang, text in texts[0].items()}
    return [{"text": text, "correct": j in right,
             "why": {"en": f"Why {word} option {j}: its own reason.", "zh": f"{word} 第 {j} 项的理由"}}
            for j, text in enumerate(texts)]


def _stem(word: str, features: set) -> dict:
    en = f"Lab question on {word}: which switch of `torch.backends` decides the {word} case?"
    zh = f"关于 {word} 的实验题：`torch.backends` 的哪个开关决定 {word} 的情形？"
    if "long" in features:
        en, zh = en + LONG_EN.format(w=word) * 2, zh + LONG_ZH.format(w=word) * 2
    if "emoji" in features:
        en, zh = f"{GAME} You are the tuning master: {en}", f"{GAME} 你是调优大师：{zh}"
    return {"en": en, "zh": zh}


def _code(word: str, features: set):
    if "long_code" in features:
        return "import torch\n" + "".join(f"x{k} = torch.randn({k + 1}, 3)  # {word} line {k}\n" for k in range(14))
    if "code" in features:
        return f"import torch\ntorch.backends.cudnn.benchmark = True  # {word}\nmodel = torch.nn.Conv2d(3, 8, 3)\n"
    return None


def _lab_question(i: int) -> dict:
    word, kind, right, features = PLAN[i]
    question = {"id": f"lab-{word}", "kind": kind, "stem": _stem(word, features),
                "options": _options(word, kind, right, features), "difficulty": 1 + i % 3,
                "tags": ["alpha" if i % 2 else "beta"], "facts": [GPU_FACT if "gpu" in features else _fact_id(word)]}
    code = _code(word, features)
    if code:
        question["code"] = code
    return question


def _literal_question() -> dict:
    return {"id": "lab-literal", "kind": "single", "stem": LITERAL_STEM, "points": 2, "tags": ["beta"],
            "options": [{"text": LITERAL_OPTION, "correct": True, "why": "Markup characters #, $, * print as text."},
                        {"text": HTML_OPTION, "why": "An ampersand & angle brackets stay text too."}],
            "facts": [SENTENCE_FACT, PLAIN_FACT]}


def _fact_id(word: str) -> str:
    return f"lab-{word}-fact"


def lab_module() -> dict:
    """Every question tests a fact of its own: no two questions on one fact may share a sheet."""
    words = [word for word, _, _, features in PLAN if "gpu" not in features]
    facts = [{"id": PLAIN_FACT, "claim": {"en": "lab claim: cudnn exists", "zh": "实验论断：cudnn 存在"},
              "check": {"exists": "torch.backends.cudnn"}},
             *({"id": _fact_id(word), "claim": {"en": f"lab claim: {word} holds", "zh": f"实验论断：{word} 成立"},
                "check": {"exists": "torch.backends.cudnn"}} for word in words),
             {"id": SENTENCE_FACT, "claim": {"en": "Lab claim: a sentence that ends with a full stop.",
                                             "zh": "实验论断：以句号结尾的一句话。"}, "check": {"exists": "torch"}},
             {"id": GPU_FACT, "claim": {"en": "lab claim: a GPU answers", "zh": "实验论断：GPU 会响应"},
              "check": {"expr": "torch.cuda.is_available()"}, "requires": ["cuda"],
              "source": "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py"}]
    return {"module": "torch.backends.quizlab", "order": 50, "facts": facts,
            "questions": [_lab_question(i) for i in range(len(PLAN))] + [_literal_question()]}


@pytest.fixture(scope="module")
def content_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("content")
    (folder / "quizlab.yaml").write_text(yaml.safe_dump(lab_module(), allow_unicode=True, sort_keys=False),
                                         encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def lab_course(content_dir):
    return load_course(content_dir)


@pytest.fixture(scope="module")
def lab_verification(lab_course) -> Verification:
    return make_lab_verification(lab_course)


LEDGER_DATE = "2026-03-04"  # the newest run the lab's ledger recorded: the quiz's date


def make_lab_verification(course) -> Verification:
    """Every fact passed except the CUDA one, skipped as on a CPU machine, here on a day that is not the
    quiz's (the verification cache's day is the clock's); the ledger holds two earlier runs elsewhere."""
    results = {}
    for fact in course.facts:
        skipped = fact.id == GPU_FACT
        results[fact.id] = FactResult(fact.id, "skip" if skipped else "pass", "", "x.yaml", 1,
                                      ("cuda",) if skipped else ())
    runs = (Run("2.14.1+cu130", "3.11.7", "2026-01-02"), Run("2.15.0+cu132", "3.11.7", LEDGER_DATE))
    return Verification("2.13.0+cpu", "3.11.7", {"cuda": False}, "2026-12-31", results, elsewhere=runs)


@pytest.fixture(scope="module", autouse=True)
def no_source_date_epoch():
    """The lab quizzes are dated by their ledger, whatever the environment running the tests says."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("SOURCE_DATE_EPOCH", raising=False)
        yield


def _render(course, verification, lang, out_dir, **options):
    job = RenderJob(course, verification, lang, out_dir)
    return job, quiz.render(job, quiz.QuizOptions(**options))


@pytest.fixture(scope="module")
def en(lab_course, lab_verification, tmp_path_factory):
    return _render(lab_course, lab_verification, "en", tmp_path_factory.mktemp("en"), seed=SEED)


@pytest.fixture(scope="module")
def zh(lab_course, lab_verification, tmp_path_factory):
    return _render(lab_course, lab_verification, "zh", tmp_path_factory.mktemp("zh"), seed=SEED)


def by_word(course, word: str):
    return next(q for q in course.questions if q.id == f"lab-{word}")


# ---------------------------------------------------------------- read back
@functools.cache
def read(path: Path) -> "Pdf":
    """Each file is read once per test run (outputs are never rewritten under the same path)."""
    return Pdf(path)


class Pdf:
    def __init__(self, path: Path):
        self.path = path
        raw = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(path), "-"], capture_output=True,
                             check=True).stdout.decode("utf-8")
        self.raw_pages = raw.split("\f")[:-1]
        self.pages = [without_spaces(text) for text in self.raw_pages]
        self.text = "".join(self.pages)

    @functools.cached_property
    def reader(self) -> PdfReader:
        return PdfReader(self.path)

    def page_of(self, needle: str) -> int:
        hits = [n for n, page in enumerate(self.pages) if needle in page]
        assert len(hits) == 1, f"{needle!r} on pages {hits}"
        return hits[0]

    def fonts(self, page: int) -> list[dict]:
        return list(self.reader.pages[page]["/Resources"]["/Font"].values())


def sheet_order(pdf: Pdf, questions, lang: str) -> list[tuple[str, list[int]]]:
    """(question id, option indices in print order) in the order the sheet prints them."""
    placed = []
    for question in questions:
        start = pdf.text.index(as_in_pdf(question.stem.get(lang)))
        positions = [pdf.text.index(as_in_pdf(o.text.get(lang)), start) for o in question.options]
        placed.append((start, question.id, sorted(range(len(positions)), key=positions.__getitem__)))
    return [(qid, order) for _, qid, order in sorted(placed)]


def key_grid(pdf: Pdf, versions: int) -> dict[int, tuple[str, ...]]:
    """{number: each version's letters} from the key's grid tables: a header line "# A B C" names the
    versions of the rows below it (20 versions make several tables; a table's header repeats on a new page)."""
    cell = re.compile(r"[A-Z](?:,[A-Z])*")
    cells: dict[int, dict[str, str]] = {}
    for text in pdf.raw_pages:
        columns = None
        for line in text.splitlines():
            tokens = line.split()
            if tokens[:1] == ["#"] and len(tokens) > 1 and all(re.fullmatch("[A-Z]", t) for t in tokens[1:]):
                columns = tokens[1:]
            elif (columns and len(tokens) == len(columns) + 1 and tokens[0].isdigit()
                  and all(cell.fullmatch(t) for t in tokens[1:])):
                cells.setdefault(int(tokens[0]), {}).update(zip(columns, tokens[1:]))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:versions]
    return {n: tuple(row[v] for v in letters) for n, row in cells.items() if sorted(row) == list(letters)}


@functools.cache
def word_boxes(path: Path) -> list[list[tuple[float, float, float, float, str]]]:
    """Per page, every word's box (x0, y0, x1, y1, text), from pdftotext -bbox."""
    xhtml = subprocess.run(["pdftotext", "-bbox", "-enc", "UTF-8", str(path), "-"], capture_output=True,
                           check=True).stdout.decode("utf-8")
    word = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>')
    return [[(float(a), float(b), float(c), float(d), text) for a, b, c, d, text in word.findall(page)]
            for page in xhtml.split("<page ")[1:]]


def overprinted(path: Path) -> list[tuple[int, str, str]]:
    """Words whose boxes overlap (by more than half a point each way) on any page."""
    clashes = []
    for number, boxes in enumerate(word_boxes(path), 1):
        for i, (x0, y0, x1, y1, text) in enumerate(boxes):
            for u0, v0, u1, v1, other in boxes[i + 1:]:
                if min(x1, u1) - max(x0, u0) > 0.5 and min(y1, v1) - max(y0, v0) > 0.5:
                    clashes.append((number, text, other))
    return clashes


def expected_letters(question, order: list[int]) -> str:
    return ",".join("ABCDEFGH"[printed] for printed, index in enumerate(order) if question.options[index].correct)


def named(paths, ending: str) -> Path:
    """The one path of ``paths`` whose name ends with ``ending`` ('.A.pdf', '.key.pdf')."""
    found = [p for p in paths if p.name.endswith(ending)]
    assert len(found) == 1, (ending, paths)
    return found[0]


def _files(job, letters=VERSIONS):
    names = [*(f".{v}{kind}.pdf" for v in letters for kind in ("", ".answers")), ".key.pdf", ".marking.pdf",
             ".moodle.xml", ".gift.txt", ".qti12.zip", ".qti21.zip"]
    return {name: job.output(STEM, name) for name in names}


# -------------------------------------------------------------------- lab tests
def test_outputs_are_named_by_language_and_version(en, zh):
    for job, paths in (en, zh):
        assert paths == list(_files(job).values())
        assert [p.name for p in paths] == [f"quiz-s7.{job.lang}.{s}" for s in (
            "A.pdf", "A.answers.pdf", "B.pdf", "B.answers.pdf", "C.pdf", "C.answers.pdf", "key.pdf", "marking.pdf",
            "moodle.xml", "gift.txt", "qti12.zip", "qti21.zip")]
        assert all(p.stat().st_size > 0 for p in paths)


def test_each_question_appears_exactly_once_per_version(en, zh, lab_course):
    for job, _ in (en, zh):
        for letter in VERSIONS:
            pdf = read(job.output(STEM, f".{letter}.pdf"))
            for question in lab_course.questions:
                assert pdf.text.count(as_in_pdf(question.stem.get(job.lang))) == 1, (job.lang, letter, question.id)
                for option in question.options:
                    text = as_in_pdf(option.text.get(job.lang))
                    assert pdf.text.count(text) == 1, (job.lang, letter, question.id, text)


def test_versions_shuffle_questions_and_options_but_keep_true_false_order(en, lab_course):
    job, _ = en
    orders = {v: sheet_order(read(job.output(STEM, f".{v}.pdf")), lab_course.questions, "en") for v in VERSIONS}
    question_orders = {tuple(qid for qid, _ in order) for order in orders.values()}
    assert len(question_orders) == len(VERSIONS)
    option_orders = {tuple(tuple(o) for _, o in sorted(order)) for order in orders.values()}
    assert len(option_orders) == len(VERSIONS)
    truefalse = {q.id for q in lab_course.questions if q.kind == "truefalse"}
    assert len(truefalse) == 3
    for order in orders.values():
        assert all(options == [0, 1] for qid, options in order if qid in truefalse)


def test_options_carry_letters_in_print_order(en, lab_course):
    job, _ = en
    pdf = read(job.output(STEM, ".B.pdf"))
    by_id = {q.id: q for q in lab_course.questions}
    for qid, order in sheet_order(pdf, lab_course.questions, "en"):
        for printed, index in enumerate(order):
            text = as_in_pdf(by_id[qid].options[index].text.en)
            assert pdf.text[pdf.text.index(text) - 1] == "ABCD"[printed], (qid, text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_key_letters_match_every_version(lang, en, zh, lab_course):
    job, _ = {"en": en, "zh": zh}[lang]
    grid = key_grid(read(job.output(STEM, ".key.pdf")), len(VERSIONS))
    assert sorted(grid) == list(range(1, len(lab_course.questions) + 1))
    by_id = {q.id: q for q in lab_course.questions}
    for column, letter in enumerate(VERSIONS):
        order = sheet_order(read(job.output(STEM, f".{letter}.pdf")), lab_course.questions, lang)
        for number, (qid, options) in enumerate(order, 1):
            assert grid[number][column] == expected_letters(by_id[qid], options), (letter, number, qid)


def appendix_page(pdf: "Pdf") -> int:
    """The index of the key's first appendix page: the one its heading opens."""
    headings = tuple(without_spaces(quiz.all_words(lang)["quiz"]["provenance"]) for lang in ("en", "zh"))
    return next(n for n, page in enumerate(pdf.pages) if page.startswith(headings))


def key_body(pdf: "Pdf") -> str:
    """The key a teacher marks with: its pages before the provenance appendix."""
    return "".join(pdf.pages[:appendix_page(pdf)])


def test_key_explains_every_option_and_names_its_facts(en, lab_course):
    job, _ = en
    pdf = read(job.output(STEM, ".key.pdf"))
    questions = lab_course.questions
    text = key_body(pdf)
    starts = [text.index(as_in_pdf(q.stem.en)) for q in questions]
    assert starts == sorted(starts), "the key explains the questions in teaching order"
    note = without_spaces(job.unverified_note([GPU_FACT]))
    assert note == without_spaces("not verified here (needs CUDA)")
    for question, start, end in zip(questions, starts, [*starts[1:], len(text)]):
        block = text[start:end]
        assert as_in_pdf(question.stem.en) in block
        for option in question.options:
            assert as_in_pdf(option.text.en) in block and as_in_pdf(option.why.en) in block
        for fact_id in question.facts:
            assert as_in_pdf(lab_course.fact(fact_id).claim.en.removesuffix(".")) in block
        assert (note in block) == (GPU_FACT in question.facts), question.id
    assert pdf.text.count(note) == 1
    # claims listed one after another: "…exists; Lab claim: …", no ".;" where a claim ends a sentence
    assert as_in_pdf("a sentence that ends with a full stop; lab claim: cudnn exists") in text and ".;" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_key_says_what_the_explanation_mark_means_where_a_why_shows_one(lang, en, zh, tmp_path):
    """As pdftotext reads the key: where an option's why explains after ℹ, what ℹ means is said once, under
    the key's title, before the first ℹ, in the key's language; a key without ℹ (the lab's) and a question
    paper without one say nothing of it."""
    legend = without_spaces(WORDS[lang]["explained"])
    job, _ = {"en": en, "zh": zh}[lang]
    assert legend not in read(job.output(STEM, ".key.pdf")).text and "ℹ" not in read(job.output(STEM, ".key.pdf")).text
    module = lab_module()
    option = module["questions"][-1]["options"][1]
    option["why"] = option["why"] + " ℹ Typst is given them as text, never as markup."
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "quizlab.yaml").write_text(yaml.safe_dump(module, allow_unicode=True, sort_keys=False), encoding="utf-8")
    course = load_course(folder)
    job, _ = _render(course, make_lab_verification(course), lang, tmp_path / "out", seed=SEED)
    key = key_body(read(job.output(STEM, ".key.pdf")))
    assert key.count(legend) == 1 and "ℹTypst" in key
    assert key.index(legend) < key.index("ℹTypst")
    assert not any(legend in read(job.output(STEM, f".{v}.pdf")).text for v in VERSIONS)


def test_key_lists_claims_without_a_full_stop_before_the_separator(zh):
    job, _ = zh
    text = key_body(read(job.output(STEM, ".key.pdf")))
    assert as_in_pdf("以句号结尾的一句话；实验论断：cudnn 存在") in text and "。；" not in text


def test_first_page_has_header_boxes_and_total_points(en, lab_course):
    job, _ = en
    total = sum(q.points for q in lab_course.questions)
    for letter in VERSIONS:
        first = read(job.output(STEM, f".{letter}.pdf")).pages[0]
        assert first.startswith(without_spaces(f"torch.backends quiz Version {letter}"))
        for label in ("Name", "Class", "Date", "Score", f"/ {total}", "Tick the box"):
            assert without_spaces(label) in first
        assert without_spaces(f"{len(lab_course.questions)} questions · {total} points in total") in first
        assert without_spaces("1. ") in first


def test_questions_are_numbered_with_points_and_scenarios_get_writing_space(en, lab_course):
    job, _ = en
    pdf = read(job.output(STEM, ".A.pdf"))
    by_id = {q.id: q for q in lab_course.questions}
    for number, (qid, _) in enumerate(sheet_order(pdf, lab_course.questions, "en"), 1):
        question = by_id[qid]
        unit = "pt" if question.points == 1 else "pts"
        stem = as_in_pdf(question.stem.en)
        assert f"{number}.{stem}" in pdf.text, "the stem follows its number, uncut"
        after = pdf.text[pdf.text.index(stem) + len(stem):]
        assert re.match(rf"(\(selectallthatapply\))?{question.points}{unit}", after), (qid, after[:40])
    scenarios = [number for number, (qid, _) in enumerate(sheet_order(pdf, lab_course.questions, "en"), 1)
                 if by_id[qid].kind == "scenario"]
    assert len(scenarios) == 4 and pdf.text.count("Explainyourchoice") == 4
    for number in scenarios:  # the reason is written on the answer sheet, in the box of that number
        assert without_spaces(f"✎ Explain your choice on the answer sheet, in box {number}.") in pdf.text


def test_select_all_hint_only_where_several_answers_count_and_never_twice(en, zh, lab_course):
    """multi: always hinted; scenario: only with more than one right option; one hint, in one phrasing
    (content never writes it: lint refuses a hand-written one)."""
    expected = {"birch": True, "fjord": True, "juniper": True, "cobalt": True, "kestrel": True,
                "garnet": False, "nectar": False, "amber": False, "dune": False, "mosaic": True}
    hints = {"en": "(selectallthatapply)", "zh": "（多选）"}
    for job, _ in (en, zh):
        text = read(job.output(STEM, ".A.pdf")).text
        for word, hinted in expected.items():
            stem = as_in_pdf(by_word(lab_course, word).stem.get(job.lang))
            after = text[text.index(stem) + len(stem):]
            assert after.startswith(hints[job.lang]) == hinted, (job.lang, word)
        mosaic = as_in_pdf(by_word(lab_course, "mosaic").stem.get(job.lang))
        assert text.count(mosaic) == 1 and text.count(hints[job.lang] + hints[job.lang]) == 0


def test_no_question_runs_over_a_page_break(en, zh, lab_course):
    for job, _ in (en, zh):
        for letter in VERSIONS:
            pdf = read(job.output(STEM, f".{letter}.pdf"))
            assert len(pdf.pages) >= 3
            for question in lab_course.questions:
                page = pdf.page_of(as_in_pdf(question.stem.get(job.lang)))
                for option in question.options:
                    assert pdf.page_of(as_in_pdf(option.text.get(job.lang))) == page, (letter, question.id)
                for line in question.code_in(job.lang).splitlines():
                    assert without_spaces(line) in pdf.pages[page], (letter, question.id, line)
            scenario = pdf.page_of(as_in_pdf(by_word(lab_course, "garnet").stem.get(job.lang)))
            writing = {"en": "✎Explainyourchoiceontheanswersheet,inbox", "zh": "✎请在答题卡第"}[job.lang]
            assert writing in pdf.pages[scenario]


def test_every_page_carries_the_verification_footer(en, zh):
    for job, _ in (en, zh):
        for name in (".A.pdf", ".key.pdf"):
            pdf = read(job.output(STEM, name))
            line = without_spaces(FOOTER[job.lang])
            assert "2026-12-31" not in pdf.text
            assert all(line in page for page in pdf.pages)


def test_markup_characters_in_content_print_literally(en, zh):
    for job, _ in (en, zh):
        for name in (".A.pdf", ".key.pdf"):
            text = read(job.output(STEM, name)).text
            assert without_spaces(LITERAL_STEM) in text
            assert without_spaces(LITERAL_OPTION) in text
            assert without_spaces(HTML_OPTION) in text


def test_code_is_monospaced_and_coloured(en, lab_course):
    job, _ = en
    pdf = read(job.output(STEM, ".A.pdf"))
    page = pdf.page_of(as_in_pdf(by_word(lab_course, "amber").stem.en))
    assert any("DejaVuSansMono" in str(font.get("/BaseFont", "")) for font in pdf.fonts(page))
    stream = pdf.reader.pages[page].get_contents().get_data().decode("latin-1")
    colours = {tuple(c) for c in re.findall(r"([\d.]+) ([\d.]+) ([\d.]+) (?:scn|rg)\b", stream)}
    assert any(len(set(colour)) > 1 for colour in colours), "no coloured (non-grey) text on the code page"


def test_emoji_are_typeset_in_colour_not_as_boxes(en, zh, lab_course):
    """The colour emoji font draws 🎮 and 🧠 as bitmap glyphs (a Type 3 font) that still extract as emoji."""
    kestrel = by_word(lab_course, "kestrel")
    for job, _ in (en, zh):
        for name in (".A.pdf", ".key.pdf"):
            pdf = read(job.output(STEM, name))
            page = pdf.page_of(as_in_pdf(kestrel.stem.get(job.lang)))
            assert without_spaces(f"{GAME} ") in pdf.pages[page] and BRAIN in pdf.pages[page]
            assert any(font["/Subtype"] == "/Type3" for font in pdf.fonts(page)), (job.lang, name)
            without = pdf.page_of(as_in_pdf(by_word(lab_course, "amber").stem.get(job.lang)))
            if without != page:
                assert not any(font["/Subtype"] == "/Type3" for font in pdf.fonts(without))


def test_missing_emoji_font_is_a_clear_error_only_when_content_has_emoji(lab_course, lab_verification, tmp_path,
                                                                          monkeypatch):
    for module in (quiz, typesetting):  # the name the quiz asks Typst for, and the one its error names
        monkeypatch.setattr(module, "EMOJI_FONT", "Noto Color Emoji Nowhere")
    with pytest.raises(BuildError, match=r"no font family 'noto color emoji nowhere'.*fonts-noto-color-emoji"):
        _render(lab_course, lab_verification, "en", tmp_path / "emoji")
    assert not (tmp_path / "emoji").exists() or not list((tmp_path / "emoji").iterdir())
    _, paths = _render(lab_course, lab_verification, "en", tmp_path / "alpha", tags=("alpha",), versions=1)
    assert BRAIN not in read(named(paths, ".A.pdf")).text, "kestrel (beta) is not in this quiz, so it needs no emoji font"


def test_english_quizzes_use_only_embedded_and_shipped_fonts(en):
    """Typst's own fonts and those torchdeck ships: the same PDF on any machine, fonts installed or not."""
    job, _ = en
    pdf = read(job.output(STEM, ".A.pdf"))
    names = {str(font.get("/BaseFont", "")).split("+")[-1] for page in range(len(pdf.pages))
             for font in pdf.fonts(page)}
    allowed = ("Libertinus", "DejaVuSans", "NotoColorEmoji", "Type3")  # DejaVu Sans: the ✎ of a scenario
    assert names and all(name.startswith(allowed) or not name for name in names), names
    assert "Noto Color Emoji" in typst.Fonts(include_system_fonts=False, font_paths=[str(FONTS_FOLDER)]).families()


def test_an_emoji_in_no_font_is_a_clear_error(lab_course, lab_verification, tmp_path, monkeypatch):
    """One the shipped cut lacks, on a machine without the system's emoji font (tests/test_inputs.py: found,
    located, before anything is written; with the font, it prints)."""
    from generator import fonts

    monkeypatch.setattr(fonts, "unprintable_emoji", lambda texts: ["🦄"])
    monkeypatch.setattr(fonts, "system_emoji_font", lambda: None)
    with pytest.raises(BuildError, match=r"the emoji 🦄 \(U\+1F984\) are in no font here.*fonts-noto-color-emoji"):
        _render(lab_course, lab_verification, "en", tmp_path / "emoji")


def test_unprintable_emoji_names_what_the_shipped_font_lacks():
    assert unprintable_emoji(["🎮 and 🧠 and ✌️ and a joined 👯\u200d"]) == []
    assert unprintable_emoji(["a unicorn 🦄"]) == ["🦄"]


def test_chinese_sheets_extract_as_chinese(zh, lab_course):
    job, _ = zh
    pdf = read(job.output(STEM, ".A.pdf"))
    assert pdf.pages[0].startswith(without_spaces("torch.backends 测验 A 卷"))
    assert "姓名" in pdf.pages[0] and "得分" in pdf.pages[0]
    assert any("NotoSansCJK" in str(font.get("/BaseFont", "")) for font in pdf.fonts(0))
    key = read(job.output(STEM, ".key.pdf")).text
    assert without_spaces("未在此环境验证（需要 CUDA）") in key and "实验论断：GPU会响应" in key


def test_same_seed_gives_byte_identical_files(en, lab_course, lab_verification, tmp_path):
    job, paths = en
    _, again = _render(lab_course, lab_verification, "en", tmp_path / "again", seed=SEED)
    for first, second in zip(paths, again):
        assert first.read_bytes() == second.read_bytes(), first.name
    for path in [p for p in paths if p.suffix == ".pdf"]:
        assert read(path).reader.metadata["/CreationDate"] == "D:20260304000000Z", "dated by the ledger"
    _, other = _render(lab_course, lab_verification, "en", tmp_path / "other", seed=SEED + 1, versions=1)
    assert named(other, ".A.pdf").read_bytes() != named(paths, ".A.pdf").read_bytes()


BUILD_LAB_QUIZ = """
import pickle, sys
from pathlib import Path
from generator.loader import load_course
from generator.render import quiz
from generator.render.base import RenderJob
course, verification = load_course(sys.argv[1]), pickle.loads(Path(sys.argv[2]).read_bytes())
quiz.render(RenderJob(course, verification, "en", Path(sys.argv[3])), quiz.QuizOptions(seed=3, count=4, versions=1))
"""


def _build_under_clock(content_dir, out: Path, clock: str, epoch=None) -> dict[str, bytes]:
    """The lab quiz built in a fresh process whose clock ``faketime`` sets to ``clock``: {file name: bytes}."""
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    if epoch is not None:
        env["SOURCE_DATE_EPOCH"] = str(epoch)
    verification = out.parent / f"{out.name}.verification.pickle"  # the lab's, as the tests here render with
    verification.write_bytes(pickle.dumps(make_lab_verification(load_course(content_dir))))
    subprocess.run(["faketime", clock, sys.executable, "-c", BUILD_LAB_QUIZ, str(content_dir), str(verification),
                    str(out)], env=env, check=True, capture_output=True, timeout=120)
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


@pytest.mark.skipif(not shutil.which("faketime"), reason="needs faketime (apt package faketime)")
def test_pdfs_are_byte_identical_on_any_day(content_dir, lab_course, lab_verification, tmp_path, monkeypatch):
    """Two processes whose clocks read years apart write the same bytes, dated by the ledger; with
    SOURCE_DATE_EPOCH the footer and metadata carry its day, again whatever the clock says (a faked
    clock in a process, the real one here)."""
    first = _build_under_clock(content_dir, tmp_path / "one", "2024-02-29 23:59:00")
    second = _build_under_clock(content_dir, tmp_path / "two", "2031-07-01 08:00:00")
    assert list(first) == ["quiz-s3.en.A.answers.pdf", "quiz-s3.en.A.pdf", "quiz-s3.en.gift.txt", "quiz-s3.en.key.pdf",
                           "quiz-s3.en.marking.pdf", "quiz-s3.en.moodle.xml", "quiz-s3.en.qti12.zip",
                           "quiz-s3.en.qti21.zip"]
    assert first == second
    sheet = read(tmp_path / "one" / "quiz-s3.en.A.pdf")
    assert sheet.reader.metadata["/CreationDate"] == "D:20260304000000Z" and "2026-03-04" in sheet.text
    epoch = 1700000000  # 2023-11-14 22:13:20 UTC
    third = _build_under_clock(content_dir, tmp_path / "three", "2030-01-01 00:00:00", epoch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(epoch))
    _, paths = _render(lab_course, lab_verification, "en", tmp_path / "four", seed=3, count=4, versions=1)
    assert third == {path.name: path.read_bytes() for path in sorted(paths)} and third != first
    sheet = read(tmp_path / "three" / "quiz-s3.en.A.pdf")
    assert sheet.reader.metadata["/CreationDate"] == "D:20231114000000Z"
    assert all("2023-11-14" in page for page in sheet.pages) and "2026-03-04" not in sheet.text


def test_without_a_ledger_or_epoch_the_pdfs_carry_no_date(lab_course, lab_verification, tmp_path):
    """No recorded run and no SOURCE_DATE_EPOCH: no date at all, rather than the clock's."""
    import dataclasses

    alone = dataclasses.replace(lab_verification, elsewhere=())
    _, paths = _render(lab_course, alone, "en", tmp_path, seed=3, count=2, versions=1)
    sheet = read(named(paths, ".A.pdf"))
    assert "/CreationDate" not in (sheet.reader.metadata or {})
    assert sheet.pages[-1].endswith(without_spaces(f"skip) Version A · {len(sheet.pages)} / {len(sheet.pages)}"))
    assert not re.search(r"20\d\d-\d\d-\d\d", sheet.text)


def test_a_bad_source_date_epoch_is_a_clear_error(content_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    done = CliRunner().invoke(main, ["quiz", "--content", str(content_dir), "--out", str(tmp_path), "--quiet"])
    assert done.exit_code == 2 and "SOURCE_DATE_EPOCH='yesterday' is not a count of seconds" in done.output
    assert not list(tmp_path.glob("quiz*"))


def test_moodle_xml_holds_every_question_with_per_option_feedback(en, lab_course):
    job, _ = en
    root = ET.parse(job.output(STEM, ".moodle.xml")).getroot()
    assert root.tag == "quiz"
    assert root[0].get("type") == "category"
    questions = {q.findtext("idnumber"): q for q in root.findall("question[@type='multichoice']")}
    assert list(questions) == [q.id for q in lab_course.questions]
    text_of = lambda markup: html.unescape(re.sub(r"<[^>]+>", "", markup))  # noqa: E731
    for question in lab_course.questions:
        element = questions[question.id]
        assert text_of(element.findtext("questiontext/text")).startswith(question.stem.en.replace("`", ""))
        assert element.findtext("defaultgrade") == str(question.points)
        answers = element.findall("answer")
        options = shown_options(question)  # in the order every output shows them
        assert len(answers) == len(question.options)
        for answer, option in zip(answers, options):
            assert text_of(answer.findtext("text")) == option.text.en.replace("`", "")
            assert text_of(answer.findtext("feedback/text")) == option.why.en.replace("`", "")
        fractions = [float(a.get("fraction")) for a in answers]
        assert sum(f for f, o in zip(fractions, options) if o.correct) == pytest.approx(100, abs=0.001)
        tags = [t.findtext("text") for t in element.findall("tags/tag")]
        assert ("unverified::needs-cuda" in tags) == (GPU_FACT in question.facts)
        general = text_of(element.findtext("generalfeedback/text"))
        for fact_id in question.facts:
            assert lab_course.fact(fact_id).claim.en.replace("`", "") in general
    single = {qid: element.findtext("single") for qid, element in questions.items()}
    assert [single[f"lab-{w}"] for w in ("amber", "dune", "garnet", "fjord", "cobalt")] == [
        "true", "true", "true", "false", "false"], "a scenario with one right answer is answered like a single"
    literal = questions["lab-literal"].findtext("questiontext/text")
    assert html.escape(LITERAL_STEM) in literal and "<label>" not in literal


UNITS = {"en": ("pt", "pts"), "zh": ("分", "分")}


def bubble_rows(raw_page: str, lang: str) -> dict[int, tuple[str, str, bool, int]]:
    """{number: (bubble letters, correct letters or '', scenario mark, points)} from an answer sheet or
    marking page. Bubbles are A, B, C, ... in order; a marked correct letter never continues that run."""
    rows = {}
    unit = "|".join(map(re.escape, UNITS[lang]))
    for line in raw_page.splitlines():
        tokens = line.split()
        if len(tokens) < 4 or not tokens[0].isdigit() or tokens[1] != "A" or not re.fullmatch(unit, tokens[-1]):
            continue
        count = 0
        while count + 1 < len(tokens) and tokens[count + 1] == "ABCDEFGH"[count]:
            count += 1
        rest = tokens[count + 1:-2]
        correct = rest[0] if rest and rest[0] != "✎" else ""
        rows[int(tokens[0])] = ("ABCDEFGH"[:count], correct, "✎" in rest, int(tokens[-2]))
    return rows


def explain_boxes(answers: Pdf, lang: str) -> list[int]:
    """The numbers of the answer sheet's boxes for scenario explanations ("✎ 4"), in print order."""
    text = "\n".join(answers.raw_pages)
    heading = quiz.all_words(lang)["quiz"]["explain_heading"]
    assert text.count(heading) <= 1
    return [int(n) for n in re.findall(r"✎ (\d+)", text.partition(heading)[2])]


def scenario_numbers(version) -> list[int]:
    return [number for number, placed in enumerate(version.placed, 1) if placed.question.kind == "scenario"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_answer_sheet_is_one_page_with_a_bubble_row_per_question(lang, en, zh, lab_course):
    """Each version's answer sheet: one page with its version, the name fields and, for every number, as
    many bubbles as that question prints options, its points and ✎ where a scenario is explained; then a
    box for each scenario's explanation, numbered as its question (the question paper has no lines: a
    teacher collects one document per student)."""
    job, paths = {"en": en, "zh": zh}[lang]
    by_id = {q.id: q for q in lab_course.questions}
    labels = {"en": ("Answer sheet", "Version {}", "Name"), "zh": ("答题卡", "{} 卷", "姓名")}[lang]
    for letter in VERSIONS:
        path = job.output(STEM, f".{letter}.answers.pdf")
        assert path in paths
        sheet = read(path)
        assert len(sheet.pages) == 1 and len(sheet.reader.pages) == 1
        first = sheet.pages[0]
        assert first.startswith(without_spaces(f"{quiz.all_words(lang)['quiz']['title']} {labels[0]}"))
        assert without_spaces(labels[1].format(letter)) in first and labels[2] in first
        fonts = {str(font.get("/BaseFont", "")).split("+")[-1] for font in sheet.fonts(0)}
        assert all(name.startswith(("Libertinus", "NotoSansCJK", "DejaVuSans")) for name in fonts), fonts
        rows = bubble_rows(sheet.raw_pages[0], lang)
        order = sheet_order(read(job.output(STEM, f".{letter}.pdf")), lab_course.questions, lang)
        assert sorted(rows) == list(range(1, len(order) + 1))
        for number, (qid, options) in enumerate(order, 1):
            question = by_id[qid]
            assert rows[number] == ("ABCD"[:len(options)], "", question.kind == "scenario", question.points), number
        scenarios = [number for number, (qid, _) in enumerate(order, 1) if by_id[qid].kind == "scenario"]
        assert len(scenarios) == 4 and explain_boxes(sheet, lang) == scenarios, letter


def test_marking_grid_gives_every_versions_right_letters_and_points(en, lab_course):
    """A page per version, in the answer sheet's layout: the right letters (as the key grid gives them)
    and the points of every number."""
    job, paths = en
    marking = read(job.output(STEM, ".marking.pdf"))
    assert job.output(STEM, ".marking.pdf") in paths and len(marking.pages) == len(VERSIONS)
    grid = key_grid(read(job.output(STEM, ".key.pdf")), len(VERSIONS))
    by_id = {q.id: q for q in lab_course.questions}
    for column, (letter, page) in enumerate(zip(VERSIONS, marking.raw_pages)):
        assert without_spaces(f"Marking grid Version {letter}") in without_spaces(page)
        rows = bubble_rows(page, "en")
        order = sheet_order(read(job.output(STEM, f".{letter}.pdf")), lab_course.questions, "en")
        assert sorted(rows) == list(range(1, len(order) + 1))
        for number, (qid, options) in enumerate(order, 1):
            question = by_id[qid]
            expected = expected_letters(question, options)
            assert rows[number] == ("ABCD"[:len(options)], expected, question.kind == "scenario",
                                    question.points), (letter, number)
            assert grid[number][column] == expected
        bubbles = {box for box in word_boxes(job.output(STEM, f".{letter}.answers.pdf"))[0]
                   if box[4] in ("A", "B", "C", "D") and 100 < box[1] < 760}  # below the header, above the footer
        assert len(bubbles) > 40 and bubbles <= set(word_boxes(job.output(STEM, ".marking.pdf"))[column]), \
            "every bubble of the answer sheet stands at the same spot on its marking page"


def _seed_drawing_scenarios(course, count: int) -> int:
    """The first seed from ``count`` on whose quiz of ``count`` questions holds a scenario in both its versions
    (the content decides which seeds do: a fixed seed would stop drawing one when a question is added or dropped)."""
    return next(seed for seed in range(count, count + 200)
                if all(scenario_numbers(version)
                       for version in make_versions(select(course.modules, count=count, seed=seed), 2, seed)))


@pytest.fixture(scope="module")
def sized(course, verification, tmp_path_factory):
    """Quizzes of 20 (A4) and 40 (US letter: shorter) shipped questions, two versions each: {count: (seed, job,
    paths)}; the 40's seed draws scenarios, so their boxes are drawn and counted."""
    quizzes = {}
    for count, paper in ((20, "a4"), (40, "letter")):
        seed = count if count == 20 else _seed_drawing_scenarios(course, count)
        quizzes[count] = (seed, *_render(course, verification, "en", tmp_path_factory.mktemp(f"sized{count}"),
                                         count=count, versions=2, seed=seed, paper=paper))
    return quizzes


@pytest.mark.parametrize("count", [20, 40])
def test_answer_sheet_bubbles_fit_one_page_for_20_and_40_questions(count, sized, course):
    """Every bubble on the first page; the scenario boxes below them or overleaf: one sheet of paper."""
    seed, job, paths = sized[count]
    versions = make_versions(select(course.modules, count=count, seed=seed), 2, seed)
    for letter, version in zip(("A", "B"), versions):
        sheet = read(job.output(f"quiz-s{seed}", f".{letter}.answers.pdf"))
        assert len(sheet.reader.pages) <= 2
        assert sorted(bubble_rows(sheet.raw_pages[0], "en")) == list(range(1, count + 1))
        assert explain_boxes(sheet, "en") == scenario_numbers(version)  # a box for each scenario, if any
    marking = read(job.output(f"quiz-s{seed}", ".marking.pdf"))
    assert len(marking.reader.pages) == 2
    assert all(sorted(bubble_rows(page, "en")) == list(range(1, count + 1)) for page in marking.raw_pages)


@pytest.fixture(scope="module")
def many_versions(lab_course, lab_verification, tmp_path_factory):
    """8 lab questions in 20 and in 26 versions: {versions: (job, paths)}."""
    return {n: _render(lab_course, lab_verification, "en", tmp_path_factory.mktemp(f"v{n}"), seed=7, count=8,
                       versions=n) for n in (20, 26)}


@pytest.mark.parametrize("versions", [20, 26])
def test_key_grid_fits_any_number_of_versions(versions, many_versions):
    """The grid splits into tables of at most six versions: every version's letters read back for every
    number (and match its marking page), and no two words of the key overprint each other."""
    job, paths = many_versions[versions]
    key = named(paths, ".key.pdf")
    grid = key_grid(read(key), versions)
    assert sorted(grid) == list(range(1, 9))
    marking = read(named(paths, ".marking.pdf"))
    assert len(marking.pages) == versions
    for column, page in enumerate(marking.raw_pages):
        rows = bubble_rows(page, "en")
        assert {n: rows[n][1] for n in rows} == {n: grid[n][column] for n in grid}, column
    assert overprinted(key) == []


def test_overprint_check_sees_overlapping_words(tmp_path):
    """The check above is not blind: two texts placed on one spot are reported."""
    source = tmp_path / "clash.typ"
    source.write_text('#place(top + left)[Alpha beta]\n#place(top + left)[Gamma delta]\n', encoding="utf-8")
    pdf = tmp_path / "clash.pdf"
    pdf.write_bytes(typst.compile(str(source)))
    assert (1, "Alpha", "Gamma") in overprinted(pdf)


def test_points_follow_the_kind_unless_a_question_says(en, lab_course):
    """single/true-false 1, multi 2, scenario 3; the literal question says 2: sheets, key and Moodle agree."""
    job, _ = en
    expected = {q.id: POINTS[q.kind] for q in lab_course.questions}
    expected["lab-literal"] = 2
    assert {q.id: q.points for q in lab_course.questions} == expected
    assert {POINTS[k] for k in ("single", "truefalse")} == {1} and (POINTS["multi"], POINTS["scenario"]) == (2, 3)
    root = ET.parse(job.output(STEM, ".moodle.xml")).getroot()
    grades = {q.findtext("idnumber"): int(q.findtext("defaultgrade")) for q in root.findall("question")[1:]}
    assert grades == expected
    key = read(job.output(STEM, ".key.pdf")).text
    versions = make_versions(lab_course.questions, len(VERSIONS), SEED)
    for question in lab_course.questions:
        unit = "pt" if question.points == 1 else "pts"
        where = "·".join(f"{v.letter}{v.number_of(question)}" for v in versions)
        assert f"{question.points}{unit}·numberonsheet:{where}{as_in_pdf(question.stem.en)}" in key, question.id


def _key_blocks(pdf: "Pdf", questions, lang: str) -> dict[str, str]:
    """Each question's block of the key's detail section (its stem on), by id."""
    text = key_body(pdf)
    starts = [text.index(as_in_pdf(q.stem.get(lang))) for q in questions]
    return {q.id: text[start:end] for q, start, end in zip(questions, starts, [*starts[1:], len(text)])}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_key_gives_scenarios_a_rubric_and_multi_answers_the_scoring_rule(lang, en, zh, lab_course):
    job, _ = {"en": en, "zh": zh}[lang]
    words = quiz.all_words(lang)["quiz"]
    blocks = _key_blocks(read(job.output(STEM, ".key.pdf")), lab_course.questions, lang)
    several = {"birch", "fjord", "juniper", "mosaic", "cobalt", "kestrel"}
    for question in lab_course.questions:
        word = question.id.removeprefix("lab-")
        block = blocks[question.id]
        assert (without_spaces(words["scoring"]) in block) == (word in several), (lang, word)
        assert (without_spaces(words["rubric"]) in block) == (question.kind == "scenario"), (lang, word)
    assert without_spaces(words["instructions"]) in read(job.output(STEM, ".A.pdf")).pages[0]


def _paper_score(question, ticked: set[int]) -> float:
    """The stated rule: each right option ticked earns points/right, each wrong one loses points/wrong, >= 0."""
    right = [i for i, o in enumerate(question.options) if o.correct]
    wrong = [i for i, o in enumerate(question.options) if not o.correct]
    score = sum(question.points / len(right) for i in ticked if i in right)
    score -= sum(question.points / len(wrong) for i in ticked if i in wrong)
    return max(score, 0.0)


def _moodle_score(element, shown_options, question, ticked: set[int]) -> float:
    """Moodle's multichoice grading: the fractions of the ticked answers, summed, clamped to 0..100 %."""
    fractions = {id(o): float(a.get("fraction")) for a, o in zip(element.findall("answer"), shown_options)}
    total = sum(fractions[id(question.options[i])] for i in ticked)
    return min(max(total, 0.0), 100.0) / 100 * float(element.findtext("defaultgrade"))


def test_moodle_scores_every_tick_pattern_as_the_key_states(en, lab_course):
    """For every question that takes several answers and every set of ticked boxes, Moodle's score (its
    fractions) equals the stated rule's; a single pick scores full for the right box and 0 otherwise."""
    import itertools

    job, _ = en
    root = ET.parse(job.output(STEM, ".moodle.xml")).getroot()
    elements = {q.findtext("idnumber"): q for q in root.findall("question")[1:]}
    checked = 0
    for question in lab_course.questions:
        element, options = elements[question.id], shown_options(question)
        indices = range(len(question.options))
        if element.findtext("single") == "true":
            for i in indices:
                expected = question.points if question.options[i].correct else 0
                assert _moodle_score(element, options, question, {i}) == pytest.approx(expected)
            continue
        for size in range(len(question.options) + 1):
            for ticked in itertools.combinations(indices, size):
                assert _moodle_score(element, options, question, set(ticked)) == pytest.approx(
                    _paper_score(question, set(ticked)), abs=1e-4), (question.id, ticked)
                checked += 1
    assert checked == 6 * 16


# ------------------------------------------------------------------- GIFT
def gift_unescape(text: str) -> str:
    """GIFT's escapes undone: a backslash keeps the next character as text; ``\\n`` is a line break."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def _unescaped(text: str, char: str, start: int = 0) -> int:
    """Index of the first ``char`` at or after ``start`` that no backslash escapes; -1 if none."""
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == char:
            return i
        i += 1
    return -1


def parse_gift(source: str) -> tuple[str, list[dict]]:
    """(category, questions) from a GIFT file: each question {name, text, answers: [(weight %, text,
    feedback)], general, single}, texts unescaped. A small reader of what Moodle's GIFT import reads."""
    kept = [line for line in source.splitlines() if not line.startswith("//")]
    blocks = [b.strip() for b in "\n".join(kept).split("\n\n") if b.strip()]
    category = blocks.pop(0).removeprefix("$CATEGORY:").strip()
    return category, [_parse_gift_question(block) for block in blocks]


def _parse_gift_question(block: str) -> dict:
    assert block.startswith("::"), block[:40]
    name_end = _unescaped(block, ":", 2)
    assert block[name_end:name_end + 2] == "::"
    open_brace = _unescaped(block, "{", name_end + 2)
    assert open_brace > 0 and block.endswith("}") and _unescaped(block, "}", open_brace) == len(block) - 1
    text = block[name_end + 2:open_brace].strip()
    assert text.startswith("[html]")
    body, general, single = block[open_brace + 1:-1], "", False
    answers: list[list] = []  # [weight, text, feedback or None]
    i = 0
    while i < len(body):
        char = body[i]
        if char in "=~":
            single = single or char == "="
            weight, i = (100.0 if char == "=" else 0.0), i + 1
            if char == "~" and body[i] == "%":
                end = body.index("%", i + 1)
                weight, i = float(body[i + 1:end]), end + 1
            answers.append([weight, "", None])
            continue
        if body.startswith("####", i):
            general = body[i + 4:].strip()
            break
        if char == "#":
            answers[-1][2] = ""
            i += 1
            continue
        piece = body[i:i + 2] if char == "\\" else char  # an escaped character is text
        if answers:
            answers[-1][2 if answers[-1][2] is not None else 1] += piece
        i += len(piece)
    return {"name": gift_unescape(block[2:name_end]), "text": gift_unescape(text.removeprefix("[html]")),
            "answers": [(w, gift_unescape(t.strip()), gift_unescape((f or "").strip())) for w, t, f in answers],
            "general": gift_unescape(general), "single": single}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gift_holds_every_question_with_its_texts_feedback_and_the_stated_weights(lang, en, zh, lab_course):
    """Parsed back, the GIFT file holds every question in one category, its stem, options (in the order every
    output shows them) and their why as the content says them, the cited facts as general feedback, and weighs
    the options by the key's rule: a single pick 100/0; several answers +100/right %, -100/wrong %."""
    job, _ = {"en": en, "zh": zh}[lang]
    category, questions = parse_gift(job.output(STEM, ".gift.txt").read_text(encoding="utf-8"))
    assert category == CATEGORY[lang]
    assert [q["name"] for q in questions] == [q.id for q in lab_course.questions]
    text_of = lambda markup: html.unescape(re.sub(r"<[^>]+>", "", markup))  # noqa: E731
    single_pick = {"lab-amber", "lab-dune", "lab-ember", "lab-garnet", "lab-harbor", "lab-indigo", "lab-lagoon",
                   "lab-nectar", "lab-onyx", "lab-prism", "lab-literal"}  # singles, true/false, one-answer scenarios
    assert {q["name"] for q in questions if q["single"]} == single_pick
    for parsed, question in zip(questions, lab_course.questions):
        assert text_of(parsed["text"]).startswith(question.stem.get(lang).replace("`", "")), question.id
        options = shown_options(question)
        assert [(text_of(text), text_of(feedback)) for _, text, feedback in parsed["answers"]] == [
            (o.text.get(lang).replace("`", ""), o.why.get(lang).replace("`", "")) for o in options], question.id
        for fact_id in question.facts:
            assert lab_course.fact(fact_id).claim.get(lang).replace("`", "") in text_of(parsed["general"])
        right = sum(o.correct for o in question.options)
        for (weight, _, _), option in zip(parsed["answers"], options):
            if parsed["single"]:
                expected = 100 if option.correct else 0
            else:
                expected = 100 / right if option.correct else -100 / (len(question.options) - right)
            assert weight == pytest.approx(expected, abs=1e-4), question.id
    literal = next(q for q in questions if q["name"] == "lab-literal")
    assert html.unescape(literal["text"]) == f"<p>{LITERAL_STEM}</p>", "~ = # { } : and \\ come back as written"


def test_gift_escapes_every_special_character():
    from generator.render.quiz.gift import escape

    text = "a~b=c#d{e}f:g\\h\nline"
    escaped = escape(text)
    assert escaped == "a\\~b\\=c\\#d\\{e\\}f\\:g\\\\h\\nline"
    assert gift_unescape(escaped) == text and "\n" not in escaped


def test_count_picks_the_same_questions_for_every_version(lab_course, lab_verification, tmp_path):
    job, paths = _render(lab_course, lab_verification, "en", tmp_path, count=5, versions=2, seed=3, paper="letter",
                         title="Week 3 check")
    chosen = select(lab_course.modules, count=5, seed=3)
    others = [q for q in lab_course.questions if q not in chosen]
    for path in (named(paths, ".A.pdf"), named(paths, ".B.pdf")):
        pdf = read(path)
        assert pdf.pages[0].startswith(without_spaces("Week 3 check"))
        assert [round(float(x)) for x in pdf.reader.pages[0].mediabox[2:]] == [612, 792]
        assert all(pdf.text.count(as_in_pdf(q.stem.en)) == 1 for q in chosen)
        assert not any(as_in_pdf(q.stem.en) in pdf.text for q in others)
    assert sorted(key_grid(read(named(paths, ".key.pdf")), 2)) == [1, 2, 3, 4, 5]


def test_fewer_versions_remove_the_sheets_no_key_matches(lab_course, lab_verification, tmp_path):
    _, first = _render(lab_course, lab_verification, "en", tmp_path, versions=3, count=1)
    assert without_spaces("1 question ·") in read(named(first, ".key.pdf")).pages[0]
    _, paths = _render(lab_course, lab_verification, "en", tmp_path, versions=2, count=2)
    assert sorted(tmp_path.iterdir()) == sorted(paths)


def test_selection_filters_and_shortfall(lab_course):
    questions, modules = lab_course.questions, lab_course.modules
    beta = select(modules, tags=("beta",))
    assert beta == [q for q in questions if "beta" in q.tags] and 0 < len(beta) < len(questions)
    assert select(modules, tags=("alpha", "beta")) == questions
    assert select(modules) == questions
    hard = select(modules, difficulty=3)
    assert hard and all(q.difficulty == 3 for q in hard)
    sample = select(modules, count=6, seed=11)
    assert sample == select(modules, count=6, seed=11)
    assert sample != select(modules, count=6, seed=12)
    assert sample == [q for q in questions if q in sample], "a sample keeps teaching order"
    with pytest.raises(SelectionError, match=rf"asked for 99 questions but only {len(beta)} match .*tag beta"):
        select(modules, tags=("beta",), count=99)
    with pytest.raises(SelectionError, match=r"^0 questions match the filters \(tag nothing, difficulty 2\)$"):
        select(modules, tags=("nothing",), difficulty=2)


def _module(name: str, questions) -> Module:
    return Module(module=f"torch.backends.{name}", questions=list(questions))


def _twins(lab_course, words, fact: str):
    """Lab questions ``words`` made to test one fact, under new ids."""
    return [by_word(lab_course, w).model_copy(update={"id": f"twin-{w}", "facts": [fact]}) for w in words]


def test_no_two_questions_on_one_fact_share_a_sheet(lab_course):
    twins = _twins(lab_course, ("amber", "birch", "cobalt"), "shared-fact")
    modules = [_module("one", [*lab_course.questions[:4], twins[0]]), _module("two", twins[1:])]
    everything = select(modules)
    assert sum(q.id.startswith("twin-") for q in everything) == 1
    assert len(everything) == 5
    for seed in range(12):
        picked = select(modules, count=5, seed=seed)
        facts = [f for q in picked for f in q.facts]
        assert len(facts) == len(set(facts)), seed
    with pytest.raises(SelectionError, match=r"asked for 6 questions but only 5 of the 7 that match can share a "
                                             r"sheet \(at most one question per fact\)"):
        select(modules, count=6)


def test_count_spreads_over_modules_and_difficulties(course):
    """The shipped course: ``--module cudnn --module cuda --count 10`` picks from both, about half each, and
    every difficulty the two modules offer; 20 questions from every module leave out none."""
    two = course.select(["cudnn", "cuda"]).modules
    for seed in range(8):
        picked = select(two, count=10, seed=seed)
        per_module = [sum(q in m.questions for q in picked) for m in two]
        assert sorted(per_module) == [5, 5], (seed, per_module)
        levels = [sum(q.difficulty == d for q in picked) for d in (1, 2, 3)]
        assert max(levels) - min(levels) <= 1, (seed, levels)
        facts = [f for q in picked for f in q.facts]
        assert len(facts) == len(set(facts))
        assert picked == select(two, count=10, seed=seed), "the same seed picks the same questions"
    with_questions = [m for m in course.modules if m.questions]
    assert len(with_questions) <= 20
    picked = select(course.modules, count=20, seed=3)
    assert all(any(q in m.questions for q in picked) for m in with_questions)


def test_per_module_takes_that_many_from_every_module(course):
    two = course.select(["cudnn", "cuda"]).modules
    picked = select(two, per_module=3, seed=1)
    assert [sum(q in m.questions for q in picked) for m in two] == [3, 3]
    with pytest.raises(SelectionError, match=r"asked for 99 questions per module but only these can be picked "
                                             r"\(at most one question per fact\): .*cudnn \d+"):
        select(two, per_module=99)


def test_versions_come_from_the_seed_alone(lab_course):
    questions = lab_course.questions
    first = make_versions(questions, 3, seed=5)
    assert first == make_versions(questions, 3, seed=5)
    assert [v.letter for v in first] == list(VERSIONS)
    assert make_versions(questions, 1, seed=5)[0] == first[0], "adding versions leaves A as it was"
    assert make_versions(questions, 1, seed=6)[0] != first[0]


def test_missing_cjk_font_is_a_clear_error(lab_course, lab_verification, tmp_path, monkeypatch):
    for module in (quiz, typesetting):  # the name the quiz asks Typst for, and the one its error names
        monkeypatch.setattr(module, "CJK_FONT", "Noto Sans CJK Nowhere")
    with pytest.raises(BuildError, match=r"no font family 'noto sans cjk nowhere'.*fonts-noto-cjk"):
        _render(lab_course, lab_verification, "zh", tmp_path)
    assert not list(tmp_path.iterdir()), "nothing is written when a sheet cannot be typeset"


def test_typst_errors_carry_typsts_message(lab_course, lab_verification, tmp_path, monkeypatch):
    broken = tmp_path / "templates" / "quiz.typ"
    broken.parent.mkdir()
    broken.write_text('#let data = json(bytes(sys.inputs.at("data")))\n#let x = (\n', encoding="utf-8")
    monkeypatch.setattr(quiz, "TEMPLATE", broken)
    with pytest.raises(BuildError) as caught:
        _render(lab_course, lab_verification, "en", tmp_path / "out")
    assert "unclosed delimiter" in str(caught.value) and "quiz.typ:2" in caught.value.output


def test_cli_writes_a_quiz_and_reports_a_shortfall_as_usage_error(content_dir, tmp_path):
    runner = CliRunner()
    out = tmp_path / "build"
    args = ["quiz", "--content", str(content_dir), "--out", str(out), "--lang", "zh", "--quiet"]
    done = runner.invoke(main, [*args, "--count", "4", "--versions", "2", "--seed", "9"])
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in out.glob("quiz*")) == [
        "quiz-s9.zh.A.answers.pdf", "quiz-s9.zh.A.pdf", "quiz-s9.zh.B.answers.pdf", "quiz-s9.zh.B.pdf",
        "quiz-s9.zh.gift.txt", "quiz-s9.zh.key.pdf", "quiz-s9.zh.marking.pdf", "quiz-s9.zh.moodle.xml",
        "quiz-s9.zh.qti12.zip", "quiz-s9.zh.qti21.zip"]
    first = {p: p.read_bytes() for p in out.glob("quiz*")}
    named = runner.invoke(main, [*args, "--count", "2", "--versions", "1", "--seed", "9", "--name", "week-3"])
    assert named.exit_code == 0, named.output
    assert sorted(p.name for p in out.glob("quiz-week-3*")) == [
        "quiz-week-3.zh.A.answers.pdf", "quiz-week-3.zh.A.pdf", "quiz-week-3.zh.gift.txt", "quiz-week-3.zh.key.pdf",
        "quiz-week-3.zh.marking.pdf", "quiz-week-3.zh.moodle.xml", "quiz-week-3.zh.qti12.zip",
        "quiz-week-3.zh.qti21.zip"]
    assert all(path.read_bytes() == data for path, data in first.items()), "the first quiz is left as it was"
    bad = runner.invoke(main, [*args, "--name", "../week 3"])
    assert bad.exit_code == 2 and "may hold only letters, digits" in bad.output
    short = runner.invoke(main, [*args, "--tag", "beta", "--count", "500"])
    assert short.exit_code == 2
    assert re.search(r"asked for 500 questions but only \d+ match", short.output)
    for pair in (["--count", "3", "--per-module", "2"], ["--all", "--count", "3"], ["--all", "--per-module", "2"]):
        both = runner.invoke(main, [*args, *pair])
        assert both.exit_code == 2 and "--count, --per-module and --all exclude each other" in both.output
    many = runner.invoke(main, [*args, "--per-module", "99"])
    assert many.exit_code == 2 and "asked for 99 questions per module" in many.output and "quizlab 17" in many.output


# --------------------------------------------------------- the shipped course
def chosen(course):
    """The shipped questions a default quiz prints: all but those on a fact another one already tests."""
    return select(course.modules)


@pytest.fixture(scope="module")
def shipped(course, verification, tmp_path_factory):
    """The real course's whole bank (--all), in both languages: {lang: (job, paths)}."""
    out = tmp_path_factory.mktemp("shipped")
    return {lang: _render(course, verification, lang, out, everything=True) for lang in ("en", "zh")}


def sheet_numbers(key: Pdf, course, lang: str) -> dict[str, dict[int, object]]:
    """{version letter: {number on its sheet: question}}, read from the key's appendix: a row
    "A 3 · B 5 · C 1 | question id | facts" per question."""
    letters = r" · ".join(rf"{v} (\d+)" for v in VERSIONS)
    appendix = " ".join(" ".join(page.split()) for page in key.raw_pages[appendix_page(key):])  # ids never wrap
    numbers: dict[str, dict[int, object]] = {v: {} for v in VERSIONS}
    for question in chosen(course):
        match = re.search(letters + " " + re.escape(question.id) + " ", appendix)
        assert match, (lang, question.id)
        for letter, number in zip(VERSIONS, match.groups()):
            assert int(number) not in numbers[letter], (lang, letter, number)
            numbers[letter][int(number)] = question
    return numbers


def question_start(page: str, number: int, stem: str) -> int:
    """Where question ``number`` with ``stem`` begins in a page's raw text (a line "<number>. <stem>"); -1 if not there."""
    for match in re.finditer(rf"(?m)^{number}\.", page):
        if without_spaces(page[match.end():]).startswith(stem):
            return match.start()
    return -1


def test_shipped_content_builds_every_file_in_both_languages(shipped, course):
    assert len(chosen(course)) >= 50 and len(chosen(course)) < len(course.questions)
    for lang, (job, paths) in shipped.items():
        assert [p.name for p in paths] == [f"quiz-s0.{lang}.{s}" for s in (
            "A.pdf", "A.answers.pdf", "B.pdf", "B.answers.pdf", "C.pdf", "C.answers.pdf", "key.pdf", "marking.pdf",
            "moodle.xml", "gift.txt", "qti12.zip", "qti21.zip")]
        assert all(p.stat().st_size > 0 for p in paths)
        numbers = list(range(1, len(chosen(course)) + 1))
        assert sorted(key_grid(read(named(paths, ".key.pdf")), len(VERSIONS))) == numbers
        versions = make_versions(chosen(course), len(VERSIONS), 0)
        for letter, version in zip(VERSIONS, versions):
            answers = read(named(paths, f".{letter}.answers.pdf"))
            assert sorted(bubble_rows(answers.raw_pages[0], lang)) == numbers, (lang, letter, "every bubble on page 1")
            assert explain_boxes(answers, lang) == scenario_numbers(version), (lang, letter)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_shipped_questions_sit_on_every_sheet_in_one_piece(lang, shipped, course):
    """Each version holds every stem at the number the key gives it, and each question's options and
    code lines stand on the page of its stem, before the next question begins."""
    job, paths = shipped[lang]
    numbers = sheet_numbers(read(named(paths, ".key.pdf")), course, lang)
    for letter in VERSIONS:
        pdf = read(named(paths, f".{letter}.pdf"))
        assert sorted(numbers[letter]) == list(range(1, len(chosen(course)) + 1))
        page_index = 0
        for number in range(1, len(chosen(course)) + 1):
            question = numbers[letter][number]
            stem = as_in_pdf(question.stem.get(lang))
            while page_index < len(pdf.pages) and question_start(pdf.raw_pages[page_index], number, stem) < 0:
                page_index += 1
            assert page_index < len(pdf.pages), (lang, letter, number, question.id, "stem not found in order")
            page = pdf.raw_pages[page_index]
            start = question_start(page, number, stem)
            following = numbers[letter].get(number + 1)
            end = question_start(page, number + 1, as_in_pdf(following.stem.get(lang))) if following else -1
            block = without_spaces(page[start:end if end > start else len(page)])
            for option in question.options:
                assert as_in_pdf(option.text.get(lang)) in block, (lang, letter, number, question.id)
            for line in question.code_in(lang).splitlines():
                assert without_spaces(line) in block, (lang, letter, number, question.id, line)


def test_shipped_chinese_sheets_are_chinese(shipped, course):
    """Every Chinese character of the stems and options comes back out of the sheet as that character."""
    _, paths = shipped["zh"]
    pdf = read(named(paths, ".A.pdf"))
    assert pdf.pages[0].startswith(without_spaces("torch.backends 测验 A 卷"))
    han = re.compile("[\u4e00-\u9fff]")
    printed = [q.stem.get("zh") for q in chosen(course)] + [
        o.text.get("zh") for q in chosen(course) for o in q.options]
    expected = sum(len(han.findall(text)) for text in printed)
    assert expected > 1000 and len(han.findall(pdf.text)) >= expected
    assert all(as_in_pdf(q.stem.zh) in pdf.text for q in chosen(course) if q.stem.zh)


def test_shipped_emoji_are_drawn_by_the_emoji_font(shipped, course):
    emoji = [q for q in chosen(course) if quiz.EMOJI.search(q.stem.en)]
    if not emoji:
        pytest.skip("the shipped content holds no emoji at present")
    for lang, (_, paths) in shipped.items():
        pdf = read(named(paths, ".A.pdf"))
        stem = as_in_pdf(emoji[0].stem.get(lang))
        page = next(n for n, text in enumerate(pdf.pages) if stem in text)
        assert any(font["/Subtype"] == "/Type3" for font in pdf.fonts(page)), lang


def test_shipped_moodle_xml_holds_every_question_with_feedback(shipped, course):
    for lang, (_, paths) in shipped.items():
        root = ET.parse(named(paths, ".moodle.xml")).getroot()
        questions = root.findall("question[@type='multichoice']")
        assert [q.findtext("idnumber") for q in questions] == [q.id for q in chosen(course)]
        for element, question in zip(questions, chosen(course)):
            assert element.findtext("questiontext/text").strip()
            assert element.findtext("generalfeedback/text").strip()
            answers = element.findall("answer")
            assert len(answers) == len(question.options), question.id
            assert all(a.findtext("feedback/text").strip() for a in answers), question.id
            assert sum(float(a.get("fraction")) > 0 for a in answers) == sum(o.correct for o in question.options)


def test_shipped_gift_matches_the_moodle_xml(shipped, course):
    """Every shipped question's text, options, feedback and weights read back alike from GIFT and XML."""
    for lang, (_, paths) in shipped.items():
        _, questions = parse_gift(named(paths, ".gift.txt").read_text(encoding="utf-8"))
        elements = ET.parse(named(paths, ".moodle.xml")).getroot().findall("question[@type='multichoice']")
        assert [q["name"] for q in questions] == [q.id for q in chosen(course)]
        for parsed, element in zip(questions, elements):
            assert parsed["text"] == element.findtext("questiontext/text"), (lang, parsed["name"])
            assert parsed["single"] == (element.findtext("single") == "true")
            assert [(pytest.approx(float(a.get("fraction"))), a.findtext("text"), a.findtext("feedback/text"))
                    for a in element.findall("answer")] == parsed["answers"], (lang, parsed["name"])


# ------------------------------------------------ a class's quiz by default
MAX_PAGES = 4  # a question paper of the default quiz, per version


@pytest.fixture(scope="module")
def default_quiz(course, verification, tmp_path_factory):
    """The shipped course with default options (what `torchdeck quiz` and `make quiz` print), in English
    on A4 and, for the key's appendix, in Chinese: {lang: (job, paths)}."""
    out = tmp_path_factory.mktemp("default")
    return {lang: _render(course, verification, lang, out) for lang in ("en", "zh")}


def pdfinfo_pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, check=True, text=True).stdout
    return int(re.search(r"(?m)^Pages:\s+(\d+)$", info)[1])


def test_default_quiz_is_class_sized_and_balanced(default_quiz, course):
    """20 questions, taken in turns across the modules, each version's question paper on at most 4 pages
    and its answer sheet on one, as pdfinfo and pdftotext read them; every number on every document."""
    questions = select(course.modules, limit=quiz.DEFAULT_COUNT)
    assert len(questions) == quiz.DEFAULT_COUNT == 20 < len(chosen(course))
    with_questions = [m for m in course.modules if m.questions]
    per_module = [sum(q in m.questions for q in questions) for m in with_questions]
    assert max(per_module) - min(per_module) <= 1 + (len(with_questions) < quiz.DEFAULT_COUNT), per_module
    numbers = list(range(1, 21))
    for lang, (job, paths) in default_quiz.items():
        assert sorted(key_grid(read(named(paths, ".key.pdf")), len(VERSIONS))) == numbers
        for letter in VERSIONS:
            paper = named(paths, f".{letter}.pdf")
            assert pdfinfo_pages(paper) <= MAX_PAGES and len(read(paper).pages) <= MAX_PAGES, (lang, letter)
            assert without_spaces({"en": "20 questions", "zh": "共 20 题"}[lang]) in read(paper).pages[0]
            answers = named(paths, f".{letter}.answers.pdf")  # one page for the shipped course at present
            assert pdfinfo_pages(answers) <= 2 and sorted(bubble_rows(read(answers).raw_pages[0], lang)) == numbers


@pytest.mark.parametrize("seed", range(6))
def test_default_quiz_fits_four_pages_for_any_seed_and_paper(seed, course, verification, tmp_path):
    """The bound holds beyond seed 0: other draws, US letter (shorter), Chinese."""
    lang, paper = (("en", "a4"), ("en", "letter"), ("zh", "a4"))[seed % 3]
    job, paths = _render(course, verification, lang, tmp_path, seed=seed, paper=paper, versions=2)
    for letter in ("A", "B"):
        assert pdfinfo_pages(named(paths, f".{letter}.pdf")) <= MAX_PAGES, (seed, lang, paper, letter)
        assert pdfinfo_pages(named(paths, f".{letter}.answers.pdf")) <= 2, (seed, lang, paper, letter)


def test_the_whole_bank_on_request(shipped, default_quiz, course):
    """--all (everything=True) prints every question that can share the quiz, not 20."""
    job, paths = shipped["en"]
    assert sorted(key_grid(read(named(paths, ".key.pdf")), len(VERSIONS))) == list(range(1, len(chosen(course)) + 1))
    assert read(named(paths, ".A.pdf")).text.count("Explainyourchoiceontheanswersheet") == sum(
        q.kind == "scenario" for q in chosen(course))


def test_cli_default_is_capped_at_twenty_and_all_takes_every_question(content_dir, tmp_path):
    """The lab holds 17 questions: the default (20) takes all of them without an error; --all too."""
    runner = CliRunner()
    for extra in ([], ["--all"]):
        out = tmp_path / ("all" if extra else "default")
        done = runner.invoke(main, ["quiz", "--content", str(content_dir), "--out", str(out), "--lang", "en",
                                    "--quiet", "--versions", "1", *extra])
        assert done.exit_code == 0, done.output
        assert sorted(key_grid(read(out / "quiz-s0.en.key.pdf"), 1)) == list(range(1, 18))


# ------------------------------------------------ the key names no internal ids
def test_key_names_no_ids_and_its_appendix_names_them_all(en, zh, lab_course):
    """The key a teacher marks with holds no question or fact id, no verification status; the appendix,
    on pages of its own after it, gives each question's numbers, id and facts with their result."""
    ids = [q.id for q in lab_course.questions] + [f.id for f in lab_course.facts]
    for job, _ in (en, zh):
        pdf = read(job.output(STEM, ".key.pdf"))
        body = key_body(pdf)
        assert body and not [i for i in ids if i in body], job.lang
        assert "(pass" not in body and "(skip" not in body
        words = quiz.all_words(job.lang)["quiz"]
        appendix = pdf.text[len(body):]
        assert appendix.startswith(without_spaces(words["provenance"] + words["provenance_note"]))
        versions = make_versions(lab_course.questions, len(VERSIONS), SEED)
        rows = sorted(lab_course.questions, key=versions[0].number_of)
        starts = [appendix.index("·".join(f"{v.letter}{v.number_of(q)}" for v in versions) + q.id) for q in rows]
        assert starts == sorted(starts), "rows in version A's order"
        for question, start, end in zip(rows, starts, [*starts[1:], len(appendix)]):
            row = appendix[start:end]
            for fact_id in question.facts:
                status = "skip" if fact_id == GPU_FACT else "pass"
                assert f"{fact_id}({status})" in row, (job.lang, question.id, fact_id)


def test_shipped_key_names_no_ids_before_its_appendix(default_quiz, course):
    for lang, (job, paths) in default_quiz.items():
        pdf = read(named(paths, ".key.pdf"))
        body = key_body(pdf)
        questions = select(course.modules, limit=quiz.DEFAULT_COUNT)
        ids = [q.id for q in questions] + [f for q in questions for f in q.facts]
        assert not [i for i in ids if i in body], lang
        appendix = pdf.text[len(body):]
        assert all(q.id in appendix for q in questions) and all(f in appendix for q in questions for f in q.facts)
        assert appendix_page(pdf) <= 8, "the key of a class's quiz is a few pages, not 42"


# ------------------------------------------------ duplicate questions are a lint finding
def _lint_module(tmp_path, questions: list[dict]):
    facts = [{"id": f"f{n}", "claim": {"en": f"claim {n}", "zh": f"论断 {n}"}, "check": {"exists": "torch"}}
             for n in range(1, 5)]
    module = {"module": "torch.backends.t", "title": {"en": "T", "zh": "T"}, "summary": {"en": "S", "zh": "S"},
              "facts": facts, "questions": questions}
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(module, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return CliRunner().invoke(main, ["lint", "--content", str(tmp_path)])


def _asked(qid: str, stem: str, right: str, wrong=("'tf32'", "'ieee'"), facts=("f1",), code=None) -> dict:
    texts = [right, *wrong]
    options = [{"text": {"en": t, "zh": t}, "correct": i == 0, "why": {"en": f"why {i}", "zh": f"理由 {i}"}}
               for i, t in enumerate(texts)]
    question = {"id": qid, "kind": "single", "stem": {"en": stem, "zh": f"题 {qid}"}, "options": options,
                "facts": list(facts)}
    return {**question, "code": code} if code else question


def test_questions_that_ask_the_same_thing_are_lint_findings_at_their_line(tmp_path):
    questions = [
        _asked("t-first", 'After `torch.set_float32_matmul_precision("medium")`, what does '
               "`torch.backends.mkldnn.matmul.fp32_precision` read?", "'bf16'"),
        # the same names and value asked, the same answer, other words and facts
        _asked("t-again", '`torch.set_float32_matmul_precision("medium")` sets '
               "`torch.backends.mkldnn.matmul.fp32_precision` to ...", "`'bf16'`", facts=("f2",)),
        # the same names, another value: another question
        _asked("t-high", 'After `torch.set_float32_matmul_precision("high")`, what does '
               "`torch.backends.mkldnn.matmul.fp32_precision` read?", "'tf32'", wrong=("'bf16'", "'ieee'"),
               facts=("f3",)),
        # code questions that print the same value about other code: not the same
        _asked("t-code-1", "What does this print?", "`False`", wrong=("`True`", "`None`"), facts=("f4",),
               code="import torch\nprint(torch.backends.cudnn.deterministic)\n"),
        _asked("t-code-2", "What does this print?", "`False`", wrong=("`True`", "`None`"), facts=("f3",),
               code="import torch\nprint(torch.backends.mkldnn.is_available())\n"),
        # nearly word for word the same about another name
        _asked("t-mkl", "A tutorial runs `torch.backends.mkl.is_enabled()`. What happens on torch 2.13?",
               "AttributeError: the function does not exist", wrong=("True", "False"), facts=("f4",)),
        _asked("t-omp", "A tutorial shows `torch.backends.openmp.is_enabled()`. What happens on torch 2.13?",
               "AttributeError: it does not exist", wrong=("True", "False"), facts=("f2",)),
    ]
    result = _lint_module(tmp_path, questions)
    assert result.exit_code == 1
    lines = (tmp_path / "t.yaml").read_text(encoding="utf-8").splitlines()
    line = {q["id"]: next(n for n, text in enumerate(lines, 1) if f"id: {q['id']}" in text) for q in questions}
    found = [text for text in result.output.splitlines() if "keep the better one" in text]
    assert len(found) == 2, result.output
    assert f"t.yaml:{line['t-again']}: t-again: asks what t-first (" in found[0]
    assert f"t.yaml:{line['t-first']})" in found[0]
    assert f"t.yaml:{line['t-omp']}: t-omp: nearly repeats, word for word, t-mkl" in found[1]

