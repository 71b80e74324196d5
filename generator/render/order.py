"""The order an item's options are shown in, the same in every output (Anki, slides, Moodle).

Content lists options in whatever order its author wrote them, mostly with the correct one first;
shown that way, the answer gives itself away. So:

- true/false items always read "True", then "False";
- the single-answer items of the course (MCQ cards, and questions, each on their own) take the
  position of their correct option from one balanced cycle (every position equally often: 12
  slots serve 2, 3 and 4 options alike), shuffled by a fixed seed, so the answer is spread over
  A to D and no pattern runs from one item to the next; the other options are shuffled by a
  generator seeded with the item's id;
- multi-answer items are shuffled by their id.

A build shows the same order every time. Adding or removing a single-answer item redraws the
cycle, and so the order of others: Anki then updates those notes in place, reviews kept.
"""
from __future__ import annotations

import random
from collections import OrderedDict
from typing import Optional, Sequence

_CYCLE = 12  # divisible by 2, 3 and 4: a balanced cycle of slots is balanced for each option count
_SLOTS: "OrderedDict[int, tuple[object, dict]]" = OrderedDict()  # id(course) -> (course, slots), a few kept


def option_order(item_id: str, kind: str, options: Sequence, slot: Optional[int] = None) -> tuple[int, ...]:
    """Indices of ``options`` in the order to show them; ``slot`` places a single correct option."""
    order = list(range(len(options)))
    if kind == "truefalse":
        return tuple(sorted(order, key=lambda i: options[i].text.en.strip().lower() != "true"))
    random.Random(f"torchdeck options:{item_id}").shuffle(order)
    correct = [i for i in order if options[i].correct]
    if slot is not None and len(correct) == 1:
        order.remove(correct[0])
        order.insert(slot % len(options), correct[0])
    return tuple(order)


def letter(index: int) -> str:
    """A, B, ..., Z: the letter of an option (or a quiz's version) in every output."""
    return chr(ord("A") + index)


def shown(item, course) -> list:
    """``item``'s options (an MCQ card's or a question's) in the order every output shows them."""
    kind = getattr(item, "kind", "")
    slot = _slots(course).get((_section(item), item.id))
    return [item.options[i] for i in option_order(item.id, kind, item.options, slot)]


def _section(item) -> str:
    return "questions" if item.kind in ("single", "multi", "truefalse", "scenario") else "cards"


def _slots(course) -> dict:
    cached = _SLOTS.get(id(course))
    if cached is not None and cached[0] is course:
        return cached[1]
    slots: dict = {}
    modules = course.all_modules  # a module's deck shows the order the whole deck shows
    for section, items in (("cards", [c for m in modules for c in m.cards if c.kind == "mcq"]),
                           ("questions", [q for m in modules for q in m.questions if q.kind != "truefalse"])):
        singles = [item for item in items if sum(o.correct for o in item.options) == 1]
        cycle = [index % _CYCLE for index in range(len(singles))]
        random.Random(f"torchdeck slots:{section}").shuffle(cycle)
        slots.update(((section, item.id), slot) for item, slot in zip(singles, cycle))
    _SLOTS[id(course)] = (course, slots)
    while len(_SLOTS) > 8:
        _SLOTS.popitem(last=False)
    return slots
