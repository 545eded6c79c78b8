"""Diagnose a build log file: the one call the build runner and the CLI make.

:func:`diagnose_file` streams the log through :mod:`torchbuild.facts.logfile` into
the pure :class:`torchbuild.decisions.diagnose.Diagnoser`; :func:`render` prints
the result for a person on :data:`torchbuild.ui.console` (stderr).

A log up to :data:`FULL_SCAN_BYTES` is examined line by line; a larger one (or a
compressed one, or standard input) is scanned in windows around the lines that
contain ``error``/``failed`` (see ``LogReader.windows``), which keeps a multi-GB log
close to ``grep`` speed with bounded memory.

Either way, once the diagnoser holds its memory bound of error lines (``Diagnoser.saturated``: a ``ninja -k 0``
log with thousands of failed steps), only the few lines around each further trigger line and the last
:data:`TAIL_LINES` lines are examined (``NARROW_BEFORE``/``NARROW_AFTER``), and a note says from which line.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from ..decisions.diagnose import (
    HEAD_LINES,
    MAX_EVENTS,
    NARROW_AFTER,
    NARROW_BEFORE,
    TAIL_LINES,
    TRIGGERS,
    UNKNOWN,
    Diagnoser,
    Diagnosis,
    Stats,
)
from ..facts.logfile import FULL_SCAN_BYTES, LineWindows, LogFileError, LogReader, WindowSize, open_log

if TYPE_CHECKING:  # rich is imported only to render (not for --json)
    from collections.abc import Iterable, Mapping

    from rich.text import Text

    from ..decisions.diagnose.signatures import Precision
    from ..facts.logfile import LogLine

#: Lines fed between two looks at ``Diagnoser.saturated``.
_CHECK_EVERY = 2048

__all__ = ["diagnose_file", "render", "FULL_SCAN_BYTES", "LogFileError"]


def diagnose_file(
    path: str | os.PathLike[str],
    *,
    all_failures: bool = False,
    full_scan: bool | None = None,
    precision: Mapping[str, Precision] | None = None,
    reader: LogReader | None = None,
) -> Diagnosis:
    """Diagnose the log at ``path`` (``"-"`` for standard input; gzip/xz/bz2/zstd
    files are decompressed on the fly).

    :param all_failures: list every distinct failure, not only the root cause.
    :param full_scan: force (True) or forbid (False) line-by-line examination;
        default: by size (:data:`FULL_SCAN_BYTES`).
    :param precision: the calibration table (``{signature id: Precision}``); None reads
        ``knowledge/data/signature_precision.toml``, ``{}`` turns the calibration off.
    :param reader: ``path`` already opened with :func:`~torchbuild.facts.logfile.open_log` and not
        read yet (the CLI opens it and calls ``prefetch(TRIGGERS)`` before importing this module, so
        the scan of a large log starts early); None opens it here.  It is closed either way.
    :returns: the :class:`~torchbuild.decisions.diagnose.Diagnosis`; its
        ``stats`` hold bytes read (decompressed), lines and wall seconds.
    :raises LogFileError: (exit code 2) missing path, a directory, unreadable,
        binary data, or a compression this Python cannot open.
    """
    t0 = time.perf_counter()
    name = str(path)
    if full_scan is None:
        try:
            full_scan = name != "-" and os.path.getsize(name) <= FULL_SCAN_BYTES
        except OSError:
            full_scan = True  # open_log reports the real problem
    if reader is None:
        reader = open_log(name)
        if not full_scan:  # the search runs while the diagnoser loads its knowledge
            reader.prefetch(TRIGGERS)
    windowed = not (full_scan and reader.compression is None)
    d = Diagnoser(all_failures=all_failures)
    notes: list[str] = []
    window = WindowSize()
    every: LineWindows | None = None
    narrowed_after = 0  # the line after which the windows were narrowed (0: never)
    try:
        if windowed:
            source: Iterable[LogLine] = reader.windows(TRIGGERS, head=HEAD_LINES, tail=TAIL_LINES, window=window)
        else:
            source = every = LineWindows(reader.lines(), (t.decode() for t in TRIGGERS), tail=TAIL_LINES)
        feed = d.feed
        first = True
        check_at = _CHECK_EVERY
        for number, text in source:
            if first:
                first = False
                if reader.binary:
                    raise LogFileError(
                        f"{name} looks like binary data, not a text log; pass the build's text log "
                        "(plain, or gzip/xz/bz2/zstd-compressed)"
                    )
            feed(number, text)
            if number >= check_at and not narrowed_after:
                check_at = number + _CHECK_EVERY
                if d.saturated:
                    narrowed_after = number
                    if every is not None:
                        every.narrow(NARROW_BEFORE, NARROW_AFTER)
                    else:
                        window.before, window.after = NARROW_BEFORE, NARROW_AFTER
        if first and reader.binary:
            raise LogFileError(f"{name} looks like binary data, not a text log; pass the build's text log")
    finally:
        reader.close()
    if windowed:
        how = f" (found by {reader.scanner})" if reader.scanner else ""
        notes.insert(
            0,
            f"Large or streamed log: examined the lines around each 'error'/'failed' line{how}, "
            f"and the first {HEAD_LINES} and the last {TAIL_LINES} lines.",
        )
    if narrowed_after:
        notes.append(
            f"{MAX_EVENTS} error lines were kept by line {narrowed_after:,} (the memory bound): after it, only the "
            f"{NARROW_BEFORE} lines before and {NARROW_AFTER} after each 'error'/'failed' line and the last "
            f"{TAIL_LINES} lines were examined."
        )
    if reader.encoding:
        notes.append(
            f"The log is {reader.encoding.upper()} text (as Windows PowerShell 5.1's '>' and Out-File write it): "
            "it was read as UTF-8."
        )
    if reader.stream_error:
        notes.append(reader.stream_error)
    if reader.bytes_read == 0:
        notes.append("The log is empty.")
    stats = Stats(bytes=reader.bytes_read, lines=reader.line_count, seconds=0.0)
    diag = d.result(stats, notes, precision)
    diag.stats.seconds = time.perf_counter() - t0
    return diag


def _evidence_text(diag_cause_line: int | None, evidence) -> Text:  # type: ignore[no-untyped-def]
    from rich.text import Text

    out = Text()
    for e in evidence:
        mark = ">" if e.line == diag_cause_line else " "
        style = "bold red" if e.line == diag_cause_line else "dim"
        out.append(f"  {mark} {e.line:>7} | ", style="dim")
        out.append(e.text[:400] + ("…" if len(e.text) > 400 else ""), style=style)
        out.append("\n")
    return out


def render(diagnosis: Diagnosis, *, name: str | None = None) -> None:
    """Print the diagnosis for a person (one screen per cause) on the stderr console.

    Log text is printed as plain text (never interpreted as markup).
    """
    from rich.text import Text

    from ..ui import console

    st = diagnosis.stats
    head = Text("diagnose", style="bold")
    if name:
        head.append(f" {name}")
    head.append(f"  ({st.lines:,} lines, {st.bytes:,} bytes, {st.seconds:.2f} s)", style="dim")
    console.print(head)
    for i, c in enumerate(diagnosis.causes):
        t = Text()
        if i:
            t.append("\n")
        label = "cause" if i == 0 else f"also ({i + 1})"
        t.append(f"{label}: ", style="bold")
        t.append(c.cause_id, style="bold red" if c.cause_id != UNKNOWN else "bold yellow")
        t.append(f"   confidence {c.confidence:.2f}", style="dim")
        if c.line:
            t.append(f"   line {c.line}", style="dim")
        console.print(t)
        if c.evidence:
            console.print(_evidence_text(c.line, c.evidence), end="")
        console.print(Text("why: ", style="bold") + Text(c.explanation))
        console.print(Text("fix: ", style="bold green") + Text(c.fix))
        step = c.step
        if step is not None:
            where = f"failing step: line {step.line}: {step.text[:160]}"
            if step.command_line:
                where += f"  (its command is on line {step.command_line})"
            console.print(Text(where, style="dim"))
        console.print(Text(f"source: {c.source}", style="dim"))
    fe = diagnosis.first_error
    if fe is not None and diagnosis.causes and diagnosis.causes[0].line != fe.line:
        console.print(Text(f"first error: line {fe.line}: {fe.text[:300]}", style="dim"))
    for n in diagnosis.notes:
        console.print(Text(f"note: {n}", style="dim"))
