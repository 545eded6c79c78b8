"""What a diagnosis is made of: evidence lines, the first error, failing steps, causes,
statistics and the :class:`Diagnosis` itself (plain data, no logic beyond serialising),
and the bounds the engine works within."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

UNKNOWN = "unknown"


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
#: Once :data:`MAX_EVENTS` error lines are kept, a later line can add only a cause not seen yet (``--all``) or a
#: bounded fact: the reader then keeps this many lines before and after each 'error'/'failed' line (instead of
#: 40 and 10): a ninja step's ``FAILED:`` line and command before its error; after it, the second half of a wrapped
#: line and the first lines of a CMake message.  Each line kept costs tens of microseconds of Python (a ``ninja -k
#: 0`` log of 15,000 failed steps: benchmarks/bench_diagnose.py --failed-every 50).
NARROW_BEFORE = 3
NARROW_AFTER = 4
#: Lines after the first error that can belong to its root window at most.
ROOT_WINDOW_LINES = 80
#: The last non-empty lines of a log kept for the plain-words reading (:mod:`.concepts`) of a log
#: whose first error no signature knows; they are tried from the end.
CONCEPT_TAIL_LINES = 60
#: A signature keeps a confidence of 0.7 or more only when it was the cause judged from the issue
#: thread in at least this share of the real logs it named with such a confidence
#: (``knowledge/data/signature_precision.toml``, made by benchmarks/realworld_calibrate.py) ...
PRECISION_BAR = 0.9
#: ... counted over at least this many logs (fewer say too little about the signature).
PRECISION_MIN_LOGS = 3
#: Confidence of a cause whose signature is below :data:`PRECISION_BAR`: a likely cause, not a finding.
CALIBRATED_CAP = 0.65


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

    :param cause_id: an id of ``knowledge/data/causes.toml`` or ``"unknown"``.
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
