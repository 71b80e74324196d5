"""Drift: a fact that does not hold against the user's torch leaves out what rests on it, never the whole build.

Proven on a copy of the shipped content with one fact made false, through Anki's own
importer, and on a small course for slides and quiz.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
import textwrap
import zipfile
from pathlib import Path

import pytest
from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest
from pptx import Presentation

from generator.render.anki.lock import read_manifest
from generator.render.anki.notes import note_guid
from generator.render.anki.retired import retired_note, why
from helpers import CONTENT, import_package, introduction_days, new_collection, torchdeck

FALSE_FACT = "cudnn-benchmark-default"


def make_false(text: str, fact_id: str) -> str:
    """The module text with ``fact_id``'s ``equals: false`` turned into ``equals: true``."""
    start = text.index(f"- id: {fact_id}\n")
    end = text.index("check:", start)
    line_end = text.index("\n", end)
    check = text[end:line_end]
    assert "equals: false" in check, check
    return text[:end] + check.replace("equals: false", "equals: true") + text[line_end:]


@pytest.fixture(scope="module")
def drifted(course, tmp_path_factory, with_shipped_cache):
    """The shipped content with one fact made false, built without --strict (the build runs the changed
    check; the others' results are this run's, from its cache)."""
    root = tmp_path_factory.mktemp("drift")
    content = root / "content"
    shutil.copytree(CONTENT, content)
    cudnn = content / "cudnn.yaml"
    cudnn.write_text(make_false(cudnn.read_text(encoding="utf-8"), FALSE_FACT), encoding="utf-8")
    lock_before = (content / "deck.lock").read_text()
    result = torchdeck("deck", "--content", content, "--out", with_shipped_cache(root / "build"), "--lang", "en")
    resting = {c.id for c in course.cards if FALSE_FACT in c.facts}
    return {"root": root, "content": content, "result": result, "resting": resting, "lock_before": lock_before}


def test_a_false_fact_is_named_and_the_build_goes_on(drifted):
    result = drifted["result"]
    assert result.exit_code == 0, result.output
    assert FALSE_FACT in result.output and "expected torch.backends.cudnn.benchmark == True, actual False" in result.output
    assert "left out:" in result.output
    for card_id in drifted["resting"]:
        assert f"card {card_id}" in result.output


def test_the_deck_teaches_exactly_the_notes_not_resting_on_it(drifted, course, tmp_path):
    """The notes resting on the false fact are published (they were before) only as retired notes, next to the
    notes of cards the course no longer teaches (retired as removed)."""
    assert drifted["resting"], "the chosen fact must have cards resting on it"
    removed = set(read_manifest(CONTENT / "deck.lock").notes_of("en")) - {c.id for c in course.cards}
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, drifted["root"] / "build" / "torch-backends.en.apkg")
        live = {col.get_note(note_id).guid for note_id in col.find_notes("-tag:torchdeck::retired")}
        retired = {col.get_note(note_id).guid: col.get_note(note_id) for note_id in
                   col.find_notes("tag:torchdeck::retired")}
    finally:
        col.close()
    assert live == {note_guid("en", c.id) for c in course.cards if c.id not in drifted["resting"]}
    assert set(retired) == {note_guid("en", card_id) for card_id in drifted["resting"] | removed}
    for card_id in drifted["resting"]:
        assert f"fact {FALSE_FACT} does not hold on torch" in retired[note_guid("en", card_id)].fields[0]
    for card_id in removed:
        assert "this card was removed from the course" in retired[note_guid("en", card_id)].fields[0]


def test_a_first_import_never_queues_a_retired_card(drifted, course, tmp_path):
    """A first-time learner gets the retired notes (so a later build can update them) but no card of them:
    Anki's scheduler, drained day by day from the root deck, introduces every live card and nothing else,
    and no deck is made for them. Tools → Check Database makes a card for every note whose front has text;
    the cards it makes of retired notes say so and the search the card names finds them (README)."""
    removed = set(read_manifest(CONTENT / "deck.lock").notes_of("en")) - {c.id for c in course.cards}
    retired_guids = {note_guid("en", card_id) for card_id in drifted["resting"] | removed}
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, drifted["root"] / "build" / "torch-backends.en.apkg")
        assert {col.get_note(i).guid for i in col.find_notes("tag:torchdeck::retired")} == retired_guids
        assert col.find_cards("tag:torchdeck::retired") == []
        assert [d.name for d in col.decks.all_names_and_ids() if "Retired" in d.name] == []
        introduced = [col.get_card(cid) for day in introduction_days(col) for cid in day]
        assert {card.note().guid for card in introduced} == {note_guid("en", c.id) for c in course.cards
                                                              if c.id not in drifted["resting"]}
        assert len(introduced) == col.card_count()  # every card the collection has, each once
        assert col.fix_integrity()[1]
        made = [col.get_card(cid) for cid in col.find_cards("tag:torchdeck::retired")]
        assert {card.note().guid for card in made} == retired_guids
        assert all('<div class="retired-advice">' in card.question() and "tag:torchdeck::retired" in card.question()
                   for card in made)
    finally:
        col.close()


def test_left_out_notes_are_retired_in_the_lock(drifted, course):
    """A left-out note's entry keeps its note type and gets a newer mod (so the import takes the retired note)."""
    after = read_manifest(drifted["content"] / "deck.lock").notes_of("en")
    lock_path = drifted["root"] / "before.lock"
    lock_path.write_text(drifted["lock_before"])
    before = read_manifest(lock_path).notes_of("en")
    kinds = {c.id: c.kind for c in course.cards}
    for card_id in drifted["resting"]:
        assert after[card_id].mod > before[card_id].mod and after[card_id].hash != before[card_id].hash
        assert after[card_id].kind == kinds[card_id]


def test_strict_writes_nothing_and_exits_1(drifted, tmp_path):
    """The same drifted content, its facts' results taken from the first build's verify cache (the false
    fact failed there live, in this run): --strict judges the verification, however it was obtained."""
    out = tmp_path / "build"
    shutil.copytree(drifted["root"] / "build" / ".cache", out / ".cache")
    result = torchdeck("deck", "--content", drifted["content"], "--out", out, "--lang", "en", "--strict")
    assert result.exit_code == 1
    assert "nothing was rendered" in result.output and FALSE_FACT in result.output
    assert not list(out.glob("*.apkg"))


SMALL = textwrap.dedent("""\
    module: torch.backends.cudnn
    title: {en: cuDNN, zh: cuDNN}
    lessons:
      - id: d-lesson-kept
        title: {en: Kept lesson, zh: 保留的课}
        points: [{en: "`enabled` is on", zh: "`enabled` 默认开启"}]
        facts: [d-true]
      - id: d-lesson-gone
        title: {en: Vanishing lesson, zh: 消失的课}
        points: [{en: "a false point", zh: "错误的要点"}]
        facts: [d-false]
    facts:
      - id: d-true
        claim: {en: cudnn.enabled is True by default, zh: cudnn.enabled 默认为 True}
        check: {default: torch.backends.cudnn.enabled, equals: true}
      - id: d-false
        claim: {en: cudnn.benchmark is True by default, zh: cudnn.benchmark 默认为 True}
        check: {default: torch.backends.cudnn.benchmark, equals: true}
    cards:
      - {id: d-card-kept, kind: basic, front: {en: enabled?, zh: enabled？}, back: "True", facts: [d-true]}
      - {id: d-card-gone, kind: basic, front: {en: benchmark?, zh: benchmark？}, back: "True", facts: [d-false]}
    questions:
      - id: d-q-kept
        kind: truefalse
        stem: {en: "cuDNN is enabled by default.", zh: "cuDNN 默认启用。"}
        options:
          - {text: {en: "True", zh: 对}, correct: true, why: {en: enabled defaults to True, zh: enabled 默认为 True}}
          - {text: {en: "False", zh: 错}, why: {en: it is on, zh: 它是开启的}}
        facts: [d-true]
      - id: d-q-gone
        kind: truefalse
        stem: {en: "Benchmark mode is on by default.", zh: "benchmark 默认开启。"}
        options:
          - {text: {en: "True", zh: 对}, correct: true, why: {en: vanishing why, zh: 消失的解释}}
          - {text: {en: "False", zh: 错}, why: {en: other, zh: 其他}}
        facts: [d-false]
""")


def test_build_leaves_out_lessons_and_questions_too(tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    (content / "cudnn.yaml").write_text(SMALL, encoding="utf-8")
    out = tmp_path / "build"
    result = torchdeck("build", "--content", content, "--out", out, "--lang", "en")
    assert result.exit_code == 0, result.output
    assert "lesson d-lesson-gone" in result.output and "question d-q-gone" in result.output
    names = [slide.name for slide in Presentation(out / "torch-backends.en.pptx").slides]
    assert "lesson:d-lesson-kept" in names and "lesson:d-lesson-gone" not in names
    assert not any("d-q-gone" in name for name in names) and any("d-q-kept" in name for name in names)
    moodle = (out / "quiz-s0.en.moodle.xml").read_text(encoding="utf-8")
    assert "cuDNN is enabled by default." in moodle and "Benchmark mode is on by default." not in moodle
    with zipfile.ZipFile(out / "torch-backends.en.apkg") as package:
        assert package.testzip() is None


# ------------------------------------------------------------------ retired notes, across three builds
RETIRE = textwrap.dedent("""\
    module: torch.backends.cudnn
    title: {en: cuDNN, zh: cuDNN}
    lessons:
      - id: r-lesson
        title: {en: A lesson, zh: 一课}
        points: [{en: "`enabled` is on", zh: "`enabled` 默认开启"}]
        facts: [r-true]
    facts:
      - id: r-true
        claim: {en: cudnn.enabled is True by default, zh: cudnn.enabled 默认为 True}
        check: {default: torch.backends.cudnn.enabled, equals: true}
      - id: r-bench
        claim: {en: cudnn.benchmark is False by default, zh: cudnn.benchmark 默认为 False}
        check: {default: torch.backends.cudnn.benchmark, equals: false}
    cards:
      - {id: r-card-kept, kind: basic, front: {en: enabled?, zh: enabled？}, back: "True", facts: [r-true]}
      - {id: r-card-drift, kind: basic, front: {en: benchmark?, zh: benchmark？}, back: "False", facts: [r-bench]}
      - {id: r-card-cloze, kind: cloze, text: {en: "benchmark is {{c1::False}}", zh: "benchmark 是 {{c1::False}}"}, facts: [r-bench]}
      - {id: r-card-removed, kind: basic, front: {en: enabled again?, zh: 又是 enabled？}, back: "True", facts: [r-true]}
""")


GUID = {card_id: note_guid("en", card_id) for card_id in ("r-card-kept", "r-card-drift", "r-card-cloze",
                                                           "r-card-removed")}


@pytest.fixture(scope="module")
def retire_builds(tmp_path_factory):
    """The packages of three builds of RETIRE, each kept: 1 teaches all four cards; 2 has the benchmark fact
    made false (two cards drift out) and a card removed from the course; 3 has the fact hold again. Also
    ``diff``, the output of ``deck --diff`` before build 2, and ``again``, build 2's package built twice."""
    root = tmp_path_factory.mktemp("retire")
    content, out = root / "content", root / "build"
    content.mkdir()
    module = content / "cudnn.yaml"

    def build(text, number):
        module.write_text(text, encoding="utf-8")
        result = torchdeck("deck", "--content", content, "--out", out, "--lang", "en")
        assert result.exit_code == 0, result.output
        return shutil.copy(out / "torch-backends.en.apkg", root / f"build-{number}.apkg")

    builds = {1: build(RETIRE, 1)}
    without_removed = "\n".join(line for line in RETIRE.splitlines() if "r-card-removed" not in line) + "\n"
    drifted = without_removed.replace("equals: false", "equals: true")  # r-bench now fails
    module.write_text(drifted, encoding="utf-8")
    diff = torchdeck("deck", "--diff", "--content", content, "--out", out, "--lang", "en").output
    builds[2] = build(drifted, 2)
    again = build(drifted, "2-again")
    builds[3] = build(without_removed, 3)
    return {"builds": builds, "diff": diff, "again": again}


def notes_of(col) -> dict:
    """Every note of ``col`` by guid."""
    return {col.get_note(i).guid: col.get_note(i) for i in col.find_notes("")}


def cards_of(col) -> dict:
    """Each card's id to what the scheduler keys on: note, ordinal, deck, type, queue, due, reviews."""
    return {cid: (card.nid, card.ord, card.did, card.type, card.queue, card.due, card.reps)
            for cid in col.find_cards("") for card in [col.get_card(cid)]}


def test_retired_builds_list_the_retired_and_give_the_same_bytes(retire_builds):
    assert "x r-card-drift" in retire_builds["diff"] and "x r-card-removed" in retire_builds["diff"]
    assert Path(retire_builds["again"]).read_bytes() == Path(retire_builds["builds"][2]).read_bytes()


def test_why_retired_notes_have_no_cards(retire_builds, tmp_path):
    """The designs a retired note could not use, through Anki's importer with its default options: build 1's
    package with every card suspended (queue -1) and its decks on a preset allowing no new cards imports
    as new, unsuspended cards on the default preset, all in the queue. Only "Import any learning progress"
    and "Import deck presets" (both off by default) keep them."""
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(retire_builds["builds"][1]) as package:
        package.extractall(unpacked)
        names = package.namelist()
    database = sqlite3.connect(unpacked / "collection.anki2")
    presets = json.loads(database.execute("SELECT dconf FROM col").fetchone()[0])
    presets["2"] = {**presets["1"], "id": 2, "name": "no new cards", "new": {**presets["1"]["new"], "perDay": 0}}
    decks = {key: {**deck, "conf": 2} for key, deck in json.loads(database.execute("SELECT decks FROM col").fetchone()[0]).items()}
    database.execute("UPDATE col SET dconf = ?, decks = ?", (json.dumps(presets), json.dumps(decks)))
    assert database.execute("UPDATE cards SET queue = -1").rowcount == 4
    database.commit()
    database.close()
    suspended = tmp_path / "suspended.apkg"
    with zipfile.ZipFile(suspended, "w") as package:
        for name in names:
            package.write(unpacked / name, name)
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, suspended)
        cards = [col.get_card(cid) for cid in col.find_cards("")]
        assert len(cards) == 4 and {(card.queue, card.type) for card in cards} == {(0, 0)}
        assert {col.decks.config_dict_for_deck_id(card.did)["new"]["perDay"] for card in cards} == {20}
        assert sorted(cid for day in introduction_days(col) for cid in day) == sorted(card.id for card in cards)
    finally:
        col.close()
    col = new_collection(tmp_path / "col-with-both")  # the package does carry both, for the options that take them
    try:
        options = ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True)
        col.import_anki_package(ImportAnkiPackageRequest(package_path=str(suspended), options=options))
        cards = [col.get_card(cid) for cid in col.find_cards("")]
        assert {card.queue for card in cards} == {-1}
        assert {col.decks.config_dict_for_deck_id(card.did)["new"]["perDay"] for card in cards} == {0}
    finally:
        col.close()


def test_retired_notes_update_in_place_and_come_back(retire_builds, tmp_path):
    """A learner who imported build 1 and reviewed two cards: build 2 rewrites the drifted and the removed
    card's notes in place and touches no card (none added, none moved or rescheduled, reviews kept; a
    reviewed card stays in learning, not new); build 3 revives the drifted one. Through Anki's importer,
    the same notes all along, nothing duplicated."""
    builds, guid = retire_builds["builds"], GUID
    col = new_collection(tmp_path / "col")
    try:
        import_package(col, builds[1])
        first = notes_of(col)
        assert set(first) == set(guid.values())
        ids = {g: n.id for g, n in first.items()}
        reviewed = [col.get_note(ids[guid[c]]).cards()[0] for c in ("r-card-drift", "r-card-removed")]
        for card in reviewed:
            card = col.get_card(card.id)
            card.start_timer()
            col.sched.answerCard(card, 3)
        reviews = {card.id: col.db.scalar("select count() from revlog where cid = ?", card.id) for card in reviewed}
        assert all(reviews.values())
        cards = cards_of(col)

        log = import_package(col, builds[2])
        assert (len(log.new), len(log.conflicting)) == (0, 0)
        second = notes_of(col)
        assert {g: n.id for g, n in second.items()} == ids  # same notes, none added
        for card_id in ("r-card-drift", "r-card-cloze", "r-card-removed"):
            note = second[guid[card_id]]
            assert "torchdeck::retired" in note.tags, card_id
            assert "Retired" in note.fields[0]
        assert "fact r-bench does not hold on torch" in second[guid["r-card-drift"]].fields[0]
        assert "removed from the course" in second[guid["r-card-removed"]].fields[0]
        assert "torchdeck::retired" not in second[guid["r-card-kept"]].tags
        assert len(col.find_notes("tag:torchdeck::retired")) == 3
        assert cards_of(col) == cards  # no card added, moved or rescheduled
        for card in reviewed:
            assert col.db.scalar("select count() from revlog where cid = ?", card.id) == reviews[card.id]
            answered = col.get_card(card.id)
            assert (answered.reps, answered.type != 0, answered.queue != 0) == (1, True, True)  # studied, not new
        assert [d.name for d in col.decks.all_names_and_ids() if "Retired" in d.name] == []

        # build 3: the fact holds again; the removed card stays retired
        log = import_package(col, builds[3])
        assert (len(log.new), len(log.conflicting)) == (0, 0)
        third = notes_of(col)
        assert {g: n.id for g, n in third.items()} == ids
        for card_id in ("r-card-drift", "r-card-cloze"):
            assert "torchdeck::retired" not in third[guid[card_id]].tags and "Retired" not in third[guid[card_id]].fields[0]
        assert third[guid["r-card-drift"]].fields[0].endswith("benchmark?")
        assert "torchdeck::retired" in third[guid["r-card-removed"]].tags
        assert "torchdeck::retired" not in third[guid["r-card-kept"]].tags
        assert cards_of(col) == cards
        for card in reviewed:
            assert col.db.scalar("select count() from revlog where cid = ?", card.id) == reviews[card.id]
    finally:
        col.close()


def test_a_first_import_of_retired_notes_gets_their_cards_once_they_come_back(retire_builds, tmp_path):
    """A learner whose first import is build 2 gets the three retired notes without cards: the scheduler
    offers the kept card only. Build 3 revives the drifted notes: their cards arrive new, in the module's
    deck, in the queue; the removed card's note still has none."""
    builds, guid = retire_builds["builds"], GUID
    col = new_collection(tmp_path / "col")
    try:
        log = import_package(col, builds[2])
        assert len(log.new) == 4 and set(notes_of(col)) == set(guid.values())
        kept = col.find_cards("-tag:torchdeck::retired")
        assert col.find_cards("tag:torchdeck::retired") == [] and len(kept) == 1
        module_deck = col.get_card(kept[0]).did
        assert [card for day in introduction_days(col) for card in day] == kept
        col.sched.unsuspend_cards(kept)

        log = import_package(col, builds[3])
        assert (len(log.new), len(log.conflicting)) == (0, 0)
        revived = {col.get_card(cid).note().guid: col.get_card(cid) for cid in col.find_cards("-tag:torchdeck::retired")}
        assert set(revived) == {guid["r-card-kept"], guid["r-card-drift"], guid["r-card-cloze"]}
        assert {(card.did, card.type, card.queue) for card in revived.values()} == {(module_deck, 0, 0)}
        assert col.find_cards("tag:torchdeck::retired") == []
        col.decks.select(module_deck)
        queued = {c.card.note_id for c in col.sched.get_queued_cards(fetch_limit=100).cards}
        assert queued == {card.nid for card in revived.values()}
    finally:
        col.close()


def test_a_retired_card_says_so_with_its_languages_colon():
    assert "<b>Retired</b>: this card was removed" in retired_note("en", "c", "basic", why("en", (), "2.15.0")).fields[0]
    assert "<b>已停用</b>：这张卡片已从课程中移除" in retired_note("zh", "c", "basic", why("zh", (), "2.15.0")).fields[0]


def test_a_retired_card_lists_its_failed_facts_as_its_language_lists():
    """Chinese lists with 、: the reason a retired card gives names every fact that no longer holds."""
    assert why("zh", ("f-one", "f-two"), "2.15.0") == "事实 f-one、f-two 在 torch 2.15.0 上不成立"
    assert why("en", ("f-one", "f-two"), "2.15.0") == "fact f-one, f-two does not hold on torch 2.15.0"
