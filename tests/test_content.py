"""The shipped course: every fact holds against the installed torch, and the course is complete."""
from __future__ import annotations

import pytest

from generator import ledger
from generator.api_coverage import measure
from generator.lint import lint
from helpers import CONTENT


def test_every_fact_passes_or_skips_for_a_stated_reason(live_verification):
    problems = [f"{r.file}:{r.line} {r.id}: {r.status}: {r.detail}" for r in live_verification.problems]
    assert not problems, "\n".join(problems)
    for result in live_verification.results.values():
        if result.status == "skip":  # a capability missing here, or a claim about another torch release
            assert result.needs or "is outside" in result.detail, f"{result.id}: {result.detail}"


def test_skipped_facts_cite_a_source_or_passed_in_a_recorded_run(course, live_verification):
    """A fact no check could observe here rests on its source, or on a run the ledger recorded
    (another release, another build, a GPU machine) where it passed."""
    runs = ledger.load(CONTENT, course)
    unbacked = [f.id for f in course.facts if live_verification.results[f.id].status == "skip" and not f.source
                and not any(run.passed(f.id) for run in runs)]
    assert not unbacked


def test_the_ledger_holds_every_release_the_course_names(course):
    """Every fact passes or skips (with its reason) on each recorded release, and 2.13, 2.14 and 2.15
    are recorded with no stale entry: a check edited since needs `make matrix` again. Another run (an
    earlier release, a GPU machine) keeps what it verified; an entry whose check was edited since is
    stale, and ``ledger.load`` drops it, so no output counts it."""
    runs = {run.torch.split("+")[0].rsplit(".", 1)[0]: run for run in ledger.load(CONTENT, course)}
    assert {"2.13", "2.14", "2.15"} <= set(runs)
    for release, run in runs.items():
        if release in ("2.13", "2.14", "2.15"):
            assert set(run.facts) == {f.id for f in course.facts}, f"{release}: stale or missing entries"
        assert set(run.facts) <= {f.id for f in course.facts}, f"{release}: entries of facts the course lacks"
        assert set(run.counts()) <= {"pass", "skip"}, f"{release}: {run.counts()}"


def test_the_recorded_run_plumbing_tests_render_from_is_this_torchs_result(course, live_verification):
    """The ``verification`` fixture renders from the ledger's run for this torch: it must say what the
    live run says, fact by fact."""
    label = ledger.label(live_verification.torch, live_verification.build)
    recorded = [run for run in ledger.load(CONTENT, course) if run.label == label]
    if not recorded:
        pytest.skip(f"torch {label} has no recorded run (verify --record adds one)")
    live = {r.id: (r.status, r.detail, tuple(r.needs)) for r in live_verification.results.values()}
    kept = {fact_id: (e.status, e.detail, e.needs) for fact_id, e in recorded[0].facts.items()}
    assert kept == live


def test_every_check_would_notice_its_claim_false(live_verification):
    """``verify --controls``: no check passes whatever torch does; at most 5% read nothing a control can change."""
    from generator.verify import NONE_SHARE

    controls = {r.id: r.control for r in live_verification.results.values()}
    missed = {fact_id: detail for fact_id, (status, detail) in controls.items() if status == "missed"}
    none = [fact_id for fact_id, (status, _) in controls.items() if status == "none"]
    ran = sum(1 for status, _ in controls.values() if status != "skip")
    assert not missed, missed
    assert len(none) <= NONE_SHARE * ran, none


def test_every_code_sample_runs_as_marked(course):
    from generator import samples

    found = samples.samples(course)
    results = samples.run(found)
    broken = {f"{s.item} (sample {s.number})": detail for s, (status, detail) in zip(found, results)
              if status in ("fail", "error")}
    assert not broken, broken
    assert sum(status == "pass" for status, _ in results) >= 100


def test_lint_is_clean(course):
    assert [str(f) for f in lint(course)] == []


def test_every_public_name_of_torch_backends_is_covered(course, torch_api):
    coverage = measure(course, torch_api)
    assert coverage.uncovered == ()
    assert coverage.percent == 100.0


def test_the_course_is_big_enough_to_teach_from(course):
    assert len(course.facts) >= 300
    assert len(course.cards) >= 350
    assert len(course.questions) >= 150
    assert len(course.lessons) >= 70
    assert {c.kind for c in course.cards} == {"basic", "reverse", "cloze", "mcq", "code"}
    assert {q.kind for q in course.questions} == {"single", "multi", "truefalse", "scenario"}


def test_every_fact_is_taught_somewhere(course):
    cited = {ref for item in (*course.cards, *course.questions, *course.lessons) for ref in item.facts}
    assert [f.id for f in course.facts if f.id not in cited] == []


def test_myths_from_the_seed_documents_are_busted_by_facts(course, live_verification):
    """Each myth card rests on a fact that passed here, or on a GPU-only fact that cites its source."""
    myths = [c for c in course.cards if "myth" in c.tags]
    assert len(myths) >= 20
    for card in myths:
        assert any(live_verification.results[f].status == "pass" or course.fact(f).source for f in card.facts), card.id


def test_every_emoji_of_the_content_is_in_the_shipped_emoji_font():
    """Quizzes print emoji with the font torchdeck ships; tools/make_emoji_font.py adds new ones."""
    from generator.fonts import content_emoji, unprintable_emoji

    assert unprintable_emoji(content_emoji(CONTENT)) == []
