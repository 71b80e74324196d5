"""Outputs do not depend on the machine's fonts: DejaVu and the content's emoji ship inside the package.

Built twice, as installed and with the system's fonts hidden (a private mount namespace puts an
empty folder over /usr/share/fonts, and fontconfig is pointed at an empty configuration): the
deck (Chinese too: its diagram labels use the shipped CJK subset), the English slides and the
English quiz (emoji included) come out byte-identical. Chinese slides, which need Noto Sans CJK,
say so.
"""
from __future__ import annotations

import json
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


# Several torchdeck commands in one process, in turn, as ``python -m generator`` would run each: each
# process imports torchdeck and starts a fact-check worker, which costs more than the builds here.
IN_TURN = ("import json, sys\n"
           "from generator.cli import main\n"
           "for argv in json.loads(sys.argv[1]):\n"
           "    code = main.main(argv, prog_name='torchdeck', standalone_mode=False)\n"
           "    if isinstance(code, int) and code:\n"
           "        sys.exit(code)\n")


def build(command: str, extra, out: Path, lang: str, hide: Path | None = None,
          content: Path = ROOT / "content") -> subprocess.CompletedProcess:
    """``command`` on a copy of ``content`` in ``out`` (a build advances the copy's deck.lock);
    with ``hide``, where no system font can be found."""
    return _run([sys.executable, "-m", "generator", *_arguments(command, extra, out, lang, content)], hide)


def build_in_turn(builds, out: Path, hide: Path | None = None, content: Path = ROOT / "content"):
    """``build`` of each ``(command, extra, lang)`` of ``builds``, in turn, in one process."""
    commands = [_arguments(command, extra, out, lang, content) for command, extra, lang in builds]
    return _run([sys.executable, "-c", IN_TURN, json.dumps(commands)], hide)


def _arguments(command: str, extra, out: Path, lang: str, content: Path) -> list[str]:
    if not (out / "content").exists():
        shutil.copytree(content, out / "content")
    return [command, "--content", str(out / "content"), "--module", "xnnpack", "--lang", lang, "--out", str(out),
            "--quiet", "--strict", *extra]


def _run(argv: list[str], hide: Path | None) -> subprocess.CompletedProcess:
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
    done = build_in_turn(BUILDS, with_fonts)
    assert done.returncode == 0, done.stderr
    # the same content and deck.lock as the first build left them: any difference is the fonts'; and the
    # same verification (its cache): facts do not depend on fonts
    shutil.copytree(with_fonts / ".cache", without / ".cache")
    done = build_in_turn(BUILDS, without, without / "hide", content=with_fonts / "content")
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
