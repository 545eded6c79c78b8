"""``replicate``: turn a parsed ``torch.__config__.show()`` into a profile that rebuilds it
(pure: no I/O).

Mapping, setting by setting (the text's format: ``decisions/torch_config.py``):

* ``TORCH_VERSION`` -> the source to build, ``pytorch@v<version>`` (``COMMIT_SHA`` when the
  text has it, from 2.8).  The profile itself does not pin the version (no
  ``PYTORCH_BUILD_VERSION``), so applied to another tree it never mislabels that tree;
* ``BUILD_TYPE`` -> ``build_type``; ``USE_CUDA`` -> ``cuda``; the ``-gencode`` flags of the
  ``NVCC architecture flags`` bullet or of ``CUDA_FLAGS`` -> ``arch`` (``TORCH_CUDA_ARCH_LIST``
  form, ``+PTX`` where a ``compute_XY`` is embedded);
* the official wheel scripts' ``TORCH_NVCC_FLAGS`` options found in ``CUDA_FLAGS``
  (``-Xfatbin -compress-all``, ``--threads N``, ``-compress-mode=...``; PyTorch's
  ``.ci/manywheel/build_cuda.sh``, https://github.com/pytorch/pytorch/blob/00c7a380b836/.ci/manywheel/build_cuda.sh)
  -> ``nvcc_flags``;
* every ``USE_*`` build setting -> ``set`` (``1``/``0``); the plan skips, with a note, those
  the tree being built does not declare (e.g. ``USE_EXCEPTION_PTR`` of 1.8);
* ``BLAS_INFO`` (``mkl``, ``open``, ...) -> ``BLAS`` (``MKL``, ``OpenBLAS``, ...: the variable of
  PyTorch's ``cmake/Dependencies.cmake`` that sets it, :data:`BLAS_NAMES`);
* ``-D_GLIBCXX_USE_CXX11_ABI=N`` in ``CXX_FLAGS`` -> ``_GLIBCXX_USE_CXX11_ABI`` (setup.py forwards it
  as ``GLIBCXX_USE_CXX11_ABI``, 2.6.0 ``tools/setup_helpers/cmake.py``);
* mode ``wheel`` and the ``release`` profile underneath (official-like packaging).

What this machine cannot reproduce is returned as :class:`~torchbuild.decisions.doctor.Finding`
objects: another CUDA or cuDNN version, no CUDA toolkit, MKL absent, another compiler major,
a Magma the official build linked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .cmake_cond import cmake_bool
from .doctor import Finding
from .torch_config import TorchConfig

__all__ = ["REPLICATE_CHECKS", "Replica", "nvcc_flags_from", "profile_toml", "replicate"]

#: Check ids of replicate's findings (besides doctor's ``cuda_toolkit``, ``cudnn``, ``compiler``).
REPLICATE_CHECKS = ("cuda_version", "blas", "magma", "source_version", "unreproducible")

#: BLAS_INFO value -> the BLAS value that produces it in PyTorch 2.6.0's cmake/Dependencies.cmake
#: (lines 165-250: ``elseif(BLAS STREQUAL "MKL")`` ... ``set(BLAS_INFO "mkl")``, ``"OpenBLAS"`` ->
#: ``"open"``, ``"ATLAS"`` -> ``"atlas"``, ``"NVPL"`` -> ``"nvpl"``, ``"vecLib"`` -> ``"veclib"``,
#: ``"APL"`` -> ``"apl"``, ``"Generic"`` -> ``"generic"``).
BLAS_NAMES = {
    "mkl": "MKL",
    "open": "OpenBLAS",
    "atlas": "ATLAS",
    "nvpl": "NVPL",
    "veclib": "vecLib",
    "apl": "APL",
    "generic": "Generic",
}


@dataclass
class Replica:
    """A profile that rebuilds one configuration, and what stands in the way here.

    :ivar name: profile name (``"replica-2.13.0-cpu"``).
    :ivar source: what to build (``"pytorch@v2.13.0"``); :ivar commit: the SHA when known.
    :ivar profile: the profile table (keys of ``decisions.plan.PROFILE_KEYS``).
    :ivar derived: ``{key: "from <setting in the text>"}`` for each value.
    :ivar findings: what this machine cannot reproduce (doctor findings).
    """

    name: str
    version: str | None
    source: str | None
    commit: str | None
    profile: dict[str, Any]
    derived: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "name": self.name,
            "version": self.version,
            "source": self.source,
            "commit": self.commit,
            "profile": self.profile,
            "derived": self.derived,
            "findings": [f.to_dict() for f in self.findings],
        }


def nvcc_flags_from(cuda_flags: str) -> str | None:
    """The official ``TORCH_NVCC_FLAGS`` options present in a ``CUDA_FLAGS`` string, as one
    string (``"-Xfatbin -compress-all --threads 2 -compress-mode=size"``), or None."""
    out: list[str] = []
    if re.search(r"-Xfatbin\s+-compress-all", cuda_flags):
        out.append("-Xfatbin -compress-all")
    m = re.search(r"(?<!\S)--threads\s+(\d+)", cuda_flags)
    if m:
        out.append(f"--threads {m.group(1)}")
    m = re.search(r"(?<!\S)(--?compress-mode=\S+)", cuda_flags)
    if m:
        out.append(m.group(1))
    return " ".join(out) or None


def _major(v: str | None) -> str | None:
    return v.split(".")[0] if v else None


def _mm(v: str | None) -> str | None:
    if not v:
        return None
    parts = v.split(".")
    return ".".join(parts[:2])


def replicate(
    cfg: TorchConfig,
    *,
    cuda_version: str | None,
    cudnn_version: str | None,
    compiler: tuple[str, str] | None,
    mkl: bool,
    openblas: bool,
    name: str | None = None,
) -> Replica:
    """Build the :class:`Replica` for ``cfg`` on a machine described by the keyword facts.

    :param cuda_version: this machine's nvcc version ``"13.0"``, None when no toolkit.
    :param cudnn_version: this machine's cuDNN ``"9.24.0"``, None when absent.
    :param compiler: ``("gcc", "12.2.0")`` of this machine's C++ compiler, or None.
    :param mkl: whether MKL (headers and library) is installed here.
    :param openblas: whether OpenBLAS is installed here.
    :param name: profile name (default ``replica-<version>-<cpu|cuXY>``).
    """
    version = cfg.torch_version
    cuda_on = bool(cfg.use_cuda) or (cfg.use_cuda is None and bool(cfg.nvcc_arch_flags))
    variant = f"cu{cfg.cuda_runtime.replace('.', '')}" if cuda_on and cfg.cuda_runtime else "cpu"
    rname = name or f"replica-{version or 'unknown'}-{variant}"
    prof: dict[str, Any] = {
        "inherits": "release",
        "description": f"rebuilds torch {version or '?'} ({variant}) as its torch.__config__.show() describes it",
        "mode": "wheel",
    }
    derived: dict[str, str] = {"mode": "official-like wheel (the release profile)"}
    findings: list[Finding] = []
    sets: dict[str, str] = {}

    if cfg.build_type:
        prof["build_type"] = cfg.build_type
        derived["build_type"] = f"BUILD_TYPE={cfg.build_type}"
    prof["cuda"] = cuda_on
    derived["cuda"] = (
        f"USE_CUDA={cfg.setting('USE_CUDA')}"
        if cfg.setting("USE_CUDA") is not None
        else "NVCC architecture flags present"
    )
    if cuda_on:
        if cfg.arch_list:
            prof["arch"] = ";".join(cfg.arch_list)
            derived["arch"] = "-gencode flags: " + " ".join(cfg.nvcc_arch_flags)
        nv = nvcc_flags_from(cfg.setting("CUDA_FLAGS") or "")
        if nv:
            prof["nvcc_flags"] = nv
            derived["nvcc_flags"] = "TORCH_NVCC_FLAGS options found in CUDA_FLAGS"
    for key, raw in cfg.build_settings.items():
        if not key.startswith("USE_") or key == "USE_CUDA":
            continue
        b = cmake_bool(raw)
        sets[key] = raw if b is None else ("1" if b else "0")
    m = re.search(r"-D_GLIBCXX_USE_CXX11_ABI=(\d)", cfg.setting("CXX_FLAGS") or "")
    if m:
        sets["_GLIBCXX_USE_CXX11_ABI"] = m.group(1)
        derived["_GLIBCXX_USE_CXX11_ABI"] = f"-D_GLIBCXX_USE_CXX11_ABI={m.group(1)} in CXX_FLAGS"
    blas = (cfg.setting("BLAS_INFO") or "").lower()
    if blas in BLAS_NAMES:
        sets["BLAS"] = BLAS_NAMES[blas]
        derived["BLAS"] = f"BLAS_INFO={blas}"
    elif blas:
        findings.append(
            Finding(
                "blas",
                "warning",
                f"the build used BLAS_INFO={blas}, which torchbuild does not map to a BLAS setting.",
                "set BLAS yourself in the profile's set table (--set BLAS=...).",
            )
        )
    if sets:
        prof["set"] = dict(sorted(sets.items()))
        derived["set"] = "every USE_* build setting (1/0), BLAS from BLAS_INFO"

    # what this machine cannot reproduce ------------------------------------------------
    want_cuda = _mm(cfg.cuda_runtime) if cuda_on else None
    if want_cuda:
        if cuda_version is None:
            findings.append(
                Finding(
                    "cuda_toolkit",
                    "error",
                    f"the build used CUDA {want_cuda}; this machine has no CUDA "
                    "toolkit (nvcc), so the CUDA parts cannot be rebuilt here.",
                    f"install CUDA {want_cuda} (https://developer.nvidia.com/cuda-toolkit-archive) and set "
                    "CUDA_HOME, or build the CPU variant with --no-cuda.",
                )
            )
        elif _mm(cuda_version) != want_cuda:
            sev = "error" if _major(cuda_version) != _major(want_cuda) else "warning"
            findings.append(
                Finding(
                    "cuda_version",
                    sev,
                    f"the build used CUDA {want_cuda}; this machine's nvcc is "
                    f"{cuda_version}: the result would link another CUDA runtime.",
                    f"install CUDA {want_cuda} and point CUDA_HOME at it.",
                )
            )
        want_cudnn = cfg.cudnn if cmake_bool(cfg.setting("USE_CUDNN")) is not False else None
        if want_cudnn and cfg.setting("USE_CUDNN") is not None and cmake_bool(cfg.setting("USE_CUDNN")):
            if cudnn_version is None:
                findings.append(
                    Finding(
                        "cudnn",
                        "error",
                        f"the build used cuDNN {want_cudnn}; no cuDNN was found here.",
                        f"pip install nvidia-cudnn-cu{_major(want_cuda)} (or the cuDNN {want_cudnn} archive) "
                        "and set CUDNN_ROOT, or --set USE_CUDNN=0.",
                    )
                )
            elif _mm(cudnn_version) != _mm(want_cudnn):
                findings.append(
                    Finding(
                        "cudnn",
                        "warning",
                        f"the build used cuDNN {want_cudnn}; this machine has {cudnn_version}.",
                        f"install cuDNN {want_cudnn}.",
                    )
                )
    if cfg.magma:
        findings.append(
            Finding(
                "magma",
                "warning",
                f"the build linked Magma {cfg.magma}; torchbuild does not install it "
                "and PyTorch builds without it when it is absent (fewer GPU linear-algebra kernels).",
                "install magma built for this CUDA and add its prefix to CMAKE_PREFIX_PATH.",
            )
        )
    if blas == "mkl" and not mkl:
        findings.append(
            Finding(
                "blas",
                "warning",
                "the build used MKL (BLAS_INFO=mkl); no MKL (mkl.h with libmkl_core) "
                "was found here, so CMake would fall back to another BLAS (or none).",
                "pip install mkl-static mkl-include (as the official build environment does), or set "
                "BLAS=OpenBLAS in the profile to build with OpenBLAS instead.",
            )
        )
    if blas == "open" and not openblas:
        findings.append(
            Finding(
                "blas",
                "warning",
                "the build used OpenBLAS; no libopenblas was found here.",
                "apt-get install libopenblas-dev.",
            )
        )
    if cfg.compiler_kind and cfg.compiler_version:
        here = f"{compiler[0]} {compiler[1]}" if compiler else "no C++ compiler"
        if compiler is None or compiler[0] != cfg.compiler_kind or _major(compiler[1]) != _major(cfg.compiler_version):
            cxx = cfg.setting("CXX_COMPILER")
            findings.append(
                Finding(
                    "compiler",
                    "note",
                    f"the build used {cfg.compiler_kind.upper() if cfg.compiler_kind == 'gcc' else cfg.compiler_kind} "
                    f"{cfg.compiler_version}" + (f" ({cxx})" if cxx else "") + f"; this machine has {here}: "
                    "the binaries will differ (code generation, the glibc/libstdc++ versions they need).",
                    f"install {cfg.compiler_kind} {_major(cfg.compiler_version)} and set CC/CXX, if the "
                    "binaries must match.",
                )
            )
    if not version:
        findings.append(
            Finding(
                "source_version",
                "warning",
                "the text has no TORCH_VERSION: torchbuild cannot tell which PyTorch source to build.",
                "build the tree of the version you want with this profile.",
            )
        )
    commit = cfg.commit_sha
    return Replica(
        name=rname,
        version=version,
        source=f"pytorch@v{version}" if version else None,
        commit=commit,
        profile=prof,
        derived=derived,
        findings=findings,
    )


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    s = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{s}"'


def profile_toml(rep: Replica, *, origin: str) -> str:
    """The profile as a ``torchbuild.toml`` section (``[profile.NAME]``), with comments that
    say where it came from, the source to build and what this machine cannot reproduce."""
    lines = [f"# torchbuild replicate: {origin}"]
    if rep.source:
        lines.append(f"# source: {rep.source}" + (f" (commit {rep.commit})" if rep.commit else ""))
        lines.append(f"# build:  torchbuild build {rep.source} --profile {rep.name} --profile-file torchbuild.toml")
    for f in rep.findings:
        lines.append(f"# {f.severity}: {f.message}")
    lines.append(f'[profile."{rep.name}"]')
    for k, v in rep.profile.items():
        lines.append(f"{k} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"
