"""Lint beyond the schema: items that give the answer away are findings, with exit code 1."""
from __future__ import annotations

import yaml
from click.testing import CliRunner

from generator.cli import main

FACT = {"id": "f", "claim": {"en": "c", "zh": "c"}, "check": {"exists": "torch"}}


def truefalse(index: int, true: bool) -> dict:
    options = [{"text": {"en": "True", "zh": "对"}, "correct": true, "why": {"en": "w", "zh": "w"}},
               {"text": {"en": "False", "zh": "错"}, "correct": not true, "why": {"en": "w", "zh": "w"}}]
    return {"id": f"tf-{index}", "kind": "truefalse", "stem": {"en": f"s {index}", "zh": f"题 {index}"},
            "options": options, "facts": ["f"]}


def single(index: int, correct_longest: bool) -> dict:
    texts = ["a much longer correct option", "short", "tiny"] if correct_longest else ["right", "a long wrong one", "x"]
    options = [{"text": {"en": t, "zh": t}, "correct": i == 0, "why": {"en": "w", "zh": "w"}} for i, t in enumerate(texts)]
    return {"id": f"s-{index}", "kind": "single", "stem": {"en": f"q {index}", "zh": f"问 {index}"},
            "options": options, "facts": ["f"]}


def lint_of(tmp_path, questions: list[dict]):
    module = {"module": "torch.backends.t", "title": {"en": "T", "zh": "T"}, "summary": {"en": "S", "zh": "S"},
              "facts": [FACT], "questions": questions}
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(module, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return CliRunner().invoke(main, ["lint", "--content", str(tmp_path)])


def test_balanced_items_are_clean(tmp_path):
    questions = [truefalse(i, i % 2 == 0) for i in range(10)] + [single(i, i < 3) for i in range(10)]
    result = lint_of(tmp_path, questions)
    assert result.exit_code == 0, result.output


def test_true_false_keys_must_be_balanced(tmp_path):
    result = lint_of(tmp_path, [truefalse(i, i < 2) for i in range(10)])
    assert result.exit_code == 1 and "2 of 10 are keyed True (20%)" in result.output


def test_the_correct_option_is_not_the_longest_by_habit(tmp_path):
    result = lint_of(tmp_path, [single(i, i < 5) for i in range(10)])
    assert result.exit_code == 1 and "strictly the longest in 5 of 10 (50%; at most 35%)" in result.output
    assert "s-0" in result.output and "s-5" not in result.output


def test_a_hand_written_select_all_hint_is_a_finding(tmp_path):
    question = single(0, False)
    question["stem"] = {"en": "Which are right? (pick all)", "zh": "哪些正确？（多选）"}
    result = lint_of(tmp_path, [question])
    assert result.exit_code == 1 and "s-0: a hand-written 'select all that apply' hint" in result.output


def test_authoring_notes_are_findings_and_torchs_own_seed_is_not(tmp_path):
    noted = single(0, False)
    noted["options"][1]["why"] = {"en": "A seed chat marked this correct.", "zh": "错。"}
    seeded = single(1, False)
    seeded["stem"] = {"en": "What does torch.seed() return?", "zh": "torch.seed() 返回什么？设置随机种子吗？"}
    checked = truefalse(2, True)
    checked["options"][0]["why"] = {"en": "Right.", "zh": "对：见种子对话。"}
    result = lint_of(tmp_path, [noted, seeded, checked])
    assert result.exit_code == 1
    assert "s-0.options[1].why: 'seed chat' is an authoring note" in result.output.replace("\n", " ")
    assert "tf-2.options[0].why: '种子对话' is an authoring note" in result.output.replace("\n", " ")
    assert "s-1" not in result.output
