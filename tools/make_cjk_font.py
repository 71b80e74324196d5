"""Regenerate generator/fonts/NotoSansCJKsc-torchdeck-{Regular,Bold}.otf: Noto Sans CJK SC (SIL OFL 1.1)
cut down to the characters the Chinese diagrams draw (the ``WORDS`` of each ``generator/diagrams/scenes``
module), so that a diagram's pixels never depend on the machine's fonts.

Run after a Chinese diagram label changes (a test says when): needs fontTools (`pip install
fonttools`; Debian: python3-fonttools) and the system's Noto Sans CJK (Debian: fonts-noto-cjk).

    python tools/make_cjk_font.py [--folder /usr/share/fonts/opentype/noto]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FONTS = ROOT / "generator" / "fonts"
SOURCE = Path("/usr/share/fonts/opentype/noto")


def wanted_characters() -> str:
    """What the Chinese labels of every scene draw. ``generator.diagrams.scenes`` imports nothing beyond the
    standard library, so the generator's own dependencies need not be installed where this runs."""
    sys.path.insert(0, str(ROOT))
    from generator.diagrams.scenes import SCENES, cjk_characters

    return cjk_characters(scene.WORDS for scene in SCENES.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=SOURCE)
    args = parser.parse_args()
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    wanted = wanted_characters()
    for weight in ("Regular", "Bold"):
        collection = TTCollection(str(args.folder / f"NotoSansCJK-{weight}.ttc"))
        number = next(i for i, font in enumerate(collection.fonts)
                      if font["name"].getDebugName(1).endswith(" SC"))
        options = subset.Options()
        options.font_number = number
        options.drop_tables += ["DSIG"]
        options.name_IDs = ["*"]
        options.notdef_outline = True
        font = subset.load_font(str(args.folder / f"NotoSansCJK-{weight}.ttc"), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=wanted)
        subsetter.subset(font)
        target = FONTS / f"NotoSansCJKsc-torchdeck-{weight}.otf"
        font.save(str(target))
        print(f"wrote {target} ({target.stat().st_size // 1024} KiB, {len(wanted)} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
