"""Facts layer: the only code that looks at the machine and the source tree.

:func:`collect` runs the independent probes (OS and resources, Python, compilers, each
build tool, CUDA toolkit, GPUs and driver, installed torch, source tree) in a thread pool
and returns one :class:`~torchbuild.facts.model.Facts`.  It never imports torch and caches
nothing between calls.  Facts round-trip through JSON (``Facts.to_json``/``Facts.load``),
and :func:`torchbuild.facts.assume.apply_assumptions` overrides single facts.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .model import Facts

__all__ = ["collect", "ENV_VARS", "Facts"]

#: Environment variables recorded in :attr:`Facts.env` when set: they change what a build
#: does (``shared/reference/pytorch-build-facts.md`` §1, §5).
ENV_VARS = [
    "CC", "CXX", "CUDAHOSTCXX", "NVCC_CCBIN", "CUDA_HOME", "CUDA_PATH", "CUDNN_HOME", "CUDNN_PATH",
    "CUDNN_INCLUDE_DIR", "CUDNN_LIB_DIR", "TORCH_CUDA_ARCH_LIST", "MAX_JOBS", "CMAKE_BUILD_PARALLEL_LEVEL",
    "CPATH", "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "LD_LIBRARY_PATH", "CFLAGS", "CXXFLAGS",
    "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "TORCH_DONT_CHECK_COMPILER_ABI", "USE_CUDA", "FORCE_CUDA",
    "USE_NINJA", "CMAKE_GENERATOR", "PIP_NO_BUILD_ISOLATION", "CONDA_PREFIX", "VIRTUAL_ENV",
]


def collect(source: Path | None = None, *, python: str | None = None,
            build_dir: Path | None = None) -> Facts:
    """Probe this machine (and ``source``, when given) and return the facts.

    :param source: a source tree folder (must exist) or None for the machine alone.
    :param python: the interpreter the build will use (path or name on PATH); default
        ``sys.executable``.  Another interpreter is asked with one small subprocess.
    :param build_dir: where the build will write (free disk is measured at its nearest
        existing folder); default ``source/build``, else the current folder.
    :returns: :class:`Facts` with ``origin="probed"`` and ``probe_seconds`` (seconds).
    :raises torchbuild.facts.python.PythonProbeError: ``python`` cannot be run.

    Takes well under a second: every subprocess (``--version`` of each tool, ``nvcc``,
    ``git``) runs concurrently; nothing imports torch.
    """
    from . import compilers, cuda, gpu, python as py_probe, source as src_probe, system, tools
    from . import torch_install

    t0 = time.perf_counter()
    env = dict(os.environ)
    disk_at = build_dir or ((source / "build") if source is not None else None)
    with ThreadPoolExecutor(max_workers=12) as pool:
        f_os = pool.submit(system.os_info)
        f_res = pool.submit(system.resources, disk_at)
        f_py = pool.submit(py_probe.python_info, python)
        f_cc = pool.submit(compilers.find_compiler, "c", env)
        f_cxx = pool.submit(compilers.find_compiler, "cxx", env)
        f_host = pool.submit(compilers.find_cuda_host, env)
        f_gpu = pool.submit(gpu.probe_gpus)
        f_src = pool.submit(src_probe.probe_source, source) if source is not None else None
        py = f_py.result()
        scripts = [os.path.dirname(py.executable)] if py.executable else []
        f_tools = {name: pool.submit(tools.probe_tool, name, scripts) for name in tools.TOOLS}
        f_torch = pool.submit(torch_install.probe_torch, py.sys_path)
        tk = cuda.probe_cuda(py.sys_path, env, pool)
        cudnn = cuda.probe_cudnn(tk.home if tk else None, py.sys_path, env)
        driver, gpus = f_gpu.result()
        facts = Facts(
            os=f_os.result(),
            python=py,
            cc=f_cc.result(),
            cxx=f_cxx.result(),
            cuda_host=f_host.result(),
            tools={name: f.result() for name, f in f_tools.items()},
            cuda=tk,
            cudnn=cudnn,
            driver=driver,
            gpus=gpus,
            resources=f_res.result(),
            torch=f_torch.result(),
            source=f_src.result() if f_src is not None else None,
            env={k: env[k] for k in ENV_VARS if env.get(k)},
        )
    facts.origin = "probed"
    facts.probe_seconds = round(time.perf_counter() - t0, 4)
    return facts


def _main() -> None:  # pragma: no cover - debugging aid: python -m torchbuild.facts [SOURCE]
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    print(collect(src).to_json())


if __name__ == "__main__":  # pragma: no cover
    _main()
