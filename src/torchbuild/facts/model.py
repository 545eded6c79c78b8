"""Typed, JSON-serialisable facts about a machine and a source tree.

These dataclasses are the contract between the *facts* layer (the only code that
looks at the machine) and everything below it (knowledge, decisions, actions).
Facts recorded on another machine load back with :meth:`Facts.from_json`, so every
decision can be tested on machines we do not have.

Conventions:

* versions are strings as the tool printed them (``"12.2.0"``, ``"13.0"``); compare
  them with :func:`packaging.version.Version` in the decisions layer;
* sizes are bytes (``*_bytes``) or MiB (``*_mib``), as the field name says;
* ``None`` means "not found / not applicable"; an empty list means "looked, found none".
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, Union

__all__ = [
    "SCHEMA_VERSION",
    "OSInfo",
    "PythonInfo",
    "Compiler",
    "Tool",
    "CudaToolkit",
    "Cudnn",
    "GPU",
    "Driver",
    "Resources",
    "InstalledTorch",
    "Submodule",
    "CMakeOption",
    "SourceTree",
    "Facts",
    "from_dict",
]

#: Bumped when a field changes meaning; :meth:`Facts.from_json` accepts older files
#: as long as the fields it knows are well-typed (unknown keys are ignored).
SCHEMA_VERSION = 1


@dataclass
class OSInfo:
    """Operating system: ``system`` as :func:`platform.system` (``"Linux"``, ``"Windows"``,
    ``"Darwin"``), ``distro`` from ``/etc/os-release`` PRETTY_NAME, ``libc`` ``"glibc"``/
    ``"musl"``/None with ``libc_version`` (``"2.36"``), ``machine`` (``"x86_64"``)."""

    system: str = "Linux"
    release: str | None = None
    distro: str | None = None
    machine: str = "x86_64"
    libc: str | None = None
    libc_version: str | None = None
    #: ``ID`` from ``/etc/os-release`` (``"ubuntu"``, ``"debian"``, ``"rhel"``), lower case; picks
    #: the package manager a fix names (``apt-get`` / ``dnf``).
    distro_id: str | None = None
    #: ``VERSION_ID`` from ``/etc/os-release`` (``"18.04"``, ``"12"``).
    distro_version: str | None = None
    #: whether torchbuild runs as root (effective uid 0); None when unknown (recorded facts
    #: from before this field): a fix then names ``sudo`` only when this is not True.
    root: bool | None = None


@dataclass
class PythonInfo:
    """The Python that builds and runs the result: ``version`` ``"3.11.7"``, absolute
    ``executable``, ``prefix`` (``sys.prefix``), ``purelib`` (site-packages), whether it is a
    venv (``sys.prefix != sys.base_prefix``) or a conda env (``conda-meta`` in prefix)."""

    version: str = ""
    executable: str = ""
    prefix: str = ""
    purelib: str = ""
    is_venv: bool = False
    is_conda: bool = False
    has_headers: bool | None = None  # Python.h present in sysconfig's include dir
    #: sysconfig's ``include`` directory (where ``Python.h`` should be).
    include_dir: str | None = None
    #: the absolute directories of that interpreter's ``sys.path`` (site-packages first as
    #: Python orders them); where the installed torch and ``nvidia-*`` wheels are looked for.
    sys_path: list[str] = field(default_factory=list)


@dataclass
class Compiler:
    """A C or C++ compiler: ``kind`` ``"gcc"``/``"clang"``/``"msvc"``/``"unknown"``,
    ``version`` ``"12.2.0"``, ``path`` absolute, ``from_env`` the variable that chose it
    (``"CXX"``) or None when found on PATH."""

    kind: str = "unknown"
    path: str | None = None
    version: str | None = None
    from_env: str | None = None


@dataclass
class Tool:
    """A build tool found on PATH (cmake, ninja, git, ccache, sccache, distcc, patchelf):
    ``path`` or None, ``version`` as printed (``"3.25.1"``).  When PATH finds a pyenv shim,
    ``path`` is the executable behind it (``pyenv which NAME``) and ``shim`` the shim.
    ``on_path`` is False for a tool found only next to an interpreter (the build's, or
    torchbuild's own ``sys.prefix/bin``, where its ``sccache`` dependency is): a command
    must then name it by ``path``, not by name."""

    path: str | None = None
    version: str | None = None
    shim: str | None = None
    on_path: bool = True


@dataclass
class CudaToolkit:
    """A CUDA toolkit.

    ``home`` is the root (``CUDA_HOME``/``CUDA_PATH``, else ``nvcc``'s parent's parent, else
    ``/usr/local/cuda``); ``found_by`` says which.  ``version`` is major.minor (``"13.0"``),
    ``full_version`` the nvcc build (``"13.0.88"``).  ``headers`` maps each header torch or
    its extensions commonly need (``cuda_runtime.h``, ``cusparse.h``, ``cublas_v2.h``,
    ``cusolverDn.h``, ``curand.h``, ``cufft.h``, ``nvrtc.h``, ``nvtx3/nvToolsExt.h``) to the
    directory that holds it (inside the toolkit, or elsewhere on the machine such as the
    ``nvidia-*`` wheels in site-packages) or None when it is nowhere.  ``libraries`` does the
    same for ``libcudart``, ``libcublas``, ``libcusparse``, ...  ``gpu_codes`` lists the
    ``sm_XY`` values ``nvcc --list-gpu-code`` prints (empty when not asked).
    """

    home: str | None = None
    nvcc: str | None = None
    version: str | None = None
    full_version: str | None = None
    found_by: str | None = None
    headers: dict[str, str | None] = field(default_factory=dict)
    libraries: dict[str, str | None] = field(default_factory=dict)
    gpu_codes: list[str] = field(default_factory=list)
    #: the ``CUDA_HOME`` that ``torch.utils.cpp_extension._find_cuda_home`` would pick on this
    #: machine (``CUDA_HOME``, ``CUDA_PATH``, else ``dirname(dirname(which nvcc))`` *without*
    #: resolving links or wrapper scripts, else ``/usr/local/cuda``), None when none.
    torch_cuda_home: str | None = None
    #: whether ``<torch_cuda_home>/include/cuda_runtime.h`` exists (None: no torch_cuda_home).
    torch_cuda_home_has_headers: bool | None = None
    #: ``nvcc`` as found on PATH (may be a wrapper script or a link), None when not on PATH.
    nvcc_on_path: str | None = None


@dataclass
class Cudnn:
    """cuDNN from ``cudnn_version.h``: ``version`` ``"9.24.0"``, ``include_dir``."""

    version: str | None = None
    include_dir: str | None = None
    library_dir: str | None = None


@dataclass
class GPU:
    """One GPU: ``name`` as NVML/nvidia-smi print it (``"NVIDIA H100 80GB HBM3"``),
    ``compute_capability`` ``"9.0"``, ``memory_mib`` total memory in MiB."""

    index: int = 0
    name: str = ""
    compute_capability: str | None = None
    memory_mib: int | None = None


@dataclass
class Driver:
    """The NVIDIA driver: ``version`` ``"580.159.04"``; ``cuda_version`` the newest CUDA it
    supports (``"13.0"``, nvidia-smi's header / ``nvmlSystemGetCudaDriverVersion``);
    ``found_by`` ``"nvml"``/``"nvidia-smi"``/``"procfs"``/``"assumed"``."""

    version: str | None = None
    cuda_version: str | None = None
    found_by: str | None = None


@dataclass
class Resources:
    """CPU and memory: ``cpu_count`` logical cores usable by this process,
    ``memory_total_bytes`` / ``memory_available_bytes`` (psutil), ``disk_free_bytes`` at
    ``disk_path`` (where the build will write)."""

    cpu_count: int = 1
    memory_total_bytes: int = 0
    memory_available_bytes: int = 0
    disk_path: str | None = None
    disk_free_bytes: int | None = None
    #: CPU quota of this process's cgroup in cores (``cpu.max`` / ``cfs_quota_us``), None when
    #: unlimited; already applied to ``cpu_count``.
    cgroup_cpu_limit: float | None = None
    #: memory limit of this process's cgroup in bytes (``memory.max`` /
    #: ``memory.limit_in_bytes``), None when unlimited; already applied to ``memory_*_bytes``.
    cgroup_memory_limit_bytes: int | None = None


@dataclass
class InstalledTorch:
    """The torch installed in :attr:`Facts.python`, read from its files without importing it.

    ``version`` ``"2.13.0+cpu"``, ``cuda`` ``"13.0"`` or None for a CPU build, ``git_version``
    40-hex SHA, ``cxx11_abi`` from ``TorchConfig.cmake``/``_GLIBCXX_USE_CXX11_ABI`` (None when
    the files don't say), ``location`` the package directory, ``debug`` from ``version.py``.
    """

    version: str | None = None
    cuda: str | None = None
    hip: str | None = None
    git_version: str | None = None
    cxx11_abi: bool | None = None
    location: str | None = None
    debug: bool | None = None
    #: ``nvidia-*`` wheels installed next to torch (distribution name -> version), e.g.
    #: ``{"nvidia-cublas": "13.1.1.3"}``: the CUDA libraries and headers a CUDA torch brings.
    nvidia_wheels: dict[str, str] = field(default_factory=dict)


@dataclass
class Submodule:
    """A submodule from ``.gitmodules``: ``name``, ``path``, ``url``; ``present`` when the
    folder has content (a CMakeLists.txt, Makefile, setup.py, LICENSE* or any file, as
    PyTorch's own setup.py checks); ``sha`` as ``git submodule status`` reports it, when known
    (:func:`torchbuild.facts.source.submodule_states`)."""

    name: str = ""
    path: str = ""
    url: str | None = None
    present: bool = False
    sha: str | None = None
    #: as ``git submodule status`` reports it: ``"ok"``, ``"uninitialized"`` (``-``), ``"modified"``
    #: (``+``: checked out at another commit than the tree records), ``"conflict"`` (``U``);
    #: None when git was not asked (not a git checkout).
    state: str | None = None


@dataclass
class CMakeOption:
    """An ``option(NAME "doc" DEFAULT)`` or ``cmake_dependent_option(NAME "doc" DEFAULT
    "COND" FORCE)`` declared in the tree's top ``CMakeLists.txt``.  ``condition`` is the raw
    CMake condition (``"USE_CUDA"``, ``"USE_CUDA OR USE_ROCM;UNIX;NOT APPLE"``) or None for a
    plain option; ``forced`` the value when the condition is false."""

    name: str = ""
    default: str = "OFF"
    description: str = ""
    condition: str | None = None
    forced: str | None = None


@dataclass
class SourceTree:
    """What a source tree is and what it needs.

    ``kind``: ``"pytorch"`` (core tree: setup.py or pyproject, ``version.txt``, ``c10/``,
    ``torch/``) or ``"extension"`` (imports ``torch.utils.cpp_extension`` or finds Torch with
    CMake).  ``backend``: ``"setup.py"`` (setuptools, PyTorch <= 2.13 and most extensions),
    ``"scikit-build-core"`` (PyTorch >= 2.14), ``"cmake"``.  ``env_vars`` are the environment
    variables the build script reads (``FORCE_CUDA``, ``MAX_JOBS``...), ``disables_ninja`` is
    True when it passes ``use_ninja=False``, ``build_requires`` the PEP 518 requirements.
    """

    path: str = ""
    kind: str = "unknown"
    backend: str | None = None
    name: str | None = None
    version: str | None = None
    git_sha: str | None = None
    submodules: list[Submodule] = field(default_factory=list)
    cmake_options: list[CMakeOption] = field(default_factory=list)
    cmake_minimum_required: str | None = None
    #: ``CMAKE_MINIMUM_VERSION_STRING`` of a PyTorch tree's ``tools/setup_helpers/env.py``:
    #: the CMake version its setup.py itself refuses to go below (``"3.27"``; PyTorch
    #: ``tools/setup_helpers/env.py`` @07cde1febe3c);
    #: None when the tree has no such file or line.
    setup_cmake_minimum: str | None = None
    uses_cpp_extension: bool = False
    has_cuda_sources: bool = False
    disables_ninja: bool = False
    env_vars: list[str] = field(default_factory=list)
    build_requires: list[str] = field(default_factory=list)
    #: non-empty folders under ``third_party/`` and ``debian/`` (two levels, relative paths
    #: such as ``"third_party/pybind11"``, ``"third_party/nccl/nccl"``, ``"debian/pocketfft"``).
    vendored: list[str] = field(default_factory=list)
    #: the tree carries Debian's packaging (``debian/patches/series``); ``debian_patches_applied``:
    #: the names in ``.pc/applied-patches`` (dpkg-source/quilt) when present.
    debian_packaging: bool = False
    debian_patches_applied: list[str] = field(default_factory=list)
    #: what the tree itself says it needs: ``python_min_version`` of setup.py (``"3.9.0"``) and the
    #: GCC minimum of CMakeLists.txt's ``VERSION_LESS`` check (``"9.3"``).
    python_minimum: str | None = None
    gcc_minimum: str | None = None
    #: first-level ``third_party/<name>`` folders the tree's main CMake files refer to (a
    #: component they no longer name, as after Debian's patches, is not needed from the tree).
    cmake_refs: list[str] = field(default_factory=list)
    #: the value ``cmake/Dependencies.cmake`` gives ``CMAKE_INSTALL_RPATH`` (``"${_rpath_portable_origin}"``
    #: upstream, ``""`` after Debian's 1020-dirtyhack.patch); None when the line is absent.
    install_rpath: str | None = None
    #: FlatBuffers version each ``torch/csrc/jit/serialization/*_generated.h`` static_asserts.
    flatbuffers_headers: dict[str, str] = field(default_factory=dict)

    @property
    def frontend(self) -> str | None:
        """Deprecated alias of :attr:`backend` (the build backend; JSON now says ``backend``)."""
        return self.backend


@dataclass
class SystemLibs:
    """System copies of third-party components (see :mod:`torchbuild.facts.system_libs`).

    ``debian``: installed Debian package -> version (``"0.0~git20220617.082deff-1+deb12u1"``);
    ``headers``: header (``"cpuinfo.h"``) -> full path; ``symbols``: ``"cpuinfo.h:NAME"`` ->
    whether that header declares NAME; ``pypi``: distribution -> version in the build
    interpreter; ``pypi_include``: distribution -> its include folder; ``flatc``: the system
    FlatBuffers compiler's version; ``package_manager``: ``apt-get``/``dnf``/``brew`` or None.
    """

    debian: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    symbols: dict[str, bool] = field(default_factory=dict)
    pypi: dict[str, str] = field(default_factory=dict)
    pypi_include: dict[str, str] = field(default_factory=dict)
    flatc: str | None = None
    package_manager: str | None = None


@dataclass
class Facts:
    """Everything torchbuild knows about one machine (and optionally one source tree).

    ``assumed`` lists the ``KEY=VALUE`` overrides applied by ``doctor --assume``;
    ``target`` is the PyTorch version a source build targets (``--target 2.4``) when no
    tree says it; ``probe_seconds`` is how long collecting took (seconds).
    """

    schema: int = SCHEMA_VERSION
    os: OSInfo = field(default_factory=OSInfo)
    python: PythonInfo = field(default_factory=PythonInfo)
    cc: Compiler | None = None
    cxx: Compiler | None = None
    #: the host compiler nvcc is told to use by ``CUDAHOSTCXX`` or ``NVCC_CCBIN`` when one is
    #: set (``from_env`` names it); None when unset (nvcc then uses ``cc``/``cxx``).
    cuda_host: Compiler | None = None
    tools: dict[str, Tool] = field(default_factory=dict)
    cuda: CudaToolkit | None = None
    cudnn: Cudnn | None = None
    driver: Driver | None = None
    gpus: list[GPU] = field(default_factory=list)
    resources: Resources = field(default_factory=Resources)
    torch: InstalledTorch | None = None
    source: SourceTree | None = None
    target: str | None = None
    assumed: list[str] = field(default_factory=list)
    origin: str = "probed"
    probe_seconds: float = 0.0
    #: build-relevant environment variables that were set when probing (``CUDA_HOME``,
    #: ``TORCH_CUDA_ARCH_LIST``, ``MAX_JOBS``, ``CC``, ``CXX``, ``CUDAHOSTCXX``, ``CPATH``,
    #: ``PIP_NO_BUILD_ISOLATION`` ...; see ``torchbuild.facts.ENV_VARS``) -> value.
    env: dict[str, str] = field(default_factory=dict)
    #: system copies of third-party components, probed only when a plan may build against
    #: them (``--system-libs``, ``source check``); None when not asked.
    system_libs: SystemLibs | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain ``dict`` of JSON types (``json.dumps`` ready)."""
        return dataclasses.asdict(self)

    def to_json(self, *, indent: int | None = 2) -> str:
        """JSON text; :meth:`from_json` reads it back to an equal object."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Facts:
        """Build from a ``dict`` (as :meth:`to_dict` gives). Unknown keys are ignored.

        :raises ValueError: a field has the wrong type.
        """
        return from_dict(cls, data)

    @classmethod
    def from_json(cls, text: str) -> Facts:
        """Parse :meth:`to_json` output.

        :raises ValueError: not JSON, or a field has the wrong type.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise ValueError("facts JSON must be an object")
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Facts:
        """Read a facts file written by ``doctor --save-facts``.

        :raises OSError: unreadable file. :raises ValueError: malformed content.
        """
        return cls.from_json(Path(path).read_text(encoding="utf-8"))


T = TypeVar("T")


def _convert(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return value
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(arg, value, where)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError(f"{where}: {value!r} fits none of {tp}")
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object, got {type(value).__name__}")
        return from_dict(tp, value, where)
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list, got {type(value).__name__}")
        return [_convert(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object, got {type(value).__name__}")
        return {str(k): _convert(args[1], v, f"{where}.{k}") for k, v in value.items()}
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise ValueError(f"{where}: expected a number, got {value!r}")
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ValueError(f"{where}: expected an integer, got {value!r}")
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise ValueError(f"{where}: expected true/false, got {value!r}")
    if tp is str:
        if isinstance(value, str):
            return value
        raise ValueError(f"{where}: expected a string, got {value!r}")
    return value


def from_dict(cls: type[T], data: dict[str, Any], where: str = "") -> T:
    """Build dataclass ``cls`` from ``data``, converting nested dataclasses, lists and
    dicts by the type hints.  Unknown keys are ignored; missing keys take defaults.

    :raises ValueError: a value does not fit its field's type (message names the field).
    """
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in data:
            kwargs[f.name] = _convert(hints[f.name], data[f.name], f"{where}.{f.name}".lstrip("."))
    return cls(**kwargs)
