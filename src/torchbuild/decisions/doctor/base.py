"""What doctor findings are (:class:`Finding`, the stable check ids, severities), the
thresholds it uses, and the helpers every family of checks shares."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from ...facts.model import GPU, Compiler, Facts, Tool
from ...knowledge import compat
from ...knowledge.compat import major_minor
from ..resources import GIB

SEVERITIES = ("error", "warning", "note")

#: Stable ids of every check (``--json`` consumers key on these; add, never rename).
CHECK_IDS = (
    "python",
    "compiler",
    "host_compiler",
    "driver",
    "gpu_arch",
    "arch_list",
    "cuda_toolkit",
    "cuda_home",
    "cuda_headers",
    "cudnn",
    "cmake",
    "ninja",
    "compiler_cache",
    "memory",
    "disk",
    "submodules",
    "torch",
    "torch_cuda",
    "cxx_abi",
    "build_isolation",
    "target",
    "system_libs",
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
    "cusparse.h": "nvidia-cusparse",
    "cublas_v2.h": "nvidia-cublas",
    "cublasLt.h": "nvidia-cublas",
    "cusolverDn.h": "nvidia-cusolver",
    "curand.h": "nvidia-curand",
    "cufft.h": "nvidia-cufft",
    "nvrtc.h": "nvidia-cuda-nvrtc",
    "cuda_runtime_api.h": "nvidia-cuda-runtime",
    "cuda_runtime.h": "nvidia-cuda-runtime",
    "nvtx3/nvToolsExt.h": "nvidia-nvtx",
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
    from ..install_cmd import install_command

    return install_command(facts.os, apt, dnf, brew, other)


def _sudo(facts: Facts) -> str:
    """``"sudo "`` unless this is root (:func:`torchbuild.decisions.install_cmd.sudo_prefix`)."""
    from ..install_cmd import sudo_prefix

    return sudo_prefix(facts.os)


def _gib(n: int | float | None) -> str:
    return "unknown" if n is None else f"{n / GIB:.1f} GiB"


def _uncertain(sev: str, row: object) -> str:
    """Severity ``sev`` of a finding whose limit comes from ``row``: an error on an uncertain row
    becomes a warning (:func:`torchbuild.knowledge.compat.is_uncertain`; ``row`` may be a data
    row, a typed answer or None)."""
    return "warning" if sev == "error" and compat.is_uncertain(row) else sev


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


def _gpu_cc(gpu: GPU) -> tuple[str | None, str]:
    if gpu.compute_capability:
        return gpu.compute_capability, "reported"
    model = compat.gpu_model(gpu.name) if gpu.name else None
    return (model.cc, "from the GPU table") if model else (None, "")


def _tool(facts: Facts, name: str) -> Tool | None:
    t = facts.tools.get(name)
    return t if t is not None and t.path else None
