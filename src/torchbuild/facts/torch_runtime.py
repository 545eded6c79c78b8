"""Run a small collector inside another Python interpreter and bring back, as JSON, what
its installed torch (and an extension) says about itself.

One subprocess per call: ``<python> -I -c <collector>`` (isolated mode: no
``PYTHONPATH``, no user site, no script directory on ``sys.path``) with its working
directory a fresh empty temporary directory, so a source tree can never shadow the
installed package.  It reports: import result, ``torch.__version__``,
``torch.version.cuda``/``git_version``/``debug``, ``torch._C._GLIBCXX_USE_CXX11_ABI``,
``torch.__config__.show()``, CUDA availability and the visible GPUs' compute
capabilities, a small tensor op (``torch.add(tensor([1., 2.]), tensor([3., 4.]))``,
on the GPU too when one is available), the compiled modules (``torch/_C*.so``,
``torch/lib/*.so*``; for an extension every ``*.so`` of its package), the shared
libraries mapped into the process (``/proc/self/maps``) and, for an extension, the
result of an optional smoke snippet.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any

from ..errors import UsageError

#: Seconds allowed for the collecting subprocess (a CUDA torch can take ~20 s to import
#: on a cold disk).
COLLECT_TIMEOUT_S = 300

_MARKER = "@@torchbuild-verify@@"

# --------------------------------------------------------------------------------------
# The collector: runs inside the checked Python.  Standard library only; Python >= 3.8.
# --------------------------------------------------------------------------------------
_COLLECTOR = r"""
import glob, importlib, json, os, sys, traceback
mode, module, smoke, marker = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
r = {"python": sys.executable, "python_version": sys.version.split()[0], "cwd": os.getcwd(), "errors": {}}

def err(key, exc):
    r["errors"][key] = "".join(traceback.format_exception_only(type(exc), exc)).strip()

def attempt(key, fn):
    try:
        r[key] = fn()
    except BaseException as exc:
        err(key, exc)

def sofiles(root, recursive):
    pattern = "**/*.so*" if recursive else "*.so*"
    out = []
    for p in glob.glob(os.path.join(root, pattern), recursive=recursive):
        if os.path.isfile(p) and not os.path.islink(p) and (p.endswith(".so") or ".so." in os.path.basename(p)):
            out.append(os.path.realpath(p))
    return sorted(set(out))

torch = None
try:
    import torch
    r["torch_import"] = True
except BaseException as exc:
    r["torch_import"] = False
    err("import torch", exc)
if torch is not None:
    r["torch_file"] = getattr(torch, "__file__", None)
    tdir = os.path.dirname(os.path.realpath(torch.__file__)) if getattr(torch, "__file__", None) else None
    r["torch_dir"] = tdir
    r["version"] = str(getattr(torch, "__version__", None))
    v = getattr(torch, "version", None)
    r["cuda"] = getattr(v, "cuda", None)
    r["hip"] = getattr(v, "hip", None)
    r["git_version"] = getattr(v, "git_version", None)
    r["debug"] = getattr(v, "debug", None)
    attempt("cxx11_abi", lambda: bool(torch._C._GLIBCXX_USE_CXX11_ABI))
    attempt("config", lambda: torch.__config__.show())
    attempt("cuda_available", lambda: bool(torch.cuda.is_available()))
    if r.get("cuda_available"):
        attempt("gpus", lambda: [{"name": torch.cuda.get_device_name(i),
                                   "capability": "%d.%d" % torch.cuda.get_device_capability(i)}
                                  for i in range(torch.cuda.device_count())])
        attempt("cuda_arch_list", lambda: list(torch.cuda.get_arch_list()))
    attempt("op", lambda: torch.add(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])).tolist())
    if r.get("cuda_available"):
        attempt("op_cuda", lambda: (torch.tensor([1.0, 2.0], device="cuda") + 3).cpu().tolist())
    if tdir:
        r["torch_files"] = sofiles(tdir, False) + sofiles(os.path.join(tdir, "lib"), False)
if mode == "extension":
    try:
        m = importlib.import_module(module)
        r["ext_import"] = True
        r["ext_file"] = getattr(m, "__file__", None)
        r["ext_version"] = str(getattr(m, "__version__", "")) or None
        files = []
        for d in list(getattr(m, "__path__", []) or []):
            files += sofiles(d, True)
        if not files and r["ext_file"] and ".so" in os.path.basename(r["ext_file"]):
            files = [os.path.realpath(r["ext_file"])]
        r["ext_files"] = sorted(set(files))
        if smoke:
            try:
                ns = {"torch": torch, "__name__": "__torchbuild_smoke__"}
                ns[module.split(".")[0]] = importlib.import_module(module.split(".")[0])
                exec(compile(smoke, "<smoke>", "exec"), ns)
                r["smoke_ok"] = True
            except BaseException as exc:
                r["smoke_ok"] = False
                err("smoke", exc)
    except BaseException as exc:
        r["ext_import"] = False
        err("import " + module, exc)
try:
    with open("/proc/self/maps") as f:
        r["mapped"] = sorted({line.split(None, 5)[5].strip() for line in f
                              if len(line.split(None, 5)) == 6 and ".so" in line})
except OSError:
    r["mapped"] = None
sys.stdout.write("\n" + marker + json.dumps(r) + "\n")
"""


def resolve_python(python: str) -> str:
    """The absolute path of ``python`` (a path, or a name on PATH).

    :raises UsageError: it does not exist or is not executable.
    """
    path = shutil.which(python) if os.sep not in python else python
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(
            f"Python interpreter {python!r} does not exist or is not executable.",
            fix="pass --python with the path of the python that has torch installed (e.g. .venv/bin/python).",
        )
    return os.path.abspath(path)


def collect(python: str, mode: str, module: str, smoke: str | None) -> dict[str, Any]:
    """Run the collector in a clean subprocess; return its JSON.

    :raises UsageError: the interpreter cannot run at all, or is not Python >= 3.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    with tempfile.TemporaryDirectory(prefix="torchbuild-verify-") as cwd:
        try:
            proc = subprocess.run(
                [python, "-I", "-c", _COLLECTOR, mode, module, smoke or "", _MARKER],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=COLLECT_TIMEOUT_S,
            )
        except OSError as exc:
            raise UsageError(f"cannot run {python}: {exc}", fix="pass --python with a working interpreter.") from exc
        except subprocess.TimeoutExpired:
            return {"errors": {"collect": f"the check did not finish in {COLLECT_TIMEOUT_S} s"}, "torch_import": False}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(_MARKER):
            data = json.loads(line[len(_MARKER) :])
            data["stderr_tail"] = proc.stderr[-2000:]
            return data
    tail = (proc.stderr or proc.stdout).strip()[-1500:]
    if proc.returncode != 0 and ("SyntaxError" in tail or "Unknown option" in tail):
        raise UsageError(f"{python} is not a Python 3 interpreter: {tail}", fix="pass --python with Python 3.")
    return {
        "errors": {"collect": f"the checking process exited with code {proc.returncode}: {tail}"},
        "torch_import": False,
    }


def find_module_files(python: str, module: str) -> list[str]:
    """The ``.so`` files of ``module`` located without importing it (``importlib.util.find_spec``
    of the top package, in a clean subprocess); ``[]`` when not found."""
    top = module.split(".")[0]
    code = (
        "import importlib.util, json, glob, os, sys\n"
        f"s = importlib.util.find_spec({top!r})\n"
        "out = []\n"
        "if s is not None:\n"
        "    for d in (s.submodule_search_locations or []):\n"
        "        out += glob.glob(os.path.join(d, '**', '*.so*'), recursive=True)\n"
        "    if s.origin and '.so' in os.path.basename(s.origin): out.append(s.origin)\n"
        "print(json.dumps(sorted({os.path.realpath(p) for p in out if os.path.isfile(p)})))\n"
    )
    with tempfile.TemporaryDirectory(prefix="torchbuild-verify-") as cwd:
        try:
            proc = subprocess.run([python, "-I", "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60)
            return (
                json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 and proc.stdout.strip() else []
            )
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError, OSError):
            return []
