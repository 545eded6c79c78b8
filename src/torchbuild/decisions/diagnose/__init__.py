"""Name the root cause of a failed build from its log lines (pure: no I/O).

Lines in (:class:`torchbuild.facts.logfile.LogLine`: number + text), :class:`Diagnosis`
out.  The work is streaming and bounded: :class:`Diagnoser` keeps a few lines of
context, the first few hundred error events and at most one record per failing step,
whatever the log's length.

How the root is chosen (issue 3, "failure structure"):

1. every line is normalised (CI timestamps, pip's ``│`` frames and indentation
   removed) and classified: a *signature* match (knowledge/data/signatures/), a
   *real error* (compiler/linker/nvcc/MSVC/CMake/Python exception shapes), a
   *summary or wrapper* (``ninja: build stopped``, ``error: command ... failed with
   exit code 1``, pip's ``subprocess-exited-with-error``, ``CalledProcessError``,
   make's ``*** [...] Error 1``...), a warning, or nothing;
2. failing *steps* are tracked: ninja ``FAILED:`` blocks (with the line of their
   command), Python tracebacks, ``CMake Error`` messages (their indented
   continuation lines are joined, so a message wrapped over several lines still
   matches);
3. the *first error* is the earliest real error (a signature match or a generic
   error), never a summary or wrapper; the *root window* runs from it to the next
   step boundary (a new ``FAILED:``, a summary line, a ninja progress line);
4. the root cause is the earliest signature match inside the root window, with the
   signature's confidence.  If the window holds none, a signature matched
   elsewhere is reported with its confidence lowered (at most 0.55: a guess, not a
   finding); if nothing matched at all the cause is ``unknown`` with the first error.

Sources: the cause ids are ``knowledge/data/causes.toml``; every signature names the issue
thread or document its text was taken from.
"""

from __future__ import annotations

from .classify import GATE, HEAD_LINES, TAIL_LINES, TRIGGERS, normalize
from .matching import Scanner
from .model import (
    CMAKE_JOIN_LINES,
    HINT_ALONE_CAP,
    HINT_BEFORE,
    HINT_CAP,
    MAX_EVENTS,
    MAX_HINTS,
    MAX_STEPS,
    NARROW_AFTER,
    NARROW_BEFORE,
    OFF_ROOT_CAP,
    ROOT_WINDOW_LINES,
    UNKNOWN,
    Cause,
    Diagnosis,
    ErrorLine,
    Evidence,
    Stats,
    Step,
)
from .ranking import Diagnoser, diagnose_lines
from .signatures import Signature, load_signatures

__all__ = [
    "Signature",
    "Evidence",
    "ErrorLine",
    "Step",
    "Cause",
    "Stats",
    "Diagnosis",
    "Diagnoser",
    "diagnose_lines",
    "load_signatures",
    "normalize",
    "HEAD_LINES",
    "TAIL_LINES",
    "TRIGGERS",
    "UNKNOWN",
    "GATE",
    "Scanner",
    "HINT_CAP",
    "HINT_ALONE_CAP",
    "HINT_BEFORE",
    "OFF_ROOT_CAP",
    "ROOT_WINDOW_LINES",
    "MAX_EVENTS",
    "NARROW_AFTER",
    "NARROW_BEFORE",
    "MAX_HINTS",
    "MAX_STEPS",
    "CMAKE_JOIN_LINES",
]
