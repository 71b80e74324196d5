"""Outputs do not depend on the machine's fonts: DejaVu ships inside the package.

Built twice, with the system's fonts and with fontconfig pointed at an empty folder: the deck and
the English slides come out byte-identical; Chinese slides, which need Noto Sans CJK, say so.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build(command: str, out: Path, lang: str, no_fonts: Path | None = None,
          content: Path = ROOT / "content") -> subprocess.CompletedProcess:
    """``command`` on a copy of ``content`` in ``out`` (a build advances the copy's deck.lock)."""
    if not (out / "content").exists():
        shutil.copytree(content, out / "content")
    content = out / "content"
    env = dict(os.environ)
    if no_fonts is not None:
        (no_fonts / "empty").mkdir(parents=True, exist_ok=True)
        config = no_fonts / "fonts.conf"
        config.write_text(f'<?xml version="1.0"?><fontconfig><dir>{no_fonts / "empty"}</dir>'
                          f'<cachedir>{no_fonts / "cache"}</cachedir></fontconfig>')
        env["FONTCONFIG_FILE"] = str(config)
    return subprocess.run([sys.executable, "-m", "generator", command, "--content", str(content),
                           "--module", "xnnpack", "--lang", lang,
                           "--out", str(out), "--quiet", "--strict"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    with_fonts, without = tmp_path_factory.mktemp("fonts"), tmp_path_factory.mktemp("nofonts")
    for command in ("deck", "slides"):
        done = build(command, with_fonts, "en")
        assert done.returncode == 0, done.stderr
    # the same content and deck.lock as the first build left them: any difference is the fonts'
    for command in ("deck", "slides"):
        done = build(command, without, "en", without / "config", content=with_fonts / "content")
        assert done.returncode == 0, done.stderr
    return with_fonts, without


@pytest.mark.parametrize("name", ["torch-backends.xnnpack.en.apkg", "torch-backends.xnnpack.en.pptx"])
def test_outputs_are_the_same_without_system_fonts(both, name):
    with_fonts, without = both
    assert (with_fonts / name).read_bytes() == (without / name).read_bytes()


def test_chinese_slides_without_cjk_fonts_are_a_clear_error(tmp_path):
    done = build("slides", tmp_path / "out", "zh", tmp_path / "config")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "'Noto Sans CJK SC' is not installed (install fonts-noto-cjk)" in done.stderr
    assert not list((tmp_path / "out").glob("*.pptx"))
