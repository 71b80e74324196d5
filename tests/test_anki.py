"""The Anki deck, proven through Anki's own library on scratch collections.

Shipped content: import, card counts, rendering, decks, tags, due order, re-import.
A small content of our own in a temp folder: escaping, teaching order, and the
update cycle (answer cards, edit one, rebuild, re-import) that must keep reviews.
"""
from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import shutil
import textwrap
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from anki.collection import Collection
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont

from generator.diagrams import DIAGRAM_NAMES, Variant, card_diagram_filename
from generator.diagrams.scenes import SCENES, cjk_characters
from generator.errors import BuildError
from generator.fonts import diagram_cjk_font
from generator.loader import load_course
from generator.render import anki
from generator.render.anki import lock as anki_lock
from generator.render.anki import notes as anki_notes
from generator.render.anki.lock import read_manifest
from generator.render.anki.models import NOTE_TYPES, models_snapshot, stable_id
from generator.render.anki.notes import ROOT_DECK, build_notes, deck_name, note_guid
from generator.render.anki.spread import NEW_PER_DAY
from generator.render.base import RenderJob
from generator.render.html import breakable, cloze, code_block, inline, link
from generator.verify import verify
from generator.wording import WORDS
from helpers import as_on_card, collapse_spaces, import_package, introduction_days, new_collection, visible_text

SNAPSHOT = Path(__file__).parent / "snapshots" / "anki_models.json"
# what a card's footer says where every fact behind it passed here, and where one was skipped here
VERIFIED_HERE = {"en": "verified on torch {} (here)", "zh": "已验证：torch {}（本机）"}
NOT_VERIFIED_HERE = {"en": "⚠ not verified here (needs ", "zh": "⚠ 未在此环境验证（需要 "}


# ------------------------------------------------------------------ helpers
def render_problems(col: Collection, card_html: str) -> list[str]:
    markers = (col.tr.card_template_rendering_front_side_problem(),
               col.tr.card_template_rendering_back_side_problem(),
               col.tr.card_template_rendering_empty_front(), "templates/errors.html")
    return [marker for marker in markers if marker in card_html]


def expected_cards(card) -> int:
    if card.kind == "reverse":
        return 2
    if card.kind == "cloze":
        return len(set(re.findall(r"\{\{c(\d+)::", card.text.en)))
    return 1


def notes_by_guid(col: Collection) -> dict:
    return {col.get_note(nid).guid: col.get_note(nid) for nid in col.find_notes("")}


def card_states(col: Collection) -> dict:
    return {cid: (c.ivl, c.due, c.type, c.queue, c.reps) for cid in col.find_cards("")
            for c in [col.get_card(cid)]}


def answer_first_cards(col: Collection, count: int) -> list[int]:
    col.decks.select(col.decks.id_for_name(ROOT_DECK))
    answered = []
    for _ in range(count):
        card = col.sched.getCard()
        col.sched.answerCard(card, 4)
        answered.append(card.id)
    return answered


# --------------------------------------------------------- shipped content
@pytest.fixture(scope="module")
def shipped(course, verification, tmp_path_factory):
    """Both packages of the shipped content, each imported into its own scratch collection."""
    folder = tmp_path_factory.mktemp("anki-shipped")
    built = {}
    for lang in ("en", "zh"):
        job = RenderJob(course, verification, lang, folder / "build")
        (path,) = anki.render(job, anki.AnkiOptions(folder / "deck.lock"))
        col = new_collection(folder / f"col-{lang}")
        log = import_package(col, path)
        built[lang] = {"job": job, "path": path, "col": col, "log": log}
    yield built
    for entry in built.values():
        entry["col"].close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_package_path_and_counts(shipped, course, lang):
    entry = shipped[lang]
    col = entry["col"]
    assert entry["path"] == entry["job"].out_dir / f"torch-backends.{lang}.apkg"
    assert len(entry["log"].new) == len(course.cards) == col.note_count()
    assert col.card_count() == sum(expected_cards(card) for card in course.cards)
    assert len(entry["log"].conflicting) == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_card_renders_with_its_text(shipped, course, lang):
    col, job = shipped[lang]["col"], shipped[lang]["job"]
    cards_by_guid = {note_guid(lang, card.id): card for card in course.cards}
    for card_id in col.find_cards(""):
        anki_card = col.get_card(card_id)
        question, answer = anki_card.question(), anki_card.answer()
        assert not render_problems(col, question) and not render_problems(col, answer), card_id
        card = cards_by_guid[anki_card.note().guid]
        shown_q, shown_a = collapse_spaces(visible_text(question)), collapse_spaces(visible_text(answer))
        for text in _expected_texts(job, card, anki_card.ord):
            assert as_on_card(text) in shown_a, (card.id, text)
        prompt = _prompt_text(job, card, anki_card.ord)
        assert as_on_card(prompt) in shown_q, (card.id, prompt)
        if any(job.verification.results[fact_id].status == "skip" for fact_id in card.facts):
            assert NOT_VERIFIED_HERE[lang] in shown_a, card.id
        else:
            assert VERIFIED_HERE[lang].format(job.verification.torch) in shown_a, card.id


def _prompt_text(job, card, ordinal):
    if card.kind == "reverse" and ordinal == 1:
        return job.t(card.back)
    if card.kind == "cloze":
        return re.split(r"\{\{c\d+::", job.t(card.text))[0]
    return job.t(card.question if card.kind == "mcq" else card.front)


def _expected_texts(job, card, ordinal):
    if card.kind in ("basic", "reverse"):
        return [job.t(card.front), job.t(card.back)]
    if card.kind == "cloze":
        return [answer for answer in re.findall(r"\{\{c\d+::([^:}]+)", job.t(card.text))]
    if card.kind == "mcq":
        return [job.t(o.text) for o in card.options] + [job.t(o.why) for o in card.options]
    return [job.t(card.front), job.t(card.back)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_decks_follow_modules(shipped, course, lang):
    col = shipped[lang]["col"]
    names = {d.name for d in col.decks.all_names_and_ids()}
    assert ROOT_DECK in names
    expected = [f"{ROOT_DECK}::{number:02d} {module.name}" for number, module in enumerate(course.modules, 1)
                if module.cards]
    assert [deck_name(module, course) for module in course.modules if module.cards] == expected
    assert sorted(expected) == expected and set(expected) <= names  # alphabetical is teaching order
    by_guid = {note_guid(lang, card.id): module for module in course.modules for card in module.cards}
    for card_id in col.find_cards(""):
        anki_card = col.get_card(card_id)
        assert col.decks.name(anki_card.did) == deck_name(by_guid[anki_card.note().guid], course)


def test_root_deck_says_what_it_was_verified_against(shipped):
    col, job = shipped["en"]["col"], shipped["en"]["job"]
    description = col.decks.by_name(ROOT_DECK)["desc"]
    counts = job.verification.counts()
    assert f"verified against torch {job.verification.torch} on {job.verification.date}" in description
    assert f"({counts['pass']} pass, {counts['skip']} skip)" in description


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_root_deck_says_what_the_explanation_mark_means(shipped, lang):
    """As Anki imported it: the root deck's description (the deck overview a learner opens first) says in the
    deck's language what ℹ means, since its cards show one; then where the deck was verified."""
    col, job = shipped[lang]["col"], shipped[lang]["job"]
    assert any("ℹ" in field for nid in col.find_notes("") for field in col.get_note(nid).fields)
    lines = col.decks.by_name(ROOT_DECK)["desc"].split("<br>")
    assert lines[1:] == [WORDS[lang]["explained"], job.verified_line()]


def test_tags_are_hierarchical_and_spaceless(shipped, course):
    col, job = shipped["en"]["col"], shipped["en"]["job"]
    by_guid = {note_guid("en", card.id): (module, card) for module in course.modules for card in module.cards}
    version = job.verification.torch.split("+")[0]
    for guid, note in notes_by_guid(col).items():
        module, card = by_guid[guid]
        assert all(" " not in tag for tag in note.tags)
        assert {module.module.replace(".", "::"), f"kind::{card.kind}", f"difficulty::{card.difficulty}"} <= set(note.tags)
        results = [job.verification.results[fact_id] for fact_id in card.facts]
        needs = [f"unverified::needs-{need}" for r in results if r.status == "skip" for need in r.needs]
        assert set(needs or [f"verified::torch-{version}"]) <= set(note.tags), card.id


def test_unverified_cards_say_so(shipped, course):
    """The shipped content has a card resting on a fact that needs cuDNN; it must be marked."""
    job, col = shipped["en"]["job"], shipped["en"]["col"]
    skipped = {fact_id for fact_id, result in job.verification.results.items() if result.status == "skip"}
    unverified = [card for card in course.cards if skipped & set(card.facts)]
    assert unverified, "the shipped content should hold at least one GPU-only card"
    notes = notes_by_guid(col)
    for card in unverified:
        note = notes[note_guid("en", card.id)]
        assert NOT_VERIFIED_HERE["en"] in note["Verified"], card.id
        needs = {need for fact_id in skipped & set(card.facts) for need in job.verification.results[fact_id].needs}
        assert {f"unverified::needs-{need}" for need in needs} <= set(note.tags), card.id


def test_new_cards_arrive_in_teaching_order(shipped, course, tmp_path):
    """Anki's default gathering introduces the modules in teaching order, each module's notes in the
    order ``build_notes`` gives them, and a note's sibling cards on different days wherever the
    module has at least 20 notes after it."""
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, shipped["en"]["path"])
        introduced = [(day, col.get_card(cid).note().guid) for day, cids in enumerate(introduction_days(col))
                      for cid in cids]  # (day, note) per card, in the order Anki shows them
    finally:
        col.close()
    assert len(introduced) == sum(expected_cards(card) for card in course.cards)
    module_of = {note_guid("en", card.id): index
                 for index, module in enumerate(course.modules) for card in module.cards}
    first_seen = {}
    for position, (_, guid) in enumerate(introduced):
        first_seen.setdefault(module_of[guid], position)
    modules = sorted(first_seen)
    late = [(a, b) for a in modules for b in modules if a < b and first_seen[b] < first_seen[a]]
    assert len(modules) == len([m for m in course.modules if m.cards]) and late == []
    notes = build_notes(shipped["en"]["job"])
    days_of: dict[str, list[int]] = {}
    for day, guid in introduced:
        days_of.setdefault(guid, []).append(day)
    for deck in dict.fromkeys(note.deck for note in notes):
        in_order = [note.guid for note in notes if note.deck == deck]
        assert [guid for guid in dict.fromkeys(g for _, g in introduced) if guid in in_order] == in_order
        for place, guid in enumerate(in_order):
            if len(in_order) - 1 - place >= NEW_PER_DAY * (len(days_of[guid]) - 1):
                assert len(set(days_of[guid])) == len(days_of[guid]), (deck, guid, days_of[guid])


def test_update_from_unnumbered_decks_keeps_notes_and_reviews(small, tmp_path, monkeypatch):
    """A collection holding the deck as published before the decks were numbered (top-level cards in
    the root deck, ``<root>::cudnn``), reviewed, then updated through Anki's importer with default options:
    no note is duplicated and every review and schedule is kept. Anki leaves existing cards in the
    deck they are in (it moves no card on update) and adds the numbered decks empty; the README's
    remedy (Browse, Change Deck) moves them, reviews and all."""
    def unnumbered(module, course):
        return ROOT_DECK if module.module == "torch.backends" else f"{ROOT_DECK}::{module.name}"

    old_lock, new_lock = tmp_path / "old.lock", tmp_path / "new.lock"  # the new build's notes are all newer
    with monkeypatch.context() as patch:
        patch.setattr(anki_notes, "deck_name", unnumbered)
        patch.setattr(anki, "deck_name", unnumbered)
        (old,) = anki.render(RenderJob(small["course"], small["verification"], "en", tmp_path / "old"),
                             anki.AnkiOptions(old_lock))
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, old)
        old_decks = {col.decks.name(col.get_card(cid).did) for cid in col.find_cards("")}
        assert old_decks == {ROOT_DECK, f"{ROOT_DECK}::cudnn"}
        answer_first_cards(col, 3)
        reviews, states, notes = col.db.scalar("select count() from revlog"), card_states(col), col.note_count()
        an_hour_later = time.time() + 3600
        monkeypatch.setattr(anki_lock, "time", SimpleNamespace(time=lambda: an_hour_later))
        (new,) = anki.render(RenderJob(small["course"], small["verification"], "en", tmp_path / "new"),
                             anki.AnkiOptions(new_lock))
        log = import_package(col, new)
        assert (len(log.new), len(log.updated), len(log.duplicate)) == (0, notes, 0)
        assert col.note_count() == notes and col.db.scalar("select count() from revlog") == reviews == 3
        assert card_states(col) == states
        where = {col.get_card(cid).note().guid: col.decks.name(col.get_card(cid).did) for cid in col.find_cards("")}
        assert set(where.values()) == {ROOT_DECK, f"{ROOT_DECK}::cudnn"}  # Anki kept every card where it was
        numbered = {module.module: deck_name(module, small["course"]) for module in small["course"].modules}
        assert set(numbered.values()) <= {d.name for d in col.decks.all_names_and_ids()}
        # the remedy: Browse, select a module's cards (deck:"<old deck>" -deck:"<old deck>::*"), Change Deck
        for module in small["course"].modules:
            old_deck = unnumbered(module, small["course"])
            cids = col.find_cards(f'deck:"{old_deck}" -deck:"{old_deck}::*"')
            col.set_deck(cids, col.decks.id_for_name(numbered[module.module]))
        moved = {col.get_card(cid).note().guid: col.decks.name(col.get_card(cid).did) for cid in col.find_cards("")}
        assert set(moved.values()) == set(numbered.values())
        assert col.db.scalar("select count() from revlog") == reviews
        assert {cid: state[:3] for cid, state in card_states(col).items()} == {
            cid: state[:3] for cid, state in states.items()}
    finally:
        col.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_diagram_shows_only_on_the_card_that_names_it(shipped, course, lang):
    """Light and night pictures in the deck's language; as Anki renders each card, no side shows more than
    one diagram, a question none, and an answer the one its card names (``diagram:``), on no other card."""
    path, col = shipped[lang]["path"], shipped[lang]["col"]
    variants = [Variant(lang, night) for night in (False, True)]
    with zipfile.ZipFile(path) as archive:
        media = json.loads(archive.read("media"))
        assert set(media.values()) >= {card_diagram_filename(name, course, variant)
                                       for name in ("backends-map", "cudnn-flags") for variant in variants}
        assert all(f"-{lang}-" in name for name in media.values())
        for index, name in media.items():
            assert archive.read(index)[:8] == b"\x89PNG\r\n\x1a\n", name
    notes, named = notes_by_guid(col), {card.id: card.diagram for card in course.cards}
    assert set(named.values()) >= set(DIAGRAM_NAMES)  # each diagram is on some card
    for card_id, diagram in named.items():
        for card in notes[note_guid(lang, card_id)].cards():
            question, answer = (diagrams_shown(side) for side in (card.question(), card.answer()))
            assert question == [], (card_id, question)
            expected = [card_diagram_filename(diagram, course, variant) for variant in variants] if diagram else []
            assert answer == expected, (card_id, answer)
            for name in answer:
                assert (Path(col.media.dir()) / name).read_bytes()[:4] == b"\x89PNG"


def diagrams_shown(card_html: str) -> list[str]:
    """The diagram pictures of a rendered card side, in order (a diagram is a light and a night picture)."""
    return re.findall(r'<img class="(?:light|night)" src="([^"]+)"', card_html)


def test_reimport_unchanged_changes_nothing(shipped):
    col, path = shipped["en"]["col"], shipped["en"]["path"]
    before = card_states(col)
    log = import_package(col, path)
    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 0, 0)
    assert card_states(col) == before


def test_building_twice_gives_the_same_bytes(shipped, tmp_path):
    job = shipped["en"]["job"]
    lock = tmp_path / "deck.lock"
    shutil.copy(job.out_dir.parent / "deck.lock", lock)
    again = RenderJob(job.course, job.verification, "en", tmp_path)
    (path,) = anki.render(again, anki.AnkiOptions(lock))
    assert path.read_bytes() == shipped["en"]["path"].read_bytes()
    assert lock.read_text() == (job.out_dir.parent / "deck.lock").read_text()


def test_model_snapshot():
    """Fields and templates are what learners' collections hold; they never change silently.

    After a deliberate change: TORCHDECK_UPDATE_SNAPSHOTS=1 pytest tests/test_anki.py
    """
    current = json.dumps(models_snapshot(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("TORCHDECK_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(current, encoding="utf-8")
    assert SNAPSHOT.read_text(encoding="utf-8") == current


# ------------------------------------------------------------ own content
SMALL = {
    "backends.yaml": """
        module: torch.backends
        order: 10
        facts:
          - id: t-cudnn-exists
            claim: "torch.backends.cudnn exists"
            check: {exists: torch.backends.cudnn}
        cards:
          - id: t-top-card
            kind: basic
            front: "Which namespace holds the backend flags?"
            back: "`torch.backends`"
            facts: [t-cudnn-exists]
        """,
    "cudnn.yaml": """
        module: torch.backends.cudnn
        order: 30
        lessons:
          - id: t-lesson-enabled
            title: Enabled
            facts: [t-enabled]
          - id: t-lesson-benchmark
            title: Benchmark
            diagrams: [cudnn-flags]
            facts: [t-benchmark]
        facts:
          - id: t-enabled
            claim: "cudnn.enabled is True by default"
            check: {default: torch.backends.cudnn.enabled, equals: true}
          - id: t-benchmark
            claim: "cudnn.benchmark is False by default"
            check: {default: torch.backends.cudnn.benchmark, equals: false}
            source: https://docs.pytorch.org/docs/stable/backends.html?a=1&b=2
          - id: t-gpu
            claim: "a GPU is present"
            check: {expr: "torch.cuda.device_count() > 0"}
            requires: [cuda]
        cards:
          - id: t-escape
            kind: basic
            front: "Shown literally: `a < b && c` and {{x}} and }} and <b>no bold</b>"
            back: {en: "Yes {{c1::not a cloze}} & more", zh: "是的 {{c1::不是填空}} & 更多"}
            tags: [escaping]
            facts: [t-benchmark]
            source: {text: "A bool that, if True, causes cuDNN to benchmark.", source: "https://docs.pytorch.org/docs/stable/backends.html"}
            extra: "🏎️ a test lap per track"
          - id: t-reverse
            kind: reverse
            front: "cudnn.enabled default"
            back: "True unless you turn it off"
            facts: [t-enabled]
          - id: t-cloze
            kind: cloze
            text: "benchmark defaults to {{c1::False}}; {{braces}} stay; a dict {{c2::{'a': {}}}} hides."
            back_extra: "Autotuning is opt-in."
            difficulty: 2
            facts: [t-benchmark]
          - id: t-mcq
            kind: mcq
            question: "Which flags default to False?"
            options:
              - {text: "`benchmark`", correct: true, why: "autotuning is opt-in"}
              - {text: "`deterministic`", correct: true, why: "determinism costs speed"}
              - {text: "`enabled`", why: "cuDNN is on by default"}
            facts: [t-benchmark, t-enabled]
            diagram: cudnn-flags
          - id: t-code
            kind: code
            front: "What does this print?"
            code: |
              import torch

              def show():
                  if True:
                      print(torch.backends.cudnn.benchmark)  # <False>
            back: "`False`"
            facts: [t-benchmark]
          - id: t-gpu-card
            kind: basic
            front: "Is a GPU here?"
            back: "Only on a CUDA machine."
            facts: [t-gpu]
        """,
}
EDITED_FROM, EDITED_TO = "True unless you turn it off", "True, unless you switch it off"


def write_small(folder: Path, edit: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in SMALL.items():
        text = textwrap.dedent(text)
        (folder / name).write_text(text.replace(EDITED_FROM, EDITED_TO) if edit else text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The small content built once and imported into a fresh collection."""
    root = tmp_path_factory.mktemp("anki-small")
    course = load_course(write_small(root / "content"))
    verification = verify(course, cache_dir=root / "cache")
    job = RenderJob(course, verification, "en", root / "build")
    lock = root / "deck.lock"
    (path,) = anki.render(job, anki.AnkiOptions(lock))
    col = new_collection(root / "col")
    log = import_package(col, path)
    yield {"root": root, "course": course, "verification": verification, "job": job, "lock": lock,
           "path": path, "col": col, "log": log}
    col.close()


def test_small_counts(small):
    col = small["col"]
    assert len(small["log"].new) == col.note_count() == 7
    # basic 3, reverse 2, cloze c1+c2, mcq 1, code 1
    assert col.card_count() == 3 + 2 + 2 + 1 + 1
    (top,) = notes_by_guid(col)[note_guid("en", "t-top-card")].cards()
    assert col.decks.name(top.did) == f"{ROOT_DECK}::01 backends"
    (gpu,) = notes_by_guid(col)[note_guid("en", "t-gpu-card")].cards()
    assert col.decks.name(gpu.did) == f"{ROOT_DECK}::02 cudnn"


def test_escaping_shows_text_literally(small):
    col = small["col"]
    notes = notes_by_guid(col)
    escape_note = notes[note_guid("en", "t-escape")]
    (card,) = escape_note.cards()
    question, answer = visible_text(card.question()), visible_text(card.answer())
    assert "Shown literally: a < b && c and {{x}} and }} and <b>no bold</b>" in collapse_spaces(question)
    assert "Yes {{c1::not a cloze}} & more" in collapse_spaces(answer)
    assert "<code>a &lt; b &amp;&amp; c</code>" in card.question()
    assert "<b>" not in escape_note["Front"]
    assert escape_note["Source"] == "<blockquote>A bool that, if True, causes cuDNN to benchmark.</blockquote>"
    # the card's own source is a link in the folded footer, its address escaped, its text short
    footer = escape_note["Verified"]
    assert '<a href="https://docs.pytorch.org/docs/stable/backends.html?a=1&amp;b=2">' in footer
    assert footer.index("<details>") < footer.index("backends.html?a=1") < footer.index("</details>")
    assert "🏎️ a test lap per track" in escape_note["Extra"]


def test_code_breaks_only_after_punctuation_between_names():
    """A ``<wbr>`` after ``.`` ``_`` ``/`` ``,`` ``(`` ``=`` where a name or argument follows, never inside a
    number, a dunder or an operator; code blocks find them in the whole line (Pygments makes each dot a token)."""
    assert breakable("torch.backends.cudnn.allow_tf32") == "torch.<wbr>backends.<wbr>cudnn.<wbr>allow_<wbr>tf32"
    assert breakable("flags(enabled=True, benchmark=False)") == "flags(<wbr>enabled=<wbr>True, benchmark=<wbr>False)"
    assert breakable("is_available()") == "is_<wbr>available()"
    assert breakable("aten/src/ATen") == "aten/<wbr>src/<wbr>ATen"
    for unbroken in ("__init__", "x = 2.13", "a == b", "f() ...", "_foreach", "x.", "v2.13.0"):
        assert breakable(unbroken) == unbroken
    block = code_block("if x:\n    torch.backends.cudnn.deterministic = True  # a.b\n", "python")
    assert re.sub(r"<span[^>]*>|</span>", "", block) == (
        '<pre class="highlight"><code>if x:\n    torch.<wbr>backends.<wbr>cudnn.<wbr>deterministic = True  # a.<wbr>b</code></pre>')
    assert '<span class="line i4">' in block


def test_names_in_prose_break_like_code():
    """Code written in prose without backticks (a run of ASCII holding a dotted or snake_case name) is one word
    to a browser: it gets code's breaks. Inline code or such a run of 20 characters or fewer gets none: it fits
    a line, so it moves to the next one whole."""
    assert str(inline("Set torch.backends.cudnn.benchmark, e.g. TORCH_ALLOW_TF32_CUBLAS=1 in torch.backends.")) == (
        "Set torch.<wbr>backends.<wbr>cudnn.<wbr>benchmark, e.g. TORCH_<wbr>ALLOW_<wbr>TF32_<wbr>CUBLAS=<wbr>1 in "
        "torch.backends.")
    assert str(cloze("{{c1::torch.backends.cudnn.benchmark}} is `a.b` or `torch.backends.cudnn.enabled`")) == (
        "{{c1::torch.<wbr>backends.<wbr>cudnn.<wbr>benchmark}} is <code>a.b</code> or "
        "<code>torch.<wbr>backends.<wbr>cudnn.<wbr>enabled</code>")


@pytest.mark.parametrize("address, text", [
    ("https://docs.pytorch.org/docs/stable/backends.html#torch.backends.cudnn.benchmark",
     "docs.pytorch.org › cudnn.benchmark"),
    ("https://docs.pytorch.org/docs/stable/backends.html#module-torch.backends.python_native",
     "docs.pytorch.org › python_native"),
    ("https://docs.pytorch.org/docs/stable/notes/randomness.html#cuda-convolution-determinism",
     "docs.pytorch.org › notes/randomness"),
    ("https://docs.pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html",
     "docs.pytorch.org › torch.use_deterministic_algorithms"),
    ("https://github.com/pytorch/pytorch/blob/v2.13.0/torch/backends/cudnn/__init__.py",
     "github.com › cudnn/__init__.py"),
    ("https://github.com/uxlfoundation/oneDNN/blob/main/doc/mainpage.md", "github.com › oneDNN › doc/mainpage.md"),
    ("https://github.com/pytorch/pytorch/pull/127277", "github.com › pytorch#127277"),
    ("https://dev-discuss.pytorch.org/t/pytorch-and-tensorfloat32/504", "dev-discuss.pytorch.org › pytorch-and-tensorfloat32"),
    ("https://example.com", "example.com"),
])
def test_source_link_text_is_short(address, text):
    shown = link(address)
    assert shown.address == address and str(shown.text).replace("<wbr>", "") == text


def test_cloze_deletions_work_and_other_braces_stay(small):
    col = small["col"]
    note = notes_by_guid(col)[note_guid("en", "t-cloze")]
    first, second = sorted(note.cards(), key=lambda c: c.ord)
    q1, a1 = collapse_spaces(visible_text(first.question())), collapse_spaces(visible_text(first.answer()))
    q2, a2 = collapse_spaces(visible_text(second.question())), collapse_spaces(visible_text(second.answer()))
    assert q1 == "benchmark defaults to [...]; {{braces}} stay; a dict {'a': {}} hides."
    assert "benchmark defaults to False; {{braces}} stay" in a1 and "Autotuning is opt-in." in a1
    assert q2 == "benchmark defaults to False; {{braces}} stay; a dict [...] hides."
    assert "a dict {'a': {}} hides." in a2


def test_mcq_marks_correct_options_and_explains_all(small):
    col = small["col"]
    (card,) = notes_by_guid(col)[note_guid("en", "t-mcq")].cards()
    question, answer = (re.sub(r"<style>.*?</style>", "", side, flags=re.S) for side in (card.question(), card.answer()))
    assert "autotuning is opt-in" not in question and "correct" not in question
    assert answer.count('class="correct"') == 2 and answer.count('class="wrong"') == 1
    for why in ("autotuning is opt-in", "determinism costs speed", "cuDNN is on by default"):
        assert why in answer
    assert re.search(r'class="correct">.*?<code>benchmark</code>', answer)
    assert re.search(r'class="wrong">.*?<code>enabled</code>', answer)
    assert visible_text(question).count("(select all that apply)") == 1  # two correct: the one hint, once


def test_code_keeps_whitespace_and_uses_token_classes(small):
    col = small["col"]
    (card,) = notes_by_guid(col)[note_guid("en", "t-code")].cards()
    question = card.question()
    code = re.search(r'<pre class="highlight"><code>(.*?)</code></pre>', question, re.S).group(1)
    assert html.unescape(re.sub(r"<[^>]+>", "", code)) == (
        "import torch\n\ndef show():\n    if True:\n        print(torch.backends.cudnn.benchmark)  # <False>")
    assert '<span class="kn">import</span>' in code and 'class="c1"' in code
    assert "style=" not in code


def test_verified_and_unverified_fields(small):
    col, job = small["col"], small["job"]
    notes = notes_by_guid(col)
    gpu = notes[note_guid("en", "t-gpu-card")]
    assert "not verified here (needs CUDA)" in gpu["Verified"]
    assert "unverified::needs-cuda" in gpu.tags
    top = notes[note_guid("en", "t-top-card")]
    assert f"verified on torch {job.verification.torch} (here)" in top["Verified"]
    assert f"verified::torch-{job.verification.torch.split('+')[0]}" in top.tags


def test_chinese_lists_what_a_card_needs_with_the_enumeration_comma(small, tmp_path):
    """Chinese lists with 、: a card whose fact needed both CUDA and MPS says so in the deck Anki imports."""
    results = dict(small["verification"].results)
    results["t-gpu"] = dataclasses.replace(results["t-gpu"], status="skip", needs=("cuda", "mps"))
    verification = dataclasses.replace(small["verification"], results=results)
    for lang, note in (("zh", "未在此环境验证（需要 CUDA、MPS）"), ("en", "not verified here (needs CUDA, MPS)")):
        job = RenderJob(small["course"], verification, lang, tmp_path / lang)
        (path,) = anki.render(job, anki.AnkiOptions(tmp_path / lang / "deck.lock"))
        col = new_collection(tmp_path / lang / "col")
        import_package(col, path)
        assert note in visible_text(notes_by_guid(col)[note_guid(lang, "t-gpu-card")]["Verified"]), lang
        col.close()


def test_note_types_ids_and_css(small):
    """The small content uses every note type (Anki imports only the ones notes use)."""
    col = small["col"]
    for key, note_type in NOTE_TYPES.items():
        model = col.models.by_name(note_type.name)
        assert model["id"] == note_type.model_id == stable_id(f"torchdeck note type {key}")
        assert [f["name"] for f in model["flds"]][-4:] == ["Source", "Verified", "Extra", "Diagram"]
        css = model["css"]
        assert ".nightMode" in css and ".night_mode" in css
        assert re.search(r"img\s*\{[^}]*max-width", css)
    for note in notes_by_guid(col).values():
        assert "style=" not in "".join(note.fields)


def test_small_teaching_order(small):
    """Lesson order beats file order; a card no lesson teaches comes last in its module; Anki keeps the order."""
    order = [note.card_id for note in build_notes(small["job"])]
    assert order == ["t-top-card", "t-reverse", "t-mcq", "t-escape", "t-cloze", "t-code", "t-gpu-card"]
    col = small["col"]
    ids = {note_guid("en", card_id): card_id for card_id in order}
    cards = sorted((col.get_card(cid) for cid in col.find_cards("is:new")), key=lambda c: (c.due, c.ord))
    new_order = list(dict.fromkeys(ids[card.note().guid] for card in cards))
    assert len(new_order) >= 4 and new_order == [card_id for card_id in order if card_id in new_order]


def test_unclosed_cloze_is_a_build_error(small, tmp_path):
    folder = write_small(tmp_path / "content")
    text = (folder / "cudnn.yaml").read_text().replace("{}}}} hides", "{} hides")
    (folder / "cudnn.yaml").write_text(text)
    job = RenderJob(load_course(folder), small["verification"], "en", tmp_path / "build")
    with pytest.raises(BuildError, match=r"cudnn.yaml:\d+: card t-cloze \(en\): a cloze deletion is not closed"):
        anki.render(job, anki.AnkiOptions(tmp_path / "deck.lock"))
    assert not (tmp_path / "deck.lock").exists() and not (tmp_path / "build").exists()


def test_broken_manifest_is_a_build_error(small, tmp_path):
    lock = tmp_path / "deck.lock"
    lock.write_text('{"version": 1, "notes": {"en": {"x": {"hash": "h"}}}}')
    with pytest.raises(BuildError, match="not a deck manifest"):
        anki.render(small["job"], anki.AnkiOptions(lock))


def test_diagram_only_on_the_card_that_names_it(small):
    """t-mcq names the lesson's diagram; t-escape and t-cloze rest on the same lesson's fact but name none, so
    no module-wide default puts it on them."""
    notes = notes_by_guid(small["col"])
    file_name = card_diagram_filename("cudnn-flags", small["course"], Variant("en", False))
    (card,) = notes[note_guid("en", "t-mcq")].cards()
    assert diagrams_shown(card.answer()).count(file_name) == 1 and diagrams_shown(card.question()) == []
    assert [card_id for card_id in ("t-escape", "t-cloze", "t-reverse")
            if notes[note_guid("en", card_id)]["Diagram"]] == []


def test_update_cycle_keeps_reviews(small, tmp_path, monkeypatch):
    """Answer cards, edit one card in a copy of the content, rebuild an hour later, re-import with default options."""
    col, lock = small["col"], tmp_path / "deck.lock"
    shutil.copy(small["lock"], lock)
    answered = answer_first_cards(col, 3)
    reviews_before = col.db.scalar("select count() from revlog")
    states_before = card_states(col)
    notes_before = {guid: (note.mod, note.fields) for guid, note in notes_by_guid(col).items()}
    assert reviews_before == 3 and all(states_before[cid][0] > 0 for cid in answered)
    mods_before = read_manifest(lock).notes_of("en")

    edited = load_course(write_small(tmp_path / "content", edit=True))
    job = RenderJob(edited, small["verification"], "en", tmp_path / "build")
    report = anki.diff(job, lock)
    assert (report.notes.added, report.notes.changed, report.notes.removed) == ((), ("t-reverse",), ())
    assert "~ t-reverse" in report.describe()
    an_hour_later = time.time() + 3600
    monkeypatch.setattr(anki_lock, "time", SimpleNamespace(time=lambda: an_hour_later))
    (path,) = anki.render(job, anki.AnkiOptions(lock))

    mods_after = read_manifest(lock).notes_of("en")
    assert mods_after["t-reverse"].mod == int(an_hour_later)
    assert {k: v for k, v in mods_after.items() if k != "t-reverse"} == {
        k: v for k, v in mods_before.items() if k != "t-reverse"}

    log = import_package(col, path)
    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 1, 0)
    assert col.note_count() == 7
    notes_after = {guid: (note.mod, note.fields) for guid, note in notes_by_guid(col).items()}
    edited_guid = note_guid("en", "t-reverse")
    assert EDITED_TO in notes_after[edited_guid][1][1]
    assert {g: v for g, v in notes_after.items() if g != edited_guid} == {
        g: v for g, v in notes_before.items() if g != edited_guid}
    assert col.db.scalar("select count() from revlog") == reviews_before
    assert card_states(col) == states_before

    again = import_package(col, path)
    assert (len(again.new), len(again.updated)) == (0, 0)


def test_diff_lists_added_and_removed(small, tmp_path):
    folder = write_small(tmp_path / "content")
    text = (folder / "cudnn.yaml").read_text()
    text = text.replace("id: t-gpu-card", "id: t-gpu-card-renamed")
    (folder / "cudnn.yaml").write_text(text)
    lock = tmp_path / "deck.lock"
    shutil.copy(small["lock"], lock)
    job = RenderJob(load_course(folder), small["verification"], "en", tmp_path / "build")
    report = anki.diff(job, lock)
    assert report.notes.added == ("t-gpu-card-renamed",)
    assert report.notes.removed == ()  # the lock knows its note type: retired in place, not left behind
    assert report.notes.retired == (("t-gpu-card", "this card was removed from the course"),)
    assert "x t-gpu-card  (retired: this card was removed from the course" in report.describe()
    assert lock.read_bytes() == small["lock"].read_bytes(), "--diff writes nothing"


def test_module_selection_keeps_other_entries(small, tmp_path):
    """Building one module neither reports nor forgets the others' notes."""
    lock = tmp_path / "deck.lock"
    shutil.copy(small["lock"], lock)
    job = RenderJob(small["course"].select(["cudnn"]), small["verification"], "en", tmp_path / "build")
    assert anki.diff(job, lock).notes.removed == ()
    anki.render(job, anki.AnkiOptions(lock))
    assert "t-top-card" in read_manifest(lock).notes_of("en")


def test_cli_deck_and_diff(small, tmp_path):
    from click.testing import CliRunner

    from generator.cli import main

    content = write_small(tmp_path / "content")
    runner = CliRunner()
    common = ["--content", str(content), "--out", str(tmp_path / "build"), "--lang", "all"]
    first = runner.invoke(main, ["deck", "--diff", *common])
    assert first.exit_code == 0, first.output
    assert "deck en: 7 added" in first.output and "deck zh: 7 added" in first.output
    assert not (content / "deck.lock").exists()
    built = runner.invoke(main, ["deck", *common])
    assert built.exit_code == 0, built.output
    assert (tmp_path / "build" / "torch-backends.en.apkg").exists()
    assert (tmp_path / "build" / "torch-backends.zh.apkg").exists()
    second = runner.invoke(main, ["deck", "--diff", *common])
    assert "deck en: 0 added, 0 changed, 0 removed" in second.output


# -------------------------------------------------------------- properties
@pytest.fixture(scope="module")
def ephemeral(small):
    """Render a field through Anki without adding a note."""
    col = small["col"]

    def show(kind: str, field: str, value: str, ordinal: int = 0) -> tuple[str, str]:
        note = col.new_note(col.models.by_name(NOTE_TYPES[kind].name))
        note[field] = value
        card = note.ephemeral_card(ordinal)
        return visible_text(card.question()).strip(), visible_text(card.answer()).strip()

    return show


LITERAL = st.text(alphabet=st.sampled_from(list("ab <>&{}:c1'\"")), max_size=30)


@settings(max_examples=80, deadline=None)
@given(LITERAL.filter(str.strip))
def test_any_text_shows_literally(ephemeral, text):
    question, _ = ephemeral("basic", "Front", str(inline(text)))
    assert question == text.strip()


@settings(max_examples=80, deadline=None)
@given(LITERAL.filter(lambda s: "{{c" not in s), st.text(alphabet="xyz <&>'", min_size=1, max_size=8).filter(str.strip),
       LITERAL.filter(lambda s: "{{c" not in s and not s.startswith("}")))
def test_cloze_deletion_survives_any_surrounding_text(ephemeral, before, answer, after):
    text = f"{before}{{{{c1::{answer}}}}}{after}"
    question, full = ephemeral("cloze", "Text", str(cloze(text)))
    assert question == f"{before}[...]{after}".strip()
    assert full == f"{before}{answer}{after}".strip()


def _glyph(font, character: str) -> bytes:
    image = Image.new("L", (64, 64))
    ImageDraw.Draw(image).text((8, 4), character, font=font, fill=255)
    return image.tobytes()


def test_chinese_diagram_characters_are_in_the_shipped_cjk_font():
    """Every character a Chinese diagram draws with the CJK subset has a glyph there (not the empty-box one);
    after a label change, ``tools/make_cjk_font.py`` recuts the font."""
    for bold in (False, True):
        font = ImageFont.truetype(str(diagram_cjk_font(bold)), 40)
        no_glyph = _glyph(font, "\ue000")  # a private-use character no font subset holds
        assert _glyph(font, "龍") == no_glyph  # the comparison sees a missing glyph
        missing = [c for c in cjk_characters(s.WORDS for s in SCENES.values()) if not c.isspace() and _glyph(font, c) == no_glyph]
        assert missing == [], missing
