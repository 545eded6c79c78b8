"""The streaming reader: encodings, redraws, compression, stdin, long lines."""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
import subprocess
import sys

import pytest

from torchbuild.facts.logfile import MAX_LINE_CHARS, LogFileError, LogLine, clean_line, open_log
from torchbuild.facts.logfile.grep_hits import gnu_grep


def _lines(path, **kw):
    with open_log(path, **kw) as r:
        return [(ln.number, ln.text) for ln in r.lines()], r


def test_crlf_ansi_redraws_and_bad_utf8(tmp_path):
    p = tmp_path / "a.log"
    p.write_bytes(b"one\r\n\x1b[01;31m\x1b[Kerror: \x1b[m\x1b[Kboom\r\n10%\r50%\r100%\r\n\xff\xfe bad\nlast")
    lines, r = _lines(p)
    assert lines == [(1, "one"), (2, "error: boom"), (3, "100%"), (4, "\ufffd\ufffd bad"), (5, "last")]
    assert r.line_count == 5 and r.bytes_read == p.stat().st_size


@pytest.mark.parametrize("kind", ["gzip", "xz", "bz2"])
def test_compressed_files_are_opened_transparently(tmp_path, kind):
    data = b"a\nnvcc fatal   : Unsupported gpu architecture 'compute_70'\n"
    comp = {"gzip": gzip.compress, "xz": lzma.compress, "bz2": bz2.compress}[kind]
    p = tmp_path / "a.log.bin"
    p.write_bytes(comp(data))
    lines, r = _lines(p)
    assert r.compression == kind
    assert lines[1][1].startswith("nvcc fatal")


@pytest.mark.skipif(shutil.which("zstd") is None, reason="no zstd program to make a .zst file")
def test_zstd(tmp_path):
    p = tmp_path / "a.log"
    p.write_bytes(b"x\nerror: y\n")
    subprocess.run(["zstd", "-q", str(p), "-o", str(tmp_path / "a.log.zst")], check=True)
    lines, r = _lines(tmp_path / "a.log.zst")
    assert r.compression == "zstd" and lines == [(1, "x"), (2, "error: y")]


def test_truncated_gzip_keeps_what_was_read(tmp_path):
    data = gzip.compress(b"error: first\n" * 1000)
    p = tmp_path / "t.gz"
    p.write_bytes(data[: len(data) // 2])
    lines, r = _lines(p)
    assert r.stream_error
    assert all(t == "error: first" for _, t in lines)


def test_stdin_dash():
    code = (
        "from torchbuild.facts.logfile import open_log\n"
        "r = open_log('-'); print(sum(1 for _ in r.lines()), r.line_count)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=b"a\nb\nc\n", capture_output=True, check=True)
    assert out.stdout.split() == [b"3", b"3"]


def test_long_line_is_capped_and_memory_bounded(tmp_path):
    p = tmp_path / "long.log"
    with open(p, "wb") as f:
        f.write(b"x" * (20 << 20))
        f.write(b"\nerror: after\n")
    lines, r = _lines(p, chunk_bytes=1 << 20)
    assert len(lines) == 2 and len(lines[0][1]) <= MAX_LINE_CHARS
    assert lines[1] == (2, "error: after")


def test_windows_equal_lines_around_triggers(tmp_path):
    rows = [f"line {i}" + (" error x" if i % 97 == 0 else "") for i in range(1, 5001)]
    p = tmp_path / "w.log"
    p.write_text("\n".join(rows) + "\n")
    hits = {i for i in range(1, 5001) if i % 97 == 0}
    want = sorted({j for h in hits for j in range(h - 3, h + 3) if 1 <= j <= 5000})
    for chunk in (512, 4096, 1 << 20):
        with open_log(p, chunk_bytes=chunk) as r:
            got = [ln.number for ln in r.windows([b"error"], before=3, after=2)]
            assert got == want
            assert r.line_count == 5000


def test_missing_and_directory(tmp_path):
    with pytest.raises(LogFileError, match="does not exist"):
        open_log(tmp_path / "nope.log")
    with pytest.raises(LogFileError, match="directory"):
        open_log(tmp_path)


def test_clean_line_keeps_last_visible_segment():
    assert clean_line(b"[1/9] a\r[2/9] b\x1b[K\r") == "[2/9] b"


def _reference_windows(path, triggers, before, after, tail=0, head=0):
    """Brute force: every line, kept when within before/after lines of a trigger line or among the first
    ``head`` or the last ``tail`` lines."""
    with open_log(path) as r:
        lines = list(r.lines())
        n = r.line_count
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        import gzip

        raw = gzip.decompress(raw)
    raw_lines = raw.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    hits = [i + 1 for i, ln in enumerate(raw_lines) if any(t in ln for t in triggers)]
    keep = {j for h in hits for j in range(h - before, h + after + 1) if 1 <= j <= n}
    keep |= set(range(max(1, n - tail + 1), n + 1)) if tail else set()
    keep |= set(range(1, min(head, n) + 1))
    return [ln for ln in lines if ln.number in keep], n


def random_log(tmp_path, seed):
    """A random log (gzip-compressed for one seed in 4) of progress lines, trigger lines, ``\\r`` redraws and
    lines of up to 5,000 bytes, and random windows: ``(path, before, after, tail, head)``."""
    import gzip
    import random

    rnd = random.Random(seed)
    parts = []
    for i in range(rnd.randint(50, 3000)):
        k = rnd.random()
        if k < 0.03:
            parts.append(f"src/f{i}.cpp:{i}:1: error: boom {i}")
        elif k < 0.05:
            parts.append(f"ninja: build stopped: subcommand failed {i}")
        elif k < 0.07:
            parts.append("\r".join(f"[{j}/9] progress" for j in range(rnd.randint(1, 4))))
        elif k < 0.08:
            parts.append("")
        elif k < 0.09:
            parts.append("x" * rnd.randint(100, 5000) + (" error in a long line" if rnd.random() < 0.5 else ""))
        else:
            parts.append(f"[{i}/3000] Building CXX object obj{i}.o" + ("\r" if rnd.random() < 0.05 else ""))
    text = "\n".join(parts)
    if rnd.random() < 0.5:
        text += "\n"
    data = text.encode()
    p = tmp_path / ("w.log.gz" if seed % 4 == 3 else "w.log")
    p.write_bytes(gzip.compress(data) if seed % 4 == 3 else data)
    before, after = rnd.choice([(40, 10), (3, 2), (0, 0), (1, 5)])
    tail = rnd.choice([0, 1, 7, 200])
    head = rnd.choice([0, 1, 30, 200])
    return p, before, after, tail, head


def check_random_windows(tmp_path, seed, grep):
    """Assert that the windows of :func:`random_log`'s log equal the brute-force reading at several chunk sizes."""
    p, before, after, tail, head = random_log(tmp_path, seed)
    want, n = _reference_windows(p, (b"rror", b"ailed"), before, after, tail, head)
    for chunk in (1024, 1500, 4096, 65536, 1 << 22):
        with open_log(p, chunk_bytes=chunk) as r:
            got = list(r.windows((b"rror", b"ailed"), before=before, after=after, head=head, tail=tail, grep=grep))
            assert r.line_count == n, chunk
        assert got == want, chunk


@pytest.mark.parametrize("grep", [False, None])
@pytest.mark.parametrize("seed", range(12))
def test_windows_match_brute_force_on_random_logs(tmp_path, seed, grep):
    """The lines around the triggers equal a brute-force reading, with Python's own search and with GNU grep's
    (grep=None, the default: plain files only; a line longer than a chunk hands the search back to Python)."""
    check_random_windows(tmp_path, seed, grep)


needs_gnu_grep = pytest.mark.skipif(gnu_grep() is None, reason="GNU grep is not on PATH")


def _noisy_log(path, hits_every=997, lines=60000):
    rows = []
    for i in range(1, lines + 1):
        if i % hits_every == 0:
            rows.append(
                f"src/k{i}.cu(12): error: boom {i}" if i % 2 else f"ninja: build stopped: subcommand failed {i}"
            )
        else:
            rows.append(f"[{i}/{lines}] Building CUDA object k{i}.cu.o -Wall (a.b) [x]* +? {{}} | ^ $ \\")
    path.write_text("\n".join(rows) + "\n")


@needs_gnu_grep
def test_grep_search_runs_beside_the_reader_and_gives_the_same_lines(tmp_path):
    """On a plain file the trigger lines are found by the real GNU grep (its command in ``scanner``), with the
    same lines as Python's search, also for triggers with regular-expression characters (matched as is)."""
    p = tmp_path / "big.log"
    _noisy_log(p)
    for triggers in ((b"rror", b"ailed"), (b"(a.b)", b"[x]*", b"{}", b"^ $")):
        with open_log(p, chunk_bytes=4096) as r:
            by_grep = list(r.windows(triggers, before=5, after=2))
            assert r.scanner is not None and r.scanner.split()[1:5] == ["-a", "-b", "-o", "-E"]
            assert r.line_count == 60000
        with open_log(p, chunk_bytes=4096) as r:
            by_python = list(r.windows(triggers, before=5, after=2, grep=False))
            assert r.scanner is None
        assert by_grep == by_python and by_grep, triggers
    with open_log(p) as r:
        got = list(r.windows((b"rror", b"ailed"), before=0, after=0))
    assert [ln.number for ln in got] == list(range(997, 60001, 997))


@needs_gnu_grep
def test_a_search_started_early_is_used_once_and_stopped_when_unused(tmp_path):
    """prefetch starts grep at once; windows with the same triggers uses it, with other triggers starts its own;
    a reader closed without reading stops it; a file at or below min_bytes, a compressed file and standard input
    start nothing."""
    p = tmp_path / "big.log"
    _noisy_log(p)
    with open_log(p) as r:
        r.prefetch((b"rror", b"ailed"))
        started = r._hits
        assert started is not None
        got = [ln.number for ln in r.windows((b"rror", b"ailed"), before=0, after=0)]
        assert got == list(range(997, 60001, 997)) and r.scanner == started.command
        assert started._proc.returncode is not None  # reaped
    with open_log(p) as r:
        r.prefetch((b"ailed",))
        first = r._hits
        got = [ln.number for ln in r.windows((b"rror",), before=0, after=0)]
        assert got == list(range(997, 60001, 1994)) and first._proc.returncode is not None
    r = open_log(p)
    r.prefetch((b"rror",))
    proc = r._hits._proc
    r.close()
    assert proc.returncode is not None and r._hits is None
    with open_log(p) as r:
        r.prefetch((b"rror",), min_bytes=p.stat().st_size)
        assert r._hits is None
    gz = tmp_path / "big.log.gz"
    gz.write_bytes(gzip.compress(p.read_bytes()))
    with open_log(gz) as r:
        r.prefetch((b"rror",))
        assert r._hits is None
        assert len(list(r.windows((b"rror",), before=0, after=0))) == 30 and r.scanner is None


@needs_gnu_grep
def test_when_grep_fails_the_reader_searches_the_rest_itself(tmp_path):
    """grep cannot open a file removed after the reader opened it (exit status 2): the reader, which still holds
    the file open, searches it itself and gives the same lines; the note names no grep."""
    p = tmp_path / "big.log"
    _noisy_log(p)
    with open_log(p) as r:
        want = list(r.windows((b"rror", b"ailed"), grep=False))
    r = open_log(p, chunk_bytes=4096)
    p.unlink()
    with r:
        got = list(r.windows((b"rror", b"ailed")))
        assert r.scanner is None and r.line_count == 60000
    assert got == want


@needs_gnu_grep
def test_grep_is_capped_in_memory(tmp_path, monkeypatch):
    """GNU grep holds a whole line in memory: with its address space capped below one huge line it fails
    ("memory exhausted", exit status 2) instead of growing, and GrepHits reports the failure."""
    from torchbuild.facts.logfile import grep_hits

    p = tmp_path / "one-line.log"
    p.write_bytes(b"x" * (96 << 20) + b" error at the end\n")
    monkeypatch.setattr(grep_hits, "GREP_MEMORY_BYTES", 48 << 20)
    hits = grep_hits.GrepHits(gnu_grep(), str(p), (b"rror",))
    try:
        assert hits.upto(p.stat().st_size + 1) is None and hits.failed
    finally:
        hits.close()


def test_grep_is_used_only_where_its_memory_can_be_capped(monkeypatch):
    """On Windows (os.name "nt") even a GNU grep on PATH (Git for Windows has one) is not used: the reader's own
    search serves, since the child's address space cannot be capped there."""
    from torchbuild.facts.logfile import grep_hits

    gnu_grep.cache_clear()
    monkeypatch.setattr(grep_hits.os, "name", "nt")
    try:
        assert grep_hits.gnu_grep() is None
    finally:
        gnu_grep.cache_clear()


_UTF16_TEXT = "building 'ext' extension\r\nC:\\x\\a.cpp(3): fatal error C1083: 错误 cuda_runtime.h\r\n" * 3000 + "done"


@pytest.mark.parametrize(
    ("encoding", "bom", "kind"),
    [("utf-16-le", b"\xff\xfe", "utf-16-le"), ("utf-16-be", b"\xfe\xff", "utf-16-be"), ("utf-16-le", b"", "utf-16-le")],
)
def test_a_utf16_log_is_read_as_utf8_text(tmp_path, encoding, bom, kind):
    """UTF-16 with a BOM (what Windows PowerShell 5.1's '>' writes: FF FE, then UTF-16LE) and without one (cmd /U)
    is recognised and read as UTF-8, with CJK text intact, line by line and in windows, at any chunk size; grep is
    not used on it (its offsets would be the file's UTF-16 bytes)."""
    p = tmp_path / "ps.log"
    p.write_bytes(bom + _UTF16_TEXT.encode(encoding))
    want = [LogLine(i + 1, t) for i, t in enumerate(_UTF16_TEXT.replace("\r\n", "\n").split("\n"))]
    for chunk in (1024, 4097, 1 << 22):
        with open_log(p, chunk_bytes=chunk) as r:
            assert r.encoding == kind
            assert list(r.lines()) == want
            assert not r.binary and r.line_count == len(want)
        with open_log(p, chunk_bytes=chunk) as r:
            got = list(r.windows([b"fatal"], before=1, after=0, tail=2))
            assert got == want and r.scanner is None


@pytest.mark.parametrize("kind", ["gzip", "xz", "bz2", "zstd"])
def test_a_compressed_utf16_log_is_read_as_utf8_text(tmp_path, kind):
    """A PowerShell log (UTF-16LE with a BOM) that was compressed (gzip, xz, bz2, or the real zstd program) is
    recognised after decompression and read as UTF-8 like the plain file, line by line and in windows."""
    raw = b"\xff\xfe" + _UTF16_TEXT.encode("utf-16-le")
    p = tmp_path / "ps.log.bin"
    if kind == "zstd":
        if shutil.which("zstd") is None:
            pytest.skip("no zstd program to make a .zst file")
        (tmp_path / "ps.log").write_bytes(raw)
        subprocess.run(["zstd", "-q", str(tmp_path / "ps.log"), "-o", str(p)], check=True)
    else:
        p.write_bytes({"gzip": gzip.compress, "xz": lzma.compress, "bz2": bz2.compress}[kind](raw))
    want = [LogLine(i + 1, t) for i, t in enumerate(_UTF16_TEXT.replace("\r\n", "\n").split("\n"))]
    with open_log(p, chunk_bytes=4097) as r:
        assert (r.compression, r.encoding) == (kind, "utf-16-le")
        assert list(r.lines()) == want and not r.binary
    with open_log(p) as r:
        assert list(r.windows([b"fatal"], before=1, after=0, tail=2)) == want


def test_a_compressed_utf8_log_keeps_its_bytes(tmp_path):
    """The first bytes taken to look for UTF-16 are put back: a compressed UTF-8 log reads as before, to its
    last byte, including one shorter than those 8 bytes."""
    for data, want in ((b"ab", ["ab"]), ("caf\u00e9 error: x\n".encode() * 3, ["caf\u00e9 error: x"] * 3)):
        p = tmp_path / "u.gz"
        p.write_bytes(gzip.compress(data))
        with open_log(p) as r:
            assert [t for _, t in r.lines()] == want
            assert r.encoding is None and r.bytes_read == len(data)


def test_utf16_is_told_apart_from_other_bytes():
    """utf16_kind: BOMs of both byte orders, BOM-less ASCII with NULs beside it, and what is not UTF-16 (plain
    ASCII, UTF-8 with its BOM, a UTF-32 BOM, binary data)."""
    from torchbuild.facts.logfile.streams import utf16_kind

    assert utf16_kind(b"\xff\xfeb\x00u\x00i\x00") == "utf-16-le"
    assert utf16_kind(b"\xfe\xff\x00b\x00u\x00i") == "utf-16-be"
    assert utf16_kind("err:".encode("utf-16-le")) == "utf-16-le"
    assert utf16_kind("err:".encode("utf-16-be")) == "utf-16-be"
    assert utf16_kind(b"error: x") is None
    assert utf16_kind(b"\xef\xbb\xbferror") is None
    assert utf16_kind(b"\xff\xfe\x00\x00e\x00\x00\x00") is None
    assert utf16_kind(b"\x7fELF\x02\x01\x01\x00") is None


def test_utf16_on_standard_input():
    """A UTF-16 log piped in ('-') is recognised from its first bytes like a file."""
    code = (
        "from torchbuild.facts.logfile import open_log\n"
        "r = open_log('-'); print(r.encoding, [l.text for l in r.lines()])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=b"\xff\xfe" + "a\r\nerror: 错误\r\n".encode("utf-16-le"),
        capture_output=True,
        check=True,
    )
    assert out.stdout.decode().strip() == "utf-16-le ['a', 'error: 错误']"


@pytest.mark.parametrize("grep", [False, None])
def test_windows_yield_the_first_and_last_lines_whatever_they_hold(tmp_path, grep):
    """A log without any trigger: only its first ``head`` and last ``tail`` lines come out, in order, at any
    chunk size; one trigger in the middle adds its window between them."""
    p = tmp_path / "h.log"
    p.write_text("".join(f"[{i}/9000] step {i}\n" for i in range(1, 9001)))
    for chunk in (1024, 4096, 1 << 22):
        with open_log(p, chunk_bytes=chunk) as r:
            got = [ln.number for ln in r.windows([b"rror"], before=2, after=1, head=5, tail=3, grep=grep)]
        assert got == [1, 2, 3, 4, 5, 8998, 8999, 9000]
    rows = [f"[{i}/9000] step {i}" + (" error" if i == 4500 else "") for i in range(1, 9001)]
    p.write_text("\n".join(rows) + "\n")
    with open_log(p, chunk_bytes=1024) as r:
        got = [ln.number for ln in r.windows([b"rror"], before=2, after=1, head=5, tail=3, grep=grep)]
    assert got == [1, 2, 3, 4, 5, 4498, 4499, 4500, 4501, 8998, 8999, 9000]
