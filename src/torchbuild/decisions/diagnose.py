"""Name the root cause of a failed build from its log lines (pure: no I/O).

Lines in (:class:`torchbuild.facts.logfile.LogLine`: number + text), :class:`Diagnosis`
out.  The work is streaming and bounded: :class:`Diagnoser` keeps a few lines of
context, the first few hundred error events and at most one record per failing step,
whatever the log's length.

How the root is chosen (issue 3, "failure structure"):

1. every line is normalised (CI timestamps, pip's ``│`` frames and indentation
   removed) and classified: a *signature* match (knowledge/data/signatures.toml), a
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

Sources: the cause ids are ``shared/causes.md``; every signature names the issue
thread or document its text was taken from.
"""

from __future__ import annotations

import functools
import re
import string
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..knowledge import KnowledgeError, rows
from .diagnose_reasons import ContextCollector, SignatureHit, reason

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
    "TRIGGERS",
    "UNKNOWN",
]

UNKNOWN = "unknown"

#: Byte strings that a large log is scanned for (see ``LogReader.windows``): every
#: failure the diagnoser names is within a few dozen lines of one of them (the
#: failing command's output, or the ``error``/``failed`` summary that follows it).
TRIGGERS: tuple[bytes, ...] = (b"rror", b"ailed")

#: A line is examined only when it contains one of these (case-sensitive) words;
#: every signature example must contain one (tested).
GATE: tuple[str, ...] = (
    "rror", "RROR", "ail", "AIL", "atal", "ATAL", "***", "Killed", "not found", "No rule",
    "ndefined", "egmentation", "elocation", "No space", "Traceback", "annot ", "No such file",
    "No module", "nsupported", "required", "mismatch", "nknown", "too old", "ould NOT", "ould not",
    "does not", "doesn't", "not set", "not compatible", "denied", "permitted", "LNK", "C2872",
    "died", "emory", "heap space", "Compatibility with", "ncompatib", "kernel image",
    "or higher", "nrecognized", "nvalid value", "fopenmp", "NOTFOUND", "ADVANCED", "nable to",
    "xception", "CUDA_HOME", "submodule", "previously", "RPATH", "UnknownType", "protoc",
    "onflict", "but you have", "GLIBC", "CXXABI", "WinError", "THC", "AT_CHECK", "C++17",
    "NumPy", "numpy", "CuDNN", "quota", "Disk", "signal", "Stop.", "没有", "无法", "未声明", "不明确", "导出",
    "不匹配", "错误", "build dependency", "is too", "only supported", "Cannot", "cannot",
    "could be found", "COMPILER", "ermission", "CUDNN", "needed by",
)

#: Confidence of a cause matched outside the root window is capped here.
OFF_ROOT_CAP = 0.55
#: Confidence of a cause named by a hint line near an unmatched first error.
HINT_CAP = 0.6
#: Confidence of a cause named by a hint line in a log with no error at all.
HINT_ALONE_CAP = 0.5
#: A hint counts for the first error when it is at most this many lines before it.
HINT_BEFORE = 10
#: Hint lines kept (memory bound).
MAX_HINTS = 50
#: Error events, steps and causes kept (memory bound); later ones are counted.
MAX_EVENTS = 400
MAX_STEPS = 200
#: Lines of a CMake message joined for matching.
CMAKE_JOIN_LINES = 16
#: Lines after the first error that can belong to its root window at most.
ROOT_WINDOW_LINES = 80


# --------------------------------------------------------------------------- data
@dataclass(frozen=True)
class Evidence:
    """One log line shown as evidence: ``line`` (1-based number) and its ``text``."""

    line: int
    text: str


@dataclass(frozen=True)
class ErrorLine:
    """The first real error of the log (or of a step).

    :param line: 1-based line number.
    :param text: the line as printed (normalised: CI prefixes removed).
    :param kind: ``compiler``, ``linker``, ``nvcc``, ``msvc``, ``cmake``, ``python``,
        ``make``, ``ninja``, ``pip``, ``shell`` or ``other``.
    """

    line: int
    text: str
    kind: str = "other"


@dataclass(frozen=True)
class Step:
    """A failing step: where it starts and where its command is.

    :param line: line of the step's header (ninja ``FAILED: target``, ``Traceback``,
        ``CMake Error at``, make's ``*** [target] Error N``).
    :param text: that header line.
    :param command_line: line number of the failing command (ninja prints it right
        after ``FAILED:``), or None when the log does not show it.
    :param command: the command's text (capped), or None.
    """

    line: int
    text: str
    command_line: int | None = None
    command: str | None = None


@dataclass(frozen=True)
class Cause:
    """A named cause with its evidence.

    :param cause_id: an id of ``shared/causes.md`` or ``"unknown"``.
    :param confidence: 0..1; 0.7 and above only for specific evidence.
    :param line: line number of the main evidence line (None when the log is empty).
    :param evidence: the matching line(s) with a little context, in line order.
    :param explanation: why this fails, with values taken from the log filled in.
    :param fix: what to do, with the same values.
    :param source: where the signature comes from (issue URL, document).
    :param signature: id of the matching signature (None for ``unknown``).
    :param values: values captured from the log (``{"arch": "compute_70"}``).
    :param step: the failing step this cause was found in, if known.
    """

    cause_id: str
    confidence: float
    line: int | None
    evidence: list[Evidence]
    explanation: str
    fix: str
    source: str
    signature: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    step: Step | None = None


@dataclass
class Stats:
    """Size and cost of the run: ``bytes`` read (decompressed), ``lines``, wall
    ``seconds``; ``lines_examined`` is how many lines the diagnoser looked at
    (fewer than ``lines`` when a large log was scanned in windows)."""

    bytes: int = 0
    lines: int = 0
    seconds: float = 0.0
    lines_examined: int = 0


@dataclass
class Diagnosis:
    """The result: ``causes`` (root first; more with ``--all``), the ``first_error``
    (None when the log has no error at all), ``stats``, and ``notes`` for the
    person (empty log, truncated stream...)."""

    causes: list[Cause]
    first_error: ErrorLine | None
    stats: Stats
    notes: list[str] = field(default_factory=list)
    failing_step: Step | None = None

    @property
    def root(self) -> Cause:
        """The root cause (``unknown`` when nothing known fits)."""
        return self.causes[0]

    def to_json_dict(self) -> dict[str, Any]:
        """The ``--json`` document (see ``docs/diagnose-json.md``)."""

        def cause(c: Cause) -> dict[str, Any]:
            d: dict[str, Any] = {
                "cause_id": c.cause_id,
                "confidence": round(c.confidence, 2),
                "line": c.line,
                "evidence": [{"line": e.line, "text": e.text} for e in c.evidence],
                "explanation": c.explanation,
                "fix": c.fix,
                "source": c.source,
                "signature": c.signature,
                "values": dict(c.values),
                "step": asdict(c.step) if c.step else None,
            }
            return d

        return {
            "causes": [cause(c) for c in self.causes],
            "first_error": asdict(self.first_error) if self.first_error else None,
            "failing_step": asdict(self.failing_step) if self.failing_step else None,
            "stats": {
                "bytes": self.stats.bytes,
                "lines": self.stats.lines,
                "seconds": round(self.stats.seconds, 3),
                "lines_examined": self.stats.lines_examined,
            },
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------- signatures
@dataclass(frozen=True)
class Signature:
    """One row of ``knowledge/data/signatures.toml``.

    :param id: stable name of the signature.
    :param cause: cause id from ``shared/causes.md``.
    :param anchor: literal text every matching line contains (a fast pre-check).
    :param patterns: regular expressions (source text); named groups become values.
        They are compiled on first use (:attr:`compiled`): a large log touches only
        the few signatures whose anchor appears in it.
    :param confidence: 0..1 when matched in the root window.
    :param explanation: text with ``{name}`` fields filled from values/defaults.
    :param fix: same.
    :param source: issue URL or document the signature's text comes from.
    :param priority: higher is tried first on the same line (specific before general).
    :param defaults: values used when a pattern did not capture one.
    :param examples: real log lines the signature must match (tested).
    :param hint: the matching line is context, not an error of its own (CMake's
        ``-- Could NOT find CUDNN``, ld's ``warning: libX.so, needed by Y, not
        found``): it never becomes the first error, and names the cause only when the
        log's first error matched nothing (at most :data:`HINT_CAP`, or
        :data:`HINT_ALONE_CAP` when the log has no error at all).
    """

    id: str
    cause: str
    anchor: str
    patterns: tuple[str, ...]
    confidence: float
    explanation: str
    fix: str
    source: str
    priority: int = 0
    defaults: Mapping[str, str] = field(default_factory=dict)
    examples: tuple[str, ...] = ()
    hint: bool = False

    @property
    def compiled(self) -> tuple[re.Pattern[str], ...]:
        """The compiled :attr:`patterns` (compiled once, on first use)."""
        return _compile_all(self.patterns)

    def match(self, text: str) -> dict[str, str] | None:
        """Values captured when ``text`` matches, else None."""
        if self.anchor not in text:
            return None
        for pat in _compile_all(self.patterns):
            m = pat.search(text)
            if m:
                vals = {k: v for k, v in m.groupdict().items() if v}
                return vals
        return None


@functools.lru_cache(maxsize=None)
def _compile_all(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    try:
        return tuple(re.compile(p) for p in patterns)
    except re.error as exc:
        raise KnowledgeError(f"signatures.toml: a pattern does not compile ({exc}): {patterns}") from exc


class _Values(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def _fill(template: str, values: Mapping[str, str]) -> str:
    try:
        return string.Formatter().vformat(template, (), _Values(values))
    except (ValueError, IndexError, KeyError):
        return template


@functools.lru_cache(maxsize=1)
def load_signatures() -> tuple[Signature, ...]:
    """All signatures, highest priority first.

    :raises KnowledgeError: when the file is missing, a row lacks a field or a
        cause id is empty (a pattern that does not compile raises it on first use).
    """
    out = []
    for i, row in enumerate(rows("signatures", "signature")):
        try:
            pats = row["patterns"]
            if isinstance(pats, str):
                pats = [pats]
            pats = tuple(pats)  # compiled on first use (every one is compiled by the tests)
            out.append(
                Signature(
                    id=row["id"],
                    cause=row["cause"],
                    anchor=row["anchor"],
                    patterns=pats,
                    confidence=float(row["confidence"]),
                    explanation=row["explanation"],
                    fix=row["fix"],
                    source=row["source"] if isinstance(row["source"], str) else row["source"][0],
                    priority=int(row.get("priority", 0)),
                    defaults=dict(row.get("defaults", {})),
                    examples=tuple(row.get("examples", ())),
                    hint=bool(row.get("hint", False)),
                )
            )
        except (KeyError, TypeError, ValueError, re.error) as exc:
            raise KnowledgeError(f"signatures.toml: signature[{i}] ({row.get('id', '?')}) is invalid: {exc}") from exc
    out.sort(key=lambda s: -s.priority)
    return tuple(out)


# --------------------------------------------------------------- classification
_PREFIX = re.compile(
    r"^(?:\ufeff)?(?:"
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?\s"  # GitHub Actions
    r"|#\d+ \d+\.\d+ "  # docker buildkit
    r"|\[\d{4}-\d\d-\d\d[ T][\d:.,]+\]\s*"  # [2024-01-01 12:00:00]
    r"|\[\d\d:\d\d:\d\d(?:\.\d+)?\]\s*"  # [12:00:00]
    r")?"
    r"(?:>\s)*"  # a quoted reply on GitHub ("> Traceback ...")
    r"[\s│║┃|]*(?:╰─>\s*)?"
)

_WRAP_PAD = re.compile(r"(?<=\S) {8,}(?=\S)")
_PROGRESS = re.compile(r"^\[\d+/\d+\]\s")
_SNIPPET = re.compile(r"^\d+\s+\|\s|^\|\s|^[\s~^|]+$")

_SUMMARY = re.compile(
    r"""(?x)
    ^ninja:\ build\ stopped
  | ^error:\ command\ .{1,400}?\ (?:failed\ with\ exit\ (?:code|status)\ -?\d+|returned\ non-zero\ exit\ status)
  | ^error:\ command\ '[^']*'\ failed\s*$
  | ^collect2(?:\.exe)?:\ error:\ ld\ returned
  | ^(?:clang|clang\+\+|g\+\+|gcc|c\+\+)(?:-[\d.]+)?(?:\.exe)?:\ error:\ linker\ command\ failed
  | CalledProcessError\b
  | ^RuntimeError:\ Error\ compiling\ objects\ for\ extension
  | ^error:\ subprocess-exited-with-error
  | ^error:\ metadata-generation-failed
  | ^error:\ legacy-install-failure
  | ^×\ .*(?:did\ not\ run\ successfully|exit\ code|errored)
  | ^exit\ code:\ -?\d+
  | ^ERROR:\ (?:Failed\ building\ wheel|Could\ not\ build\ wheels|Failed\ to\ build|Command\ errored\ out)
  | ^Failed\ to\ build\ [\w.-]+(?:\s|$)
  | ^note:\ This\ error\ originates\ from\ a\ subprocess
  | ^(?:g?make|mingw32-make)(?:\[\d+\])?:\ \*\*\*\ (?:\[.*\]\ Error\ \d+|Waiting\ for\ unfinished)
  | ^--\ Configuring\ incomplete,\ errors\ occurred
  | ^See\ also\ ".*CMake(?:Output|Error|ConfigureLog)\.
  | ^Error:\ Process\ completed\ with\ exit\ code
  | ^The\ above\ exception\ was\ the\ direct\ cause
  | ^During\ handling\ of\ the\ above\ exception
  | \ (?:\.\.\.|:)\ error$
  | ^Building\ wheel\ for\ .*\ finished\ with\ status\ 'error'
  | ^error:\ Setup\ script\ exited\ with
  | ^CMake\ Error\ at\ \S+\.(?:cu|cpp|c)\.(?:o|obj)(?:\.\w+)?\.cmake:\d+
  | ^Error\ generating(?:\ file)?$
  | Failed\ to\ run\ '.*build_pytorch_libs
  | ^(?:error\ )?MSB\d+:|error\ MSB\d+:
  | ^Build\ FAILED\.
  | ^ERROR:\ Exception:?$
  | ^hint:\ This\ usually\ indicates\ a\ problem\ with\ the\ package
  | ^(?:\S+:\ )?\*\*\*\ \[.*\]\ Error\ \d+
  | ^FAILED:\ 
    """
)

_WARNING = re.compile(
    r"(?:^|[\s:)\]])(?:warning|Warning)(?:\s*(?:[A-Z]+\d+|#\d+-D))?\s*:|^WARNING\b|^CMake\ (?:Deprecation\ )?Warning|\w+Warning:",
)

_ERROR = re.compile(
    r"""(?x)
    (?:^|[\s:)\]])(?:fatal\ )?error(?:\ [A-Z]{1,4}\d{1,5})?\s*:     # gcc/clang/nvcc/MSVC "file:1:2: error:", "error C2065:"
  | ^(?:fatal\ )?error\b
  | ^ERROR:
  | \bnvcc\ (?:fatal|error)\s*:
  | ^ptxas\ (?:fatal|error)
  | ^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?::|$)                  # Python exception line
  | ^CMake\ Error
  | \bundefined\ reference\ to\b
  | \bundefined\ symbol\b
  | relocation\ truncated\ to\ fit
  | \bcannot\ find\ -l
  | :\ (?:command\ )?not\ found\s*$
  | ^Killed\s*$
  | Segmentation\ fault
  | internal\ compiler\ error
  | ^fatal:\ 
  | No\ rule\ to\ make\ target
  | No\ space\ left\ on\ device
  | ^ninja:\ error:
  | missing\ and\ no\ known\ rule\ to\ make\ it
    """
)


def _is_error_not_command(body: str, match) -> bool:  # type: ignore[no-untyped-def]
    """True when the line after ``FAILED:`` is an error message, not the command:
    a known signature, or a compiler/nvcc/linker error shape (``file:1:2: error:``,
    ``#error``, ``nvcc fatal``), never a line that starts like a command."""
    if not body:
        return False
    if _DIAG_SHAPE.match(body):
        return True
    if _COMMANDISH.match(body):
        return False
    return bool(_ERROR.search(body) or match(body) is not None)


#: A compiler diagnostic: ``path:12:3: error:``, ``path(12): fatal error C1189:``, ``#error``.
_DIAG_SHAPE = re.compile(r"^\S+?(?::\d+(?::\d+)?:|\(\d+\)\s*:)\s*(?:fatal\s+)?error\b|^#error\b|^\S+:\s*(?:fatal\s+)?error:")


#: A command line after FAILED: (a compiler, a tool, a path, an env assignment, cmd.exe).
_COMMANDISH = re.compile(r"^(?:[\w.+-]*(?:cc|c\+\+|g\+\+|clang\+*|nvcc|cl|link|ld|ar|hipcc|ccache|sccache|cmake|ninja|make|python\d?[\d.]*)(?:\.exe)?\s|/|[A-Za-z]:\\|\w+=\S*\s|cmd\.exe|cd\s|:\s*&&|\"[^\"]+\"\s)")


def normalize(text: str) -> str:
    """The line without CI prefixes (timestamps, docker step numbers), pip frames
    (``│``, ``╰─>``) and surrounding whitespace."""
    m = _PREFIX.match(text)
    if m and m.end():
        text = text[m.end() :]
    return text.rstrip()


def _kind(body: str) -> str:
    if body.startswith("CMake Error"):
        return "cmake"
    if "nvcc" in body or body.startswith("ptxas"):
        return "nvcc"
    if re.search(r"\b(?:error|warning) (?:C|LNK)\d{4}\b", body):
        return "msvc"
    if "undefined reference" in body or "ld:" in body or "relocation truncated" in body or "cannot find -l" in body:
        return "linker"
    if re.match(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?::|$)", body):
        return "python"
    if re.search(r":\d+(?::\d+)?: (?:fatal )?error:", body):
        return "compiler"
    if "***" in body or "No rule to make target" in body:
        return "make"
    if body.startswith("ninja:"):
        return "ninja"
    if body.startswith(("ERROR:", "error:")):
        return "pip"
    if "not found" in body:
        return "shell"
    return "other"


# ----------------------------------------------------------------------- engine
@dataclass
class _Event:
    line: int
    text: str
    step: int  # index into steps, -1 for none
    sig: Signature | None = None
    values: dict[str, str] = field(default_factory=dict)
    before: list[Evidence] = field(default_factory=list)
    after: list[Evidence] = field(default_factory=list)
    extra: list[Evidence] = field(default_factory=list)  # e.g. the CMake Error header
    kind: str = "other"


class Diagnoser:
    """Incremental diagnosis: :meth:`feed` lines in order (gaps allowed), then
    :meth:`result`.  Memory is bounded (see module constants)."""

    def __init__(self, signatures: Sequence[Signature] | None = None, *, all_failures: bool = False) -> None:
        self.sigs = tuple(signatures) if signatures is not None else load_signatures()
        self.all_failures = all_failures
        self._gate = GATE
        self.events: list[_Event] = []
        self.events_dropped = 0
        self.steps: list[Step] = []
        self._step_cmd_pending: int | None = None  # index of a ninja step waiting for its command line
        self.cur_step = -1
        self.prev: deque[Evidence] = deque(maxlen=2)
        self.last_no = 0
        self.examined = 0
        self._after: list[_Event] = []  # events still collecting after-context
        self._boundaries: list[int] = []  # lines that end a root window (bounded: only kept near events)
        self._cmake: list[Evidence] | None = None  # an open CMake message
        self._cmake_step = -1
        self._cmake_blank = 0
        self._sig_seen: set[str] = set()
        self.first_summary: ErrorLine | None = None
        self.hints: list[_Event] = []  # lines matched by a hint signature (not errors)
        self._ctx = ContextCollector()  # versions, ABI flags, import paths (diagnose_reasons)
        self._hits: list[SignatureHit] = []  # every signature match (bounded), for the reasoning

    # -- helpers ------------------------------------------------------------
    def _interesting(self, body: str) -> bool:
        return any(map(body.__contains__, self._gate))

    def _match_sigs(self, text: str) -> tuple[Signature, dict[str, str]] | None:
        for s in self.sigs:
            if s.anchor in text:
                v = s.match(text)
                if v is not None:
                    return s, v
        if "        " in text:
            # a line copied from a terminal that wrapped it: the padding of the wrap
            # splits words ("not expa          nded with"); match it joined again
            joined = _WRAP_PAD.sub("", text)
            if joined != text:
                return self._match_sigs(joined)
        return None

    def _add_event(self, ev: _Event) -> None:
        if len(self.events) >= MAX_EVENTS:
            # keep going for --all only through the per-cause bookkeeping below
            self.events_dropped += 1
            if ev.sig is not None and ev.sig.cause not in self._sig_seen and len(self.events) < MAX_EVENTS + 100:
                self._sig_seen.add(ev.sig.cause)
                self.events.append(ev)
            return
        if ev.sig is not None:
            self._sig_seen.add(ev.sig.cause)
            if len(self._hits) < MAX_EVENTS:
                self._hits.append(SignatureHit(ev.sig.cause, ev.sig.id, ev.line))
        self.events.append(ev)
        self._after.append(ev)

    def _boundary(self, line: int) -> None:
        if self.events and len(self._boundaries) < 4 * MAX_EVENTS:
            self._boundaries.append(line)

    # -- CMake messages ------------------------------------------------------
    def _close_cmake(self) -> None:
        msg = self._cmake
        self._cmake = None
        if not msg or len(msg) < 2:
            return
        joined = " ".join(e.text.strip() for e in msg if e.text.strip())
        hit = self._match_sigs(joined)
        if hit is None:
            return
        sig, vals = hit
        # evidence: the line holding the pattern's most specific text
        ev_line = msg[0]
        for e in msg[1:]:
            if sig.anchor in e.text:
                ev_line = e
                break
        # an existing event for the header line (generic CMake Error) gets the match
        for ev in reversed(self.events[-8:]):
            if ev.line == msg[0].line:
                ev.sig, ev.values = sig, vals
                if ev_line.line != ev.line:
                    ev.extra = [e for e in msg[1:] if e.text.strip()][:6]
                self._sig_seen.add(sig.cause)
                return
        self._add_event(
            _Event(msg[0].line, msg[0].text, self._cmake_step, sig, vals,
                   extra=[e for e in msg[1:] if e.text.strip()][:6], kind="cmake")
        )

    # -- main entry ----------------------------------------------------------
    def feed(self, number: int, text: str) -> None:
        """Examine one line (``number`` is 1-based; lines must come in order)."""
        self.examined += 1
        gap = number != self.last_no + 1
        self.last_no = number
        # after-context for recent events
        if self._after:
            keep = []
            for ev in self._after:
                if not gap and len(ev.after) < 2 and number - ev.line <= 2:
                    ev.after.append(Evidence(number, text))
                    keep.append(ev)
            self._after = [e for e in keep if len(e.after) < 2]
        if gap:
            self.prev.clear()
            if self._cmake is not None:
                self._close_cmake()
            self._step_cmd_pending = None
        # a ninja step's command is the line right after FAILED: -- unless that line is
        # already the compiler's error (a log that was cut or re-wrapped): then the
        # step has no command and the line is examined like any other
        if self._step_cmd_pending is not None:
            i = self._step_cmd_pending
            self._step_cmd_pending = None
            if not _is_error_not_command(normalize(text), self._match_sigs):
                st = self.steps[i]
                self.steps[i] = Step(st.line, st.text, number, text.strip()[:2000])
                self._ctx.feed(text.strip())
                self.prev.append(Evidence(number, text))
                return
        # CMake message continuation: indented or blank lines
        if self._cmake is not None:
            if text.startswith(" ") or not text.strip():
                if not text.strip():
                    self._cmake_blank += 1
                else:
                    self._cmake_blank = 0
                if self._cmake_blank < 3 and len(self._cmake) < CMAKE_JOIN_LINES:
                    self._cmake.append(Evidence(number, text))
                    # still look at the line itself below (it may be a signature)
                else:
                    self._close_cmake()
            else:
                self._close_cmake()

        body = normalize(text)
        if not body:
            self.prev.append(Evidence(number, text))
            return
        self._ctx.feed(body)
        if body[0] == "[" and _PROGRESS.match(body):
            # another job's progress: ends the current ninja step's output
            self.cur_step = -1
            self._boundary(number)
            self.prev.append(Evidence(number, text))
            return
        if not self._interesting(body):
            self.prev.append(Evidence(number, text))
            return
        self._classify(number, text, body)
        self.prev.append(Evidence(number, text))

    def _new_step(self, number: int, body: str, *, command_next: bool = False) -> None:
        self._boundary(number)
        if len(self.steps) >= MAX_STEPS:
            self.cur_step = -1
            return
        self.steps.append(Step(number, body[:2000]))
        self.cur_step = len(self.steps) - 1
        if command_next:
            self._step_cmd_pending = self.cur_step

    def _classify(self, number: int, text: str, body: str) -> None:
        if body.startswith("FAILED:"):
            self._new_step(number, body, command_next=True)
            return
        if body.startswith("Traceback (most recent call last)"):
            self._new_step(number, body)
            return
        if _SNIPPET.match(body):
            return
        hit = self._match_sigs(body)
        if hit is not None and hit[0].hint:
            if len(self.hints) < MAX_HINTS:
                self.hints.append(_Event(number, body, self.cur_step, hit[0], hit[1],
                                         before=list(self.prev), kind=_kind(body)))
                self._after.append(self.hints[-1])
            hit = None  # the line itself is classified as if nothing matched
        if hit is not None:
            sig, vals = hit
            if body.startswith("CMake Error"):
                self._new_step(number, body)
                self._cmake, self._cmake_step, self._cmake_blank = [Evidence(number, text)], self.cur_step, 0
            self._add_event(_Event(number, body, self.cur_step, sig, vals, before=list(self.prev), kind=_kind(body)))
            return
        if _SUMMARY.search(body):
            if self.first_summary is None:
                self.first_summary = ErrorLine(number, body, _kind(body))
            self._boundary(number)
            if body.startswith(("make", "gmake", "mingw32-make")) or "***" in body:
                self.cur_step = -1
            return
        if _WARNING.search(body) and not re.search(r"(?:^|\s)(?:fatal )?error\b", body.split("warning", 1)[0]):
            return
        if _ERROR.search(body):
            if body.startswith("CMake Error"):
                self._new_step(number, body)
                self._cmake, self._cmake_step, self._cmake_blank = [Evidence(number, text)], self.cur_step, 0
            self._add_event(_Event(number, body, self.cur_step, before=list(self.prev), kind=_kind(body)))

    # -- result ---------------------------------------------------------------
    def result(self, stats: Stats | None = None, notes: Iterable[str] = ()) -> Diagnosis:
        """The diagnosis of everything fed so far."""
        if self._cmake is not None:
            self._close_cmake()
        stats = stats or Stats(lines=self.last_no)
        stats.lines_examined = self.examined
        notes = list(notes)
        events = self.events
        if not events and self.hints:
            ev = self.hints[0]
            c = self._cause(ev, min(ev.sig.confidence, HINT_ALONE_CAP))  # type: ignore[union-attr]
            notes.append(
                f"The log shows no error of its own; line {ev.line} suggests {c.cause_id}, "
                "so it is reported with low confidence."
            )
            return Diagnosis([c], self.first_summary, stats, notes)
        if not events:
            fe = self.first_summary
            cause = Cause(
                UNKNOWN, 0.0, fe.line if fe else None,
                [Evidence(fe.line, fe.text)] if fe else [],
                ("No error line found in the log." if fe is None else
                 "Only a summary line was found; the failing command's own output is not in this log."),
                "Look at the full build output (rerun with verbose output, e.g. MAX_JOBS=1 and `ninja -v`), "
                "or pass the complete log.",
                "torchbuild",
            )
            return Diagnosis([cause], fe, stats, notes)
        first = events[0]
        step = self.steps[first.step] if 0 <= first.step < len(self.steps) else None
        first_error = ErrorLine(first.line, first.text, first.kind)
        # the root window: from the first error to the next boundary after it
        end = first.line + ROOT_WINDOW_LINES
        for b in self._boundaries:
            if b > first.line:
                end = min(end, b)
                break
        in_root = [e for e in events if e.sig is not None and first.line <= e.line < end
                   and (e.step == first.step or first.step == -1 or e.step == -1)]
        causes: list[Cause] = []
        used: set[int] = set()
        if in_root:
            ev = in_root[0]
            causes.append(self._cause(ev, ev.sig.confidence))  # type: ignore[union-attr]
            used.add(id(ev))
        else:
            others = [e for e in events if e.sig is not None]
            if others:
                ev = others[0]
                conf = min(ev.sig.confidence * 0.6, OFF_ROOT_CAP)  # type: ignore[union-attr]
                c = self._cause(ev, conf)
                causes.append(c)
                used.add(id(ev))
                notes.append(
                    f"The first error (line {first.line}) matches no known signature; "
                    f"{c.cause_id} was matched later (line {ev.line}), so it is reported with low confidence."
                )
            else:
                near = [h for h in self.hints if first.line - HINT_BEFORE <= h.line < end]
                if near:
                    # the closest hint before the first error (else the first after it)
                    before = [h for h in near if h.line <= first.line]
                    ev = before[-1] if before else near[0]
                    c = self._cause(ev, min(ev.sig.confidence, HINT_CAP))  # type: ignore[union-attr]
                    causes.append(c)
                    used.add(id(ev))
                    notes.append(
                        f"The first error (line {first.line}) matches no known signature; line {ev.line} "
                        f"next to it suggests {c.cause_id}, so it is reported with low confidence."
                    )
                else:
                    causes.append(self._unknown(first, step))
        # root over symptom: re-order or qualify with what else the log says
        causes, why = reason(causes, self._ctx.ctx, self._hits, self._cause_of_hit)  # type: ignore[assignment,arg-type]
        notes.extend(why)
        if self.all_failures:
            seen = {(causes[0].cause_id, causes[0].line)}
            seen_causes = {causes[0].cause_id} if causes[0].cause_id != UNKNOWN else set()
            seen_steps = {first.step} if first.step >= 0 else set()
            for ev in events:
                if id(ev) in used:
                    continue
                if ev.sig is not None:
                    if ev.sig.cause in seen_causes:
                        continue
                    seen_causes.add(ev.sig.cause)
                    conf = ev.sig.confidence if ev.step >= 0 and ev.step not in seen_steps else min(ev.sig.confidence, 0.6)
                    causes.append(self._cause(ev, conf))
                    if ev.step >= 0:
                        seen_steps.add(ev.step)
                elif ev.step >= 0 and ev.step not in seen_steps:
                    seen_steps.add(ev.step)
                    st = self.steps[ev.step] if ev.step < len(self.steps) else None
                    causes.append(self._unknown(ev, st))
                if (causes[-1].cause_id, causes[-1].line) in seen and len(causes) > 1:
                    causes.pop()
                else:
                    seen.add((causes[-1].cause_id, causes[-1].line))
                if len(causes) >= 50:
                    notes.append("More failures were found; only the first 50 are listed.")
                    break
        if self.events_dropped:
            notes.append(f"{self.events_dropped} further error lines were not kept (memory bound).")
        return Diagnosis(causes, first_error, stats, notes, step)

    def _evidence(self, ev: _Event) -> list[Evidence]:
        lines = {e.line: e for e in ev.before}
        lines[ev.line] = Evidence(ev.line, ev.text)
        for e in ev.extra:
            lines.setdefault(e.line, e)
        for e in ev.after:
            lines.setdefault(e.line, e)
        return [lines[k] for k in sorted(lines)]

    def _cause(self, ev: _Event, confidence: float) -> Cause:
        sig = ev.sig
        assert sig is not None
        vals = {**sig.defaults, **ev.values}
        step = self.steps[ev.step] if 0 <= ev.step < len(self.steps) else None
        return Cause(
            sig.cause, round(confidence, 2), ev.line, self._evidence(ev),
            _fill(sig.explanation, vals), _fill(sig.fix, vals), sig.source, sig.id,
            {k: str(v) for k, v in ev.values.items()}, step,
        )

    def _cause_of_hit(self, hit: SignatureHit) -> Cause | None:
        ev = next((e for e in self.events if e.line == hit.line and e.sig is not None), None)
        return self._cause(ev, ev.sig.confidence) if ev is not None else None  # type: ignore[union-attr]

    def _unknown(self, ev: _Event, step: Step | None) -> Cause:
        where = f" (failing step at line {step.line}" + (
            f", command on line {step.command_line})" if step and step.command_line else ")") if step else ""
        return Cause(
            UNKNOWN, 0.0, ev.line, self._evidence(ev),
            f"No known cause matches the first error, on line {ev.line}{where}: {ev.text[:300]}",
            "Read the error above: it is the failing step's own first error. If it is a compile error in your "
            "code, fix the code; otherwise search for its text (without paths) in the project's issues.",
            "torchbuild", None, {}, step,
        )


def diagnose_lines(
    lines: Iterable[tuple[int, str]],
    *,
    all_failures: bool = False,
    signatures: Sequence[Signature] | None = None,
    stats: Stats | None = None,
) -> Diagnosis:
    """Diagnose log lines (``(number, text)`` pairs such as
    :class:`~torchbuild.facts.logfile.LogLine`, in order; gaps allowed).

    :param all_failures: list every distinct failure, not only the root.
    :param signatures: the knowledge to use (default: :func:`load_signatures`).
    :param stats: byte/line counts to put in the result (default: lines seen).
    :returns: a :class:`Diagnosis`; never raises for any text.
    """
    d = Diagnoser(signatures, all_failures=all_failures)
    for number, text in lines:
        d.feed(number, text)
    return d.result(stats)
