"""What the workshop deck says, slide by slide, before anything is measured or drawn.

The teaching sequence: title; learning outline; the map of torch.backends (unless
the first module shows it anyway); then per module a section slide listing its
lessons and, per lesson, its slides (points, code, table, quote, analogy), its
diagrams and the quiz questions that test what it taught (each followed by its
answer); a "review so far" every ``REVIEW_EVERY`` lessons, from their takeaways; at
the end a cheat sheet (a line per lesson) and a flashcard recap (the first
``FLASHCARDS_PER_MODULE`` cards of each module). A question goes after the last
lesson of its module that teaches one of its facts, or at the end of the module.
"""
from __future__ import annotations

import dataclasses
import io
import re
from dataclasses import dataclass
from typing import Optional

from PIL import Image

from ...diagrams import DIAGRAM_NAMES, diagram_png
from ...markup import cloze_answers, cloze_blanks
from ...model import Card, Lesson, Module, Question
from ..base import RenderJob
from ..order import shown
from .flow import Block, CodeBlock, PictureBlock, TableBlock, TextBlock
from .text import Para, Span, code_lines, inline
from .words import MINUTES, lessons_and_minutes, words

REVIEW_EVERY = 3
FLASHCARDS_PER_MODULE = 3
BACKENDS_MAP = "backends-map"


@dataclass(frozen=True)
class Notes:
    say: str
    ask: str
    minutes: int
    verified: str = ""  # where the facts behind the slide were verified (job.verified_where)
    clock: str = ""  # a workshop's: the clock time and minutes of the slide's part ('09:14 · 6 min')
    more: tuple[str, ...] = ()  # what the slide leaves to the speaker: explanations, the why of each option


@dataclass(frozen=True)
class SlideSpec:
    """One slide of the plan; its blocks may flow onto '(cont.)' slides when drawn.

    ``name`` (``kind:key``) becomes the slide's name in the file; ``mark`` is the
    "not verified here" line shown on every slide the spec becomes.
    """

    layout: str
    name: str
    title: str
    blocks: tuple[Block, ...] = ()
    notes: Optional[Notes] = None
    mark: str = ""


def letter(index: int) -> str:
    return chr(ord("A") + index)


class SlidePlan:
    """Builds the slide specs of one deck from a verified course."""

    def __init__(self, job: RenderJob, *, whole_course: bool = True):
        self.job = job
        self.words = words(job.lang)
        self.whole_course = whole_course

    def t(self, text) -> str:
        return self.job.t(text)

    # ------------------------------------------------------------ deck
    def slides(self) -> list[SlideSpec]:
        course = self.job.course
        body: list[SlideSpec] = []
        pending: list[Lesson] = []
        for module in course.modules:
            body.append(self.section(module))
            placed = self._questions_by_lesson(module)
            for lesson in module.lessons:
                body.append(self.lesson(lesson))
                body += [self.diagram(name, lesson) for name in lesson.diagrams]
                for question in placed.get(lesson.id, ()):
                    body += [self.quiz(question), self.answer(question)]
                pending.append(lesson)
                if len(pending) == REVIEW_EVERY:
                    body.append(self.review(pending))
                    pending = []
            for question in placed.get(None, ()):
                body += [self.quiz(question), self.answer(question)]
        body += [self.cheat_sheet(), self.flashcards()]
        head = [self.outline()]
        if self.opens_with_map():
            head.append(self.backends_map())
        minutes = sum(s.notes.minutes for s in head + body if s.notes)
        return [self.title(minutes), *head, *body]

    def opens_with_map(self) -> bool:
        """The map of torch.backends comes right after the outline unless the first module shows it anyway."""
        modules = self.job.course.modules
        first = [name for lesson in modules[0].lessons for name in lesson.diagrams] if modules else []
        return BACKENDS_MAP in DIAGRAM_NAMES and BACKENDS_MAP not in first

    def _questions_by_lesson(self, module: Module) -> dict[Optional[str], list[Question]]:
        placed: dict[Optional[str], list[Question]] = {}
        for question in module.questions:
            target = None
            for lesson in module.lessons:
                if set(lesson.facts) & set(question.facts):
                    target = lesson.id
            placed.setdefault(target, []).append(question)
        return placed

    def _notes(self, kind: str, minutes: Optional[int] = None, **fields) -> Notes:
        say, ask = self.words["notes"][kind]
        return Notes(say.format(**fields), ask.format(**fields), minutes or MINUTES[kind])

    # ---------------------------------------------------- opening slides
    def title(self, minutes: int) -> SlideSpec:
        course = self.job.course
        lessons, questions = len(course.lessons), len(course.questions)
        if self.whole_course:
            title = self.words["course"]
            line = self.words["course_sub"].format(modules=len(course.modules), lessons=lessons,
                                                   questions=questions, minutes=minutes)
            paras = (Para(inline(line), 22),)
        else:
            module = course.modules[0]
            title = module.display_title(self.job.lang)
            line = self.words["module_sub"].format(lessons=lessons, questions=questions, minutes=minutes)
            paras = (Para(inline(self.t(module.summary)), 22), Para(inline(line), 18, before=12)) \
                if module.summary else (Para(inline(line), 22),)
        return SlideSpec("Title", "title", title, (TextBlock(paras),))

    def outline(self) -> SlideSpec:
        """One line per module: the route of the day (each section slide lists its lessons)."""
        paras = []
        for module in self.job.course.modules:
            minutes = sum(lesson.minutes for lesson in module.lessons)
            meta = lessons_and_minutes(self.job.lang, len(module.lessons), minutes)
            paras.append(Para((Span(module.display_title(self.job.lang), bold=True), Span(f"  ·  {meta}")), 18,
                              bullet="•", margin=18, before=6))
        notes = self._notes("outline", modules=len(self.job.course.modules))
        return SlideSpec("Outline", "outline", self.words["outline"], (TextBlock(tuple(paras)),), notes)

    def backends_map(self) -> SlideSpec:
        return SlideSpec("Diagram", f"diagram:{BACKENDS_MAP}", self.words["map"],
                         (self._picture(BACKENDS_MAP),), self._notes("map"))

    def _picture(self, name: str) -> PictureBlock:
        png = diagram_png(name, self.job.course)
        with Image.open(io.BytesIO(png)) as image:
            return PictureBlock(png, image.size)

    # ------------------------------------------------------------ module
    def section(self, module: Module) -> SlideSpec:
        """The module's path, summary and its lessons in order: the outline of what comes next."""
        minutes = sum(lesson.minutes for lesson in module.lessons)
        line = self.words["module_sub"].format(lessons=len(module.lessons), questions=len(module.questions),
                                               minutes=minutes)
        paras = [Para((Span(module.module, mono=True),), 18)]
        if module.summary:
            paras.append(Para(inline(self.t(module.summary)), 20, before=8))
        paras.append(Para(inline(line), 16, before=10))
        if module.lessons:
            route = "  ·  ".join(f"{n}. {self.t(lesson.title)}" for n, lesson in enumerate(module.lessons, 1))
            paras.append(Para(inline(route), 16, before=12))
        notes = self._notes("section", summary=self.t(module.summary) or module.module, module=module.module)
        return SlideSpec("Section", f"section:{module.name}", module.display_title(self.job.lang),
                         (TextBlock(tuple(paras)),), notes)

    def lesson(self, lesson: Lesson) -> SlideSpec:
        blocks: list[Block] = []
        if lesson.points:
            blocks.append(TextBlock(tuple(Para(inline(self.t(p)), 20, bullet="•", margin=20, before=6)
                                          for p in lesson.points)))
        for example in lesson.code:
            if example.caption:
                blocks.append(TextBlock((Para(inline(self.t(example.caption), italic=True), 16),), "caption",
                                        keep_with_next=True))
            blocks.append(CodeBlock(tuple(code_lines(self.job.code(example), example.language))))
        if lesson.table:
            blocks.append(self._table(lesson.table.columns, lesson.table.rows))
        if lesson.quote:
            source = re.sub(r"^https?://", "", lesson.quote.source)
            blocks.append(TextBlock((Para(inline(f"“{self.t(lesson.quote.text)}”", italic=True), 18),
                                     Para((Span(self.words["source"] + source, colour="accent2"),), 14, before=4)),
                                    "quote"))
        if lesson.analogy:
            blocks.append(TextBlock((Para(inline(self.t(lesson.analogy)), 18),), "callout"))
        title = self.t(lesson.title)
        takeaway = self.t(lesson.takeaway) or "; ".join(self.t(p) for p in lesson.points[:2]) or title
        fallback = self._notes("lesson", lesson.minutes, takeaway=takeaway, title=title)
        notes = Notes(self.t(lesson.notes) or fallback.say, self.t(lesson.ask) or fallback.ask, lesson.minutes,
                      self.job.verified_where(lesson.facts))
        return SlideSpec("Lesson", f"lesson:{lesson.id}", title, tuple(blocks), notes,
                         self.job.item_mark(lesson.facts))

    def _table(self, columns, rows, size: float = 16) -> TableBlock:
        header = tuple((Para(inline(self.t(c), bold=True, colour="bg1"), size),) for c in columns)
        body = tuple(tuple((Para(inline(self.t(cell)), size),) for cell in row) for row in rows)
        return TableBlock(header, body)

    def diagram(self, name: str, lesson: Lesson) -> SlideSpec:
        return SlideSpec("Diagram", f"diagram:{name}", f"🖼️ {self.t(lesson.title)}", (self._picture(name),),
                         self._notes("diagram"), self.job.item_mark(lesson.facts))

    # -------------------------------------------------------------- quiz
    def _stem(self, question: Question, size: float, bold: bool) -> list[Block]:
        blocks: list[Block] = [TextBlock((Para(inline(self.t(question.stem), bold=bold), size),))]
        if question.code:
            blocks.append(CodeBlock(tuple(code_lines(self.job.code(question), question.language))))
        return blocks

    def quiz(self, question: Question) -> SlideSpec:
        options = tuple(Para((Span(f"{letter(i)}.  ", bold=True, colour="accent1"), *inline(self.t(o.text))),
                             22, before=10) for i, o in enumerate(shown(question, self.job.course)))
        notes = dataclasses.replace(self._notes("quiz", stem=self.t(question.stem)),
                                    verified=self.job.verified_where(question.facts))
        stem = self._stem(question, 24, True)
        hint = self.job.multi_hint(question)
        if hint:
            stem.insert(1, TextBlock((Para((Span(hint, italic=True),), 20),)))
        return SlideSpec("Quiz", f"quiz:{question.id}", self.words["quiz"][question.kind],
                         (*stem, TextBlock(options)), notes,
                         self.job.item_mark(question.facts))

    def answer(self, question: Question) -> SlideSpec:
        letters = ", ".join(letter(i) for i, o in enumerate(shown(question, self.job.course)) if o.correct)
        paras = []
        for index, option in enumerate(shown(question, self.job.course)):
            mark, colour = ("✔", "accent3") if option.correct else ("✘", "accent4")
            paras.append(Para((Span(f"{mark} {letter(index)}.  ", bold=True, colour=colour),
                               *inline(self.t(option.text), bold=option.correct)), 20, before=10))
            paras.append(Para((Span(self.words["why"], italic=True), *inline(self.t(option.why))), 16,
                              margin=30, before=2))
        return SlideSpec("Answer", f"answer:{question.id}", self.words["answer"].format(letters=letters),
                         (*self._stem(question, 18, False), TextBlock(tuple(paras))),
                         dataclasses.replace(self._notes("answer"), verified=self.job.verified_where(question.facts)),
                         self.job.item_mark(question.facts))

    # ------------------------------------------------------------ recaps
    def _marked(self, text: str, fact_ids, **style) -> tuple[Span, ...]:
        note = self.job.item_mark(fact_ids)
        spans = inline(text, **style)
        return spans + (Span(f"  {note}", italic=True, colour="accent6"),) if note else spans

    def review(self, lessons: list[Lesson]) -> SlideSpec:
        paras = tuple(Para((Span(f"{self.t(lesson.title)}: ", bold=True),
                            *self._marked(self.t(lesson.takeaway) or self.t(lesson.title), lesson.facts)),
                           20, bullet="✔", margin=24, before=12) for lesson in lessons)
        key = lessons[-1].id
        return SlideSpec("Review", f"review:{key}", self.words["review"], (TextBlock(paras),),
                         self._notes("review"))

    def cheat_sheet(self) -> SlideSpec:
        rows = []
        for module in self.job.course.modules:
            for lesson in module.lessons:
                rows.append(((Para((Span(module.name, mono=True),), 15),),
                             (Para(inline(self.t(lesson.title)), 15),),
                             (Para(self._marked(self.t(lesson.takeaway) or "—", lesson.facts), 15),)))
        header = tuple((Para(inline(c, bold=True, colour="bg1"), 15),) for c in self.words["cheat_columns"])
        blocks = (TableBlock(header, tuple(rows)),) if rows else ()
        return SlideSpec("Cheat Sheet", "cheatsheet", self.words["cheat"], blocks, self._notes("cheat"))

    def flashcards(self) -> SlideSpec:
        rows = []
        for module in self.job.course.modules:
            for card in module.cards[:FLASHCARDS_PER_MODULE]:
                front, back = self.card_sides(card)
                rows.append(((Para(inline(front), 15),), (Para(self._marked(back, card.facts), 15),)))
        header = tuple((Para(inline(c, bold=True, colour="bg1"), 15),) for c in self.words["flash_columns"])
        blocks = (TableBlock(header, tuple(rows)),) if rows else ()
        return SlideSpec("Flashcards", "flashcards", self.words["flash"], blocks, self._notes("flash"))

    def card_sides(self, card: Card) -> tuple[str, str]:
        """A card as question and answer text, whatever its kind."""
        if card.kind == "cloze":
            text = self.t(card.text)
            return cloze_blanks(text, self.words["blank"]), cloze_answers(text)
        if card.kind == "mcq":
            correct = "; ".join(self.t(o.text) for o in card.options if o.correct)
            return self.t(card.question), correct
        return self.t(card.front), self.t(card.back)

