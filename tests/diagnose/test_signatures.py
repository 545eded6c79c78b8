"""The knowledge: every cause has signatures; every example matches its own signature."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torchbuild.decisions.diagnose import GATE, diagnose_lines, load_signatures, normalize
from torchbuild.decisions.diagnose_reasons import UNDECIDED_CAP
from torchbuild.knowledge import load

CAUSES_MD = Path(__file__).resolve().parents[3] / "shared" / "causes.md"


def _cause_ids() -> set[str]:
    path = CAUSES_MD if CAUSES_MD.exists() else Path("/work/shared/causes.md")
    ids = set(re.findall(r"^\| `([a-z0-9_]+)` \|", path.read_text(encoding="utf-8"), re.M))
    ids.discard("unknown")
    return ids


def test_every_cause_has_a_signature():
    have = {s.cause for s in load_signatures()}
    assert _cause_ids() - have == set()


def test_signatures_name_only_known_causes():
    assert {s.cause for s in load_signatures()} <= _cause_ids()


def test_signature_ids_unique_and_sourced():
    sigs = load_signatures()
    assert len({s.id for s in sigs}) == len(sigs)
    sources = load("signatures")["meta"]["sources"]
    for s in sigs:
        assert s.source.startswith("http") or s.source in sources, s.id
        assert 0 < s.confidence <= 1
        assert s.examples, f"{s.id} has no example log line"


@pytest.mark.parametrize("sig", load_signatures(), ids=lambda s: s.id)
def test_examples_match_and_give_their_cause(sig):
    for ex in sig.examples:
        body = normalize(ex)
        assert any(g in body for g in GATE), f"example of {sig.id} would be skipped by the gate: {ex}"
        d = diagnose_lines([(1, ex)])
        if d.root.cause_id != sig.cause:
            # a line alone that fits two causes (diagnose_reasons): both are reported,
            # this signature's cause second, neither with confidence
            assert [c.cause_id for c in d.causes[:2]][1:] == [sig.cause], (sig.id, ex, d.root.signature)
            assert d.root.confidence <= UNDECIDED_CAP and d.causes[1].confidence <= UNDECIDED_CAP, (sig.id, ex)


def test_explanations_fill_their_fields_from_defaults_or_captures():
    for sig in load_signatures():
        for ex in sig.examples:
            d = diagnose_lines([(1, ex)])
            if d.root.signature == sig.id:
                assert "{" not in d.root.explanation and "{" not in d.root.fix, sig.id
