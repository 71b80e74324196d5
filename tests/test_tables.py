"""The worker's tables: one entry per check kind (``CHECK_KINDS``) and per capability (``CAPABILITIES``);
the model, the controls, the outputs' wording and the README follow them."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from generator.model import Check
from generator.worker import CHECK_KINDS, subjects

README = Path(__file__).resolve().parent.parent / "README.md"
# How the README writes what a kind's key and its companion hold.
TARGET_WORDS = {("path", "exec"): "PATH", ("code", "exec"): "CODE", ("code", "eval"): "EXPRESSION"}
HOLDS_WORDS = {"value": "VALUE", "type-name": "T", "names": "[names]", "exception-name": "Name"}


def test_the_readme_table_is_the_table_of_kinds():
    rows = re.findall(r"^\| (`\w+: [A-Z]+`(?: \+ `\w+: [^`]+`)?) \| (.*) \|$", README.read_text(encoding="utf-8"), re.M)
    expected = []
    for kind in CHECK_KINDS.values():
        usage = f"`{kind.name}: {TARGET_WORDS[kind.target, kind.parse_mode]}`"
        if kind.companion:
            usage += f" + `{kind.companion}: {HOLDS_WORDS[kind.holds]}`"
        expected.append((usage, kind.doc))
    assert rows == expected


@pytest.mark.parametrize("name", list(CHECK_KINDS))
def test_the_model_asks_each_kind_for_its_own_companion_and_no_other(name):
    kind = CHECK_KINDS[name]
    target = "torch.backends.cudnn.enabled" if kind.target == "path" else "True"
    companion_value = {"value": True, "type-name": "bool", "names": ["x"], "exception-name": "RuntimeError"}
    alone = {name: target}
    if kind.companion:
        with pytest.raises(ValidationError, match=f"needs '{kind.companion}'"):
            Check.model_validate(alone)
        alone[kind.companion] = companion_value[kind.holds]
    assert Check.model_validate(alone).kind == name
    others = [k for k in CHECK_KINDS.values() if k.companion and k.companion != kind.companion]
    with pytest.raises(ValidationError, match=f"'{others[0].companion}' does not belong"):
        Check.model_validate({**alone, others[0].companion: companion_value[others[0].holds]})


def test_controls_read_a_path_kind_s_path_as_the_kind_reads_it():
    assert subjects({"default": "torch.backends.cudnn.enabled", "equals": True}) == \
        [{"path": "torch.backends.cudnn.enabled", "mode": "value"}]
    assert subjects({"absent": "torch.backends.cudnn.fast"}) == [{"path": "torch.backends.cudnn.fast", "mode": "absent"}]
    assert subjects({"expr": "torch.backends.cudnn.enabled is True"}) == \
        [{"path": "torch.backends.cudnn.enabled", "mode": "value"}]


def test_every_capability_has_a_name_in_both_languages_and_nothing_else_does():
    from generator.wording import CAPABILITY_NAMES
    from generator.worker import CAPABILITIES

    assert list(CAPABILITY_NAMES) == list(CAPABILITIES)
    assert all(len(names) == 2 and all(names) for names in CAPABILITY_NAMES.values())
