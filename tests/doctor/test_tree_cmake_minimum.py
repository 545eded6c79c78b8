"""Doctor's CMake check reads the tree's own requirement before the release table.

A PyTorch tree's setup.py refuses CMake below ``CMAKE_MINIMUM_VERSION_STRING`` in
``tools/setup_helpers/env.py`` (PyTorch @07cde1febe3c: "3.27"); when the tree has that
line it is the authority, and the table (PyTorch version -> minimum CMake) is only the
fallback for trees without it.  Runs the real probes on generated minitorch trees and
this machine's real cmake (3.25.1 on the dev image; the test reads the version it has).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.minitorch import make_minitorch
from torchbuild.decisions.doctor import check
from torchbuild.facts import collect

pytestmark = pytest.mark.slow


def _cmake_findings(tree: Path):
    facts = collect(tree)
    return facts, [f for f in check(facts, wants_cuda=False) if f.check == "cmake" and f.severity == "error"]


def _with_env_py(tree: Path, version: str) -> None:
    (tree / "tools" / "setup_helpers").mkdir(parents=True)
    (tree / "tools" / "setup_helpers" / "env.py").write_text(
        f'import os\n\nCMAKE_MINIMUM_VERSION_STRING = "{version}"\n'
    )


def test_tree_requirement_beats_the_release_table(tmp_path):
    tree = make_minitorch(tmp_path / "pytorch", submodule=False, version="2.13.0")
    facts, errors = _cmake_findings(tree)
    have = facts.tools["cmake"].version
    assert have is not None
    # no env.py: the release table speaks (2.13 needs 3.27, pytorch-build-facts.md §3)
    assert bool(errors) == (tuple(map(int, have.split(".")[:2])) < (3, 27))
    _with_env_py(tree, "3.18")
    facts, errors = _cmake_findings(tree)
    assert facts.source.setup_cmake_minimum == "3.18" and errors == []
    (tree / "tools" / "setup_helpers" / "env.py").write_text('CMAKE_MINIMUM_VERSION_STRING = "99.1"\n')
    facts, errors = _cmake_findings(tree)
    assert errors and "setup.py" in errors[0].message and ">= 99.1" in errors[0].message
