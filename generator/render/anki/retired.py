"""Retired notes: a note the deck published once that the course no longer teaches.

An ``.apkg`` cannot delete a note from a learner's collection. So a build writes each
such note once more, with the guid and note type it was published with (Anki updates it
in place, reviews kept) and a newer ``mod``: its front says it is retired and why (the
card was removed from the course, or a fact it rests on does not hold on the builder's
torch), and it carries the tag ``torchdeck::retired`` so one search finds them all. A
drift-retired card is written live again, with a newer ``mod`` still, once its facts hold.

A retired note goes into the package without cards. Anki's importer takes a package's
cards only for notes it adds or updates and only where the learner has no card of that
ordinal, and without "Import any learning progress" (off by default) it makes every card
it takes new and unsuspended, in a deck with the default options: a card shipped
suspended, or in a deck whose options allow no new cards, would still reach a first-time
learner's queue. A note without cards reaches nobody's queue: a first-time learner gets
the note alone; a learner who has it gets its text updated on the cards they already have.
"""
from __future__ import annotations

from markupsafe import Markup, escape

from ...wording import words
from ..base import RenderJob
from .lock import LockEntry
from .models import NOTE_TYPES
from .notes import ROOT_DECK, NoteSpec, content_hash, note_guid

TAG = "torchdeck::retired"

_WORDS = {
    "en": {"label": "Retired",
           "removed": "this card was removed from the course",
           "drift": "fact {facts} does not hold on torch {torch}",
           "advice": "Suspend or delete it: search tag:torchdeck::retired in Browse."},
    "zh": {"label": "已停用",
           "removed": "这张卡片已从课程中移除",
           "drift": "事实 {facts} 在 torch {torch} 上不成立",
           "advice": "请暂停或删除它：在浏览器中搜索 tag:torchdeck::retired。"},
}


def why(lang: str, failed_facts: tuple[str, ...], torch: str) -> str:
    """The reason, in the deck's language: removed, or which facts fail on which torch."""
    phrases = _WORDS.get(lang, _WORDS["en"])
    if not failed_facts:
        return phrases["removed"]
    return phrases["drift"].format(facts=words(lang)["separators"][0].join(failed_facts), torch=torch)


def retirements(job: RenderJob, previous: dict[str, LockEntry], written: set[str]) -> dict[str, tuple[str, str]]:
    """``card id -> (note type key, why)`` of each published note (in ``previous``) this build retires.

    A card left out because a fact failed is retired with those facts; a card the content no longer
    defines is retired as removed (a build of the whole course only: a ``--module`` build's package
    holds its modules' notes). One whose note type the lock does not know is not retired (``--diff``
    lists it as removed).
    """
    torch = job.verification.torch
    out: dict[str, tuple[str, str]] = {}
    for _, card, failed in job.course.left_out_cards:
        if card.id in previous and card.id not in written:
            out[card.id] = (card.kind, why(job.lang, tuple(failed), torch))
    if not job.course.whole:  # not a selection
        defined = job.course.defined_ids("cards")
        for card_id in sorted(previous):
            kind = previous[card_id].kind
            if card_id not in written and card_id not in out and card_id not in defined and kind in NOTE_TYPES:
                out[card_id] = (kind, why(job.lang, (), torch))
    return out


def retired_note(lang: str, card_id: str, kind: str, reason: str) -> NoteSpec:
    """The note published as ``card_id`` once more, saying it is retired and why; it has no cards (no ordinals,
    no deck of its own, no new-card position): see the module's docstring."""
    phrases = _WORDS.get(lang, _WORDS["en"])
    # a cloze's front shows its hint: "[Retired]", not "[...]"
    label = f"{{{{c1::{phrases['label']}::{phrases['label']}}}}}" if kind == "cloze" else phrases["label"]
    banner = str(Markup('<div class="retired"><b>%s</b>%s%s</div><div class="retired-advice">%s</div>')
                 % (Markup(escape(label)), words(lang)["label"], reason, phrases["advice"]))
    count = len(NOTE_TYPES[kind].fields)
    # the banner heads each card's front once: the first field, and the Back a reversed card shows first
    fields = tuple([banner, banner if kind == "reverse" else ""] + [""] * (count - 2))[:count]
    tags = (TAG,)
    return NoteSpec(card_id, kind, ROOT_DECK, fields, tags, note_guid(lang, card_id), 0, (), (),
                    content_hash(kind, fields, tags))
