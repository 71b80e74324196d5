"""Quiz handouts, read back from the files: versions, answer key, Chinese, Moodle XML, page breaks.

The course is a temporary copy of the shipped cuDNN module plus a synthetic module
whose questions have unique texts (so a text found in a PDF names one question and
one option), code, scenarios, a true/false question, a question resting on a fact
that needs CUDA, and one full of Typst markup characters.
"""
from __future__ import annotations

import functools
import html
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from pypdf import PdfReader

from generator.cli import main
from generator.errors import BuildError
from generator.loader import load_course
from generator.render import quiz
from generator.render.base import RenderJob
from generator.render.quiz_select import SelectionError, make_versions, select
from generator.verify import FactResult, Verification

ROOT = Path(__file__).resolve().parent.parent
SEED = 7
VERSIONS = ("A", "B", "C")
LITERAL_STEM = "Markup stays text: #set page(width: 1cm) $x^2$ *bold* _under_ <label> @ref a#b"
LITERAL_OPTION = "#emph[no] and $y$ with *stars* _x_ <tag> @cite"
GPU_FACT = "lab-gpu-claim"
KINDS = ("single", "multi", "scenario", "single", "multi", "truefalse")


# ------------------------------------------------------------------ content
def _question(i: int) -> dict:
    kind = KINDS[i % len(KINDS)]
    name = f"s{i:02d}"
    if kind == "truefalse":
        options = [{"text": {"en": f"{name} true", "zh": f"{name} 对"}, "correct": True,
                    "why": {"en": f"{name} reason for true", "zh": f"{name} 对的理由"}},
                   {"text": {"en": f"{name} false", "zh": f"{name} 错"},
                    "why": {"en": f"{name} reason for false", "zh": f"{name} 错的理由"}}]
    else:
        correct = (0, 2) if kind in ("multi", "scenario") else (1,)
        options = [{"text": {"en": f"{name} choice {j}: the first flag", "zh": f"{name} 选项 {j}：第一个开关"},
                    "correct": j in correct,
                    "why": {"en": f"{name} reason {j}", "zh": f"{name} 理由 {j}"}} for j in range(4)]
    long = " Consider a training job whose input shapes change every step while the team needs exact reruns." * (i % 3)
    question = {
        "id": f"lab-{name}", "kind": kind,
        "stem": {"en": f"Synthetic question {name}: which setting of `torch.backends.cudnn` matters?{long}",
                 "zh": f"合成题 {name}：`torch.backends.cudnn` 的哪个设置起作用？"},
        "options": options, "points": 1 + i % 3, "difficulty": 1 + i % 3,
        "tags": ["alpha" if i % 2 else "beta"],
        "facts": [GPU_FACT if i % 7 == 3 else "lab-cudnn-exists"],
    }
    if i % 4 == 1:
        question["code"] = f"import torch\ntorch.backends.cudnn.benchmark = True  # {name}\nmodel = torch.nn.Conv2d(3, 8, 3)\n"
    return question


def _literal_question() -> dict:
    return {"id": "lab-literal", "kind": "single", "stem": LITERAL_STEM, "points": 2, "tags": ["beta"],
            "options": [{"text": LITERAL_OPTION, "correct": True, "why": "Markup characters #, $, * print as text."},
                        {"text": "plain <b>html</b> & co", "why": "An ampersand & angle brackets stay text too."}],
            "facts": ["lab-cudnn-exists"]}


def _module() -> dict:
    facts = [{"id": "lab-cudnn-exists", "claim": {"en": "lab claim: cudnn exists", "zh": "实验论断：cudnn 存在"},
              "check": {"exists": "torch.backends.cudnn"}},
             {"id": GPU_FACT, "claim": {"en": "lab claim: a GPU answers", "zh": "实验论断：GPU 会响应"},
              "check": {"expr": "torch.cuda.is_available()"}, "requires": ["cuda"],
              "source": "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py"}]
    return {"module": "torch.backends.quizlab", "order": 50, "facts": facts,
            "questions": [_question(i) for i in range(21)] + [_literal_question()]}


@pytest.fixture(scope="module")
def content_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("content")
    shutil.copy(ROOT / "content" / "cudnn.yaml", folder / "cudnn.yaml")
    (folder / "quizlab.yaml").write_text(yaml.safe_dump(_module(), allow_unicode=True, sort_keys=False),
                                         encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def lab_course(content_dir):
    return load_course(content_dir)


@pytest.fixture(scope="module")
def lab_verification(lab_course) -> Verification:
    """Every fact passed except the CUDA one, skipped as on a CPU machine."""
    results = {}
    for fact in lab_course.facts:
        skipped = fact.id == GPU_FACT
        results[fact.id] = FactResult(fact.id, "skip" if skipped else "pass", "", "x.yaml", 1,
                                      ("cuda",) if skipped else ())
    return Verification("2.13.0+cpu", "3.11.7", {"cuda": False}, "2026-03-04", results)


def _render(course, verification, lang, out_dir, **options):
    job = RenderJob(course, verification, lang, out_dir)
    return job, quiz.render(job, quiz.QuizOptions(**options))


@pytest.fixture(scope="module")
def en(lab_course, lab_verification, tmp_path_factory):
    return _render(lab_course, lab_verification, "en", tmp_path_factory.mktemp("en"), seed=SEED)


@pytest.fixture(scope="module")
def zh(lab_course, lab_verification, tmp_path_factory):
    return _render(lab_course, lab_verification, "zh", tmp_path_factory.mktemp("zh"), seed=SEED)


# ---------------------------------------------------------------- read back
def squash(text: str) -> str:
    """Text without whitespace: line wrapping in the PDF cannot break a match."""
    return "".join(text.split())


def plain(text: str) -> str:
    """What a content string looks like in the PDF: code spans lose their backticks."""
    return squash(text.replace("`", ""))


@functools.cache
def read(path: Path) -> "Pdf":
    """Each file is parsed once per test run (outputs are never rewritten under the same path)."""
    return Pdf(path)


class Pdf:
    def __init__(self, path: Path):
        self.reader = PdfReader(path)
        self.raw_pages = [page.extract_text() for page in self.reader.pages]
        self.pages = [squash(text) for text in self.raw_pages]
        self.text = "".join(self.pages)

    def page_of(self, needle: str) -> int:
        hits = [n for n, page in enumerate(self.pages) if needle in page]
        assert len(hits) == 1, f"{needle!r} on pages {hits}"
        return hits[0]


def sheet_order(pdf: Pdf, questions, lang: str) -> list[tuple[str, list[int]]]:
    """(question id, option indices in print order) in the order the sheet prints them."""
    placed = []
    for question in questions:
        start = pdf.text.index(plain(question.stem.get(lang)))
        positions = [pdf.text.index(plain(o.text.get(lang)), start) for o in question.options]
        placed.append((start, question.id, sorted(range(len(positions)), key=positions.__getitem__)))
    return [(qid, order) for _, qid, order in sorted(placed)]


def key_grid(pdf: Pdf, versions: int) -> dict[int, tuple[str, ...]]:
    cell = r"([A-Z](?:,[A-Z])*)"
    row = re.compile(rf"^(\d+)" + rf" {cell}" * versions + r"$")
    grid = {}
    for text in pdf.raw_pages:
        for line in text.splitlines():
            match = row.match(line.strip())
            if match:
                grid[int(match.group(1))] = match.groups()[1:]
    return grid


def _files(job, letters=VERSIONS):
    return {name: job.output("quiz", name) for name in [*(f".{v}.pdf" for v in letters), ".key.pdf", ".moodle.xml"]}


# -------------------------------------------------------------------- tests
def test_outputs_are_named_by_language_and_version(en, zh):
    for job, paths in (en, zh):
        assert paths == list(_files(job).values())
        assert [p.name for p in paths][:4] == [f"quiz.{job.lang}.{s}" for s in ("A.pdf", "B.pdf", "C.pdf", "key.pdf")]
        assert all(p.stat().st_size > 0 for p in paths)


def test_each_question_appears_exactly_once_per_version(en, lab_course):
    job, _ = en
    for letter in VERSIONS:
        pdf = read(job.output("quiz", f".{letter}.pdf"))
        for question in lab_course.questions:
            assert pdf.text.count(plain(question.stem.en)) == 1, (letter, question.id)
            for option in question.options:
                assert pdf.text.count(plain(option.text.en)) == 1, (letter, question.id, option.text.en)


def test_versions_shuffle_questions_and_options_but_keep_true_false_order(en, lab_course):
    job, _ = en
    orders = {v: sheet_order(read(job.output("quiz", f".{v}.pdf")), lab_course.questions, "en") for v in VERSIONS}
    question_orders = {tuple(qid for qid, _ in order) for order in orders.values()}
    assert len(question_orders) == len(VERSIONS)
    option_orders = {tuple(tuple(o) for _, o in sorted(order)) for order in orders.values()}
    assert len(option_orders) == len(VERSIONS)
    truefalse = {q.id for q in lab_course.questions if q.kind == "truefalse"}
    assert truefalse
    for order in orders.values():
        assert all(options == [0, 1] for qid, options in order if qid in truefalse)


def test_options_carry_letters_and_check_boxes_in_print_order(en, lab_course):
    job, _ = en
    pdf = read(job.output("quiz", ".B.pdf"))
    by_id = {q.id: q for q in lab_course.questions}
    for qid, order in sheet_order(pdf, lab_course.questions, "en"):
        for printed, index in enumerate(order):
            text = plain(by_id[qid].options[index].text.en)
            assert pdf.text[pdf.text.index(text) - 1] == "ABCD"[printed]


def test_key_letters_match_every_version(en, lab_course):
    job, _ = en
    grid = key_grid(read(job.output("quiz", ".key.pdf")), len(VERSIONS))
    assert sorted(grid) == list(range(1, len(lab_course.questions) + 1))
    by_id = {q.id: q for q in lab_course.questions}
    for column, letter in enumerate(VERSIONS):
        order = sheet_order(read(job.output("quiz", f".{letter}.pdf")), lab_course.questions, "en")
        for number, (qid, options) in enumerate(order, 1):
            question = by_id[qid]
            expected = ",".join("ABCD"[printed] for printed, index in enumerate(options)
                                if question.options[index].correct)
            assert grid[number][column] == expected, (letter, number, qid)


def test_key_explains_every_option_and_names_its_facts(en, lab_course):
    job, _ = en
    pdf = read(job.output("quiz", ".key.pdf"))
    questions = lab_course.questions
    starts = [pdf.text.index(f"{q.id}·") for q in questions]
    assert starts == sorted(starts), "the key explains the questions in teaching order"
    note = squash(job.unverified_note([GPU_FACT]))
    assert note == squash("not verified here (needs CUDA)")
    for question, start, end in zip(questions, starts, [*starts[1:], len(pdf.text)]):
        block = pdf.text[start:end]
        assert plain(question.stem.en) in block
        for option in question.options:
            assert plain(option.text.en) in block and plain(option.why.en) in block
        for fact_id in question.facts:
            assert plain(lab_course.fact(fact_id).claim.en) in block
        assert (note in block) == (GPU_FACT in question.facts), question.id
    assert pdf.text.count(note) == sum(GPU_FACT in q.facts for q in questions) > 0


def test_first_page_has_header_boxes_and_total_points(en, lab_course):
    job, _ = en
    total = sum(q.points for q in lab_course.questions)
    for letter in VERSIONS:
        first = read(job.output("quiz", f".{letter}.pdf")).pages[0]
        assert first.startswith(squash(f"torch.backends quiz Version {letter}"))
        for label in ("Name", "Class", "Date", "Score", f"/ {total}", "Tick the box"):
            assert squash(label) in first
        assert squash(f"{len(lab_course.questions)} questions · {total} points in total") in first
        assert squash("1. ") in first


def test_questions_are_numbered_with_points_and_scenarios_get_writing_space(en, lab_course):
    job, _ = en
    pdf = read(job.output("quiz", ".A.pdf"))
    by_id = {q.id: q for q in lab_course.questions}
    for number, (qid, _) in enumerate(sheet_order(pdf, lab_course.questions, "en"), 1):
        question = by_id[qid]
        unit = "pt" if question.points == 1 else "pts"
        assert f"{number}.{plain(question.stem.en)}" in pdf.text
        assert f"{question.points}{unit}" in pdf.text[pdf.text.index(plain(question.stem.en)):][:400]
    scenarios = sum(q.kind == "scenario" for q in lab_course.questions)
    assert pdf.text.count("Explainyourchoice:") == scenarios > 0


def test_no_question_runs_over_a_page_break(en, zh, lab_course):
    for job, _ in (en, zh):
        for letter in VERSIONS:
            pdf = read(job.output("quiz", f".{letter}.pdf"))
            assert len(pdf.pages) >= 4
            for question in lab_course.questions:
                page = pdf.page_of(plain(question.stem.get(job.lang)))
                for option in question.options:
                    assert pdf.page_of(plain(option.text.get(job.lang))) == page, (letter, question.id)
                if question.code:
                    for line in question.code.splitlines():
                        assert squash(line) in pdf.pages[page], (letter, question.id, line)


def test_every_page_carries_the_verification_footer(en, zh):
    for job, _ in (en, zh):
        for name in (".A.pdf", ".key.pdf"):
            pdf = read(job.output("quiz", name))
            assert all(squash(job.verified_line()) in page for page in pdf.pages)


def test_markup_characters_in_content_print_literally(en, zh):
    for job, _ in (en, zh):
        for name in (".A.pdf", ".key.pdf"):
            text = read(job.output("quiz", name)).text
            assert squash(LITERAL_STEM) in text
            assert squash(LITERAL_OPTION) in text
            assert squash("plain <b>html</b> & co") in text


def test_code_is_monospaced_and_coloured(en, lab_course):
    job, _ = en
    pdf = read(job.output("quiz", ".A.pdf"))
    with_code = next(q for q in lab_course.questions if q.code)
    page = pdf.reader.pages[pdf.page_of(plain(with_code.stem.en))]
    fonts = [str(font["/BaseFont"]) for font in page["/Resources"]["/Font"].values()]
    assert any("DejaVuSansMono" in font for font in fonts)
    stream = page.get_contents().get_data().decode("latin-1")
    colours = {tuple(c) for c in re.findall(r"([\d.]+) ([\d.]+) ([\d.]+) (?:scn|rg)\b", stream)}
    assert any(len(set(colour)) > 1 for colour in colours), "no coloured (non-grey) text on the code page"


def test_chinese_sheets_extract_as_chinese(zh, lab_course):
    job, _ = zh
    pdf = read(job.output("quiz", ".A.pdf"))
    assert pdf.pages[0].startswith(squash("torch.backends 测验 A 卷"))
    assert "姓名" in pdf.pages[0] and "得分" in pdf.pages[0]
    for question in lab_course.questions:
        assert pdf.text.count(plain(question.stem.get("zh"))) == 1
    first_page = pdf.reader.pages[0]
    fonts = [str(font["/BaseFont"]) for font in first_page["/Resources"]["/Font"].values()]
    assert any("NotoSansCJK" in font for font in fonts)
    key = read(job.output("quiz", ".key.pdf")).text
    assert squash("未在此环境验证（需要 CUDA）") in key and "实验论断：GPU会响应" in key


def test_chinese_key_matches_chinese_sheets(zh, lab_course):
    job, _ = zh
    grid = key_grid(read(job.output("quiz", ".key.pdf")), len(VERSIONS))
    by_id = {q.id: q for q in lab_course.questions}
    order = sheet_order(read(job.output("quiz", ".C.pdf")), lab_course.questions, "zh")
    for number, (qid, options) in enumerate(order, 1):
        expected = ",".join("ABCD"[p] for p, i in enumerate(options) if by_id[qid].options[i].correct)
        assert grid[number][2] == expected


def test_same_seed_gives_byte_identical_files(en, lab_course, lab_verification, tmp_path):
    job, paths = en
    _, again = _render(lab_course, lab_verification, "en", tmp_path / "again", seed=SEED)
    for first, second in zip(paths, again):
        assert first.read_bytes() == second.read_bytes(), first.name
    for path in paths[:4]:
        assert read(path).reader.metadata["/CreationDate"] == "D:20260304000000Z", "dated by the verification"
    _, other = _render(lab_course, lab_verification, "en", tmp_path / "other", seed=SEED + 1)
    assert other[0].read_bytes() != paths[0].read_bytes()


def test_moodle_xml_holds_every_question_with_per_option_feedback(en, lab_course):
    job, _ = en
    root = ET.parse(job.output("quiz", ".moodle.xml")).getroot()
    assert root.tag == "quiz"
    assert root[0].get("type") == "category"
    questions = {q.findtext("idnumber"): q for q in root.findall("question[@type='multichoice']")}
    assert list(questions) == [q.id for q in lab_course.questions]
    for question in lab_course.questions:
        element = questions[question.id]
        assert html.escape(question.stem.en.replace("`", "")) in re.sub(r"</?code>", "", element.findtext("questiontext/text"))
        assert element.findtext("defaultgrade") == str(question.points)
        answers = element.findall("answer")
        assert len(answers) == len(question.options)
        for answer, option in zip(answers, question.options):
            assert html.unescape(re.sub(r"<[^>]+>", "", answer.findtext("text"))) == option.text.en.replace("`", "")
            feedback = html.unescape(re.sub(r"<[^>]+>", "", answer.findtext("feedback/text")))
            assert feedback == option.why.en.replace("`", "")
        fractions = [float(a.get("fraction")) for a in answers]
        assert sum(f for f, o in zip(fractions, question.options) if o.correct) == pytest.approx(100, abs=0.001)
        single = question.kind in ("single", "truefalse")
        assert element.findtext("single") == ("true" if single else "false")
        tags = [t.findtext("text") for t in element.findall("tags/tag")]
        assert ("unverified::needs-cuda" in tags) == (GPU_FACT in question.facts)
        general = element.findtext("generalfeedback/text")
        for fact_id in question.facts:
            assert html.escape(lab_course.fact(fact_id).claim.en) in general
    literal = questions["lab-literal"].findtext("questiontext/text")
    assert html.escape(LITERAL_STEM) in literal and "<label>" not in literal


def test_count_picks_the_same_questions_for_every_version(lab_course, lab_verification, tmp_path):
    job, paths = _render(lab_course, lab_verification, "en", tmp_path, count=5, versions=2, seed=3, paper="letter",
                         title="Week 3 check")
    chosen = select(lab_course.questions, count=5, seed=3)
    others = [q for q in lab_course.questions if q not in chosen]
    for path in paths[:2]:
        pdf = Pdf(path)
        assert pdf.pages[0].startswith(squash("Week 3 check"))
        assert [round(float(x)) for x in pdf.reader.pages[0].mediabox[2:]] == [612, 792]
        assert all(pdf.text.count(plain(q.stem.en)) == 1 for q in chosen)
        assert not any(plain(q.stem.en) in pdf.text for q in others)
    assert sorted(key_grid(read(paths[2]), 2)) == [1, 2, 3, 4, 5]


def test_fewer_versions_remove_the_sheets_no_key_matches(lab_course, lab_verification, tmp_path):
    _, first = _render(lab_course, lab_verification, "en", tmp_path, versions=3, count=1)
    assert squash("1 question ·") in read(first[2]).pages[0]
    _, paths = _render(lab_course, lab_verification, "en", tmp_path, versions=2, count=2)
    assert sorted(tmp_path.iterdir()) == sorted(paths)


def test_selection_filters_and_shortfall(lab_course):
    questions = lab_course.questions
    beta = select(questions, tags=("beta",))
    assert beta == [q for q in questions if "beta" in q.tags]
    assert select(questions, tags=("alpha", "beta")) == [q for q in questions if q.tags]
    assert select(questions) == questions
    hard = select(questions, difficulty=3)
    assert hard and all(q.difficulty == 3 for q in hard)
    sample = select(questions, count=6, seed=11)
    assert sample == select(questions, count=6, seed=11)
    assert sample != select(questions, count=6, seed=12)
    assert sample == [q for q in questions if q in sample], "a sample keeps teaching order"
    with pytest.raises(SelectionError, match=rf"asked for 99 questions but only {len(beta)} match .*tag beta"):
        select(questions, tags=("beta",), count=99)
    with pytest.raises(SelectionError, match=r"^0 questions match the filters \(tag nothing, difficulty 2\)$"):
        select(questions, tags=("nothing",), difficulty=2)


def test_versions_come_from_the_seed_alone(lab_course):
    questions = lab_course.questions
    first = make_versions(questions, 3, seed=5)
    assert first == make_versions(questions, 3, seed=5)
    assert [v.letter for v in first] == list(VERSIONS)
    assert make_versions(questions, 1, seed=5)[0] == first[0], "adding versions leaves A as it was"
    assert make_versions(questions, 1, seed=6)[0] != first[0]


def test_missing_cjk_font_is_a_clear_error(lab_course, lab_verification, tmp_path, monkeypatch):
    monkeypatch.setattr(quiz, "CJK_FONT", "Noto Sans CJK Nowhere")
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


def test_default_options_build_the_shipped_content(job_for, course):
    job = job_for("en")
    paths = quiz.render(job)
    assert [p.name for p in paths] == ["quiz.en.A.pdf", "quiz.en.B.pdf", "quiz.en.C.pdf", "quiz.en.key.pdf",
                                       "quiz.en.moodle.xml"]
    for question in course.questions:
        assert read(paths[0]).text.count(plain(question.stem.en)) == 1
    assert len(key_grid(read(paths[3]), 3)) == len(course.questions)


def test_cli_writes_a_quiz_and_reports_a_shortfall_as_usage_error(content_dir, tmp_path):
    runner = CliRunner()
    out = tmp_path / "build"
    args = ["quiz", "--content", str(content_dir), "--out", str(out), "--lang", "zh", "--quiet"]
    done = runner.invoke(main, [*args, "--count", "4", "--versions", "2", "--seed", "9"])
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in out.glob("quiz.*")) == [
        "quiz.zh.A.pdf", "quiz.zh.B.pdf", "quiz.zh.key.pdf", "quiz.zh.moodle.xml"]
    short = runner.invoke(main, [*args, "--tag", "beta", "--count", "500"])
    assert short.exit_code == 2
    assert re.search(r"asked for 500 questions but only \d+ match", short.output)
