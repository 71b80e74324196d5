"""Workshop slides: a PowerPoint deck per language, or one per module.

``deck_plan`` decides what each slide says, ``flow`` measures it with the real
fonts and pours it onto as many slides as it needs, ``pptx_deck`` draws it into
``templates/slides.pptx`` (layouts by name) and saves reproducible bytes.
"""
from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path

from ..atomic import atomic_write_bytes
from .base import RenderJob
from .deck_plan import DeckPlan, SlideSpec
from .pptx_deck import DeckWriter
from .slide_words import words

TEMPLATE = Path(__file__).resolve().parents[2] / "templates" / "slides.pptx"
STEM = "torch-backends"


def render(job: RenderJob, per_module: bool = False, template: Path = TEMPLATE) -> list[Path]:
    """Write ``build/torch-backends.<lang>.pptx``, or with ``per_module`` one deck per module."""
    if per_module:
        decks = [(f"{STEM}.{m.name}", dataclasses.replace(job, course=job.course.select([m.name])))
                 for m in job.course.modules]
    else:
        decks = [(STEM, job)]
    paths = []
    for stem, deck_job in decks:
        path = deck_job.output(stem, ".pptx")
        atomic_write_bytes(path, build_deck(deck_job, whole_course=not per_module, template=template))
        paths.append(path)
    return paths


def build_deck(job: RenderJob, *, whole_course: bool = True, template: Path = TEMPLATE) -> bytes:
    """The deck of ``job.course`` as .pptx bytes."""
    wording = words(job.lang)
    specs = DeckPlan(job, whole_course=whole_course).slides()
    writer = DeckWriter(template, job.lang, job.verified_line(), wording["cont"],
                        lambda spec, page, pages: notes_lines(wording, spec, page, pages))
    for spec in specs:
        writer.add(spec)
    return writer.finish(specs[0].title, document_date(job.verification.date))


def notes_lines(wording: dict, spec: SlideSpec, page: int, pages: int) -> list[str]:
    """Speaker notes: what to say, the question for the room, the minutes to spend."""
    notes = spec.notes
    minutes = (wording["minutes"].format(n=notes.minutes) if pages == 1
               else wording["minutes_part"].format(n=notes.minutes, k=page + 1, total=pages))
    lines = [wording["say"] + notes.say, wording["ask"] + notes.ask, wording["time"] + minutes]
    return lines + [notes.verified] if notes.verified else lines


def document_date(text: str) -> datetime.datetime:
    """The verification date as the document's created/modified date (a fixed date if unreadable)."""
    try:
        return datetime.datetime.strptime(text[:10], "%Y-%m-%d")
    except ValueError:
        return datetime.datetime(2000, 1, 1)
