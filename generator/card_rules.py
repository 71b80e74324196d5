"""Cards by the minimum-information principle, beyond long lists and many deletions (``lint``): one
question per prompt, an answer of at most two statements, a select-all of at most four options, and
no card that gives its answer away (a cloze deletion shown or computable from its own text, a reversed
card whose prompt names its answer).

Each rule reads the fact part of a text (before ``ℹ``): an explanation may say more.
"""
from __future__ import annotations

import os
import re
from fractions import Fraction
from itertools import combinations
from typing import Any, Iterator, Optional

from .markup import CLOZE, CODE_SPAN, split_explanation

MAX_STATEMENTS = 2  # an answer stating three or more things is three cards' worth to recall
MAX_SELECT_ALL_OPTIONS = 4  # a select-all over five options is five true/false cards at once

_QUESTION_MARK = re.compile(r"[?？]")
# "What is X, and why ...": a second question word after a conjunction, in one sentence
_WH = r"(?:what|which|why|how|when|where|who)"
_SECOND_QUESTION = re.compile(rf"\b(?:{_WH}|does|do|did|is|are|can)\b[^?]*?(?:,\s*(?:and|or)?|\s(?:and|or))\s+{_WH}\b"
                              r"[^?]*\?", re.IGNORECASE)
_QUOTED = re.compile(r"(?<!\w)'[^']*'(?!\w)|“[^”]*”|\"[^\"]*\"")  # a quoted myth may ask its own
_ASIDE = re.compile(r"\([^()]*\)|（[^（）]*）")
_SENTENCE = re.compile(r"(.*?)([.!?;:](?:\s+|$)|[。！？；：]|$)")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs)\.", re.IGNORECASE)
_LABEL_WORDS = 2
# a sentence that only gives the verdict the next one explains: "No.", "False:", "Half wrong."
_VERDICT = re.compile(r"^\W*(?:yes|no|true|false|wrong|right|correct|incorrect|half (?:wrong|right)|both|neither|"
                      r"myth|不|不对|不行|不能|不会|错|错误|对|正确|是|否|可以|能|会|都是|半对|半错|错了一半|对了一半|没有)\W*$", re.IGNORECASE)
# "What do `a` and `b` return?", "Defaults of `a`, `b` and `c`?", "`a`, `b` of X?": one answer per name asked
_NAMES = r"`x`(?:\s*,\s*(?:and\s+)?`x`|\s+and\s+`x`)+"
_SEVERAL = re.compile(rf"(?:\bwhat\s+(?:do|are|did)\s|^\s*defaults?\s+of\s|^\s*(?=`))[^?]*?{_NAMES}[^?]*\?", re.I)
_CLAUSE = re.compile(r"(?<=[.!?;:])\s+")
# "it launches nothing, and without a parser it fails": two clauses of three words or more joined by a comma
# and a conjunction state two things ("on cuDNN, oneDNN and MIOpen" is a list, its items too short)
_JOINED = re.compile(r",\s+(?:and|but|while)\s+|，(?:并且|而且|但是?|而)")
_CLAUSE_WORDS = 3
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")
_WORD = re.compile(r"[A-Za-z0-9_]+|[\u4e00-\u9fff]")  # an ASCII word, or one Chinese character
_NAME_PIECE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
# pieces of a name that say nothing about which name it is
_PLAIN_PIECES = frozenset("torch backends which where there their these those about after before get set is has the and or of to in a an with for on by".split())
_MIN_PIECE = 3
_MIN_STEM = 5
_MIN_RANGE = 7  # 0..7 beside 0..15 reads as a range; 1 beside 3 need not
_COUNTS = {**{w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())},
           **{w: n for n, w in enumerate("零一二三四五六七八九十", 0)}, "两": 2}
_NUMBER_WORD = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b", re.IGNORECASE)
# names listed in a row: `code`, 'literals' or NAMES joined by commas, "and", "or", 、, 和, 或
_LISTED_NAME = re.compile(r"`[^`]+`|'[^']+'|\b[A-Z][A-Z0-9_]+\b")
_NAME_RUN = re.compile(r"(?:`[^`]+`|'[^']+'|\b[A-Z][A-Z0-9_]+\b)(?:\s*(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|、|和|或|及)"
                       r"\s*(?:`[^`]+`|'[^']+'|\b[A-Z][A-Z0-9_]+\b))+")
# two deletions one of which is the other's cause: each card shows the other's answer, which gives its own
_BECAUSE = re.compile(r"\b(?:so|because|therefore|hence|thus)\b|所以|因为|因此|于是", re.IGNORECASE)
_MAX_NAME_WORDS = 6  # a side this short that holds code is a name to recall, not a sentence


def two_questions(text: Optional[str]) -> bool:
    """Whether ``text`` asks two things: two question marks, or a second question word joined to the first."""
    if not text:
        return False
    prose = _QUOTED.sub("x", CODE_SPAN.sub("x", _ASIDE.sub("", split_explanation(text)[0])))
    return len(_QUESTION_MARK.findall(prose)) > 1 or bool(_SECOND_QUESTION.search(prose))


def asks_for_several(text: Optional[str]) -> bool:
    """Whether the English ``text`` asks for two or more named things at once: what two names return, or
    the defaults of a list of them (each wants its own answer, so its own card). "What type do `a` and `b`
    read back as?" asks one thing of both and passes; so does "`a` or `b`"."""
    if not text:
        return False
    prose = CODE_SPAN.sub("`x`", _ASIDE.sub("", split_explanation(text)[0]))
    return any(_SEVERAL.search(clause) for clause in _CLAUSE.split(prose))


def statements(text: Optional[str]) -> int:
    """How many things the fact part of ``text`` states: its sentences and ``;``/``:`` clauses, asides and
    bare verdicts ("No.") not counted."""
    if not text:
        return 0
    prose = _ABBREVIATION.sub("", CODE_SPAN.sub("x", _ASIDE.sub("", split_explanation(text)[0])))
    parts = [(match[1], match[2]) for match in _SENTENCE.finditer(prose)]
    return sum(_joined_clauses(part) for part, end in parts
               if part.strip() and not _VERDICT.match(part) and not _label(part, end))


def _joined_clauses(sentence: str) -> int:
    """How many clauses ``sentence`` joins with ", and" (each of them three words or more; 1 where it joins none)."""
    clauses = _JOINED.split(sentence)
    if len(clauses) > 1 and all(len(_WORD.findall(c)) >= _CLAUSE_WORDS for c in clauses):
        return len(clauses)
    return 1


def _label(part: str, end: str) -> bool:
    """A short run before a colon names what follows ("2.13:", "Inside:", "`False True`:"); it states nothing."""
    return end.strip() in (":", "：") and len(part.split()) <= _LABEL_WORDS and len(part.strip()) <= 16


def select_all_too_wide(card: Any) -> bool:
    return sum(o.correct for o in card.options) > 1 and len(card.options) > MAX_SELECT_ALL_OPTIONS


def cloze_give_aways(text: Optional[str]) -> list[str]:
    """The deletions of a cloze text that the rest of it shows: written out elsewhere in it (another
    deletion's answer included, as Anki shows them), every word of it there, or a number the sum,
    difference, product or quotient of its other numbers (or the sum of all of them) gives."""
    if not text:
        return []
    found = []
    for number, answer in _deletions(text):
        context = CODE_SPAN.sub(r"\1", CLOZE.sub(lambda m: " ___ " if m[1] == number else m[2], text))
        hidden = CODE_SPAN.sub(r"\1", answer).strip().strip("'\"")
        if (_shown(hidden, context) or _words_shown(hidden, context) or _computed(hidden, context)
                or _counted(hidden, context) or _piece_shown(hidden, context)):
            found.append(answer)
    if len(set(_deletions(text))) == 2 and _BECAUSE.search(CLOZE.sub(" ", text)):
        found += [answer for _, answer in _deletions(text) if answer not in found]
    return found


def _deletions(text: str) -> Iterator[tuple[str, str]]:
    seen = set()
    for match in CLOZE.finditer(text):
        if (match[1], match[2]) not in seen:
            seen.add((match[1], match[2]))
            yield match[1], match[2]


def _shown(hidden: str, context: str) -> bool:
    """``hidden`` written out in ``context`` as a whole word: a number not inside another (``2`` in ``2.5``),
    a word also as a piece of a dotted name (``Immediate`` in ``miopen.immediate``)."""
    if len(hidden) < 2 and not hidden.isdigit():
        return False
    left = (r"(?<![\w.])" if hidden[0].isdigit() else r"(?<!\w)") if hidden[0].isalnum() else ""
    right = (r"(?![\w]|\.\d)" if hidden[-1].isdigit() else r"(?!\w)") if hidden[-1].isalnum() else ""
    return bool(re.search(left + re.escape(hidden) + right, context, re.IGNORECASE))


def _words_shown(hidden: str, context: str) -> bool:
    """Every word of a deletion of two words or more is in the rest, in some order: ``pip install opt-einsum``
    beside ``pip install torch[opt-einsum]``."""
    words = [w.lower() for w in _WORD.findall(hidden)]
    return len(words) > 1 and set(words) <= {w.lower() for w in _WORD.findall(context)}


def _computed(hidden: str, context: str) -> bool:
    """A number (in digits, or a word such as ``three``) the others give: their sum, or two of them added, subtracted, multiplied or divided, or the top
    of a range one bit wider or narrower than another (``0..127`` beside ``0..255``)."""
    if not (_NUMBER.fullmatch(hidden) or hidden.lower() in _COUNTS):
        return False
    target = Fraction(_COUNTS.get(hidden.lower(), hidden))
    numbers = [Fraction(n) for n in _NUMBER.findall(context.replace("..", " .. "))]
    numbers += [Fraction(_COUNTS[w.lower()]) for w in _NUMBER_WORD.findall(context)]
    if len(numbers) > 1 and sum(numbers) == target:
        return True
    if target >= _MIN_RANGE and any(n >= _MIN_RANGE and n + 1 in ((target + 1) * 2, (target + 1) / 2) for n in numbers):
        return True
    for a, b in combinations(numbers, 2):
        results = {a + b, abs(a - b), a * b} | {x / y for x, y in ((a, b), (b, a)) if y}
        if target in results:
            return True
    return False


def _counted(hidden: str, context: str) -> bool:
    """A count the text shows by listing that many names in a row: "has ___ verbose levels, `VERBOSE_OFF` and
    `VERBOSE_ON`" (``两`` in Chinese too)."""
    count = _COUNTS.get(hidden.lower()) or (int(hidden) if hidden.isdigit() else 0)
    return count > 1 and any(count == len(_LISTED_NAME.findall(run)) for run in _NAME_RUN.findall(context))


def _piece_shown(hidden: str, context: str) -> bool:
    """A deletion written out as a piece of a name the rest shows: ``size`` beside ``max_size``."""
    if not re.fullmatch(r"[A-Za-z]\w{2,}", hidden):
        return False
    return any(hidden.lower() in name.lower().replace(".", "_").split("_") and hidden.lower() != name.lower()
               for name in re.findall(r"[A-Za-z_][\w.]*", context))


def reverse_give_away(prompt: Optional[str], answer: Optional[str]) -> str:
    """A word of ``answer``'s name that ``prompt`` says too ('' where none): the answer must be a name (a
    short side holding code); its pieces that tell one name from another (not ``torch``, ``get``, ...)
    count."""
    if not prompt or not answer:
        return ""
    name = _ASIDE.sub("", split_explanation(answer)[0]).strip()
    if not (CODE_SPAN.search(name) or re.search(r"[._(]", name)) or len(name.split()) > _MAX_NAME_WORDS:
        return ""
    code = " ".join(CODE_SPAN.findall(name)) or name
    pieces = {p.lower() for word in _NAME_PIECE.findall(code) for p in _split_camel(word)}
    pieces = {p for p in pieces if len(p) >= _MIN_PIECE and p not in _PLAIN_PIECES}
    prose = split_explanation(prompt)[0]
    words = _NAME_PIECE.findall(prose)
    said = {w.lower() for word in words for w in (word, *_split_camel(word))}
    said |= {"".join(pair).lower() for pair in zip(words, words[1:])}  # "MKL-DNN", "CuTe DSL": mkldnn, cutedsl
    return next((p for p in sorted(pieces) if any(_same_stem(p, w) for w in said)), "")


def reverse_shared_word(prompt: Optional[str], answer: Optional[str]) -> str:
    """A word of five letters or more (not ``torch``, ``backends``, ...) that the reversed card's question
    (``prompt``, the back) shares with its answer (the front), '' where none: "`xeon` and `xnnpack` (import them by
    name)" asks for "the submodules `import torch` does not load" and says "import"."""
    if not prompt or not answer:
        return ""
    asked = {w.lower() for w in _NAME_PIECE.findall(split_explanation(prompt)[0])}
    answered = {w.lower() for w in _NAME_PIECE.findall(split_explanation(answer)[0])}
    return next((w for w in sorted(asked) if len(w) >= _MIN_STEM and w not in _PLAIN_PIECES
                 and any(_same_stem(w, other) for other in answered)), "")


def _same_stem(piece: str, word: str) -> bool:
    """``disabled`` and ``Disables``: the same word but for an ending of up to two letters."""
    if piece == word:
        return True
    common = len(os.path.commonprefix([piece, word]))
    return common >= _MIN_STEM and common >= max(len(piece), len(word)) - 2


_SUBJECT = re.compile(r"`[^`]+`|\w*[-_.=(]\w|\w*\d|\b\w+[A-Z]\w*")


def names_no_subject(text: Optional[str]) -> bool:
    """Whether the English prompt ``text`` names nothing it asks about: no code, no name (``cuDNN``, ``TF32``,
    ``benchmark=True``): "Which combination can never happen?" leaves a learner to guess whose."""
    return bool(text) and not _SUBJECT.search(split_explanation(text or "")[0])


def stem_give_away(stem: Any, options: list) -> str:
    """The correct option's answer that ``stem`` (a ``Text``) says in its own words, in either language (outside
    code and quotes), where no wrong option's is said there ('' where none): "On a build with OpenMP, what ...
    names as the backend?" → OpenMP."""
    for lang in ("en", "zh"):
        said = _said_in_stem(getattr(stem, lang) or "", [(getattr(o.text, lang) or o.text.en, o.correct)
                                                         for o in options])
        if said:
            return said
    return ""


def _said_in_stem(stem: str, options: list[tuple[str, bool]]) -> str:
    prose = _QUOTED.sub(" ", CODE_SPAN.sub(" ", split_explanation(stem)[0]))

    def said(text: str) -> str:
        answer = split_explanation(text)[0].strip().strip("`'\"。. ")
        if len(answer) < _MIN_PIECE or len(answer.split()) > 3 or answer in ("True", "False", "None"):
            return ""
        found = re.search(rf"(?<![A-Za-z0-9_.]){re.escape(answer)}(?![A-Za-z0-9_])", prose, re.IGNORECASE)
        return answer if found else ""

    if any(said(text) for text, correct in options if not correct):
        return ""
    return next(filter(None, (said(text) for text, correct in options if correct)), "")


def _split_camel(word: str) -> list[str]:
    """``MkldnnModule`` → ``Mkldnn``, ``Module``; ``ACL`` stays whole."""
    return re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", word) or [word]


def problems(card: Any) -> list[tuple[str, str]]:
    """``(field, message)`` for each rule ``card`` breaks, in either language."""
    found = []
    for field, text in _prompts(card):
        if any(two_questions(t) for t in (text.en, text.zh)):
            found.append((field, "asks two questions in one: split it into cards that each ask one"))
        if asks_for_several(text.en):
            found.append((field, "asks for several names' values at once: ask about one (the others after ℹ in "
                                 "the answer), or split the card"))
    for field, text in _answers(card):
        count = max(statements(text.en), statements(text.zh))
        if count > MAX_STATEMENTS:
            found.append((field, f"the answer states {count} things (at most {MAX_STATEMENTS} before ℹ): split "
                                 "the card, or move what explains after ℹ"))
    if card.kind in ("mcq", "basic"):
        field, prompt = _prompts(card)[0]
        if names_no_subject(prompt.en):
            found.append((field, "names nothing it asks about: say whose setting, call or library"))
    said = stem_give_away(card.question, card.options) if card.kind == "mcq" else ""
    if said:
        found.append(("question", f"says '{said}', the correct option: ask without it"))
    if card.kind == "mcq" and select_all_too_wide(card):
        found.append(("options", f"a select-all over {len(card.options)} options (at most "
                                 f"{MAX_SELECT_ALL_OPTIONS}): drop options, or split the card"))
    if card.kind == "cloze":
        for lang in ("en", "zh"):
            for answer in cloze_give_aways(getattr(card.text, lang)):
                found.append(("text", f"the {lang} cloze gives away '{answer}': the rest of its text shows or "
                                      "computes it"))
    if card.kind == "reverse":
        named = {}
        for field, prompt, answer in (("back", card.back, card.front), ("front", card.front, card.back)):
            named[field] = word = reverse_give_away(prompt.en, answer.en)
            if word:
                found.append((field, f"the prompt says '{word}', part of the name it asks for: ask without it"))
        shared = reverse_shared_word(card.back.en, card.front.en)
        if shared and not named["back"]:
            found.append(("back", f"the reversed card's question says '{shared}', a word of its answer: ask "
                                  "without it, or make the card basic"))
    return found


def _prompts(card: Any) -> list[tuple[str, Any]]:
    if card.kind == "mcq":
        return [("question", card.question)]
    if card.kind == "reverse":
        return [("front", card.front), ("back", card.back)]
    return [("front", card.front)] if card.kind in ("basic", "code") else []


def _answers(card: Any) -> list[tuple[str, Any]]:
    return [("back", card.back)] if card.kind in ("basic", "reverse", "code") else []
