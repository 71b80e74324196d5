"""The tests' own layout: a helper shared by test modules lives in ``tests/helpers.py``, and no test module
imports another (nor ``conftest``: pytest loads it, and what it holds for imports belongs in helpers)."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _top_level_functions(path: Path) -> dict[str, str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name: ast.dump(node) for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_no_test_module_imports_another_or_conftest():
    modules = sorted(TESTS.glob("*.py"))
    assert len(modules) > 20  # the glob sees the suite
    offending = {path.name: sorted(name for name in _imported(path) if name.startswith("test_") or name == "conftest")
                 for path in modules}
    assert {name: found for name, found in offending.items() if found} == {}


def test_the_checker_sees_an_import_of_a_test_module(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text("from test_anki import new_collection\nimport conftest\n")
    assert _imported(sample) == {"test_anki", "conftest"}


def test_no_helper_is_copied_between_test_modules():
    """A function defined alike (same name, same body) in two modules belongs in helpers; and no test module
    redefines a name helpers defines, which would give that name a second meaning."""
    helpers = set(_top_level_functions(TESTS / "helpers.py"))
    seen: dict[tuple[str, str], str] = {}
    copies, shadowing = [], []
    for path in sorted(TESTS.glob("test_*.py")):
        for name, body in _top_level_functions(path).items():
            if name.startswith("test_"):
                continue
            if (name, body) in seen:
                copies.append((name, seen[(name, body)], path.name))
            seen[(name, body)] = path.name
            if name in helpers:
                shadowing.append((name, path.name))
    assert copies == [] and shadowing == []
