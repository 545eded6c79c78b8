"""Fuzzing: random and mutated logs never crash the reader or the diagnoser."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from torchbuild.actions.diagnose_log import diagnose_file
from torchbuild.decisions.diagnose import diagnose_lines, load_signatures
from torchbuild.facts.logfile import LogFileError

_EXAMPLES = [ex for s in load_signatures() for ex in s.examples] + [
    "FAILED: a.o",
    "ninja: build stopped: subcommand failed.",
    "Traceback (most recent call last):",
    "CMake Error at CMakeLists.txt:1 (project):",
    "  error: subprocess-exited-with-error",
    "[3/9] c++ -c x.cpp",
    "make[2]: *** [x] Error 1",
    "",
    "   ",
    "\x1b[31merror\x1b[0m: x",
    "│ exit code: 1",
]

_line = st.one_of(st.sampled_from(_EXAMPLES), st.text(max_size=200))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, max_size=60), st.booleans())
def test_diagnoser_never_crashes(lines, all_failures):
    d = diagnose_lines(enumerate(lines, 1), all_failures=all_failures)
    assert d.causes and 0.0 <= d.root.confidence <= 1.0
    doc = d.to_json_dict()
    assert doc["causes"][0]["cause_id"]
    for c in d.causes:
        assert c.line is None or 1 <= c.line <= max(1, len(lines))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=4096), st.lists(st.tuples(st.integers(0, 4095), st.binary(max_size=8)), max_size=10))
@example(raw=b"", mutations=[(0, b"\xfe\xff")])  # a UTF-16 BOM in front: the whole file is read as UTF-16 text
def test_reader_and_file_diagnosis_never_crash(raw, mutations):
    text = "\n".join(_EXAMPLES[:40]).encode() + raw
    data = bytearray(text)
    for pos, ins in mutations:
        pos = min(pos, len(data))
        data[pos:pos] = ins
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "f.log"
        p.write_bytes(bytes(data))
        for full in (True, False):
            try:
                d = diagnose_file(p, full_scan=full)
            except LogFileError as exc:  # binary: a clear refusal, never a crash
                assert "binary" in str(exc)
                continue
            # every byte is read, or a note says why the (compressed) stream ended early, or that the file was
            # UTF-16 text, whose byte count is that of the text decoded (LogReader.bytes_read)
            assert d.stats.bytes == len(data) or any(
                "stream" in n or "decompress" in n or "UTF-16" in n for n in d.notes
            )
            assert d.causes
