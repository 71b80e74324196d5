"""Fonts shipped inside the package, so that outputs come out the same on every machine, with or
without system fonts: DejaVu (Bitstream Vera licence: LICENSE-DejaVu.txt) for diagrams and slide
measurement, Noto Sans CJK SC (SIL OFL 1.1: LICENSE-NotoSansCJK.txt) cut to what the Chinese
card diagrams draw, and the emoji the content uses cut out of Noto Color Emoji (SIL OFL 1.1:
LICENSE-NotoColorEmoji.txt; ``tools/make_emoji_font.py`` regenerates it) for quizzes.

An emoji the shipped cut lacks (one a user's own content holds: 🦩, 👩‍💻) is drawn from the system's
Noto Color Emoji (Debian: fonts-noto-color-emoji) instead, which Typst then gets beside the cut; only
content with such an emoji looks for it, so the shipped course's outputs never depend on it."""
from __future__ import annotations

import atexit
import os
import re
import shutil
import struct
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

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


SYSTEM_EMOJI_FAMILY = "Noto Color Emoji"
SYSTEM_EMOJI_FILES = (Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"),  # Debian, Ubuntu
                      Path("/usr/share/fonts/google-noto-color-emoji-fonts/NotoColorEmoji.ttf"),  # Fedora
                      Path("/usr/share/fonts/noto/NotoColorEmoji.ttf"))  # Arch


@lru_cache(maxsize=None)
def system_emoji_font() -> Optional[Path]:
    """The system's Noto Color Emoji file (fontconfig's, else a distribution's usual place); None without one."""
    try:
        found = subprocess.run(["fc-match", "--format=%{family}\t%{file}", SYSTEM_EMOJI_FAMILY],
                               capture_output=True, text=True, timeout=30)
        family, _, file = found.stdout.partition("\t")
        if found.returncode == 0 and SYSTEM_EMOJI_FAMILY in family.split(",") and Path(file).is_file():
            return Path(file)
    except (OSError, subprocess.SubprocessError):
        pass
    return next((path for path in SYSTEM_EMOJI_FILES if path.is_file()), None)


@lru_cache(maxsize=None)
def font_characters(path: Path) -> frozenset[int]:
    """The code points a TrueType/OpenType font maps (its ``cmap``: formats 4 and 12); empty where the
    file cannot be read as one."""
    try:
        data = Path(path).read_bytes()
        tables = struct.unpack_from(">H", data, 4)[0]
        offset = next(struct.unpack_from(">I", data, 12 + 16 * i + 8)[0] for i in range(tables)
                      if data[12 + 16 * i: 16 + 16 * i] == b"cmap")
        found: set[int] = set()
        for i in range(struct.unpack_from(">H", data, offset + 2)[0]):
            sub = offset + struct.unpack_from(">I", data, offset + 4 + 8 * i + 4)[0]
            form = struct.unpack_from(">H", data, sub)[0]
            if form == 12:
                for g in range(struct.unpack_from(">I", data, sub + 12)[0]):
                    start, end, _ = struct.unpack_from(">III", data, sub + 16 + 12 * g)
                    found.update(range(start, end + 1))
            elif form == 4:
                segments = struct.unpack_from(">H", data, sub + 6)[0] // 2
                ends = struct.unpack_from(f">{segments}H", data, sub + 14)
                starts = struct.unpack_from(f">{segments}H", data, sub + 16 + 2 * segments)
                for start, end in zip(starts, ends):
                    if start != 0xFFFF:
                        found.update(range(start, end + 1))
        return frozenset(found)
    except (OSError, struct.error, StopIteration):
        return frozenset()


def emoji_nowhere(texts: Iterable[str]) -> list[str]:
    """Emoji of ``texts`` that neither the shipped cut nor the system's emoji font draws."""
    missing = unprintable_emoji(texts)
    if not missing:
        return []
    system = system_emoji_font()
    have = font_characters(system) if system else frozenset()
    return [c for c in missing if ord(c) not in have]


def emoji_font_folders(texts: Iterable[str]) -> tuple[str, ...]:
    """The font folders Typst needs beside ``FOLDER`` to draw every emoji of ``texts``: none where the
    shipped cut has them all, else a folder holding just the system's Noto Color Emoji. An emoji that
    font lacks as well is an ``EmojiError``, never an empty box."""
    texts = list(texts)
    if not unprintable_emoji(texts):
        return ()
    nowhere = emoji_nowhere(texts)
    if nowhere:
        raise EmojiError(nowhere)
    return (str(_folder_of(system_emoji_font())),)


class EmojiError(Exception):
    def __init__(self, missing: list[str]):
        self.missing = missing
        names = " ".join(f"{c} (U+{ord(c):04X})" for c in missing)
        where = system_emoji_font()
        super().__init__(f"the emoji {names} are in no font here: neither the cut torchdeck ships nor "
                         + (f"the system's {where}" if where else
                            f"a system {SYSTEM_EMOJI_FAMILY} (install fonts-noto-color-emoji)"))


@lru_cache(maxsize=None)
def _folder_of(font: Path) -> Path:
    """A folder holding only ``font`` (a link to it): Typst reads folders, and the font's own may hold
    hundreds of others."""
    folder = Path(tempfile.mkdtemp(prefix="torchdeck-fonts-"))
    atexit.register(shutil.rmtree, folder, True)
    os.symlink(font, folder / font.name)
    return folder


def located_emoji_nowhere(files: Iterable[Path]) -> list[tuple[str, int, str]]:
    """``(file, line, emoji)`` for each emoji of ``files`` that no font here draws (unreadable files are
    skipped: the loader reports them)."""
    from ..atomic import read_regular

    found = []
    for path in files:
        try:
            text = read_regular(path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not EMOJI.search(text) or not unprintable_emoji([text]):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for emoji in emoji_nowhere([line]):
                found.append((str(path), number, emoji))
    return found


def content_emoji(content_dir) -> set[str]:
    """Every emoji character in the content's YAML files."""
    return {c for path in Path(content_dir).glob("*.yaml") for c in EMOJI.findall(path.read_text(encoding="utf-8"))}
