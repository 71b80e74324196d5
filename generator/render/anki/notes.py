"""Cards of the course to Anki notes: fields as HTML, tags, deck, GUID and teaching position.

Nothing here knows about packages or time; a note's identity is its GUID
(language and card id) and its content is what ``content_hash`` covers.
"""
from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from typing import Iterator, NamedTuple, Optional

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template
from markupsafe import Markup

from ...diagrams import Variant, card_diagram_filename
from ...errors import BuildError
from ...model import Card, ClozeCard, CodeCard, Course, Lesson, McqCard, Module
from ...text import Text
from ..base import RenderJob
from ..html import ShownOption, cloze, code_block, highlight_ahead, inline, mcq_fields, verified_fields
from ..order import shown as shown_options
from .models import NOTE_TYPES, TEMPLATE_DIR

ROOT_DECK = "PyTorch torch.backends"
_CLOZE_NUMBER = re.compile(r"\{\{c(\d+)::")
_NO_TEXT = Markup("")


class NoteSpec(NamedTuple):
    """One note as Anki will store it, before it has a ``mod`` (a tuple: a big deck makes thousands)."""

    card_id: str
    kind: str
    deck: str
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    guid: str
    due: int
    ords: tuple[int, ...]
    diagrams: tuple[str, ...]
    content_hash: str  # changes exactly when an import would change the note: note type, fields or tags


def content_hash(kind: str, fields: tuple[str, ...], tags: tuple[str, ...]) -> str:
    """16 hex digits of a SHA-256 of what an import stores: note type, fields and tags (``deck.lock`` keeps it)."""
    text = "\x1e".join((NOTE_TYPES[kind].name, "\x1f".join(fields), " ".join(tags)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def deck_name(module: Module, course: Course) -> str:
    """``PyTorch torch.backends::02 cudnn``: the module's place in the course's teaching order, then its name.

    Anki's default options gather new cards deck by deck, taking the decks in
    alphabetical order; the zero-padded number makes that the teaching order. The
    number counts every loaded module, so a ``--module`` build names its deck as the
    whole deck does.
    """
    modules = [m.module for m in course.all_modules]
    width = max(2, len(str(len(modules))))
    return f"{ROOT_DECK}::{modules.index(module.module) + 1:0{width}d} {module.name}"


def note_guid(lang: str, card_id: str) -> str:
    """Identity of a note: never its text, so an edited card updates the note in place.

    12 URL-safe base64 characters of a SHA-256; published decks depend on it, so it never changes.
    """
    digest = hashlib.sha256(f"torchdeck\x1f{lang}\x1f{card_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:9]).decode()


def build_notes(job: RenderJob) -> list[NoteSpec]:
    """Every card of the course as a note, in teaching order (``due`` 1, 2, ...).

    Where a deck has much code to colour, that runs in another process while
    the other notes are rendered here; the code notes follow once it is done.
    """
    builder = _NoteBuilder(job)
    placed = sorted(((builder.rank(module_index, card), position, module, card)
                     for position, (module_index, module, card) in enumerate(_cards(job.course))),
                    key=lambda item: item[:2])
    numbered = [(due, module, card) for due, (_, _, module, card) in enumerate(placed, 1)]
    ahead = highlight_ahead((job.code(card), card.language) for _, _, card in numbered if card.kind == "code")
    if ahead is None:
        return [builder.note(module, card, due) for due, module, card in numbered]
    try:
        notes = [builder.note(module, card, due) for due, module, card in numbered if card.kind != "code"]
        ahead.wait()
    finally:
        ahead.cancel()
    notes += [builder.note(module, card, due) for due, module, card in numbered if card.kind == "code"]
    return sorted(notes, key=lambda note: note.due)


def _cards(course: Course) -> Iterator[tuple[int, Module, Card]]:
    for module_index, module in enumerate(course.modules):
        for card in module.cards:
            yield module_index, module, card


class _NoteBuilder:
    """Renders the fields of one job's cards, sharing the parts many cards repeat."""

    def __init__(self, job: RenderJob):
        self.job = job
        self.course = job.course
        self.lang = job.lang
        self.lessons_of_fact, self.lesson_rank, self.module_end = _lesson_index(job.course)
        self.version_tag = f"verified::torch-{_public_version(job.verification.torch)}"
        # many cards rest on the same facts: render what depends only on them once
        self._verified = lru_cache(maxsize=None)(self._verified_field)
        self._scope = lru_cache(maxsize=None)(self._scope_badge)
        self._status_tags = lru_cache(maxsize=None)(self._status_tags_of)
        self._diagram_field = lru_cache(maxsize=None)(self._diagram_html)
        self._ranks = lru_cache(maxsize=None)(self._rank_of)
        self._tags = lru_cache(maxsize=None)(self._tags_of)
        self._decks: dict[str, str] = {}

    def rank(self, module_index: int, card: Card) -> float:
        """Position of the first lesson teaching one of the card's facts; else the end of its module."""
        return self._ranks(module_index, tuple(card.facts))

    def _rank_of(self, module_index: int, facts: tuple[str, ...]) -> float:
        ranks = [self.lesson_rank[lesson.id] for fact in facts for lesson in self.lessons_of_fact.get(fact, ())]
        return min(ranks, default=self.module_end[module_index] - 0.5)

    def note(self, module: Module, card: Card, due: int) -> NoteSpec:
        """The note of ``card``; it shows the one diagram the card names (a card about the diagram), no other."""
        facts = tuple(card.facts)
        diagrams = (card.diagram,) if card.diagram else ()
        own = card.source.source if card.source is not None else None
        first, rest = self.own_fields(card)
        scope = self._scope(facts)
        fields = tuple(map(str, (scope + first if scope else first, *rest, self.source(card),
                                 self._verified(facts, own), self.text(card.extra), self._diagram_field(diagrams))))
        tags = self._tags(tuple(card.tags), module.module, card.kind, card.difficulty, facts)
        return NoteSpec(card.id, card.kind, self.deck(module), fields, tags, note_guid(self.job.lang, card.id), due,
                        _card_ords(card.kind, fields[0]), diagrams, content_hash(card.kind, fields, tags))

    def deck(self, module: Module) -> str:
        deck = self._decks.get(module.module)
        if deck is None:
            deck = self._decks[module.module] = deck_name(module, self.course)
        return deck

    def own_fields(self, card: Card) -> tuple[Markup, tuple[str, ...]]:
        """The fields of the card's note type before the common ones: the first (the scope badge heads it) and the rest."""
        if isinstance(card, ClozeCard):
            return self.cloze_text(card), (self.text(card.back_extra),)
        if isinstance(card, McqCard):
            return self.question(card), self.mcq(card)
        if isinstance(card, CodeCard):
            return self.text(card.front), (code_block(self.job.code(card), card.language), self.text(card.back))
        return self.text(card.front), (self.text(card.back),)

    def text(self, text: Optional[Text]) -> Markup:
        return inline(text.get(self.lang)) if text is not None else _NO_TEXT

    def _tags_of(self, own: tuple[str, ...], module: str, kind: str, difficulty: int,
                 facts: tuple[str, ...]) -> tuple[str, ...]:
        generated = [module.replace(".", "::"), f"kind::{kind}", f"difficulty::{difficulty}"]
        return tuple(dict.fromkeys([*own, *generated, *self._status_tags(facts)]))

    def _status_tags_of(self, facts: tuple[str, ...]) -> list[str]:
        return self.job.unverified_tags(facts) or [self.version_tag]

    def source(self, card: Card) -> str:
        """The card's own quote (its address goes to the footer with the facts' sources)."""
        if card.source is None:
            return ""
        return _render_field("field.source.html", quote=self.text(card.source.text))

    def _verified_field(self, facts: tuple[str, ...], own_source: Optional[str]) -> str:
        """The folded footer (``html.verified_fields``): the card's own source first, then its facts'."""
        return _render_field("field.verified.html", **verified_fields(self.job, facts, own_source))

    def _scope_badge(self, facts: tuple[str, ...]) -> Markup:
        """'since torch 2.15' above the question of a card whose facts hold only for some releases or builds."""
        scope = self.job.scope(facts)
        return Markup(_render_field("field.scope.html", scope=scope)) if scope else Markup("")

    def _diagram_html(self, names: tuple[str, ...]) -> str:
        if not names:
            return ""
        shown = [{"name": name, "light": card_diagram_filename(name, self.course, Variant(self.job.lang, False)),
                  "night": card_diagram_filename(name, self.course, Variant(self.job.lang, True))} for name in names]
        return _render_field("field.diagram.html", diagrams=shown)

    def cloze_text(self, card: ClozeCard) -> Markup:
        try:
            return cloze(self.job.t(card.text))
        except ValueError as err:
            raise BuildError(f"{self.course.where(card.id, 'cards')}: card {card.id} ({self.job.lang}): {err}") from None

    def question(self, card: McqCard) -> Markup:
        """An MCQ card's question, with '(select all that apply)' where several options are correct."""
        hint = self.job.multi_hint(card)
        return self.text(card.question) + (Markup(' <span class="hint">%s</span>') % hint if hint else "")

    def mcq(self, card: McqCard) -> tuple[str, str]:
        """The Options field (front) and the Answers field (back) of an MCQ card."""
        return mcq_fields([ShownOption(self.text(o.text), self.text(o.why), o.correct)
                           for o in shown_options(card, self.course)])


def _card_ords(kind: str, first_field: str) -> tuple[int, ...]:
    """The cards Anki makes of a note: one per cloze number, two for a reversed pair, else one."""
    if kind == "cloze":
        return tuple(sorted({int(n) - 1 for n in _CLOZE_NUMBER.findall(first_field) if int(n) > 0}))
    return (0, 1) if kind == "reverse" else (0,)


def _lesson_index(course: Course) -> tuple[dict[str, list[Lesson]], dict[str, int], list[int]]:
    """Lessons teaching each fact (in course order), each lesson's rank, and where each module's lessons end."""
    lessons_of_fact: dict[str, list[Lesson]] = {}
    lesson_rank: dict[str, int] = {}
    module_end: list[int] = []
    rank = 0
    for module in course.modules:
        for lesson in module.lessons:
            lesson_rank[lesson.id] = rank
            rank += 1
            for fact in lesson.facts:
                lessons_of_fact.setdefault(fact, []).append(lesson)
        module_end.append(rank)
    return lessons_of_fact, lesson_rank, module_end


def _public_version(version: str) -> str:
    """``2.13.0`` for ``2.13.0+cpu``: the tag names the release, not the build."""
    return version.split("+", 1)[0].replace(" ", "-")


@lru_cache(maxsize=None)
def _field_environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATE_DIR), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, auto_reload=False)


@lru_cache(maxsize=None)
def _field_template(file_name: str) -> Template:
    return _field_environment().get_template(file_name)


def _render_field(file_name: str, **values: object) -> str:
    return _field_template(file_name).render(**values).strip()
