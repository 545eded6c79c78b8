"""What a build log says besides its errors, collected while it streams by (pure).

:class:`ContextCollector` keeps a few facts (bounded): versions printed (torch, CUDA, GCC),
``-D_GLIBCXX_USE_CXX11_ABI`` flags, where torch was imported from, ROCm markers, code that
reads torch's CUDA version, whether pip built in isolation or CMake ran by hand.
:mod:`torchbuild.decisions.diagnose_reasons` uses them to prefer a root over a symptom.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .words import Words

__all__ = ["LogContext", "ContextCollector", "MAX_FACTS"]

#: Facts of one kind kept (memory bound).
MAX_FACTS = 16

_ANCHORS = (
    "nvcc",
    "torch",
    "Torch",  # "PyTorch version: 2.8.0" (issue templates, collect_env)
    "cuda",
    "CUDA",
    "c++/",
    "gcc",
    "GCC",
    "_GLIBCXX_USE_CXX11_ABI",
    "rocm",
    "ROCm",
    "hipcc",
    "HIP",
    "-std=",
    "release ",
    "but you have",
    "CUDA_VERSION",
    "cuda_version",
    "Installing build dependencies",
    "pip-build-env",
    "build-isolation",
    "cmake ",
    "-DCMAKE_PREFIX_PATH",
    "Torch_DIR",
    "setup.py",
    "wheel",
    "egg_info",
    "build_ext",
    "pyproject",
    "subprocess-exited-with-error",
    "build_meta",
    "as a build dependency",
    "building '",
    "Building editable",
    "The detected CUDA version",
    "FatBin",  # a fat binary's section: ".nvFatBinSegment", ".hipFatBinSegment"
    "cuDNN: v?",  # PyTorch's cuda.cmake could not read cuDNN's version: "-- Found cuDNN: v?  (include: ...)"
    "compiling for gfx",  # clang's HIP summary: "1 error generated when compiling for gfx1030."
    "offload-arch=gfx",  # a HIP compile command: "--offload-arch=gfx90a"
    "_hip",  # ROCm's torch library: libtorch_hip.so
    # a frozen application's loader in a traceback: PyInstaller's "PyInstaller\\loader\\pyimod02_importers.py" and
    # its "_MEI<pid>" folder, cx_Freeze's "cx_Freeze\\initscripts\\__startup__.py"
    "pyimod0",
    "_MEI",
    "initscripts",
    # an interactive interpreter's traceback or prompt, or python -c: Python searches the current folder first
    'File "<stdin>"',
    'File "<string>"',
    ">>> ",
)
#: :data:`_ANCHORS` as one automaton (a line is looked at in one pass).
_ANCHOR_WORDS = Words(_ANCHORS)
_TORCH_VER = re.compile(
    # torch itself, not a package named after it ("openmm-torch 1.0rc1" in a conda list)
    r"(?:(?<![\w-])torch(?:==|-|\s+version[:\s]+|\s+)|PyTorch version:\s*|^pytorch\s+"
    # an issue template's field: "pytorch version: 1.4", "- PyTorch Version (e.g., 1.0): 1.7", "Pytorch: 1.9.1"
    r"|(?i:^\W*(?:py)?torch(?:\s+version)?(?:\s*\([^)]*\))?\s*[:=]\s*))"
    r"(?P<v>\d+\.\d+(?:\.\d+)?(?:[+.\w]*)?)"
)
#: Literal text that every match of :data:`_TORCH_VER` holds: "torch" before "=", "-" or a space, or the
#: line starts with "torch"/"pytorch" in any case (with "PyTorch version:" checked as a plain substring).
_TORCH_NEXT = re.compile(r"torch[=\-\s]")
_TORCH_START = re.compile(r"\W*(?:py)?torch", re.IGNORECASE)
#: torchvision's version printed: "torchvision==0.17.0", "torchvision 0.17.0" (pip list, conda list),
#: "torchvision version: 0.17".
_TORCHVISION_VER = re.compile(r"(?<![\w-])torchvision(?:==|-|\s+version[:\s]+|\s+)v?(?P<v>\d+\.\d+(?:\.\d+)?)")
#: A CPU-only build of torch listed: conda's build string ("pytorch  1.13.1  cpu_py311h410fd25_0"), a pip
#: version with the +cpu local tag ("torch==2.1.0+cpu", "torch 2.1.0+cpu"); every match holds "cpu_" or "+cpu".
_TORCH_CPU_BUILD = re.compile(
    r"^(?:py)?torch\s+\d+\.\d+\S*\s+cpu_|(?<![\w-])torch(?:==|-|\s+)\d+\.\d+(?:\.\d+)?\+cpu\b"
)
#: An installer removing torch: pip's "Successfully uninstalled torch-2.4.0+cu121", uv's " - torch==2.5.1+cu124".
_TORCH_REMOVED = re.compile(r"Successfully uninstalled torch-(?P<v>\d[\w.+]*)|(?:^|\s)-\s+torch==(?P<u>\d[\w.+]*)")
_CONDA_FORGE_TORCH = re.compile(r"^(?:lib)?(?:py)?torch\s+\d+\.\d+\S*\s+\S*\s+conda-forge\b")
_CUDA_VER = re.compile(
    r"(?:release (?P<a>\d+\.\d+), V\d|CUDA Version:?\s*(?P<b>\d+\.\d+)|cuda-(?P<c>\d+\.\d+)\b"
    r"|cudatoolkit[=\s]+(?P<d>\d+\.\d+)"
    r"|CUDA runtime version:\s*(?P<e>\d+\.\d+)|\+cu(?P<f>\d{3})\b|CUDA[/ ]v?(?P<g>\d+\.\d+)\b"
    # PyTorch's configure: "-- PyTorch: CUDA detected: 12.1" (FindCUDA's version, from nvcc)
    r"|CUDA detected: (?P<h>\d+\.\d+)"
    # an issue template's field: "cuda: 11.2", "CUDA version: 10.1", "- CUDA/cuDNN version: 10.2"
    r"|(?i:^\W*cuda(?:/cudnn)?(?:\s+version)?\s*[:=]\s*v?)(?P<i>\d+\.\d+))"
)
_GCC_MAJOR = re.compile(
    r"/include/c\+\+/(?P<a>\d+)(?:\.\d+)*/|\bgcc(?:-| version |\s+\(.*?\)\s+)(?P<b>\d+)(?:\.\d+)+|\bGCC (?P<c>\d+)\.\d+"
)
_ABI_FLAG = re.compile(r"_GLIBCXX_USE_CXX11_ABI=(?P<v>[01])")
_TORCH_IMPORT = re.compile(r"""File ["']?(?P<p>[^"'\s]*[/\\]torch[/\\](?:__init__|_ops|nn[/\\]\S+)\.py)""")
_TORCH_INIT_IPY = re.compile(r"^(?P<p>\S*[/\\]torch[/\\]__init__\.py) in <module>")
#: Code that reads torch's CUDA version (setup.py scripts print it in their traceback).
_CUDA_VERSION_CODE = re.compile(r"torch\.version\.cuda|cuda_version\b.*[=(]|CUDA_VERSION\b.*[=(]", re.IGNORECASE)
#: A frozen application's loader or folder: PyInstaller (``pyimod02_importers.py``, ``sys._MEIPASS`` unpacked to
#: ``_MEI123456``), cx_Freeze (``cx_Freeze/initscripts/__startup__.py``).
_FROZEN = re.compile(r"PyInstaller[\\/]loader[\\/]pyimod0\d_|[\\/]_MEI\d{3,}[\\/]|cx_Freeze[\\/]initscripts[\\/]")
#: A line that says ROCm is absent: every CUDA or CPU configure of PyTorch prints "ROCM_PATH environment
#: variable is not set and /opt/rocm does not exist." and "Building without ROCm support."
#: (cmake/public/LoadHIP.cmake, v2.6.0).
_NO_ROCM = re.compile(r"without ROCm|does not exist|is not set|USE_ROCM\s*:?\s*(?:OFF|0|False)\b", re.IGNORECASE)
#: A line of PyTorch's "Found two conflicting CUDA installs" message (the cmake/public/cuda.cmake of torch 2.1,
#: pytorch/pytorch#108931: "V<nvcc's version> in '<include folder>' and" / "V<the toolkit's version> in '...'").
_CUDA_INSTALL_LINE = re.compile(r"^\s*V(?P<v>\d+(?:\.\d+)+) in '")
#: Text that only a package build prints (pip, setuptools, scikit-build, PEP 517 backends).
_BUILDING_TEXTS = (
    "Getting requirements to build",
    "Preparing metadata",
    "egg_info",
    "bdist_wheel",
    "pip-build-env",
    "Building wheel",
    "setup.py",
    "build_ext",
    "pyproject",
    "Installing build dependencies",
    "subprocess-exited-with-error",
    "build_meta",
    # uv's hint: "`flash-attn@2.8.1` depends on `torch`, but doesn't declare it as a build dependency"
    "as a build dependency",
)
#: Those texts, or setuptools' build_ext naming each extension: "building 'murmurhash.mrmr' extension".
_BUILDING = re.compile("|".join(map(re.escape, _BUILDING_TEXTS)) + r"|building '[\w.]+' extension")
#: Literal text that every match of :data:`_BUILDING` holds (the pre-check of the regex, in one pass).
_BUILDING_WORDS = Words((*_BUILDING_TEXTS, "building '"))
#: A package built in the log: pip's "Building wheel for X" / "Running setup.py install for X" /
#: "Building wheels for collected packages: X, Y", setuptools' "building 'X._C' extension".
_BUILT = re.compile(
    r"(?:Building wheel for|Running setup\.py (?:install|develop) for|Building editable for"
    r"|Building wheels for collected packages:)\s+(?P<p>[\w.-]+(?:,\s*[\w.-]+)*)|building '(?P<q>\w+)"
)
_STD = re.compile(r"-std=(?:c|gnu)\+\+(?P<v>\d\w)")
#: Python code (a traceback's source line) that builds nvcc's path from the CUDA directory or runs it:
#: ``subprocess.check_output([cuda_dir + "/bin/nvcc", "-V"])`` in apex's, kaolin's and many setup.py files.
_NVCC_CODE = re.compile(
    r"""(?:\+\s*["'][/\\]?bin[/\\]nvcc|join\([^)]*["']nvcc|(?:check_output|Popen|run|call)\(\s*\[[^\]]*nvcc)"""
)


@dataclass
class LogContext:
    """Facts from the whole log (each list holds at most :data:`MAX_FACTS` items, in order).

    :param torch_versions: torch versions printed (``2.4.0``, ``1.10.0+cu111``).
    :param torch_conda_forge: a conda-forge build of torch is listed (built with the
        new C++ ABI, unlike pip wheels before torch 2.7).
    :param torchvision_versions: torchvision versions printed (``0.17.0``).
    :param torch_cpu_build: a CPU-only build of torch is listed (conda's ``cpu_py311...`` build string,
        pip's ``+cpu`` version).
    :param cuda_versions: CUDA versions mentioned (``11.8``; ``+cu118`` is ``11.8``).
    :param nvcc_versions: CUDA versions of the toolkit that compiles: what nvcc printed (``nvcc -V``:
        "Cuda compilation tools, release 11.5, V11.5.119" gives ``11.5``) or what PyTorch's configure
        read from it ("PyTorch: CUDA detected: 12.1", cmake/public/cuda.cmake).
    :param gcc_majors: GCC major versions seen (``/usr/include/c++/11/``, ``gcc 9.4.0``).
    :param abi_flags: values of ``-D_GLIBCXX_USE_CXX11_ABI`` seen (``"0"``, ``"1"``).
    :param torch_imports: paths of torch's own modules in tracebacks.
    :param std_flags: C++ standards passed with ``-std=`` (``"14"``, ``"17"``).
    :param rocm: the log is a ROCm/HIP build (hipcc, /opt/rocm, HIP_PLATFORM, clang's "when compiling for
        gfx1030", "--offload-arch=gfx90a").
    :param cuda_version_code: a line of code that reads torch's CUDA version was printed
        (``torch.version.cuda``, ``cuda_version``: a setup.py in a traceback).
    :param pip_isolated: pip built in an isolated build environment (``Installing build
        dependencies``, a ``pip-build-env-`` path) and ``--no-build-isolation`` was not seen.
    :param building: the log shows a package build (setup.py, a wheel, egg_info, build_ext,
        pyproject, pip's build subprocess), not only a program run.
    :param nvcc_seen: the log mentions nvcc (a command line, a failed command, a path).
    :param nvcc_code: a traceback's source line builds nvcc's path from the CUDA directory or runs it
        (``cuda_dir + "/bin/nvcc"``): an exception that follows is about finding nvcc.
    :param built: packages built in the log (``torchvision``, ``torch_sparse``: names as Python imports
        them, ``-`` made ``_``), from pip's and setuptools' progress lines.
    :param cuda_compared: torch's cpp_extension compared nvcc's CUDA with torch's ("The detected CUDA
        version (11.7) ... mismatch"): it does that only while it compiles an extension.
    :param cuda_seen: the log mentions CUDA at all ("cuda" or "CUDA" in a line: a path, a flag, a
        version, a library name such as libtorch_cuda.so), a GPU fat binary (".nvFatBinSegment",
        ".hipFatBinSegment") or ROCm's torch library (libtorch_hip.so).
    :param cudnn_version_unread: PyTorch's CMake found cuDNN but printed its version as "v?" (it read the
        version macros from cudnn.h, which cuDNN 8 moved to cudnn_version.h: pytorch/pytorch#41593).
    :param cuda_install_versions: the versions PyTorch's CMake printed in its "Found two conflicting CUDA installs"
        message (its lines "V12.1.66 in '/usr/local/cuda/include' and"), in order (strings: ``"12.1.66"``).
    :param torch_no_platform_wheel: a resolver said torch has no wheel for this platform (uv's "torch==2.11.0+cpu
        has no wheels with a matching platform tag (e.g., `macosx_26_0_x86_64`)").
    :param torch_removed: torch versions an installer removed in the log (pip's "Successfully uninstalled
        torch-2.4.0+cu121", uv's "- torch==2.5.1+cu124"): another package's requirements replaced torch.
    :param cmake_by_hand: CMake was run by hand (a ``cmake ...`` command line, ``-DCMAKE_PREFIX_PATH``,
        ``Torch_DIR=``): a C++ project, not a pip build.
    :param interactive: the failing code was typed into an interactive interpreter (``File "<stdin>"``, a
        ``>>> `` prompt) or given with ``python -c`` (``File "<string>"``): ``sys.path[0]`` is then the current
        folder, searched before site-packages (docs.python.org/3/library/sys.html#sys.path).
    :param frozen: the program is a frozen application (PyInstaller's loader ``pyimod0N_*`` or its ``_MEI<pid>``
        folder, cx_Freeze's ``initscripts``): its torch is the bundler's copy.
    """

    torch_versions: list[str] = field(default_factory=list)
    torch_conda_forge: bool = False
    torch_cpu_build: bool = False
    torchvision_versions: list[str] = field(default_factory=list)
    cuda_versions: list[str] = field(default_factory=list)
    nvcc_versions: list[str] = field(default_factory=list)
    gcc_majors: list[int] = field(default_factory=list)
    abi_flags: set[str] = field(default_factory=set)
    torch_imports: list[str] = field(default_factory=list)
    std_flags: list[str] = field(default_factory=list)
    rocm: bool = False
    cuda_version_code: bool = False
    pip_isolated: bool = False
    no_build_isolation: bool = False
    cmake_by_hand: bool = False
    building: bool = False
    built: list[str] = field(default_factory=list)
    cuda_compared: bool = False
    nvcc_seen: bool = False
    cuda_seen: bool = False
    cudnn_version_unread: bool = False
    cuda_install_versions: list[str] = field(default_factory=list)
    nvcc_code: bool = False
    torch_removed: list[str] = field(default_factory=list)
    torch_no_platform_wheel: bool = False
    frozen: bool = False
    interactive: bool = False


def _add(xs: list, x: object) -> None:  # type: ignore[type-arg]
    if len(xs) < MAX_FACTS and x not in xs:
        xs.append(x)


class ContextCollector:
    """Collects a :class:`LogContext` from lines fed in order (cheap: a line is looked
    at only when it contains one of a few anchor words)."""

    def __init__(self) -> None:
        self.ctx = LogContext()

    def feed(self, body: str) -> None:
        """Look at one normalised line."""
        if not _ANCHOR_WORDS.any_in(body):
            return
        c = self.ctx
        if "torch" in body or "Torch" in body:
            # the pre-check holds for every line _TORCH_VER can match (most lines that name torch are paths:
            # "/src/pytorch/aten/...", "torch_cpu.dir")
            if (_TORCH_NEXT.search(body) or "PyTorch version:" in body or _TORCH_START.match(body)) and (
                m := _TORCH_VER.search(body)
            ):
                _add(c.torch_versions, m.group("v"))
            if "conda-forge" in body and _CONDA_FORGE_TORCH.search(body):
                c.torch_conda_forge = True
            if ("cpu_" in body or "+cpu" in body) and _TORCH_CPU_BUILD.search(body):
                c.torch_cpu_build = True
            if "has no wheels with a matching" in body:
                c.torch_no_platform_wheel = True
            if ("uninstalled" in body or "==" in body) and (m := _TORCH_REMOVED.search(body)):
                _add(c.torch_removed, m.group("v") or m.group("u"))
            if "torchvision" in body:
                m = _TORCHVISION_VER.search(body)
                if m:
                    _add(c.torchvision_versions, m.group("v"))
            if len(c.torch_imports) < MAX_FACTS and ("File " in body or " in <module>" in body):
                m = _TORCH_IMPORT.search(body) or _TORCH_INIT_IPY.search(body)
                if m:
                    _add(c.torch_imports, m.group("p"))
        cuda = "cuda" in body or "CUDA" in body
        if cuda or "FatBin" in body or "_hip" in body:
            c.cuda_seen = True
        if "cuDNN: v?" in body:
            c.cudnn_version_unread = True
        if len(c.cuda_install_versions) < MAX_FACTS and " in '" in body and (m := _CUDA_INSTALL_LINE.match(body)):
            c.cuda_install_versions.append(m.group("v"))  # repeats kept: two equal versions are the point
        if cuda or "release " in body:
            for m in _CUDA_VER.finditer(body):
                v = next(g for g in m.groups() if g)
                if len(v) == 3 and "." not in v:  # +cu118
                    v = f"{v[:2]}.{v[2]}"
                _add(c.cuda_versions, v)
                if m.group("a") or m.group("h"):
                    _add(c.nvcc_versions, v)
        if "c++/" in body or "gcc" in body or "GCC" in body:
            for m in _GCC_MAJOR.finditer(body):
                _add(c.gcc_majors, int(next(g for g in m.groups() if g)))
        if "_GLIBCXX_USE_CXX11_ABI" in body:
            for m in _ABI_FLAG.finditer(body):
                c.abi_flags.add(m.group("v"))
        if "-std=" in body:
            for m in _STD.finditer(body):
                _add(c.std_flags, m.group("v"))
        if (
            not c.rocm
            and (
                "hipcc" in body
                or "/opt/rocm" in body
                or "HIP_PLATFORM" in body
                or "ROCm" in body
                or "compiling for gfx" in body
                or "offload-arch=gfx" in body
            )
            and not _NO_ROCM.search(body)
        ):
            c.rocm = True
        if not c.cuda_version_code and "version" in body.lower() and _CUDA_VERSION_CODE.search(body):
            c.cuda_version_code = True
        if "build-isolation" in body:
            c.no_build_isolation = True
        if not c.pip_isolated and ("Installing build dependencies" in body or "pip-build-env" in body):
            c.pip_isolated = True
        if "nvcc" in body:
            c.nvcc_seen = True
            if not c.nvcc_code and _NVCC_CODE.search(body):
                c.nvcc_code = True
        if not c.building and _BUILDING_WORDS.any_in(body) and _BUILDING.search(body):
            c.building = True
        if len(c.built) < MAX_FACTS and (
            "wheel" in body or "setup.py" in body or "editable" in body or "building '" in body
        ):
            for m in _BUILT.finditer(body):
                for name in (m.group("p") or m.group("q") or "").split(","):
                    if name.strip():
                        _add(c.built, name.strip().lower().replace("-", "_"))
        if not c.cuda_compared and "The detected CUDA version" in body:
            c.cuda_compared = True
        if not c.frozen and ("pyimod0" in body or "_MEI" in body or "initscripts" in body) and _FROZEN.search(body):
            c.frozen = True
        if not c.interactive and (
            'File "<stdin>"' in body or 'File "<string>"' in body or body.lstrip().startswith(">>> ")
        ):
            c.interactive = True
        if not c.cmake_by_hand and (
            body.lstrip("$ ").startswith("cmake ") or "-DCMAKE_PREFIX_PATH" in body or "Torch_DIR=" in body
        ):
            c.cmake_by_hand = True
