"""Content quality beyond the schema: translations, teaching completeness, items that give
nothing away (no hand-written 'select all' hint, true/false keys balanced, the correct option not
the longest by habit), cards with one thing to recall each, and Chinese in one register (the
glossary)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import combinations
from pathlib import Path
from typing import Any, Iterator, Optional

from pydantic import BaseModel

from . import card_rules
from .markup import CLOZE, CODE_SPAN, cloze_blanks, split_explanation
from .model import ITEM_SECTIONS, SECTIONS, Course, Origin
from .text import Text


@dataclass(frozen=True)
class Finding:
    where: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: {self.message}"


def missing_translations(item: BaseModel) -> list[str]:
    """Field paths inside ``item`` whose text has no Chinese translation."""
    return [path for path, text in texts_of(item) if text.missing()]


def texts_of(item: BaseModel, prefix: str = "") -> Iterator[tuple[str, Text]]:
    """``(field path, Text)`` of every text inside ``item``: ``options[2].why``, ``table.rows[0][1]``."""
    for name in type(item).model_fields:
        yield from _texts_in(getattr(item, name), f"{prefix}{name}")


def _texts_in(value, path: str) -> Iterator[tuple[str, Text]]:
    if isinstance(value, Text):
        yield path, value
    elif isinstance(value, BaseModel):
        yield from texts_of(value, path + ".")
    elif isinstance(value, (list, tuple)):
        for index, entry in enumerate(value):
            yield from _texts_in(entry, f"{path}[{index}]")


# Words that belong to the authors' side: where a claim was first read, how a check is written. A learner,
# a student or a room never sees them (torch's own "seed" and the chatbot of a scenario are fine).
_AUTHORING = re.compile(r"\bseed (?:chat|conversation|notes?|documents?|notebook|article)s?\b|\bsource notes?\b"
                        r"|\ban? (?:absent|missing|weak) check\b|\bchecked with\b|\bthe fact's check\b"
                        r"|种子(?:对话|文档|笔记|文章)|原始对话|聊天记录|教程对话", re.IGNORECASE)


def authoring_findings(course: Course) -> list[Finding]:
    """Authoring notes in any text of a card, question or lesson, in either language."""
    findings: list[Finding] = []
    for module in course.modules:
        for section in ITEM_SECTIONS:
            for item in getattr(module, section):
                for path, text in texts_of(item):
                    match = next(filter(None, (_AUTHORING.search(t or "") for t in (text.en, text.zh))), None)
                    if match:
                        findings.append(Finding(str(course.where(item.id, section)), f"{item.id}.{path}",
                                                f"'{match.group(0)}' is an authoring note: learners, students "
                                                "and rooms never see where a claim was read or how it is checked"))
    return findings


def lint(course: Course) -> list[Finding]:
    findings: list[Finding] = []
    for module in course.modules:
        for field in ("title", "summary"):
            value = getattr(module, field)
            if value is None or value.missing():
                findings.append(Finding(module.module, field, "missing" if value is None else "no zh translation"))
        for section in SECTIONS:
            for item in getattr(module, section):
                where = str(course.where(item.id, section))
                for path in missing_translations(item):
                    findings.append(Finding(where, f"{item.id}.{path}", "no zh translation"))
        for lesson in module.lessons:
            where = str(course.where(lesson.id, "lessons"))
            for field in ("notes", "ask"):
                if getattr(lesson, field) is None:
                    findings.append(Finding(where, f"{lesson.id}.{field}", "a lesson needs speaker notes and a question for the room"))
    from .code_comments import comment_findings  # they walk texts with this module's helpers
    from .headlines import headline_findings
    from .zh_style import punctuation_findings

    findings += [Finding(where, field, message) for where, field, message in headline_findings(course)]

    return (findings + item_findings(course) + statement_findings(course) + card_findings(course)
            + question_findings(course) + glossary_findings(course) + authoring_findings(course)
            + punctuation_findings(course) + comment_findings(course))


def statement_findings(course: Course) -> list[Finding]:
    """Fact parts of learner texts (before ``ℹ``) that state what no cited fact supports: a number none
    of them mentions, or GPU behaviour where none of them needs a GPU."""
    from . import statements

    findings: list[Finding] = []
    for text in statements.texts(course):
        where, field = str(course.where(text.item.id, text.section)), f"{text.item.id}.{text.field}"
        numbers = statements.number_findings(course, text)
        if numbers:
            findings.append(Finding(where, field, f"states {', '.join(numbers)}, which no fact it cites mentions: "
                                    "cite the fact that checks it, or move the sentence after ℹ (explanation)"))
        word = statements.gpu_finding(course, text)
        if word:
            findings.append(Finding(where, field, f"describes GPU behaviour ('{word}') but cites no fact that needs "
                                    "a GPU: cite the GPU fact, or move the sentence after ℹ (explanation)"))
    return findings


# A hand-written "select all" hint: the outputs add their own, in one phrasing, where it applies.
_HINT = re.compile(r"\b(select|choose|pick|mark|tick)\s+(all|every)\b|all that apply|多选|选出所有", re.I)
TRUE_SHARE = (0.40, 0.60)  # of true/false questions keyed True
LONGEST_SHARE = 0.35  # of single-answer items whose correct option is strictly the longest
_MIN_ITEMS = 10  # below this many items a share says nothing


def item_findings(course: Course) -> list[Finding]:
    """Items that give their answer away: one finding per item, or per course-wide share out of bounds."""
    findings: list[Finding] = []
    for module in course.modules:
        asked: list[tuple[str, Any, Text]] = [("questions", q, q.stem) for q in module.questions]
        asked += [("cards", c, c.question) for c in module.cards if c.kind == "mcq"]
        for section, item, text in asked:
            if any(_HINT.search(t) for t in (text.en, text.zh or "")):
                findings.append(Finding(str(course.where(item.id, section)), f"{item.id}", "a hand-written 'select "
                                        "all that apply' hint: the outputs add one themselves, remove it"))
    questions = [q for m in course.modules for q in m.questions]
    true_false = [q for q in questions if q.kind == "truefalse"]
    if len(true_false) >= _MIN_ITEMS:
        keyed_true = [q for q in true_false if _correct(q)[0].text.en.strip().lower() == "true"]
        share = len(keyed_true) / len(true_false)
        if not TRUE_SHARE[0] <= share <= TRUE_SHARE[1]:
            findings.append(Finding("content", "true/false questions", f"{len(keyed_true)} of {len(true_false)} are "
                                    f"keyed True ({share:.0%}); keep it between {TRUE_SHARE[0]:.0%} and "
                                    f"{TRUE_SHARE[1]:.0%}"))
    singles: dict[str, list[Any]] = {"questions": [q for q in questions if q.kind == "single"],
               "MCQ cards": [c for m in course.modules for c in m.cards
                             if c.kind == "mcq" and len(_correct(c)) == 1]}
    for what, items in singles.items():
        longest = [item.id for item in items if _correct_is_longest(item)]
        if len(items) >= _MIN_ITEMS and len(longest) / len(items) > LONGEST_SHARE:
            findings.append(Finding("content", f"single-answer {what}", f"the correct option is strictly the "
                                    f"longest in {len(longest)} of {len(items)} ({len(longest) / len(items):.0%}; at "
                                    f"most {LONGEST_SHARE:.0%}): {', '.join(longest[:12])}"
                                    + (" ..." if len(longest) > 12 else "")))
    return findings


def _correct(item) -> list:
    return [o for o in item.options if o.correct]


def _correct_is_longest(item) -> bool:
    (right,) = _correct(item)
    return all(len(right.text.en) > len(o.text.en) for o in item.options if o is not right)


# Cards by the minimum-information principle: each asks one thing.
MAX_LIST_ITEMS = 3  # an answer listing more is a set to recite: one card per item, or a cloze
MAX_CLOZE_DELETIONS = 2  # a cloze makes one card per number: c1..cN is N cards over one list
MIN_REVERSE_PROMPT_WORDS = 3  # a reversed card shows the back as its question: "16" asks nothing
SAME_PROMPT = 0.85  # prompts naming the same code this alike (difflib ratio) ask the same thing
_ITEM_WORDS = 4  # a list item is short: a longer run of words is a clause, not an item
_ASIDE = re.compile(r"\([^()]*\)")
_CLAUSE_END = re.compile(r"[;:!?]\s|\.(?:\s|$)|\s[—–]\s")
_ITEM_SEPARATOR = re.compile(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def card_findings(course: Course) -> list[Finding]:
    """Cards that ask for more than one thing: an answer listing 4+ items, a cloze with 3+ deletions, a
    reversed card whose question (the back) is a bare value, the rules of ``card_rules``, a diagram on a card
    its lessons do not draw it for, and two cards that ask the same thing."""
    cards = [card for module in course.modules for card in module.cards]
    findings: list[Finding] = []
    for card in cards:
        where = str(course.where(card.id, "cards"))
        findings.extend(Finding(where, f"{card.id}.{field}", message) for field, message in _card_problems(card))
        if card.diagram and not _teaches_diagram(course, card):
            findings.append(Finding(where, f"{card.id}.diagram", f"no lesson teaching the card's facts carries "
                                    f"'{card.diagram}': show a diagram only on a card about it"))
    for first, second in _same_questions(cards):
        findings.append(Finding(str(course.where(second.id, "cards")), second.id,
                                f"asks what {first.id} ({course.where(first.id, 'cards')}) asks: keep the better one"))
    return findings


def _teaches_diagram(course: Course, card) -> bool:
    return any(card.diagram in lesson.diagrams and set(lesson.facts) & set(card.facts) for lesson in course.lessons)


def _card_problems(card) -> list[tuple[str, str]]:
    problems = []
    answers = {"back": card.back.en} if card.kind in ("basic", "reverse", "code") else {}
    if card.kind == "reverse":
        answers["front"] = card.front.en  # the answer of the reversed card
    for field, text in answers.items():
        items = list_length(text)
        if items > MAX_LIST_ITEMS:
            problems.append((field, f"the answer lists {items} items (at most {MAX_LIST_ITEMS}): a set to recite; "
                                    "split it into cards that each ask for one item"))
    if card.kind == "cloze":
        deletions = max(len(cloze_numbers(text)) for text in (card.text.en, card.text.zh or ""))
        if deletions > MAX_CLOZE_DELETIONS:
            problems.append(("text", f"{deletions} cloze deletions make {deletions} cards over one list (at most "
                                     f"{MAX_CLOZE_DELETIONS}): split the cloze or delete fewer"))
    if card.kind == "reverse":
        prompt = split_explanation(card.back.en)[0].replace("`", "").split()
        if len(prompt) < MIN_REVERSE_PROMPT_WORDS:
            problems.append(("back", f"the reversed card asks only '{' '.join(prompt)}': make it a basic card, or "
                                     "give the back enough to be a question"))
    return problems + card_rules.problems(card)


def list_length(text: str) -> int:
    """The most short items (a code span counts as one) listed in a row in one clause of ``text``."""
    plain = _ASIDE.sub("", CODE_SPAN.sub("x", text))
    longest = 0
    for clause in _CLAUSE_END.split(plain):
        run = 0
        for item in _ITEM_SEPARATOR.split(clause):
            run = run + 1 if 0 < len(item.split()) <= _ITEM_WORDS else 0
            longest = max(longest, run)
    return longest


def cloze_numbers(text: str) -> set[str]:
    return {match[1] for match in CLOZE.finditer(text)}


def _same_questions(cards) -> list[tuple]:
    """Pairs of cards that ask the same thing: code cards showing the same code, prompts that name the same
    code spans in nearly the same words, cards asking about the same calls with the same answer, or clozes
    hiding the same name."""
    pairs: list[tuple] = []
    by_code: dict[str, list] = {}
    by_names: dict[frozenset[str], list] = {}
    for card in cards:
        if card.kind == "code":
            by_code.setdefault(" ".join(card.code.en.split()), []).append(card)
        else:
            by_names.setdefault(_names(_prompt(card)), []).append(card)
    for group in by_code.values():
        pairs += [(group[0], other) for other in group[1:]]
    for group in by_names.values():
        for first, second in combinations(group, 2):
            matcher = SequenceMatcher(None, _prompt(first).lower(), _prompt(second).lower())
            if matcher.real_quick_ratio() >= SAME_PROMPT and matcher.quick_ratio() >= SAME_PROMPT \
                    and matcher.ratio() >= SAME_PROMPT:
                pairs.append((first, second))
    pairs += [pair for pair in _same_answers(cards) if pair not in pairs]
    return pairs + [pair for pair in _same_hidden_names(cards) if pair not in pairs]


_HIDDEN_NAME = re.compile(r"`?(?:[A-Za-z]\w*[._]\w[\w.]*|[A-Za-z][a-z0-9]*[A-Z]\w*)(?:\(\))?`?")


def _same_hidden_names(cards) -> list[tuple]:
    """Pairs of clozes that hide the same name (``ContextProp``, ``enable_global_flags``; not a value such as
    ``False`` or ``'none'``): whatever their other words, both ask the learner to recall that name for one
    idea, "backend flags are ___ descriptors"."""
    by_name: dict[str, list] = {}
    for card in cards:
        if card.kind == "cloze":
            for name in {m[2] for m in CLOZE.finditer(card.text.en) if _HIDDEN_NAME.fullmatch(m[2])}:
                by_name.setdefault(name.strip("`"), []).append(card)
    return [(group[0], other) for group in by_name.values() for other in group[1:]]


def _same_answers(cards) -> list[tuple]:
    """Pairs of cards, of any kind, that ask about the same calls and answer with the same value on a fact they
    share: a code card printing ``kleidiai.is_available()`` and a basic card asking for it, both ``False``."""
    pairs: list[tuple] = []
    by_call: dict[tuple, list] = {}
    for card in cards:
        calls = _asked_calls(card)
        if calls and _answer_head(card):
            by_call.setdefault((calls, _answer_head(card)), []).append(card)
    for group in by_call.values():
        pairs += [(first, second) for first, second in combinations(group, 2) if set(first.facts) & set(second.facts)]
    return pairs


_CALL = re.compile(r"\b(?:torch\.)?[A-Za-z_][\w.]*\.[A-Za-z_]\w*(?=\()")
_HEAD = re.compile(r"`([^`]+)`|([^\s.,:;，。：；]+)")


def _asked_calls(card) -> frozenset[str]:
    """The calls (``torch.backends.kleidiai.is_available``) a basic, reversed or code card asks about: in its
    prompt, and in the code a code card shows."""
    if card.kind not in ("basic", "reverse", "code"):
        return frozenset()
    shown = card.front.en + ("\n" + card.code.en if card.kind == "code" else "")
    return frozenset(name.removeprefix("torch.") for name in _CALL.findall(shown))


def _answer_head(card) -> str:
    """What the answer starts with: its first value (```False```) or word, lower-cased."""
    match = _HEAD.search(split_explanation(card.back.en)[0])
    return (match[1] or match[2]).lower() if match else ""


_NAME = re.compile(r"[A-Za-z_][\w.]*(?<=\w)")


def _names(text: str) -> frozenset[str]:
    """The code spans and names (NNPACK, cudnn.enabled, set_flags) a text mentions: two prompts about
    different names ask different things however alike their words."""
    words = _NAME.findall(CODE_SPAN.sub(" ", text))
    return frozenset(CODE_SPAN.findall(text)) | {w for w in words if not (w.islower() or w.istitle()) or "_" in w
                                                 or "." in w}


def _prompt(card) -> str:
    """What a card asks, in English (a cloze with its deletions blanked)."""
    if card.kind == "mcq":
        return card.question.en
    if card.kind == "cloze":
        return cloze_blanks(card.text.en, "___")
    return card.front.en


# Questions that ask the same thing twice: on one sheet the second gives the first away, and side by side
# in the whole bank a student answers one question twice. Tuned on the shipped course (206 questions).
SAME_ANSWER = 0.8  # correct answers this alike (difflib ratio over their words) give the same answer
NEAR_STEM, NEAR_ANSWER = 0.8, 0.7  # stems (with code) and correct answers this alike: nearly the same question
SAME_FACTS_STEM = 0.6  # stems this alike that cite exactly the same facts ask the same thing
_WORD = re.compile(r"\w+")
_SUBJECT_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*_\w*|[A-Za-z_]\w*(?=\()")
_SUBJECT_VALUE = re.compile(r"""["']([^"'\s]{1,24})["']""")


def question_findings(course: Course) -> list[Finding]:
    """Pairs of questions that ask the same thing, reported at the later one: the same names and values
    asked about with the same answer, the same cited facts in nearly the same words, or stems and answers
    nearly word for word alike (the same question about another name: one on a sheet gives the other away)."""
    questions = [question for module in course.modules for question in module.questions]
    shapes = {question.id: _QuestionShape.of(question) for question in questions}
    findings: list[Finding] = []
    for question in questions:
        said = card_rules.stem_give_away(question.stem, question.options) if question.kind != "truefalse" else ""
        if said:
            findings.append(Finding(str(course.where(question.id, "questions")), f"{question.id}.stem",
                                    f"says '{said}', the correct option: ask without it"))
    for first, second in combinations(questions, 2):
        reason = _same_question(shapes[first.id], shapes[second.id])
        if reason:
            findings.append(Finding(str(course.where(second.id, "questions")), second.id,
                                    f"{reason} {first.id} ({course.where(first.id, 'questions')}): keep the better "
                                    "one, or make them ask different things"))
    return findings


@dataclass(frozen=True)
class _QuestionShape:
    """What a question asks, in English: the words of its stem and code, the names and quoted values they
    mention, the words of its correct options (explanations after ℹ left out), and the facts it cites."""

    stem: tuple[str, ...]
    subject: frozenset[str]
    answer: tuple[str, ...]
    facts: frozenset[str]

    @classmethod
    def of(cls, question) -> "_QuestionShape":
        asked = f"{question.stem.en}\n{question.code_in('en')}"
        right = sorted(split_explanation(option.text.en)[0] for option in question.options if option.correct)
        return cls(tuple(_WORD.findall(asked.lower())),
                   frozenset(_SUBJECT_NAME.findall(asked)) | {v.lower() for v in _SUBJECT_VALUE.findall(asked)},
                   tuple(word for text in right for word in _WORD.findall(text.lower())), frozenset(question.facts))


def _same_question(first: _QuestionShape, second: _QuestionShape) -> str:
    """Why two questions ask the same thing ('' where they do not)."""
    if first.subject and first.subject == second.subject and _same_answer(first.answer, second.answer):
        return "asks what"
    if first.facts == second.facts and _alike(first.stem, second.stem) >= SAME_FACTS_STEM:
        return "asks, on the same facts, what"
    if (_alike(first.stem, second.stem) >= NEAR_STEM and min(len(first.answer), len(second.answer)) >= 2
            and _alike(first.answer, second.answer) >= NEAR_ANSWER):  # a bare False is many questions' answer
        return "nearly repeats, word for word,"
    return ""


def _same_answer(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """Answers alike, or the shorter (two words at least: not a bare True) held in the longer."""
    if _alike(first, second) >= SAME_ANSWER:
        return True
    short, long = sorted((first, second), key=len)
    matcher = SequenceMatcher(None, short, long, autojunk=False)
    return len(short) >= 2 and matcher.find_longest_match(0, len(short), 0, len(long)).size == len(short)


def _alike(first: tuple[str, ...], second: tuple[str, ...]) -> float:
    matcher = SequenceMatcher(None, first, second, autojunk=False)
    return matcher.ratio() if matcher.real_quick_ratio() > 0.5 and matcher.quick_ratio() > 0.5 else 0.0


@dataclass(frozen=True)
class Term:
    """A glossary entry: the idea, what Chinese text must not say for it, and what it says instead."""

    idea: str
    avoid: re.Pattern
    prefer: str
    around_chinese: bool = False  # only a match holding Chinese counts: ASCII quotes around "none" quote code


_CJK = re.compile(r"[\u3400-\u9fff]")
# The Chinese glossary, the one place that fixes the register of the zh texts. An English word
# inside `code` or joined to an identifier (cuda.matmul, depthwise_kernel, 'matmul') is a name, not
# a term, and is left alone.
GLOSSARY = (
    Term("myth", re.compile(r"谣言|辟谣|迷思|传言"), "误区 (误区检查：...)"),
    Term("kernel", re.compile(r"(?<![\w.`'\"/-])kernels?(?![\w.`'\"(/-])"), "内核"),
    Term("matmul", re.compile(r"(?<![\w.`'\"/-])matmuls?(?![\w.`'\"(/-])"),
         "矩阵乘 (the settings object as code: `matmul`)"),
    Term("matrix multiplication", re.compile(r"矩阵乘法"), "矩阵乘"),
    Term("tensor core", re.compile(r"(?i)tensor ?cores?"), "张量核心"),
    Term("quotation marks", re.compile(r"「[^「」]*」|『[^『』]*』|[「」『』]"), "“…”"),
    Term("quotation marks", re.compile(r'"[^"]*"'), "“…” around Chinese text (ASCII quotes only around literals)",
         around_chinese=True),
)


def glossary_findings(course: Course) -> list[Finding]:
    """Every discouraged term of ``GLOSSARY`` in a Chinese text (outside `code`), located on its line."""
    findings: list[Finding] = []
    files: dict[str, tuple[str, ...]] = {}
    for module in course.modules:
        texts: list[tuple[Optional[Origin], str, str, Text]] = [
            (None, module.module, field, getattr(module, field)) for field in ("title", "summary")]
        for section in SECTIONS:
            for item in getattr(module, section):
                texts += [(course.where(item.id, section), item.id, path, text) for path, text in texts_of(item)]
        start = _module_origin(course, module)
        for origin, owner, path, text in texts:
            for term, found in _discouraged(text.zh or ""):
                where = _line_of(origin or start, found, files)
                findings.append(Finding(str(where), f"{owner}.{path}", f"'{found}' in Chinese text: the glossary "
                                        f"says {term.prefer} for {term.idea}"))
    return findings


def _discouraged(zh: str) -> list[tuple[Term, str]]:
    prose = CODE_SPAN.sub(" ", zh)
    found = []
    for term in GLOSSARY:
        for match in term.avoid.finditer(prose):
            if _CJK.search(match[0]) or not term.around_chinese:
                found.append((term, match[0]))
    return found


def _module_origin(course: Course, module) -> Origin:
    """The module's file (its title and summary have no origin of their own)."""
    for section in SECTIONS:
        for item in getattr(module, section):
            return Origin(course.where(item.id, section).file, 1)
    return Origin("?", 0)


def _line_of(origin: Origin, found: str, files: dict) -> Origin:
    """The first line from the item's own that holds ``found`` as YAML writes it, a line with Chinese on it
    first (the English of the same text may say "kernel" too); the item's line where none does."""
    needles = [needle for needle in (found, found.replace('"', '\\"'), found.strip('"')) if needle]
    if origin.file not in files:
        files[origin.file] = _lines(origin.file)
    lines = list(enumerate(files[origin.file][origin.line - 1:], origin.line))
    for wanted in (lambda line: _CJK.search(line), lambda line: True):
        for number, line in lines:
            if wanted(line) and any(_holds(line, needle) for needle in needles):
                return Origin(origin.file, number)
    return origin


def _holds(line: str, needle: str):
    """Whether ``line`` holds ``needle`` as a word of its own (``kernel``, not the end of ``t-kernel``)."""
    pattern = re.escape(needle)
    if needle[0].isascii() and needle[0].isalnum():
        pattern = r"(?<![A-Za-z0-9_.-])" + pattern
    if needle[-1].isascii() and needle[-1].isalnum():
        pattern += r"(?![A-Za-z0-9_.-])"
    return re.search(pattern, line)


def _lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8").splitlines())
    except OSError:
        return ()
