"""The checks of an installed torch, from what the collector reported (pure: no I/O).

Compatibility rules for compiled GPU code: CUDA C Programming Guide, "Binary
Compatibility" and "PTX Compatibility" (see :func:`arch_runs_on`)."""

from __future__ import annotations

import os
import re
from typing import Any

from ..torch_config import TorchConfig, parse_torch_config
from .model import Expectations, VerifyReport

#: Libraries that come with the NVIDIA driver, not with torch or a toolkit.
_DRIVER_LIBS = re.compile(r"^lib(cuda|nvidia-ml|nvidia-ptxjitcompiler)\.so")


def ldd_checks(report: VerifyReport, files: dict[str, dict[str, Any]], check_id: str, what: str) -> None:
    """One ``check_id`` check: every library of ``files`` (:func:`torchbuild.facts.elf.inspect_files`)
    resolves; a ``driver_libs`` note when only the NVIDIA driver's own libraries are missing."""
    missing: list[str] = []
    driver: set[str] = set()
    for f, info in files.items():
        for soname, resolved in info.get("ldd", {}).items():
            if resolved is None:
                if _DRIVER_LIBS.match(soname):
                    driver.add(soname)
                else:
                    missing.append(f"{os.path.basename(f)} needs {soname} => not found")
    if not files:
        report.add(
            check_id, False, f"no compiled modules found for {what}", "reinstall it: the package has no .so files."
        )
        return
    if missing:
        # only torch's own libraries missing (libtorch_cuda.so beside a CPU torch): built for another torch
        own = all(re.match(r"^lib(torch|c10|shm|caffe2)[A-Za-z0-9_]*\.so", m.split(" needs ", 1)[1]) for m in missing)
        report.add(
            check_id,
            False,
            f"{len(missing)} missing librar{'y' if len(missing) == 1 else 'ies'}: " + "; ".join(missing[:6]),
            "install what provides the missing library, or rebuild so that it links the libraries of the torch "
            "installed in this Python (same CUDA/CPU variant); an RPATH ($ORIGIN/...) or LD_LIBRARY_PATH "
            "must reach it.",
            cause_id="torch_extension_mismatch" if own and check_id == "ext_ldd" else None,
        )
    else:
        report.add(check_id, True, f"all libraries of {len(files)} compiled module(s) of {what} resolve")
    if driver:
        report.add(
            "driver_libs",
            True,
            f"{', '.join(sorted(driver))} (NVIDIA driver) not found: normal on a machine without the driver; "
            "CUDA will not be available here",
        )


def _public(version: str) -> str:
    return version.split("+", 1)[0]


def _major_minor(v: str) -> str:
    return ".".join(v.split(".")[:2])


def arch_runs_on(arch_flags: list[str], capability: str) -> bool:
    """Whether code compiled for ``arch_flags`` (``["sm_80", "compute_90"]``) runs on a GPU of
    ``capability`` (``"8.6"``).

    CUDA compatibility rules (CUDA C Programming Guide, "Binary Compatibility" and
    "PTX Compatibility"): a cubin ``sm_XY`` runs on ``X.Z`` with ``Z >= Y`` (same major);
    architecture-specific ``sm_XYa``/``sm_XYf`` only on ``X.Y`` exactly (``f``: same
    family, approximated as same major and ``Z >= Y``); PTX ``compute_XY`` is JIT-compiled
    for any capability ``>= X.Y``.
    """
    major, minor = (int(x) for x in capability.split(".")[:2])
    cap = major * 10 + minor
    for flag in arch_flags:
        m = re.fullmatch(r"(sm|compute)_(\d+)(\d)([af]?)", flag)
        if not m:
            continue
        kind, fmaj, fmin, suffix = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if kind == "compute" and not suffix and cap >= fmaj * 10 + fmin:
            return True
        if kind == "sm":
            if suffix == "a" and (fmaj, fmin) == (major, minor):
                return True
            if suffix != "a" and fmaj == major and minor >= fmin:
                return True
    return False


def import_fix(error: str) -> str:
    """The fix to show for an ``import`` that failed with ``error`` (the exception text)."""
    if "cannot open shared object file" in error:
        return (
            "a shared library torch needs is missing: install it (for CUDA builds: the matching nvidia-* "
            "wheels or toolkit) or add its directory to LD_LIBRARY_PATH; then run verify again."
        )
    if "undefined symbol" in error:
        return (
            "a library was built against a different torch/libstdc++ (ABI or version mismatch): rebuild it "
            "against the torch installed in this Python."
        )
    if "No module named" in error:
        return "install torch into this Python (or pass --python with the interpreter that has it)."
    return "reinstall or rebuild torch for this Python (`torchbuild build`), then run verify again."


def expect_checks(report: VerifyReport, data: dict[str, Any], cfg: TorchConfig | None, expect: Expectations) -> None:
    """The ``version``, ``cuda``, ``cxx11_abi``, ``build_type`` and ``arch_list`` checks, each when
    ``expect`` sets it, against the collector's ``data`` and the parsed ``torch.__config__.show()``."""
    version = data.get("version") or ""
    if expect.version is not None:
        exact = "+" in expect.version
        ok = version == expect.version if exact else _public(version) == _public(expect.version)
        report.add(
            "version",
            ok,
            f"torch {version}" + ("" if ok else f", expected {expect.version}"),
            f"install or build torch {expect.version} in this Python (another version is installed there).",
        )
    if expect.cuda is not None:
        cuda = data.get("cuda")
        if expect.cuda == "":
            ok = cuda is None
            msg = "CPU-only build, as expected" if ok else f"built with CUDA {cuda}, expected a CPU-only build"
            fix = "install the CPU wheel (index https://download.pytorch.org/whl/cpu) or build with USE_CUDA=0."
        else:
            ok = cuda is not None and _major_minor(cuda) == _major_minor(expect.cuda)
            msg = (
                f"built with CUDA {cuda}"
                if ok
                else f"built with {'CUDA ' + cuda if cuda else 'no CUDA (CPU-only)'}, expected CUDA {expect.cuda}"
            )
            tag = "cu" + expect.cuda.replace(".", "")
            fix = (
                f"install a torch built for CUDA {expect.cuda} (wheel index https://download.pytorch.org/whl/{tag}) "
                f"or rebuild with CUDA {expect.cuda} found (CUDA_HOME) and USE_CUDA=1."
            )
        report.add("cuda", ok, msg, fix)
    if expect.cxx11_abi is not None:
        abi = data.get("cxx11_abi")
        ok = abi is expect.cxx11_abi
        report.add(
            "cxx11_abi",
            ok,
            f"_GLIBCXX_USE_CXX11_ABI={int(abi) if abi is not None else 'unknown'}"
            + ("" if ok else f", expected {int(expect.cxx11_abi)}"),
            "rebuild torch (or the extension) with the same _GLIBCXX_USE_CXX11_ABI; torch >= 2.8 is CXX11 ABI only.",
        )
    if expect.build_type is not None:
        got = cfg.build_type if cfg else None
        ok = got is not None and got.lower() == expect.build_type.lower()
        report.add(
            "build_type",
            ok,
            f"BUILD_TYPE={got}" + ("" if ok else f", expected {expect.build_type}"),
            "the build was configured with another type; CMake keeps the first one in build/CMakeCache.txt: "
            "reconfigure (delete build/CMakeCache.txt or let `torchbuild build` do it) and rebuild.",
        )
    if expect.options and cfg is not None:
        shown = {k: cfg.flag(k) for k in expect.options if cfg.flag(k) is not None}
        wrong = {k: v for k, v in shown.items() if v != expect.options[k]}
        report.add(
            "options",
            not wrong,
            (
                f"{len(shown)} build settings agree with the plan ("
                + ", ".join(f"{k}={'ON' if v else 'OFF'}" for k, v in sorted(shown.items()))
                + ")"
            )
            if not wrong
            else "build settings differ from the plan: "
            + ", ".join(
                f"{k}={'ON' if v else 'OFF'} (plan: {'ON' if expect.options[k] else 'OFF'})"
                for k, v in sorted(wrong.items())
            ),
            "CMake keeps the first configuration in build/CMakeCache.txt: rebuild with torchbuild build "
            "(it reconfigures when the cache disagrees with the plan).",
        )
    if expect.arch_list is not None:
        flags = cfg.nvcc_arch_flags if cfg else []
        missing = []
        for entry in expect.arch_list:
            base, _, ptx = entry.partition("+")
            code = base.strip().replace(".", "")
            need = [f"sm_{code}"] + ([f"compute_{code}"] if ptx.upper() == "PTX" else [])
            if any(n not in flags for n in need):
                missing.append(entry)
        compiled = cfg.arch_list if cfg else []
        extra = [a for a in compiled if a.split("+")[0] not in {e.split("+")[0] for e in expect.arch_list}]
        ok = not missing
        msg = f"compiled arches {compiled or 'none'}"
        msg += f"; missing {missing}" if missing else ""
        msg += f"; also has {extra}" if extra and ok else ""
        report.add(
            "arch_list",
            ok,
            msg,
            f'rebuild with TORCH_CUDA_ARCH_LIST="{";".join(expect.arch_list)}" (a changed arch list needs a '
            "reconfigure: the first value stays in build/CMakeCache.txt).",
        )


def config_checks(report: VerifyReport, data: dict[str, Any]) -> TorchConfig | None:
    """The ``config`` check: ``torch.__config__.show()`` parses and agrees with ``torch.version``;
    returns the parsed config (None when it is missing or unreadable)."""
    text = data.get("config")
    if text is None:
        report.add(
            "config",
            False,
            "torch.__config__.show() failed: " + data["errors"].get("config", "no output"),
            "the torch build is incomplete: rebuild it.",
        )
        return None
    try:
        cfg = parse_torch_config(text)
    except ValueError as exc:
        report.add("config", False, f"torch.__config__.show() is not in the known format: {exc}", None)
        return None
    report.facts["config"] = cfg.to_dict()
    problems = []
    cuda = data.get("cuda")
    if cfg.use_cuda is not None and cfg.use_cuda != (cuda is not None):
        problems.append(f"USE_CUDA={cfg.setting('USE_CUDA')} but torch.version.cuda={cuda}")
    if cuda and cfg.cuda_runtime and _major_minor(cfg.cuda_runtime) != _major_minor(cuda):
        problems.append(f"CUDA_VERSION={cfg.cuda_runtime} but torch.version.cuda={cuda}")
    version = data.get("version") or ""
    if cfg.torch_version and not _public(version).startswith(cfg.torch_version):
        problems.append(f"TORCH_VERSION={cfg.torch_version} but torch.__version__={version}")
    git = data.get("git_version")
    if cfg.commit_sha and git and git != "Unknown" and cfg.commit_sha != git:
        problems.append(f"COMMIT_SHA={cfg.commit_sha[:12]} but torch.version.git_version={git[:12]}")
    summary = (
        f"{cfg.compiler_kind or '?'} {cfg.compiler_version or '?'}, C++ {cfg.cxx_version or '?'}, "
        f"BUILD_TYPE={cfg.build_type}, USE_CUDA={cfg.setting('USE_CUDA')}"
        + (f", CUDA {cfg.cuda_runtime}, arches {cfg.arch_list}" if cfg.cuda_runtime else "")
    )
    report.add(
        "config",
        not problems,
        ("torch.__config__.show(): " + summary)
        if not problems
        else "torch.__config__.show() disagrees with torch.version: " + "; ".join(problems),
        "the compiled library and the Python files come from different builds (a stale build/ or a mixed install): "
        "reinstall, or rebuild from a clean build/ directory.",
    )
    return cfg


def torch_checks(report: VerifyReport, data: dict[str, Any], expect: Expectations | None) -> None:
    """Checks on the torch of ``data`` (shared by both verify functions)."""
    errors = data.get("errors", {})
    if "collect" in errors:
        report.add("import", False, errors["collect"], "run the interpreter by hand to see why it fails.")
        return
    if not data.get("torch_import"):
        error = errors.get("import torch", "unknown error")
        from ..verify_causes import ExtensionInfo, explain_import_failure

        f = explain_import_failure(
            error, ExtensionInfo("torch", "torch"), torch_version=None, torch_cuda=None, torch_abi=None
        )
        report.add(
            "import",
            False,
            f"import torch failed: {error}",
            import_fix(error) if f.cause_id == "unknown" else f.fix,
            cause_id=f.cause_id,
        )
        return
    report.add("import", True, f"import torch {data.get('version')} from {data.get('torch_dir')}")
    cfg = config_checks(report, data)
    expect_checks(report, data, cfg, expect or Expectations())
    if data.get("cxx11_abi") is None:
        report.add(
            "cxx11_abi_known",
            False,
            "torch._C._GLIBCXX_USE_CXX11_ABI is missing: " + errors.get("cxx11_abi", "?"),
            "the torch._C extension is incomplete: rebuild torch.",
        )
    op = data.get("op")
    report.add(
        "op",
        op == [4.0, 6.0],
        f"torch.add([1, 2], [3, 4]) = {op}" if "op" in data else "the tensor op failed: " + errors.get("op", "?"),
        "the build imports but cannot compute: rebuild torch from a clean build/ directory.",
    )
    if data.get("cuda_available"):
        op_cuda = data.get("op_cuda")
        report.add(
            "op_cuda",
            op_cuda == [4.0, 5.0],
            f"a tensor op on the GPU = {op_cuda}"
            if "op_cuda" in data
            else "the GPU op failed: " + errors.get("op_cuda", "?"),
            "check the driver (nvidia-smi) and that the build's arch list covers this GPU.",
        )
        flags = cfg.nvcc_arch_flags if cfg else []
        for gpu in data.get("gpus") or []:
            ok = arch_runs_on(flags, gpu["capability"]) if flags else True
            report.add(
                "gpu_arch",
                ok,
                f"{gpu['name']} (sm_{gpu['capability'].replace('.', '')}) "
                + (
                    "is covered by the compiled arches"
                    if ok
                    else f"is not covered by the compiled arches {cfg.arch_list if cfg else []}"
                ),
                f"rebuild with TORCH_CUDA_ARCH_LIST including {gpu['capability']}.",
            )
    elif data.get("cuda"):
        report.facts["cuda_available_note"] = "built with CUDA, but CUDA is not available here (no GPU or no driver)"


def base_facts(report: VerifyReport, data: dict[str, Any]) -> None:
    """Copy the collector's facts about torch (version, CUDA, GPUs, op results...) into the report."""
    for key in (
        "python_version",
        "version",
        "cuda",
        "hip",
        "git_version",
        "debug",
        "cxx11_abi",
        "cuda_available",
        "gpus",
        "cuda_arch_list",
        "op",
        "op_cuda",
        "torch_dir",
        "errors",
    ):
        if key in data:
            report.facts[key] = data[key]
