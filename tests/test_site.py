"""The web course (``torchdeck site``), opened from the disk in headless Chromium (Playwright drives the
system's ``chromium``; no browser is downloaded): clicking an option shows its why, a game gives its verdict,
progress survives a reload, nothing runs off a 390 px screen in light or dark, and axe-core (kept in
``tests/vendor``) finds no serious or critical violation. The pages are built from the shipped course (the
ledger's recorded run, no torch; or the site ``TORCHDECK_SITE`` names) and, through the command line, from
the fixture course."""
from __future__ import annotations

import filecmp
import os
import re
import shutil
from pathlib import Path

import pytest

from generator.markup import segments
from generator.model import Question
from generator.render import site
from generator.render.order import shown
from helpers import ROOT, as_on_card, collapse_spaces, torchdeck

playwright = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
AXE = ROOT / "tests" / "vendor" / "axe.min.js"
FIXTURE = ROOT / "tests" / "fixtures" / "course"
PHONE, DESKTOP = 390, 1280

# Every element whose box reaches past the right edge of the window (or starts left of it), outside the
# boxes that are meant to be off screen (the skip link until focused, a phone table's hidden header row).
PAST_EDGE = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const element of document.body.querySelectorAll("*")) {
    if (element.closest(".skip, thead")) continue;
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.right > width + 0.5 || box.left < -0.5) {
      out.push(`${element.tagName.toLowerCase()}.${element.className}: ${Math.round(box.left)}..${Math.round(box.right)}`
               + ` ${(element.textContent || "").trim().slice(0, 60)}`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, width, out};
}"""

# Everything a learner can open shown at once: every why, verdict and folded footer.
OPEN_ALL = """() => {
  document.querySelectorAll("[hidden]").forEach(element => { element.hidden = false; });
  document.querySelectorAll("details").forEach(element => { element.open = true; });
}"""


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def shipped_site(course, verification, tmp_path_factory) -> Path:
    """The shipped course's site in both languages: ``<folder>/site``; or, where ``TORCHDECK_SITE`` names one,
    that site (CI points it at the one an installed wheel built from an empty folder)."""
    from generator.render.base import RenderJob

    if os.environ.get("TORCHDECK_SITE"):
        return Path(os.environ["TORCHDECK_SITE"])
    out = tmp_path_factory.mktemp("shipped")
    for lang in ("en", "zh"):
        site.render(RenderJob(course, verification, lang, out), site.SiteOptions())
    return out / "site"


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory) -> Path:
    """The fixture course's site, built by ``torchdeck site`` into an empty folder."""
    out = tmp_path_factory.mktemp("fixture") / "build"
    result = torchdeck("site", "--content", FIXTURE, "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    return out / "site"


def open_page(browser, path: Path, *, width: int = PHONE, scheme: str = "light"):
    """A fresh page (its own storage) showing ``path`` from the disk."""
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.goto(path.as_uri())
    return page


def first_question(course, module_name: str, *, many: bool) -> Question:
    module = next(m for m in course.modules if m.name == module_name)
    return next(q for q in module.questions if (q.kind in ("multi", "scenario")) == many
                and (not many or sum(o.correct for o in q.options) < len(q.options)))


def plain(text: str) -> str:
    return collapse_spaces("".join(segment.text for segment in segments(text)))


# ------------------------------------------------------------------ the command and its files
def test_site_command_builds_both_languages_the_same_every_time(fixture_site, tmp_path):
    again = tmp_path / "again"
    assert torchdeck("site", "--content", FIXTURE, "--out", again, "--quiet").exit_code == 0
    comparison = filecmp.dircmp(fixture_site, again / "site")
    files = sorted(str(p.relative_to(fixture_site)) for p in fixture_site.rglob("*") if p.is_file())
    assert {"index.html", "en/index.html", "zh/index.html", "en/cudnn.html", "zh/backends.html",
            "card.css", "site.css", "site.js"} <= set(files)
    _, mismatch, errors = filecmp.cmpfiles(fixture_site, again / "site", files, shallow=False)
    assert not mismatch and not errors and not comparison.left_only and not comparison.right_only


def test_pages_need_no_server_and_no_network(fixture_site):
    """Every stylesheet, script, image and page link is a relative path to a file of the site; only the
    sources (``<a>`` to the docs) leave it."""
    for page in fixture_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for tag, address in re.findall(r'<(link|script|img)\b[^>]*?(?:href|src)="([^"]+)"', text):
            assert not re.match(r"[a-z]+:|//", address), f"{page.name}: {tag} loads {address}"
            assert (page.parent / address).is_file(), f"{page.name}: {address} is missing"
        for address in re.findall(r'<a\b[^>]*href="([^"#]+)', text):
            if not re.match(r"https?://", address) and not address.endswith(".apkg"):
                assert (page.parent / address).is_file(), f"{page.name}: link to {address} is missing"


def test_the_course_page_links_the_deck_that_deck_writes_beside_the_site(fixture_site, course, verification):
    """``torchdeck build`` writes the site with the deck: the link opens the package the deck output writes."""
    from generator.render import in_build
    from generator.render.base import RenderJob

    assert {"anki", "site"} <= set(in_build())
    out = fixture_site.parent
    text = (fixture_site / "zh" / "index.html").read_text(encoding="utf-8")
    link = re.search(r'<a class="deck" href="([^"]+)"', text)[1]
    assert (fixture_site / "zh" / link).resolve() == RenderJob(course, verification, "zh", out).output(
        "torch-backends", ".apkg").resolve()


def test_what_rests_on_a_fact_that_does_not_hold_is_left_out(tmp_path):
    """As every build does: the lesson and the question citing the failed fact go, the rest is built; the
    course page is dated as quizzes are (``SOURCE_DATE_EPOCH`` here), never by the clock."""
    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content)
    module = content / "backends.yaml"
    module.write_text(module.read_text(encoding="utf-8").replace("{exists: torch.backends.cudnn}",
                                                                 "{exists: torch.backends.no_such_library}"),
                      encoding="utf-8")
    result = torchdeck("site", "--content", content, "--out", tmp_path / "build", "--lang", "en",
                       env={"SOURCE_DATE_EPOCH": "86400"})
    assert result.exit_code == 0, result.output
    assert "lesson g-what" in result.output and "question g-namespace-q" in result.output
    page = (tmp_path / "build" / "site" / "en" / "backends.html").read_text(encoding="utf-8")
    assert 'id="g-what"' not in page and 'id="q-g-namespace-q"' not in page
    assert (tmp_path / "build" / "site" / "en" / "cudnn.html").is_file()
    assert not (tmp_path / "build" / "site" / "zh").exists()  # --lang en: English only
    course_page = (tmp_path / "build" / "site" / "en" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"verified against torch \S+ on 1970-01-02<", course_page)  # the edition's day, not today


# ------------------------------------------------------------------ questions, games, progress
def test_clicking_an_option_shows_the_why_of_every_option(browser, shipped_site, course):
    question = first_question(course, "cudnn", many=False)
    options = shown(question, course)
    wrong = next(i for i, option in enumerate(options) if not option.correct)
    page = open_page(browser, shipped_site / "en" / "cudnn.html")
    section = page.locator(f"#q-{question.id}")
    assert section.locator(".why:visible").count() == 0  # nothing given away before a click
    section.locator("button.choice").first.focus()
    page.keyboard.press("Tab")  # moving through the options with the keyboard answers nothing
    assert section.locator(".why:visible").count() == 0
    section.locator("button.choice").nth(wrong).click()
    whys = section.locator(".why")
    assert whys.count() == len(options)
    for index, option in enumerate(options):
        assert whys.nth(index).is_visible()
        assert plain(option.why.en) in collapse_spaces(whys.nth(index).inner_text())
    assert "picked" in section.locator(".option").nth(wrong).get_attribute("class")
    right = chr(ord("A") + next(i for i, option in enumerate(options) if option.correct))
    assert f"the right answer is {right}." in section.locator(".result").inner_text()
    page.context.close()


def test_several_answers_are_checked_together(browser, shipped_site, course):
    question = first_question(course, "cudnn", many=True)
    options = shown(question, course)
    page = open_page(browser, shipped_site / "en" / "cudnn.html")
    section = page.locator(f"#q-{question.id}")
    for index, option in enumerate(options):
        if option.correct:
            section.locator("input").nth(index).check()
    assert section.locator(".why:visible").count() == 0  # a box ticked is not yet an answer
    section.locator("button.check").click()
    assert section.locator(".why:visible").count() == len(options)
    assert section.locator(".result").inner_text().startswith("Right!")
    page.context.close()


def test_progress_survives_a_reload(browser, shipped_site, course):
    question = first_question(course, "cudnn", many=False)
    module = next(m for m in course.modules if m.name == "cudnn")
    page = open_page(browser, shipped_site / "en" / "cudnn.html")
    page.locator(f"#q-{question.id} button.choice").first.click()
    page.reload()
    section = page.locator(f"#q-{question.id}")
    assert section.locator("button.choice").first.get_attribute("aria-pressed") == "true"
    assert section.locator(".why:visible").count() == len(question.options)
    assert page.locator(".line .progress").inner_text() == f"1 of {len(module.questions)} questions answered"
    page.goto((shipped_site / "en" / "index.html").as_uri())  # the course page counts it too
    listed = page.locator("ol.modules > li", has=page.locator('a[href="cudnn.html"]')).locator(".progress")
    assert listed.inner_text() == f"1 of {len(module.questions)} questions answered"
    page.goto((shipped_site / "en" / "cudnn.html").as_uri())
    page.locator(f"#q-{question.id} button.again").click()  # tried again: forgotten, after a reload too
    page.reload()
    assert page.locator(f"#q-{question.id} .why:visible").count() == 0
    assert page.locator(".line .progress").inner_text() == f"0 of {len(module.questions)} questions answered"
    page.context.close()


def test_a_game_gives_a_verdict_for_every_pick_and_keeps_it(browser, shipped_site, course):
    lesson = next(lesson for lesson in course.lessons if lesson.game and lesson.table)
    module = next(m for m in course.modules if lesson in m.lessons)
    first_row = lesson.table.rows[0]
    page = open_page(browser, shipped_site / "zh" / f"{module.name}.html")
    game = page.locator(f"#g-{lesson.id}")
    situations = game.locator(".situation .what")
    assert [situations.nth(i).inner_text() for i in range(situations.count())] == \
        [plain(row[0].zh) for row in lesson.table.rows]  # as written: no ℹ before a situation
    picks = game.locator(".pick select")
    assert picks.count() == len(lesson.table.rows) * (len(lesson.table.columns) - 1)
    for column, cell in enumerate(first_row[1:]):  # the first situation right, the rest left open
        picks.nth(column).select_option(label=plain(cell.zh or cell.en))
    game.locator("button.check").click()
    verdicts = game.locator(".verdict")
    settings = len(first_row) - 1
    assert [verdicts.nth(i).inner_text() for i in range(settings)] == ["✓"] * settings
    assert all(verdicts.nth(i).inner_text().startswith("✗ 答案：") for i in range(settings, verdicts.count()))
    assert game.locator(".result").inner_text() == f"答对 {settings}/{verdicts.count()}。"
    page.reload()
    assert game.locator(".result").inner_text() == f"答对 {settings}/{verdicts.count()}。"
    page.context.close()


def test_a_review_recalls_the_takeaways_just_taught(shipped_site, course):
    from generator.render.teaching import REVIEW_EVERY

    module = next(m for m in course.modules if len(m.lessons) > REVIEW_EVERY)
    text = (shipped_site / "en" / f"{module.name}.html").read_text(encoding="utf-8")
    review = re.search(r'<section class="review".*?</section>', text, re.S)[0]
    for lesson in module.lessons[:REVIEW_EVERY]:
        assert as_on_card(plain(lesson.takeaway.en)) in collapse_spaces(re.sub(r"<[^>]+>", "", review))


# ------------------------------------------------------------------ layout and accessibility
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_nothing_runs_off_a_phone_screen(browser, shipped_site, lang, scheme):
    """Every page of the shipped course (its games, tables, long code and names), everything opened."""
    paths = [shipped_site / "index.html", *sorted((shipped_site / lang).glob("*.html"))]
    assert len(paths) > 10
    page = open_page(browser, paths[0], scheme=scheme)
    for path in paths:
        page.goto(path.as_uri())
        page.evaluate(OPEN_ALL)
        measured = page.evaluate(PAST_EDGE)
        assert measured["scroll"] <= measured["width"] and not measured["out"], f"{path.name}: {measured}"
    page.context.close()


def test_night_mode_follows_the_system(browser, shipped_site):
    page = open_page(browser, shipped_site / "en" / "cudnn.html", scheme="dark")
    assert "nightMode" in page.evaluate("document.documentElement.className")
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert max(int(v) for v in re.findall(r"\d+", background)[:3]) < 64, background
    shown_pictures = page.locator(".diagram img:visible")
    assert shown_pictures.count() >= 1
    assert all("-night-" in shown_pictures.nth(i).get_attribute("src") for i in range(shown_pictures.count()))
    page.context.close()


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical violations on ``page``, as ``rule: where``."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document)).violations"
                          ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
                          ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 5).join(', '))")
    return list(found)


@pytest.mark.parametrize("scheme, pages", [("light", ("index.html", "en/index.html", "en/cudnn.html")),
                                            ("dark", ("zh/index.html", "zh/cudnn.html"))])
def test_axe_finds_no_serious_violations(browser, shipped_site, scheme, pages):
    """The home page, the course pages and the longest module, with every why and footer opened, in each
    language and scheme (axe takes seconds a page: the longest module once in each)."""
    for name in pages:
        page = open_page(browser, shipped_site / name, scheme=scheme)
        page.evaluate(OPEN_ALL)
        assert axe_violations(page) == [], name
        page.context.close()
