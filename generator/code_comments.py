"""Lint: code comments in the deck's language. A sample written once shows its comments in every deck,
so they may hold no prose (``# True`` reads the same in Chinese); a sample written per language
(``code_text``) has Chinese comments punctuated as Chinese."""
from __future__ import annotations

from .code_text import comments, prose_words
from .lint import Finding, _line_of
from .model import Course
from .zh_style import FULL_WIDTH, ascii_marks


def comment_findings(course: Course) -> list[Finding]:
    """English prose in the comments of a sample written once; ASCII marks beside Chinese in a Chinese
    version's comments; a Chinese version that is the English one."""
    findings: list[Finding] = []
    files: dict[str, tuple[str, ...]] = {}
    for module in course.modules:
        for section, index, number, holder in module.code_samples():
            item = getattr(module, section)[index]
            origin, field = course.where(item.id, section), f"{item.id}.code" + (
                f"[{number - 1}]" if section == "lessons" else "")
            code, language = holder.code, holder.language
            if code.zh is None:
                for _, comment in comments(code.en, language):
                    words = prose_words(comment)
                    if words:
                        findings.append(Finding(str(_line_of(origin, comment.strip(), files)), field,
                                                f"'{comment.strip()}': English words ({', '.join(words[:3])}) the zh "
                                                "deck would show: write 'code: {en: ..., zh: ...}' with the comments "
                                                "translated"))
            elif code.zh == code.en:
                findings.append(Finding(str(origin), field, "the zh version is the en one: translate its comments, "
                                                            "or write the code once"))
            else:
                for _, comment in comments(code.zh, language):
                    for found in ascii_marks(comment):
                        mark = next(char for char in found if char in FULL_WIDTH)
                        findings.append(Finding(str(_line_of(origin, comment.strip(), files)), field,
                                                f"'{found}' in a Chinese comment: ASCII '{mark}' beside Chinese, "
                                                f"write '{FULL_WIDTH[mark]}'"))
    return findings
