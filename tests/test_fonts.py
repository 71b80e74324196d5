"""Outputs do not depend on the machine's fonts: DejaVu and the content's emoji ship inside the package.

Built twice, as installed and with the system's fonts hidden (a private mount namespace puts an
empty folder over /usr/share/fonts, and fontconfig is pointed at an empty configuration): the
deck (Chinese too: its diagram labels use the shipped CJK subset), the English slides and the
English quiz (emoji included) come out byte-identical. Chinese slides, which need Noto Sans CJK,
say so.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_FONTS = "/usr/share/fonts"
BUILDS = [("deck", (), "en"), ("deck", (), "zh"), ("slides", (), "en"),  # the Chinese deck's diagrams: shipped CJK
          ("quiz", ("--versions", "1"), "en")]  # xnnpack has a question with 🧩


def _can_hide_fonts() -> bool:
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True)
    return done.returncode == 0 and os.path.isdir(SYSTEM_FONTS)


def build(command: str, extra, out: Path, lang: str, hide: Path | None = None,
          content: Path = ROOT / "content") -> subprocess.CompletedProcess:
    """``command`` on a copy of ``content`` in ``out`` (a build advances the copy's deck.lock);
    with ``hide``, where no system font can be found."""
    if not (out / "content").exists():
        shutil.copytree(content, out / "content")
    argv = [sys.executable, "-m", "generator", command, "--content", str(out / "content"), "--module", "xnnpack",
            "--lang", lang, "--out", str(out), "--quiet", "--strict", *extra]
    env = dict(os.environ)
    if hide is not None:
        empty = hide / "empty"
        empty.mkdir(parents=True, exist_ok=True)
        config = hide / "fonts.conf"
        config.write_text(f'<?xml version="1.0"?><fontconfig><dir>{empty}</dir>'
                          f'<cachedir>{hide / "cache"}</cachedir></fontconfig>')
        env["FONTCONFIG_FILE"] = str(config)
        argv = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                f'mount --bind "{empty}" {SYSTEM_FONTS} && exec "$@"', "sh", *argv]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


pytestmark = pytest.mark.skipif(not _can_hide_fonts(), reason="needs unshare and mount (root) to hide the fonts")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    with_fonts, without = tmp_path_factory.mktemp("fonts"), tmp_path_factory.mktemp("nofonts")
    for command, extra, lang in BUILDS:
        done = build(command, extra, with_fonts, lang)
        assert done.returncode == 0, done.stderr
    # the same content and deck.lock as the first build left them: any difference is the fonts'
    for command, extra, lang in BUILDS:
        done = build(command, extra, without, lang, without / "hide", content=with_fonts / "content")
        assert done.returncode == 0, done.stderr
    return with_fonts, without


def test_the_system_fonts_were_really_hidden(tmp_path):
    """Inside the namespace neither fontconfig nor Typst finds a single system font."""
    empty = tmp_path / "empty"
    empty.mkdir()
    count = ('import typst; print(len(typst.Fonts(include_embedded_fonts=False).families()))')
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            f'mount --bind "{empty}" {SYSTEM_FONTS} && fc-list | wc -l && "$0" -c "$1"',
                            sys.executable, count], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "FONTCONFIG_FILE": "/dev/null"})
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["0", "0"]


@pytest.mark.parametrize("name", ["torch-backends.xnnpack.en.apkg", "torch-backends.xnnpack.zh.apkg",
                                  "torch-backends.xnnpack.en.pptx",
                                  "quiz-s0.en.A.pdf", "quiz-s0.en.A.answers.pdf", "quiz-s0.en.key.pdf",
                                  "quiz-s0.en.marking.pdf"])
def test_outputs_are_the_same_without_system_fonts(both, name):
    with_fonts, without = both
    assert (with_fonts / name).read_bytes() == (without / name).read_bytes()


def test_chinese_slides_without_cjk_fonts_are_a_clear_error(tmp_path):
    done = build("slides", (), tmp_path / "out", "zh", tmp_path / "hide")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "'Noto Sans CJK SC' is not installed (install fonts-noto-cjk)" in done.stderr
    assert not list((tmp_path / "out").glob("*.pptx"))
