"""A workshop's deck: the slide plan in workshop mode, made to be presented.

The slides follow the workshop's timetable (``generator.workshops.schedule``) segment by segment,
and every slide's notes carry its segment's clock time, as the agenda does. One idea per slide:
a lesson's points (the facts; each point's explanation goes to the notes), each code sample with
its caption as headline, its table (for a game: the situations first, the answers a click later) and each
diagram the first time the workshop needs it. A question is asked on one slide and answered on
the next, the why of every option in the notes. Nothing is set under 20 pt but code (16 pt).
"""
from __future__ import annotations

import ast
import dataclasses
import re

from ...diagrams import diagram_alt, diagram_headline
from ...headlines import display_width, table_headline
from ...markup import split_explanation
from ...model import Lesson, Question, Workshop
from ...wording import words as all_words
from ...workshops import (
    REFERENCE,
    Slot,
    agenda_lines,
    clock,
    file_stem,
    lessons_of,
    schedule,
    section_title,
    stretch_of,
    teaches_whole,
)
from ..order import letter, shown
from .flow import Block, CodeBlock, TableBlock, TextBlock
from .plan import Notes, SlidePlan, SlideSpec, for_the_room, link_text, plain, title_text, with_legend
from .text import Para, Span, code_lines, inline

BODY_PT = 20.0
POINT_PT = 20.0
QUOTE_PT = 26.0
HIDDEN = "?"

def quote_opening(text: str, columns: int = 40) -> str:
    """The start of ``text`` in at most ``columns`` display columns, cut after a whole word (or, in
    Chinese, a character), with "…" where something was cut: how the notes name a quote."""
    text = plain(text).strip()
    if display_width(text) <= columns:
        return text
    cut = ""
    for piece in re.findall(r"[\w.'’/-]+\s*|\S\s*", text, re.ASCII):
        if display_width(cut + piece.rstrip()) > columns - 1:
            break
        cut += piece
    return cut.rstrip(" ,;:，、；：") + "…"


def _statements(code: str) -> list[str]:
    """The sample's lines that start a statement, each without its comment: no blank or comment line, no
    line that only closes brackets, no ``else:`` or ``try:`` that says nothing by itself."""
    found = []
    for line in code.splitlines():
        statement = line.split("  #")[0].strip()
        if statement and not statement.startswith("#") and not re.fullmatch(r"[)\]}:,\s]*|\w+:", statement):
            found.append(statement)
    return found


def fixed_text(statement: str) -> str | None:
    """The text a ``print("…")`` of string literals only prints (None for any other statement): the room
    cannot predict what a sample says itself, only whether it says it."""
    try:
        call = ast.parse(statement, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"
            and call.args and all(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in call.args)):
        return None
    return " ".join(str(arg.value) for arg in call.args if isinstance(arg, ast.Constant))


def computed_prints(code: str) -> list[str]:
    """The sample's ``print(...)`` lines that print something computed, comments cut off, in order: what the
    speaker asks the room to predict."""
    return [line for line in _statements(code) if line.startswith("print(") and fixed_text(line) is None]


def first_message(code: str) -> str:
    """The first fixed text the sample prints ('' where it prints none): whether it appears is the question."""
    return next((text for line in _statements(code) if (text := fixed_text(line))), "")


def last_step(code: str) -> str:
    """The sample's last statement that does something by itself (no block header, ``pass`` or import): what
    the speaker asks the room about where the sample prints nothing."""
    return next((line for line in reversed(_statements(code))
                 if not line.endswith(":") and line != "pass" and not line.startswith(("import ", "from "))), "")


class WorkshopPlan(SlidePlan):
    """The slides of one workshop, started at ``start`` (minutes after midnight)."""

    ANSWER_STEM_PT = BODY_PT
    OPTION_PT = REASON_PT = TAKEAWAY_PT = LEGEND_PT = POINT_PT
    CLIP_REASONS = False  # every reason whole: options the slide has no room for go on to a second answer slide

    def __init__(self, job, workshop: Workshop, start: int):
        super().__init__(job, whole_course=False)
        self.workshop = workshop
        self.start = start
        self.ww = all_words(job.lang)["workshop"]
        self.segments = schedule(workshop, job.course)
        self.lessons = {lesson.id: lesson for lesson in job.course.lessons}
        self.questions = {q.id: q for q in job.course.questions}
        self.modules = {m.name: m for m in job.course.modules}
        self.cells = {}  # lesson id -> number of its first cell in the workshop's script
        number = 0
        for lesson in lessons_of(workshop, job.course):
            self.cells[lesson.id] = number + 1
            number += len(lesson.code)

    def clock(self, offset: int) -> str:
        return clock(self.start, offset)

    # ------------------------------------------------------------ deck
    def slides(self) -> list[SlideSpec]:
        drawn: set[str] = set()
        self.asked: set[str] = set()  # the print lines the notes have asked the room about so far
        specs: list[SlideSpec] = []
        for index, segment in enumerate(self.segments):
            part = self._segment(index, segment, drawn)
            specs += [self._timed(spec, segment, k, len(part)) for k, spec in enumerate(part, 1)]
        return with_legend(specs, all_words(self.job.lang)["explained"], self.LEGEND_PT)

    def _segment(self, index: int, segment: Slot, drawn: set[str]) -> list[SlideSpec]:
        kind = segment.kind
        if kind == "opening":
            return [self.opening(), self.agenda()]
        if kind == "section":
            return [self.stretch(self.modules[segment.ref], index)]
        if kind == "lesson":
            return self.lesson_slides(self.lessons[segment.ref], drawn)
        if kind == "question":
            question = self.questions[segment.ref]
            return [self.quiz(question), self.answer(question)]
        if kind == "review":
            return [self.review([self.lessons[i] for i in segment.lessons])]
        if kind == "break":
            return [self.pause(segment)]
        return [self.closing()]

    def _timed(self, spec: SlideSpec, segment: Slot, k: int, total: int) -> SlideSpec:
        """The spec made to be presented: its segment's clock time in the notes (which also say where the
        facts behind the slide were verified: the room never sees a verification banner); its title and
        text without emoji (``for_the_room``, as every deck)."""
        when = self.clock(segment.start)
        line = (self.ww["clock"].format(clock=when, n=segment.minutes) if total == 1 else
                self.ww["clock_part"].format(clock=when, n=segment.minutes, k=k, total=total))
        notes = spec.notes
        if notes is None:
            return for_the_room(spec)
        return dataclasses.replace(for_the_room(spec), notes=Notes(
            plain(notes.say), plain(notes.ask), segment.minutes, notes.verified, line,
            tuple(plain(text) for text in notes.more)))

    def _wnotes(self, kind: str, **fields) -> Notes:
        """A workshop phrase pair for the notes (``_timed`` adds the minutes and the clock)."""
        say, ask = self.ww["notes"][kind]
        return Notes(say.format(**fields).strip(), ask.format(**fields), 0)

    @staticmethod
    def _text(paras) -> tuple[TextBlock, ...]:
        return (TextBlock(tuple(paras)),) if paras else ()

    # ---------------------------------------------------- opening slides
    def opening(self) -> SlideSpec:
        end = self.segments[-1].end
        lessons = sum(s.kind == "lesson" for s in self.segments)
        questions = sum(s.kind == "question" for s in self.segments)
        line = self.ww["title_line"].format(start=self.clock(0), end=self.clock(end), minutes=end,
                                            lessons=lessons, questions=questions)
        summary = self.t(self.workshop.summary)
        paras = ([Para(inline(summary), 24)] if summary else []) + [Para(inline(line), BODY_PT, before=14)]
        return SlideSpec("Title", "title", self.t(self.workshop.title), self._text(paras),
                         self._wnotes("opening", summary=summary or self.t(self.workshop.title)))

    def agenda(self) -> SlideSpec:
        paras = tuple(Para((Span(when + "  ", bold=True, colour="accent1"), *inline(what)), BODY_PT, before=6)
                      for when, what in agenda_lines(self.segments, self.workshop, self.job.course, self.job.lang, self.start))
        notes = self._wnotes("agenda", end=self.clock(self.segments[-1].end))
        return SlideSpec("Outline", "agenda", self.ww["agenda"], (TextBlock(paras),), notes)

    # ------------------------------------------------------------ module
    def stretch(self, module, index: int) -> SlideSpec:
        """The section slide of the module's stretch starting at segment ``index``: the lessons of it the
        workshop teaches now, under the module's title and after its summary only where the workshop teaches
        all of the module (``section_title``); its notes likewise name only what is taught."""
        taught = [self.lessons[s.ref] for s in stretch_of(self.segments, index) if s.kind == "lesson"]
        title = section_title(self.workshop, module, self.job.lang)
        whole = teaches_whole(self.workshop, module)
        paras = [Para((Span(module.module, mono=True),), BODY_PT)] if title != module.module else []
        if module.summary and whole:
            paras.append(Para(inline(self.t(module.summary)), BODY_PT, before=8))
        paras += [Para((Span(f"{n}.  ", bold=True, colour="accent1"), *inline(self.t(lesson.title))), BODY_PT, before=6)
                  for n, lesson in enumerate(taught, 1)]
        titles = self.semicolon.join(title_text(self.t(lesson.title)) for lesson in taught)
        notes = (self._wnotes("section", summary=self.t(module.summary) or module.module, module=module.module)
                 if whole else self._wnotes("section_part", titles=titles, module=module.module))
        return SlideSpec("Section", f"section:{module.name}", title, self._text(paras), notes)

    def lesson_slides(self, lesson: Lesson, drawn: set[str]) -> list[SlideSpec]:
        """Points, then each code sample, the table (a game: hidden, then revealed), each new diagram."""
        points = self.points(lesson)
        table = [self.table_slide(lesson, hidden=True), self.table_slide(lesson)] if lesson.table and lesson.game \
            else [self.table_slide(lesson)] if lesson.table else []
        quote = [self.quote_slide(lesson)] if lesson.quote else []
        specs = table + [points] + quote if lesson.game else [points] + quote + table
        specs += [self.code_slide(lesson, n) for n in range(len(lesson.code))]
        for name in lesson.diagrams:
            if name not in drawn:
                drawn.add(name)
                specs.append(self.diagram(name, lesson))
        return specs

    def points(self, lesson: Lesson) -> SlideSpec:
        shown_points, explained = [], []
        for point in lesson.points:
            fact, explanation = split_explanation(self.t(point))
            if fact.strip():
                shown_points.append(Para(inline(fact.strip()), POINT_PT, bullet="•", margin=22, before=8))
            if explanation:
                explained.append(self.ww["explain"] + explanation.lstrip("ℹ").strip())
        paras = list(shown_points)
        if lesson.analogy:
            explained.append(self.ww["analogy"] + self.t(lesson.analogy))
        if not paras:  # a lesson of only a table or code: its takeaway heads it
            paras.append(Para(inline(self.t(lesson.takeaway) or self.t(lesson.title)), POINT_PT))
        title = self.t(lesson.title)
        takeaway = self.t(lesson.takeaway) or title
        fallback = self._notes("lesson", lesson.minutes, takeaway=takeaway, title=title)
        notes = Notes(self.t(lesson.notes) or fallback.say, self.t(lesson.ask) or fallback.ask, lesson.minutes,
                      self.job.verified_where(lesson.facts), more=tuple(explained))
        if lesson.game:  # a game's points come after its answers: they say why each holds
            title = self.ww["reasons_title"].format(title=title)
        return SlideSpec("Lesson", f"lesson:{lesson.id}", title, self._text(paras), notes,
                         self.job.item_mark(lesson.facts))

    def quote_slide(self, lesson: Lesson) -> SlideSpec:
        """The documentation quoted as a quote, with its source as a short link (a raw address breaks inside
        itself; the address is the link's)."""
        quote = lesson.quote
        assert quote is not None, "a quote slide is made for a lesson with a quote"
        paras = (Para(inline(f"“{self.t(quote.text)}”", italic=True), QUOTE_PT),
                 Para((Span(self.words["source"], colour="accent2"),
                       Span(link_text(quote.source), colour="accent2", link=quote.source)), BODY_PT, before=14,
                      keep=True))
        notes = self._wnotes("quote", takeaway=self.t(lesson.takeaway) or self.t(lesson.title),
                             opening=quote_opening(self.t(quote.text)))
        return SlideSpec("Lesson", f"quote:{lesson.id}", self.ww["quote_title"], (TextBlock(paras, "quote"),),
                         Notes(notes.say, notes.ask, 0, self.job.verified_where(lesson.facts),
                               more=(f"{quote.source}",)),
                         self.job.item_mark(lesson.facts))

    def code_slide(self, lesson: Lesson, index: int) -> SlideSpec:
        example = lesson.code[index]
        caption = self.t(example.caption) if example.caption else ""
        # the caption is the slide's headline: said once, as its title, not again above the code
        blocks: list[Block] = [CodeBlock(tuple(code_lines(self.job.code(example), example.language)), 20.0)]
        code = self.job.code(example)
        # the first print not asked about on an earlier slide (no prompt twice), else a line of its own
        printed = next((line for line in computed_prints(code) if line not in self.asked), "")
        if printed:
            self.asked.add(printed)
        message = first_message(code)
        kind = ("code_raises" if example.runs == "raises" else "code" if printed else
                "code_message" if message else "code_silent")
        notes = self._wnotes(kind, script=f"{file_stem(self.workshop)}.py", cell=self.cells[lesson.id] + index,
                             caption=caption or self.t(lesson.takeaway) or self.t(lesson.title),
                             line=printed or message or last_step(code))
        headline = caption or self.ww["code_title"].format(title=self.t(lesson.title))
        return SlideSpec("Lesson", f"code:{lesson.id}:{index + 1}", headline, tuple(blocks),
                         Notes(notes.say, notes.ask, 0, self.job.verified_where(lesson.facts)),
                         self.job.item_mark(lesson.facts))

    def table_slide(self, lesson: Lesson, hidden: bool = False) -> SlideSpec:
        """The lesson's table; ``hidden``: only its first column (a game's situations), the rest '?'."""
        table = lesson.table
        assert table is not None, "a table slide is made for a lesson with a table"
        columns, rows = table.columns, table.rows
        header = tuple((Para(inline(self.t(c), bold=True, colour="bg1"), BODY_PT),) for c in columns)
        body = tuple(tuple((Para(inline(HIDDEN if hidden and n else self.t(cell)), BODY_PT),)
                           for n, cell in enumerate(row)) for row in rows)
        takeaway = self.t(lesson.takeaway) or self.t(lesson.title)
        kind = ("game" if hidden else "reveal") if lesson.game else "table"
        notes = self._wnotes(kind, takeaway=takeaway, column=plain(self.t(columns[-1])),
                             row=plain(self.t(rows[0][0])) if rows else "")
        name = f"table:{lesson.id}" + (":game" if hidden else "")
        return SlideSpec("Lesson", name, self.table_headline(lesson, hidden), (TableBlock(header, body),),
                         Notes(notes.say, notes.ask, 0, self.job.verified_where(lesson.facts)),
                         self.job.item_mark(lesson.facts))

    def table_headline(self, lesson: Lesson, hidden: bool) -> str:
        """A table slide's own headline, not its lesson's title again (``headlines.table_headline``; the title
        only where the content gives none, which ``lint`` reports); a game's answers say so."""
        title = self.t(lesson.title)
        if lesson.game:
            return title if hidden else self.ww["answers_title"].format(title=title)
        return table_headline(lesson, self.job.lang) or title

    def diagram(self, name: str, lesson: Lesson) -> SlideSpec:
        headline, ask = diagram_headline(name, self.job.lang)
        notes = self._wnotes("diagram", shows=diagram_alt(name, self.job.course, self.job.lang))  # what it shows
        return SlideSpec("Diagram", f"diagram:{name}", headline, (self._picture(name),),
                         Notes(notes.say, ask, 0), self.job.item_mark(lesson.facts))

    # -------------------------------------------------------------- quiz
    def quiz(self, question: Question) -> SlideSpec:
        options = shown(question, self.job.course)
        letters = self.comma.join(letter(i) for i, o in enumerate(options) if o.correct)
        blocks: list[Block] = [TextBlock((Para(inline(self.t(question.stem), bold=True), 24),))]
        hint = self.job.multi_hint(question)
        if hint:
            blocks.append(TextBlock((Para((Span(hint, italic=True),), BODY_PT),)))
        if question.code:
            blocks.append(CodeBlock(tuple(code_lines(self.job.code(question), question.language)), 20.0))
        blocks.append(TextBlock(tuple(Para((Span(f"{letter(i)}.  ", bold=True, colour="accent1"),
                                            *inline(self.t(o.text))), POINT_PT, before=10)
                                      for i, o in enumerate(options))))
        notes = self._wnotes("quiz", stem=self.t(question.stem), answer=self.ww["answer_is"].format(letters=letters))
        return SlideSpec("Quiz", f"quiz:{question.id}", self.words["quiz"][question.kind], tuple(blocks),
                         Notes(notes.say, notes.ask, 0, self.job.verified_where(question.facts)),
                         self.job.item_mark(question.facts))

    def _answer_notes(self, options) -> Notes:
        """The room is asked about the question's own first wrong option, by name."""
        wrong = next((option for option in options if not option.correct), None)
        if wrong is None:
            return self._wnotes("answer_all")
        return self._wnotes("answer", option=plain(self.t(wrong.text)))

    # ------------------------------------------------------------ recaps
    def _review_notes(self, lessons: list[Lesson]) -> Notes:
        titles = self.semicolon.join(self.t(lesson.title) for lesson in lessons)
        recap = self.ww["review_of"].format(titles=titles)
        return self._wnotes("review", recap=recap, title=title_text(self.t(lessons[0].title)))

    def pause(self, segment: Slot) -> SlideSpec:
        back = self.clock(segment.end)
        paras = (Para(inline(self.ww["back_at"].format(clock=back)), 32),)
        return SlideSpec("Section", f"break:{self.clock(segment.start)}", self.ww["break"], self._text(paras),
                         self._wnotes("break", clock=back))

    def closing(self) -> SlideSpec:
        """The workshop's take-aways: each lesson's takeaway (its checked part), in teaching order, then the
        reference; the handout and the script are named in the notes, for the speaker to point to."""
        name = file_stem(self.workshop)
        lessons = lessons_of(self.workshop, self.job.course)
        module_of = {lesson.id: module.name for module in self.job.course.modules for lesson in module.lessons}
        paras = [Para(inline(self.take_away(lesson)), BODY_PT, bullet="✔", margin=24, before=8,
                      topic=module_of[lesson.id]) for lesson in lessons]  # a slide of them is headed by its modules
        paras.append(Para((Span(self.ww["docs"], colour="accent2", link=REFERENCE),), BODY_PT, before=14, keep=True))
        notes = self._wnotes("closing")
        files = (self.ww["handout_line"].format(name=f"{name}.{self.job.lang}.handout.pdf"),
                 self.ww["script"].format(name=f"{name}.py"))
        return SlideSpec("Cheat Sheet", "closing", self.ww["closing"], (TextBlock(tuple(paras)),),
                         dataclasses.replace(notes, more=files + self._marks(lessons)))
