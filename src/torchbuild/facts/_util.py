"""Small helpers shared by the probes: run a tool, find it, read a file.

Every external command is an argument list with a timeout; a missing tool, a timeout
or a non-zero exit is a fact (``None``), never an exception.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Output", "run", "which", "read_text", "first_match", "TIMEOUT_S"]

#: Default time limit of one probe command, seconds.  ``--version`` takes milliseconds;
#: the limit only stops a hung tool (an NFS mount, a broken driver) from hanging doctor.
TIMEOUT_S = 10.0


@dataclass
class Output:
    """What a finished command printed: ``returncode``, ``stdout``, ``stderr`` (text)."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        """stdout followed by stderr (some tools print their version on stderr)."""
        return self.stdout + ("\n" + self.stderr if self.stderr else "")


def run(argv: list[str], *, timeout: float = TIMEOUT_S, env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None) -> Output | None:
    """Run ``argv`` (a list, no shell) and capture its output.

    :param timeout: seconds before the command is killed.
    :returns: the :class:`Output` (whatever the exit code), or None when the program does
        not exist, cannot be executed, or timed out.
    """
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                              timeout=timeout, env=env, cwd=cwd, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return Output(proc.returncode, proc.stdout, proc.stderr)


def which(name: str, extra_dirs: list[str] | None = None) -> str | None:
    """Absolute path of ``name`` on PATH (then in ``extra_dirs``), or None."""
    found = shutil.which(name)
    if found:
        return os.path.abspath(found)
    for d in extra_dirs or []:
        cand = os.path.join(d, name)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def read_text(path: str | os.PathLike[str], limit: int = 1 << 20) -> str | None:
    """The first ``limit`` bytes of a text file (UTF-8, errors replaced), or None if unreadable."""
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def first_match(pattern: str, text: str | None, group: int = 1, flags: int = 0) -> str | None:
    """``re.search(pattern, text).group(group)`` or None."""
    if not text:
        return None
    m = re.search(pattern, text, flags)
    return m.group(group) if m else None


def is_dir(p: str | Path) -> bool:
    """``os.path.isdir`` that never raises."""
    try:
        return os.path.isdir(p)
    except OSError:  # pragma: no cover
        return False
