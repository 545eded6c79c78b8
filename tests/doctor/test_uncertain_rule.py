"""The one uncertainty rule: a row marked ``uncertain = true`` can make doctor warn, never fail.
It is written once (:func:`torchbuild.knowledge.compat.is_uncertain`, applied by
``decisions/doctor/base._uncertain``); the checks used to spell it out each in its own way
(``lim.uncertain``, ``c.get("uncertain")``, ``need is not None and need.uncertain``)."""

from __future__ import annotations

import re
from pathlib import Path

import torchbuild
from torchbuild.decisions.doctor.base import _uncertain
from torchbuild.knowledge.compat import Cited, HostLimits, is_uncertain, torch_release


def test_is_uncertain_reads_rows_answers_and_none():
    assert is_uncertain({"uncertain": True}) and not is_uncertain({"uncertain": False}) and not is_uncertain({})
    assert is_uncertain(Cited(uncertain=True)) and not is_uncertain(HostLimits(cuda="12.4"))
    assert not is_uncertain(None)


def test_an_error_from_an_uncertain_row_is_a_warning():
    assert _uncertain("error", {"min": "3.18", "uncertain": True}) == "warning"
    assert _uncertain("error", Cited(uncertain=True)) == "warning"
    assert _uncertain("error", {"min": "3.18"}) == "error" and _uncertain("error", None) == "error"
    assert _uncertain("note", {"uncertain": True}) == "note"  # never raised, only lowered
    assert _uncertain("error", torch_release("1.12").cmake) == "warning"  # a real uncertain row


def test_the_rule_is_written_once():
    """No check in decisions/ or knowledge/ reads the ``uncertain`` flag itself."""
    root = Path(torchbuild.__file__).parent
    direct = re.compile(r"""\.uncertain\b|\[["']uncertain["']\]|get\(["']uncertain["']""")
    found = [
        f"{f.relative_to(root)}:{n}: {line.strip()}"
        for folder in ("decisions", "knowledge")
        for f in sorted((root / folder).rglob("*.py"))
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if direct.search(line)
    ]
    assert len(found) == 1 and found[0].startswith("knowledge/compat.py:"), found  # is_uncertain itself
    assert found[0].endswith('return bool(row.get("uncertain", False))')
