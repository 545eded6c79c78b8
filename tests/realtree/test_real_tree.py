"""torchbuild on the real PyTorch 2.6.0 source (``../shared/sources``), unpacked once per session.

What runs for real here: torchbuild's archive and ``.dsc`` unpacking (``dpkg-source`` applies
Debian's patches), ``source check``, ``doctor`` with this machine's facts (Debian 12, CUDA 13.0's
nvcc, gcc 12, bookworm's -dev packages that ``scripts/setup-test-machine.sh`` installs), ``plan``,
and one real build: CMake's configure of the Debian tree to completion and the ``c10`` target
compiled (``--cmake-target c10``), with the workarounds applied.  The GPU server's view uses
facts recorded on it (tests/data/facts/h100_server.json) with a supported toolkit assumed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .conftest import run_cli

MINIMAL = [
    "--set",
    "USE_DISTRIBUTED=0",
    "--set",
    "USE_MKLDNN=0",
    "--set",
    "USE_FBGEMM=0",
    "--set",
    "USE_NNPACK=0",
    "--set",
    "USE_XNNPACK=0",
    "--set",
    "USE_KINETO=0",
]
FACTS = Path(__file__).resolve().parents[1] / "data" / "facts"


def _findings(stdout: str) -> list[dict]:
    return json.loads(stdout)["findings"]


def test_orig_tree_is_incomplete_and_says_what_is_missing(orig_tree):
    r = run_cli("source", "check", str(orig_tree), "--no-cuda", "--json")
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert rep["release"] == "2.6" and rep["git"] is False and rep["complete"] is False
    missing = {c["path"] for c in rep["components"] if c["state"] == "missing"}
    # the upstream archive has no submodules: pybind11, fmt, cpuinfo, sleef and pocketfft are among those CMake needs
    assert {
        "third_party/pybind11",
        "third_party/fmt",
        "third_party/cpuinfo",
        "third_party/sleef",
        "third_party/pocketfft",
    } <= missing
    off = {c["path"] for c in rep["components"] if c["state"] == "off"}
    assert {"third_party/cutlass", "third_party/nccl/nccl", "third_party/googletest"} <= off


def test_doctor_on_the_orig_tree_no_longer_reports_zero_errors(orig_tree):
    r = run_cli("doctor", str(orig_tree), "--no-cuda", "--json")
    assert r.returncode == 1
    subs = [f for f in _findings(r.stdout) if f["check"] == "submodules" and f["severity"] == "error"]
    assert len(subs) == 1
    msg, fix = subs[0]["message"], subs[0]["fix"]
    assert "third_party/pocketfft" in msg and "third_party/fmt" in msg
    assert "--system-libs" in fix and "--set USE_KINETO=0" in fix and "clone" in fix


def test_doctor_names_cuda_13_as_unsupported_by_2_6(orig_tree):
    if shutil.which("nvcc") is None:
        pytest.skip("no nvcc on PATH here (this machine's image has CUDA 13.0's nvcc)")
    r = run_cli("doctor", str(orig_tree), "--cuda", "--arch", "9.0", "--json")
    errs = [f for f in _findings(r.stdout) if f["check"] == "cuda_toolkit" and f["severity"] == "error"]
    assert errs, r.stdout[-3000:]
    assert "not a toolkit PyTorch 2.6 supports" in errs[0]["message"] and "11.8, 12.4" in errs[0]["message"]


def test_debian_tree_with_system_libs_is_complete_on_this_machine(debian_tree):
    r = run_cli("source", "check", str(debian_tree), "--no-cuda", "--system-libs", *MINIMAL, "--json")
    rep = json.loads(r.stdout)
    assert r.returncode == 0, [c for c in rep["components"] if c["state"] not in ("present", "system", "off")]
    states = {c["path"]: c["state"] for c in rep["components"]}
    assert states["third_party/pocketfft"] == "embedded"  # debian/pocketfft
    assert states["third_party/fmt"] == "unused"  # Debian's patch uses the system fmt
    assert states["third_party/cpuinfo"] == "worked-around"  # bookworm's libcpuinfo lacks the AMX queries
    assert states["third_party/pybind11"] == "system"


def test_doctor_with_recorded_h100_facts_and_supported_cuda(debian_tree, tmp_path):
    """Facts recorded on an H100 server (Ubuntu 24.04, CUDA 13.0), with CUDA 12.4 assumed (a toolkit
    2.6 supports) and this machine's real system-library probe added (the packages --system-libs
    needs, installed): no false alarm about components, no CUDA release error."""
    facts = json.loads((FACTS / "h100_server.json").read_text())
    probe = run_cli("doctor", str(debian_tree), "--no-cuda", "--system-libs", "--json")
    facts["system_libs"] = json.loads(probe.stdout)["facts"]["system_libs"]
    f = tmp_path / "h100_with_libs.json"
    f.write_text(json.dumps(facts))
    r = run_cli(
        "doctor",
        str(debian_tree),
        "--facts",
        str(f),
        "--assume",
        "cuda=12.4",
        "--system-libs",
        "--cuda",
        "--arch",
        "9.0",
        "--set",
        "USE_DISTRIBUTED=0",
        "--json",
    )
    found = _findings(r.stdout)
    assert not [x for x in found if x["check"] == "cuda_toolkit" and x["severity"] == "error"], found
    subs = [x for x in found if x["check"] == "submodules"]
    # every CPU-side component is accounted for (system packages, debian/ copies, Debian's patches);
    # what a CUDA build of Debian's CPU source package really lacks is named, and nothing else
    assert len(subs) == 1, subs
    named = subs[0]["message"].split(": ", 1)[1]
    assert sorted(p.split(" ")[0] for p in named.removesuffix(". CMake would stop at the first.").split(", ")) == [
        "third_party/NVTX",
        "third_party/cutlass",
        "third_party/nccl/nccl",
    ], named
    assert "apt-get install libnccl-dev" in subs[0]["fix"] and "--set USE_NCCL=0" in subs[0]["fix"]
    cpu = run_cli(
        "doctor",
        str(debian_tree),
        "--facts",
        str(f),
        "--assume",
        "cuda=12.4",
        "--system-libs",
        "--no-cuda",
        "--set",
        "USE_DISTRIBUTED=0",
        "--json",
    )
    assert not [x for x in _findings(cpu.stdout) if x["check"] == "submodules"]
    r13 = run_cli("doctor", str(debian_tree), "--facts", str(f), "--system-libs", "--cuda", "--json")
    assert [x for x in _findings(r13.stdout) if x["check"] == "cuda_toolkit" and "not a toolkit" in x["message"]]


def test_plan_system_libs_explain(debian_tree):
    r = run_cli("plan", str(debian_tree), "--profile", "minimal-cpu", "--system-libs", "--explain", "--no-cuda")
    assert r.returncode == 0, r.stderr
    out = r.stderr  # people's output goes to stderr
    assert "USE_SYSTEM_CPUINFO=ON" in out and "USE_SYSTEM_PYBIND11=ON" in out
    assert "old-libcpuinfo-amx: patch pytorch-2.6-old-libcpuinfo-amx.patch" in out
    assert "debian-install-rpath-origin" in out
    assert "turned off: USE_ITT=0" in out
    j = json.loads(
        run_cli("plan", str(debian_tree), "--profile", "minimal-cpu", "--system-libs", "--no-cuda", "--json").stdout
    )
    assert j["env"]["USE_SYSTEM_SLEEF"]["value"] == "ON" and j["env"]["USE_ITT"]["value"] == "0"
    assert {w["id"] for w in j["workarounds"]} >= {"old-libcpuinfo-amx", "debian-install-rpath-origin"}


@pytest.mark.slow
def test_configure_to_completion_and_build_c10(debian_tree):
    """The real 2.6.0 tree (Debian's source package) configured by CMake to the end and its c10
    target compiled with the system libraries: about 1 minute of configure and 100 s of compile
    on 2 cores.  The workarounds are applied for real and recorded; reverting them restores the
    files."""
    before = (debian_tree / "aten/src/ATen/cpu/Utils.cpp").read_text()
    r = run_cli(
        "build",
        str(debian_tree),
        "--profile",
        "minimal-cpu",
        "--system-libs",
        "--no-cuda",
        "--cmake-target",
        "c10",
        "--cache",
        "none",
        "--json",
        timeout=2400,
    )
    assert r.returncode == 0, r.stderr[-6000:]
    res = json.loads(r.stdout)
    assert (debian_tree / "build" / "CMakeCache.txt").is_file()
    assert (debian_tree / "build" / "build.ninja").is_file()  # configure ran to completion
    assert list((debian_tree / "build" / "lib").glob("libc10.so*"))  # the target was built
    rec = json.loads(Path(res["record"]).read_text())
    applied = {w["id"]: w["status"] for w in rec["workarounds"]}
    assert applied["old-libcpuinfo-amx"] == "applied" and applied["flatbuffers-regenerate"] == "applied"
    assert rec["plan"]["cmake_targets"] == ["c10"]
    patched = (debian_tree / "aten/src/ATen/cpu/Utils.cpp").read_text()
    assert "cpuinfo_has_x86_amx_fp16()" not in patched and "torchbuild workaround" in patched
    log = Path(res["log"]).read_text(errors="replace")
    assert "-- Configuring done" in log and "-- Build files have been written to" in log
    rv = run_cli("source", "revert-workarounds", str(debian_tree))
    assert rv.returncode == 0 and "old-libcpuinfo-amx" in rv.stdout
    assert (debian_tree / "aten/src/ATen/cpu/Utils.cpp").read_text() == before
