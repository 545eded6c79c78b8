"""Probe which system copies of PyTorch's third-party components this machine has.

The caller says what to ask (:class:`SystemLibQuestions`, built from the knowledge layer's
component rows); this module only looks: one ``dpkg-query`` for the Debian packages, the
standard include folders for headers (and whether a header declares a symbol), the build
interpreter's ``*.dist-info`` folders for PyPI packages, and ``flatc --version``.
Nothing is installed or changed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .model import SystemLibs

__all__ = [
    "SystemLibQuestions",
    "probe_system_libs",
    "include_dirs",
    "parse_dpkg_query",
    "parse_flatc_version",
    "header_declares",
]


@dataclass
class SystemLibQuestions:
    """What to look for: Debian package names, header paths relative to an include folder
    (``"cpuinfo.h"``, ``"pybind11/pybind11.h"``), ``(header, symbol)`` pairs, PyPI names."""

    debian: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    symbols: list[tuple[str, str]] = field(default_factory=list)
    pypi: list[str] = field(default_factory=list)


def include_dirs(env: dict[str, str] | None = None) -> list[Path]:
    """Folders a compiler searches by default for ``#include <...>`` on Linux, plus ``CPATH``
    and ``$CONDA_PREFIX/include``: existing folders only, in search order."""
    env = dict(os.environ if env is None else env)
    cands = [p for p in env.get("CPATH", "").split(os.pathsep) if p]
    if env.get("CONDA_PREFIX"):
        cands.append(os.path.join(env["CONDA_PREFIX"], "include"))
    cands += ["/usr/local/include"]
    cands += [str(p) for p in sorted(Path("/usr/include").glob("*-linux-gnu*"))]
    cands += ["/usr/include"]
    out: list[Path] = []
    for c in cands:
        p = Path(c)
        if p.is_dir() and p not in out:
            out.append(p)
    return out


def parse_dpkg_query(text: str) -> dict[str, str]:
    """``{package: version}`` for installed packages from the output of
    ``dpkg-query -W -f '${Package}\\t${Version}\\t${db:Status-Abbrev}\\n'`` (a line per package;
    only status ``ii``, installed, counts; ``:amd64`` suffixes dropped)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[2].strip().startswith("ii") and parts[1]:
            out[parts[0].split(":", 1)[0]] = parts[1]
    return out


def parse_flatc_version(text: str) -> str | None:
    """``"2.0.8"`` from ``flatc --version`` output (``flatc version 2.0.8``); None if absent."""
    m = re.search(r"flatc version (\d+(?:\.\d+)+)", text)
    return m.group(1) if m else None


def header_declares(text: str, symbol: str) -> bool:
    """True when header ``text`` names ``symbol`` as a whole word outside comments."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.search(rf"\b{re.escape(symbol)}\b", text) is not None


def _dist_versions(sys_path: list[str], names: list[str]) -> dict[str, str]:
    want = {re.sub(r"[-_.]+", "_", n).lower(): n for n in names}
    out: dict[str, str] = {}
    for d in sys_path:
        p = Path(d)
        if not p.is_dir():
            continue
        try:
            entries = list(p.iterdir())
        except OSError:
            continue
        for e in entries:
            if not e.name.endswith(".dist-info"):
                continue
            stem = e.name[: -len(".dist-info")]
            name, _, version = stem.rpartition("-")
            key = re.sub(r"[-_.]+", "_", name).lower()
            if key in want and want[key] not in out:
                out[want[key]] = version
    return out


def probe_system_libs(q: SystemLibQuestions, sys_path: list[str], env: dict[str, str] | None = None) -> SystemLibs:
    """Answer ``q`` on this machine.

    :param sys_path: the build interpreter's ``sys.path`` (from :class:`PythonInfo`), searched
        for ``*.dist-info`` of ``q.pypi``.
    :returns: :class:`SystemLibs`: ``debian`` {package: version} of the installed ones,
        ``headers`` {header: full path} of those found, ``symbols`` {"header:symbol": declared},
        ``pypi`` {name: version}, ``pypi_include`` {name: include folder}, ``flatc`` version.
    """
    libs = SystemLibs()
    dpkg = shutil.which("dpkg-query")
    if dpkg and q.debian:
        proc = subprocess.run(
            [dpkg, "-W", "-f", "${Package}\t${Version}\t${db:Status-Abbrev}\n", *q.debian],
            capture_output=True,
            text=True,
            timeout=30,
        )
        libs.debian = parse_dpkg_query(proc.stdout)
        libs.package_manager = "apt-get"
    elif shutil.which("dnf"):
        libs.package_manager = "dnf"
    elif shutil.which("brew"):
        libs.package_manager = "brew"
    dirs = include_dirs(env)
    for h in sorted(set(q.headers) | {h for h, _ in q.symbols}):
        for d in dirs:
            if (d / h).is_file():
                libs.headers[h] = str(d / h)
                break
    for h, sym in q.symbols:
        path = libs.headers.get(h)
        if path:
            try:
                text = Path(path).read_text(errors="replace")
                libs.symbols[f"{h}:{sym}"] = header_declares(text, sym)
            except OSError:
                pass
    libs.pypi = _dist_versions(sys_path, q.pypi)
    for name in libs.pypi:
        for site in sys_path:
            inc = Path(site) / name.replace("-", "_") / "include"
            if inc.is_dir():
                libs.pypi_include[name] = str(inc)
                break
    flatc = shutil.which("flatc")
    if flatc:
        proc = subprocess.run([flatc, "--version"], capture_output=True, text=True, timeout=30)
        libs.flatc = parse_flatc_version(proc.stdout + proc.stderr)
    return libs
