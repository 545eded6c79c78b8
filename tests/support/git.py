"""Real ``git`` for the tests: one way to run it, with a fixed identity and no user configuration.

Every test that makes a repository (a source tree, a submodule, a mirror) runs git through
:func:`git` or :func:`git_out`, so that the machine's ``~/.gitconfig`` (a signing key, a default
branch, a credential helper) and a caller's ``GIT_*`` environment never change the result.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: Options given to every git command: an identity (commits need one), no signing, ``main`` as the
#: first branch, and local paths allowed as submodule URLs (git >= 2.38.1 refuses them by default).
GIT_OPTIONS = [
    "-c",
    "user.name=torchbuild-tests",
    "-c",
    "user.email=torchbuild-tests@example.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "init.defaultBranch=main",
    "-c",
    "protocol.file.allow=always",
]
#: Seconds any one git command may take.
TIMEOUT = 120


def git(*args: str | Path, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git <GIT_OPTIONS> <args>`` in ``cwd`` and return the finished process (text output).

    The environment is this process's without its ``GIT_*`` variables, with
    ``GIT_TERMINAL_PROMPT=0`` (a clone never waits for a password).

    :raises RuntimeError: ``check`` is true and git exited non-zero; the message holds the command
        and git's whole output.
    :raises subprocess.TimeoutExpired: the command ran past :data:`TIMEOUT` seconds.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    argv = ["git", *GIT_OPTIONS, *map(str, args)]
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}) in {cwd}:\n{proc.stdout}{proc.stderr}")
    return proc


def git_out(*args: str | Path, cwd: Path) -> str:
    """The standard output of a successful ``git <args>`` in ``cwd``, stripped of surrounding blanks.

    :raises RuntimeError: git exited non-zero (see :func:`git`).
    """
    return git(*args, cwd=cwd).stdout.strip()
