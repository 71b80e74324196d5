"""A deck as PDF, converted by LibreOffice (``soffice --headless --convert-to pdf``): to hand out or to
show where no presentation program is.

LibreOffice runs with a private profile in a temporary folder (a user's running LibreOffice, or another
conversion at the same time, never gets in the way) and a time limit; a failed conversion is raised with
what LibreOffice said. The profile's locale is Japanese (``private_profile``): that alone switches off
LibreOffice's spacing between Asian and Latin text, which would put a fifth of an em on each side of a
full-width mark between Latin words (``B、C`` drawn as ``B 、 C``) and double every space the Chinese text
already has around a Latin word. Impress sets that paragraph switch (``ParaIsCharacterDistance``) on by
default unless its locale is Japanese or Korean, and no DrawingML attribute reaches it; PowerPoint adds no
such space. The slides name every run's language and fonts, so the locale changes nothing else drawn. The PDF it writes is dated now and carries a random id and checksum: those are
overwritten in place (same length, so every offset stays valid) with the deck's date and a hash of the
deck, so the same deck gives the same PDF bytes.
"""
from __future__ import annotations

import datetime
import hashlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from ...atomic import atomic_write_bytes
from ...errors import BuildError

TIMEOUT = 300  # seconds one deck's conversion may take (the whole course is hundreds of slides)
_CREATED = re.compile(rb"/CreationDate\(D:\d{14}")
_ID = re.compile(rb"(/ID \[ <)[0-9A-F]{32}(>\s*<)[0-9A-F]{32}(> \])")
_CHECKSUM = re.compile(rb"/DocChecksum /[0-9A-F]{32}")


def soffice() -> Optional[str]:
    """LibreOffice's command, or None where it is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


# Impress's paragraphs space Asian from Latin text unless the locale is Japanese or Korean (SdDrawDocument)
_PROFILE_SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry">
<item oor:path="/org.openoffice.Setup/L10N"><prop oor:name="ooSetupSystemLocale" oor:op="fuse"><value>ja-JP</value></prop></item>
</oor:items>
"""


def private_profile(folder: Path) -> str:
    """The ``-env:UserInstallation`` argument of a LibreOffice profile made in ``folder`` (a folder of its
    own per LibreOffice running at one time), set up to draw slides as the module docstring says."""
    settings = folder / "user" / "registrymodifications.xcu"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(_PROFILE_SETTINGS, encoding="utf-8")
    return f"-env:UserInstallation={folder.as_uri()}"


def write_pdf(deck: Path, date: datetime.datetime, timeout: float = TIMEOUT) -> Path:
    """Convert ``deck`` (a .pptx) to the PDF beside it (same name, ``.pdf``), written atomically."""
    command = soffice()
    if command is None:
        raise BuildError("a PDF of the slides needs LibreOffice (soffice); install it "
                         "(Debian: apt-get install libreoffice-impress)")
    with tempfile.TemporaryDirectory(prefix="torchdeck-soffice-") as work:
        folder = Path(work)
        run = [command, private_profile(folder / "profile"), "--headless",
               "--convert-to", "pdf", "--outdir", str(folder / "out"), str(deck)]
        try:
            done = subprocess.run(run, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as err:
            raise BuildError(f"LibreOffice did not convert {deck} to PDF within {timeout:g} s: "
                             f"{_said(err.stdout, err.stderr)}") from None
        made = folder / "out" / f"{deck.stem}.pdf"
        if done.returncode != 0 or not made.is_file():
            raise BuildError(f"LibreOffice could not convert {deck} to PDF (exit {done.returncode}): "
                             f"{_said(done.stdout, done.stderr)}")
        pdf = reproducible(made.read_bytes(), deck.read_bytes(), date)
    target = deck.with_suffix(".pdf")
    atomic_write_bytes(target, pdf)
    return target


def reproducible(pdf: bytes, deck: bytes, date: datetime.datetime) -> bytes:
    """``pdf`` with its creation date set to ``date`` and its id and checksum to a hash of ``deck``."""
    digest = hashlib.md5(deck).hexdigest().upper().encode()  # an id, not a secret: 32 hex digits as the PDF's
    pdf = _CREATED.sub(b"/CreationDate(D:" + date.strftime("%Y%m%d%H%M%S").encode(), pdf)
    pdf = _ID.sub(lambda found: found[1] + digest + found[2] + digest + found[3], pdf)
    return _CHECKSUM.sub(b"/DocChecksum /" + digest, pdf)


def _said(stdout, stderr) -> str:
    text = "\n".join(part.strip() for part in (_text(stdout), _text(stderr)) if part and part.strip())
    return text or "it printed nothing"


def _text(value) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else (value or "")
