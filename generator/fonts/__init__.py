"""Fonts shipped inside the package, so that outputs come out the same on every machine, with or
without system fonts: DejaVu (Bitstream Vera licence: LICENSE-DejaVu.txt) for diagrams and slide
measurement, Noto Sans CJK SC (SIL OFL 1.1: LICENSE-NotoSansCJK.txt) cut to what the Chinese
card diagrams draw, and the emoji the content uses cut out of Noto Color Emoji (SIL OFL 1.1:
LICENSE-NotoColorEmoji.txt; ``tools/make_emoji_font.py`` regenerates it) for quizzes."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

_FOLDER = Path(__file__).resolve().parent
FOLDER = _FOLDER
EMOJI_FONT_FILE = _FOLDER / "NotoColorEmoji-torchdeck.ttf"
EMOJI_CHARACTERS_FILE = _FOLDER / "NotoColorEmoji-torchdeck.txt"
# Pictographs and dingbats: what needs a colour emoji font in a printed quiz.
EMOJI = re.compile("[\u2600-\u27bf\u2b00-\u2bff\ufe0f\U0001f000-\U0001faff]")
_FILES = {
    ("DejaVu Sans", False): "DejaVuSans.ttf",
    ("DejaVu Sans", True): "DejaVuSans-Bold.ttf",
    ("DejaVu Sans Mono", False): "DejaVuSansMono.ttf",
    ("DejaVu Sans Mono", True): "DejaVuSansMono-Bold.ttf",
}


def diagram_cjk_font(bold: bool = False) -> Path:
    """Noto Sans CJK SC cut to the characters the Chinese card diagrams draw (``tools/make_cjk_font.py``).

    Not a ``bundled_font``: it lacks every other character, so nothing that measures
    arbitrary Chinese text (the slides) may take it for the family."""
    return _FOLDER / f"NotoSansCJKsc-torchdeck-{'Bold' if bold else 'Regular'}.otf"


def bundled_font(family: str, bold: bool = False) -> Optional[Path]:
    """The shipped file of ``family`` at that weight; None for a family the package does not ship."""
    name = _FILES.get((family, bold))
    return _FOLDER / name if name else None


@lru_cache(maxsize=None)
def shipped_emoji() -> frozenset[str]:
    """The characters the shipped emoji font has (the tool that cuts it writes them beside it)."""
    return frozenset(EMOJI_CHARACTERS_FILE.read_text(encoding="utf-8").strip())


def unprintable_emoji(texts) -> list[str]:
    """Emoji in ``texts`` that the shipped emoji font lacks (joiners and variation selectors need none)."""
    have = shipped_emoji() | {"\ufe0f", "\u200d"}
    return sorted({c for text in texts for c in EMOJI.findall(text)} - have)


def content_emoji(content_dir) -> set[str]:
    """Every emoji character in the content's YAML files."""
    return {c for path in Path(content_dir).glob("*.yaml") for c in EMOJI.findall(path.read_text(encoding="utf-8"))}
