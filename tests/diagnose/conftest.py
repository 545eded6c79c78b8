"""Helpers for the diagnose tests: diagnose a log given as text."""

from __future__ import annotations

import textwrap

import pytest

from torchbuild.decisions.diagnose import Diagnosis, diagnose_lines


def diagnose_text(text: str, *, all_failures: bool = False) -> Diagnosis:
    """Diagnose ``text`` (dedented), numbering lines from 1."""
    lines = textwrap.dedent(text).strip("\n").split("\n")
    return diagnose_lines(enumerate(lines, 1), all_failures=all_failures)


@pytest.fixture
def diag():
    return diagnose_text
