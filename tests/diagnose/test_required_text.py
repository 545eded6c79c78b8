"""The pre-check of a signature's patterns: a pattern runs only on a line that holds its required text.

:func:`required_text` reads Python's own parse of a pattern; a wrong answer would hide a match, so the knowledge
base's every pattern is run against every signature's real example line, and wherever it matches, the line must
hold the text the pre-check asks for.
"""

from __future__ import annotations

import re

import pytest

from torchbuild.decisions.diagnose.signatures import load_signatures, required_text


@pytest.mark.parametrize(
    ("pattern", "required"),
    [
        (r"nvcc fatal\s*: Unsupported gpu architecture '(?P<arch>\w+)'", ": Unsupported gpu architecture '"),
        (r"undefined reference to `(?:mkl_|cblas_)\w+", "undefined reference to `"),
        (r"['\"]torch\._C['\"]", "torch._C"),  # the escaped dot is a plain character
        (r"No module named ['\"]torch\._C['\"]", "No module named "),  # the longest run
        (r"libcudart\.so\.11\.0", "libcudart.so.11.0"),
        (r"abc|xyz", ""),  # an alternation at the top: no character is required
        (r"abc|abd", "ab"),  # ... but Python's parser takes a common prefix out of the branches
        (r"(?i)no space left", ""),  # case-insensitive as a whole
        (r"(?i:unsupported) gpu architecture", " gpu architecture"),  # only the group is case-insensitive
        (r"errors?: x", "error"),  # the "s" is optional
        (r"[Ee]rror: (?:x|y)", "rror: "),
        (r"(", ""),  # does not parse: no pre-check
    ],
)
def test_required_text(pattern, required):
    assert required_text(pattern) == required


def test_every_pattern_that_matches_an_example_line_finds_its_required_text_there():
    sigs = load_signatures()
    examples = sorted({e for s in sigs for e in s.examples})
    patterns = sorted({p for s in sigs for p in s.patterns})
    assert len(examples) > 300 and len(patterns) > 300
    matched = 0
    for p in patterns:
        need = required_text(p)
        rx = re.compile(p)
        for line in examples:
            if rx.search(line):
                matched += 1
                assert need in line, (p, need, line)
    assert matched >= len(examples)  # every example is matched by some pattern (its own signature's)


def test_the_pre_check_changes_no_match_of_a_signature_on_its_examples():
    """``Signature.search`` (with the pre-check) against a plain search of every pattern, on every example line."""
    sigs = load_signatures()
    examples = sorted({e for s in sigs for e in s.examples})
    for s in sigs:
        for line in examples:
            plain = next((m for p in s.patterns if (m := re.search(p, line))), None)
            assert (s.search(line) is not None) == (plain is not None), (s.id, line)
