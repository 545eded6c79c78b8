"""No dead code: every function torchbuild defines is used somewhere in src/ (private helpers)
or is part of a module's public interface that src/ or the tests use.  ``_is_missing`` in
actions/diagnose_log.py and ``expand`` in actions/package/rpath.py were defined and never called."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import torchbuild

SRC = Path(torchbuild.__file__).parent
TESTS = Path(__file__).parent


def _texts(root: Path) -> str:
    return "\n".join(f.read_text(encoding="utf-8") for f in sorted(root.rglob("*.py")))


def test_every_function_is_used():
    src, tests = _texts(SRC), _texts(TESTS)
    unused = []
    for f in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name.startswith("__"):
                continue
            word = re.compile(rf"\b{re.escape(node.name)}\b")
            uses = len(word.findall(src)) + (0 if node.name.startswith("_") else len(word.findall(tests)))
            if uses < 2:  # its own definition only
                unused.append(f"{f.relative_to(SRC)}:{node.lineno} {node.name}")
    assert unused == []
