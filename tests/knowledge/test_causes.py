"""The cause ids of ``knowledge/data/causes.toml`` are the only ones the tool names.

Every signature of ``signatures/``, every cause id ``verify`` names and every cause judged
in the real-log corpus (``tests/diagnose/realworld/index.toml``) is an id of ``causes.toml``.
Where the project's cause list lies beside the clone (``../shared/causes.md``, as CI may lay it
out), its ids and ``causes.toml``'s are the same, but for the additions that say so.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import tomllib

import torchbuild
from torchbuild.actions import verify_libtorch
from torchbuild.decisions.diagnose import load_signatures
from torchbuild.decisions.verify_causes import CHECK_CAUSES
from torchbuild.knowledge import KnowledgeError, causes

REPO = Path(__file__).resolve().parents[2]
SRC = Path(torchbuild.__file__).resolve().parent
CORPUS_INDEX = REPO / "tests" / "diagnose" / "realworld" / "index.toml"
#: The project's cause list, where it lies beside the clone (absent in a clone of its own).
CAUSES_MD = REPO.parent / "shared" / "causes.md"


def _literal_cause_ids() -> set[str]:
    """String constants passed as ``cause_id=`` anywhere in the package (``a if c else b`` too)."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "cause_id":
                values = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
                found.update(v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def test_every_cause_has_a_family_a_meaning_and_ids_are_snake_case():
    fams = causes.families()
    assert set(fams) == {"toolchain", "cuda", "resources", "source", "after_build", "other"}
    for c in causes.causes():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", c.id), c.id
        assert c.family in fams and c.meaning.strip(), c.id
        assert c.fix or c.id == causes.UNKNOWN, f"{c.id} has no usual fix"
    assert fams["other"] == (causes.UNKNOWN,)
    assert sum(len(ids) for ids in fams.values()) == len(causes.causes()) == len(causes.cause_ids())


def test_signatures_name_only_causes_of_the_file():
    assert {s.cause for s in load_signatures()} <= causes.cause_ids()


def test_verify_names_only_causes_of_the_file():
    named = set(CHECK_CAUSES.values()) | {cid for cid, *_ in verify_libtorch._CAUSES} | _literal_cause_ids()
    assert "torch_cmake_config_not_found" in named and "torch_cpu_only" in named  # the scan sees them
    assert named - causes.cause_ids() == set()


def test_corpus_names_only_causes_of_the_file():
    rows = tomllib.loads(CORPUS_INDEX.read_text(encoding="utf-8"))["log"]
    assert {r["cause"] for r in rows} - causes.cause_ids() == set()


def test_additions_say_why():
    added = {c.id for c in causes.causes() if c.added}
    assert "torch_cmake_config_not_found" in added
    for c in causes.causes():
        assert c.added is None or "addition" in c.added, c.id


def test_the_project_cause_list_and_the_file_agree():
    if not CAUSES_MD.is_file():
        pytest.skip(f"the project's cause list is not beside the clone ({CAUSES_MD})")
    listed = set(re.findall(r"^\| `([a-z0-9_]+)` \|", CAUSES_MD.read_text(encoding="utf-8"), re.M))
    assert listed - causes.cause_ids() == set()
    assert causes.cause_ids() - listed == {c.id for c in causes.causes() if c.added}


def test_a_cause_without_a_family_is_refused(monkeypatch):
    def fake_load(name: str) -> dict:
        return {"family": {"cuda": "CUDA"}, "cause": {"x": {"family": "nope", "meaning": "m"}}}

    monkeypatch.setattr(causes, "load", fake_load)
    causes.causes.cache_clear()
    try:
        with pytest.raises(KnowledgeError, match="'x'"):
            causes.causes()
    finally:
        monkeypatch.undo()
        causes.causes.cache_clear()
