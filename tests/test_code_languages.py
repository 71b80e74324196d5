"""Code comments in the deck's language: a sample written as ``code: {en: ..., zh: ...}`` is one program
(the loader refuses a Chinese version that differs in anything but comments, on its line, with exit 2,
before anything is written), each deck shows its own language's comments (read back through Anki's own
library and python-pptx), and lint flags English prose in a sample written once."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from card_layout import PHONE, Frame, anki_sides, measure
from pptx import Presentation

from generator import ledger
from generator.loader import load_course
from generator.render import anki, slides
from generator.render.anki.notes import note_guid
from generator.render.base import RenderJob
from helpers import collapse_spaces, import_package, new_collection, torchdeck, verification_of, visible_text

COURSE = Path(__file__).resolve().parent / "fixtures" / "course"
LESSON_CODE = ("          import torch\n"
               "          print(torch.backends.cudnn.benchmark)  # False\n")
LESSON_EN = "# False until you turn it on"
LESSON_ZH = "# 打开之前一直是 False"
CARD_CODE = ("    code: |\n"
             "      import torch\n"
             "      print(torch.backends.cudnn.deterministic)\n")
CARD_EN = "# the switch for reproducible runs"
CARD_ZH = "# 可复现运行的开关"


def bilingual_course(folder: Path, zh_lesson_line: str = "print(torch.backends.cudnn.benchmark)") -> Path:
    """The fixture course with its cudnn lesson's sample and code card written per language; the zh lesson
    sample's code line is ``zh_lesson_line``."""
    shutil.copytree(COURSE, folder)
    path = folder / "cudnn.yaml"
    text = path.read_text(encoding="utf-8")
    assert LESSON_CODE in text and CARD_CODE in text  # the fixture still reads as these edits expect
    text = text.replace("      - code: |\n" + LESSON_CODE, (
        "      - code:\n"
        "          en: |\n"
        "            import torch\n"
        f"            print(torch.backends.cudnn.benchmark)  {LESSON_EN}\n"
        "          zh: |\n"
        "            import torch\n"
        f"            {zh_lesson_line}  {LESSON_ZH}\n"))
    text = text.replace(CARD_CODE, (
        "    code:\n"
        "      en: |\n"
        "        import torch\n"
        f"        {CARD_EN}\n"
        "        print(torch.backends.cudnn.deterministic)\n"
        "      zh: |\n"
        "        import torch\n"
        f"        {CARD_ZH}\n"
        "        print(torch.backends.cudnn.deterministic)\n"))
    path.write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The bilingual course's Anki packages and slide decks, en and zh, from the fixture's recorded run."""
    root = tmp_path_factory.mktemp("code-languages")
    content = bilingual_course(root / "content")
    course = load_course(content)
    (run,) = ledger.load(content, course)
    verification = verification_of(run, course)
    out = {}
    for lang in ("en", "zh"):
        job = RenderJob(course, verification, lang, root / "build")
        (package,) = anki.render(job, anki.AnkiOptions(root / f"deck.{lang}.lock"))
        (deck,) = slides.render(job)
        out[lang] = (package, deck)
    return root, out


# ------------------------------------------------------------------ the loader
def test_a_zh_version_that_is_another_program_is_refused_on_its_line(tmp_path):
    content = bilingual_course(tmp_path / "content", zh_lesson_line="print(torch.backends.cudnn.enabled)")
    out = tmp_path / "build"
    result = torchdeck("deck", "--content", content, "--out", out)
    lines = (content / "cudnn.yaml").read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(lines, 1) if "cudnn.enabled)  # 打开" in text)
    assert result.exit_code == 2, result.output
    assert f"cudnn.yaml:{line}:" in result.output and "only comments may differ" in result.output
    assert not out.exists() or not any(out.iterdir())


def test_versions_that_differ_in_comments_and_their_spacing_load(tmp_path):
    content = bilingual_course(tmp_path / "content")
    course = load_course(content)
    (card,) = [card for card in course.cards if card.id == "g-defaults-code"]
    assert CARD_ZH in card.code_in("zh") and CARD_EN in card.code_in("en") and CARD_ZH not in card.code_in("en")
    (plain,) = [example for lesson in course.lessons for example in lesson.code
                if "is_available" in example.code_in("en")]
    assert plain.code_in("zh") == plain.code_in("en")  # written once: the same in every deck


# ------------------------------------------------------------------ the outputs
def _code_note_text(package: Path, lang: str, folder: Path) -> str:
    col = new_collection(folder)
    try:
        import_package(col, package)
        (note,) = [note for note in map(col.get_note, col.find_notes("")) if note.guid == note_guid(lang, "g-defaults-code")]
        (card,) = note.cards()
        return collapse_spaces(visible_text(card.question()))
    finally:
        col.close()


@pytest.mark.parametrize("lang, shown, hidden", [("zh", CARD_ZH, CARD_EN), ("en", CARD_EN, CARD_ZH)])
def test_each_anki_deck_shows_the_code_card_comment_in_its_language(built, tmp_path, lang, shown, hidden):
    _, decks = built
    text = _code_note_text(decks[lang][0], lang, tmp_path / "col")
    assert shown in text and hidden not in text
    assert "print(torch.backends.cudnn.deterministic)" in text


def test_the_zh_code_card_fits_a_phone(built, tmp_path):
    """Chromium lays the zh code card out at 390 px: nothing of it runs past the card's edge."""
    root, decks = built
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, decks["zh"][0])
        guid = note_guid("zh", "g-defaults-code")
        sides = [side for side in anki_sides(col, {note.guid: note.guid for note in
                                                   (col.get_note(n) for n in col.find_notes(""))})
                 if side.key.startswith(guid)]
        media = Path(col.media.dir())
        measured = measure(sides, (Frame(PHONE, False),), media)
    finally:
        col.close()
    assert sides and CARD_ZH in visible_text(sides[0].body)
    for side in measured[Frame(PHONE, False).name].values():
        assert side["past_edge"] == [], side


@pytest.mark.parametrize("lang, shown, hidden", [("zh", LESSON_ZH, LESSON_EN), ("en", LESSON_EN, LESSON_ZH)])
def test_each_slide_deck_shows_the_lesson_comment_in_its_language(built, lang, shown, hidden):
    _, decks = built
    prs = Presentation(str(decks[lang][1]))
    text = "\n".join(paragraph.text for slide in prs.slides for shape in slide.shapes if shape.has_text_frame
                     for paragraph in shape.text_frame.paragraphs)
    assert shown in text and hidden not in text


# ------------------------------------------------------------------ lint
def _lint(tmp_path, code, language: str = "python"):
    module = (
        "module: torch.backends.t\n"
        "title: {en: T, zh: T}\n"
        "summary: {en: S, zh: S}\n"
        "facts:\n"
        "  - id: f\n"
        "    claim: {en: c, zh: c}\n"
        "    check: {exists: torch}\n"
        "cards:\n"
        "  - id: c\n"
        "    kind: code\n"
        "    front: {en: What does this print?, zh: 这段代码输出什么？}\n"
        f"    language: {language}\n"
        f"    code:{code}"
        "    back: {en: An answer., zh: 一个答案。}\n"
        "    facts: [f]\n")
    (tmp_path / "t.yaml").write_text(module, encoding="utf-8")
    lines = module.splitlines()
    return torchdeck("lint", "--content", tmp_path), lines


def test_lint_flags_english_prose_in_a_comment_of_code_written_once(tmp_path):
    result, lines = _lint(tmp_path, " |\n      import torch\n      print(torch.backends.cudnn.enabled)  # on a CPU build\n")
    line = next(number for number, text in enumerate(lines, 1) if "# on a CPU build" in text)
    assert result.exit_code == 1
    assert f"t.yaml:{line}: c.code: '# on a CPU build': English words (on, build)" in result.output


@pytest.mark.parametrize("comment", ["# True", "# 'tf32'", "# (False, True)", "# 0.5", "# torch.float32",
                                     "#   omp_get_max_threads() : 8"])
def test_lint_leaves_a_comment_without_prose_alone(tmp_path, comment):
    result, _ = _lint(tmp_path, f" |\n      import torch\n      print(torch.backends.cudnn.enabled)  {comment}\n")
    assert "English words" not in result.output, result.output


def test_lint_flags_ascii_punctuation_beside_chinese_in_a_zh_comment(tmp_path):
    code = ("\n      en: |\n        print(1)  # one, then two\n"
            "      zh: |\n        print(1)  # 先一, 再二\n")
    result, lines = _lint(tmp_path, code)
    line = next(number for number, text in enumerate(lines, 1) if "# 先一" in text)
    assert result.exit_code == 1
    assert f"t.yaml:{line}: c.code: '一,' in a Chinese comment: ASCII ',' beside Chinese, write '，'" in result.output


def test_lint_flags_a_zh_version_left_in_english(tmp_path):
    code = "\n      en: |\n        print(1)  # one\n      zh: |\n        print(1)  # one\n"
    result, _ = _lint(tmp_path, code)
    assert result.exit_code == 1 and "the zh version is the en one" in result.output
