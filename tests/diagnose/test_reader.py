"""The streaming reader: encodings, redraws, compression, stdin, long lines."""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
import subprocess
import sys

import pytest

from torchbuild.facts.logfile import MAX_LINE_CHARS, LogFileError, clean_line, open_log


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


def _reference_windows(path, triggers, before, after):
    """Brute force: every line, kept when within before/after lines of a trigger line."""
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
    return [ln for ln in lines if ln.number in keep], n


@pytest.mark.parametrize("seed", range(12))
def test_windows_match_brute_force_on_random_logs(tmp_path, seed):
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
    want, n = _reference_windows(p, (b"rror", b"ailed"), before, after)
    for chunk in (1024, 1500, 4096, 65536, 1 << 22):
        with open_log(p, chunk_bytes=chunk) as r:
            got = list(r.windows((b"rror", b"ailed"), before=before, after=after))
            assert r.line_count == n, chunk
        assert got == want, chunk
