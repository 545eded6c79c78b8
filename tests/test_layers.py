"""The layers import only downward: facts -> knowledge -> decisions -> actions -> cli/api.

Every ``import`` of every module under ``src/torchbuild`` (at module level or inside a function,
absolute or relative) is read with :mod:`ast`; a module may import modules of its own layer and
of the layers before it, never of a later one.  ``errors`` and ``_cachedir`` (where the cache
folder is: it only reads the environment) are the base every layer may use;
``ui`` (terminal output) belongs with the actions.  See ``docs/architecture.md``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import torchbuild

SRC = Path(torchbuild.__file__).resolve().parent

#: Layer of each top-level part of the package; a module may import layers <= its own.
LAYERS = {
    "errors": 0,
    "_cachedir": 0,
    "facts": 1,
    "knowledge": 2,
    "decisions": 3,
    "actions": 4,
    "ui": 4,
    "cli": 5,
    "api": 5,
    "__main__": 5,
}

#: Imports that run against the layers today, each to be removed when fixed.  The test fails
#: on any violation not listed here and on any entry that no longer occurs.
KNOWN_VIOLATIONS: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every ``torchbuild`` module ``path`` imports, relative imports resolved."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                if node.module:
                    found.add(f"{base}.{node.module}")
                else:
                    found.update(f"{base}.{alias.name}" for alias in node.names)
            elif node.module:
                found.add(node.module)
    return {name for name in found if name == "torchbuild" or name.startswith("torchbuild.")}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def _violations() -> set[tuple[str, str]]:
    out = set()
    for path in SRC.rglob("*.py"):
        module = _module_name(path)
        own = _layer(module)
        if own is None:
            continue
        for target in _imports(path):
            theirs = _layer(target)
            if theirs is not None and theirs > own:
                out.add((module, target))
    return out


def test_every_part_of_the_package_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in SRC.iterdir() if p.suffix == ".py" or p.is_dir()}
    parts -= {"__init__", "__pycache__"}
    assert parts <= set(LAYERS), f"give these a layer in tests/test_layers.py: {sorted(parts - set(LAYERS))}"


def test_no_module_imports_from_a_later_layer():
    found = _violations()
    new = sorted(found - KNOWN_VIOLATIONS)
    assert not new, f"imports from a later layer (module, imported): {new}"
    fixed = sorted(KNOWN_VIOLATIONS - found)
    assert not fixed, f"these violations are gone; remove them from KNOWN_VIOLATIONS: {fixed}"


def test_the_import_reader_resolves_relative_imports():
    # decisions/assume.py does `from ..knowledge import compat` inside a function
    path = SRC / "decisions" / "assume.py"
    assert "torchbuild.knowledge" in _imports(path)
    assert _layer("torchbuild.decisions.plan.make") == LAYERS["decisions"]
    assert _layer("torchbuild") is None
