"""The verification ledger: runs recorded with provenance, invalidated by a changed check, shown in every output;
checks exported as one file that a python with only torch runs; build-aware capabilities and release scopes."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import torch
from pptx import Presentation

from generator import ledger
from generator.loader import load_course
from generator.render.anki.notes import note_guid
from generator.render.scope import release_union
from helpers import import_package, new_collection, torchdeck

MODULE = textwrap.dedent("""\
    module: torch.backends.cudnn
    title: {en: cuDNN, zh: cuDNN}
    lessons:
      - id: l-lesson
        title: {en: Flags, zh: 开关}
        notes: {en: Say this, zh: 这样讲}
        ask: {en: Ask that, zh: 问这个}
        facts: [l-enabled]
    facts:
      - id: l-enabled
        claim: {en: cudnn.enabled is True by default, zh: cudnn.enabled 默认为 True}
        check: {default: torch.backends.cudnn.enabled, equals: true}
      - id: l-benchmark
        claim: {en: cudnn.benchmark is False by default, zh: cudnn.benchmark 默认为 False}
        check: {default: torch.backends.cudnn.benchmark, equals: false}
      - id: l-new
        claim: {en: a name that only a future release has, zh: 只有未来版本才有的名字}
        check: {exists: torch.backends.cudnn.enabled}
        torch: ">=2.99"
      - id: l-cpu-only
        claim: {en: a CPU-only build has no CUDA version, zh: 纯 CPU 版 torch 没有 CUDA 版本号}
        check: {expr: "torch.version.cuda is None"}
        unless: [cuda-built]
    cards:
      - {id: l-card-enabled, kind: basic, front: {en: enabled?, zh: enabled？}, back: "True", facts: [l-enabled]}
      - {id: l-card-benchmark, kind: basic, front: {en: benchmark?, zh: benchmark？}, back: "False", facts: [l-benchmark]}
      - {id: l-card-new, kind: basic, front: {en: the new name?, zh: 新名字？}, back: "yes", facts: [l-new]}
      - {id: l-card-cpu, kind: basic, front: {en: CUDA version?, zh: CUDA 版本？}, back: "None", facts: [l-cpu-only]}
    questions:
      - id: l-q
        kind: truefalse
        stem: {en: "cuDNN is enabled by default.", zh: "cuDNN 默认启用。"}
        options:
          - {text: {en: "True", zh: 对}, correct: true, why: {en: it defaults to True, zh: 默认为 True}}
          - {text: {en: "False", zh: 错}, why: {en: it is on, zh: 它是开启的}}
        facts: [l-enabled]
""")
ELSEWHERE = ledger.Run("2.99.0+cu999", "3.11.0", "2026-01-02", {"device": "NVIDIA Test GPU", "cuda": "99.9"}, {},
                       {})


@pytest.fixture
def content(tmp_path):
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "cudnn.yaml").write_text(MODULE, encoding="utf-8")
    return folder


def record_elsewhere(content, statuses: dict[str, str]) -> None:
    """A run from another machine, as `ledger import` would write it, with the content's current check hashes."""
    course = load_course(content)
    facts = {f.id: ledger.FactRecord(f.check_key(), statuses[f.id]) for f in course.facts if f.id in statuses}
    ledger.write_run(content, ledger.Run(ELSEWHERE.torch, ELSEWHERE.python, ELSEWHERE.date, ELSEWHERE.build,
                                         {}, facts))


def deck_fields(content, out, lang="en") -> dict[str, dict]:
    result = torchdeck("deck", "--content", content, "--out", out, "--lang", lang)
    assert result.exit_code == 0, result.output
    col = new_collection(out / "col")
    try:
        import_package(col, out / f"torch-backends.{lang}.apkg")
        return {col.get_note(n).guid: dict(col.get_note(n).items()) for n in col.find_notes("")}
    finally:
        col.close()


def test_record_writes_provenance_and_one_entry_per_fact(content, tmp_path):
    result = torchdeck("verify", "--content", content, "--out", tmp_path / "build", "--record")
    assert result.exit_code == 0, result.output
    (path,) = (content / "ledger").glob("*.json")
    data = json.loads(path.read_text())
    assert data["torch"] == torch.__version__ and data["python"] == "%d.%d.%d" % sys.version_info[:3]
    assert data["build"]["cuda"] == torch.version.cuda and "device" in data["build"]
    course = load_course(content)
    assert {k: v["hash"] for k, v in data["facts"].items()} == {f.id: f.check_key() for f in course.facts}
    assert data["facts"]["l-enabled"]["status"] == "pass"
    assert data["facts"]["l-new"]["status"] == "skip"
    shown = torchdeck("ledger", "show", "--content", content)
    assert torch.__version__ in shown.output and "0 stale" in shown.output


def test_a_changed_check_invalidates_its_entries(content, tmp_path):
    record_elsewhere(content, {"l-enabled": "pass", "l-benchmark": "pass"})
    course = load_course(content)
    (run_before,) = ledger.load(content, course)
    assert run_before.passed("l-benchmark") and run_before.passed("l-enabled")
    edited = MODULE.replace("check: {default: torch.backends.cudnn.benchmark, equals: false}",
                            "check: {expr: \"torch.backends.cudnn.benchmark is False\"}")
    (content / "cudnn.yaml").write_text(edited, encoding="utf-8")
    course = load_course(content)
    (run_after,) = ledger.load(content, course)
    assert not run_after.passed("l-benchmark") and run_after.passed("l-enabled")
    shown = torchdeck("ledger", "show", "--content", content)
    assert "(1 stale)" in shown.output, shown.output
    fields = deck_fields(content, tmp_path / "build")
    assert "2.99.0+cu999" in fields[note_guid("en", "l-card-enabled")]["Verified"]
    assert "2.99.0+cu999" not in fields[note_guid("en", "l-card-benchmark")]["Verified"]


def test_every_output_shows_where_an_item_was_verified(content, tmp_path):
    record_elsewhere(content, {"l-enabled": "pass", "l-benchmark": "fail", "l-new": "pass"})
    out = tmp_path / "build"
    fields = deck_fields(content, out)
    here = f"verified on torch {torch.__version__} (here), 2.99.0+cu999 on NVIDIA Test GPU"
    assert here in fields[note_guid("en", "l-card-enabled")]["Verified"]
    benchmark = fields[note_guid("en", "l-card-benchmark")]["Verified"]
    assert f"verified on torch {torch.__version__} (here)" in benchmark and "2.99.0" not in benchmark
    new = fields[note_guid("en", "l-card-new")]
    assert "verified on torch 2.99.0+cu999 on NVIDIA Test GPU" in new["Verified"] and "(here)" not in new["Verified"]
    assert "since torch 2.99" in new["Front"]
    # in Chinese the run reads in Chinese words too: no English "on" between the release and the device
    zh = deck_fields(content, tmp_path / "zh", lang="zh")[note_guid("zh", "l-card-new")]["Verified"]
    assert "2.99.0+cu999（NVIDIA Test GPU）" in zh and " on " not in zh, zh
    result = torchdeck("slides", "--content", content, "--out", out, "--lang", "en")
    assert result.exit_code == 0, result.output
    slide = next(s for s in Presentation(out / "torch-backends.en.pptx").slides if s.name == "lesson:l-lesson")
    assert here in slide.notes_slide.notes_text_frame.text
    result = torchdeck("quiz", "--content", content, "--out", out, "--lang", "en", "--versions", "1")
    assert result.exit_code == 0, result.output
    key = subprocess.run(["pdftotext", "-layout", out / "quiz-s0.en.key.pdf", "-"], capture_output=True, text=True,
                         check=True).stdout
    assert "2.99.0+cu999 on NVIDIA Test GPU" in " ".join(key.split())
    assert "2.99.0+cu999 on NVIDIA Test GPU" in (out / "quiz-s0.en.moodle.xml").read_text(encoding="utf-8")


def test_exported_checks_run_with_only_torch_and_import_back(content, tmp_path):
    script = tmp_path / "checks.pyz"
    assert torchdeck("ledger", "export", script, "--content", content).exit_code == 0
    # the exported file needs no torchdeck: run it with -I (isolated: no cwd, no PYTHONPATH) from elsewhere
    done = subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    results = tmp_path / "results.jsonl"
    results.write_text(done.stdout)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["hello"]["torch"] == torch.__version__
    assert {line["id"] for line in lines[1:]} == {"l-enabled", "l-benchmark", "l-new", "l-cpu-only"}
    # a check edited after the export: its result is stale and not recorded
    edited = MODULE.replace("check: {default: torch.backends.cudnn.benchmark, equals: false}",
                            "check: {expr: \"not torch.backends.cudnn.benchmark\"}")
    (content / "cudnn.yaml").write_text(edited, encoding="utf-8")
    result = torchdeck("ledger", "import", results, "--content", content, "--date", "2026-11-01")
    assert result.exit_code == 0, result.output
    assert "1 stale result(s) ignored" in result.output
    (path,) = (content / "ledger").glob("*.json")
    data = json.loads(path.read_text())
    assert data["date"] == "2026-11-01" and "l-benchmark" not in data["facts"]
    assert data["facts"]["l-enabled"]["status"] == "pass"
    assert data["facts"]["l-new"]["status"] == "skip" and "outside >=2.99" in data["facts"]["l-new"]["detail"]


def test_an_export_with_controls_names_each_verdict_and_imports_the_results(content, tmp_path):
    """``ledger export --controls``: on the other machine each check also runs in its rivals' worlds; every
    verdict names its fact, and the import records the checks' results, not the verdicts."""
    with_rival = MODULE.replace(
        "    check: {default: torch.backends.cudnn.benchmark, equals: false}\n",
        "    check: {expr: \"torch.backends.cudnn.benchmark is False\"}\n"
        "    rivals:\n"
        "      - belief: benchmark starts on\n"
        "        world: torch.backends.cudnn.benchmark = True\n")
    assert with_rival != MODULE
    (content / "cudnn.yaml").write_text(with_rival, encoding="utf-8")
    script = tmp_path / "checks.pyz"
    assert torchdeck("ledger", "export", "--controls", script, "--content", content).exit_code == 0
    done = subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    verdicts = {line["id"]: line for line in map(json.loads, done.stdout.splitlines()) if "control" in line}
    assert verdicts["l-benchmark"]["control"] == "caught"
    assert verdicts["l-benchmark"]["rivals"] == [["ruled-out", verdicts["l-benchmark"]["rivals"][0][1]]]
    results = tmp_path / "results.jsonl"
    results.write_text(done.stdout)
    result = torchdeck("ledger", "import", results, "--content", content, "--date", "2026-11-01")
    assert result.exit_code == 0, result.output
    (path,) = (content / "ledger").glob("*.json")
    assert json.loads(path.read_text())["facts"]["l-benchmark"]["status"] == "pass"


def test_a_broken_results_file_is_a_clean_error(content, tmp_path):
    bad = tmp_path / "results.jsonl"
    bad.write_text('{"hello": {"torch": "2.13.0", "python": "3.11.0"}}\nnot json\n')
    result = torchdeck("ledger", "import", bad, "--content", content)
    assert result.exit_code == 1 and f"{bad}:2: not a JSON line" in result.output


def test_build_aware_capabilities_and_unless(content, tmp_path):
    result = torchdeck("verify", "--content", content, "--out", tmp_path / "b", "--json", tmp_path / "v.json")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "v.json").read_text())
    status = {f["id"]: f for f in data["facts"]}
    cuda_built = torch.backends.cuda.is_built()
    assert data["capabilities"]["cuda-built"] is cuda_built
    if cuda_built:
        assert status["l-cpu-only"]["status"] == "skip"
        assert "holds only without cuda-built" in status["l-cpu-only"]["detail"]
    else:
        assert status["l-cpu-only"]["status"] == "pass"
    fields = deck_fields(content, tmp_path / "build")
    assert "builds without CUDA" in fields[note_guid("en", "l-card-cpu")]["Front"]


def test_requires_and_unless_must_not_overlap(content, tmp_path):
    (content / "cudnn.yaml").write_text(MODULE.replace("unless: [cuda-built]", "unless: [cuda-built]\n"
                                                       "    requires: [cuda-built]"), encoding="utf-8")
    result = torchdeck("verify", "--content", content, "--out", tmp_path / "b")
    assert result.exit_code == 2 and "cuda-built is both required and excluded" in result.output


@pytest.mark.parametrize("specs, en, zh", [
    ([">=2.15"], "since torch 2.15", "torch 2.15 起"),
    (["<2.15"], "torch 2.14 and earlier", "torch 2.14 及更早"),
    (["<=2.14"], "torch 2.14 and earlier", "torch 2.14 及更早"),
    ([">=2.14,<2.15"], "torch 2.14 only", "仅 torch 2.14"),
    ([">=2.13,<2.16"], "torch 2.13 to 2.15", "torch 2.13 至 2.15"),
    ([">=2.14", ">=2.15"], "since torch 2.14", "torch 2.14 起"),
    (["<2.15", ">=2.15"], "", ""),              # an item comparing releases is about all of them
    ([">=2.15", None], "", ""),                 # one fact about every release
    (["<2.13", ">=2.15"], "torch 2.12 and earlier, since torch 2.15", "torch 2.12 及更早、torch 2.15 起"),
])
def test_release_words(specs, en, zh):
    assert release_union(specs, "en") == en and release_union(specs, "zh") == zh
