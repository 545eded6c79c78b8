"""The Python interpreter that will run the build.

The current interpreter is read in-process; another one (``--python PY``) with one small
subprocess that prints JSON (no imports beyond ``sys``, ``sysconfig``, ``os``, ``json``).
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig

from ..errors import PythonProbeError  # re-exported from its old place
from ._util import run
from .model import PythonInfo

__all__ = ["python_info", "PythonProbeError"]


_SCRIPT = r"""
import json, os, sys, sysconfig
paths = sysconfig.get_paths()
inc = paths.get("include") or ""
print(json.dumps({
    "version": "%d.%d.%d" % sys.version_info[:3],
    "executable": sys.executable,
    "prefix": sys.prefix,
    "base_prefix": getattr(sys, "base_prefix", sys.prefix),
    "purelib": paths.get("purelib") or "",
    "include": inc,
    "sys_path": [p for p in sys.path if p and os.path.isabs(p)],
}))
"""


def _from_data(d: dict) -> PythonInfo:
    inc = d.get("include") or None
    prefix = d["prefix"]
    return PythonInfo(
        version=d["version"],
        executable=d["executable"],
        prefix=prefix,
        purelib=d["purelib"],
        is_venv=d["prefix"] != d["base_prefix"],
        is_conda=os.path.isdir(os.path.join(prefix, "conda-meta")),
        has_headers=os.path.isfile(os.path.join(inc, "Python.h")) if inc else None,
        include_dir=inc,
        sys_path=[p for p in d.get("sys_path", []) if os.path.isdir(p)],
    )


def probe_argv(python: str) -> list[str]:
    """The command that describes another interpreter (what :func:`python_info` runs)."""
    return [python, "-c", _SCRIPT]


def is_this_interpreter(python: str | None) -> bool:
    """True when ``python`` is None or names this process's interpreter (then no
    subprocess is needed)."""
    return python is None or os.path.abspath(python) == os.path.abspath(sys.executable)


def python_info(python: str | None = None) -> PythonInfo:
    """Describe ``python`` (a path or a name on PATH; default ``sys.executable``).

    :raises PythonProbeError: the interpreter is missing or printed no usable answer.
    """
    if python is None or is_this_interpreter(python):
        paths = sysconfig.get_paths()
        return _from_data(
            {
                "version": "{}.{}.{}".format(*sys.version_info[:3]),
                "executable": sys.executable,
                "prefix": sys.prefix,
                "base_prefix": sys.base_prefix,
                "purelib": paths.get("purelib") or "",
                "include": paths.get("include") or "",
                # sys.path[0] is the script's folder (torchbuild's bin dir): not where packages live
                "sys_path": [p for p in sys.path[1:] if p and os.path.isabs(p)],
            }
        )
    out = run(probe_argv(python), timeout=30)
    if out is None:
        raise PythonProbeError(f"cannot run Python interpreter {python!r}")
    if out.returncode != 0:
        raise PythonProbeError(f"{python} -c ... exited {out.returncode}: {out.stderr.strip()[-300:]}")
    try:
        data = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise PythonProbeError(f"{python} printed no interpreter description") from exc
    return _from_data(data)
