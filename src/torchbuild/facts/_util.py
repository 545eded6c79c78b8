"""Small helpers shared by the probes: run a tool, find it, read a file.

Every external command is an argument list with a timeout; a missing tool, a timeout
or a non-zero exit is a fact (``None``), never an exception.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from .._cachedir import cache_dir  # one definition for every layer

__all__ = [
    "Output",
    "run",
    "start",
    "run_version",
    "remembered",
    "which",
    "read_text",
    "first_match",
    "TIMEOUT_S",
    "cache_dir",
    "PROBE_CACHE_FILE",
]

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


#: Commands started ahead of time by :func:`start`, waiting for :func:`run` to collect them.
_started: dict[tuple[tuple[str, ...], str | None], subprocess.Popen] = {}
_started_lock = threading.Lock()


def _popen(argv: list[str], cwd: str | None) -> subprocess.Popen:
    return subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
        cwd=cwd,
    )


def start(argv: list[str], *, cwd: str | None = None) -> None:
    """Start ``argv`` now (same settings as :func:`run`, this process's environment) in
    ``cwd`` so that a later ``run(argv, cwd=cwd)`` collects its output instead of
    starting it.

    For the slow probe commands (the build interpreter, ``git``): started
    before the command line's code is imported, they run on another core meanwhile.
    A command that cannot start is left to :func:`run`, which reports it as usual.
    """
    key = (tuple(argv), cwd)
    with _started_lock:
        if key in _started:
            return
        with contextlib.suppress(OSError, ValueError):
            _started[key] = _popen(argv, cwd)


def run(
    argv: list[str],
    *,
    timeout: float = TIMEOUT_S,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Output | None:
    """Run ``argv`` (a list, no shell) and capture its output.  When the same ``argv``
    was :func:`start`-ed in the same ``cwd`` (and ``env`` is the default), that process
    is used.

    :param timeout: seconds before the command is killed.
    :returns: the :class:`Output` (whatever the exit code), or None when the program does
        not exist, cannot be executed, or timed out.
    """
    proc: subprocess.Popen | None = None
    if env is None:
        with _started_lock:
            proc = _started.pop((tuple(argv), None if cwd is None else str(cwd)), None)
    if proc is not None:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None
        return Output(proc.returncode, stdout, stderr)
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return Output(done.returncode, done.stdout, done.stderr)


#: File (in :func:`cache_dir`) that remembers what executables answered to version queries.
PROBE_CACHE_FILE = "probe-cache.json"

#: Leading bytes of compiled executables (ELF, Mach-O 32/64/fat, PE).  Only these are
#: remembered: a script (``#!``) may answer differently when files it reads change.
_BINARY_MAGIC = (
    b"\x7fELF",
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
    b"MZ",
)
_cache_lock = threading.Lock()
_memo: dict[str, dict] | None = None


def _signature(path: str) -> list | None:
    """Identity of an executable file: real path, device, inode, size, mtime and ctime
    (nanoseconds).  Replacing, rewriting or touching the file changes it (ctime cannot be
    set back by a user), as with ccache's ``compiler_check = mtime``.  None for a file
    that is not a compiled executable or cannot be read."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
        with open(real, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return None
    if not head.startswith(_BINARY_MAGIC):
        return None
    return [real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _load_memo() -> dict[str, dict]:
    global _memo
    if _memo is None:
        try:
            data = json.loads((cache_dir() / PROBE_CACHE_FILE).read_text(encoding="utf-8"))
            _memo = data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            _memo = {}
    return _memo


def _save_memo(memo: dict[str, dict]) -> None:
    """Write the memo atomically (a temporary file renamed over the old one), keeping at
    most 256 entries; a cache that cannot be written is simply not kept."""
    import tempfile  # only when something new was learnt (tempfile imports random: 10 ms)

    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        items = list(memo.items())[-256:]
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".probe-cache-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(dict(items), fh)
        os.replace(tmp, folder / PROBE_CACHE_FILE)
    except OSError:
        pass


def _memo_key(argv: list[str]) -> str | None:
    """The probe cache's key for ``argv`` (executable signature and arguments), or None
    when its answer is not to be remembered."""
    sig = _signature(argv[0]) if argv and os.path.isabs(argv[0]) else None
    return json.dumps([sig, argv[1:]]) if sig is not None else None


def remembered(argv: list[str]) -> bool:
    """True when :func:`run_version` would answer ``argv`` from the cache (no process)."""
    key = _memo_key(argv)
    if key is None:
        return False
    with _cache_lock:
        return key in _load_memo()


def run_version(argv: list[str], *, timeout: float = TIMEOUT_S) -> Output | None:
    """:func:`run` for a question whose answer only depends on the executable itself
    (``gcc --version``, ``nvcc --list-gpu-code``): the answer is remembered in
    ``<cache_dir>/probe-cache.json`` under the executable's :func:`_signature` and the
    arguments, and reused while the file is unchanged.  Scripts and unreadable files are
    always run.  A failed run (no program, timeout) is never remembered.

    :param argv: an absolute executable path followed by its arguments.
    :returns: as :func:`run`.
    """
    key = _memo_key(argv)
    if key is None:
        return run(argv, timeout=timeout)
    with _cache_lock:
        hit = _load_memo().get(key)
    if isinstance(hit, dict):
        try:
            return Output(int(hit["returncode"]), str(hit["stdout"]), str(hit["stderr"]))
        except (KeyError, TypeError, ValueError):
            pass
    out = run(argv, timeout=timeout)
    if out is not None:
        with _cache_lock:
            memo = _load_memo()
            memo.pop(key, None)
            memo[key] = asdict(out)
            _save_memo(memo)
    return out


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
