"""Where fixed strings occur in a plain log file, found by GNU grep running beside the reader
(:class:`GrepHits`), so that a large log is searched at grep's speed while Python counts its lines.

The command (echoed in :attr:`GrepHits.command`) is ``grep -a -b -o -E -e T1 -e T2 -- FILE`` with
``LC_ALL=C``: ``-b -o`` print the 0-based byte offset of each match (GNU grep's manual: "If -o is
specified, print the offset of the matching part itself"), ``-a`` reads binary bytes as text, and each
trigger is a regular expression with its special characters escaped, so it matches as is (``-E`` took
0.12-0.14 s on the 231 MB log of benchmarks/bench_diagnose.py where ``-F`` took 0.14-0.15 s).  Its
address space is capped (:data:`GREP_MEMORY_BYTES`): GNU grep holds a whole line in memory, so a log
made of one huge line makes it fail ("memory exhausted"), and the reader then searches the rest itself.
"""

from __future__ import annotations

import functools
import os
import re
import select
import shutil
import subprocess
from collections import deque
from collections.abc import Iterable

#: Bytes with a meaning in a POSIX extended regular expression; each is escaped so a trigger matches as is.
_ERE_SPECIAL = re.compile(rb"[\\.\[\]()*+?{}|^$]")

#: The most address space (bytes) the grep process may take; beyond it grep exits with status 2.  Below
#: diagnose's own memory goal (150 MB, issue 11); GNU grep 3.8 searched the 231 MB log of
#: benchmarks/bench_diagnose.py within 32 MB.
GREP_MEMORY_BYTES = 128 << 20


@functools.lru_cache(maxsize=1)
def gnu_grep() -> str | None:
    """The path of GNU grep on PATH, or None (no grep, another grep whose ``-b -o`` output is not GNU's,
    or not a POSIX system: Git for Windows' GNU grep is left alone, its memory cannot be capped there).
    Runs ``grep --version`` once per process."""
    if os.name != "posix":
        return None
    exe = shutil.which("grep")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    return exe if b"GNU grep" in out.split(b"\n", 1)[0] else None


def _cap_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (GREP_MEMORY_BYTES, GREP_MEMORY_BYTES))


class GrepHits:
    """The byte offsets of ``triggers`` in the plain file ``path``, read in order as the reader needs them.

    :param grep: the path of GNU grep (:func:`gnu_grep`).
    :param path: the log file (not compressed).
    :param triggers: fixed byte strings (no ``\\n``).

    :meth:`upto` returns the offsets below a file offset; it returns None when grep failed before it got
    that far (exit status 2: memory cap, read error), after which the caller searches itself.
    """

    def __init__(self, grep: str, path: str, triggers: Iterable[bytes]) -> None:
        #: The triggers searched for, in order.
        self.triggers = tuple(triggers)
        argv: list[str | bytes] = [grep, "-a", "-b", "-o", "-E"]
        for t in self.triggers:
            argv += ["-e", _ERE_SPECIAL.sub(rb"\\\g<0>", t)]
        argv += ["--", path]
        #: The command as run, for the user's notes.
        self.command = " ".join(a.decode("utf-8", "replace") if isinstance(a, bytes) else a for a in argv)
        env = {**os.environ, "LC_ALL": "C"}
        self._proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, preexec_fn=_cap_memory
        )
        assert self._proc.stdout is not None
        self._out = self._proc.stdout
        self._fd = self._out.fileno()
        self._pending: deque[int] = deque()  # offsets read, not handed out yet (increasing)
        self._partial = b""  # the start of an output line not read to its end yet
        self._done = False  # grep's output is at its end
        self.failed = False

    def _read(self, *, block: bool) -> bool:
        """Read what grep has written so far (waiting for it when ``block``); whether anything was read or the
        end of its output reached."""
        if self._done:
            return False
        if not block and not select.select([self._fd], [], [], 0)[0]:
            return False
        data = os.read(self._fd, 1 << 16)
        if not data:
            self._done = True
            if self._proc.wait() not in (0, 1):  # 1: no match at all
                self.failed = True
            return True
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        self._pending.extend(int(ln[: ln.index(b":")]) for ln in lines)
        return True

    def _known(self, stop: int) -> bool:
        """Whether every match that starts before ``stop`` has been read."""
        return self._done or (bool(self._pending) and self._pending[-1] >= stop)

    def _take(self, stop: int) -> list[int] | None:
        if self.failed:
            return None
        pending, got = self._pending, []
        while pending and pending[0] < stop:
            got.append(pending.popleft())
        return got

    def upto(self, stop: int) -> list[int] | None:
        """The offsets (bytes from the start of the file) of matches that start before ``stop`` and were not
        handed out yet, in increasing order, waiting for grep to get there; None when grep ended in failure."""
        while not self._known(stop):
            self._read(block=True)
        return self._take(stop)

    def ready_upto(self, stop: int) -> list[int] | None:
        """Like :meth:`upto`, without waiting: None when grep has not yet written whether a match starts before
        ``stop`` (GNU grep writes to a pipe in blocks, so a search with few matches tells only at its end), or
        when it ended in failure."""
        while not self._known(stop):
            if not self._read(block=False):
                return None
        return self._take(stop)

    def close(self) -> None:
        """Stop grep (if it still runs) and reap it."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._out.close()
        self._proc.wait()
