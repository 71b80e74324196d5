"""What the site's templates read of one language's verified course: texts as HTML, the teaching order of a
module's page, each question's options in the order every output shows them, a game lesson's choices, the
diagrams and where each item was verified. Everything here is worded by the shared helpers (``RenderJob``,
``render.html``, ``render.order``, ``render.teaching``); the templates only lay it out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from markupsafe import Markup

from ...diagrams import Variant, card_diagram_filename, diagram_alt
from ...markup import segments
from ...model import Lesson, Module, Question
from ...wording import lessons_and_minutes, words
from ..base import RenderJob, takes_many_answers
from ..html import code_block, inline, link, verified_fields
from ..order import shown
from ..teaching import REVIEW_EVERY, questions_by_lesson


@dataclass(frozen=True)
class Step:
    """A part of a module's page: a ``lesson`` with the ``questions`` that follow it, or a ``review`` of
    ``lessons``."""

    kind: str
    lesson: Optional[Lesson] = None
    questions: tuple[Question, ...] = ()
    lessons: tuple[Lesson, ...] = ()


@dataclass(frozen=True)
class ShownOption:
    letter: str
    text: Markup
    why: Markup
    correct: bool


@dataclass(frozen=True)
class GameCell:
    """One setting to pick for a situation: the column's label, the choices (every value the column holds,
    sorted, so their order gives nothing away) and the index of the right one."""

    label: str
    choices: tuple[str, ...]
    answer: int


class SiteView:
    def __init__(self, job: RenderJob, languages: tuple[str, ...], deck_stem: str):
        self.job = job
        self.lang = job.lang
        self.languages = languages
        self.words = words(job.lang)["site"]
        self.all_words = words(job.lang)
        self.deck_stem = deck_stem

    # ------------------------------------------------------------ texts
    def text(self, text) -> Markup:
        return inline(self.job.t(text)) if text is not None else Markup("")

    def plain(self, text) -> str:
        """A text without its markup (a code span's backticks gone): a page title, a choice in a list."""
        return "".join(segment.text for segment in segments(self.job.t(text)))

    def code(self, owner) -> Markup:
        return code_block(self.job.code(owner), owner.language)

    def link(self, address: str):
        return link(address)

    def verified(self, fact_ids, own_source: Optional[str] = None) -> dict:
        return verified_fields(self.job, fact_ids, own_source)

    def mark(self, fact_ids) -> str:
        return self.job.item_mark(fact_ids)

    def course_title(self) -> str:
        return self.words["title"]

    def verified_line(self) -> str:
        """What the course was verified against, dated as the quizzes and handouts are: the same bytes any day."""
        return self.job.verified_as_of_edition()

    # ------------------------------------------------------------ pages
    @property
    def modules(self) -> tuple[Module, ...]:
        return self.job.course.modules

    def page_of(self, module: Module) -> str:
        return f"{module.name}.html"

    def neighbours(self, module: Module) -> tuple[Optional[Module], Optional[Module]]:
        """The modules before and after ``module`` in teaching order (None at either end)."""
        at = self.modules.index(module)
        return (self.modules[at - 1] if at else None, self.modules[at + 1] if at + 1 < len(self.modules) else None)

    def home_entries(self) -> list[tuple[str, str, dict]]:
        """``(language, its name in itself, its site phrases)`` of each language this build writes: the home page
        is the same whichever language renders it."""
        return [(lang, _NATIVE.get(lang, lang), words(lang)["site"]) for lang in self.languages]

    def other_languages(self) -> list[tuple[str, str]]:
        """``(language, its name in itself)`` of each other language this build writes."""
        return [(lang, _NATIVE.get(lang, lang)) for lang in self.languages if lang != self.lang]

    def module_line(self, module: Module) -> str:
        return lessons_and_minutes(self.lang, len(module.lessons), sum(lesson.minutes for lesson in module.lessons))

    def question_ids(self, module: Module) -> str:
        """The ids of the module's questions, space-separated: what its progress counts."""
        return " ".join(question.id for question in module.questions)

    def deck_file(self) -> str:
        return f"{self.deck_stem}.{self.lang}.apkg"

    # ------------------------------------------------------------ a module's page
    def steps(self, module: Module) -> list[Step]:
        """The lessons with the questions after each, a review every ``REVIEW_EVERY`` lessons (and of the rest
        at the module's end, where two or more are left), then the questions no lesson teaches."""
        placed = questions_by_lesson(module)
        steps: list[Step] = []
        pending: list[Lesson] = []
        for lesson in module.lessons:
            steps.append(Step("lesson", lesson, tuple(placed.get(lesson.id, ()))))
            pending.append(lesson)
            if len(pending) == REVIEW_EVERY:
                steps.append(Step("review", lessons=tuple(pending)))
                pending = []
        if len(pending) > 1:
            steps.append(Step("review", lessons=tuple(pending)))
        if placed.get(None):
            steps.append(Step("questions", questions=tuple(placed[None])))
        return steps

    def options(self, question: Question) -> list[ShownOption]:
        return [ShownOption(chr(ord("A") + index), self.text(option.text), self.text(option.why), option.correct)
                for index, option in enumerate(shown(question, self.job.course))]

    def right_letters(self, options: list[ShownOption]) -> str:
        """'A, C' ('A、C' in Chinese): the letters of the right options."""
        return words(self.lang)["separators"][0].join(option.letter for option in options if option.correct)

    def takes_many(self, question: Question) -> bool:
        return takes_many_answers(question)

    def multi_hint(self, question: Question) -> str:
        return self.job.multi_hint(question)

    def question_heading(self, question: Question) -> str:
        return self.words["scenario"] if question.kind == "scenario" else self.words["question"]

    def game(self, lesson: Lesson) -> list[tuple[Markup, list[GameCell]]]:
        """A game lesson's table as ``(situation, the settings to pick)`` per row."""
        table = lesson.table
        if table is None:
            return []
        columns = [sorted({self.plain(row[column]) for row in table.rows}, key=str.casefold)
                   for column in range(1, len(table.columns))]
        return [(self.text(row[0]),
                 [GameCell(self.plain(table.columns[column]), tuple(columns[column - 1]),
                           columns[column - 1].index(self.plain(row[column])))
                  for column in range(1, len(table.columns))])
                for row in table.rows]

    def game_answer(self, cell: GameCell) -> str:
        return self.words["answer_was"].format(answer=cell.choices[cell.answer])

    # ------------------------------------------------------------ diagrams
    def diagrams(self, lesson: Lesson) -> list[dict]:
        course, lang = self.job.course, self.lang
        return [{"alt": diagram_alt(name, course, lang),
                 "light": "img/" + card_diagram_filename(name, course, Variant(lang, False)),
                 "night": "img/" + card_diagram_filename(name, course, Variant(lang, True))}
                for name in lesson.diagrams]

    def diagram_names(self) -> list[str]:
        return list(dict.fromkeys(name for lesson in self.job.course.lessons for name in lesson.diagrams))


_NATIVE = {"en": "English", "zh": "中文"}
