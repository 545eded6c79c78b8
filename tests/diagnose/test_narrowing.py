"""Narrowed windows: a log with more failed steps than the diagnoser keeps (a ``ninja -k 0`` log).

Once ``Diagnoser.saturated`` (MAX_EVENTS error lines kept), ``diagnose_file`` examines only the lines near each
further trigger line and the last TAIL_LINES lines, in both ways of reading a log (line by line, and the windows of
a large log).  These tests check that the two filters yield exactly the lines they promise (against each other:
:class:`LineWindows` on str lines, :meth:`LogReader.windows` on bytes, with and without GNU grep), and that a
diagnosis of a log with 1000 failed steps is the one a whole reading gives, a cause that only comes after the bound
included, and says from which line it narrowed.
"""

from __future__ import annotations

import random

import pytest

from torchbuild.actions.diagnose_log import diagnose_file
from torchbuild.decisions.diagnose import MAX_EVENTS, NARROW_AFTER, NARROW_BEFORE, TAIL_LINES, Diagnoser
from torchbuild.facts.logfile import LineWindows, LogLine, WindowSize, open_log
from torchbuild.facts.logfile.grep_hits import gnu_grep

TRIGGERS = ("rror", "ailed")


def _random_log(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    words = [
        "[12/900] Building CXX object x.o",
        "  note: here",
        "warning: unused",
        "ld: error: oops",
        "FAILED: y.o",
        "",
    ]
    weights = [40, 20, 20, 3, 2, 5]
    return [f"{i} {rnd.choices(words, weights)[0]}" for i in range(1, n + 1)]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("before", "after", "tail"), [(3, 16, 200), (0, 0, 5), (40, 10, 0), (2, 1, 1)])
@pytest.mark.parametrize("grep", [False, True])
def test_line_windows_narrowed_from_the_start_yield_what_the_reader_windows_yield(
    tmp_path, seed, before, after, tail, grep
):
    """Two implementations of the same windows (str lines filtered late, bytes searched chunk by chunk with a
    tiny chunk so that windows cross chunk borders) give the same lines."""
    if grep and gnu_grep() is None:
        pytest.skip("GNU grep is not on PATH")
    text = _random_log(seed, 3000)
    p = tmp_path / "a.log"
    p.write_text("\n".join(text) + "\n")
    lw = LineWindows((LogLine(i, t) for i, t in enumerate(text, 1)), TRIGGERS, tail=tail)
    lw.narrow(before, after)
    mine = [(ln.number, ln.text) for ln in lw]
    with open_log(p, chunk_bytes=1024) as r:
        theirs = [
            (ln.number, ln.text)
            for ln in r.windows([t.encode() for t in TRIGGERS], before=before, after=after, tail=tail, grep=grep)
        ]
    assert mine == theirs
    assert lw.narrowed_at == 0
    assert len(mine) < len(text)  # the filter did filter


def test_line_windows_yield_every_line_until_narrowed_then_the_windows_and_the_tail():
    text = [f"line {i}" for i in range(1, 1001)]
    text[499] = "line 500 error: late"  # a trigger after the narrowing point
    lw = LineWindows((LogLine(i, t) for i, t in enumerate(text, 1)), TRIGGERS, tail=10)
    got = []
    for ln in lw:
        got.append(ln.number)
        if ln.number == 100:
            lw.narrow(2, 3)
    assert lw.narrowed_at == 100
    expected = [*range(1, 101), *range(101, 104), *range(498, 504), *range(991, 1001)]
    assert got == expected


def test_the_window_scan_reads_a_narrowed_window_from_the_next_chunk_on(tmp_path):
    """A consumer narrows the WindowSize it passed while it reads: the next chunks keep only the trigger lines
    (and the tail); the lines up to the narrowing kept their 40/10 windows."""
    lines = [f"step {i} error: x" if i % 100 == 0 else f"step {i} ok" for i in range(1, 5001)]
    p = tmp_path / "k0.log"
    p.write_text("\n".join(lines) + "\n")
    win = WindowSize(40, 10)
    got = []
    with open_log(p, chunk_bytes=4096) as r:
        for ln in r.windows([b"rror"], tail=3, window=win, grep=False):
            got.append(ln.number)
            if ln.number >= 1000 and win.before:
                win.before = win.after = 0
        assert r.line_count == 5000
    assert set(range(60, 111)) <= set(got)  # before narrowing: 40 before and 10 after step 100
    late = [n for n in got if 2000 <= n <= 4997]
    assert late == list(range(2000, 4998, 100))  # after: only the trigger lines
    assert got[-3:] == [4998, 4999, 5000]


def _k0_log(n_failed: int, other_at: int) -> str:
    """A ``ninja -k 0`` log of a PyTorch-like build: ``n_failed`` failed steps (each: FAILED: line, command, a
    compile error, a progress line), one of them (``other_at``) failing on CUDA's host-compiler check instead."""
    out = ["-- Build files have been written to: /src/pytorch/build"]
    for i in range(n_failed):
        out.append(f"[{2 * i + 1}/9000] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/k{i}.cpp.o")
        if i == other_at:
            out.append(f"FAILED: caffe2/CMakeFiles/torch_cuda.dir/k{i}.cu.o")
            out.append(f"/usr/local/cuda/bin/nvcc -ccbin=/usr/bin/gcc-13 -c /src/pytorch/k{i}.cu")
            out.append(
                "/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc "
                "versions later than 12 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used "
                "to override this version check"
            )
            continue
        out.append(f"FAILED: caffe2/CMakeFiles/torch_cpu.dir/k{i}.cpp.o")
        out.append(f"/usr/bin/c++ -I/src/pytorch/aten/src -O3 -fPIC -std=gnu++17 -c /src/pytorch/k{i}.cpp")
        out.append(f"/src/pytorch/k{i}.cpp:12:3: error: 'kernel_stub_{i}' was not declared in this scope")
        out.append(f"   12 |   kernel_stub_{i}(iter);")
        out.append("      |   ^~~~~~~~~~~~~")
    out.append("ninja: build stopped: cannot make progress due to previous errors.")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("full_scan", [True, False])
def test_a_k0_log_past_the_bound_gives_the_diagnosis_of_a_whole_reading(tmp_path, monkeypatch, full_scan):
    """1000 failed steps; step 900 fails on CUDA's host-compiler check, the only error a signature knows: it is
    found with the narrowed windows and named first, as when every line is read (``saturated`` patched off)."""
    p = tmp_path / "k0.log"
    p.write_text(_k0_log(1000, other_at=900))
    late_line = 1 + 900 * 6 + 4  # after the first line and 900 steps of 6 lines: the progress, FAILED:, nvcc, error

    d = diagnose_file(p, full_scan=full_scan, all_failures=True)
    assert (d.causes[0].cause_id, d.causes[0].line) == ("host_compiler_unsupported", late_line)
    assert d.stats.lines == p.read_text().count("\n")
    note = next(n for n in d.notes if "memory bound" in n and "were examined" in n)
    assert f"{MAX_EVENTS} error lines were kept by line" in note
    assert f"only the {NARROW_BEFORE} lines before and {NARROW_AFTER} after" in note
    assert f"the last {TAIL_LINES} lines" in note

    monkeypatch.setattr(Diagnoser, "saturated", property(lambda self: False))
    whole = diagnose_file(p, full_scan=full_scan, all_failures=True)
    assert not any("were examined" in n for n in whole.notes)
    assert [(c.cause_id, c.line, c.confidence) for c in whole.causes] == [
        (c.cause_id, c.line, c.confidence) for c in d.causes
    ]


def test_a_log_under_the_bound_is_read_whole(tmp_path):
    p = tmp_path / "k0.log"
    p.write_text(_k0_log(MAX_EVENTS // 2, other_at=150))
    d = diagnose_file(p, all_failures=True)
    assert not any("were examined" in n for n in d.notes)
    assert "host_compiler_unsupported" in [c.cause_id for c in d.causes]
