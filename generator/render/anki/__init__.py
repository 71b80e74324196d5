"""The Anki deck: one ``.apkg`` per language, updating in place on re-import.

Each card becomes a note whose GUID is (language, card id) and whose ``mod`` is
the time its content last changed, kept in the manifest (``content/deck.lock``).
Anki's default import ("update if newer") therefore takes edited notes, leaves
the rest alone and keeps every review. ``diff`` tells what a build would change.
"""
from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import genanki
from markupsafe import escape

from ...diagrams import Variant, card_diagram_filename, card_diagram_png
from ...markup import EXPLAIN
from ...wording import words as all_words
from ..base import RenderJob
from .lock import Changes, Manifest, compare, merged, read_manifest, stamp, write_manifest
from .models import NOTE_TYPES, stable_id
from .notes import ROOT_DECK, NoteSpec, build_notes, deck_name
from .package import PackagedNote, collection, write_apkg
from .retired import retired_note, retirements
from .spread import card_positions

STEM = "torch-backends"
REQUIRED_DIAGRAMS = ("backends-map", "cudnn-flags")  # in every package, whether a card shows them or not


@dataclass(frozen=True)
class DeckDiff:
    """Notes a build would add, change, retire and remove (a package cannot delete: a note the course no longer
    teaches is written as retired; one whose note type the lock does not know is listed as removed)."""

    lang: str
    lock_path: Path
    notes: Changes
    note_types_changed: tuple[str, ...]

    def describe(self) -> str:
        n = self.notes
        lines = [f"deck {self.lang}: {len(n.added)} added, {len(n.changed)} changed, "
                 f"{len(n.removed)} removed, {len(n.retired)} retired against {self.lock_path}"]
        lines += [f"  + {card_id}" for card_id in n.added]
        lines += [f"  ~ {card_id}" for card_id in n.changed]
        lines += [f"  x {card_id}  (retired: {why}; tagged torchdeck::retired)" for card_id, why in n.retired]
        lines += [f"  - {card_id}  (no longer in the content: delete its note in Anki by hand)" for card_id in n.removed]
        lines += [f"  note type changed: {name}" for name in self.note_types_changed]
        return "\n".join(lines)


@dataclass(frozen=True)
class AnkiOptions:
    """``lock``: the manifest of note ids and changes (``deck.lock``) this build brings up to date;
    ``base``: a manifest read with it but never written (the content's, where the build writes its own
    lock to the out folder); ``stem``: the package's file name."""

    lock: Path
    stem: str = STEM
    base: Optional[Path] = None


def read_lock(lock: Path, base: Optional[Path] = None) -> Manifest:
    """The manifest a build starts from: ``lock``, with ``base`` under it (each entry the newer of the two)."""
    if base is None or Path(base) == Path(lock):
        return read_manifest(lock)
    return merged(read_manifest(base), read_manifest(lock))


def render(job: RenderJob, options: AnkiOptions) -> list[Path]:
    """Write ``build/<stem>.<lang>.apkg`` and bring the manifest up to date."""
    with _without_cycle_collection():
        return _render(job, Path(options.lock), options.stem, options.base)


def _render(job: RenderJob, lock_path: Path, stem: str, base: Optional[Path] = None) -> list[Path]:
    notes = build_notes(job)
    manifest = read_lock(lock_path, base)
    previous = manifest.notes_of(job.lang)
    retired = _retired(job, previous, notes)
    stamped = stamp(previous, {n.card_id: n.content_hash for n in (*notes, *retired)},
                    kinds={n.card_id: n.kind for n in (*notes, *retired)})
    models = stamp(manifest.models, _model_hashes())
    newest = max(entry.mod for entry in (*stamped.values(), *models.values()))
    path = job.output(stem, ".apkg")
    with ThreadPoolExecutor(max_workers=1) as drawing:
        media = drawing.submit(_media, job, notes)  # Pillow and zlib release the GIL: drawn while the rows go in
        database = collection(models=[note_type.model_json(models[key].mod, stable_id(ROOT_DECK))
                                      for key, note_type in NOTE_TYPES.items()],
                              decks=_decks(job, notes),
                              notes=[*(_packaged(note, stamped[note.card_id].mod, dues)
                                       for note, dues in zip(notes, card_positions(notes))),
                                     *(_packaged(note, stamped[note.card_id].mod, ()) for note in retired)],
                              timestamp=newest)
        write_apkg(path, database, media.result())
    kept = {k: e for k, e in previous.items() if k not in stamped}  # every note ever published stays known
    write_manifest(lock_path, manifest.with_entries(job.lang, {**kept, **stamped}, models))
    return [path]


def diff(job: RenderJob, lock_path: Path, base: Optional[Path] = None) -> DeckDiff:
    """What ``render`` would change against the manifest; writes nothing."""
    manifest = read_lock(lock_path, base)
    notes = build_notes(job)
    previous = manifest.notes_of(job.lang)
    hashes = {n.card_id: n.content_hash for n in notes}
    retiring = retirements(job, previous, set(hashes))
    changes = compare(previous, hashes, _still_defined(job))
    changes = Changes(changes.added, changes.changed, tuple(k for k in changes.removed if k not in retiring),
                      tuple((card_id, retiring[card_id][1]) for card_id in sorted(retiring)))
    old_models = manifest.models
    models_changed = tuple(NOTE_TYPES[key].name for key, content_hash in _model_hashes().items()
                           if key in old_models and old_models[key].hash != content_hash)
    return DeckDiff(job.lang, Path(lock_path), changes, models_changed)


@contextmanager
def _without_cycle_collection():
    """Pause the cyclic garbage collector while a deck is built.

    A big deck allocates hundreds of thousands of small objects that form no
    cycles (reference counting frees them); the collector's repeated scans of
    them cost about a sixth of the build time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _model_hashes() -> dict[str, str]:
    return {key: note_type.content_hash() for key, note_type in NOTE_TYPES.items()}


def _still_defined(job: RenderJob) -> set[str]:
    """Ids the loaded content defines, selected for this build or not (``Course.origins`` spans all files)."""
    return job.course.defined_ids("cards")


def _retired(job: RenderJob, previous, notes: list[NoteSpec]) -> list[NoteSpec]:
    """The published notes this build writes as retired, after the live ones, without cards (``retired.py``)."""
    found = retirements(job, previous, {n.card_id for n in notes})
    return [retired_note(job.lang, card_id, kind, why) for card_id, (kind, why) in sorted(found.items())]


def _decks(job: RenderJob, notes: list[NoteSpec]) -> list[dict]:
    """The root deck (no cards of its own) and one per module that has cards, in module order. The root's
    description says what the deck is, what ℹ means where a card shows one, and where it was verified."""
    explained = any(EXPLAIN in field for note in notes for field in note.fields)
    lines = [_ROOT_DESCRIPTION[job.lang], *([all_words(job.lang)["explained"]] if explained else []), job.verified_line()]
    decks = {ROOT_DECK: "<br>".join(escape(line) for line in lines)}
    for module in job.course.modules:
        if module.cards:
            decks.setdefault(deck_name(module, job.course), job.t(module.summary))
    return [genanki.Deck(stable_id(name), name, description=text).to_json() for name, text in decks.items()]


def _packaged(note: NoteSpec, mod: int, dues: tuple[int, ...]) -> PackagedNote:
    return PackagedNote(note.guid, NOTE_TYPES[note.kind].model_id, stable_id(note.deck), mod, dues,
                        note.fields, note.tags, note.ords)


def _media(job: RenderJob, notes: list[NoteSpec]) -> dict[str, bytes]:
    """The diagrams the notes show, and the module map and cuDNN flow in any case, light and night."""
    names = dict.fromkeys([*REQUIRED_DIAGRAMS, *(name for note in notes for name in note.diagrams)])
    variants = [Variant(job.lang, night) for night in (False, True)]
    return {card_diagram_filename(name, job.course, variant): card_diagram_png(name, job.course, variant)
            for name in names for variant in variants}


_ROOT_DESCRIPTION = {"en": "Machine-verified flash cards on torch.backends, in teaching order.",
                     "zh": "经机器验证的 torch.backends 记忆卡，按教学顺序排列。"}
