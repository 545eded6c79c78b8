"""verify's checks (pure): of an installed torch (:mod:`.torch_checks`) and of an extension
built against it (:mod:`.extension_checks`), from what :mod:`torchbuild.facts.torch_runtime`
and :mod:`torchbuild.facts.elf` gathered."""

from __future__ import annotations

from .extension_checks import ext_cuda_abi_checks, ext_gpu_arch_check, ext_import_check, ext_libtorch_check, smoke_check
from .model import Check, Expectations, VerifyReport
from .torch_checks import (
    arch_runs_on,
    base_facts,
    config_checks,
    expect_checks,
    import_fix,
    ldd_checks,
    torch_checks,
)

__all__ = [
    "Check",
    "Expectations",
    "VerifyReport",
    "arch_runs_on",
    "base_facts",
    "config_checks",
    "expect_checks",
    "import_fix",
    "ldd_checks",
    "torch_checks",
    "ext_import_check",
    "ext_libtorch_check",
    "ext_cuda_abi_checks",
    "ext_gpu_arch_check",
    "smoke_check",
]
