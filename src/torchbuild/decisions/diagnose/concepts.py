"""Plain-words readings of failure messages (``knowledge/data/concepts.toml``): the cause a line
states in words ("No CUDA toolkit found", "requires MSVC 2015 update 3 or newer"), for the logs
whose first error no signature knows (issue 11).

A :class:`Concept` reads a line when its ``subject`` and its ``claim`` are both in it and its
``unless`` is not.  :func:`read_lines` tries the concepts, in file order, on candidate lines in the
order given, and returns the first reading.  The ranking (:mod:`.ranking`) calls it only where the
diagnosis would otherwise be ``unknown``, and reports the reading below the "sure" bar (0.7).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...knowledge import KnowledgeError, rows

#: A line longer than this (characters) that holds two or more compiler flags (" -I", " -D", " -f",
#: " -W") is a command line echoed by a build tool: its words ("-fopenmp", "-DNDEBUG") are options,
#: not a message, so no concept reads it.
COMMAND_LINE_MIN = 200
_FLAG = re.compile(r"\s-[IDfWm]\S")
#: A glog/absl log line of severity I(nfo) or W(arning): "W1127 07:41:21.701000 10261 file.py:781] ..." (the
#: format torch's and TensorFlow's C++ logging write, https://github.com/google/glog/blob/v0.7.1/README.rst#severity-levels).
_GLOG_NOT_ERROR = re.compile(r"^[IW]\d{4} \d\d:\d\d:\d\d")
#: pip's resolver saying no release fits ("Could not find a version that satisfies the requirement mkl<=2021.4.0",
#: "No matching distribution found for ..."): about which packages exist for this platform, not what the words
#: of a row mean ("could not find" MKL is not a BLAS missing at build time).
_PIP_RESOLVER = re.compile(r"could not find a version that satisfies|no matching distribution found", re.I)
#: A command the reporter typed, copied with the log ("git submodule update --init --recursive", "$ pip install ..."):
#: the words of a command are what someone ran, not what a tool said (pytorch/pytorch#76094, issue 11 batch 520
#: held-out: the build instructions' "git submodule update --init" read as a submodule missing under an ld error).
_TYPED_COMMAND = re.compile(
    r"^\s*(?:[$#>%]\s*)?(?:sudo\s+)?(?:git|pip3?|conda|mamba|micromamba|cd|export|apt(?:-get)?|brew|yum|dnf)\s+[\w-]"
)
#: A file path: its folders are where a file lies, not words of the message ("...\\ATen\\native\\cudnn\\
#: Conv.cpp(1207): error C2398" is not about cuDNN); a concept reads the path's last part only.
_PATH = re.compile(r"[^\s\"'`(]*[/\\](?=[^\s\"'`]*[/\\]|[^\s\"'`/\\]+)")


@dataclass(frozen=True)
class Concept:
    """One row of ``knowledge/data/concepts.toml``.

    :param id: stable name of the row (reported as the cause's ``signature``).
    :param cause: cause id from ``knowledge/data/causes.toml``.
    :param subject: regex (case-insensitive) of what the line is about ("cuda", "cudnn", a library file).
    :param claim: regex (case-insensitive) of what the line says of it ("not found", "or newer").
    :param unless: regex (case-insensitive) that keeps the row from reading a line; "" for none.
    :param confidence: 0..1, below 0.7 (a reading of words is never "sure").
    :param explanation: text with ``{line}`` filled with the line read.
    :param fix: what to do.
    :param source: the issue threads of the row's examples.
    :param examples: real log lines the row must read (tested).
    """

    id: str
    cause: str
    subject: str
    claim: str
    unless: str
    confidence: float
    explanation: str
    fix: str
    source: str
    examples: tuple[str, ...] = ()

    @functools.cached_property
    def _compiled(self) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str] | None]:
        try:
            return (
                re.compile(self.subject, re.I),
                re.compile(self.claim, re.I),
                re.compile(self.unless, re.I) if self.unless else None,
            )
        except re.error as exc:
            raise KnowledgeError(f"concepts.toml: {self.id}: a pattern does not compile ({exc})") from exc

    def reads(self, line: str) -> bool:
        """True when ``line`` (one normalised log line, its paths cut to their last part by
        :func:`words`) states this row's cause."""
        subject, claim, unless = self._compiled
        return bool(subject.search(line) and claim.search(line) and not (unless and unless.search(line)))


def readable(line: str) -> bool:
    """False for a line no concept may read: a warning (the word "warning" and no "error", or a glog
    line of severity I or W), pip's resolver finding no release, a command the reporter typed (``git``,
    ``pip``, ``conda``, ``cd``, ``export``... at the start of the line), or a compiler command line (longer
    than :data:`COMMAND_LINE_MIN` with two or more flags)."""
    low = line.lower()
    if ("warning" in low and "error" not in low) or _GLOG_NOT_ERROR.match(line) or _PIP_RESOLVER.search(line):
        return False
    if _TYPED_COMMAND.match(line):
        return False
    return not (len(line) > COMMAND_LINE_MIN and len(_FLAG.findall(line)) >= 2)


def words(line: str) -> str:
    """``line`` with every file path cut to its last part (``/usr/lib/libfoo.so.1`` ->
    ``libfoo.so.1``)."""
    return _PATH.sub("", line) if ("/" in line or "\\" in line) else line


@functools.lru_cache(maxsize=1)
def load_concepts() -> tuple[Concept, ...]:
    """The rows of ``knowledge/data/concepts.toml``, in file order.

    :raises KnowledgeError: a row without a field, a cause id not in ``causes.toml``, or a
        confidence of 0.7 or more (a pattern that does not compile raises it on first use).
    """
    from ...knowledge.causes import causes as known_causes

    known = {c.id for c in known_causes()}
    out = []
    for i, row in enumerate(rows("concepts", "concept")):
        try:
            src = row["source"]
            c = Concept(
                id=row["id"],
                cause=row["cause"],
                subject=row["subject"],
                claim=row["claim"],
                unless=row.get("unless", ""),
                confidence=float(row["confidence"]),
                explanation=row["explanation"],
                fix=row["fix"],
                source=" ".join(src) if isinstance(src, list) else src,
                examples=tuple(row.get("examples", ())),
            )
        except KeyError as exc:
            raise KnowledgeError(f"concepts.toml: concept[{i}] lacks {exc}") from exc
        if c.cause not in known:
            raise KnowledgeError(f"concepts.toml: {c.id}: cause {c.cause!r} is not in causes.toml")
        if not 0 < c.confidence < 0.7:
            raise KnowledgeError(f"concepts.toml: {c.id}: confidence {c.confidence} is not below 0.7")
        out.append(c)
    return tuple(out)


def read_line(line: str, concepts: Iterable[Concept] | None = None) -> Concept | None:
    """The first concept (file order) that reads ``line``, or None (also for an unreadable line,
    see :func:`readable`)."""
    if not readable(line):
        return None
    line = words(line)
    for c in load_concepts() if concepts is None else concepts:
        if c.reads(line):
            return c
    return None


def read_lines(lines: Iterable[tuple[int, str]]) -> tuple[Concept, int, str] | None:
    """The first reading among ``lines`` (``(line number, text)`` in the order to try):
    ``(concept, line number, text)``, or None when no concept reads any of them."""
    concepts = load_concepts()
    for number, text in lines:
        c = read_line(text, concepts)
        if c is not None:
            return c, number, text
    return None
