"""The content model: what a module file in ``content/`` may hold.

Every model forbids unknown keys, so a typo in a key is an error rather than a
silently ignored field.
"""
from __future__ import annotations

import ast
import hashlib
import json
import keyword
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from .code_text import LocalCode
from .markup import EXPLAIN, has_cloze
from .text import LocalText
from .worker import CAPABILITIES, TYPE_NAMES
from .worker import CHECK_KINDS as KINDS

Id = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$", max_length=80)]
if TYPE_CHECKING:
    Capability = str
else:  # the names come from the worker's table
    Capability = Literal[tuple(CAPABILITIES)]
CHECK_KINDS = tuple(KINDS)
SECTIONS = ("facts", "cards", "questions", "lessons")  # a module file's lists of items, in the order written
ITEM_SECTIONS = SECTIONS[1:]  # the items learners see, which cite facts
Difficulty = Annotated[int, Field(ge=1, le=3)]
Tag = Annotated[str, Field(pattern=r"^[A-Za-z0-9_:.+-]+$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# What a check kind's companion key holds (``CheckKind.holds``), as the content model validates it.
_HOLDS = {
    "value": Any,
    "type-name": Literal[TYPE_NAMES],
    "names": list[str],
    "exception-name": Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")],
}
_COMPANIONS = {name: kind.companion for name, kind in KINDS.items() if kind.companion}


def field_name(key: str) -> str:
    """The model's field for a YAML key: a Python keyword (``is``) gets a trailing underscore."""
    return key + "_" if keyword.iskeyword(key) else key


class _CheckFields(Strict):
    """Exactly one check kind; its companion key (``equals``, ``is``, ...) where it has one. The fields
    come from the worker's table of kinds (``Check`` below)."""

    @model_validator(mode="after")
    def _one_kind(self):
        given = [k for k in CHECK_KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            found = ", ".join(given) or "none"
            raise ValueError(f"a check holds exactly one of {', '.join(CHECK_KINDS)} (found: {found})")
        kind = given[0]
        needed = _COMPANIONS.get(kind)
        for key in _COMPANIONS.values():
            given_here = field_name(key) in self.model_fields_set
            if given_here and key != needed:
                raise ValueError(f"'{key}' does not belong to a '{kind}' check")
            if key == needed and not given_here:
                raise ValueError(f"a '{kind}' check needs '{key}'")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in CHECK_KINDS if getattr(self, k) is not None)

    @property
    def target(self) -> str:
        """The PATH or code the check is about."""
        return getattr(self, self.kind)

    def as_dict(self) -> dict:
        """The check as written in YAML (the worker's input)."""
        return self.model_dump(by_alias=True, exclude_unset=True)


def _check_fields() -> dict:
    fields: dict = {}
    for kind in KINDS.values():
        fields[kind.name] = (Optional[str], None)
        if kind.companion:
            fields[field_name(kind.companion)] = (Optional[_HOLDS[kind.holds]],
                                                  Field(default=None, alias=kind.companion))
    return fields


if TYPE_CHECKING:  # a type checker sees the base: the fields are made from the table at run time
    Check = _CheckFields
else:
    Check = create_model("Check", __base__=_CheckFields, __doc__=_CheckFields.__doc__, **_check_fields())


class Rival(Strict):
    """A plausible wrong belief the fact rules out, and the world where it would hold.

    ``world`` is Python run (with ``torch`` imported) before the check, in a throwaway checker: a
    patch of torch or another starting state that makes the belief true. ``verify --controls``
    builds it, and the check must fail there at its own assertion.
    """

    belief: str = Field(min_length=8)
    world: str = Field(min_length=1)

    @field_validator("world")
    @classmethod
    def _compiles(cls, code):
        try:
            compile(code, "<world>", "exec")
        except SyntaxError as err:
            raise ValueError(f"the rival's world does not compile: {err.msg} (line {err.lineno})") from None
        return code


class Fact(Strict):
    id: Id
    claim: LocalText
    check: Check
    requires: list[Capability] = []
    unless: list[Capability] = []  # holds only where torch lacks these (a CPU-wheel fact: unless: [cuda-built])
    torch: Optional[str] = None
    # seconds its check may run where --timeout is too short: a check that starts an interpreter (up to 10 min)
    timeout: Optional[float] = Field(default=None, gt=0, le=600)
    source: Optional[str] = None
    # what would be seen were the claim false, for behaviour a control run cannot change from Python:
    # it must fail where the check passes
    control: Optional[Check] = None
    rivals: list[Rival] = []  # the wrong beliefs the check rules out (verify --controls builds each world)

    @model_validator(mode="after")
    def _control_is_a_rival(self):
        if self.control is not None and negates(self.control, self.check):
            raise ValueError("the control only negates the check: state what would be seen were the claim false "
                             "(another observation), not the check's own test turned around")
        return self

    def control_key(self) -> str:
        """``check_key`` with the control: what decides the fact's control result."""
        control = self.control.as_dict() if self.control else None
        rivals = [rival.world for rival in self.rivals]
        return hashlib.sha256(json.dumps([self.check_key(), control, rivals], sort_keys=True).encode()
                              ).hexdigest()[:24]

    @model_validator(mode="after")
    def _requires_and_unless_disjoint(self):
        both = sorted(set(self.requires) & set(self.unless))
        if both:
            raise ValueError(f"{', '.join(both)} is both required and excluded: the fact could never be checked")
        return self

    def check_key(self) -> str:
        """A hash of what decides the fact's result: the check, requires, unless and torch range.

        The verify cache and the ledger key results by it, so editing a check invalidates them.
        """
        body = json.dumps([self.check.as_dict(), sorted(self.requires), sorted(self.unless), self.torch],
                          sort_keys=True)
        return hashlib.sha256(body.encode()).hexdigest()[:24]

    @field_validator("torch")
    @classmethod
    def _valid_range(cls, value):
        if value is not None:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                SpecifierSet(value)
            except InvalidSpecifier:
                raise ValueError(f"'{value}' is not a PEP 440 version range such as '>=2.4'") from None
        return value


_INVERSE = {"Eq": "NotEq", "NotEq": "Eq", "Is": "IsNot", "IsNot": "Is", "In": "NotIn", "NotIn": "In",
            "Lt": "GtE", "GtE": "Lt", "Gt": "LtE", "LtE": "Gt"}


def negates(control: Check, check: Check) -> bool:
    """Whether ``control`` is ``check``'s own test turned around (``not``, an inverted comparison, an
    ``assert`` of the opposite), which proves nothing about a rival hypothesis."""
    turned = {(prefix, ast.dump(node)) for prefix, test in _final_test(check) for node in _turned_around(test)}
    return any((prefix, ast.dump(test)) in turned for prefix, test in _final_test(control))


def _final_test(check: Check) -> list:
    """``[(the statements before it, the final test)]`` of an ``expr`` or a ``snippet`` ending in ``assert``."""
    final_test = KINDS[check.kind].final_test
    if final_test is None:
        return []
    try:
        tree = ast.parse(check.target, mode=KINDS[check.kind].parse_mode)
    except SyntaxError:
        return []
    if final_test == "expression":
        return [((), tree.body)]
    if tree.body and isinstance(tree.body[-1], ast.Assert):
        return [(tuple(ast.dump(statement) for statement in tree.body[:-1]), tree.body[-1].test)]
    return []


def _turned_around(test) -> list:
    out: list[ast.expr] = [ast.UnaryOp(op=ast.Not(), operand=test)]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        out.append(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]).__name__ in _INVERSE:
        inverse = getattr(ast, _INVERSE[type(test.ops[0]).__name__])()
        out.append(ast.Compare(left=test.left, ops=[inverse], comparators=test.comparators))
    return out


class Option(Strict):
    text: LocalText
    correct: bool = False
    why: LocalText


class Quote(Strict):
    text: LocalText
    source: str = Field(pattern=r"^https?://")


# Whether a code sample runs as shown with torch imported (checked by ``torchdeck samples`` and
# ``make test``), raises (the point of the sample), is an excerpt of a larger program, or needs a
# CUDA GPU: the outputs mark the last two.
Runs = Literal["yes", "raises", "fragment", "gpu"]


class ShowsCode:
    """An item or example that shows a code sample (``code``, written once or per language: ``code_text``)."""

    if TYPE_CHECKING:  # the fields of the models that show code (not fields of this mixin)
        code: Any
        language: str
        runs: str

    def code_in(self, lang: str) -> str:
        """The sample as the ``lang`` deck shows it, its comments in that language where written so;
        '' where the item shows none."""
        return self.code.get(lang) if self.code is not None else ""


class CodeExample(ShowsCode, Strict):
    code: LocalCode
    language: str = "python"
    caption: Optional[LocalText] = None
    runs: Runs = "yes"


class Table(Strict):
    columns: list[LocalText] = Field(min_length=1)
    rows: list[list[LocalText]] = Field(min_length=1)
    headline: Optional[LocalText] = None  # its slide's own headline (``generator.headlines``)

    @model_validator(mode="after")
    def _rectangular(self):
        for number, row in enumerate(self.rows, 1):
            if len(row) != len(self.columns):
                raise ValueError(f"row {number} has {len(row)} cells, the table has {len(self.columns)} columns")
        return self


class FlagRow(Strict):
    """A row of a workshop handout's cheat table: a flag the lesson teaches, the fact whose check asserts its
    default (the table prints the value that check asserts: ``defaults.asserted_default``), and when to
    change it, resting on ``facts``."""

    flag: str = Field(pattern=r"^torch\.backends(\.\w+)+$")
    default: Id
    change: LocalText
    facts: list[Id] = Field(min_length=1)


class Lesson(Strict):
    id: Id
    title: LocalText
    points: list[LocalText] = []
    code: list[CodeExample] = []
    table: Optional[Table] = None
    quote: Optional[Quote] = None
    analogy: Optional[LocalText] = None
    diagrams: list[str] = []
    notes: Optional[LocalText] = None
    ask: Optional[LocalText] = None
    minutes: int = Field(default=5, ge=1, le=60)
    takeaway: Optional[LocalText] = None
    facts: list[Id] = []
    flags: list[FlagRow] = []  # the flags it teaches, for the handout's cheat table
    # a game: the table's first column holds situations, the others their answers; a workshop deck
    # shows the situations first and the answers a click later. Its rows are advice by their nature
    # (what to pick where), so they carry no ℹ mark (``statements`` counts them as explanation).
    game: bool = False

    @model_validator(mode="after")
    def _game_rows_unmarked(self):
        if not self.game:
            return self
        if self.table is None:
            raise ValueError("a game needs a table: its situations and their answers")
        for number, row in enumerate(self.table.rows, 1):
            for cell in row:
                if any((text or "").lstrip().startswith(EXPLAIN) for text in (cell.en, cell.zh)):
                    raise ValueError(f"row {number} of a game marks a cell with ℹ: a game's rows are advice "
                                     "by their nature, so drop the mark")
        return self


class CardBase(Strict):
    id: Id
    tags: list[Tag] = []
    difficulty: Difficulty = 1
    facts: list[Id] = Field(min_length=1)
    extra: Optional[LocalText] = None
    source: Optional[Quote] = None
    # the one diagram the card shows, named where the card is about it (its lessons carry it: lint checks)
    diagram: Optional[str] = None


class BasicCard(CardBase):
    kind: Literal["basic"]
    front: LocalText
    back: LocalText


class ReverseCard(CardBase):
    kind: Literal["reverse"]
    front: LocalText
    back: LocalText


class ClozeCard(CardBase):
    kind: Literal["cloze"]
    text: LocalText
    back_extra: Optional[LocalText] = None

    @field_validator("text")
    @classmethod
    def _has_deletions(cls, value):
        for lang, body in (("en", value.en), ("zh", value.zh)):
            if body is not None and not has_cloze(body):
                raise ValueError(f"the {lang} text has no cloze deletion such as {{{{c1::answer}}}}")
        return value


class McqCard(CardBase):
    kind: Literal["mcq"]
    question: LocalText
    options: list[Option] = Field(min_length=2)

    @model_validator(mode="after")
    def _some_correct(self):
        if not any(o.correct for o in self.options):
            raise ValueError("an mcq card needs at least one correct option")
        return self


class CodeCard(ShowsCode, CardBase):
    kind: Literal["code"]
    front: LocalText
    code: LocalCode
    language: str = "python"
    runs: Runs = "yes"
    back: LocalText


Card = Annotated[
    Union[BasicCard, ReverseCard, ClozeCard, McqCard, CodeCard], Field(discriminator="kind")
]


POINTS = {"single": 1, "truefalse": 1, "multi": 2, "scenario": 3}  # a question's points unless it says


class Question(ShowsCode, Strict):
    id: Id
    kind: Literal["single", "multi", "truefalse", "scenario"]
    stem: LocalText
    code: Optional[LocalCode] = None
    language: str = "python"
    runs: Runs = "yes"
    options: list[Option] = Field(min_length=2)
    points: int = Field(default=None, ge=1, le=20, validate_default=False)  # type: ignore[assignment]  # default: POINTS by kind
    difficulty: Difficulty = 1
    tags: list[Tag] = []
    facts: list[Id] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _points_by_kind(cls, data):
        """A question is worth what answering it takes: a scenario (choose and explain) more than a single pick."""
        kind = data.get("kind") if isinstance(data, dict) else None
        if isinstance(kind, str) and kind in POINTS and data.get("points") is None:
            data = {**data, "points": POINTS[kind]}
        return data

    @model_validator(mode="after")
    def _answer_shape(self):
        correct = sum(o.correct for o in self.options)
        if self.kind in ("single", "truefalse") and correct != 1:
            raise ValueError(f"a {self.kind} question has exactly one correct option (found {correct})")
        if self.kind == "truefalse" and len(self.options) != 2:
            raise ValueError("a truefalse question has exactly two options")
        if self.kind in ("multi", "scenario") and correct < 1:
            raise ValueError(f"a {self.kind} question needs at least one correct option")
        return self


class Exclusion(Strict):
    """A public name that no fact checks, and why (shown by ``torchdeck coverage``)."""

    name: str = Field(pattern=r"^torch\.backends(\.\w+)+$")
    reason: str = Field(min_length=10)


class Module(Strict):
    module: str = Field(pattern=r"^torch\.backends(\.[a-z_][a-z0-9_]*)*$")
    title: Optional[LocalText] = None
    summary: Optional[LocalText] = None
    order: int = 1000
    lessons: list[Lesson] = []
    facts: list[Fact] = []
    cards: list[Card] = []
    questions: list[Question] = []
    coverage_exclude: list[Exclusion] = []

    @property
    def name(self) -> str:
        """Short name: ``cudnn`` for ``torch.backends.cudnn``, ``backends`` for the top level."""
        return self.module.rsplit(".", 1)[-1]

    def display_title(self, lang: str) -> str:
        return self.title.get(lang) if self.title else self.module

    def code_samples(self) -> list[tuple[str, int, int, ShowsCode]]:
        """``(section, item index, number, holder)`` of each code sample, in the order written: a lesson's
        examples (numbered from 1, the holder an example), a code card's and a question's (number 1)."""
        found: list[tuple[str, int, int, ShowsCode]] = [
            ("lessons", index, number, example) for index, lesson in enumerate(self.lessons)
            for number, example in enumerate(lesson.code, 1)]
        found += [("cards", index, 1, card) for index, card in enumerate(self.cards) if isinstance(card, CodeCard)]
        found += [("questions", index, 1, question) for index, question in enumerate(self.questions)
                  if question.code is not None]
        return found


class WorkshopStep(Strict):
    """One step of a workshop's agenda: a lesson with the questions asked after it, or a break."""

    lesson: Optional[Id] = None
    questions: list[Id] = []
    break_: Optional[int] = Field(default=None, alias="break", ge=5, le=60)  # minutes

    @model_validator(mode="after")
    def _lesson_or_break(self):
        if (self.lesson is None) == (self.break_ is None):
            raise ValueError("a step is either 'lesson: ID' (with its 'questions') or 'break: MINUTES'")
        if self.break_ is not None and self.questions:
            raise ValueError("a break asks no questions")
        return self


class Workshop(Strict):
    """A named selection of lessons and questions for a time slot (``content/workshops.yaml``)."""

    id: Id
    title: LocalText
    summary: Optional[LocalText] = None
    agenda: list[WorkshopStep] = Field(min_length=1)

    @property
    def lesson_ids(self) -> list[str]:
        return [step.lesson for step in self.agenda if step.lesson]


class WorkshopFile(Strict):
    """``content/workshops.yaml``: the workshops a presenter can pick."""

    workshops: list[Workshop] = Field(min_length=1)


@dataclass(frozen=True)
class Origin:
    """Where an item was written: file and 1-based line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Course:
    """All loaded modules, in teaching order, with where each item came from."""

    modules: tuple[Module, ...]
    origins: dict[tuple[str, str], Origin] = field(default_factory=dict)  # (section, id): ids are unique per section
    highlighted: tuple[str, ...] = ()  # short names of the modules the module map highlights (a workshop's own)
    whole: tuple[Module, ...] = ()  # every loaded module, kept by select(): items may cite their facts
    workshops: tuple[Workshop, ...] = ()  # content/workshops.yaml, where the content has one
    left_out_cards: tuple = ()  # (module, card, failed facts) of each card without_facts() left out

    @property
    def map_names(self) -> tuple[str, ...]:
        """The short names the module map shows: every loaded module's, also in a selection (a workshop's
        own are ``highlighted``)."""
        return tuple(m.name for m in self.all_modules)

    @property
    def facts(self) -> list[Fact]:
        """The facts of these modules, and in a selection also the other modules' facts its items cite."""
        own = [f for m in self.modules for f in m.facts]
        if not self.whole:
            return own
        have = {f.id for f in own}
        cited = {fact_id for m in self.modules for items in (m.lessons, m.cards, m.questions)
                 for item in items for fact_id in item.facts}
        cited |= {fact_id for lesson in self.lessons for row in lesson.flags for fact_id in (row.default, *row.facts)}
        return own + [f for m in self.whole for f in m.facts if f.id in cited and f.id not in have]

    @property
    def all_modules(self) -> tuple[Module, ...]:
        """Every loaded module, also in a selection (what is the same whichever modules a build picks)."""
        return self.whole or self.modules

    @property
    def cards(self) -> list:
        return [c for m in self.modules for c in m.cards]

    @property
    def questions(self) -> list[Question]:
        return [q for m in self.modules for q in m.questions]

    @property
    def lessons(self) -> list[Lesson]:
        return [lesson for m in self.modules for lesson in m.lessons]

    def fact(self, fact_id: str) -> Fact:
        return self._fact_index[fact_id]

    @cached_property
    def _fact_index(self) -> dict[str, Fact]:
        return {f.id: f for f in self.facts}

    def where(self, item_id: str, section: str) -> Origin:
        """Where the item of ``section`` (``facts``, ``cards``, ``questions``, ``lessons``) was written."""
        return self.origins.get((section, item_id), Origin("?", 0))

    def defined_ids(self, section: str) -> set[str]:
        """Ids of ``section`` the loaded content defines, selected or left out of this course or not."""
        return {item_id for kind, item_id in self.origins if kind == section}

    def without_facts(self, fact_ids) -> tuple["Course", list[tuple[str, str, tuple[str, ...]]]]:
        """The course without every lesson, card and question that cites one of ``fact_ids``,
        and what was left out: ``(kind, item id, the failed facts it cites)``.

        A lesson goes whole: its points, table and code are written around the facts it cites,
        and a slide with a sentence cut out of it would not read. The facts stay, so that what
        remains can still look up every fact by id.
        """
        failed = set(fact_ids)
        left_out: list[tuple[str, str, tuple[str, ...]]] = []
        cards_out: list = []

        def keep(kind, items):
            kept = []
            for item in items:
                hit = tuple(f for f in item.facts if f in failed)
                if hit:
                    left_out.append((kind, item.id, hit))
                else:
                    kept.append(item)
            return kept

        if not failed:
            return self, left_out
        modules = []
        for m in self.modules:
            cards = keep("card", m.cards)
            kept_ids = {card.id for card in cards}
            cards_out += [(m, card, tuple(f for f in card.facts if f in failed)) for card in m.cards
                          if card.id not in kept_ids]
            modules.append(m.model_copy(update={"lessons": keep("lesson", m.lessons), "cards": cards,
                                                "questions": keep("question", m.questions)}))
        return Course(tuple(modules), self.origins, self.highlighted, self.whole, self.workshops,
                      tuple(cards_out)), left_out

    def select(self, names) -> "Course":
        """Only the modules named (short or dotted names); all when ``names`` is empty."""
        if not names:
            return self
        wanted = set(names)
        kept = tuple(m for m in self.modules if m.name in wanted or m.module in wanted)
        return Course(kept, self.origins, self.highlighted, self.all_modules, self.workshops)

    def workshop(self, workshop_id: str) -> Workshop:
        """The workshop of that id (KeyError where there is none)."""
        found = {w.id: w for w in self.workshops}
        return found[workshop_id]
