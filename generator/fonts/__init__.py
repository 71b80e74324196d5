"""Fonts shipped inside the package (DejaVu, Bitstream Vera licence: LICENSE-DejaVu.txt), so that
diagrams and slide measurements come out the same on every machine, with or without system fonts."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

_FOLDER = Path(__file__).resolve().parent
_FILES = {
    ("DejaVu Sans", False): "DejaVuSans.ttf",
    ("DejaVu Sans", True): "DejaVuSans-Bold.ttf",
    ("DejaVu Sans Mono", False): "DejaVuSansMono.ttf",
    ("DejaVu Sans Mono", True): "DejaVuSansMono-Bold.ttf",
}


def bundled_font(family: str, bold: bool = False) -> Optional[Path]:
    """The shipped file of ``family`` at that weight; None for a family the package does not ship."""
    name = _FILES.get((family, bold))
    return _FOLDER / name if name else None
