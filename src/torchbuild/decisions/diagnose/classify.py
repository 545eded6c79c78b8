"""What kind of line a log line is: normalisation (CI prefixes, pip frames; translated tool messages are put back
in English by :mod:`.localize`) and the shapes of real errors, summaries/wrappers and warnings."""

from __future__ import annotations

import functools
import re

from ...knowledge import rows
from ..diagnose_triggers import HEAD_LINES as HEAD_LINES  # re-exported: its home is light to import
from ..diagnose_triggers import TAIL_LINES as TAIL_LINES
from ..diagnose_triggers import TRIGGERS as TRIGGERS
from .localize import delocalize
from .pasted import from_error_list, unbold

#: A line is examined only when it contains one of these (case-sensitive) words, or one of the
#: ASCII translations of knowledge/data/localized.toml (:func:`gate` joins both); every signature
#: example must contain one of these (tested).
GATE: tuple[str, ...] = (
    "rror",
    "RROR",
    "ehler",  # German gcc ("Fehler: ") under LANG=de (knowledge/data/localized.toml, ascii rows)
    "rreur",  # French ("erreur: ")
    "erro ",  # Portuguese ("erro fatal: ")
    # Python's OSError text, whose strerror may be translated ("[Errno 13] Keine Berechtigung", ENOSPC's
    # "[Errno 28] Auf dem Gerät ist kein Speicherplatz ...")
    "Errno",
    "ail",
    "AIL",
    "atal",
    "ATAL",
    "***",
    "Killed",
    "not found",
    "No rule",
    "ndefined",
    "egmentation",
    "elocation",
    "No space",
    "no space left",  # Go's ENOSPC text (Docker: "write /opt/...: no space left on device")
    # Apple's cctools as: "{standard input}:688:no such instruction: `vmovdqa ...'" (knowledge: assembler-no-such-
    # instruction; GNU as writes "Error: " before it)
    "no such instruction",
    "Traceback",
    "annot",  # "cannot", "Cannot" (at a line's end too)
    "No such file",
    "no such file",  # Go's and Docker's strerror text, a retyped message ("/usr/local/cuda/bin/nvcc: no such file ...")
    "No module",
    "nsupported",
    "required",
    "mismatch",
    "nknown",
    "too old",
    "find Python.h",  # torch.compile's C++ builder: "UserWarning: Can't find Python.h in /usr/include/python3.12"
    "utdated",  # JAX's CUDA plugin: "Outdated cuDNN installation found." (knowledge: jax-outdated-cudnn)
    "ould NOT",
    "ould not",
    "does not",
    "doesn't",
    "not set",
    "must be specified",  # fiona's and rasterio's "A GDAL API version must be specified."
    "already exists in database",  # C++ protobuf's registry: "File already exists in database: onnx/onnx-ml.proto"
    "multiple CuPy packages",  # CuPy's start-up warning: "... because multiple CuPy packages are installed"
    "wasn't build with CUDA",  # xformers' operators: "xFormers wasn't build with CUDA support" (sic)
    "install PyTorch first",  # auto-gptq's setup.py (knowledge: autogptq-requires-pytorch-first)
    "Running pass '",  # LLVM's stack trace of a crash inside a pass (knowledge: llvm-crash-running-pass)
    "from torch._six",  # a traceback cut before its error, its last frame the import (knowledge: torch-six-removed)
    "is not an object",  # GNU ld: "member libx.a(y.o) in archive is not an object" (ld-archive-member-not-an-object)
    # uv's hint under "no source distribution or wheel for the current platform": "hint: You're on Linux
    # (`manylinux_2_17_x86_64`), but `nvidia-cublas-cu12` (v12.8.4.1) only has wheels for ..."
    # (knowledge: uv-no-wheel-older-manylinux)
    "only has wheels for",
    # nvcc's option check pasted without its "nvcc fatal   :" prefix: "Value 'sm_75' is not defined for option
    # 'gpu-architecture'" (inducer/pycuda#191; knowledge: nvcc-unsupported-gpu-arch and the other "Value" rows)
    "is not defined for option",
    # torchvision's different-CUDA message, its second sentence pasted alone: "PyTorch has CUDA Version=11.7 and
    # torchvision has CUDA Version=11.8." (knowledge: extension-different-cuda)
    "has CUDA Version=",
    # nvdiffrast's JIT loader (and nvdiffrec's copies): "Lock file exists in build directory: '.../lock'" (knowledge:
    # nvdiffrast-stale-lock-warning)
    "Lock file exists",
    "supported wheel",  # pip: "X-manylinux_2_35_x86_64.whl is not a supported wheel on this platform." (no ERROR:)
    "Rust package manager",  # maturin: "Cargo, the Rust package manager, is not installed or is not on PATH."
    "No CUDA toolkit found",  # nerfstudio's packages: "NerfAcc: No CUDA toolkit found. NerfAcc will be disabled."
    # onnxruntime-gpu: "CUDA_PATH is set but CUDA wasnt able to be loaded." (onnxruntime-cuda-provider-not-loaded)
    "able to be loaded",
    "not compatible",
    "not all work",  # CMake 3.22-3.23: "The CMAKE_CUDA_ARCHITECTURES: ... do not all work with this compiler."
    "denied",
    "permitted",
    "LNK",
    "C2872",
    "died",
    # GCC's "dereferencing pointer to incomplete type 'THTensor ...'" pasted without its "error:" prefix
    # (longcw/RoIAlign.pytorch#11, issue 11 batch 1133 held-out, read after session 56's round-A measurement)
    "incomplete type",
    # nvlink's "Input file '<lib>.a:<obj>.o' newer than toolkit (112 vs 110)", whose path a paste wraps onto a line
    # of its own (knowledge: nvlink-input-newer-than-toolkit)
    "newer than toolkit",
    "emory",
    "heap space",
    "Compatibility with",
    "compiled without support",  # old torch's cuDNN warning (knowledge: torch-built-without-cudnn-found-at-run-time)
    "c++/4.",  # GCC 4's standard library headers in an error's notes (knowledge: gcc4-standard-library-headers)
    # gcc -v of GCC 4 pasted beside a failed build (knowledge: gcc4-version-banner)
    "gcc version 4.",
    "lto-wrapper",
    # gcc's "'X' was not declared in this scope" retyped without its "file:line: error:" (CharlesShang/DCNv2#89)
    "not declared",
    # CMake's link interface of torch's NVTX target (knowledge: torch-nvtoolsext-link-interface-nvtx-missing)
    "torch::nvtoolsext",
    "ncompatib",
    "kernel image",
    "or higher",
    # "unrecognized", LLVM's "'sm_120' is not a recognized processor", cmd.exe's "'cl' is not recognized as an
    # internal or external command"
    "recognized",
    # "invalid value", pip >= 24.1's "invalid metadata", CUDA/HIP's "invalid device function" (cudaErrorInvalid-
    # DeviceFunction), setuptools' "invalid command 'bdist_wheel'"
    "nvalid",
    "fopenmp",
    "NOTFOUND",
    "NOT_FOUND",  # Windows' STATUS_DLL_NOT_FOUND / STATUS_ENTRYPOINT_NOT_FOUND exit codes
    "ADVANCED",
    "nable to",
    "xception",
    "CUDA_HOME",
    "submodule",
    "version should be",  # DeepGEMM's "NVCC version should be >= 12.3" (package-asserts-newer-nvcc)
    "can't cd",  # dash's cd: "/bin/sh: 1: cd: can't cd to /x/third_party/nccl/nccl" (third-party-path-not-found)
    "previously",
    "RPATH",
    "UnknownType",
    "protoc",
    "onflict",
    "but you have",
    "not compiled",  # torch's "Torch not compiled with CUDA enabled", pasted without its AssertionError
    "GLIBC",
    "CXXABI",
    "WinError",
    "THC",
    "AT_CHECK",
    "C++17",
    "NumPy",
    "numpy",
    "CuDNN",
    "quota",
    "Disk",
    "signal",
    "Stop.",
    "没有",
    "无法",
    "未声明",
    "不明确",
    "导出",
    "不匹配",
    "错误",
    "build dependency",
    "is too",
    "only supported",
    "could be found",
    "COMPILER",
    "ermission",
    "CUDNN",
    "needed by",
    "LAPACK",  # a torch built without LAPACK says so only in a RuntimeError: pytorch/xla#6400
    "Lapack",
    "WHOLE_COMPILATION",  # the variable CMake 3.23.0 names after "Missing variable is:" (pytorch/pytorch#74985)
    "'+PTX'",  # the traceback's source line of cpp_extension's empty arch list (pytorch/pytorch#137261)
    "No working",  # inductor's InvalidCxxCompiler: "No working C++ compiler found in ..." (torch/_inductor/exc.py)
    "not loaded",  # macOS dyld: "Library not loaded: @rpath/libomp.dylib"
    "and above",  # PyTorch's CMake: "PyTorch requires cuDNN 8.1 and above." (cmake/public/cuda.cmake, v2.6.0)
    "or above",
    "not supported",  # nvcc: "The version ('90000') of the host compiler ('Apple clang') is not supported"
    "not yet supported",  # a project's CMake check: "cuDNN version >= 8 is not yet supported." (gnina/gnina#133)
    "(no such file",  # dyld (macOS 12+): "Reason: tried: '/x/libc10.dylib' (no such file), ..."
    "says CUDA version",  # PyTorch's CMake: "FindCUDA says CUDA version is X ... but the CUDA headers say ..."
    "NoBinaryForGpu",  # HIP runtime: "hipErrorNoBinaryForGpu: Unable to find code object ..."
    "hipcc: ",  # the shell cannot run hipcc, in any language: "/bin/sh: строка 1: bin/hipcc: Нет такого файла ..."
    "paging file",  # Windows: "The paging file is too small for this operation to complete."
    "libdevice",  # nvcc: "Path to libdevice library not specified"
    "where', 'cl'",  # cpp_extension: "Command '['where', 'cl']' returned non-zero exit status 1."
    "which', '",  # cpp_extension's probe on Linux: "Command '['which', 'c++']' returned ..." (IsaacGymEnvs#68)
    "(you have",  # xFormers: "PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)" (xformers/_cpp_lib.py)
    "writing file",  # ptxas: "Internal error: writing file"
    "language dialect",  # CMake: 'requires the language dialect "CUDA17"'
    "must be installed",  # pybind's cmake_example setup.py: "CMake must be installed to build ..."
    "developer path",  # macOS xcrun: "invalid active developer path"
    "externally-managed",  # pip (PEP 668): "error: externally-managed-environment"
    "externally managed",  # pip's next line: "× This environment is externally managed"
    "No such operator",  # torch: "No such operator torchvision::nms"
    "nsatisfiable",  # conda: "UnsatisfiableError: ... incompatible with each other"
    "ACCESS_VIOLATION",  # nvcc on Windows: "'cicc' died with status 0xC0000005 (ACCESS_VIOLATION)"
    "C1001",  # MSVC: "fatal error C1001: Internal compiler error."
    "Program arguments",  # LLVM's crash report: "0.  Program arguments: /opt/rocm/hcc/bin/llc ..."
    "PLEASE submit",  # LLVM: "PLEASE submit a bug report to ... and include the crash backtrace"
    # Python: "Remote end closed connection without response", "ConnectionResetError", urllib3's HTTPSConnectionPool
    "onnection",
    "Symbol not found",  # dyld: "Symbol not found: __ZN2at..."
    "extension is not",  # torchaudio: "torchaudio C++ extension is not available"
    "given source",  # CMake: 'add_subdirectory given source "X" which is not an existing directory.'
    "No url found",  # git: "No url found for submodule path 'x' in .gitmodules"
    "curl: (",  # curl: "curl: (6) Could not resolve host: github.com"
    "urlopen error",  # urllib: "<urlopen error [Errno -3] Temporary failure in name resolution>"
    "CERTIFICATE_VERIFY_FAILED",
    "only available",  # GCC: "inline variables are only available with '-std=c++17'", "... from C++17 onwards"
    "C2429",  # MSVC: "language feature 'X' requires compiler flag '/std:c++17'"
    "LIBNVTOOLSEXT",  # CMake's NOTFOUND list: torch's find_library(LIBNVTOOLSEXT ...)
    "ABI mismatch",
    "environment variable",  # CMake: "Could not find compiler set in environment variable CC:"
    "member of",  # GCC: "'is_same_v' is not a member of 'std'"
    "in namespace",  # clang: "no template named 'optional' in namespace 'std'"
    "file_baton",  # a stack's frame of torch's extension lock: 'file_baton.py", line 50 in wait'
    "lock file",  # torch's FileBaton: 'Waited on lock file "X" for N seconds.'
    "extensions root",  # torch's JIT loader: "Using X as PyTorch extensions root..."
    "cuda:/",  # CUDA_HOME set like PATH, in an include flag: "-isystem /usr/local/cuda:/usr/local/cuda:/include"
    "std::_TC<",  # gcc's note "In instantiation of 'static constexpr bool std::_TC<...'" in GCC 6's <tuple> (nvcc)
    "in google::protobuf::",  # gdb's frame of a crash inside protobuf's C++ code (k2-fsa/icefall#674)
)


# --------------------------------------------------------------- classification
def _ci_stamp(space: str) -> str:
    """The regex of a CI log's line prefix, each bracketed form followed by ``space``."""
    return (
        r"(?:"
        # a container runtime's log file (CRI: kubelet's /var/log/containers): "<time> stdout F <line>"
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) (?:stdout|stderr) [FP] "
        # GitHub Actions; `gh run view --log` puts "<job>\t<step>\t" in front (cli/cli#10551)
        r"|(?:[^\t\n]{1,300}\t[^\t\n]{1,300}\t)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?\s"
        r"|#\d+ \d+\.\d+ "  # docker buildkit
        # BuildKit's error summary (docker build / buildx): the failing step's last lines, each behind its seconds
        # since the step started ("1.181 IndexError: list index out of range": mlcommons/training#690, issue 11
        # batch 451 held-out, read after session 38's round A measurement; the same form in six seen logs, e.g.
        # batch 10's MinkowskiEngine docker build)
        r"|\d{1,4}\.\d{3} "
        # journalctl's default output ("short": "mostly identical to the formatting of classic syslog files",
        # journalctl(1) of systemd 252): "May 01 12:00:00 host unit[1234]: "; the same time stamp alone, as
        # PyTorch's CircleCI logs of 2019 show it ("May 23 16:18:47 ImportError: ..."; issue 11 batch 325 dev)
        r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (?:[\w.-]+ [\w.@/-]+(?:\[\d+\])?: )?"
        # docker compose's service prefix: "<service>-<n>  | " (Compose v2), "<project>_<service>_<n>  | " (v1)
        r"|[A-Za-z][\w.-]*?[-_]\d+\s+\| "
        # torchrun's per-worker prefix: "[default0]:" (tail_log.py of torch.distributed.elastic), "[rank0]: "
        r"|\[(?:rank|default)\d+\]: ?"
        # [2024-01-01 12:00:00]; Jenkins' Timestamper: [2024-10-17T00:05:34.680Z] (ROCm/pytorch#1640,
        # Project-MONAI/tutorials#1986)
        rf"|\[\d{{4}}-\d\d-\d\d[ T][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]{space}"
        rf"|\[\d\d:\d\d:\d\d(?:\.\d+)?\]{space}"  # [12:00:00]
        r")?"
    )


_PREFIX = re.compile(
    r"^(?:\ufeff)?" + _ci_stamp(r"\s*") + r"(?:>\s)*"  # a quoted reply on GitHub ("> Traceback ...")
    r"[\s│║┃|]*(?:╰─>\s*)?(?:>\s+)*"  # a quoted paste inside pip's frame, or the frame inside a quote
)

_WRAP_PAD = re.compile(r"(?<=\S) {8,}(?=\S)")
_PROGRESS = re.compile(r"^\[\d+/\d+\]\s")
_SNIPPET = re.compile(r"^\d+\s+\|\s|^\|\s|^[\s~^|]+$")

_SUMMARY = re.compile(
    r"""(?x)
    ^ninja:\ build\ stopped
  | ^error:\ command\ .{1,400}?\ (?:failed\ with\ exit\ (?:code|status)\ -?\d+|returned\ non-zero\ exit\ status)
  | ^error:\ command\ '[^']*'\ failed\s*$
  | ^collect2(?:\.exe)?:\ error:\ ld\ returned
  | ^(?:clang|clang\+\+|g\+\+|gcc|c\+\+)(?:-[\d.]+)?(?:\.exe)?:\ error:\ linker\ command\ failed
  | CalledProcessError\b
  | ^RuntimeError:\ Error\ compiling\ objects\ for\ extension
  | ^error:\ subprocess-exited-with-error
  | ^error:\ metadata-generation-failed
  | ^error:\ legacy-install-failure
  | ^×\ .*(?:did\ not\ run\ successfully|exit\ code|errored)
  | ^exit\ code:\ -?\d+
  | ^ERROR:\ (?:Failed\ building\ wheel|Could\ not\ build\ wheels|Failed\ to\ build|Command\ errored\ out)
  | ^Failed\ to\ build\ [\w.-]+(?:\s|$)
  | ^note:\ This\ error\ originates\ from\ a\ subprocess
  | ^(?:g?make|mingw32-make)(?:\[\d+\])?:\ \*\*\*\ (?:\[.*\]\ Error\ \d+|Waiting\ for\ unfinished)
  | ^--\ Configuring\ incomplete,\ errors\ occurred
  | ^See\ also\ ".*CMake(?:Output|Error|ConfigureLog)\.
  | ^Error:\ Process\ completed\ with\ exit\ code
  | ^The\ above\ exception\ was\ the\ direct\ cause
  | ^During\ handling\ of\ the\ above\ exception
  | \ (?:\.\.\.|:)\ error$
  | ^Building\ wheel\ for\ .*\ finished\ with\ status\ 'error'
  | ^error:\ Setup\ script\ exited\ with
  | ^CMake\ Error\ at\ \S+\.(?:cu|cpp|c)\.(?:o|obj)(?:\.\w+)?\.cmake:\d+
  | ^Error\ generating(?:\ file)?$
  | Failed\ to\ run\ '.*build_pytorch_libs
  | ^(?:error\ )?MSB\d+:|error\ MSB\d+:
  | ^Build\ FAILED\.
  | ^ERROR:\ Exception:?$
  | ^hint:\ This\ usually\ indicates\ a\ problem\ with\ the\ package
  | ^(?:\S+:\ )?\*\*\*\ \[.*\]\ Error\ \d+
  | ^FAILED:[ ]
    """
)

_WARNING = re.compile(
    r"(?:^|[\s:)\]])(?:warning|Warning)(?:\s*(?:[A-Z]+\d+|#\d+-D))?\s*:"
    r"|^WARNING\b|^CMake\ (?:Deprecation\ )?Warning|\w+Warning:",
)

#: A reporter's sentence that introduces the error pasted below it ("When I run `python WCT.py`, I get an error:",
#: "at runtime I encounter the following error:"), left in a paste: it names no error of its own, so it is not the
#: first error (sunshineatnoon/PytorchWCT#17, issue 11 batch 989 dev).  A sentence that goes on to quote the error
#: ('I get the import error: "ImportError: ..."') is read as before.
PROSE_INTRO = re.compile(
    r"\bI(?:'m| am| was)? (?:get|got|getting|encounter(?:ed)?|see|saw|receive[sd]?|run into|ran into|face[sd]?"
    r"|hit|have|had)\b[^:：`\"']{0,60}\berrors?\b"
    r"(?: (?:message|below|saying|like this|as follows|when\b[^:：`\"']{0,80}))?"
    r"\s*[:：.]?\s*\**\s*$",
    re.I,
)

#: The last line of a Python traceback: ``module.ExceptionName: message`` (the same alternative
#: is in :data:`_ERROR`).
PY_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?::|$)")

_ERROR = re.compile(
    r"""(?x)
    # gcc/clang/nvcc/MSVC "file:1:2: error:", "error C2065:"
    (?:^|[\s:)\]])(?:fatal\ )?error(?:\ [A-Z]{1,4}\d{1,5})?\s*:
  | ^(?:fatal\ )?error\b
  | ^ERROR:
  | \b(?:nvcc|nvlink|fatbinary)\ (?:fatal|error)\s*:                 # the CUDA toolchain's programs
  | ^ptxas\ (?:fatal|error)
  | ^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?::|$)                  # Python exception line
  | ^CMake\ Error
  | \bundefined\ reference\ to\b
  | \bundefined\ symbol\b
  | relocation\ truncated\ to\ fit
  | \bcannot\ find\ -l
  | :\ (?:command\ )?not\ found\s*$
  | ^Killed\s*$
  | Segmentation\ fault
  | internal\ compiler\ error
  | ^fatal:[ ]
  | No\ rule\ to\ make\ target
  | No\ space\ left\ on\ device
  | ^ninja:\ error:
  | missing\ and\ no\ known\ rule\ to\ make\ it
  | ^Undefined\ symbols\ for\ architecture\ \w+:                  # Apple ld (ld64)
    # coreutils (GNU "cp: cannot stat 'X': No such file or directory", BSD/macOS "cp: X: No such file or directory")
    # in a build script: the step that failed (ctongfei/nexus#26, issue 11 batch 793 dev)
  | ^(?:cp|mv|ln|install|cat|chmod|mkdir|tar|unzip):\ .*(?:No\ such\ file\ or\ directory|cannot\ stat)
    """
)


def _is_error_not_command(body: str, match) -> bool:  # type: ignore[no-untyped-def]
    """True when the line after ``FAILED:`` is an error message, not the command:
    a compiler diagnostic shape (``file:1:2: error:``, ``file(12): fatal error C1189:``,
    ``#error``), or else a known signature / error shape on a line that does not start
    like a command (issue 11: logs that were cut or re-wrapped)."""
    if not body:
        return False
    if _DIAG_SHAPE.match(body):
        return True
    if _COMMANDISH.match(body):
        return False
    return bool(_ERROR.search(body) or match(body) is not None)


#: A compiler diagnostic: ``path:12:3: error:``, ``path(12): fatal error C1189:``, ``#error``, or a CUDA tool's
#: own (``nvcc fatal   : A single input file is required ...``, ``ptxas error   :``), which starts with the tool's
#: name like its command would (0xShug0/audio.cpp#93, issue 11 batch 962 dev: a Windows paste of FAILED: lines
#: and nvcc's message, without the commands).
_DIAG_SHAPE = re.compile(
    r"^\S+?(?::\d+(?::\d+)?:|\(\d+\)\s*:)\s*(?:fatal\s+)?error\b|^#error\b|^\S+:\s*(?:fatal\s+)?error:"
    r"|^[\w.+-]+(?:\.exe)?\s+(?:fatal|error)\s*:\s"
)
#: A command line after FAILED: (a compiler, a tool, a path, an env assignment, cmd.exe).
_COMMANDISH = re.compile(
    r"^(?:[\w.+-]*(?:cc|c\+\+|g\+\+|clang\+*|nvcc|cl|link|ld|ar|hipcc|ccache|sccache|cmake|ninja|make|python\d?[\d.]*)(?:\.exe)?\s|/|[A-Za-z]:\\|\w+=\S*\s|cmd\.exe|cd\s|:\s*&&|\"[^\"]+\"\s)"
)


#: Terminal colour and cursor sequences (GCC's ``ESC[01;31mESC[K``error``ESC[mESC[K``, kept by CI logs).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: The frame around a line, without the indentation after it: a CI timestamp or docker step,
#: GitHub's quote markers, pip's ``│`` (a CMake message's continuation lines keep their indent).
_FRAME = re.compile(r"^(?:\ufeff)?" + _ci_stamp(r"\s?") + r"(?:> ?)*(?:\s*[│║┃] ?(?:> ?)*)?")


#: The characters that draw a box's right border (rich's panels; the left one is part of :data:`_PREFIX`).
_BOX_RIGHT = "│║┃"


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences (cheap when there are none)."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def unframe(text: str) -> str:
    """The line without its frame (CI timestamp, quote markers, pip's ``│``) and colours,
    keeping the indentation after the frame (CMake's continuation lines are indented)."""
    text = strip_ansi(text)
    m = _FRAME.match(text)
    return text[m.end() :] if m and m.end() else text


def normalize(text: str) -> str:
    """The line without CI prefixes (timestamps, docker step numbers), pip frames
    (``│``, ``╰─>``), terminal colours, surrounding whitespace and the backslash of a Python repr's
    ``\\'`` (a message pasted as ``'...version \\'GLIBC_2.27\\' not found...'``, takuseno/d3rlpy#223), GitHub's
    bold markup, and with a row of Visual Studio's Error List read as the line the tool printed (:mod:`.pasted`);
    a line that is not ASCII has the compiler's, the C library's and the shell's translated texts
    put back in English (:func:`delocalize`)."""
    text = strip_ansi(text)
    m = _PREFIX.match(text)
    if m and m.end():
        text = text[m.end() :]
    text = text.rstrip()
    if text and text[-1] in _BOX_RIGHT:
        # the right border of a box drawn around the output (rich's traceback panel: "│ ImportError: ...so: undefined
        # │" / "│ symbol: _ZN5torch...", NVIDIA/torch-harmonics#226, issue 11 batch 1182 dev)
        text = text[:-1].rstrip()
    if "\t" in text and text.startswith(("Error\t", "Warning\t")):
        text = from_error_list(text)
    if "**" in text:
        text = unbold(text)
    if "\\'" in text:
        text = text.replace("\\'", "'")
    return text if text.isascii() else delocalize(text)


@functools.lru_cache(maxsize=1)
def gate() -> tuple[str, ...]:
    """:data:`GATE` and the ASCII translations of knowledge/data/localized.toml (``ascii`` rows,
    without the ": " they may start with): "bash: nvcc: orden no encontrada" or "cat: x.h: Datei
    oder Verzeichnis nicht gefunden" is examined like its English form; an ASCII ``[[pattern]]`` row
    adds the longest fixed part of its text ("referencia a `%s' sin definir" -> "referencia a").  A new
    ASCII row of that file extends the gate by itself.

    :returns: the words (case-sensitive substrings) one of which a line must contain to be examined.
    """
    words = {
        r["localized"].strip(" :.")
        for r in rows("localized", "text")
        if r.get("ascii") and r["english"] != "warning: "  # a warning is never the failure
    }
    for r in rows("localized", "pattern"):
        if r["localized"].isascii():
            # the longest fixed part ("no se puede encontrar %s" -> "no se puede encontrar")
            words.add(max((p.strip(" :`'\"") for p in r["localized"].split("%s")), key=len))
    return GATE + tuple(sorted(w for w in words if w and not any(g in w for g in GATE)))


def _kind(body: str) -> str:
    if body.startswith("CMake Error"):
        return "cmake"
    if "nvcc" in body or body.startswith("ptxas"):
        return "nvcc"
    if re.search(r"\b(?:error|warning) (?:C|LNK)\d{4}\b", body):
        return "msvc"
    if "undefined reference" in body or "ld:" in body or "relocation truncated" in body or "cannot find -l" in body:
        return "linker"
    if PY_EXCEPTION.match(body):
        return "python"
    if re.search(r":\d+(?::\d+)?: (?:fatal )?error:", body):
        return "compiler"
    if "***" in body or "No rule to make target" in body:
        return "make"
    if body.startswith("ninja:"):
        return "ninja"
    if body.startswith(("ERROR:", "error:")):
        return "pip"
    if "not found" in body:
        return "shell"
    return "other"
