"""Every error and warning torch's extension builder (``torch/utils/cpp_extension.py``) can print, diagnosed.

Two releases are read: the real 2.6.0 tree (``orig_tree``: ../shared/sources' archive) and the torch
installed in the Python running the tests (2.13.0 here; skipped where there is none).  Each ``raise
E(...)``, ``warnings.warn(...)`` and ``logger.warning(...)`` of the module is found with ``ast`` and its
message is rendered as Python prints it: the module's own string constants and the local ``msg = ...``
strings are the module's text, the variables of f-strings take values such a build prints (a g++ 13.2.0,
CUDA 11.8 against a torch for 12.1, ...), and an exception with several arguments prints as their tuple
(2.13 raises ``RuntimeError(CUDA_MISMATCH_MESSAGE, found, torch's)``).  ``torchbuild diagnose`` must name
the cause each message states (the table below: what the code around each message checks), or
``unknown`` where no cause of causes.toml fits (a wrong argument passed to the API, an internal
assertion, a warning that does not stop the build).  A message missing from the table, or a table row that
no message of either release matches, fails the test.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import tempfile
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from torchbuild.api import diagnose

#: Values a failing build prints for the variables of the messages.
VALUES: dict[str, Any] = {
    "compiler": "g++",
    "compiler_name": "g++",
    "compiler_version": "13.2.0",
    "version": ["4", "8", "5"],  # -dumpfullversion split on dots, below torch's minimum (2.6)
    "numeric_version": ["4", "8", "5"],  # the same in 2.13
    "cuda_str_version": "11.8",
    "error": "[Errno 2] No such file or directory: 'g++'",
    "arch": "8.7",
    "pch_cmd": "g++ -x c++-header torch/extension.h -o extension.h.gch",
    "path_dir": "/root/.cache/torch_extensions/py311_cu121",
    "torch": SimpleNamespace(version=SimpleNamespace(cuda="12.1")),
    "nvcc": "/usr/local/cuda-12.1/bin/nvcc",
    "cuda_home": "/usr/local/cuda-12.1",
    "error_prefix": "Error building extension 'fused'",
    "message": "Error building extension 'fused'",
}

#: The start of each message (as rendered) -> the cause it states.
CAUSES: dict[str, str] = {
    # toolkits
    "ROCM_HOME environment variable is not set": "cuda_toolkit_not_found",
    "SYCL_HOME environment variable is not set": "cuda_toolkit_not_found",
    "SYCL runtime is not dected": "cuda_toolkit_not_found",
    "CUDA_HOME environment variable is not set": "cuda_toolkit_not_found",
    "CUDA was not found on the system": "cuda_toolkit_not_found",
    "nvcc not found at": "cuda_toolkit_not_found",
    "The detected CUDA version (11.8) mismatches": "cuda_version_mismatch",
    "('The detected CUDA version (%s) mismatches": "cuda_version_mismatch",
    "Unknown CUDA arch (": "arch_unknown_to_torch",
    # compilers and build tools
    "The current installed version of g++ (13.2.0) is less than": "host_compiler_unsupported",
    "The current installed version of g++ (13.2.0) is greater than": "host_compiler_unsupported",
    "WARNING Your compiler (g++ *) may be ABI-incompatible": "compiler_too_old",
    "Error checking compiler version for g++": "compiler_missing",
    "MSVC is required to load C++ extensions": "compiler_missing",
    "Ninja is required to load C++ extensions": "ninja_missing",
    "ninja is required to build sycl extensions": "ninja_missing",
    "With dlink=True, ninja is required": "ninja_missing",
    "setuptools>=49.4.0 is required": "python_dependency_missing",
}

#: Messages that name no cause of causes.toml, and why.
NO_CAUSE: dict[str, str] = {
    "Building PyTorch extensions using ROCm and Windows is not supported": "a platform pair torch refuses",
    "WARNING Your compiler (g++*) is not compatible with the compiler Pytorch": "a warning (c++ for g++)",
    "The detected CUDA version (11.8) has a minor version mismatch": "a warning: 'shouldn't be a problem'",
    "There are no g++ version bounds defined for CUDA version 11.8": "a warning: no table for that CUDA",
    "Attempted to use ninja as the BuildExtension backend but we could not find": "a warning: the build goes on",
    "It seems that the VC environment is activated but DISTUTILS_USE_SDK": "a setting of the Windows shell",
    "TORCH_CUDA_ARCH_LIST is not set": "a warning: every visible arch is built",
    "The environment variable `PYTORCH_ROCM_ARCH` is not set": "a warning: every visible arch is built",
    "No CUDA runtime is found, using CUDA_HOME=": "a warning at import where no GPU is seen; CPU builds go on",
    "No ROCm runtime is found, using ROCM_HOME=": "the same for ROCm",
    "Trying to find SYCL_HOME from intel-sycl-rt package": "a warning; the SYCL messages above tell",
    "Error building extension 'fused'": "the summary of a failed build: its cause is above it",
    "Fail to create path": "os.makedirs failed; the reason is not printed",
    "Compile PreCompile Header fail": "the failed command's own output tells",
    "Expected 'functions' to be a list or dict": "a wrong argument to load_inline",
    "`is_python_module` and `is_standalone` are mutually exclusive": "a wrong argument to load",
    "BuildExtension class is not initialized": "an internal state",
    "module 'X' has no attribute": "an internal lookup",
    "Failed to parse DPC++ compiler version": "an internal assertion",
    "bug: -fsycl-targets should have been amended": "an internal assertion",
    "cannot have both SYCL and CUDA files in the same extension": "a wrong extension definition",
    "Need to set WINDOWS_CUDA_HOME for windows cross-compilation": "a cross-compilation setting",
    "Failed to create spec for module": "an internal import step",
    "spec.loader is not a valid importlib Loader": "an internal import step",
    "sources and objects lists must be the same length": "an internal assertion",
    "At least one source is required to build a library": "a wrong extension definition",
}


class _Any(str):
    """The value of a name the table does not set: prints as X, and any attribute, call or index of it too."""

    def __getattr__(self, name: str) -> _Any:
        return self

    def __call__(self, *args: object, **kwargs: object) -> _Any:
        return self

    def __getitem__(self, key: object) -> _Any:
        return self


def _constants(tree: ast.Module) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


def _local_strings(tree: ast.Module) -> dict[int, list[tuple[int, str, ast.expr]]]:
    """{line of a statement: [(line, name, expression)]} of the string assignments of the function around it,
    in order (a message uses those made before it)."""
    out: dict[int, list[tuple[int, str, ast.expr]]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        names = sorted(
            (n.lineno, n.targets[0].id, n.value)
            for n in ast.walk(fn)
            if isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
            and isinstance(n.value, ast.Constant | ast.JoinedStr)
        )
        for n in ast.walk(fn):
            if hasattr(n, "lineno"):
                out[n.lineno] = names  # a nested function's come later in the walk and win
    return out


def messages(path: Path) -> list[str]:
    """Every message of the module at ``path`` as Python prints it (``Kind: text``)."""
    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    consts = _constants(tree)
    local = _local_strings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            kind = node.exc.func.id if isinstance(node.exc.func, ast.Name) else "Error"
            args, fmt = node.exc.args, "exception"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("warn", "warning")
            and node.args
        ):
            kind, args, fmt = "UserWarning", node.args, ("logging" if node.func.attr == "warning" else "warn")
        else:
            continue
        ns: dict[str, Any] = defaultdict(lambda: _Any("X"))
        ns.update(consts)
        ns.update(VALUES)
        for line, name, expr in local.get(node.lineno, []):
            if line < node.lineno:
                ns[name] = eval(compile(ast.Expression(expr), str(path), "eval"), {}, ns)
        values = [eval(compile(ast.Expression(a), str(path), "eval"), {}, ns) for a in args]
        if fmt == "logging":
            text = str(values[0]) % tuple(values[1:]) if len(values) > 1 else str(values[0])
            if any(k.arg == "exc_info" for k in node.keywords):  # logging prints the exception's traceback after it
                text += f"\nTraceback (most recent call last):\nFileNotFoundError: {VALUES['error']}"
        elif fmt == "warn" or len(values) == 1:
            text = str(values[0])
        else:
            text = str(tuple(values))
        out.append(f"{kind}: {text}")
    return out


def _norm(text: str) -> str:
    """``text`` without the warning banners' ``!`` and with single spaces."""
    return " ".join(text.replace("!", " ").split())


def _key(msg: str) -> str | None:
    """The table row whose text starts the message (after its ``Kind: ``; ``*`` in a row stands for a value
    that differs between the releases), or None."""
    flat = _norm(msg.split(": ", 1)[1])
    rows = list(CAUSES) + list(NO_CAUSE)
    return next((k for k in rows if re.match(re.escape(_norm(k)).replace(r"\*", ".*?"), flat)), None)


def _sources(orig_tree: Path | None) -> dict[str, Path]:
    out = {}
    if orig_tree is not None:
        out["2.6.0"] = orig_tree / "torch" / "utils" / "cpp_extension.py"
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.origin:
        installed = Path(spec.origin).parent / "utils" / "cpp_extension.py"
        if installed.is_file():
            out["installed"] = installed
    return out


def _cause(msg: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as f:
        f.write(msg + "\n")
    try:
        return diagnose(f.name).causes[0].cause_id
    finally:
        Path(f.name).unlink()


def test_every_message_of_the_extension_builder_names_its_cause(orig_tree):
    seen: set[str] = set()
    wrong = []
    sources = _sources(orig_tree)
    for release, path in sources.items():
        for msg in messages(path):
            key = _key(msg)
            assert key is not None, f"{release}: a message missing from the table: {msg[:200]!r}"
            seen.add(key)
            want = CAUSES.get(key, "unknown")
            got = _cause(msg)
            if got != want:
                wrong.append(f"{release}: {msg[:160]!r}: {got}, expected {want}")
    assert not wrong, "\n".join(wrong)
    if len(sources) == 2:
        assert set(CAUSES) | set(NO_CAUSE) == seen, f"rows no message matched: {(set(CAUSES) | set(NO_CAUSE)) - seen}"


def test_the_renderer_prints_what_python_prints(tmp_path):
    """The two ways a message reaches a log: an exception of one argument prints it, of several their tuple."""
    path = tmp_path / "m.py"
    path.write_text("M = 'a (%s) b (%s)'\ndef f():\n    raise RuntimeError(M, cuda_str_version, '12.1')\n")
    assert messages(path) == ["RuntimeError: ('a (%s) b (%s)', '11.8', '12.1')"]
