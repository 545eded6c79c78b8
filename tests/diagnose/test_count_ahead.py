"""Counting ahead of grep (issue 11, speed): while GNU grep searches a plain log, the reader counts the lines of the
chunks grep has not reached yet and reads their windows again once grep's offsets are in
(:meth:`torchbuild.facts.logfile.window_scan.WindowScan._replay`).  The lines must be exactly those of a reading
that waits for grep at every chunk, whatever grep has written when."""

from __future__ import annotations

import os
import random
import time

import pytest

from torchbuild.facts.logfile import LogFileError, LogReader, WindowSize, open_log
from torchbuild.facts.logfile.grep_hits import GrepHits, gnu_grep

from .test_reader import _noisy_log, check_random_windows

pytestmark = pytest.mark.skipif(gnu_grep() is None, reason="GNU grep is not on PATH")


def _grep_answers(monkeypatch, when):
    """Make ``GrepHits.ready_upto`` answer (with grep's real offsets, after waiting for them) only when ``when()``
    is true, and say it does not know yet otherwise; returns the list of answers it gave (True) or refused."""
    calls: list[bool] = []
    real = GrepHits.upto

    def ready_upto(self, stop):
        ok = when()
        calls.append(ok)
        return real(self, stop) if ok else None

    monkeypatch.setattr(GrepHits, "ready_upto", ready_upto)
    return calls


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("mode", ["never", "random"])
def test_windows_counted_ahead_equal_the_brute_force_reading(tmp_path, monkeypatch, seed, mode):
    """grep never ahead of the reader (every chunk after the first counted ahead and read again), or ahead at random
    chunks: the windows, the first and last lines and the line count equal the brute-force reading, at chunk sizes
    from 1 KiB (lines of 5,000 bytes then hand the search back to Python part-way) to 4 MiB."""
    rnd = random.Random(seed)
    calls = _grep_answers(monkeypatch, (lambda: False) if mode == "never" else (lambda: rnd.random() < 0.5))
    check_random_windows(tmp_path, seed, None)
    if seed % 4 != 3:  # a plain file (seed % 4 == 3 is gzip: no grep)
        assert calls and not all(calls)


def test_a_late_grep_costs_one_read_again_per_chunk_with_a_trigger(tmp_path, monkeypatch):
    """A 60,000-line log with a trigger line only near its top and near its end, grep never ahead: the two chunks
    that hold them are read again, the others only counted; the lines are those of Python's own search."""
    rows = [f"[{i}/60000] Building CXX object k{i}.o" for i in range(1, 60001)]
    rows[9] = "src/a.cpp:1:1: error: boom"
    rows[59990] = "ninja: build stopped: subcommand failed."
    p = tmp_path / "late.log"
    p.write_text("\n".join(rows) + "\n")
    _grep_answers(monkeypatch, lambda: False)
    reads: list[int] = []
    real_pread = type(open_log(p))._pread

    def counting_pread(self, view, offset):
        reads.append(offset)
        return real_pread(self, view, offset)

    monkeypatch.setattr(type(open_log(p)), "_pread", counting_pread)
    with open_log(p, chunk_bytes=65536) as r:
        got = list(r.windows((b"rror", b"ailed"), before=3, after=2, tail=2))
        assert r.scanner is not None and r.line_count == 60000
    with open_log(p, chunk_bytes=65536) as r:
        want = list(r.windows((b"rror", b"ailed"), before=3, after=2, tail=2, grep=False))
    assert got == want
    assert [ln.number for ln in got] == [7, 8, 9, 10, 11, 12, 59988, 59989, 59990, 59991, 59992, 59993, 59999, 60000]
    # every chunk but the last was counted ahead (about 38 of 64 KiB); only the two holding a trigger were read again
    assert len(reads) == 2 and reads[0] == 0 and p.stat().st_size > 30 * 65536


def test_a_window_narrowed_while_replayed_chunks_are_read_applies_from_the_next_chunk(tmp_path, monkeypatch):
    """The consumer narrows its WindowSize while it reads lines of chunks counted ahead: the chunks read again after
    that keep only the trigger lines, as when the reader waits for grep (test_narrowing)."""
    lines = [f"step {i} error: x" if i % 100 == 0 else f"step {i} ok" for i in range(1, 5001)]
    p = tmp_path / "k0.log"
    p.write_text("\n".join(lines) + "\n")
    _grep_answers(monkeypatch, lambda: False)
    win = WindowSize(40, 10)
    got = []
    with open_log(p, chunk_bytes=4096) as r:
        for ln in r.windows([b"rror"], tail=3, window=win):
            got.append(ln.number)
            if ln.number >= 1000 and win.before:
                win.before = win.after = 0
        assert r.line_count == 5000 and r.scanner is not None
    assert set(range(60, 111)) <= set(got)
    assert [n for n in got if 2000 <= n <= 4997] == list(range(2000, 4998, 100))
    assert got[-3:] == [4998, 4999, 5000]


def test_ready_upto_does_not_wait_for_grep(tmp_path):
    """The real grep reading a FIFO that has no data yet: ``ready_upto`` says it does not know (None) at once
    instead of blocking; once the data is written and the FIFO closed, it gives grep's offsets, as ``upto`` does."""
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    hits = GrepHits(gnu_grep(), str(fifo), (b"rror",))
    try:
        fd = os.open(fifo, os.O_WRONLY)  # grep has opened it for reading (open blocks until then)
        try:
            assert hits.ready_upto(10) is None
            os.write(fd, b"ok\nan error\nok\nerror again\n")
        finally:
            os.close(fd)
        assert hits.upto(10) == [7]  # the offset of the match itself
        deadline = time.monotonic() + 30
        answer = hits.ready_upto(1000)
        while answer is None and time.monotonic() < deadline:  # grep reaches the end of the FIFO and exits
            time.sleep(0.01)
            answer = hits.ready_upto(1000)
        assert answer == [16]
        assert hits.ready_upto(2000) == []
    finally:
        hits.close()


def test_a_real_grep_beside_the_reader_gives_the_same_lines_on_a_large_log(tmp_path):
    """Unpatched: the real grep and the reader race on a 6 MB log (whichever is ahead at each chunk), and the lines
    are those of Python's own search."""
    p = tmp_path / "big.log"
    _noisy_log(p, hits_every=4999, lines=60000)
    with open(p, "ab") as f:
        f.write(os.urandom(0) + b"".join(b"[%d/9] Building x.o\n" % i for i in range(200000)))
    with open_log(p, chunk_bytes=1 << 16) as r:
        by_grep = list(r.windows((b"rror", b"ailed"), before=5, after=2, tail=5))
        assert r.scanner is not None
    with open_log(p, chunk_bytes=1 << 16) as r:
        by_python = list(r.windows((b"rror", b"ailed"), before=5, after=2, tail=5, grep=False))
    assert by_grep == by_python and len(by_grep) > 50


def test_a_log_cut_while_it_is_read_is_a_clear_error(tmp_path, monkeypatch):
    """A chunk counted ahead that cannot be read again whole (the file was truncated under the reader) ends the
    reading with a LogFileError (a usage error, exit code 2) that says so, not with lines from another file."""
    p = tmp_path / "live.log"
    _noisy_log(p, hits_every=499, lines=20000)
    _grep_answers(monkeypatch, lambda: False)
    monkeypatch.setattr(LogReader, "_pread", lambda self, view, offset: 0)
    with open_log(p, chunk_bytes=1 << 14) as r, pytest.raises(LogFileError, match="became shorter"):
        list(r.windows((b"rror", b"ailed")))
