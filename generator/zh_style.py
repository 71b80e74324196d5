"""Chinese punctuation: a Chinese sentence uses full-width marks (，；：？！（）), so an ASCII comma,
semicolon, colon, question or exclamation mark or parenthesis beside a Chinese character reads as
translated. Code (`spans` and fenced blocks) keeps its ASCII, and so do marks between Latin words
(``CUDA, ROCm``), which no Chinese character touches."""
from __future__ import annotations

import re

from .lint import Finding, _line_of, _module_origin, texts_of
from .markup import CLOZE, CODE_SPAN
from .model import SECTIONS, Course

FULL_WIDTH = {",": "，", ";": "；", ":": "：", "?": "？", "!": "！", "(": "（", ")": "）"}
_HAN = r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]"  # ideographs and the full-width marks around them
_MARK = "[" + re.escape("".join(FULL_WIDTH)) + "]"
# A mark with a Chinese character right before it, or right after it (spaces between count as beside).
ASCII_BESIDE_HAN = re.compile(rf"{_HAN}[ \t]*{_MARK}|{_MARK}[ \t]*{_HAN}")
_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
_CALL = re.compile(r"[A-Za-z_][\w.]*\([^()\u3400-\u9fff]*\)")  # flags(), is_built(): code without backticks
_VALUE = re.compile(r"\([^()\u3400-\u9fff]*[\d,*+=-][^()\u3400-\u9fff]*\)")  # a tuple, a shape: (False, True)


def ascii_marks(zh: str) -> list[str]:
    """Each run of ``zh`` (outside code) where an ASCII mark stands beside a Chinese character: '版,'.
    Code, a call such as ``flags()`` and a value such as ``(1, 2, 128, 64)`` stand as a Latin 'x' (a comma
    after one is beside no Chinese); a cloze deletion as its answer (``{{c1::整个进程}}``: its colons are
    markup)."""
    prose = _CALL.sub("x", _VALUE.sub("x", CODE_SPAN.sub("x", _CODE_BLOCK.sub("x", zh))))
    prose = CLOZE.sub(lambda deletion: deletion[2], prose)
    return [match[0] for match in ASCII_BESIDE_HAN.finditer(prose)]


def punctuation_findings(course: Course) -> list[Finding]:
    """Every ASCII mark beside a Chinese character in a Chinese text of the content, located on its line."""
    findings: list[Finding] = []
    files: dict[str, tuple[str, ...]] = {}
    for module in course.modules:
        start = _module_origin(course, module)
        texts = [(start, module.module, field, getattr(module, field)) for field in ("title", "summary")]
        for section in SECTIONS:
            for item in getattr(module, section):
                texts += [(course.where(item.id, section), item.id, path, text) for path, text in texts_of(item)]
        for origin, owner, path, text in texts:
            for found in ascii_marks((text.zh or "") if text else ""):
                mark = next(char for char in found if char in FULL_WIDTH)
                findings.append(Finding(str(_line_of(origin, found, files)), f"{owner}.{path}",
                                        f"'{found}' in Chinese text: ASCII '{mark}' beside Chinese, write "
                                        f"'{FULL_WIDTH[mark]}'" + (" (or '、' between listed items)" if mark == ","
                                                                   else "")))
    return findings
