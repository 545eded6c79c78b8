"""Checks of the CUDA toolkit: its presence, ``CUDA_HOME``, headers, the host compiler nvcc
accepts, and the arch list against nvcc and the GPUs."""

from __future__ import annotations

from ...facts.model import Compiler, CudaToolkit, Facts
from ...knowledge import compat
from ...knowledge.compat import sm, version_le, version_lt, vkey
from .base import (
    _HEADER_WHEEL,
    EXTENSION_CUDA_HEADERS,
    PYTORCH_CUDA_HEADERS,
    Finding,
    _gpu_cc,
    _host,
    _install,
    _unc_text,
    _uncertain,
    normalise_arch,
)


def _check_cuda(facts: Facts, out: list[Finding], kind: str | None, arches: list[str], wants_cuda: bool | None) -> None:
    tk = facts.cuda
    if tk is None or (tk.nvcc is None and not tk.version):
        out.append(
            Finding(
                "cuda_toolkit",
                "error",
                "A CUDA build was asked for, but no CUDA toolkit was found (no CUDA_HOME/CUDA_PATH, no nvcc "
                "on PATH, no /usr/local/cuda).",
                "install the CUDA toolkit that matches torch (e.g. CUDA 13.0) and export "
                "CUDA_HOME=/usr/local/cuda-13.0 PATH=/usr/local/cuda-13.0/bin:$PATH",
            )
        )
        return
    if tk.nvcc is None:
        out.append(
            Finding(
                "cuda_toolkit",
                "error",
                f"The CUDA toolkit at {tk.home} has no bin/nvcc.",
                f"install the compiler package of CUDA {tk.version} (nvcc) into {tk.home}",
            )
        )
    # torch.utils.cpp_extension's own CUDA_HOME rule
    if (
        kind == "extension"
        and tk.torch_cuda_home
        and tk.torch_cuda_home_has_headers is False
        and not facts.env.get("CUDA_HOME")
    ):
        out.append(
            Finding(
                "cuda_home",
                "warning",
                f"torch.utils.cpp_extension will take CUDA_HOME={tk.torch_cuda_home} (dirname of dirname of "
                f"nvcc on PATH, {tk.nvcc_on_path}), which has no include/cuda_runtime.h; the real toolkit is "
                f"{tk.home}. torchbuild's build sets CUDA_HOME itself; a plain pip build would fail.",
                f"export CUDA_HOME={tk.home}",
            )
        )
    # headers the build includes that the toolkit lacks
    needed = PYTORCH_CUDA_HEADERS if kind == "pytorch" else EXTENSION_CUDA_HEADERS
    if kind is not None and tk.headers:
        home = (tk.home or "").rstrip("/")
        missing_tk = [h for h in needed if not ((at := tk.headers.get(h)) and home and at.startswith(home))]
        elsewhere = {h: at for h in missing_tk if (at := tk.headers.get(h))}
        nowhere = [h for h in missing_tk if not tk.headers.get(h)]
        if nowhere:
            wheels = sorted({_HEADER_WHEEL.get(h, "?") for h in nowhere})
            who = "torch's CUDA headers include" if kind == "extension" else "the PyTorch CUDA build needs"
            out.append(
                Finding(
                    "cuda_headers",
                    "error",
                    f"The CUDA {tk.version} toolkit at {tk.home} lacks {', '.join(nowhere)}, which {who}, "
                    "and they are nowhere else on this machine: the compile would stop with "
                    f"'fatal error: {nowhere[0]}: No such file or directory'.",
                    f"{facts.python.executable or 'python'} -m pip install "
                    + " ".join(f"'{w}=={tk.version}.*'" if w.startswith("nvidia-cuda") else w for w in wheels)
                    + f" (their headers land in site-packages/nvidia/*/include), or install the toolkit's "
                    "library dev packages "
                    f"({_install(facts, 'cuda-libraries-dev-' + (tk.version or 'X.Y').replace('.', '-'))})",
                )
            )
        if elsewhere:
            dirs = sorted(set(elsewhere.values()))
            out.append(
                Finding(
                    "cuda_headers",
                    "warning",
                    f"The CUDA {tk.version} toolkit at {tk.home} lacks {', '.join(elsewhere)}; they are in "
                    f"{', '.join(dirs)} (nvidia-* wheels). torchbuild's build adds them to CPATH; a plain "
                    "pip build would fail with 'No such file or directory'.",
                    f"export CPATH={':'.join(dirs)}${{CPATH:+:$CPATH}}",
                )
            )
    # host compiler vs nvcc
    host = _host(facts)
    if tk.version and host is not None and host.version and host.kind in ("gcc", "clang"):
        lim = compat.host_compiler_limits(tk.version)
        if lim is None:
            out.append(
                Finding(
                    "host_compiler",
                    "note",
                    f"No host-compiler limits are known for CUDA {tk.version}; {host.kind} {host.version} "
                    "is not checked.",
                    None,
                )
            )
        else:
            _host_vs_limits(facts, out, tk, host, lim)
    # arch list vs nvcc
    support = _arch_support(tk)
    for a in arches:
        base = a.rstrip("af")
        if support is not None and not support.supports(base):
            out.append(
                Finding(
                    "arch_list",
                    "error",
                    f"TORCH_CUDA_ARCH_LIST has {a}, but nvcc {tk.version} compiles only for "
                    f"{support.describe()}: nvcc fatal   : Unsupported gpu architecture '{sm(a)}'.",
                    _arch_fix(base, tk),
                )
            )
    if not arches and kind == "extension" and not facts.gpus:
        out.append(
            Finding(
                "arch_list",
                "error",
                "No GPU is visible and no arch list was given: torch.utils.cpp_extension then builds an "
                "empty list and fails with 'IndexError: list index out of range' (pytorch/pytorch#137261).",
                'name the GPUs to build for: --arch 8.9 (or export TORCH_CUDA_ARCH_LIST="8.0;9.0")',
            )
        )
    elif not arches and kind == "pytorch" and not facts.gpus:
        out.append(
            Finding(
                "arch_list",
                "warning",
                "No GPU is visible and no arch list was given: PyTorch's CMake falls back to every common "
                "architecture, which makes the build much slower and the binaries much larger.",
                'name the GPUs to build for: --arch 8.9 (or export TORCH_CUDA_ARCH_LIST="8.0;9.0")',
            )
        )
    for gpu in facts.gpus:
        cc, _ = _gpu_cc(gpu)
        if (
            cc
            and arches
            and not any(
                a.rstrip("af") == cc or (vkey(a.rstrip("af"))[0] == vkey(cc)[0] and vkey(a.rstrip("af")) <= vkey(cc))
                for a in arches
            )
        ):
            out.append(
                Finding(
                    "arch_list",
                    "warning",
                    f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) is not covered by the arch list "
                    f"{';'.join(arch_list_text(arches))}: kernels would fail with 'no kernel image is "
                    "available for execution on the device'.",
                    f"add {cc}: --arch {';'.join(arch_list_text(arches) + [cc])}",
                )
            )


def arch_list_text(arches: list[str]) -> list[str]:
    """Normalised arch entries as written back into ``TORCH_CUDA_ARCH_LIST``."""
    return list(arches)


def _arch_support(tk: CudaToolkit) -> compat.ArchSupport | None:
    if tk.gpu_codes:
        ccs = sorted({a for a in (normalise_arch(c) for c in tk.gpu_codes) if a is not None}, key=vkey)
        return compat.ArchSupport(
            cuda=tk.version or "", oldest=ccs[0], newest=ccs[-1], archs=ccs, source="nvcc --list-gpu-code"
        )
    return compat.cuda_arch_support(tk.version) if tk.version else None


def _arch_fix(cc: str, tk: CudaToolkit | None) -> str:
    tks = compat.toolkits_supporting_arch(cc)
    if tks:
        newest = tks[-1]
        return (
            f"drop {cc} from the arch list, or build with a CUDA toolkit that supports {sm(cc)} "
            f"(newest in torchbuild's tables: CUDA {newest}) and export CUDA_HOME=/usr/local/cuda-{newest}"
        )
    return f"drop {cc} from the arch list"


def _host_vs_limits(facts: Facts, out: list[Finding], tk: CudaToolkit, host: Compiler, lim: compat.HostLimits) -> None:
    if host.version is None:  # the caller checks it
        return
    name = "GCC" if host.kind == "gcc" else "Clang"
    mx = lim.gcc_max if host.kind == "gcc" else lim.clang_max
    mx_ga = lim.gcc_max_ga if host.kind == "gcc" else lim.clang_max_ga
    mn = lim.gcc_min if host.kind == "gcc" else lim.clang_min
    if lim.ga_nvcc and tk.full_version == lim.ga_nvcc and mx_ga:
        mx, mx_ga = mx_ga, None  # this nvcc is the GA release: its stricter limit is certain
    where = f"{host.path}" + (f", from {host.from_env}" if host.from_env else "")
    if mx and not version_le(host.version, mx):
        sev = _uncertain("error", lim)
        major = vkey(mx)[0]
        pkg_v = mx if host.kind == "clang" else str(major)
        fix = (
            _install(facts, f"g++-{pkg_v}", f"gcc-toolset-{pkg_v}")
            + f" && export CC=gcc-{pkg_v} CXX=g++-{pkg_v} CUDAHOSTCXX=g++-{pkg_v}"
            if host.kind == "gcc"
            else _install(facts, f"clang-{pkg_v}")
            + f" && export CC=clang-{pkg_v} CXX=clang++-{pkg_v} CUDAHOSTCXX=clang++-{pkg_v}"
        )
        if host.kind == "gcc":
            text = f"'#error -- unsupported GNU version! gcc versions later than {mx} are not supported!'"
        else:
            text = "'#error -- unsupported clang version!'"
        out.append(
            Finding(
                "host_compiler",
                sev,
                f"nvcc {tk.version} accepts {name} up to {mx}, but the host compiler is {name} {host.version} "
                f"({where}): every .cu file would stop in crt/host_config.h with {text}"
                f"{_unc_text(sev != 'error')}.",
                fix + " (or, at your own risk, NVCC_APPEND_FLAGS=-allow-unsupported-compiler)",
            )
        )
        return
    if mx_ga and not version_le(host.version, mx_ga):
        out.append(
            Finding(
                "host_compiler",
                "warning",
                f"{name} {host.version} works with CUDA {tk.version} updates but not with its first release "
                f"(which accepts {name} up to {mx_ga}; {lim.note}).",
                f"check `nvcc --version`; on the first release use {name} {mx_ga}",
            )
        )
    if mn and version_lt(host.version, mn):
        out.append(
            Finding(
                "host_compiler",
                "warning",
                f"{name} {host.version} ({where}) is older than CUDA {tk.version} supports ({name} >= {mn}).",
                _install(facts, "g++") if host.kind == "gcc" else "install a newer clang",
            )
        )
