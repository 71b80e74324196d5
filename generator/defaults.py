"""What a fact's check asserts a flag's default to be: the value a workshop handout's cheat table prints.

A ``default`` check asserts it outright (``default: PATH, equals: VALUE``). A snippet or an expression
asserts it where it compares the flag, read before anything in the check changes torch's state (no
assignment to a ``torch.`` name, no call into torch before it), to a constant with ``is`` or ``==``:
``assert torch.backends.cuda.matmul.allow_tf32 is False``, or through a local name the flag was read
into (``matmul = torch.backends.cuda.matmul.allow_tf32`` ... ``assert matmul is False``). Nothing else
counts: the table never prints a default no check asserts.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class Default:
    """The value a check asserts a flag starts with."""

    value: Any

    def __str__(self) -> str:
        """As Python prints it: ``False``, ``10``, ``'none'``."""
        return repr(self.value)


def asserted_default(check, flag: str) -> Optional[Default]:
    """The default ``check`` (a fact's ``Check``) asserts for ``flag`` (a dotted path); None where it asserts none."""
    if check.kind == "default":
        return Default(check.equals) if check.target == flag else None
    if check.kind == "expr":
        return _in_tests(_conjuncts(ast.parse(check.target, mode="eval").body), flag, {})
    if check.kind == "snippet":
        return _in_statements(ast.parse(check.target).body, flag)
    return None


def _in_statements(body: list[ast.stmt], flag: str) -> Optional[Default]:
    aliases: dict[str, str] = {}  # a local name -> the torch path it was read from
    for statement in body:
        if isinstance(statement, ast.Assert):
            found = _in_tests(_conjuncts(statement.test), flag, aliases)
            if found:
                return found
        if _changes_torch(statement):
            return None
        if isinstance(statement, ast.Assign):
            aliases.update(_read_into(statement))
    return None


def _in_tests(tests: list[ast.expr], flag: str, aliases: dict[str, str]) -> Optional[Default]:
    """The first of ``tests`` (evaluated in order) that compares ``flag`` to a constant, before any call into torch."""
    for test in tests:
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)):
            left, right = test.left, test.comparators[0]
            read = aliases.get(left.id, "") if isinstance(left, ast.Name) else dotted(left)
            if read == flag and isinstance(right, ast.Constant):
                return Default(right.value)
        if _changes_torch(test):
            return None
    return None


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    """``a and b and c`` as ``[a, b, c]``; any other test as itself."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [part for value in test.values for part in _conjuncts(value)]
    return [test]


def _read_into(statement: ast.Assign) -> dict[str, str]:
    """``a, b = torch.x, torch.y`` -> ``{a: torch.x, b: torch.y}``; ``a = torch.x`` -> ``{a: torch.x}``."""
    found: dict[str, str] = {}
    for target in statement.targets:
        pairs = (zip(target.elts, statement.value.elts)
                 if isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple)
                 and len(target.elts) == len(statement.value.elts) else [(target, statement.value)])
        for name, value in pairs:
            if isinstance(name, ast.Name) and dotted(value).startswith("torch."):
                found[name.id] = dotted(value)
    return found


def _changes_torch(node: ast.AST) -> bool:
    """Whether ``node`` may change torch's state: it calls into torch or assigns to a torch name."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and dotted(inner.func).startswith("torch"):
            return True
        if isinstance(inner, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
            names = [part for target in targets for part in ast.walk(target)]
            if any(dotted(name).startswith("torch.") for name in names):
                return True
    return False


def dotted(node: ast.AST) -> str:
    """``torch.backends.cudnn.benchmark`` for that attribute chain; '' for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])
