"""Name the cause of a failed ``verify`` check with the diagnose knowledge (pure).

``verify`` imports torch and its extensions in a clean subprocess; when an import
fails, the error text is the same text a build log shows at import time.  It goes
through :func:`torchbuild.decisions.diagnose.diagnose_lines` (the signatures of
``knowledge/data/signatures/``), and the fix is made specific with what verify
knows and a log does not: the extension's distribution, its version, the torch it
pins (``Requires-Dist``) and the installed torch.

Structural checks (``ldd``, CUDA of an extension, ABI) map to their cause id directly
(:data:`CHECK_CAUSES`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .diagnose import UNKNOWN, diagnose_lines

__all__ = ["Finding", "explain_import_failure", "CHECK_CAUSES", "ExtensionInfo"]

#: The cause id of a failed structural check (check id -> cause id of knowledge/data/causes.toml).
CHECK_CAUSES = {
    "ldd": "shared_library_not_found",
    "ext_ldd": "shared_library_not_found",
    "ext_libtorch": "torch_extension_mismatch",
    "ext_abi": "cxx_abi_mismatch",
    "cxx11_abi": "cxx_abi_mismatch",
    "cuda": "cuda_version_mismatch",
    "gpu_arch": "no_kernel_image",
}


@dataclass(frozen=True)
class ExtensionInfo:
    """What verify knows about an installed extension.

    :param module: the module imported (``torchvision``).
    :param dist: its distribution name (``torchvision``), or None.
    :param version: the distribution's version, or None.
    :param torch_requirement: its ``Requires-Dist`` on torch (``torch==2.14.0``), or None.
    :param cuda_libs: CUDA libraries its compiled modules need (``libcudart.so.12``).
    """

    module: str
    dist: str | None = None
    version: str | None = None
    torch_requirement: str | None = None
    cuda_libs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """A named failure: ``cause_id`` (an id of knowledge/data/causes.toml, ``unknown`` included), a one-line
    ``message`` with the versions on both sides, and the ``fix``."""

    cause_id: str
    message: str
    fix: str


def _public(v: str) -> str:
    return v.split("+", 1)[0]


def explain_import_failure(
    error: str, ext: ExtensionInfo, *, torch_version: str | None, torch_cuda: str | None, torch_abi: bool | None
) -> Finding:
    """The cause of ``import <ext.module>`` failing with ``error`` (the exception text).

    :param error: ``"RuntimeError: operator torchvision::nms does not exist"``...
    :param ext: the extension (distribution, version, torch pin, CUDA libraries).
    :param torch_version: ``torch.__version__`` of the checked Python (None: unknown).
    :param torch_cuda: ``torch.version.cuda`` (None: CPU-only or unknown).
    :param torch_abi: ``torch._C._GLIBCXX_USE_CXX11_ABI``.
    :returns: a :class:`Finding`; ``cause_id`` is ``unknown`` when no signature fits.
    """
    name = ext.dist or ext.module.split(".")[0]
    top = ext.module.split(".")[0]
    d = diagnose_lines(enumerate(error.splitlines() or [error], 1))
    root = d.root
    cause = root.cause_id
    ext_side = f"{name} {ext.version}" if ext.version else name
    if ext.torch_requirement:
        ext_side += f" (requires {ext.torch_requirement})"
    if ext.cuda_libs:
        ext_side += f", built for CUDA ({', '.join(ext.cuda_libs)})"
    torch_side = f"torch {torch_version or '?'}" + (
        f" (CUDA {torch_cuda})" if torch_cuda else " (CPU-only)" if torch_version else ""
    )
    pin = f"'torch=={_public(torch_version)}'" if torch_version else "torch"

    if cause == "python_dependency_missing":
        m = re.search(r"No module named ['\"]?([\w.]+)", error)
        missing = m.group(1).split(".")[0] if m else root.values.get("module", "?")
        if missing == top:
            return Finding(
                UNKNOWN,
                f"{top} is not importable in this Python: {error}",
                f"install {name} into this Python, or pass --python with the one that has it.",
            )
        return Finding(
            cause,
            f"import {ext.module} needs the Python package {missing!r}, which is not installed",
            f"install it: pip install {missing} ({name} needs it at run time).",
        )
    if cause in ("torch_extension_mismatch", "cxx_abi_mismatch", "torch_cpu_only", "cuda_version_mismatch"):
        detail = {
            "torch_extension_mismatch": "was built for another torch",
            "cxx_abi_mismatch": "uses another C++ ABI than torch "
            f"(_GLIBCXX_USE_CXX11_ABI={int(torch_abi) if torch_abi is not None else '?'})",
            "torch_cpu_only": "needs a CUDA build of torch",
            "cuda_version_mismatch": "was built for another CUDA than torch",
        }[cause]
        fix = (
            f"install the {name} built for this torch: pip install {name} {pin} (pip then picks the {name} release "
            f"that requires this torch; use the same index URL as torch for its CUDA/CPU variant), or rebuild "
            f"{name} against this torch: pip install --no-build-isolation --no-binary {name} {name}."
        )
        if cause == "cxx_abi_mismatch":
            fix = (
                f"rebuild {name} against this torch (pip install --no-build-isolation --no-binary {name} {name}; "
                f"torch.utils.cpp_extension uses torch's ABI), or install the {name} wheel made for this torch."
            )
        return Finding(cause, f"{ext.module} {detail}: {ext_side}; installed {torch_side}. Error: {error}", fix)
    if cause != UNKNOWN:
        return Finding(cause, f"import {ext.module} failed: {error}", root.fix)
    return Finding(
        UNKNOWN,
        f"import {ext.module} failed: {error}",
        f"read the error above; reinstall {name} for this torch ({torch_side}) if it names one of its files.",
    )
