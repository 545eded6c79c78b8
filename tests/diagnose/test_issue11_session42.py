"""Issue 11, session 42: rows written from round A's dev logs (batches 583 and later), before its measurement.

* torch's "#error C++17 or later compatible compiler is required" pasted without its "to use PyTorch": the C++
  standard the extension compiles with is older than torch's headers need;
* nvcc's host_config.h refusing Intel's compiler (CUDA 10.2's list of ICC versions, CUDA 13.0's refusal of any ICC):
  a host compiler this CUDA does not support;
* pip's "[Errno 30] Read-only file system" (a read-only container): a location this user cannot write.

After round A's measurement, from its held-out misses (listed as such in the row's source): any program's
"[Errno 30] Read-only file system" (python -m venv in a container whose folder was not bound), less sure.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from support.wheels import make_wheel

from .conftest import assert_dev_log, diagnose_text, run_tool


def test_torch_cxx17_error_cut_before_its_end_is_a_standard_mismatch(tmp_path: Path):
    """csukuangfj/kaldifeat#80 (batch 585 dev): only "Error: C++17 or later compatible compiler is required" was
    pasted; the fix was the project's CMake switching to C++17.  The real g++ here, compiling torch's ATen.h (torch
    2.13) with -std=c++14, prints the whole message, which the older row reads; the cut line is read by the new one,
    no surer than the whole message."""
    import torch.utils.cpp_extension as cpp

    src = tmp_path / "x.cpp"
    src.write_text("#include <ATen/ATen.h>\n")
    p = run_tool(["g++", "-std=c++14", *[f"-I{d}" for d in cpp.include_paths()], "-c", str(src), "-o", "x.o"], tmp_path)
    assert p.returncode != 0 and "or later compatible compiler is required to use ATen" in p.stderr
    full = diagnose_text(p.stderr).root
    assert (full.cause_id, full.signature) == ("cxx_standard_mismatch", "cxx17-required")
    cut = diagnose_text("Error: C++17 or later compatible compiler is required").root
    assert (cut.cause_id, cut.signature) == ("cxx_standard_mismatch", "cxx17-required-cut")
    assert "C++17" in cut.explanation and cut.confidence <= full.confidence
    assert_dev_log("linux-kaldifeat-cmake-cxx17-required-torch21.log", 585, "cxx_standard_mismatch", 0.6)


def test_nvcc_refusing_intels_compiler_is_an_unsupported_host_compiler(tmp_path: Path):
    """GOMC-WSU/GOMC#170 (batch 589 dev): CUDA 10.2's host_config.h lists ICC 15.0-19.0 and refused ICC 19.1; the
    fix was a supported compiler.  The real nvcc here (CUDA 13.0), with __ICC defined, prints its own refusal of any
    ICC (host_config.h:103), read by a row of its own."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    # the line as this machine's nvcc printed it; the real nvcc prints it again where it is installed
    printed = (
        "/usr/local/cuda-13.0/include/crt/host_config.h:103:2: "
        "error: #error -- ICC is not supported as a host compiler!"
    )
    if Path(nvcc).exists():
        src = tmp_path / "k.cu"
        src.write_text("__global__ void k() {}\n")
        p = run_tool([nvcc, "-D__ICC=1910", "-c", str(src), "-o", "k.o"], tmp_path)
        assert p.returncode != 0 and "ICC is not supported as a host compiler" in p.stderr
        printed = p.stderr
    root = diagnose_text(printed).root
    assert (root.cause_id, root.signature) == ("host_compiler_unsupported", "nvcc-host-config-icc-refused")
    assert "ICC" in root.explanation
    d = assert_dev_log("build-gomc-nvcc-cuda102-unsupported-icc-19.1.log", 589, "host_compiler_unsupported", 0.9)
    assert "19.0" in d.root.explanation and "ICC" in d.root.explanation


def _read_only_sandbox() -> str | None:
    """The path of bubblewrap where it can mount the file system read-only here (scripts/setup-tests installs it),
    else None."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    probe = subprocess.run([bwrap, "--ro-bind", "/", "/", "true"], capture_output=True, check=False)
    return bwrap if probe.returncode == 0 else None


def _read_only(bwrap: str, tmp_path: Path) -> list[str]:
    """The command prefix that runs a program by bubblewrap with the whole file system read-only but for a new
    folder ``tmp_path/tmp`` (created), which is also its TMPDIR."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cmd = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", str(tmp), str(tmp)]
    return [*cmd, "--setenv", "TMPDIR", str(tmp)]


def test_pip_on_a_read_only_file_system_is_a_location_it_cannot_write(tmp_path: Path):
    """FCP-INDI/C-PAC#2023 (batch 590 dev): pip installing torch into ~/.local inside a read-only Singularity
    container; the fix installed into a writable folder.  The real pip here, run by bubblewrap with the whole file
    system mounted read-only (a writable TMPDIR only), prints the same line for its --prefix."""
    printed = "ERROR: Could not install packages due to an OSError: [Errno 30] Read-only file system: '/opt/t/lib'"
    bwrap = _read_only_sandbox()
    if bwrap:
        whl = make_wheel(tmp_path, "tiny", "1.0", [], "X = 1\n")
        pip = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--prefix", str(tmp_path / "t")]
        p = run_tool([*_read_only(bwrap, tmp_path), *pip, str(whl)])
        assert p.returncode != 0 and "[Errno 30] Read-only file system" in p.stderr
        printed = p.stderr
    root = diagnose_text(printed).root
    assert (root.cause_id, root.signature) == ("permission_denied", "pip-read-only-file-system")
    assert "read-only" in root.explanation and "writable" in root.fix
    assert_dev_log("pip-cpac-torch-install-readonly-singularity-local.log", 590, "permission_denied", 0.7)


def test_any_program_on_a_read_only_file_system_is_a_location_it_cannot_write(tmp_path: Path):
    """Lumi-supercomputer/LUMI-AI-Guide#46 (batch 590 held-out, seen at this session's measurement): python -m venv
    inside a Singularity image whose /scratch was not bound printed "Error: [Errno 30] Read-only file system: ...";
    binding the folder fixed it.  The real venv module here, run by bubblewrap on a read-only file system, prints the
    same line.  Less sure than pip's own line: one thread."""
    printed = "Error: [Errno 30] Read-only file system: '/scratch/project/h5-env'"
    bwrap = _read_only_sandbox()
    if bwrap:
        p = run_tool([*_read_only(bwrap, tmp_path), sys.executable, "-m", "venv", str(tmp_path / "env")])
        assert p.returncode != 0 and "[Errno 30] Read-only file system" in p.stdout + p.stderr
        printed = p.stdout + p.stderr
    root = diagnose_text(printed).root
    assert (root.cause_id, root.signature) == ("permission_denied", "read-only-file-system")
    assert root.confidence < 0.7 and "bind" in root.fix
