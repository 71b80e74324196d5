"""Regenerate generator/fonts/NotoColorEmoji-torchdeck.ttf: Noto Color Emoji (SIL OFL 1.1) cut down
to the emoji the content uses, so that quizzes print them on machines without emoji fonts.

Run after content gains an emoji (a test says when): needs fontTools (`pip install fonttools`)
and the system's Noto Color Emoji (Debian: fonts-noto-color-emoji).

    python tools/make_emoji_font.py [--source /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator.fonts import EMOJI_CHARACTERS_FILE, EMOJI_FONT_FILE, content_emoji  # noqa: E402

SOURCE = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument("--content", type=Path, default=ROOT / "content")
    args = parser.parse_args()
    from fontTools import subset

    wanted = sorted(content_emoji(args.content) | {"\ufe0f", "\u200d"})
    options = subset.Options()
    options.drop_tables += ["DSIG"]
    options.name_IDs = ["*"]  # keep the family name: Typst finds the font as "Noto Color Emoji"
    options.notdef_outline = True
    font = subset.load_font(str(args.source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in wanted])
    subsetter.subset(font)
    font.save(str(EMOJI_FONT_FILE))
    kept = "".join(sorted(chr(code) for code in font.getBestCmap()))
    EMOJI_CHARACTERS_FILE.write_text(kept + "\n", encoding="utf-8")
    print(f"wrote {EMOJI_FONT_FILE} ({EMOJI_FONT_FILE.stat().st_size // 1024} KiB, {len(wanted)} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
