"""Where the templates and the course live: inside the package once installed (a wheel carries them
in ``generator/_data``), beside the package in a checkout."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _packaged() -> Path:
    """``generator/_data`` of the installed package (it exists only in a wheel's install)."""
    try:
        return Path(str(resources.files(__package__) / "_data"))
    except (NotADirectoryError, TypeError):  # imported as a namespace package (a stale editable install)
        return Path(__file__).resolve().parent / "_data"


def _data(name: str) -> Path:
    packaged = _packaged() / name
    return packaged if packaged.is_dir() else _CHECKOUT / name


def templates() -> Path:
    return _data("templates")


def content() -> Path:
    """The course torchdeck ships: the default for ``--content``."""
    return _data("content")


def is_packaged(folder: Path) -> bool:
    """Whether ``folder`` is part of an installed torchdeck (never written to: outputs and the deck's
    lock go to ``--out`` instead)."""
    packaged = _packaged()
    return packaged.is_dir() and Path(folder).resolve().is_relative_to(packaged.resolve())
