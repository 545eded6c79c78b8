"""``verify --libtorch DIR|ZIP``: build and run a small C++ program against a libtorch.

The program is what PyTorch's "Installing C++ Distributions of PyTorch" tutorial (and
seed 000) does: a ``CMakeLists.txt`` with ``find_package(Torch REQUIRED)``, configured with
``-DCMAKE_PREFIX_PATH=<libtorch root>`` and built with Ninja; ``main.cpp`` adds two
tensors with ATen (``torch/torch.h`` would add the whole C++ frontend to compile, for
the same libraries), prints the sum and the libtorch version, and the run is checked.

A libtorch is a folder that holds ``share/cmake/Torch/TorchConfig.cmake`` (with ``lib/``
and ``include/`` beside it): the unpacked official zip (``libtorch/``), an installed torch
wheel's ``torch/`` package, or ``torchbuild package libtorch``'s archive.  A ``.zip`` is
unpacked into a temporary folder first.

On failure the step's output is diagnosed (:mod:`torchbuild.actions.diagnose_log`), and
the failures of the seeds get their own cause: ``Could not find a package configuration
file provided by "Torch"`` (``torch_cmake_config_not_found``: ``CMAKE_PREFIX_PATH`` does not
point at the folder holding ``share/cmake/Torch``), undefined ``std::__cxx11`` symbols
(``cxx_abi_mismatch``), a CUDA libtorch without a CUDA toolkit (``cuda_toolkit_not_found``),
``cannot open shared object file`` at run time (``shared_library_not_found``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..ui import echo_command

__all__ = ["CMAKELISTS", "MAIN_CPP", "LibtorchReport", "classify", "find_libtorch_root", "verify_libtorch"]

#: seconds one step (configure, build, run) may take: compiling against ATen on a busy 2-core
#: machine has been seen to need over 15 minutes.
STEP_TIMEOUT_S = 3600

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.18 FATAL_ERROR)
project(torchbuild_libtorch_check CXX)
find_package(Torch REQUIRED)
set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} ${TORCH_CXX_FLAGS} ${TORCHBUILD_EXTRA_CXX_FLAGS}")
add_executable(libtorch_check main.cpp)
target_link_libraries(libtorch_check "${TORCH_LIBRARIES}")
set_property(TARGET libtorch_check PROPERTY CXX_STANDARD 17)
message(STATUS "torchbuild: TORCH_LIBRARIES=${TORCH_LIBRARIES}")
message(STATUS "torchbuild: TORCH_CXX_FLAGS=${TORCH_CXX_FLAGS}")
"""

MAIN_CPP = """\
// ATen, not torch/torch.h: the same libraries and CMake config, less to compile (no C++ frontend).
#include <ATen/ATen.h>
#if __has_include(<torch/headeronly/version.h>)
#include <torch/headeronly/version.h>
#elif __has_include(<torch/version.h>)
#include <torch/version.h>
#endif
#ifndef TORCH_VERSION
#define TORCH_VERSION "unknown"
#endif
#include <iostream>

int main() {
  at::Tensor a = at::arange(1, 4, at::kDouble);
  at::Tensor b = at::ones({3}, at::kDouble);
  at::Tensor c = a + b;
  double sum = c.sum().item<double>();
  std::cout << "TORCHBUILD tensor " << c << std::endl;
  std::cout << "TORCHBUILD sum " << sum << std::endl;
  std::cout << "TORCHBUILD version " << TORCH_VERSION << std::endl;
  std::cout << "TORCHBUILD cuda_available " << (at::hasCUDA() ? 1 : 0) << std::endl;
  return sum == 9.0 ? 0 : 3;
}
"""

#: (cause id, pattern, explanation, fix) for the failures of a libtorch project.
_CAUSES: list[tuple[str, re.Pattern[str], str, str]] = [
    (
        "torch_cmake_config_not_found",
        re.compile(
            r'Could not find a package configuration file provided by\s+"Torch"'
            r'|Could not find a configuration file for package "Torch"'
        ),
        "CMake's find_package(Torch) found no TorchConfig.cmake: CMAKE_PREFIX_PATH does not name the folder that holds "
        "share/cmake/Torch (the libtorch root).",
        "-DCMAKE_PREFIX_PATH=<libtorch root> (the unpacked zip's libtorch/, or python -c 'import torch; "
        "print(torch.utils.cmake_prefix_path)' for a wheel).",
    ),
    (
        "cxx_abi_mismatch",
        re.compile(r"undefined reference to `[^']*(?:__cxx11|std::string|basic_string)[^']*'"),
        "the program and libtorch disagree on _GLIBCXX_USE_CXX11_ABI: symbols with std::__cxx11::basic_string "
        "(new ABI) or std::string (old ABI) do not match.",
        "use the libtorch of the matching ABI (cxx11-abi zip), or compile with the flag TORCH_CXX_FLAGS gives.",
    ),
    (
        "cuda_toolkit_not_found",
        # torch 2.14.1 share/cmake/Caffe2/public/cuda.cmake ("PyTorch: CUDA cannot be found"; "Caffe2: ..." before)
        # and Caffe2Config.cmake ("Your installed Caffe2 version uses CUDA but I cannot find the CUDA libraries")
        re.compile(
            r"CUDA_HOME environment variable is not set|Could NOT find CUDA|Failed to find nvcc|"
            r"CUDA_TOOLKIT_ROOT_DIR not found|"
            r"Could NOT find CUDAToolkit|(?:PyTorch|Caffe2): CUDA cannot be found|"
            r"uses CUDA but I cannot find the CUDA|No CMAKE_CUDA_COMPILER could be found"
        ),
        "this libtorch was built with CUDA and its CMake config looks for the CUDA toolkit, which was not found.",
        "install the CUDA toolkit of that libtorch and set CUDA_HOME (or -DCUDAToolkit_ROOT), or use a CPU libtorch.",
    ),
    (
        "shared_library_not_found",
        re.compile(r"error while loading shared libraries: (\S+): cannot open shared object file"),
        "the program cannot load a library at run time: not in its RUNPATH nor on LD_LIBRARY_PATH.",
        "keep libtorch's lib/ where the build found it (the program's RUNPATH points there), or set LD_LIBRARY_PATH.",
    ),
]


@dataclass
class LibtorchReport:
    """The result of :func:`verify_libtorch`.

    :ivar ok: configure, build and run all succeeded and the sum was 9.
    :ivar root: the libtorch root used as ``CMAKE_PREFIX_PATH``.
    :ivar steps: ``[{"step", "argv", "rc", "seconds", "log"}]`` in order.
    :ivar version: ``TORCH_VERSION`` the program printed; :ivar output: the program's stdout.
    :ivar cause: the cause id of a failure; :ivar explanation / fix / evidence: for a person.
    """

    ok: bool
    target: str
    root: str | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    version: str | None = None
    cuda_available: bool | None = None
    output: str = ""
    cause: str | None = None
    explanation: str | None = None
    fix: str | None = None
    evidence: list[str] = field(default_factory=list)
    workdir: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


def find_libtorch_root(path: Path) -> Path | None:
    """The folder under ``path`` (itself, ``libtorch/``, ``torch/``) that holds
    ``share/cmake/Torch/TorchConfig.cmake``; None when there is none within two levels."""
    for cand in (path, path / "libtorch", path / "torch"):
        if (cand / "share" / "cmake" / "Torch" / "TorchConfig.cmake").is_file():
            return cand
    for cfg in sorted(path.glob("*/*/share/cmake/Torch/TorchConfig.cmake")):
        return cfg.parents[3]
    return None


def classify(text: str) -> tuple[str, str, str, list[str]] | None:
    """(cause id, explanation, fix, evidence lines) of a failed step's output, or None."""
    for cause, pat, why, fix in _CAUSES:
        ev = [ln.strip() for ln in text.splitlines() if pat.search(ln)]
        if ev:
            return cause, why, fix, ev[:5]
    return None


def _run(argv: list[str], cwd: Path, log: Path, env: dict[str, str]) -> tuple[int, str, float]:
    """Run one step in its own process group (a timeout stops the compiler too, not only cmake);
    returns (exit code, output, seconds); 124 on timeout."""
    echo_command(argv, cwd=str(cwd))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=str(cwd), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=STEP_TIMEOUT_S)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        out = (out or "") + f"\ntorchbuild: stopped after {STEP_TIMEOUT_S} s\n"
        rc = 124
    log.write_text(out or "", encoding="utf-8")
    return rc, out or "", time.perf_counter() - t0


def verify_libtorch(
    target: str | os.PathLike[str],
    *,
    workdir: str | None = None,
    cmake_prefix_path: str | None = None,
    extra_cxx_flags: str | None = None,
    keep: bool = False,
) -> LibtorchReport:
    """Build and run the check program against the libtorch at ``target`` (folder or .zip).

    :param workdir: where the project is written (default: a new temporary folder, removed
        unless ``keep`` or the check failed).
    :param cmake_prefix_path: give CMake this instead of the found root (to reproduce a
        user's setting; a wrong one fails with ``torch_cmake_config_not_found``).
    :param extra_cxx_flags: compiler flags added after ``TORCH_CXX_FLAGS`` (a user's own flags,
        e.g. ``-D_GLIBCXX_USE_CXX11_ABI=0``, which fails with ``cxx_abi_mismatch``).
    :raises UsageError: ``target`` does not exist or is neither a folder nor a zip; cmake or
        ninja is not installed.
    """
    path = Path(target)
    if not path.exists():
        raise UsageError(f"--libtorch {path}: does not exist.", fix="give an unpacked libtorch folder or its .zip.")
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            raise UsageError(
                f"{tool} is not on PATH; the libtorch check builds with CMake and Ninja.", fix=f"pip install {tool}"
            )
    work = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="torchbuild-libtorch-"))
    work.mkdir(parents=True, exist_ok=True)
    report = LibtorchReport(ok=False, target=str(path), workdir=str(work))
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise UsageError(
                f"--libtorch {path}: not a folder nor a zip archive.", fix="give a libtorch folder or .zip."
            )
        unpack = work / "unpacked"
        echo_command(["unzip", "-q", str(path), "-d", str(unpack)])
        with zipfile.ZipFile(path) as zf:
            zf.extractall(unpack)
        _restore_modes(path, unpack)
        base = unpack
    else:
        base = path
    root = find_libtorch_root(base)
    report.root = str(root) if root else None
    prefix = cmake_prefix_path or str(root or base)
    src = work / "project"
    src.mkdir(exist_ok=True)
    (src / "CMakeLists.txt").write_text(CMAKELISTS, encoding="utf-8")
    (src / "main.cpp").write_text(MAIN_CPP, encoding="utf-8")
    bld = work / "build"
    env = dict(os.environ)
    steps = [
        (
            "configure",
            [
                "cmake",
                "-S",
                str(src),
                "-B",
                str(bld),
                "-G",
                "Ninja",
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DCMAKE_PREFIX_PATH={prefix}",
            ]
            + ([f"-DTORCHBUILD_EXTRA_CXX_FLAGS={extra_cxx_flags}"] if extra_cxx_flags else []),
        ),
        ("build", ["cmake", "--build", str(bld)]),
        ("run", [str(bld / "libtorch_check")]),
    ]
    for name, argv in steps:
        log = work / f"{name}.log"
        rc, out, secs = _run(argv, src if name != "run" else bld, log, env)
        report.steps.append({"step": name, "argv": argv, "rc": rc, "seconds": round(secs, 2), "log": str(log)})
        if name == "run":
            report.output = out
            m = re.search(r"TORCHBUILD version (\S+)", out)
            report.version = m.group(1) if m else None
            m = re.search(r"TORCHBUILD cuda_available (\d)", out)
            report.cuda_available = None if not m else m.group(1) == "1"
        if rc != 0:
            _explain(report, name, rc, out, log)
            return report
    report.ok = True
    if not keep and not workdir:
        shutil.rmtree(work, ignore_errors=True)
        report.workdir = None
    return report


def _restore_modes(zip_path: Path, dest: Path) -> None:
    """zipfile drops Unix permissions: give back the executable bits the archive recorded."""
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                with contextlib.suppress(OSError):
                    os.chmod(dest / info.filename, mode)


def _explain(report: LibtorchReport, step: str, rc: int, out: str, log: Path) -> None:
    found = classify(out)
    if found:
        report.cause, report.explanation, report.fix, report.evidence = found
        if report.cause == "torch_cmake_config_not_found" and report.root:
            report.fix = f"-DCMAKE_PREFIX_PATH={report.root} (the folder that holds share/cmake/Torch)."
        return
    if step == "run" and rc == 3:
        report.cause, report.explanation = (
            "unknown",
            f"the program ran but the tensor sum was wrong: {out.strip()[-300:]}",
        )
        return
    from .diagnose_log import diagnose_file

    d = diagnose_file(str(log)).to_json_dict()
    cause = (d.get("causes") or [{}])[0]
    report.cause = cause.get("cause_id") or "unknown"
    report.explanation = cause.get("explanation") or f"{step} failed with exit code {rc}"
    report.fix = cause.get("fix")
    report.evidence = [str(e.get("text", "")) for e in (cause.get("evidence") or [])][:5]
