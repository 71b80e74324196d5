"""What the workshop deck says, slide by slide, before anything is measured or drawn.

The teaching sequence: title; learning outline; the map of torch.backends (unless
the first module shows it anyway); then per module a section slide listing its
lessons and, per lesson, its slides (points, code, table, quote, analogy), its
diagrams and the quiz questions that test what it taught (each followed by its
answer, the reason under every option); a "review so far" every ``REVIEW_EVERY``
lessons, from their takeaways; at the end a flashcard recap (the first
``FLASHCARDS_PER_MODULE`` cards of each module) and, closing the deck, the take-aways:
the cheat sheet (a line per lesson) and the reference. A question goes after the last
lesson of its module that teaches one of its facts, or at the end of the module.
Slides show no verification banner and no emoji in titles (``for_the_room``); the notes
say where the facts were verified.
"""
from __future__ import annotations

import dataclasses
import io
import re
import unicodedata
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

from PIL import Image

from ...diagrams import DIAGRAM_NAMES, diagram_alt, diagram_headline, diagram_png
from ...markup import EXPLAIN, checked_part, cloze_answers, cloze_blanks, segments, split_explanation
from ...model import Card, Lesson, Module, Question
from ...wording import words as all_words
from ...workshops import REFERENCE
from ..base import RenderJob
from ..order import letter, shown
from ..teaching import REVIEW_EVERY, questions_by_lesson
from .flow import Block, CodeBlock, PictureBlock, TableBlock, TextBlock
from .text import Para, Span, code_lines, inline
from .words import MINUTES, lessons_and_minutes, words

FLASHCARDS_PER_MODULE = 3
BACKENDS_MAP = "backends-map"
REASON_INDENT = 36.0  # pt: an option's reason sits under the option's text, past its "✔ A." (20 pt)

# pictographs and the joiners and selectors that build them: what a title font lacks and Impress leaves blank
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF\uFE0F\u200D\u20E3]+")

# in a slide's text: the pictographs (✔ and ✘ are drawn from DejaVu and stay), with the spaces beside one
BODY_EMOJI = re.compile("( ?)[\U0001F000-\U0001FAFF\u2600-\u26FF\u2B00-\u2BFF\uFE0F\u200D\u20E3]+( ?)")


def _without_pictograph(found: re.Match) -> str:
    """What stands where a pictograph was: one space between two words it stood apart from, else nothing
    (at the start of a text, and before punctuation: "可能会溢出 🌊。" reads "可能会溢出。", not "溢出 。"). At the
    end of a span the space stays: the next span (inline code, say) is another word."""
    after = found.string[found.end():]
    spaced = bool(found[1] or found[2])
    return " " if spaced and found.start() > 0 and not unicodedata.category(after[:1] or " ").startswith("P") else ""


def plain(text: str) -> str:
    """Content text as notes print it: the backticks of inline code dropped (notes are plain text)."""
    return "".join(segment.text for segment in segments(text))


def title_text(title: str) -> str:
    """A slide title without emoji: Impress draws a title's emoji as a blank (the title then starts
    indented or hangs), so every deck's titles are words only."""
    return re.sub(r"\s{2,}", " ", EMOJI.sub("", title)).strip()


def words_only(block: Block) -> Block:
    """A text block or table without the pictographs Impress draws as blanks (a content title's 🎮, an
    analogy's 🎛️, the agenda's 📋); code is left as written."""
    def para(p: Para) -> Para:
        spans = tuple(span if span.mono else dataclasses.replace(span, text=BODY_EMOJI.sub(_without_pictograph, span.text))
                      for span in p.spans)
        return dataclasses.replace(p, spans=tuple(span for span in spans if span.text) or p.spans[:1])

    if isinstance(block, TextBlock) and block.kind != "code":
        return dataclasses.replace(block, paras=tuple(para(p) for p in block.paras))
    if isinstance(block, TableBlock):
        return TableBlock(tuple(tuple(para(p) for p in cell) for cell in block.header),
                          tuple(tuple(tuple(para(p) for p in cell) for cell in row) for row in block.rows))
    return block


def link_text(address: str) -> str:
    """A source address as short link text that breaks only between its parts: the site, then the API
    name it points at (``docs.pytorch.org › torch.backends.cudnn.deterministic``), or the page
    (``docs.pytorch.org › notes › cuda``, ``github.com › torch/backends/cudnn/__init__.py``)."""
    parts = urlsplit(address)
    host = parts.netloc.removeprefix("www.")
    segments = [s for s in parts.path.split("/") if s]
    fragment = parts.fragment.removeprefix("module-")
    if fragment.startswith("torch."):
        return f"{host} › {fragment}"
    if host == "github.com" and "blob" in segments:  # github.com/OWNER/REPO/blob/REF/PATH: the file's path
        return f"{host} › {'/'.join(segments[segments.index('blob') + 2:])}"
    generic = {"docs", "stable", "main", "master", "generated"}
    shown_parts = [re.sub(r"\.html?$", "", s) for s in segments if s not in generic]
    return " › ".join([host, *shown_parts])


def for_the_room(spec: "SlideSpec") -> "SlideSpec":
    """The spec as every deck shows it: its title and text without the pictographs Impress draws as blanks.
    Where its facts were verified (``mark``) is never drawn: the notes say it (``notes_lines``)."""
    return dataclasses.replace(spec, title=title_text(spec.title), blocks=tuple(words_only(b) for b in spec.blocks))


def _shown_texts(spec: "SlideSpec") -> list[str]:
    """What a slide shows in words: its title, its paragraphs and its tables' cells."""
    texts = [spec.title]
    for block in spec.blocks:
        if isinstance(block, TextBlock):
            texts += [para.text for para in block.paras]
        elif isinstance(block, TableBlock):
            texts += [para.text for row in (block.header, *block.rows) for cell in row for para in cell]
    return texts


def with_legend(specs: list["SlideSpec"], legend: str, size: float) -> list["SlideSpec"]:
    """The deck with what ℹ means (``legend``) as the title slide's last line, where a slide or its notes show
    one (a table's advice, a review's game, an option's why): the room and the speaker read it before they
    meet the mark. A deck without ℹ says nothing of it."""
    first, rest = specs[0], specs[1:]
    if not any(EXPLAIN in text for spec in specs for text in (
            *_shown_texts(spec), *((spec.notes.say, spec.notes.ask, *spec.notes.more) if spec.notes else ()))):
        return specs
    line = Para((Span(legend, italic=True),), size, before=12)
    text, *others = first.blocks or (TextBlock(()),)  # the title slide's text, in its placeholder's colours
    assert isinstance(text, TextBlock), first.name
    return [dataclasses.replace(first, blocks=(dataclasses.replace(text, paras=(*text.paras, line)), *others)), *rest]


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

    ``name`` (``kind:key``) becomes the slide's name in the file; ``mark`` says the facts behind it were
    "not verified here" (or are about some releases only): for the speaker's notes, never drawn on the slide.
    """

    layout: str
    name: str
    title: str
    blocks: tuple[Block, ...] = ()
    notes: Optional[Notes] = None
    mark: str = ""


class SlidePlan:
    """Builds the slide specs of one deck from a verified course."""

    ANSWER_STEM_PT = 18.0  # an answer slide's question
    OPTION_PT = 20.0  # its options
    REASON_PT = 16.0  # the reason under each
    CLIP_REASONS = True  # a reason the slide has no room for is shortened (the whole why is in the notes)
    TAKEAWAY_PT = 20.0  # a review's lines
    LEGEND_PT = 18.0  # the title slide's line on what ℹ means

    def __init__(self, job: RenderJob, *, whole_course: bool = True):
        self.job = job
        self.words = words(job.lang)
        self.comma, self.semicolon = all_words(job.lang)["separators"]  # between listed letters, between titles
        self.label = all_words(job.lang)["label"]  # after a title that labels a line (": " or "：")
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
            placed = questions_by_lesson(module)
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
        body += [self.flashcards(), self.cheat_sheet()]  # the take-aways close the deck
        head = [self.outline()]
        if self.opens_with_map():
            head.append(self.backends_map())
        minutes = sum(s.notes.minutes for s in head + body if s.notes)
        specs = [for_the_room(spec) for spec in (self.title(minutes), *head, *body)]
        return with_legend(specs, all_words(self.job.lang)["explained"], self.LEGEND_PT)

    def opens_with_map(self) -> bool:
        """The map of torch.backends comes right after the outline unless the first module shows it anyway."""
        modules = self.job.course.modules
        first = [name for lesson in modules[0].lessons for name in lesson.diagrams] if modules else []
        return BACKENDS_MAP in DIAGRAM_NAMES and BACKENDS_MAP not in first

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
            paras: tuple[Para, ...] = (Para(inline(line), 22),)
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
        """The diagram drawn for a slide in the deck's language, with its description as alt text."""
        png = diagram_png(name, self.job.course, self.job.lang)
        with Image.open(io.BytesIO(png)) as image:
            return PictureBlock(png, image.size, diagram_alt(name, self.job.course, self.job.lang))

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
        if lesson.quote:  # short link text (a raw address breaks inside itself); the address is the link's
            source = lesson.quote.source
            blocks.append(TextBlock((Para(inline(f"“{self.t(lesson.quote.text)}”", italic=True), 18),
                                     Para((Span(self.words["source"], colour="accent2"),
                                           Span(link_text(source), colour="accent2", link=source)), 14, before=4,
                                          keep=True)),
                                    "quote", keep_with_next=bool(lesson.analogy)))
        if lesson.analogy:  # never alone on a "(cont.)" slide: it goes on with the quote or the table's last rows
            blocks.append(TextBlock((Para(inline(self.t(lesson.analogy)), 18),), "callout", keep_with_previous=True))
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
        headline, ask = diagram_headline(name, self.job.lang)
        notes = self._notes("diagram")
        return SlideSpec("Diagram", f"diagram:{name}", headline, (self._picture(name),),
                         Notes(notes.say, ask, notes.minutes), self.job.item_mark(lesson.facts))

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
        """The right letters, then every option with its reason under it: whole where the slide has room, else
        shortened by the flow a line at a time, at a sentence, clause or word; the whole why of each is in
        the notes."""
        options = shown(question, self.job.course)
        letters = self.comma.join(letter(i) for i, o in enumerate(options) if o.correct)
        phrases = all_words(self.job.lang)["workshop"]
        paras, whys = [], []
        for index, option in enumerate(options):
            mark, colour = ("✔", "accent3") if option.correct else ("✘", "accent4")
            paras.append(Para((Span(f"{mark} {letter(index)}.  ", bold=True, colour=colour),
                               *inline(self.t(option.text), bold=option.correct)), self.OPTION_PT, before=8))
            reason = self.reason(option)
            if reason:
                paras.append(Para(inline(reason, italic=True, colour="tx2"), self.REASON_PT, margin=REASON_INDENT,
                                  keep=True, clip=self.CLIP_REASONS))
            whys.append(phrases["why"].format(mark=mark, letter=letter(index), why=self.t(option.why)))
        notes = self._answer_notes(options)
        return SlideSpec("Answer", f"answer:{question.id}", self.words["answer"].format(letters=letters),
                         (*self._answer_stem(question), TextBlock(tuple(paras))),
                         dataclasses.replace(notes, verified=self.job.verified_where(question.facts), more=tuple(whys)),
                         self.job.item_mark(question.facts))

    def _answer_stem(self, question: Question) -> list[Block]:
        """The question again, without its code: that was on the question's slide, just before."""
        return [TextBlock((Para(inline(self.t(question.stem)), self.ANSWER_STEM_PT),))]

    def _answer_notes(self, options) -> Notes:
        """The notes of a question's answer slide (a workshop names one of the ``options`` shown)."""
        return self._notes("answer")

    def reason(self, option) -> str:
        """What an answer slide says of an option: its why's checked part, or where the why is all
        explanation, the explanation (without its ℹ)."""
        return checked_part(self.t(option.why))

    # ------------------------------------------------------------ recaps
    def recap(self, lesson: Lesson) -> str:
        """What a review says of a lesson: its takeaway's checked part (the explanation is the speaker's),
        or the whole takeaway where it is all explanation."""
        takeaway = self.t(lesson.takeaway) or self.t(lesson.title)
        fact, _ = split_explanation(takeaway)
        return fact.strip() or takeaway

    def take_away(self, lesson: Lesson) -> str:
        """What the take-aways closing a deck say of a lesson: its recap, without the ℹ of one that is all
        explanation."""
        return self.recap(lesson).lstrip("ℹ").strip()

    def _marks(self, lessons) -> tuple[str, ...]:
        """For the notes of a slide that recaps lessons: each lesson that rests on a fact not verified
        here (or is about some releases only), with what it says of it (the slide shows no such mark)."""
        return tuple(f"{self.t(lesson.title)}{self.label}{mark}" for lesson in lessons
                     for mark in [self.job.item_mark(lesson.facts)] if mark)

    def _explained(self, lessons) -> tuple[str, ...]:
        """For the notes of a slide that recaps lessons: the explanation of each takeaway that has one."""
        phrases = all_words(self.job.lang)["workshop"]
        return tuple(f"{phrases['explain']}{self.t(lesson.title)}{self.label}{explanation.lstrip('ℹ').strip()}"
                     for lesson in lessons
                     for fact, explanation in [split_explanation(self.t(lesson.takeaway) or "")]
                     if explanation and fact.strip())

    def review(self, lessons: list[Lesson]) -> SlideSpec:
        paras = tuple(Para((*inline(f"{self.t(lesson.title)}{self.label}", bold=True), *inline(self.recap(lesson))),
                           self.TAKEAWAY_PT, bullet="✔", margin=24, before=10) for lesson in lessons)
        notes = self._review_notes(lessons)
        return SlideSpec("Review", f"review:{lessons[-1].id}", self.words["review"], (TextBlock(paras),),
                         dataclasses.replace(notes, more=self._explained(lessons) + self._marks(lessons)))

    def _review_notes(self, lessons: list[Lesson]) -> Notes:
        """Asks about the first lesson reviewed, by its title: a prompt of this slide's own."""
        return self._notes("review", title=plain(title_text(self.t(lessons[0].title))))

    def cheat_sheet(self) -> SlideSpec:
        """The take-aways that close the deck: a row per lesson in teaching order (its module, its title, its
        takeaway's checked part), then the reference; explanations and verification marks in the notes."""
        rows = []
        lessons = [lesson for module in self.job.course.modules for lesson in module.lessons]
        for module in self.job.course.modules:
            for lesson in module.lessons:
                rows.append(((Para((Span(module.name, mono=True),), 15),),
                             (Para(inline(self.t(lesson.title)), 15),),
                             (Para(inline(self.take_away(lesson)), 15),)))
        header = tuple((Para(inline(c, bold=True, colour="bg1"), 15),) for c in self.words["cheat_columns"])
        reference = TextBlock((Para((Span(all_words(self.job.lang)["workshop"]["docs"], colour="accent2",
                                          link=REFERENCE),), 18),), keep_with_previous=True)
        blocks = (TableBlock(header, tuple(rows)), reference) if rows else (reference,)
        notes = self._notes("cheat")
        return SlideSpec("Cheat Sheet", "cheatsheet", self.words["cheat"], blocks,
                         dataclasses.replace(notes, more=self._explained(lessons) + self._marks(lessons)))

    def flashcards(self) -> SlideSpec:
        rows, marks = [], []
        for module in self.job.course.modules:
            for card in module.cards[:FLASHCARDS_PER_MODULE]:
                front, back = self.card_sides(card)
                rows.append(((Para(inline(front), 15),), (Para(inline(back), 15),)))
                mark = self.job.item_mark(card.facts)
                if mark:
                    marks.append(f"{front}{self.label}{mark}")
        header = tuple((Para(inline(c, bold=True, colour="bg1"), 15),) for c in self.words["flash_columns"])
        blocks = (TableBlock(header, tuple(rows)),) if rows else ()
        return SlideSpec("Flashcards", "flashcards", self.words["flash"], blocks,
                         dataclasses.replace(self._notes("flash"), more=tuple(marks)))

    def card_sides(self, card: Card) -> tuple[str, str]:
        """A card as question and answer text, whatever its kind."""
        if card.kind == "cloze":
            text = self.t(card.text)
            return cloze_blanks(text, self.words["blank"]), cloze_answers(text)
        if card.kind == "mcq":
            correct = "; ".join(self.t(o.text) for o in card.options if o.correct)
            return self.t(card.question), correct
        return self.t(card.front), self.t(card.back)

