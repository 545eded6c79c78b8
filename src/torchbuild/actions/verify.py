"""Verify an installed torch, or an extension built against it, in a clean subprocess.

One subprocess per call: ``<python> -I -c <collector>`` (isolated mode: no
``PYTHONPATH``, no user site, no script directory on ``sys.path``) with its working
directory a fresh empty temporary directory, so a source tree can never shadow the
installed package.  It reports, as JSON: import result, ``torch.__version__``,
``torch.version.cuda``/``git_version``/``debug``, ``torch._C._GLIBCXX_USE_CXX11_ABI``,
``torch.__config__.show()``, CUDA availability and the visible GPUs' compute
capabilities, a small tensor op (``torch.add(tensor([1., 2.]), tensor([3., 4.]))``,
on the GPU too when one is available), the compiled modules (``torch/_C*.so``,
``torch/lib/*.so*``; for an extension every ``*.so`` of its package), the shared
libraries mapped into the process (``/proc/self/maps``) and, for an extension, the
result of an optional smoke snippet.

Then, in this process, each compiled module goes through the real ``ldd`` (any
``=> not found`` is a failed check, except the NVIDIA driver's own ``libcuda.so.1`` /
``libnvidia-ml.so.1``, which only a machine with the driver has: reported as a note) and
through ``pyelftools`` (``DT_NEEDED``, ``DT_RUNPATH``/``DT_RPATH``, whether undefined
symbols use the ``std::__cxx11`` ABI).  For an extension, ``ldd`` runs with the installed
torch's ``lib`` directory first on ``LD_LIBRARY_PATH``: ``import torch`` has already
loaded those libraries when the extension is imported, so the loader finds them by
soname, which a plain ``ldd`` cannot know (every extension built with
``torch.utils.cpp_extension`` has no RPATH to them).

Failed checks are reported, never raised; :class:`torchbuild.errors.UsageError` only for
a Python that does not exist or cannot run.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ..decisions.verify import (
    Check,
    Expectations,
    VerifyReport,
    arch_runs_on,
    base_facts,
    ext_cuda_abi_checks,
    ext_gpu_arch_check,
    ext_import_check,
    ext_libtorch_check,
    ldd_checks,
    smoke_check,
    torch_checks,
)
from ..decisions.verify_causes import ExtensionInfo
from ..errors import UsageError
from ..facts.elf import inspect_files
from ..facts.elf_deps import cuda_archs, find_cuobjdump, is_elf, read_elf
from ..facts.torch_runtime import collect, find_module_files, resolve_python

__all__ = ["Expectations", "Check", "VerifyReport", "verify_torch", "verify_extension", "arch_runs_on"]


def verify_torch(python: str, expect: Expectations | None = None) -> VerifyReport:
    """Verify the torch installed in ``python``.

    Checks (ids): ``import``; ``config`` (``torch.__config__.show()`` parses and agrees
    with ``torch.version``); ``version``, ``cuda``, ``cxx11_abi``, ``build_type``,
    ``arch_list`` when ``expect`` sets them; ``op`` (a small tensor op); ``op_cuda`` and
    one ``gpu_arch`` per visible GPU when CUDA is available; ``ldd`` over ``torch/_C*.so``
    and ``torch/lib/*.so*`` (plus a ``driver_libs`` note when only the driver's libraries
    are missing).

    :param python: interpreter path or name on PATH.
    :param expect: what the plan expects; None checks consistency only.
    :returns: the report; failed checks do not raise.
    :raises UsageError: ``python`` does not exist, is not executable or is not Python 3.
    """
    exe = resolve_python(python)
    data = collect(exe, "torch", "", None)
    report = VerifyReport(target="torch", python=exe)
    base_facts(report, data)
    torch_checks(report, data, expect)
    if data.get("torch_import"):
        files = inspect_files(data.get("torch_files") or [], None)
        report.facts["files"] = files
        ldd_checks(report, files, "ldd", "torch")
    return report


def _add_device_code(files: dict[str, dict[str, Any]]) -> None:
    """Add ``files[path]["cuda_archs"]`` = ``{"sass": ["sm_80"], "ptx": ["sm_90"], "reason": str | None}``
    to each ELF file of ``files`` that carries CUDA device code (``.nv_fatbin``), read with the
    real ``cuobjdump`` (:func:`torchbuild.facts.elf_deps.cuda_archs`); files without device code
    get nothing."""
    tool = find_cuobjdump()
    for path, info in files.items():
        if not is_elf(path):
            continue
        elf = read_elf(path)
        if elf.fatbin_bytes:
            ca = cuda_archs(elf, tool)
            info["cuda_archs"] = {"sass": ca.sass, "ptx": ca.ptx, "reason": ca.reason}


def _torch_lib_dir(data: dict[str, Any]) -> str | None:
    tdir = data.get("torch_dir")
    return os.path.join(tdir, "lib") if tdir else None


def verify_extension(
    python: str,
    module: str,
    *,
    expect: Expectations | None = None,
    smoke: str | None = None,
    installed: ExtensionInfo | None = None,
) -> VerifyReport:
    """Verify an extension ``module`` (``torch_scatter``, ``my_ext._C``) against the torch of ``python``.

    Checks (ids): the torch checks of :func:`verify_torch` except ``ldd`` on torch's own
    files; ``ext_import``; ``ext_ldd`` (``ldd`` of every ``.so`` of the module's package
    with torch's ``lib`` first on ``LD_LIBRARY_PATH``, see the module docstring);
    ``ext_libtorch`` (every ``libtorch*``/``libc10*`` the extension resolves, by ``ldd``
    and as mapped in the process after import, is in the installed torch's ``lib``);
    ``ext_cuda`` (an extension that needs ``libcudart``/``libc10_cuda``/``libtorch_cuda``
    against a CPU-only torch, or a ``libcudart.so.N`` whose N differs from
    ``torch.version.cuda``'s major); ``ext_abi`` (undefined symbols using ``std::__cxx11``
    against a torch with ``_GLIBCXX_USE_CXX11_ABI=0``); ``ext_gpu_arch``, one per visible GPU,
    when CUDA is available (the device code of each compiled module, read with ``cuobjdump``,
    runs on that GPU's compute capability); ``smoke`` when given (a failure is named with the
    diagnose knowledge).

    :param python: interpreter path or name on PATH.
    :param module: importable module name.
    :param expect: plan expectations (checked on torch, and ``cuda`` also on the extension).
    :param smoke: Python code run after the import with ``torch`` and the module's top-level
        package in its namespace; it fails the ``smoke`` check by raising (e.g. ``assert``).
    :param installed: what is known of its distribution (name, version, torch pin), from
        :func:`torchbuild.actions.verify_installed.find_torch_extensions`; a failed import
        is then explained with the versions on both sides.
    :raises UsageError: ``python`` does not exist or cannot run; ``module`` is empty.
    """
    if not module or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", module):
        raise UsageError(
            f"{module!r} is not a module name.", fix="pass --extension with an importable name such as torch_scatter."
        )
    exe = resolve_python(python)
    data = collect(exe, "extension", module, smoke)
    report = VerifyReport(target=module, python=exe)
    base_facts(report, data)
    torch_checks(report, data, expect)
    if installed is not None:
        report.facts["distribution"] = {
            "name": installed.dist,
            "version": installed.version,
            "requires_torch": installed.torch_requirement,
            "cuda_libs": list(installed.cuda_libs),
        }
    ext_import_check(report, data, module, installed)
    lib_dir = _torch_lib_dir(data)
    ext_files = data.get("ext_files")
    if ext_files is None:  # import failed: find the files without importing
        ext_files = find_module_files(exe, module)
    files = inspect_files(ext_files, [lib_dir] if lib_dir else None, symbols=True)
    report.facts["files"] = files
    ldd_checks(report, files, "ext_ldd", module)
    ext_libtorch_check(report, data, files, lib_dir)
    ext_cuda_abi_checks(report, data, files, module, expect)
    if data.get("cuda_available") and data.get("gpus"):
        _add_device_code(files)
        ext_gpu_arch_check(report, data, files, module)
    if smoke:
        smoke_check(report, data, module, exe)
    return report
