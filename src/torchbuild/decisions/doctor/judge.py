"""The doctor's entry point: :func:`check` runs every family of checks in order."""

from __future__ import annotations

import re

from ...facts.model import Facts
from ...knowledge import compat
from ...knowledge.compat import major_minor
from .base import Finding, _kind, _target, normalise_arch
from .cuda import _check_cuda
from .driver import _check_driver_gpus
from .machine import _check_disk, _check_memory
from .toolchain import _check_cmake, _check_compiler, _check_ninja, _check_python
from .tree import _check_extension, _check_submodules


def check(
    facts: Facts,
    *,
    wants_cuda: bool | None = None,
    arch_list: list[str] | None = None,
    build: str = "develop",
    system_libs: bool = False,
    options: dict[str, str] | None = None,
) -> list[Finding]:
    """Judge ``facts`` for a build.

    :param wants_cuda: True/False when the user decided (``--cuda``/``--no-cuda``); None: CUDA
        when a toolkit is found (and, for an extension, torch has CUDA and the tree has CUDA
        sources).
    :param arch_list: the ``TORCH_CUDA_ARCH_LIST`` entries the build will use (``["8.9"]``,
        ``["8.0", "9.0+PTX"]``); None: none chosen (``TORCH_CUDA_ARCH_LIST`` from
        :attr:`Facts.env` is used when set).
    :param build: ``develop``, ``wheel``, ``install`` or ``libtorch``.
    :param system_libs: the build uses system copies of components the tree lacks (``--system-libs``).
    :param options: the plan's ``USE_*`` values when a plan exists (which components are needed).
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
        out.append(
            Finding(
                "target",
                "note",
                f"PyTorch {target} ({target_from}) is not in torchbuild's release tables "
                f"(known: {', '.join(compat.known_releases())}); its Python, CMake and compiler "
                "limits are not checked.",
                None,
            )
        )
    _check_python(facts, out, kind, target, target_from, rel, build)
    if kind == "extension" and facts.torch is not None and facts.torch.version:
        # torch's own headers enforce its compiler minimum on every extension
        _check_compiler(facts, out, kind, major_minor(facts.torch.version), compat.torch_release(facts.torch.version))
    else:
        _check_compiler(facts, out, kind, target, rel)
    if cuda:
        _check_cuda(facts, out, kind, arches, wants_cuda)
    elif wants_cuda is None and facts.cuda is None and kind is not None:
        out.append(
            Finding(
                "cuda_toolkit",
                "note",
                "No CUDA toolkit found (no CUDA_HOME, no nvcc on PATH, no "
                "/usr/local/cuda): this will be a CPU-only build.",
                "for a CUDA build install a toolkit and export CUDA_HOME=/usr/local/cuda-X.Y",
            )
        )
    _check_driver_gpus(facts, out, cuda)
    if kind in ("pytorch", None) or (kind == "extension" and facts.source and facts.source.backend != "setup.py"):
        _check_cmake(facts, out, kind, target, target_from, rel)
    _check_ninja(facts, out, kind)
    _check_memory(facts, out, cuda)
    _check_disk(facts, out, kind, cuda, build)
    from ..components import known_release
    from ..release_checks import release_findings

    if kind == "pytorch" and facts.source is not None and known_release(facts.source.version):
        # the release's component data replaces the .gitmodules-only check
        out.extend(
            release_findings(
                facts,
                kind=kind,
                target=target,
                target_from=target_from,
                rel=rel,
                cuda_on=cuda,
                system_libs=system_libs,
                options=options,
            )
        )
    else:
        out.extend(release_findings(facts, kind=kind, target=target, target_from=target_from, rel=rel, cuda_on=cuda))
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
