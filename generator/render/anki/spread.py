"""New-card positions: the notes' teaching order, with a note's sibling cards spread apart.

Anki's default options introduce 20 new cards a day (``NEW_PER_DAY``), gathered deck
by deck and, within a deck, by position (a card's ``due`` while it is new), and do
not bury siblings. A reversed card or a second cloze placed beside its first card
would therefore come on the same day. Here a note's first card keeps the note's
teaching position and its k-th sibling follows the first card of the note k × 20
notes later in the same deck, so at least 20 cards lie between them: another day.
Near a deck's end the sibling goes after the deck's last note instead, which may
still be the same day; decks stay whole, in teaching order.
"""
from __future__ import annotations

from typing import Sequence

NEW_PER_DAY = 20  # Anki's default "New cards/day"


def card_positions(notes: Sequence) -> list[tuple[int, ...]]:
    """For ``notes`` in teaching order (each with ``deck`` and ``ords``), each note's card positions
    (1, 2, ... over the whole deck), aligned with its ``ords``."""
    deck_order: dict[str, int] = {}
    members: dict[str, list[int]] = {}
    for index, note in enumerate(notes):
        deck_order.setdefault(note.deck, len(deck_order))
        members.setdefault(note.deck, []).append(index)
    keys = []
    for deck, indices in members.items():
        last = len(indices) - 1
        for local, index in enumerate(indices):
            for k in range(len(notes[index].ords)):
                anchor = min(local + NEW_PER_DAY * k, last) if k else local
                keys.append(((deck_order[deck], anchor, 1 if k else 0, local, k), index, k))
    positions: list[list[int]] = [[0] * len(note.ords) for note in notes]
    for position, (_, index, k) in enumerate(sorted(keys), 1):
        positions[index][k] = position
    return [tuple(p) for p in positions]
