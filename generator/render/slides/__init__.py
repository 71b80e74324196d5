"""Slides: a PowerPoint presentation per language, one per module, or a workshop's.

``plan`` decides what each slide says (format-neutral ``text`` spans), ``flow``
measures it with the real fonts (``fit``) and pours it onto as many slides as it
needs, ``writer`` draws it into ``templates/slides.pptx`` (layouts by name, runs as
``drawingml``) and saves reproducible bytes.
"""
from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ... import resources
from ...atomic import atomic_write_bytes
from ...model import Workshop
from ...wording import words as all_words
from ...workshops import course_for, file_stem
from ..base import RenderJob
from .pdf import write_pdf
from .plan import SlidePlan, SlideSpec, title_text
from .words import words
from .workshop import WorkshopPlan
from .writer import PartWords, PresentationWriter

TEMPLATE = resources.templates() / "slides.pptx"
STEM = "torch-backends"


@dataclass(frozen=True)
class SlidesOptions:
    """``per_module``: one presentation per selected module instead of one for the selection;
    ``workshop``: that workshop's deck instead, its clock started at ``start`` (minutes after midnight);
    ``pdf``: a PDF of each deck beside it too (LibreOffice converts it)."""

    per_module: bool = False
    template: Path = TEMPLATE
    workshop: Optional[Workshop] = None
    start: int = 9 * 60
    pdf: bool = False


def render(job: RenderJob, options: SlidesOptions = SlidesOptions()) -> list[Path]:
    """Write ``build/torch-backends.<lang>.pptx``, or with ``per_module`` one presentation per module; with
    ``pdf``, each deck's PDF after it.

    A module's presentation is that module selected from the whole course (``Course.select``), so its
    map of torch.backends still shows every module.
    """
    decks = _decks(job, options)
    if not options.pdf:
        return decks
    date = document_date(job.verification.date)
    return [path for deck in decks for path in (deck, write_pdf(deck, date))]


def _decks(job: RenderJob, options: SlidesOptions) -> list[Path]:
    if options.workshop is not None:
        part = dataclasses.replace(job, course=course_for(options.workshop, job.course))
        path = job.output(file_stem(options.workshop), ".pptx")
        atomic_write_bytes(path, build_presentation(part, template=options.template, workshop=options.workshop,
                                                    start=options.start))
        return [path]
    if options.per_module:
        parts = [(f"{STEM}.{m.name}", dataclasses.replace(job, course=job.course.select([m.name])))
                 for m in job.course.modules]
    else:
        parts = [(STEM, job)]
    paths = []
    for stem, part in parts:
        path = part.output(stem, ".pptx")
        atomic_write_bytes(path, build_presentation(part, whole_course=not options.per_module,
                                                    template=options.template))
        paths.append(path)
    return paths


def build_presentation(job: RenderJob, *, whole_course: bool = True, template: Path = TEMPLATE,
                       workshop: Optional[Workshop] = None, start: int = 9 * 60) -> bytes:
    """The presentation of ``job.course`` as .pptx bytes; with ``workshop``, that workshop's deck (made to
    be presented: its footer is its title, not the verification counts)."""
    wording = words(job.lang)
    if workshop is not None:
        specs = WorkshopPlan(job, workshop, start).slides()
        footer = job.t(workshop.title)
    else:
        specs = SlidePlan(job, whole_course=whole_course).slides()
        footer = job.verified_on()  # the torch it was verified against; the counts are the author's
    writer = PresentationWriter(template, job.lang, footer, part_words(job.lang),
                                lambda spec, page, pages: notes_lines(wording, spec, page, pages, job.lang),
                                presenting=workshop is not None)
    for spec in specs:
        writer.add(spec)
    return writer.finish(specs[0].title, document_date(job.verification.date))


def part_words(lang: str) -> PartWords:
    """How ``lang`` heads the slides of what goes on over several."""
    everything = all_words(lang)
    return PartWords(everything["slides"]["part"], everything["label"], everything["separators"][0])


def title_problems(course, lang: str, workshop: Optional[Workshop] = None, workshops_file=None,
                   template: Path = TEMPLATE):
    """A ``Problem`` (file:line) for each title the content gives a slide (a lesson's, a module's, a
    workshop's) that does not fit its slide's title box even at the smallest size: found before anything
    is built, where the writer would fail half-way."""
    from ...errors import Problem

    writer = PresentationWriter(template, lang, "", part_words(lang), lambda *_: [], presenting=workshop is not None)

    def t(text):
        return text.get(lang) if text is not None else ""

    found = []

    def check(title: str, layout: str, file: str, line: int, field: str) -> None:
        if title and not writer.title_fits(title, layout):
            found.append(Problem(file, line, 1, field, f"the title {title!r} does not fit a slide's title box "
                                                       f"even at {writer.smallest:g} pt ({lang}); shorten it"))

    for module in course.modules:
        file = next((course.where(item.id, section).file for section in ("lessons", "facts", "cards", "questions")
                     for item in getattr(module, section)), "?")
        if module.lessons:
            check(module.display_title(lang), "Section", file, _line_of_key(file, "title:"), "title")
        for lesson in module.lessons:
            origin = course.where(lesson.id, "lessons")
            check(t(lesson.title), "Lesson", origin.file, origin.line, f"{lesson.id}.title")
            if lesson.diagrams:
                check(title_text(f"🖼️ {t(lesson.title)}"), "Diagram", origin.file, origin.line, f"{lesson.id}.title")
    if workshop is not None and workshops_file is not None:
        check(t(workshop.title), "Title", str(workshops_file), _line_of_key(workshops_file, f"- id: {workshop.id}"),
              f"{workshop.id}.title")
    return found


def _line_of_key(file, key: str) -> int:
    """The line of a content file where ``key`` starts one (a module's top-level ``title:``, a workshop's
    ``- id: ID``); 1 where it cannot be told."""
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    indented = key.startswith("-")  # a list item sits under its key; a module's own keys start the line
    return next((n for n, text in enumerate(lines, 1) if (text.lstrip() if indented else text).startswith(key)), 1)


def notes_lines(wording: dict, spec: SlideSpec, page: int, pages: int, lang: str) -> list[str]:
    """Speaker notes: what to say, the question for the room, the minutes to spend."""
    notes = spec.notes
    if notes is None:
        return []
    if notes.clock:  # a workshop's slide: its part's clock time, the same as the agenda's
        minutes = notes.clock + (all_words(lang)["workshop"]["clock_cont"] if page else "")
    else:
        minutes = (wording["minutes"].format(n=notes.minutes) if pages == 1
                   else wording["minutes_part"].format(n=notes.minutes, k=page + 1, total=pages))
    lines = [wording["say"] + notes.say, wording["ask"] + notes.ask, wording["time"] + minutes, *notes.more]
    verified = " · ".join(part for part in (notes.verified, spec.mark) if part)  # the slide shows neither
    return lines + [verified] if verified else lines


def document_date(text: str) -> datetime.datetime:
    """The verification date as the document's created/modified date (a fixed date if unreadable)."""
    try:
        return datetime.datetime.strptime(text[:10], "%Y-%m-%d")
    except ValueError:
        return datetime.datetime(2000, 1, 1)
