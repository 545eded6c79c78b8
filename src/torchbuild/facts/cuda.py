"""The CUDA toolkit, its headers and libraries, and cuDNN.

Where the facts come from (formats as the CUDA 13.0 toolkit, nvcc V13.0.88, writes them; older
toolkits' ``version.txt``):

* root: ``CUDA_HOME``, ``CUDA_PATH``, else ``nvcc`` on PATH (links resolved; a wrapper
  script's ``exec /path/to/nvcc`` followed), else ``/usr/local/cuda``, else the newest
  ``/usr/local/cuda-X.Y``;
* version: ``nvcc --version`` (``Cuda compilation tools, release 13.0, V13.0.88``), else
  ``version.json`` (``cuda.version``, major.minor only), ``version.txt`` (``CUDA Version
  10.2.89``), the ``nvidia_cuda_runtime-*.dist-info`` folder of a pip-wheel toolkit, or
  ``#define CUDA_VERSION 13000`` in ``cuda.h``;
* archs: ``nvcc --list-gpu-code`` (``sm_75`` ... one per line);
* headers/libraries: the toolkit's ``include``/``lib64`` (and ``targets/<arch>-linux``),
  then the ``nvidia/*/include`` and ``nvidia/*/lib`` folders of the ``nvidia-*`` wheels in
  the build interpreter's site-packages, then the system folders;
* cuDNN: ``CUDNN_MAJOR``/``CUDNN_MINOR``/``CUDNN_PATCHLEVEL`` in ``cudnn_version.h``
  (or Debian's ``cudnn_version_v9.h``).
"""

from __future__ import annotations

import glob
import json
import os
import platform
import re
from collections.abc import Mapping
from concurrent.futures import Executor

from ._util import first_match, read_text, run_version, which
from .model import CudaToolkit, Cudnn

__all__ = [
    "HEADERS",
    "LIBRARIES",
    "find_cuda_home",
    "torch_cuda_home",
    "parse_nvcc_version",
    "parse_gpu_codes",
    "probe_cuda",
    "probe_cudnn",
    "find_file",
]

#: Headers that torch's CUDA headers include or a PyTorch CUDA build needs.  Extensions:
#: torch 2.14.1's ``ATen/cuda/CUDAContextLight.h`` (pulled in by ``ATen/cuda/CUDAContext.h``)
#: includes ``cuda_runtime_api.h``, ``cusparse.h``, ``cublas_v2.h``, ``cublasLt.h`` and
#: ``cusolverDn.h`` (read from the installed ``torch==2.14.1`` wheel); the core build also
#: needs cuRAND, cuFFT, NVRTC and NVTX3.
HEADERS = [
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "cusparse.h",
    "cublas_v2.h",
    "cublasLt.h",
    "cusolverDn.h",
    "curand.h",
    "cufft.h",
    "nvrtc.h",
    "nvtx3/nvToolsExt.h",
]

#: Shared libraries looked for (name without ``.so``).
LIBRARIES = [
    "libcudart",
    "libcublas",
    "libcublasLt",
    "libcusparse",
    "libcusolver",
    "libcurand",
    "libcufft",
    "libnvrtc",
    "libnvToolsExt",
]


def parse_nvcc_version(text: str) -> tuple[str | None, str | None]:
    """(``"13.0"``, ``"13.0.88"``) from ``nvcc --version``; (None, None) when absent."""
    m = re.search(r"release (\d+)\.(\d+), V(\d+(?:\.\d+)+)", text)
    if not m:
        return None, None
    return f"{m.group(1)}.{m.group(2)}", m.group(3)


def parse_gpu_codes(text: str) -> list[str]:
    """The ``sm_XY`` values ``nvcc --list-gpu-code`` printed, in its order."""
    return re.findall(r"\bsm_\d+[a-z]?\b", text)


def _wrapper_target(path: str) -> str | None:
    """For a small shell script that ``exec``s another nvcc, the path it runs."""
    try:
        if os.path.getsize(path) > 4096:
            return None
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    m = re.search(rb"(/[^\s\"']+/bin/nvcc)\b", head)
    return m.group(1).decode() if m and os.path.isfile(m.group(1).decode()) else None


def looks_like_toolkit(home: str) -> bool:
    """True when ``home`` holds a CUDA toolkit (``include/cuda_runtime.h``, ``version.json``,
    ``version.txt`` or ``nvvm/``), not merely a ``bin/nvcc`` wrapper."""
    return (
        os.path.isfile(os.path.join(home, "include", "cuda_runtime.h"))
        or os.path.isfile(os.path.join(home, "version.json"))
        or os.path.isfile(os.path.join(home, "version.txt"))
        or os.path.isdir(os.path.join(home, "nvvm"))
    )


def find_cuda_home(env: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """(toolkit root, how it was found) or (None, None).

    ``how`` is ``"CUDA_HOME"``, ``"CUDA_PATH"``, ``"nvcc"`` (nvcc on PATH, links followed),
    ``"nvcc-wrapper"`` (a script on PATH that runs the real nvcc), ``"/usr/local/cuda"`` or
    ``"glob"`` (newest ``/usr/local/cuda-X.Y``).
    """
    env = os.environ if env is None else env
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(var):
            return env[var], var
    nvcc = which("nvcc")
    if nvcc:
        real = os.path.realpath(nvcc)
        target = _wrapper_target(real)
        if target:
            return os.path.dirname(os.path.dirname(os.path.realpath(target))), "nvcc-wrapper"
        home = os.path.dirname(os.path.dirname(real))
        if looks_like_toolkit(home):
            return home, "nvcc"
    if platform.system() == "Windows":  # pragma: no cover - not testable here
        homes = sorted(glob.glob("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v*.*"))
        return (homes[-1], "glob") if homes else (None, None)
    if os.path.isdir("/usr/local/cuda"):
        return "/usr/local/cuda", "/usr/local/cuda"
    homes = glob.glob("/usr/local/cuda-[0-9]*")

    def key(p: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", os.path.basename(p)))

    homes.sort(key=key)
    return (homes[-1], "glob") if homes else (None, None)


def torch_cuda_home(env: Mapping[str, str] | None = None) -> str | None:
    """The CUDA_HOME ``torch.utils.cpp_extension._find_cuda_home`` picks (torch 2.14.1 rule).

    ``CUDA_HOME`` or ``CUDA_PATH``; else ``dirname(dirname(shutil.which("nvcc")))`` with no
    link or wrapper resolution; else ``/usr/local/cuda`` when it exists.
    """
    env = os.environ if env is None else env
    home = env.get("CUDA_HOME") or env.get("CUDA_PATH")
    if home:
        return home
    nvcc = which("nvcc")
    if nvcc:
        return os.path.dirname(os.path.dirname(nvcc))
    return "/usr/local/cuda" if os.path.exists("/usr/local/cuda") else None


def _include_dirs(home: str) -> list[str]:
    dirs = [os.path.join(home, "include")]
    dirs += sorted(glob.glob(os.path.join(home, "targets", "*", "include")))
    return [d for d in dirs if os.path.isdir(d)]


def _lib_dirs(home: str) -> list[str]:
    dirs = [os.path.join(home, "lib64"), os.path.join(home, "lib")]
    dirs += sorted(glob.glob(os.path.join(home, "targets", "*", "lib")))
    return [d for d in dirs if os.path.isdir(d)]


def wheel_dirs(site_dirs: list[str], sub: str) -> list[str]:
    """``<site>/nvidia/*/<sub>`` folders (``include`` or ``lib``) of installed nvidia wheels."""
    out: list[str] = []
    for site in site_dirs:
        out += sorted(glob.glob(os.path.join(site, "nvidia", "*", sub)))
        out += sorted(glob.glob(os.path.join(site, "nvidia", "*", "*", sub)))  # nvidia/cu13/...
    return list(dict.fromkeys(out))  # unique, in order


def _system_include_dirs() -> list[str]:
    return [d for d in ["/usr/include", f"/usr/include/{platform.machine()}-linux-gnu"] if os.path.isdir(d)]


def _system_lib_dirs() -> list[str]:
    return [d for d in [f"/usr/lib/{platform.machine()}-linux-gnu", "/usr/lib64", "/usr/lib"] if os.path.isdir(d)]


def find_file(name: str, dirs: list[str]) -> str | None:
    """The first folder of ``dirs`` that holds ``name`` (a relative path), or None."""
    for d in dirs:
        if os.path.isfile(os.path.join(d, name)):
            return d
    return None


def _library_stems(folder: str) -> set[str]:
    """The library names a folder provides: ``libcublas`` for ``libcublas.so``,
    ``libcublas.so.13`` or ``libcublas.a``; empty when the folder cannot be listed."""
    stems: set[str] = set()
    try:
        names = os.listdir(folder)
    except OSError:
        return stems
    for e in names:
        i = e.find(".so")
        if i > 0:
            stems.add(e[:i])
        elif e.endswith(".a"):
            stems.add(e[:-2])
    return stems


def _find_lib(name: str, dirs: list[str], listing: dict[str, set[str]] | None = None) -> str | None:
    """The first folder of ``dirs`` holding ``name.so*`` or ``name.a``.  ``listing`` keeps
    each folder's library names across calls (``/usr/lib/<arch>`` holds thousands of
    files: it is read once and each lookup is then a set lookup)."""
    listing = {} if listing is None else listing
    for d in dirs:
        if d not in listing:
            listing[d] = _library_stems(d)
        if name in listing[d]:
            return d
    return None


def _version_without_nvcc(home: str) -> str | None:
    text = read_text(os.path.join(home, "version.json"))
    if text:
        try:
            v = json.loads(text).get("cuda", {}).get("version")
            if v:
                return ".".join(v.split(".")[:2])
        except (ValueError, AttributeError):
            pass
    v = first_match(r"CUDA Version (\d+\.\d+)", read_text(os.path.join(home, "version.txt")))
    if v:
        return v
    for d in sorted(glob.glob(os.path.join(home, "dist-info", "nvidia_cuda_runtime-*.dist-info"))):
        v = first_match(r"nvidia_cuda_runtime-(\d+\.\d+)", os.path.basename(d))
        if v:
            return v
    for inc in _include_dirs(home):
        n = first_match(r"#define\s+CUDA_VERSION\s+(\d+)", read_text(os.path.join(inc, "cuda.h")))
        if n:
            return f"{int(n) // 1000}.{(int(n) % 1000) // 10}"
    return None


def probe_cuda(
    site_dirs: list[str], env: Mapping[str, str] | None = None, pool: Executor | None = None
) -> CudaToolkit | None:
    """The toolkit a build will use, or None when there is no toolkit and no nvcc.

    :param site_dirs: the build interpreter's ``sys.path`` folders (for ``nvidia-*`` wheels).
    :param pool: runs ``nvcc --version`` and ``nvcc --list-gpu-code`` concurrently when given.
    """
    tk = probe_toolkit(env, pool)
    if tk is not None:
        complete_toolkit(tk, site_dirs, env)
    return tk


def probe_toolkit(env: Mapping[str, str] | None = None, pool: Executor | None = None) -> CudaToolkit | None:
    """The first half of :func:`probe_cuda`, which needs no interpreter: the toolkit's home,
    ``nvcc``, its version and GPU codes (no headers or libraries yet), or None."""
    env = os.environ if env is None else env
    home, found_by = find_cuda_home(env)
    nvcc_path_on_path = which("nvcc")
    nvcc = None
    if home and os.path.isfile(os.path.join(home, "bin", "nvcc")):
        nvcc = os.path.join(home, "bin", "nvcc")
    elif nvcc_path_on_path:
        nvcc = nvcc_path_on_path
    if home is None and nvcc is None:
        return None
    tk = CudaToolkit(home=home, nvcc=nvcc, found_by=found_by, nvcc_on_path=nvcc_path_on_path)
    if nvcc:
        if pool is not None:
            fut_codes = pool.submit(run_version, [nvcc, "--list-gpu-code"])
            out = run_version([nvcc, "--version"])
            codes = fut_codes.result()
        else:
            out = run_version([nvcc, "--version"])
            codes = run_version([nvcc, "--list-gpu-code"])
        if out is not None:
            tk.version, tk.full_version = parse_nvcc_version(out.text)
        if codes is not None and codes.returncode == 0:
            tk.gpu_codes = parse_gpu_codes(codes.stdout)
    if tk.version is None and home:
        tk.version = _version_without_nvcc(home)
    return tk


def complete_toolkit(tk: CudaToolkit, site_dirs: list[str], env: Mapping[str, str] | None = None) -> None:
    """The second half of :func:`probe_cuda`: fill ``tk.headers``, ``tk.libraries`` (folder
    of each, or None) from the toolkit, the ``nvidia-*`` wheels in ``site_dirs`` and the
    system folders, and what ``torch.utils.cpp_extension`` would take as CUDA home."""
    env = os.environ if env is None else env
    home = tk.home
    inc_dirs = (_include_dirs(home) if home else []) + wheel_dirs(site_dirs, "include") + _system_include_dirs()
    lib_dirs = (_lib_dirs(home) if home else []) + wheel_dirs(site_dirs, "lib") + _system_lib_dirs()
    tk.headers = {h: find_file(h, inc_dirs) for h in HEADERS}
    listing: dict[str, set[str]] = {}
    tk.libraries = {lib: _find_lib(lib, lib_dirs, listing) for lib in LIBRARIES}
    th = torch_cuda_home(env)
    tk.torch_cuda_home = th
    tk.torch_cuda_home_has_headers = os.path.isfile(os.path.join(th, "include", "cuda_runtime.h")) if th else None


def _parse_cudnn(text: str) -> str | None:
    parts = [first_match(rf"#define\s+CUDNN_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCHLEVEL")]
    return ".".join(parts) if all(parts) else None  # type: ignore[arg-type]


def probe_cudnn(home: str | None, site_dirs: list[str], env: Mapping[str, str] | None = None) -> Cudnn | None:
    """cuDNN from ``cudnn_version.h`` (``CUDNN_INCLUDE_DIR``, ``CUDNN_HOME``/``CUDNN_PATH``,
    the toolkit, the ``nvidia-cudnn-*`` wheel, the system include folders), or None."""
    env = os.environ if env is None else env
    dirs: list[str] = []
    if env.get("CUDNN_INCLUDE_DIR"):
        dirs.append(env["CUDNN_INCLUDE_DIR"])
    for var in ("CUDNN_HOME", "CUDNN_PATH", "CUDNN_ROOT"):
        if env.get(var):
            dirs.append(os.path.join(env[var], "include"))
    if home:
        dirs += _include_dirs(home)
    dirs += [d for d in wheel_dirs(site_dirs, "include") if "cudnn" in d] + _system_include_dirs()
    for d in dirs:
        for name in ("cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h"):
            text = read_text(os.path.join(d, name))
            if text:
                v = _parse_cudnn(text)
                if v:
                    near = os.path.join(os.path.dirname(d), "lib")
                    libdir: str | None = near
                    if not glob.glob(os.path.join(near, "libcudnn.so*")):
                        libdir = _find_lib("libcudnn", (_lib_dirs(home) if home else []) + _system_lib_dirs())
                    return Cudnn(version=v, include_dir=d, library_dir=libdir)
    return None
