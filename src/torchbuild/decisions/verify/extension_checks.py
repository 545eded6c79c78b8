"""The checks of an extension built against an installed torch, from what the collector
reported and the ELF facts of its compiled modules (pure: no I/O)."""

from __future__ import annotations

import os
import re
from typing import Any

from ..diagnose import UNKNOWN, diagnose_lines
from ..verify_causes import ExtensionInfo, explain_import_failure
from .model import Expectations, VerifyReport
from .torch_checks import arch_runs_on

_TORCH_LIB = re.compile(r"^lib(torch|c10|shm|caffe2)[A-Za-z0-9_]*\.so")


def ext_import_check(
    report: VerifyReport, data: dict[str, Any], module: str, installed: ExtensionInfo | None = None
) -> None:
    """The ``ext_import`` check (and the ``ext_file``/``ext_version`` facts) from the collector's
    ``data`` (:func:`torchbuild.facts.torch_runtime.collect`); a failed import is named
    with the diagnose knowledge (:func:`~torchbuild.decisions.verify_causes.explain_import_failure`),
    with the distribution facts of ``installed`` when given."""
    errors = data.get("errors", {})
    for key in ("ext_file", "ext_version"):
        if key in data:
            report.facts[key] = data[key]
    if not data.get("ext_import"):
        error = errors.get(f"import {module}", errors.get("collect", "unknown error"))
        f = explain_import_failure(
            error,
            installed or ExtensionInfo(module),
            torch_version=data.get("version"),
            torch_cuda=data.get("cuda"),
            torch_abi=data.get("cxx11_abi"),
        )
        report.add("ext_import", False, f.message, f.fix, cause_id=f.cause_id)
    else:
        report.add("ext_import", True, f"import {module} from {data.get('ext_file')}")


def ext_libtorch_check(
    report: VerifyReport, data: dict[str, Any], files: dict[str, dict[str, Any]], lib_dir: str | None
) -> None:
    """The ``ext_libtorch`` check: every ``libtorch*``/``libc10*`` that the extension's ``files``
    resolve (by ``ldd``) or that the process mapped is in the installed torch's ``lib_dir``."""
    # Which libtorch does it use?
    if lib_dir and files:
        real_lib = os.path.realpath(lib_dir)
        elsewhere = set()
        for info in files.values():
            for soname, resolved in info.get("ldd", {}).items():
                if resolved and _TORCH_LIB.match(soname) and os.path.dirname(os.path.realpath(resolved)) != real_lib:
                    elsewhere.add(resolved)
        mapped = [p for p in (data.get("mapped") or []) if _TORCH_LIB.match(os.path.basename(p))]
        report.facts["mapped_torch_libs"] = mapped
        elsewhere |= {p for p in mapped if os.path.dirname(os.path.realpath(p)) != real_lib}
        needed = sorted({n for info in files.values() for n in info.get("needed", []) if _TORCH_LIB.match(n)})
        report.add(
            "ext_libtorch",
            not elsewhere,
            (
                f"links {', '.join(needed) or 'no torch library'} from {lib_dir}"
                if not elsewhere
                else f"uses torch libraries outside the installed torch ({lib_dir}): {', '.join(sorted(elsewhere))}"
            ),
            "the extension's RPATH or LD_LIBRARY_PATH points at another torch: rebuild it against the torch of this "
            "Python and remove the other path.",
        )


def ext_cuda_abi_checks(
    report: VerifyReport,
    data: dict[str, Any],
    files: dict[str, dict[str, Any]],
    module: str,
    expect: Expectations | None,
) -> None:
    """The ``ext_cuda`` check (the extension's CUDA libraries against torch's CUDA, or against a
    CPU-only expectation) and the ``ext_abi`` check (``std::__cxx11`` symbols against a torch
    with ``_GLIBCXX_USE_CXX11_ABI=0``)."""
    # CUDA of the extension
    needed_all = {n for info in files.values() for n in info.get("needed", [])}
    cudart = sorted(n for n in needed_all if n.startswith("libcudart.so"))
    wants_cuda = bool(cudart) or any(n.startswith(("libc10_cuda", "libtorch_cuda")) for n in needed_all)
    report.facts["ext_cuda_libs"] = sorted(n for n in needed_all if "cuda" in n)
    if data.get("torch_import") and files:
        torch_cuda = data.get("cuda")
        problem = None
        if wants_cuda and torch_cuda is None:
            problem = f"{module} is built for CUDA ({', '.join(report.facts['ext_cuda_libs'])}) but torch is CPU-only"
        elif cudart and torch_cuda:
            majors = {n.split(".so.")[1].split(".")[0] for n in cudart if ".so." in n}
            if majors and majors != {torch_cuda.split(".")[0]}:
                problem = f"{module} links {', '.join(cudart)} but torch is built with CUDA {torch_cuda}"
        if expect and expect.cuda == "" and wants_cuda:
            problem = problem or f"{module} is built for CUDA, expected CPU-only"
        report.add(
            "ext_cuda",
            problem is None,
            problem
            or (f"built for CUDA ({', '.join(report.facts['ext_cuda_libs'])})" if wants_cuda else "CPU-only extension"),
            "rebuild the extension against this torch with the same CUDA toolkit major version (CUDA_HOME), "
            "or install the torch variant it was built for.",
            cause_id="torch_cpu_only" if torch_cuda is None else "cuda_version_mismatch",
        )
        torch_abi = data.get("cxx11_abi")
        cxx11 = sum(info.get("cxx11_symbols", 0) for info in files.values())
        report.facts["ext_cxx11_symbols"] = cxx11
        if torch_abi is False and cxx11:
            report.add(
                "ext_abi",
                False,
                f"{module} uses the C++11 ABI ({cxx11} std::__cxx11 symbols) but torch has _GLIBCXX_USE_CXX11_ABI=0",
                "rebuild the extension with -D_GLIBCXX_USE_CXX11_ABI=0 (torch.utils.cpp_extension adds it by itself).",
            )
        else:
            report.add(
                "ext_abi",
                True,
                f"C++ ABI consistent (torch _GLIBCXX_USE_CXX11_ABI={int(torch_abi) if torch_abi is not None else '?'})",
            )


def ext_gpu_arch_check(
    report: VerifyReport, data: dict[str, Any], files: dict[str, dict[str, Any]], module: str
) -> None:
    """One ``ext_gpu_arch`` check per visible GPU: every file of the extension that carries CUDA
    device code holds code this GPU can run.

    :param data: the collector's facts; ``data["gpus"]`` is ``[{"name": "NVIDIA H200", "capability": "9.0"}]``.
    :param files: ``{path: {..., "cuda_archs": {"sass": ["sm_80"], "ptx": ["sm_90"], "reason": str | None}}}``;
        a file without ``cuda_archs`` has no device code and is not judged.
    :param module: the extension's module name, for the messages.

    A cubin ``sm_80`` runs on 8.x GPUs of minor >= 0, PTX ``sm_90`` (``compute_90``) on 9.0 and
    newer (:func:`~torchbuild.decisions.verify.torch_checks.arch_runs_on`, after the CUDA C++
    Programming Guide's "Binary Compatibility"); a file whose arches could not be read (no
    ``cuobjdump``) is reported in the ``ext_cuda_archs_note`` fact instead of being judged.  A
    failure is ``no_kernel_image``: the launch of any of its kernels fails with CUDA's "no kernel
    image is available for execution on the device".
    """
    coded = {p: i["cuda_archs"] for p, i in files.items() if i.get("cuda_archs")}
    if not coded:
        return
    unread = {p: c["reason"] for p, c in coded.items() if not c["sass"] and not c["ptx"]}
    if unread:
        report.facts["ext_cuda_archs_note"] = unread
    readable = {p: c for p, c in coded.items() if p not in unread}
    report.facts["ext_cuda_archs"] = {
        os.path.basename(p): {"sass": c["sass"], "ptx": c["ptx"]} for p, c in readable.items()
    }
    if not readable:
        return
    # each file's code as nvcc names it: its cubins (sm_80) and its PTX (compute_90)
    flags = {p: c["sass"] + [a.replace("sm_", "compute_", 1) for a in c["ptx"]] for p, c in readable.items()}
    compiled = sorted(set().union(*flags.values()), key=lambda a: (int(re.sub(r"\D", "", a) or 0), a))
    for gpu in data.get("gpus") or []:
        cap = gpu["capability"]
        sm = "sm_" + cap.replace(".", "")
        lacking = [p for p, f in flags.items() if not arch_runs_on(f, cap)]
        report.add(
            "ext_gpu_arch",
            not lacking,
            (
                f"{gpu['name']} ({sm}) can run {module}'s device code ({', '.join(compiled)})"
                if not lacking
                else f"{gpu['name']} ({sm}) cannot run the device code of "
                f"{', '.join(os.path.basename(p) for p in lacking)}: it holds only {', '.join(compiled)}, "
                "so its kernels fail with 'no kernel image is available for execution on the device'"
            ),
            f"rebuild {module} with {cap} in the arch list: TORCH_CUDA_ARCH_LIST={cap} "
            f"(torchbuild build --arch {cap}), or add +PTX to an older arch so that the driver can compile it.",
            cause_id="no_kernel_image",
        )


def smoke_check(report: VerifyReport, data: dict[str, Any], module: str, exe: str) -> None:
    """The ``smoke`` check: the user's snippet ran after the import without raising.  A failure's
    exception text goes through the diagnose knowledge
    (:func:`~torchbuild.decisions.diagnose.diagnose_lines`): a named cause (CUDA's "no kernel
    image is available", an undefined symbol...) gives the check its ``cause_id`` and its fix."""
    errors = data.get("errors", {})
    ok = bool(data.get("smoke_ok"))
    fix = f"run the snippet by hand in {exe} to see the failure; rebuild {module} against this torch."
    cause_id = None
    error = errors.get("smoke", "")
    if not ok and error:
        root = diagnose_lines(enumerate(error.splitlines(), 1)).root
        if root.cause_id != UNKNOWN:
            cause_id, fix = root.cause_id, f"{root.explanation} Fix: {root.fix}"
    report.add(
        "smoke",
        ok,
        "smoke test passed" if ok else "smoke test failed: " + (error or "the import failed first"),
        fix,
        cause_id=cause_id,
    )
