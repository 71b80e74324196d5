"""Code samples run as shown, or are marked as raising, an excerpt or needing a GPU."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import yaml
from click.testing import CliRunner

from generator.cli import main
from generator.loader import load_course
from generator.render.base import RenderJob
from generator.render.quiz.moodle import moodle_xml
from generator.verify import verify


def question(qid, code, runs=None):
    q = {"id": qid, "kind": "single", "stem": "What happens?", "code": code, "facts": ["f"],
         "options": [{"text": "a", "correct": True, "why": "w"}, {"text": "b", "why": "w"}]}
    if runs:
        q["runs"] = runs
    return q


def write(folder, questions):
    folder.mkdir(parents=True, exist_ok=True)
    module = {"module": "torch.backends.t", "facts": [{"id": "f", "claim": "c", "check": {"exists": "torch.backends"}}],
              "questions": questions}
    (folder / "t.yaml").write_text(yaml.safe_dump(module, sort_keys=False))
    return folder


def test_samples_run_as_marked_and_a_broken_one_is_named_with_its_line(tmp_path):
    folder = write(tmp_path / "content", [
        question("runs", "x = torch.ones(2)\nprint(x.sum())"),
        question("raises-as-marked", "torch.backends.cudnn.enabled = 1", "raises"),
        question("excerpt", "model(x)", "fragment"),
        question("gpu", "torch.zeros(1, device='cuda')", "gpu"),
        question("undefined", "model.eval()"),
        question("marked-raises-but-runs", "x = 1", "raises"),
    ])
    result = CliRunner().invoke(main, ["samples", "--content", str(folder)])
    assert result.exit_code == 1, result.output
    assert "t.yaml:" in result.output and "undefined (sample 1): the snippet raised NameError" in result.output
    assert "marked-raises-but-runs (sample 1): expected the sample to raise" in result.output
    import torch

    # the gpu sample runs where CUDA is available (read here, as the worker will), else it is skipped
    counts = "2 fail, 1 fragment, 3 pass" if torch.cuda.is_available() else "2 fail, 1 fragment, 2 pass, 1 skip"
    assert f"samples: 6 code samples: {counts}" in result.output


def test_an_excerpt_and_a_gpu_sample_say_so_where_they_are_shown(tmp_path):
    folder = write(tmp_path / "content", [question("excerpt", "model(x)", "fragment"),
                                          question("gpu", "torch.zeros(1, device='cuda')", "gpu"),
                                          question("plain", "torch.ones(1)")])
    course = load_course(folder)
    job = RenderJob(course, verify(course, cache_dir=None), "zh", tmp_path)
    root = ET.fromstring(moodle_xml(job, course.questions, "t"))
    texts = {q.findtext("name/text"): q.findtext("questiontext/text") for q in root.iter("question")
             if q.get("type") == "multichoice"}
    assert "# 节选：较大程序的一部分\nmodel(x)" in texts["excerpt"]
    assert "# 需要 CUDA GPU\ntorch.zeros" in texts["gpu"]
    assert "<code class=\"language-python\">torch.ones(1)</code>" in texts["plain"]
