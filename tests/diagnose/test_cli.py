"""`torchbuild diagnose` on bad and odd input: clear messages, right exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from torchbuild.cli import main

CLI = [sys.executable, "-m", "torchbuild", "diagnose"]


def _run(*args, **kw):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, **kw)


def test_missing_path_exit_2_one_line(tmp_path):
    r = _run(tmp_path / "missing.log")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and "does not exist" in r.stderr


def test_directory_exit_2(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 2 and "directory" in r.stderr and "Traceback" not in r.stderr


def test_empty_file_is_unknown_exit_0(tmp_path):
    p = tmp_path / "empty.log"
    p.write_bytes(b"")
    r = _run(p, "--json")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["causes"][0]["cause_id"] == "unknown" and doc["first_error"] is None
    assert doc["stats"]["lines"] == 0 and "The log is empty." in doc["notes"]


def test_binary_file_exit_2(tmp_path):
    p = tmp_path / "blob.bin"
    p.write_bytes(bytes(range(256)) * 4096)
    r = _run(p)
    assert r.returncode == 2 and "binary" in r.stderr and "Traceback" not in r.stderr


def test_json_and_human_output(tmp_path, capsys):
    p = tmp_path / "b.log"
    p.write_text("FAILED: x.o\nnvcc -c x.cu\nnvcc fatal   : Unsupported gpu architecture 'compute_70'\n")
    assert main(["diagnose", str(p), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["causes"][0]["cause_id"] == "cuda_arch_unsupported"
    assert doc["causes"][0]["line"] == 3
    assert main(["diagnose", str(p)]) == 0
    err = capsys.readouterr().err
    assert "cuda_arch_unsupported" in err and "command is on line 2" in err


def test_markup_in_log_text_is_printed_literally(tmp_path, capsys):
    p = tmp_path / "m.log"
    p.write_text("a.cpp:1:1: error: [bold]not markup[/bold]\n")
    main(["diagnose", str(p)])
    assert "[bold]not markup[/bold]" in capsys.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads VmHWM from /proc")
@pytest.mark.parametrize("size_mb", [256])
def test_one_huge_line_bounded_memory(tmp_path, size_mb):
    """A log made of one very long line: answered, memory bounded (2 GB: benchmarks/)."""
    p = tmp_path / "oneline.log"
    block = b"abcdefgh error " * 4096
    with open(p, "wb") as f:
        for _ in range((size_mb << 20) // len(block)):
            f.write(block)
    code = (
        "import json, re\n"
        "from torchbuild.actions.diagnose_log import diagnose_file\n"
        f"d = diagnose_file({str(p)!r})\n"
        "hwm = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
        "print(json.dumps([d.stats.lines, d.root.cause_id, hwm]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines, cause, rss_kib = json.loads(out.stdout)
    assert lines == 1
    assert rss_kib < 150 * 1024, rss_kib


def test_a_large_plain_log_is_searched_by_grep_started_before_the_diagnosis_code(tmp_path):
    """The CLI opens a log over FULL_SCAN_BYTES and starts GNU grep on it before importing the diagnosis code
    (``LogReader.prefetch``); the diagnosis uses that search (the note names the command), and the root error
    near the top is found with its line number.  Without GNU grep the note names no command."""
    from torchbuild.facts.logfile import FULL_SCAN_BYTES
    from torchbuild.facts.logfile.grep_hits import gnu_grep

    p = tmp_path / "big.log"
    noise = b"".join(b"[%d/90000] Building CXX object obj/K%d.cpp.o\n" % (i, i) for i in range(5000))
    with p.open("wb") as f:
        f.write(b"[1/90000] Building CXX object a.o\nFAILED: a.o\n/usr/bin/c++ -c a.cpp\n")
        f.write(b"cc1plus: fatal error: a.cpp: No such file or directory\n")
        while f.tell() <= FULL_SCAN_BYTES:
            f.write(noise)
        f.write(b"ninja: build stopped: subcommand failed.\n")
    r = _run(p, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["first_error"]["line"] == 4
    note = doc["notes"][0]
    assert note.startswith("Large or streamed log: examined the lines around each 'error'/'failed' line")
    if gnu_grep() is not None:
        assert f"(found by {gnu_grep()} -a -b -o -E -e rror -e ailed -e RROR -e AILED -- {p})" in note
    else:
        assert "found by" not in note
