"""Human-readable reports: the Markdown verification report and the stats table."""
from __future__ import annotations

from collections import Counter

from .model import SECTIONS, Course
from .verify import STATUSES, Verification


def markdown_report(verification: Verification) -> str:
    counts = verification.counts()
    lines = [
        "# torchdeck verification report", "",
        f"- torch: `{verification.torch}`", f"- python: `{verification.python}`",
        f"- date: {verification.date}",
        "- capabilities: " + ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in verification.capabilities.items()),
        "- " + ", ".join(f"{counts[s]} {s}" for s in STATUSES), "",
        "| status | fact | where | detail |", "| --- | --- | --- | --- |",
    ]
    order = {s: i for i, s in enumerate(("error", "fail", "skip", "pass"))}
    for result in sorted(verification.results.values(), key=lambda r: (order[r.status], r.file, r.line)):
        detail = result.detail.replace("|", "\\|")
        lines.append(f"| {result.status} | `{result.id}` | {result.file}:{result.line} | {detail} |")
    return "\n".join(lines) + "\n"


def stats_table(course: Course, verification: Verification) -> str:
    from .lint import missing_translations  # only `stats` needs the lint rules: `verify` starts without them

    header = ["module", *STATUSES, "basic", "reverse", "cloze", "mcq", "code", "questions", "lessons", "no-zh"]
    rows = []
    totals: Counter[str] = Counter()
    for module in course.modules:
        statuses = Counter(verification.results[f.id].status for f in module.facts)
        kinds = Counter(c.kind for c in module.cards)
        missing = sum(len(missing_translations(item)) for section in SECTIONS
                      for item in getattr(module, section))
        missing += sum(1 for t in (module.title, module.summary) if t is None or t.missing())
        row = {"module": module.name, **{s: statuses[s] for s in STATUSES},
               **{k: kinds[k] for k in ("basic", "reverse", "cloze", "mcq", "code")},
               "questions": len(module.questions), "lessons": len(module.lessons), "no-zh": missing}
        totals.update({k: v for k, v in row.items() if k != "module"})
        rows.append(row)
    rows.append({"module": "TOTAL", **totals})
    widths = {h: max(len(h), *(len(str(r.get(h, 0))) for r in rows)) for h in header}
    lines = ["  ".join(h.rjust(widths[h]) if h != "module" else h.ljust(widths[h]) for h in header)]
    for row in rows:
        lines.append("  ".join(str(row.get(h, 0)).rjust(widths[h]) if h != "module"
                               else str(row[h]).ljust(widths[h]) for h in header))
    cards = sum(totals[k] for k in ("basic", "reverse", "cloze", "mcq", "code"))
    lines.append(statements_line(course))
    lines.append(f"stats: {len(course.modules)} modules, {sum(totals[s] for s in STATUSES)} facts, "
                 f"{cards} cards, {totals['questions']} questions, {totals['lessons']} lessons")
    return "\n".join(lines)


def statements_line(course: Course) -> str:
    """'statements: Anki 700 proven, 60 explanation; ...' (``statements.counts``)."""
    from .statements import counts

    names = {"anki": "Anki", "slides": "slides", "quiz": "quizzes"}
    return "statements: " + "; ".join(f"{names[output]} {proven} proven, {explained} explanation"
                                      for output, (proven, explained) in counts(course).items())
