"""The pre-check of a signature's patterns: a pattern runs only on a line that holds its required text.

:func:`required_text` reads Python's own parse of a pattern; a wrong answer would hide a match, so the knowledge
base's every pattern is run against every signature's real example line, and wherever it matches, the line must
hold the text the pre-check asks for.
"""

from __future__ import annotations

import re

import pytest

from torchbuild.decisions.diagnose.keyindex import _keys
from torchbuild.decisions.diagnose.matching import Scanner, _any_case_words
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


def test_the_scanner_tries_every_signature_that_can_match_a_line_in_priority_order():
    """The scanner looks a line up by its signatures' keys (the patterns' required texts, or the anchor), not by
    every anchor: on every example line, and on lines of the many-failure bench log that hold common words but
    no cause, it finds the same first signature as trying every signature in priority order."""
    sigs = load_signatures()
    scanner = Scanner(sigs)
    lines = sorted({e for s in sigs for e in s.examples}) + [
        "/src/pytorch/aten/src/ATen/native/cpu/K10.cpp:123:3: error: 'kernel_stub_10' was not declared in this scope",
        "FAILED: caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/cpu/Kernel10.cpp.o",
        "/usr/bin/c++ -I/src/pytorch/aten/src -O3 -fPIC -std=gnu++17 -c /src/pytorch/aten/src/ATen/native/cpu/K.cpp",
        "",
    ]
    assert len(lines) > 300
    for line in lines:
        brute = next((s.id for s in sigs if s.match(line) is not None), None)
        got = scanner._match_sigs(line)
        if "        " not in line and not _any_case_words().any_in(line):
            # the scanner's other two paths (terminal-wrapped lines, headers in any case) are not the index's
            assert (got[0].id if got else None) == brute, line
        elif brute is not None:
            assert got is not None, line


def test_a_signature_is_keyed_by_its_patterns_required_texts_only_when_each_is_at_least_its_anchor():
    """A row whose anchor is empty (it would be tried on every line) is keyed by its patterns' required texts; a
    row with a pattern that requires no text, or a shorter one than its anchor, keeps its anchor."""
    sigs = {s.id: s for s in load_signatures()}
    empty = [s for s in sigs.values() if not s.anchor and all(required_text(p) for p in s.patterns)]
    assert empty
    for s in empty:
        assert _keys(s) == tuple(dict.fromkeys(required_text(p) for p in s.patterns))
    for s in sigs.values():
        keys = _keys(s)
        if keys != (s.anchor,):
            assert all(len(k) >= max(len(s.anchor), 1) for k in keys), s.id
        else:  # a pattern's text is shorter than the anchor, or the texts are the anchor itself
            need = tuple(dict.fromkeys(required_text(p) for p in s.patterns))
            assert need == (s.anchor,) or any(len(n) < max(len(s.anchor), 1) for n in need), s.id
