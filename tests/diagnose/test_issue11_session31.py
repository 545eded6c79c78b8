"""Issue 11, session 31: how a log reaches the diagnoser (a large log's start and end, UTF-16, an interactive
interpreter's checkout) and the rows of the session.

Before this session a log over FULL_SCAN_BYTES was examined only around the lines that contain 'rror' or
'ailed' (the triggers).  Of the corpus's logs, 425 contain neither word (NumPy's "A module that was compiled
using NumPy 1.x cannot be run in NumPy 2.0.0", git's "fatal: not a git repository", "No module named ..."
printed without a traceback): placed after 300 lines of a build's output, 286 of the 2,773 logs lost the
cause diagnose names for them alone (measured at the session's start); placed before them, 301 of 2,950.  The
windowed scan now also examines the first HEAD_LINES and the last TAIL_LINES lines of the log.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from torchbuild.actions.diagnose_log import diagnose_file
from torchbuild.decisions.diagnose import HEAD_LINES, TAIL_LINES, TRIGGERS, Cause
from torchbuild.facts.logfile import FULL_SCAN_BYTES

from .conftest import CORPUS, ROWS, assert_dev_log, causes_of, corpus_lines, diagnose_text, run_tool, write_sdist
from .conftest import diagnose_list as diagnose_text_lines

#: Lines of a ninja build's output (progress and a compiler warning) placed before a real log: more than the
#: 40 lines of look-back of a window and fewer than TAIL_LINES of the real logs follow them.
_BUILD_OUTPUT = b"".join(
    b"[%d/6000] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/cpu/K%d.cpp.o\n"
    b"/src/pytorch/aten/src/ATen/native/cpu/K%d.cpp:77:12: warning: unused variable 'tmp' [-Wunused-variable]\n"
    % (i, i, i)
    for i in range(1, 151)
)


def _corpus_log(name: str) -> bytes:
    """Corpus log ``name``'s bytes, ending with a newline (so that build output can follow it)."""
    data = (CORPUS / name).read_bytes()
    return data if data.endswith(b"\n") else data + b"\n"


def _roots_alike(path) -> tuple[Cause, bool]:
    """The root cause of the log at ``path`` read line by line, and whether the windowed scan gives the same
    root (cause and confidence)."""
    full = diagnose_file(path, full_scan=True).root
    windowed = diagnose_file(path, full_scan=False).root
    return full, (full.cause_id, full.confidence) == (windowed.cause_id, windowed.confidence)


@pytest.mark.parametrize("where", ["after", "before"])
def test_every_corpus_log_without_a_trigger_is_diagnosed_alike_in_a_windowed_scan(tmp_path, where):
    """Each corpus log that contains no trigger, placed after 300 lines of build output (the failure last) or
    before them (the failure first, the build going on), gets the same root cause (and confidence) from the
    windowed scan as from the line-by-line one: the windowed scan reads the first HEAD_LINES and the last
    TAIL_LINES lines.  Every corpus log is shorter than both.  Only counts are printed (the corpus holds blind
    held-out logs during a measurement round)."""
    p = tmp_path / "x.log"
    checked = differ = longest = 0
    for name in sorted(ROWS):
        data = _corpus_log(name)
        longest = max(longest, data.count(b"\n"))
        if any(t in data for t in TRIGGERS):
            continue
        p.write_bytes(_BUILD_OUTPUT + data if where == "after" else data + _BUILD_OUTPUT)
        checked += 1
        differ += not _roots_alike(p)[1]
    assert longest < min(HEAD_LINES, TAIL_LINES)
    assert checked >= 300  # 348 of 2,954 logs hold none of the four triggers
    assert differ == 0, f"{differ} of {checked} logs without a trigger differ"


def test_upper_case_error_and_failed_lines_are_found_in_the_middle_of_a_large_log(tmp_path):
    """Each corpus log whose only trigger words are upper case (pip's "ERROR: ...", ninja's "FAILED: ..."), placed
    between two stretches of build output (neither the first nor the last lines of the log), gets the same root
    cause from the windowed scan as from the line-by-line one wherever that root's line is one of them.  With only
    'rror' and 'ailed' as triggers these lines were not searched for.  (A root line far from every trigger in the
    middle of a large log stays out of the windowed scan: runtime-nndetection-nms-none-nvcc-not-found.log's
    "nvcc: not found", 29 lines below its last "ERROR" line.)  Only counts are printed."""
    p = tmp_path / "x.log"
    checked = differ = 0
    for name in sorted(ROWS):
        data = _corpus_log(name)
        if b"rror" in data or b"ailed" in data or not (b"RROR" in data or b"AILED" in data):
            continue
        p.write_bytes(_BUILD_OUTPUT + data + _BUILD_OUTPUT)
        full, alike = _roots_alike(p)
        root_line = p.read_bytes().split(b"\n")[full.line - 1] if full.line else b""
        if not (b"RROR" in root_line or b"AILED" in root_line):
            continue
        checked += 1
        differ += not alike
    assert checked >= 40
    assert differ == 0, f"{differ} of {checked} logs differ"


def test_a_log_over_the_full_scan_size_that_ends_in_a_failure_without_a_trigger(tmp_path):
    """The CLI on a log over FULL_SCAN_BYTES: 33 MiB of a build's output, then the real NumPy 2 message and
    traceback of Cornell-RelaxML/qtip#25 (corpus log numpy2-qtip-setup.log, whose lines hold neither 'error'
    nor 'failed').  The windowed scan names numpy_abi_mismatch at the message's first line, and its note says
    that the last lines were examined."""
    real = (CORPUS / "numpy2-qtip-setup.log").read_bytes()
    assert not any(t in real for t in TRIGGERS)
    p = tmp_path / "big.log"
    with p.open("wb") as f:
        while f.tell() <= FULL_SCAN_BYTES:
            f.write(_BUILD_OUTPUT)
        before = f.tell()
        f.write(real)
    lines_before = before // len(_BUILD_OUTPUT) * _BUILD_OUTPUT.count(b"\n")
    r = subprocess.run(
        [sys.executable, "-m", "torchbuild", "diagnose", str(p), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    root = doc["causes"][0]
    assert root["cause_id"] == "numpy_abi_mismatch"
    assert root["line"] == lines_before + 1
    assert f"and the last {TAIL_LINES} lines" in doc["notes"][0]


def test_libstdcxx_refuses_a_compile_in_a_mode_older_than_cxx11(tmp_path):
    """The real g++ of this machine, made to compile ``#include <tuple>`` with -std=c++98, prints libstdc++'s
    own "#error This file requires compiler and library support for the ISO C++ 2011 standard": the C++ mode is
    too old (cxx_standard_mismatch).  With GCC 5's headers in the path (getkeops/keops#18, corpus dev log of
    batch 250), the rule for an old compiler puts compiler_too_old first: GCC 5 and older default to gnu++98
    (libstdc++'s manual)."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++ on PATH")
    src = tmp_path / "t.cpp"
    src.write_text("#include <tuple>\nint main() { return 0; }\n")
    out = run_tool([gxx, "-std=c++98", "-c", str(src), "-o", str(tmp_path / "t.o")])
    assert out.returncode != 0
    assert "requires compiler and library support for the ISO C++ 2011 standard" in out.stderr
    d = diagnose_text(out.stderr)
    assert d.root.cause_id == "cxx_standard_mismatch", causes_of(d)
    assert d.root.signature == "libstdcxx-cxx11-mode-required"
    d = assert_dev_log("build-pykeops-1.1.2-gcc5-cxx0x-warning-tensordot.log", 250, "compiler_too_old", 0.55)
    assert [c.cause_id for c in d.causes[:2]] == ["compiler_too_old", "cxx_standard_mismatch"]


def test_a_log_written_by_windows_powershell_is_diagnosed_like_its_utf8_text(tmp_path):
    """Windows PowerShell 5.1 writes ``python setup.py install > build.log`` as UTF-16LE with a BOM (Out-File's
    default encoding "Unicode", learn.microsoft.com); torchbuild called that file binary data and exited 2.  Every
    Windows dev log of the corpus (a name with "windows", "msvc" or "win"), written so (BOM, CRLF, UTF-16LE: the
    bytes PowerShell writes; no PowerShell runs here), gets the same causes as its UTF-8 text, and a note."""
    names = [
        n for n, r in sorted(ROWS.items()) if r["split"] == "dev" and any(w in n for w in ("windows", "msvc", "-win"))
    ]
    assert len(names) >= 100
    p = tmp_path / "build.log"
    for name in names:
        text = (CORPUS / name).read_bytes().decode("utf-8", "replace")
        p.write_bytes(b"\xff\xfe" + text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-16-le"))
        got = diagnose_file(p)
        want = diagnose_file(CORPUS / name)
        assert causes_of(got) == causes_of(want), name
        assert any("UTF-16-LE text (as Windows PowerShell 5.1" in n for n in got.notes), got.notes


def test_a_package_typed_into_python_inside_its_checkout_is_the_source_folder_in_the_way(tmp_path):
    """The real interpreter: ``demo_pkg`` installed in a site-packages folder (its compiled part stood in by a
    ``nnsearch.py``), and its checkout beside, without the built part.  ``python -c "import demo_pkg"`` started in the
    checkout imports the checkout's folder (the current folder comes first on sys.path) and fails with "No module
    named 'demo_pkg.nnsearch'": diagnose names import_from_source_dir (as for ShichenLiu/SoftRas#19 and
    NVIDIAGameWorks/kaolin#3), and the same command run from another folder imports the installed package.  A
    script run from the checkout (no interactive interpreter, HRNet's lib/nms of batch 227) stays unknown."""
    site = tmp_path / "venv" / "lib" / "site-packages" / "demo_pkg"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("import demo_pkg.nnsearch\n")
    (site / "nnsearch.py").write_text("")
    checkout = tmp_path / "demo" / "demo_pkg"
    checkout.mkdir(parents=True)
    (checkout / "__init__.py").write_text("import demo_pkg.nnsearch\n")
    env = {"PYTHONPATH": str(site.parent), "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-c", "import demo_pkg"]
    bad = subprocess.run(cmd, cwd=checkout.parent, env=env, capture_output=True, text=True, check=False)
    assert "No module named 'demo_pkg.nnsearch'" in bad.stderr and 'File "<string>"' in bad.stderr
    d = diagnose_text(bad.stderr)
    assert d.root.cause_id == "import_from_source_dir", causes_of(d)
    assert d.root.signature == "reason:import_from_source_dir"
    assert f"cd out of {checkout.parent}" in d.root.fix
    good = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert good.returncode == 0, good.stderr
    assert_dev_log("import-kaolin-nnsearch-module-not-found-from-source-root.log", 263, "import_from_source_dir", 0.55)
    assert_dev_log("import-hrnet-nms-cpu-nms-module-not-built.log", 227, "unknown", 0.0)


@pytest.mark.parametrize(
    ("name", "batch", "cause", "least"),
    [
        # torchaudio 2.6.0's torio/_extension/utils.py (checked in the wheel from PyPI): no FFmpeg 4-6 libraries
        (
            "runtime-comfystream-torchaudio-torio-failed-to-initialize-ffmpeg-extension-ffmpeg7.log",
            267,
            "shared_library_not_found",
            0.7,
        ),
        # k2's get_version.py: torch's CUDA against nvcc's
        ("build-k2-setup-py-assertion-pytorch-cuda-11-7-running-cuda-10-2.log", 267, "cuda_version_mismatch", 0.7),
    ],
)
def test_the_dev_logs_the_rows_were_written_from(name, batch, cause, least):
    """Each dev log of this session's batches that a row was written from names its cause."""
    assert_dev_log(name, batch, cause, least)


# ------------------------------------------------ rows from the held-out misses, read after the measurement


def test_a_torch_api_the_installed_torch_lacks(tmp_path):
    """The real torch of the test environment (2.13): code that calls torch.potrs (cornellius-gp/gpytorch#1013)
    or imports torch.nn.modules.linear._LinearWithBias (facebookresearch/TimeSformer#63) fails as torch prints
    it, and diagnose names torch_api_removed at an undecided confidence.  A core attribute every torch has
    (torch.dtype, datalab-to/marker#791: a broken install) and "(unknown location)" (a package folder without its
    files, microsoft/DirectML#648) are left to other rows."""
    pytest.importorskip("torch")
    for code, needle in [
        ("import torch; torch.potrs", "module 'torch' has no attribute 'potrs'"),
        (
            "from torch.nn.modules.linear import _LinearWithBias",
            "cannot import name '_LinearWithBias' from 'torch.nn.modules.linear'",
        ),
    ]:
        out = run_tool([sys.executable, "-c", code], cwd=tmp_path)
        assert out.returncode != 0 and needle in out.stderr, out.stderr[-500:]
        d = diagnose_text(out.stderr)
        assert d.root.cause_id == "torch_api_removed" and d.root.signature == "torch-api-missing", causes_of(d)
        assert d.root.confidence <= 0.6
    assert diagnose_text("AttributeError: module 'torch' has no attribute 'dtype'").root.cause_id == "unknown"
    d = diagnose_text("ImportError: cannot import name 'autocast' from 'torch.amp' (unknown location)")
    assert d.root.signature != "torch-api-missing"


def test_pip_quotes_the_reason_a_build_requirement_step_failed(tmp_path):
    """A real sdist whose setup.py asks this machine's pkg-config for a library that is not installed (as PyAV
    does for FFmpeg's, docker-library/python#871), built by the real pip in an isolated environment: pip's
    "Getting requirements to build wheel ... error" comes before the quoted pkg-config message, and diagnose
    names the missing system library from the quoted output, not a missing torch from pip's stage line."""
    pkgconfig = shutil.which("pkg-config")
    if pkgconfig is None:
        pytest.skip("no pkg-config on PATH")
    src = write_sdist(
        tmp_path / "needs_av",
        "import subprocess, sys\n"
        f"r = subprocess.run([{pkgconfig!r}, '--cflags', 'libtorchbuild_absent_av'])\n"
        "if r.returncode:\n"
        "    sys.exit('pkg-config could not find libtorchbuild_absent_av')\n"
        "from setuptools import setup\n"
        "setup(name='needs_av', version='0.1')\n",
    )
    out = run_tool([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "w"), str(src)])
    log = out.stdout + out.stderr
    if "Getting requirements to build wheel" not in log:
        pytest.skip(f"pip could not set up the isolated build here: {log[-300:]}")
    assert "Package libtorchbuild_absent_av was not found in the pkg-config search path" in log
    d = diagnose_text(log)
    assert d.root.cause_id == "system_library_missing", causes_of(d)
    assert d.root.signature == "pkg-config-package-not-found"


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("runtime-faceswap-tensorflow-cudnn-705-vs-compiled-721.log", "cudnn_unusable"),
        ("configure-nerf-slam-instant-ngp-tiny-cuda-nn-cuda-version-too-low.log", "cuda_toolkit_too_old"),
        ("runtime-nerfacc-no-cuda-toolkit-found-disabled.log", "cuda_toolkit_not_found"),
        ("dcnv2-fairmot-windows-pybind11-requires-msvc2015-update3.log", "compiler_too_old"),
        ("build-instant-ngp-cmake-no-known-features-for-cxx-compiler-stale-build.log", "stale_build_dir"),
        ("runtime-gpytorch-old-install-torch-potrs-removed.log", "torch_api_removed"),
        ("import-timesformer-linearwithbias-removed-from-torch.log", "torch_api_removed"),
        ("install-pyav-docker-python-image-libavformat-pkgconfig-missing.log", "system_library_missing"),
    ],
)
def test_the_read_held_out_misses_the_rows_were_written_from(name, cause):
    """Each held-out log of batches 240-267 that a row was written from after session 31's measurement names its
    cause now (these are seen logs: not evidence of carry-over)."""
    assert ROWS[name]["split"] == "holdout" and 240 <= ROWS[name]["batch"] <= 267
    d = diagnose_text_lines(corpus_lines(name))
    assert d.root.cause_id == cause, causes_of(d)
