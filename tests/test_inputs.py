"""Bad input is found before anything is written (exit 2 with file:line, or a clear option error); outputs
go through links and into devices; a build leaves the content's deck.lock alone unless asked; any emoji
of user content prints."""
from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from generator import ledger
from generator.atomic import atomic_write_text
from generator.fonts import font_characters, system_emoji_font
from helpers import torchdeck

MODULE = textwrap.dedent("""\
    module: torch.backends.cudnn
    title: {en: cuDNN, zh: cuDNN}
    lessons:
      - id: i-lesson
        title: {en: LESSON_TITLE, zh: 开关}
        notes: {en: Say this, zh: 这样讲}
        ask: {en: Ask that, zh: 问这个}
        facts: [i-enabled]
    facts:
      - id: i-enabled
        claim: {en: cudnn.enabled is True by default, zh: cudnn.enabled 默认为 True}
        check: {default: torch.backends.cudnn.enabled, equals: true}
    cards:
      - {id: i-card, kind: basic, front: {en: enabled?, zh: enabled？}, back: "True", facts: [i-enabled]}
    questions:
      - id: i-q
        kind: truefalse
        stem: {en: "STEM cuDNN is enabled by default.", zh: "cuDNN 默认启用。"}
        facts: [i-enabled]
        options:
          - {text: {en: "True", zh: 对}, correct: true, why: {en: it defaults to True, zh: 默认为 True}}
          - {text: {en: "False", zh: 错}, why: {en: it is on, zh: 它是开启的}}
""")


def module(title: str = "Flags", stem: str = "") -> str:
    return MODULE.replace("LESSON_TITLE", title).replace("STEM ", stem)


WORKSHOPS = textwrap.dedent("""\
    workshops:
      - id: short
        title: {en: "WORKSHOP_TITLE", zh: "短"}
        summary: {en: "A short one 🦩", zh: "短的"}
        agenda:
          - lesson: i-lesson
            questions: [i-q]
""")


@pytest.fixture
def content(tmp_path):
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "cudnn.yaml").write_text(module(), encoding="utf-8")
    return folder


def written(out: Path) -> list[str]:
    """What a build left in ``out``, its caches aside."""
    return sorted(p.name for p in out.iterdir() if p.name != ".cache") if out.exists() else []


# ------------------------------------------------------------------ option values
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "0", "-1", "100000"])
@pytest.mark.parametrize("command", [("verify",), ("build",), ("samples",), ("ledger", "export", "x.py")])
def test_a_timeout_is_finite_positive_seconds(content, tmp_path, command, value):
    out = tmp_path / "build"
    extra = ("--out", out) if command[0] != "ledger" else ()
    result = torchdeck(*command, "--content", content, *extra, "--timeout", value)
    assert result.exit_code == 2 and "Invalid value for '--timeout'" in result.output, result.output
    assert not out.exists() and not Path("x.py").exists()


def test_ledger_import_date_must_be_a_day(content, tmp_path):
    results = tmp_path / "results.jsonl"
    results.write_text("")
    for date in ("yesterday", "2026-13-01", "2026-1-1", "20261101"):
        result = torchdeck("ledger", "import", results, "--content", content, "--date", date)
        assert result.exit_code == 2 and "Invalid value for --date" in result.output, result.output
        assert "YYYY-MM-DD" in result.output
    assert not (content / "ledger").exists()


def test_a_ledger_file_with_a_bad_date_is_located_before_anything_is_written(content, tmp_path):
    path = ledger.write_run(content, ledger.Run("2.99.0", "3.11.0", "yesterday", {}, {}, {}))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"date"' in text)
    for command in ("build", "quiz"):
        result = torchdeck(command, "--content", content, "--out", tmp_path / "build", "--lang", "en")
        assert result.exit_code == 2, result.output
        assert f"{path}:{line}:1: not a ledger run (date 'yesterday' is not a day as YYYY-MM-DD)" in result.output
        assert "Traceback" not in result.output and written(tmp_path / "build") == []
    assert torchdeck("ledger", "show", "--content", content).exit_code == 2


@pytest.mark.parametrize("mod", ["1e400", "NaN", "-1", "true", '"5"', "1.5", "99999999999999999999"])
def test_a_lock_value_that_is_no_time_is_located_before_anything_is_written(content, tmp_path, mod):
    lock = content / "deck.lock"
    lock.write_text('{\n  "version": 1,\n  "models": {},\n  "notes": {\n    "en": {\n'
                    f'      "i-card": {{"hash": "h", "mod": {mod}}}\n    }}\n  }}\n}}\n')
    before = lock.read_bytes()
    for command in ("deck", "build"):
        result = torchdeck(command, "--content", content, "--out", tmp_path / "build", "--lang", "en")
        assert result.exit_code == 2 and f"{lock}:6: not a deck manifest (the mod of 'i-card'" in result.output, \
            result.output
        assert written(tmp_path / "build") == [] and lock.read_bytes() == before


@pytest.mark.parametrize("command", [("build",), ("quiz",), ("site",), ("handout", "--workshop", "short")])
def test_a_bad_source_date_epoch_is_found_before_anything_is_written(content, tmp_path, command):
    (content / "workshops.yaml").write_text(WORKSHOPS.replace("WORKSHOP_TITLE", "Short"), encoding="utf-8")
    for epoch in ("yesterday", "1e9", "99999999999999999"):
        result = torchdeck(*command, "--content", content, "--out", tmp_path / "build", "--lang", "en",
                     env={"SOURCE_DATE_EPOCH": epoch})
        assert result.exit_code == 2 and f"SOURCE_DATE_EPOCH={epoch!r} is not a count of seconds" in result.output
        assert written(tmp_path / "build") == []


# ------------------------------------------------------------------ content the outputs cannot show
def test_a_title_too_long_for_a_slide_is_located_before_anything_is_written(content, tmp_path):
    (content / "cudnn.yaml").write_text(module(title="A title that goes on " * 20), encoding="utf-8")
    for command in ("build", "slides"):
        result = torchdeck(command, "--content", content, "--out", tmp_path / "build", "--lang", "en")
        assert result.exit_code == 2, result.output
        assert f"{content / 'cudnn.yaml'}:4:1: i-lesson.title: the title 'A title that goes on" in result.output
        assert "does not fit a slide's title box even at 14 pt (en); shorten it" in result.output
        assert written(tmp_path / "build") == [] and not (content / "deck.lock").exists()


needs_emoji_font = pytest.mark.skipif(system_emoji_font() is None,
                                      reason="needs the system's Noto Color Emoji (fonts-noto-color-emoji)")


@needs_emoji_font
def test_any_emoji_of_user_content_prints(content, tmp_path):
    """🦩 and 👩‍💻 are not in the cut torchdeck ships: the system's emoji font draws them."""
    from pypdf import PdfReader

    (content / "cudnn.yaml").write_text(module(title="Flags 🦩", stem="🦩 👩‍💻 "), encoding="utf-8")
    out = tmp_path / "build"
    result = torchdeck("build", "--content", content, "--out", out, "--lang", "en")
    assert result.exit_code == 0, result.output
    assert {"quiz-s0.en.A.pdf", "torch-backends.en.pptx", "torch-backends.en.apkg"} <= set(written(out))
    pdf = PdfReader(out / "quiz-s0.en.A.pdf")
    assert "🦩" in pdf.pages[0].extract_text()
    fonts = [f.get_object() for page in pdf.pages for f in page["/Resources"]["/Font"].values()]
    assert any(font["/Subtype"] == "/Type3" for font in fonts)  # the colour glyphs


@needs_emoji_font
def test_any_emoji_of_user_content_prints_in_a_handout(content, tmp_path):
    (content / "cudnn.yaml").write_text(module(title="Flags 🦩 👩‍💻"), encoding="utf-8")
    (content / "workshops.yaml").write_text(WORKSHOPS.replace("WORKSHOP_TITLE", "Short 🦩"), encoding="utf-8")
    out = tmp_path / "build"
    result = torchdeck("handout", "--content", content, "--out", out, "--lang", "en", "--workshop", "short")
    assert result.exit_code == 0, result.output
    assert (out / "workshop-short.en.handout.pdf").stat().st_size > 0


def test_a_workshop_title_too_long_for_its_title_slide_is_located(content, tmp_path):
    (content / "workshops.yaml").write_text(WORKSHOPS.replace("WORKSHOP_TITLE", "A workshop that goes on " * 20),
                                            encoding="utf-8")
    result = torchdeck("slides", "--content", content, "--out", tmp_path / "build", "--lang", "en", "--workshop", "short")
    assert result.exit_code == 2, result.output
    assert f"{content / 'workshops.yaml'}:2:1: short.title: the title 'A workshop that goes on" in result.output
    assert "even at 20 pt (en)" in result.output and written(tmp_path / "build") == []


def test_an_emoji_in_no_font_is_located_before_anything_is_written(content, tmp_path):
    nowhere = "\U0001faff"  # in the emoji block, in no font (not assigned)
    assert system_emoji_font() is None or 0x1FAFF not in font_characters(system_emoji_font())
    (content / "cudnn.yaml").write_text(module(stem=f"{nowhere} "), encoding="utf-8")
    for command in ("build", "quiz"):
        result = torchdeck(command, "--content", content, "--out", tmp_path / "build", "--lang", "en")
        assert result.exit_code == 2, result.output
        assert f"{content / 'cudnn.yaml'}:18:1: the emoji {nowhere} (U+1FAFF) are in no font here" in result.output
        assert written(tmp_path / "build") == []


# ------------------------------------------------------------------ what checks say
def test_a_surrogate_in_a_checks_message_is_written_escaped(content, tmp_path):
    text = module().replace("check: {default: torch.backends.cudnn.enabled, equals: true}",
                            'check: {expr: "getattr(torch, chr(0xd800))"}')
    (content / "cudnn.yaml").write_text(text, encoding="utf-8")
    out = tmp_path / "build"
    result = torchdeck("verify", "--content", content, "--out", out, "--json", out / "r.json",
                 "--report", out / "r.md", "--record")
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "\\ud800" in (out / "r.json").read_text(encoding="utf-8") and "\\ud800" in (out / "r.md").read_text()
    (recorded,) = (content / "ledger").glob("*.json")
    assert "\\ud800" in recorded.read_text(encoding="utf-8")


# ------------------------------------------------------------------ where outputs go
def test_json_and_report_write_through_a_link_and_into_a_fifo(content, tmp_path):
    out = tmp_path / "build"
    real = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(real)
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    result = torchdeck("verify", "--content", content, "--out", out, "--json", link, "--report", fifo)
    reader.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and json.loads(real.read_text())["torch"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got and "i-enabled" in got[0]


def test_a_part_file_whose_writer_is_gone_is_removed(tmp_path):
    target = tmp_path / "deck.apkg"
    dead = tmp_path / ".deck.apkg.999999999.abc123.part"  # beyond any pid: that writer is gone
    alive = tmp_path / f".deck.apkg.{os.getppid()}.abc123.part"  # a live writer's: kept
    other = tmp_path / ".deck.apkg.x.999999999.abc123.part"  # another file's ("deck.apkg.x")
    for part in (dead, alive, other):
        part.write_text("half")
    atomic_write_text(target, "whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, alive.name, other.name])


# ------------------------------------------------------------------ the lock
def test_a_build_with_another_torch_leaves_the_contents_lock_alone(content, tmp_path):
    out = tmp_path / "build"
    first = torchdeck("deck", "--content", content, "--out", out, "--lang", "en")  # this torch: the content's lock
    assert first.exit_code == 0, first.output
    lock = (content / "deck.lock").read_bytes()
    (content / "cudnn.yaml").write_text(module().replace("front: {en: enabled?", "front: {en: on?"), encoding="utf-8")
    other = tmp_path / "other"
    for _ in range(2):
        result = torchdeck("deck", "--content", content, "--out", other, "--lang", "en", "--python", sys.executable)
        assert result.exit_code == 0, result.output
        assert (content / "deck.lock").read_bytes() == lock
        assert (other / "deck.lock").exists()
    apkg = (other / "torch-backends.en.apkg").read_bytes()
    again = torchdeck("deck", "--content", content, "--out", other, "--lang", "en", "--python", sys.executable)
    assert again.exit_code == 0 and (other / "torch-backends.en.apkg").read_bytes() == apkg  # the out lock's mods
    asked = torchdeck("deck", "--content", content, "--out", out, "--lang", "en", "--no-update-lock")
    assert asked.exit_code == 0 and (content / "deck.lock").read_bytes() == lock
    updated = torchdeck("deck", "--content", content, "--out", out, "--lang", "en", "--python", sys.executable,
                  "--update-lock")
    assert updated.exit_code == 0 and (content / "deck.lock").read_bytes() != lock


def test_fail_under_is_a_number(content):
    result = torchdeck("coverage", "--content", content, "--fail-under", "nan")
    assert result.exit_code == 2 and "'nan' is not a number" in result.output


@pytest.mark.parametrize("change, message", [
    (lambda data: data["facts"]["i-enabled"].update(status="maybe"), "the status of 'i-enabled' is 'maybe'"),
    (lambda data: data.update(facts=[1]), "not a ledger run"),
    (lambda data: data.update(date=20261101), "date 20261101 is not a day"),
])
def test_a_ledger_value_of_the_wrong_kind_is_located(content, tmp_path, change, message):
    from generator.loader import load_course

    fact = load_course(content).facts[0]
    path = ledger.write_run(content, ledger.Run("2.99.0", "3.11.0", "2026-11-01", {}, {},
                                                {fact.id: ledger.FactRecord(fact.check_key(), "pass")}))
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=1))
    result = torchdeck("build", "--content", content, "--out", tmp_path / "build", "--lang", "en")
    assert result.exit_code == 2 and f"{path}:" in result.output and message in result.output, result.output
    assert "Traceback" not in result.output and written(tmp_path / "build") == []


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_json_into_a_device_keeps_the_device(content, tmp_path):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    result = torchdeck("verify", "--content", content, "--out", tmp_path / "build", "--json", null, "--report", null)
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.stat(null).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["build", "content",
                                                                                                 "null"]


def test_an_installed_courses_lock_is_never_written(content, tmp_path, monkeypatch):
    from generator import resources

    monkeypatch.setattr(resources, "is_packaged", lambda folder: Path(folder) == content)
    refused = torchdeck("deck", "--content", content, "--out", tmp_path / "build", "--lang", "en", "--update-lock")
    assert refused.exit_code == 2 and "never written to" in refused.output and written(tmp_path / "build") == []
    result = torchdeck("deck", "--content", content, "--out", tmp_path / "build", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert not (content / "deck.lock").exists() and (tmp_path / "build" / "deck.lock").exists()
