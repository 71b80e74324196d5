"""Lay out card sides as Anki shows them, in Chromium, and report what does not fit.

Every side comes from a collection Anki's own library imported: the note type's
front or back template applied to the note's fields, with the note type's CSS
(``Card.render_output``). The sides are laid out in one page per call, each in
a frame as wide as the screen, inside ``<div class="card cardN">`` as Anki's
reviewer wraps them (plus ``nightMode night_mode`` in night mode), and a script
in the page measures them after every image has loaded. One Chromium run
measures thousands of sides.

Measured per side:

* ``past_edge``: text or an element (an image, a code span) whose right edge
  lies past the frame's right edge, outside any scrolling box;
* ``sideways``: a box the learner must scroll sideways (its content is wider
  than it and it scrolls: a code block with ``overflow-x: auto``);
* ``images``: each image's name, shown width and natural width in pixels;
* ``footer`` and ``answer``: ``[characters, height]`` of what the learner sees of the
  "verified" footer (a closed ``<details>`` shows only its summary) and of the answer
  (``.reply``, ``ol.answered``, ``.cloze``); null where a side has none;
* ``low_contrast`` (phone frames only: colours do not depend on the width): text whose
  colour against the background behind it has a contrast ratio under 4.5 (WCAG AA), as
  ``"element: ratio"``;
* ``light_boxes`` (the phone's night frame): in night mode, elements painting a light background (relative
  luminance over 0.4), which would glare;
* ``mid_word`` (light frames: the night ones lay out the same): each line break that falls between two letters
  or digits (``torc`` / ``h``, ``deterministi`` / ``c``), as the text around it with ``|`` where the line
  breaks; a break after ``.`` ``_`` ``(`` ``,`` or a space is not one, nor is the end of a block or a ``<br>``;
* ``raw_urls``: shown text that reads as a web address (``https://…``, ``docs.pytorch.org/…``);
* ``code_px``: the font size of each code block (``pre.highlight``), in CSS pixels.
"""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
PHONE, DESKTOP = 390, 1024  # CSS pixels: an iPhone 12-15's width, a desktop reviewer's


@dataclass(frozen=True)
class Side:
    """One card side as Anki renders it: ``key`` names it (``<card id>/<ordinal>/<front|back>``)."""

    key: str
    ordinal: int
    body: str
    css: str


@dataclass(frozen=True)
class Frame:
    """How a side is shown: the screen width, whether night mode is on, and whether the learner tapped the
    folded footer open (every ``<details>`` open)."""

    width: int
    night: bool
    opened: bool = False

    @property
    def name(self) -> str:
        return f"{self.width}-{'night' if self.night else 'light'}" + ("-open" if self.opened else "")


FRAMES = tuple(Frame(width, night) for width in (PHONE, DESKTOP) for night in (False, True))
OPENED = Frame(PHONE, False, opened=True)  # the phone with the footer tapped open: its sources and claims


def anki_sides(col, card_id_of_guid: dict[str, str]) -> list[Side]:
    """Front and back of every card in ``col``, rendered by Anki's library."""
    sides = []
    for cid in sorted(col.find_cards("")):
        card = col.get_card(cid)
        output = card.render_output()
        name = f"{card_id_of_guid[card.note().guid]}/{card.ord}"
        sides.append(Side(f"{name}/front", card.ord, output.question_text, output.css))
        sides.append(Side(f"{name}/back", card.ord, output.answer_text, output.css))
    return sides


def measure(sides: list[Side], frames: tuple[Frame, ...], media_dir: Path) -> dict[str, dict[str, dict]]:
    """``{frame name: {side key: {"past_edge": [...], "sideways": [...], "images": [...]}}}``."""
    css = {side.css for side in sides}
    if len(css) != 1:
        raise ValueError("the sides use more than one stylesheet; lay them out in separate calls")
    with tempfile.TemporaryDirectory(prefix="card-layout-") as folder:
        page = Path(folder) / "page.html"
        page.write_text(_page(sides, frames, css.pop(), media_dir), encoding="utf-8")
        dom = _dump_dom(page)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    if not found:
        raise RuntimeError(f"the page's script left no measurements: {dom[-2000:]}")
    return json.loads(html.unescape(found[1]))


def _page(sides: list[Side], frames: tuple[Frame, ...], css: str, media_dir: Path) -> str:
    blocks = []
    for frame in frames:
        night = " nightMode night_mode" if frame.night else ""
        for side in sides:
            body = side.body.replace("<details>", "<details open>") if frame.opened else side.body
            blocks.append(f'<div class="frame" data-frame="{frame.name}" data-key="{html.escape(side.key)}" '
                          f'style="width:{frame.width}px"><div class="card card{side.ordinal + 1}{night}">'
                          f'{body}</div></div>')
    return (f'<!doctype html><html><head><meta charset="utf-8"><base href="{media_dir.as_uri()}/">'
            f'<style>body{{margin:0}} .frame{{margin:0 0 8px 0}}</style><style>{css}</style></head>'
            f'<body>{"".join(blocks)}<script>{_SCRIPT}</script></body></html>')


def screenshot(sides: list[Side], frame: Frame, media_dir: Path, png: Path, height: int = 2400) -> Path:
    """The sides one under another in ``frame`` (``frame.width`` px wide, as the measurements lay them out),
    drawn by Chromium to ``png``: to look at what the numbers say."""
    with tempfile.TemporaryDirectory(prefix="card-shot-") as folder:
        page = Path(folder) / "page.html"
        css = sides[0].css
        page.write_text(_page(sides, (frame,), css, media_dir).replace(f"<script>{_SCRIPT}</script>", ""),
                        encoding="utf-8")
        command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                   f"--window-size={frame.width},{height}", f"--screenshot={png}", page.as_uri()]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return png


def _dump_dom(page: Path) -> str:
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--window-size=1200,900", "--run-all-compositor-stages-before-draw",
               "--dump-dom", page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


# Runs once every image has loaded; replaces the page with its findings so the dump stays small.
_SCRIPT = r"""
const PHONE = %d;
const WORD = /[A-Za-z0-9]/;
const URL = /https?:\/\/|\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(org|com|io|net|dev|ai)\//i;
const textNodes = root => {
  const nodes = [], walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
  return nodes;
};
// Line breaks between two letters or digits: consecutive characters of one block (their nearest
// ancestor that is not inline: an inline-block badge is a block of its own; no <br> or image between
// them) where the second starts below the first. Two such characters inside one text node lie in one run
// of letters and digits, and a run on one line (one client rect) holds no break: only the characters of
// runs that span lines are measured one by one, besides each node's first and last (the pairs across nodes).
const RUN = /[A-Za-z0-9]{2,}/g;
const midWordBreaks = (frame, shown) => {
  const breaks = [], range = document.createRange(), blocks = new Map();
  const blockOf = el => {
    if (!blocks.has(el)) {
      const display = getComputedStyle(el).display;
      blocks.set(el, el === frame || (display !== 'inline' && display !== 'contents') ? el : blockOf(el.parentElement));
    }
    return blocks.get(el);
  };
  const charRect = (node, i) => { range.setStart(node, i); range.setEnd(node, i + 1); return range.getClientRects()[0] || null; };
  const wrappedRuns = (node, text) => {  // 0, each character of a run on several lines, the last: in order
    const indices = [0];
    for (const run of text.matchAll(RUN)) {
      range.setStart(node, run.index);
      range.setEnd(node, run.index + run[0].length);
      if (range.getClientRects().length > 1) for (let i = run.index; i < run.index + run[0].length; i++) indices.push(i);
    }
    indices.push(text.length - 1);
    return new Set(indices);
  };
  let prev = null, context = '';  // prev: {ch, rect, block}
  const walker = document.createTreeWalker(frame, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType === 1) { if (node.tagName === 'BR' || node.tagName === 'IMG') prev = null; continue; }
    if (!shown.has(node.parentElement) || !node.textContent.length) continue;
    const block = blockOf(node.parentElement), text = node.textContent;
    if (prev && prev.block !== block) { prev = null; context = ''; }
    if (!WORD.test(text)) {
      // no letter or digit: no break inside it or on either side of it, and nothing to measure (asking a
      // blank node collapsed between blocks for its rects costs Chromium a millisecond each, 9 s a deck)
      prev = {ch: text[text.length - 1], rect: null, block};
      context = (context + text).slice(-24);
      continue;
    }
    range.selectNodeContents(node);
    const lines = range.getClientRects().length;
    // a text node on one line can break only before its first character: look at the ends alone
    const indices = lines > 1 ? wrappedRuns(node, text) : new Set([0, text.length - 1]);
    let last = -1;
    for (const i of indices) {
      const ch = text[i];
      const rect = charRect(node, i);
      // on several lines, a character measured after a skipped one follows no letter or digit, or one on its line
      const follows = lines <= 1 || i === last + 1;
      if (follows && prev && rect && prev.rect && WORD.test(prev.ch) && WORD.test(ch) && rect.top >= prev.rect.bottom - 1) {
        breaks.push((context + text.slice(0, i)).slice(-24) + '|' + text.slice(i, i + 8));
      }
      prev = {ch, rect, block};
      last = i;
    }
    context = (context + text).slice(-24);
  }
  return breaks;
};
window.addEventListener('load', () => {
  const results = {};
  const rgba = text => text.match(/[\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const paint = new Map();
  const painted = el => {
    if (!paint.has(el)) {
      const c = rgba(getComputedStyle(el).backgroundColor);
      paint.set(el, c.length < 4 || c[3] > 0 ? c : null);
    }
    return paint.get(el);
  };
  const behind = el => {
    for (let e = el; e; e = e.parentElement) { const c = painted(e); if (c) return c; }
    return [255, 255, 255];
  };
  const scrolls = el => { const o = getComputedStyle(el).overflowX; return o === 'auto' || o === 'scroll'; };
  const describe = el => el.tagName.toLowerCase()
    + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '');
  for (const frame of document.querySelectorAll('.frame')) {
    const right = frame.getBoundingClientRect().right + 0.5;
    const found = {past_edge: [], sideways: [], images: []};
    // what a closed <details> folds away is not shown; asking its geometry makes Chromium lay it out anew each time
    const elements = [...frame.querySelectorAll('*')].filter(el => !el.closest('details:not([open]) > :not(summary)'));
    const shown = new Set(elements);
    const scrolling = [];
    for (const el of elements) {
      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && scrolls(el)) {
        scrolling.push(el);
        found.sideways.push(describe(el) + ': ' + el.textContent.slice(0, 60));
      }
    }
    const clipped = node => scrolling.some(box => box.contains(node));
    for (const el of elements) {
      if (el.tagName === 'IMG') {
        const box = el.getBoundingClientRect();
        found.images.push([el.getAttribute('src'), box.width, el.naturalWidth]);
        if (box.right > right) found.past_edge.push('img: ' + el.getAttribute('src'));
      }
    }
    found.low_contrast = [];
    found.light_boxes = [];
    const checked = new Set();
    const colours = frame.dataset.frame.startsWith(PHONE + '-');  // colours do not depend on the width (the open footer's are checked too)
    if (colours && frame.dataset.frame.endsWith('night')) {
      for (const el of elements) {
        const c = painted(el);
        if (c && luminance(c) > 0.4 && el.getClientRects().length) found.light_boxes.push(describe(el));
      }
    }
    const walker = document.createTreeWalker(frame, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!node.textContent.trim() || !shown.has(parent)) continue;
      if (colours && !checked.has(parent)) {
        checked.add(parent);
        const [a, b] = [luminance(rgba(getComputedStyle(parent).color)), luminance(behind(parent))];
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (ratio < 4.5) found.low_contrast.push(describe(parent) + ': ' + ratio.toFixed(2));
      }
      range.selectNodeContents(node);
      if (range.getBoundingClientRect().right > right && !clipped(node)) {
        found.past_edge.push(describe(node.parentElement) + ': ' + node.textContent.trim().slice(0, 60));
      }
    }
    found.mid_word = frame.dataset.frame.includes('light') ? midWordBreaks(frame, shown) : [];
    found.code_px = [...frame.querySelectorAll('pre.highlight')].map(el => parseFloat(getComputedStyle(el).fontSize));
    found.raw_urls = [];
    for (const node of textNodes(frame)) {
      if (shown.has(node.parentElement) && URL.test(node.textContent)) found.raw_urls.push(node.textContent.trim().slice(0, 60));
    }
    const seen = selector => {
      const boxes = [...frame.querySelectorAll(selector)];
      if (!boxes.length) return null;
      return [boxes.reduce((n, box) => n + box.innerText.trim().length, 0),
              boxes.reduce((n, box) => n + box.getBoundingClientRect().height, 0)];
    };
    found.footer = seen('.verified');
    // a scope badge ("since torch 2.15") stands above its question: nothing after it on its line
    found.beside_scope = [...frame.querySelectorAll('.scope')].filter(chip => {
      const after = document.createRange();
      after.setStartAfter(chip);
      after.setEndAfter(chip.parentElement.lastChild);
      const first = [...after.getClientRects()].find(r => r.width > 0 && r.height > 0);
      return first !== undefined && first.top < chip.getBoundingClientRect().bottom - 1;
    }).map(chip => chip.innerText);
    found.answer = seen('.reply, ol.answered, .cloze');
    const name = frame.dataset.frame;
    (results[name] = results[name] || {})[frame.dataset.key] = found;
  }
  const out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = JSON.stringify(results);
  document.body.replaceChildren(out);
});
""" % PHONE
