"""Verify an installed torch, or an extension built against it, in a clean subprocess.

One subprocess per call: ``<python> -I -c <collector>`` (isolated mode: no
``PYTHONPATH``, no user site, no script directory on ``sys.path``) with its working
directory a fresh empty temporary directory, so a source tree can never shadow the
installed package.  It reports, as JSON: import result, ``torch.__version__``,
``torch.version.cuda``/``git_version``/``debug``, ``torch._C._GLIBCXX_USE_CXX11_ABI``,
``torch.__config__.show()``, CUDA availability and the visible GPUs' compute
capabilities, a small tensor op (``torch.add(tensor([1., 2.]), tensor([3., 4.]))``,
on the GPU too when one is available), the compiled modules (``torch/_C*.so``,
``torch/lib/*.so*``; for an extension every ``*.so`` of its package), the shared
libraries mapped into the process (``/proc/self/maps``) and, for an extension, the
result of an optional smoke snippet.

Then, in this process, each compiled module goes through the real ``ldd`` (any
``=> not found`` is a failed check, except the NVIDIA driver's own ``libcuda.so.1`` /
``libnvidia-ml.so.1``, which only a machine with the driver has: reported as a note) and
through ``pyelftools`` (``DT_NEEDED``, ``DT_RUNPATH``/``DT_RPATH``, whether undefined
symbols use the ``std::__cxx11`` ABI).  For an extension, ``ldd`` runs with the installed
torch's ``lib`` directory first on ``LD_LIBRARY_PATH``: ``import torch`` has already
loaded those libraries when the extension is imported, so the loader finds them by
soname, which a plain ``ldd`` cannot know (every extension built with
``torch.utils.cpp_extension`` has no RPATH to them).

Failed checks are reported, never raised; :class:`torchbuild.errors.UsageError` only for
a Python that does not exist or cannot run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any

from ..decisions.torch_config import TorchConfig, parse_torch_config
from ..decisions.verify_causes import CHECK_CAUSES, ExtensionInfo, explain_import_failure
from ..errors import UsageError

__all__ = ["Expectations", "Check", "VerifyReport", "verify_torch", "verify_extension", "arch_runs_on"]

#: Seconds allowed for the collecting subprocess (a CUDA torch can take ~20 s to import
#: on a cold disk) and for each ``ldd``.
COLLECT_TIMEOUT_S = 300
LDD_TIMEOUT_S = 60

_MARKER = "@@torchbuild-verify@@"
#: Libraries that come with the NVIDIA driver, not with torch or a toolkit.
_DRIVER_LIBS = re.compile(r"^lib(cuda|nvidia-ml|nvidia-ptxjitcompiler)\.so")
_TORCH_LIB = re.compile(r"^lib(torch|c10|shm|caffe2)[A-Za-z0-9_]*\.so")


@dataclass
class Expectations:
    """What the plan says the result must be; ``None`` in any field means "don't check".

    :ivar version: ``"2.13.0"`` (compared with the public part of ``torch.__version__``,
        i.e. before ``+``) or ``"2.13.0a0+gitabc1234"`` (a ``+`` makes it exact).
    :ivar cuda: ``"13.0"`` (major.minor of ``torch.version.cuda``), or ``""`` meaning the
        build must be CPU-only (``torch.version.cuda is None``).
    :ivar cxx11_abi: ``torch._C._GLIBCXX_USE_CXX11_ABI``.
    :ivar arch_list: ``TORCH_CUDA_ARCH_LIST`` entries that must be compiled in
        (``["8.6", "9.0+PTX"]``: ``sm_86``, ``sm_90`` and ``compute_90``); extra arches
        are allowed and listed.
    :ivar build_type: ``BUILD_TYPE`` of ``torch.__config__.show()`` (case-insensitive).
    """

    version: str | None = None
    cuda: str | None = None
    cxx11_abi: bool | None = None
    arch_list: list[str] | None = None
    build_type: str | None = None


@dataclass
class Check:
    """One verdict: ``id`` (stable, e.g. ``"ldd"``), ``ok``, a one-line ``message`` saying
    what was found, ``fix`` (what to do; None when ``ok``) and, for a failed check,
    ``cause_id`` (an id of shared/causes.md named with the diagnose knowledge, or
    ``unknown``; None when ``ok``)."""

    id: str
    ok: bool
    message: str
    fix: str | None = None
    cause_id: str | None = None


@dataclass
class VerifyReport:
    """Result of :func:`verify_torch` or :func:`verify_extension`.

    :ivar target: ``"torch"`` or the extension's module name.
    :ivar python: the interpreter that was checked.
    :ivar checks: the verdicts, in the order they were made.
    :ivar facts: what was gathered (version, cuda, abi, parsed config, files with their
        ``ldd`` resolution, needed libraries and RUNPATH, mapped libraries...).
    """

    target: str
    python: str
    checks: list[Check] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no check failed."""
        return all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        """The failed checks."""
        return [c for c in self.checks if not c.ok]

    def check(self, check_id: str) -> Check | None:
        """The first check with this id, or None."""
        return next((c for c in self.checks if c.id == check_id), None)

    def add(self, check_id: str, ok: bool, message: str, fix: str | None = None, cause_id: str | None = None) -> Check:
        """Append a check and return it (a failed check without ``cause_id`` gets the
        cause of its kind, :data:`~torchbuild.decisions.verify_causes.CHECK_CAUSES`, or ``unknown``)."""
        cause = None if ok else (cause_id or CHECK_CAUSES.get(check_id, "unknown"))
        c = Check(check_id, bool(ok), message, None if ok else fix, cause)
        self.checks.append(c)
        return c

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``target``, ``python``, ``ok``, ``checks``, ``facts``."""
        return {
            "target": self.target,
            "python": self.python,
            "ok": self.ok,
            "checks": [asdict(c) for c in self.checks],
            "facts": self.facts,
        }


# --------------------------------------------------------------------------------------
# The collector: runs inside the checked Python.  Standard library only; Python >= 3.8.
# --------------------------------------------------------------------------------------
_COLLECTOR = r'''
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
'''


def _resolve_python(python: str) -> str:
    path = shutil.which(python) if os.sep not in python else python
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise UsageError(
            f"Python interpreter {python!r} does not exist or is not executable.",
            fix="pass --python with the path of the python that has torch installed (e.g. .venv/bin/python).",
        )
    return os.path.abspath(path)


def _collect(python: str, mode: str, module: str, smoke: str | None) -> dict[str, Any]:
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


# --------------------------------------------------------------------------------------
# ldd and ELF
# --------------------------------------------------------------------------------------
_LDD_LINE = re.compile(r"^\s*(\S+)\s+=>\s+(not found|\S+)")


def _ldd(path: str, lib_dirs: list[str] | None = None) -> dict[str, str | None]:
    """``ldd path`` -> soname -> resolved path (None = not found).

    :param lib_dirs: prepended to ``LD_LIBRARY_PATH`` for this call.
    """
    env = dict(os.environ)
    if lib_dirs:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(lib_dirs + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    ldd = shutil.which("ldd")
    if ldd is None:
        return {}
    try:
        proc = subprocess.run([ldd, path], capture_output=True, text=True, timeout=LDD_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return {}
    out: dict[str, str | None] = {}
    for line in proc.stdout.splitlines():
        m = _LDD_LINE.match(line)
        if m:
            out[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
    return out


def _elf_info(path: str, *, symbols: bool = False) -> dict[str, Any]:
    """``needed``, ``runpath``, ``rpath`` and ``cxx11_symbols`` (undefined symbols that use
    ``std::__cxx11``: evidence of ``_GLIBCXX_USE_CXX11_ABI=1``) via pyelftools; ``{}`` when
    the file is not ELF.  ``symbols`` scans ``.dynsym`` (slow in pure Python for libtorch's
    ~10^5 symbols, so only done for extensions)."""
    try:
        from elftools.elf.dynamic import DynamicSection
        from elftools.elf.elffile import ELFFile
        from elftools.common.exceptions import ELFError
    except ImportError:  # pragma: no cover - a declared dependency
        return {}
    info: dict[str, Any] = {"needed": [], "runpath": None, "rpath": None, "cxx11_symbols": 0, "undefined_cxx_symbols": 0}
    try:
        with open(path, "rb") as f:
            elf = ELFFile(f)
            for section in elf.iter_sections():
                if isinstance(section, DynamicSection):
                    for tag in section.iter_tags():
                        if tag.entry.d_tag == "DT_NEEDED":
                            info["needed"].append(tag.needed)
                        elif tag.entry.d_tag == "DT_RUNPATH":
                            info["runpath"] = tag.runpath
                        elif tag.entry.d_tag == "DT_RPATH":
                            info["rpath"] = tag.rpath
            dynsym = elf.get_section_by_name(".dynsym") if symbols else None
            if dynsym is not None:
                for sym in dynsym.iter_symbols():
                    if sym["st_shndx"] == "SHN_UNDEF" and sym.name.startswith("_Z"):
                        info["undefined_cxx_symbols"] += 1
                        if "St7__cxx11" in sym.name or "NSt7__cxx11" in sym.name:
                            info["cxx11_symbols"] += 1
    except (OSError, ELFError, ValueError):
        return {}
    return info


def _inspect_files(files: list[str], lib_dirs: list[str] | None, *, symbols: bool = False) -> dict[str, dict[str, Any]]:
    return {f: {"ldd": _ldd(f, lib_dirs), **_elf_info(f, symbols=symbols)} for f in files}


def _ldd_checks(report: VerifyReport, files: dict[str, dict[str, Any]], check_id: str, what: str) -> None:
    missing: list[str] = []
    driver: set[str] = set()
    for f, info in files.items():
        for soname, resolved in info.get("ldd", {}).items():
            if resolved is None:
                if _DRIVER_LIBS.match(soname):
                    driver.add(soname)
                else:
                    missing.append(f"{os.path.basename(f)} needs {soname} => not found")
    if not files:
        report.add(check_id, False, f"no compiled modules found for {what}", "reinstall it: the package has no .so files.")
        return
    if missing:
        # only torch's own libraries missing (libtorch_cuda.so beside a CPU torch): built for another torch
        own = all(_TORCH_LIB.match(m.split(" needs ", 1)[1]) for m in missing)
        report.add(
            check_id,
            False,
            f"{len(missing)} missing librar{'y' if len(missing) == 1 else 'ies'}: " + "; ".join(missing[:6]),
            "install what provides the missing library, or rebuild so that it links the libraries of the torch "
            "installed in this Python (same CUDA/CPU variant); an RPATH ($ORIGIN/...) or LD_LIBRARY_PATH must reach it.",
            cause_id="torch_extension_mismatch" if own and check_id == "ext_ldd" else None,
        )
    else:
        report.add(check_id, True, f"all libraries of {len(files)} compiled module(s) of {what} resolve")
    if driver:
        report.add(
            "driver_libs",
            True,
            f"{', '.join(sorted(driver))} (NVIDIA driver) not found: normal on a machine without the driver; "
            "CUDA will not be available here",
        )


# --------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------
def _public(version: str) -> str:
    return version.split("+", 1)[0]


def _major_minor(v: str) -> str:
    return ".".join(v.split(".")[:2])


def arch_runs_on(arch_flags: list[str], capability: str) -> bool:
    """Whether code compiled for ``arch_flags`` (``["sm_80", "compute_90"]``) runs on a GPU of
    ``capability`` (``"8.6"``).

    CUDA compatibility rules (CUDA C Programming Guide, "Binary Compatibility" and
    "PTX Compatibility"): a cubin ``sm_XY`` runs on ``X.Z`` with ``Z >= Y`` (same major);
    architecture-specific ``sm_XYa``/``sm_XYf`` only on ``X.Y`` exactly (``f``: same
    family, approximated as same major and ``Z >= Y``); PTX ``compute_XY`` is JIT-compiled
    for any capability ``>= X.Y``.
    """
    major, minor = (int(x) for x in capability.split(".")[:2])
    cap = major * 10 + minor
    for flag in arch_flags:
        m = re.fullmatch(r"(sm|compute)_(\d+)(\d)([af]?)", flag)
        if not m:
            continue
        kind, fmaj, fmin, suffix = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if kind == "compute" and not suffix and cap >= fmaj * 10 + fmin:
            return True
        if kind == "sm":
            if suffix == "a" and (fmaj, fmin) == (major, minor):
                return True
            if suffix != "a" and fmaj == major and minor >= fmin:
                return True
    return False


def _import_fix(error: str) -> str:
    if "cannot open shared object file" in error:
        return ("a shared library torch needs is missing: install it (for CUDA builds: the matching nvidia-* "
                "wheels or toolkit) or add its directory to LD_LIBRARY_PATH; then run verify again.")
    if "undefined symbol" in error:
        return ("a library was built against a different torch/libstdc++ (ABI or version mismatch): rebuild it "
                "against the torch installed in this Python.")
    if "No module named" in error:
        return "install torch into this Python (or pass --python with the interpreter that has it)."
    return "reinstall or rebuild torch for this Python (`torchbuild build`), then run verify again."


def _expect_checks(report: VerifyReport, data: dict[str, Any], cfg: TorchConfig | None, expect: Expectations) -> None:
    version = data.get("version") or ""
    if expect.version is not None:
        exact = "+" in expect.version
        ok = version == expect.version if exact else _public(version) == _public(expect.version)
        report.add(
            "version",
            ok,
            f"torch {version}" + ("" if ok else f", expected {expect.version}"),
            f"install or build torch {expect.version} in this Python (another version is installed there).",
        )
    if expect.cuda is not None:
        cuda = data.get("cuda")
        if expect.cuda == "":
            ok = cuda is None
            msg = "CPU-only build, as expected" if ok else f"built with CUDA {cuda}, expected a CPU-only build"
            fix = "install the CPU wheel (index https://download.pytorch.org/whl/cpu) or build with USE_CUDA=0."
        else:
            ok = cuda is not None and _major_minor(cuda) == _major_minor(expect.cuda)
            msg = (f"built with CUDA {cuda}" if ok else
                   f"built with {'CUDA ' + cuda if cuda else 'no CUDA (CPU-only)'}, expected CUDA {expect.cuda}")
            tag = "cu" + expect.cuda.replace(".", "")
            fix = (f"install a torch built for CUDA {expect.cuda} (wheel index https://download.pytorch.org/whl/{tag}) "
                   f"or rebuild with CUDA {expect.cuda} found (CUDA_HOME) and USE_CUDA=1.")
        report.add("cuda", ok, msg, fix)
    if expect.cxx11_abi is not None:
        abi = data.get("cxx11_abi")
        ok = abi is expect.cxx11_abi
        report.add(
            "cxx11_abi",
            ok,
            f"_GLIBCXX_USE_CXX11_ABI={int(abi) if abi is not None else 'unknown'}"
            + ("" if ok else f", expected {int(expect.cxx11_abi)}"),
            "rebuild torch (or the extension) with the same _GLIBCXX_USE_CXX11_ABI; torch >= 2.8 is CXX11 ABI only.",
        )
    if expect.build_type is not None:
        got = cfg.build_type if cfg else None
        ok = got is not None and got.lower() == expect.build_type.lower()
        report.add(
            "build_type",
            ok,
            f"BUILD_TYPE={got}" + ("" if ok else f", expected {expect.build_type}"),
            "the build was configured with another type; CMake keeps the first one in build/CMakeCache.txt: "
            "reconfigure (delete build/CMakeCache.txt or let `torchbuild build` do it) and rebuild.",
        )
    if expect.arch_list is not None:
        flags = cfg.nvcc_arch_flags if cfg else []
        missing = []
        for entry in expect.arch_list:
            base, _, ptx = entry.partition("+")
            code = base.strip().replace(".", "")
            need = [f"sm_{code}"] + ([f"compute_{code}"] if ptx.upper() == "PTX" else [])
            if any(n not in flags for n in need):
                missing.append(entry)
        compiled = cfg.arch_list if cfg else []
        extra = [a for a in compiled if a.split("+")[0] not in {e.split("+")[0] for e in expect.arch_list}]
        ok = not missing
        msg = f"compiled arches {compiled or 'none'}"
        msg += f"; missing {missing}" if missing else ""
        msg += f"; also has {extra}" if extra and ok else ""
        report.add(
            "arch_list",
            ok,
            msg,
            f"rebuild with TORCH_CUDA_ARCH_LIST=\"{';'.join(expect.arch_list)}\" (a changed arch list needs a "
            "reconfigure: the first value stays in build/CMakeCache.txt).",
        )


def _config_checks(report: VerifyReport, data: dict[str, Any]) -> TorchConfig | None:
    text = data.get("config")
    if text is None:
        report.add(
            "config",
            False,
            "torch.__config__.show() failed: " + data["errors"].get("config", "no output"),
            "the torch build is incomplete: rebuild it.",
        )
        return None
    try:
        cfg = parse_torch_config(text)
    except ValueError as exc:
        report.add("config", False, f"torch.__config__.show() is not in the known format: {exc}", None)
        return None
    report.facts["config"] = cfg.to_dict()
    problems = []
    cuda = data.get("cuda")
    if cfg.use_cuda is not None and cfg.use_cuda != (cuda is not None):
        problems.append(f"USE_CUDA={cfg.setting('USE_CUDA')} but torch.version.cuda={cuda}")
    if cuda and cfg.cuda_runtime and _major_minor(cfg.cuda_runtime) != _major_minor(cuda):
        problems.append(f"CUDA_VERSION={cfg.cuda_runtime} but torch.version.cuda={cuda}")
    version = data.get("version") or ""
    if cfg.torch_version and not _public(version).startswith(cfg.torch_version):
        problems.append(f"TORCH_VERSION={cfg.torch_version} but torch.__version__={version}")
    git = data.get("git_version")
    if cfg.commit_sha and git and git != "Unknown" and cfg.commit_sha != git:
        problems.append(f"COMMIT_SHA={cfg.commit_sha[:12]} but torch.version.git_version={git[:12]}")
    summary = (
        f"{cfg.compiler_kind or '?'} {cfg.compiler_version or '?'}, C++ {cfg.cxx_version or '?'}, "
        f"BUILD_TYPE={cfg.build_type}, USE_CUDA={cfg.setting('USE_CUDA')}"
        + (f", CUDA {cfg.cuda_runtime}, arches {cfg.arch_list}" if cfg.cuda_runtime else "")
    )
    report.add(
        "config",
        not problems,
        ("torch.__config__.show(): " + summary) if not problems else "torch.__config__.show() disagrees with torch.version: " + "; ".join(problems),
        "the compiled library and the Python files come from different builds (a stale build/ or a mixed install): "
        "reinstall, or rebuild from a clean build/ directory.",
    )
    return cfg


def _torch_checks(report: VerifyReport, data: dict[str, Any], expect: Expectations | None) -> None:
    """Checks on the torch of ``data`` (shared by both verify functions)."""
    errors = data.get("errors", {})
    if "collect" in errors:
        report.add("import", False, errors["collect"], "run the interpreter by hand to see why it fails.")
        return
    if not data.get("torch_import"):
        error = errors.get("import torch", "unknown error")
        f = explain_import_failure(error, ExtensionInfo("torch", "torch"), torch_version=None, torch_cuda=None,
                                   torch_abi=None)
        report.add("import", False, f"import torch failed: {error}",
                   _import_fix(error) if f.cause_id == "unknown" else f.fix, cause_id=f.cause_id)
        return
    report.add("import", True, f"import torch {data.get('version')} from {data.get('torch_dir')}")
    cfg = _config_checks(report, data)
    _expect_checks(report, data, cfg, expect or Expectations())
    if data.get("cxx11_abi") is None:
        report.add("cxx11_abi_known", False, "torch._C._GLIBCXX_USE_CXX11_ABI is missing: "
                   + errors.get("cxx11_abi", "?"), "the torch._C extension is incomplete: rebuild torch.")
    op = data.get("op")
    report.add(
        "op",
        op == [4.0, 6.0],
        f"torch.add([1, 2], [3, 4]) = {op}" if "op" in data else "the tensor op failed: " + errors.get("op", "?"),
        "the build imports but cannot compute: rebuild torch from a clean build/ directory.",
    )
    if data.get("cuda_available"):
        op_cuda = data.get("op_cuda")
        report.add(
            "op_cuda",
            op_cuda == [4.0, 5.0],
            f"a tensor op on the GPU = {op_cuda}" if "op_cuda" in data else "the GPU op failed: " + errors.get("op_cuda", "?"),
            "check the driver (nvidia-smi) and that the build's arch list covers this GPU.",
        )
        flags = cfg.nvcc_arch_flags if cfg else []
        for gpu in data.get("gpus") or []:
            ok = arch_runs_on(flags, gpu["capability"]) if flags else True
            report.add(
                "gpu_arch",
                ok,
                f"{gpu['name']} (sm_{gpu['capability'].replace('.', '')}) "
                + ("is covered by the compiled arches" if ok else f"is not covered by the compiled arches {cfg.arch_list if cfg else []}"),
                f"rebuild with TORCH_CUDA_ARCH_LIST including {gpu['capability']}.",
            )
    elif data.get("cuda"):
        report.facts["cuda_available_note"] = "built with CUDA, but CUDA is not available here (no GPU or no driver)"


def _base_facts(report: VerifyReport, data: dict[str, Any]) -> None:
    for key in ("python_version", "version", "cuda", "hip", "git_version", "debug", "cxx11_abi", "cuda_available",
                "gpus", "cuda_arch_list", "op", "op_cuda", "torch_dir", "errors"):
        if key in data:
            report.facts[key] = data[key]


def verify_torch(python: str, expect: Expectations | None = None) -> VerifyReport:
    """Verify the torch installed in ``python``.

    Checks (ids): ``import``; ``config`` (``torch.__config__.show()`` parses and agrees
    with ``torch.version``); ``version``, ``cuda``, ``cxx11_abi``, ``build_type``,
    ``arch_list`` when ``expect`` sets them; ``op`` (a small tensor op); ``op_cuda`` and
    one ``gpu_arch`` per visible GPU when CUDA is available; ``ldd`` over ``torch/_C*.so``
    and ``torch/lib/*.so*`` (plus a ``driver_libs`` note when only the driver's libraries
    are missing).

    :param python: interpreter path or name on PATH.
    :param expect: what the plan expects; None checks consistency only.
    :returns: the report; failed checks do not raise.
    :raises UsageError: ``python`` does not exist, is not executable or is not Python 3.
    """
    exe = _resolve_python(python)
    data = _collect(exe, "torch", "", None)
    report = VerifyReport(target="torch", python=exe)
    _base_facts(report, data)
    _torch_checks(report, data, expect)
    if data.get("torch_import"):
        files = _inspect_files(data.get("torch_files") or [], None)
        report.facts["files"] = files
        _ldd_checks(report, files, "ldd", "torch")
    return report


def _torch_lib_dir(data: dict[str, Any]) -> str | None:
    tdir = data.get("torch_dir")
    return os.path.join(tdir, "lib") if tdir else None


def verify_extension(
    python: str,
    module: str,
    *,
    expect: Expectations | None = None,
    smoke: str | None = None,
    installed: ExtensionInfo | None = None,
) -> VerifyReport:
    """Verify an extension ``module`` (``torch_scatter``, ``my_ext._C``) against the torch of ``python``.

    Checks (ids): the torch checks of :func:`verify_torch` except ``ldd`` on torch's own
    files; ``ext_import``; ``ext_ldd`` (``ldd`` of every ``.so`` of the module's package
    with torch's ``lib`` first on ``LD_LIBRARY_PATH``, see the module docstring);
    ``ext_libtorch`` (every ``libtorch*``/``libc10*`` the extension resolves, by ``ldd``
    and as mapped in the process after import, is in the installed torch's ``lib``);
    ``ext_cuda`` (an extension that needs ``libcudart``/``libc10_cuda``/``libtorch_cuda``
    against a CPU-only torch, or a ``libcudart.so.N`` whose N differs from
    ``torch.version.cuda``'s major); ``ext_abi`` (undefined symbols using ``std::__cxx11``
    against a torch with ``_GLIBCXX_USE_CXX11_ABI=0``); ``smoke`` when given.

    :param python: interpreter path or name on PATH.
    :param module: importable module name.
    :param expect: plan expectations (checked on torch, and ``cuda`` also on the extension).
    :param smoke: Python code run after the import with ``torch`` and the module's top-level
        package in its namespace; it fails the ``smoke`` check by raising (e.g. ``assert``).
    :param installed: what is known of its distribution (name, version, torch pin), from
        :func:`torchbuild.actions.verify_installed.find_torch_extensions`; a failed import
        is then explained with the versions on both sides.
    :raises UsageError: ``python`` does not exist or cannot run; ``module`` is empty.
    """
    if not module or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", module):
        raise UsageError(f"{module!r} is not a module name.", fix="pass --extension with an importable name such as torch_scatter.")
    exe = _resolve_python(python)
    data = _collect(exe, "extension", module, smoke)
    report = VerifyReport(target=module, python=exe)
    _base_facts(report, data)
    _torch_checks(report, data, expect)
    errors = data.get("errors", {})
    for key in ("ext_file", "ext_version"):
        if key in data:
            report.facts[key] = data[key]
    if installed is not None:
        report.facts["distribution"] = {"name": installed.dist, "version": installed.version,
                                        "requires_torch": installed.torch_requirement, "cuda_libs": list(installed.cuda_libs)}
    if not data.get("ext_import"):
        error = errors.get(f"import {module}", errors.get("collect", "unknown error"))
        f = explain_import_failure(error, installed or ExtensionInfo(module), torch_version=data.get("version"),
                                   torch_cuda=data.get("cuda"), torch_abi=data.get("cxx11_abi"))
        report.add("ext_import", False, f.message, f.fix, cause_id=f.cause_id)
    else:
        report.add("ext_import", True, f"import {module} from {data.get('ext_file')}")
    lib_dir = _torch_lib_dir(data)
    ext_files = data.get("ext_files")
    if ext_files is None:  # import failed: find the files without importing
        ext_files = _find_module_files(exe, module)
    files = _inspect_files(ext_files, [lib_dir] if lib_dir else None, symbols=True)
    report.facts["files"] = files
    _ldd_checks(report, files, "ext_ldd", module)

    # Which libtorch does it use?
    if lib_dir and files:
        real_lib = os.path.realpath(lib_dir)
        elsewhere = set()
        for info in files.values():
            for soname, resolved in info.get("ldd", {}).items():
                if resolved and _TORCH_LIB.match(soname) and os.path.dirname(os.path.realpath(resolved)) != real_lib:
                    elsewhere.add(resolved)
        mapped = [p for p in (data.get("mapped") or []) if _TORCH_LIB.match(os.path.basename(p))]
        report.facts["mapped_torch_libs"] = mapped
        elsewhere |= {p for p in mapped if os.path.dirname(os.path.realpath(p)) != real_lib}
        needed = sorted({n for info in files.values() for n in info.get("needed", []) if _TORCH_LIB.match(n)})
        report.add(
            "ext_libtorch",
            not elsewhere,
            (f"links {', '.join(needed) or 'no torch library'} from {lib_dir}" if not elsewhere
             else f"uses torch libraries outside the installed torch ({lib_dir}): {', '.join(sorted(elsewhere))}"),
            "the extension's RPATH or LD_LIBRARY_PATH points at another torch: rebuild it against the torch of this "
            "Python and remove the other path.",
        )
    # CUDA of the extension
    needed_all = {n for info in files.values() for n in info.get("needed", [])}
    cudart = sorted(n for n in needed_all if n.startswith("libcudart.so"))
    wants_cuda = bool(cudart) or any(n.startswith(("libc10_cuda", "libtorch_cuda")) for n in needed_all)
    report.facts["ext_cuda_libs"] = sorted(n for n in needed_all if "cuda" in n)
    if data.get("torch_import") and files:
        torch_cuda = data.get("cuda")
        problem = None
        if wants_cuda and torch_cuda is None:
            problem = f"{module} is built for CUDA ({', '.join(report.facts['ext_cuda_libs'])}) but torch is CPU-only"
        elif cudart and torch_cuda:
            majors = {n.split(".so.")[1].split(".")[0] for n in cudart if ".so." in n}
            if majors and majors != {torch_cuda.split(".")[0]}:
                problem = f"{module} links {', '.join(cudart)} but torch is built with CUDA {torch_cuda}"
        if expect and expect.cuda == "" and wants_cuda:
            problem = problem or f"{module} is built for CUDA, expected CPU-only"
        report.add(
            "ext_cuda",
            problem is None,
            problem or (f"built for CUDA ({', '.join(report.facts['ext_cuda_libs'])})" if wants_cuda else "CPU-only extension"),
            "rebuild the extension against this torch with the same CUDA toolkit major version (CUDA_HOME), "
            "or install the torch variant it was built for.",
            cause_id="torch_cpu_only" if torch_cuda is None else "cuda_version_mismatch",
        )
        torch_abi = data.get("cxx11_abi")
        cxx11 = sum(info.get("cxx11_symbols", 0) for info in files.values())
        report.facts["ext_cxx11_symbols"] = cxx11
        if torch_abi is False and cxx11:
            report.add(
                "ext_abi",
                False,
                f"{module} uses the C++11 ABI ({cxx11} std::__cxx11 symbols) but torch has _GLIBCXX_USE_CXX11_ABI=0",
                "rebuild the extension with -D_GLIBCXX_USE_CXX11_ABI=0 (torch.utils.cpp_extension adds it by itself).",
            )
        else:
            report.add("ext_abi", True, f"C++ ABI consistent (torch _GLIBCXX_USE_CXX11_ABI={int(torch_abi) if torch_abi is not None else '?'})")
    if smoke:
        ok = bool(data.get("smoke_ok"))
        report.add(
            "smoke",
            ok,
            "smoke test passed" if ok else "smoke test failed: " + errors.get("smoke", "the import failed first"),
            f"run the snippet by hand in {exe} to see the failure; rebuild {module} against this torch.",
        )
    return report


def _find_module_files(python: str, module: str) -> list[str]:
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
            return json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 and proc.stdout.strip() else []
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError, OSError):
            return []
