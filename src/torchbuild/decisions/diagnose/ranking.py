"""The reasoning half of the diagnosis: which of the scanned events is the root cause,
with what confidence, and the explanation shown for it (see the package docstring for
how the root is chosen)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from ...knowledge.causes import causes as known_causes
from ..diagnose_reasons import SignatureHit, reason
from .classify import PY_EXCEPTION, normalize
from .concepts import read_lines
from .matching import Scanner, _Event
from .model import (
    CALIBRATED_CAP,
    HINT_ALONE_CAP,
    HINT_BEFORE,
    HINT_CAP,
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
from .signatures import Precision, Signature, _fill, load_precision

#: Confidence of an error the program went on after (see :meth:`Diagnoser._fatal_exception_after`).
SURVIVED_CAP = 0.5


#: Hints that are pip's own stage line ("Getting requirements to build wheel ... error"): they say which PEP 517
#: hook failed, not why, so a more specific hint in the output pip quotes after the error is preferred.
PIP_STAGE_HINTS = frozenset({"pep517-get-requires-failed"})


#: The note of a cause read from a line's plain words (:mod:`.concepts`).
_CONCEPT_NOTE = (
    "No known signature matches this log; line {line} says in plain words what {cause} means, "
    "so it is reported with low confidence."
)


class Diagnoser(Scanner):
    """Incremental diagnosis: :meth:`feed` lines in order (gaps allowed), then
    :meth:`result`.  Memory is bounded (see module constants)."""

    # -- result ---------------------------------------------------------------
    def result(
        self,
        stats: Stats | None = None,
        notes: Iterable[str] = (),
        precision: Mapping[str, Precision] | None = None,
    ) -> Diagnosis:
        """The diagnosis of everything fed so far.

        :param precision: ``{signature id: Precision}`` for :func:`calibrate`; None (the default) reads
            ``knowledge/data/signature_precision.toml`` (:func:`~.signatures.load_precision`), ``{}``
            turns the calibration off (what ``benchmarks/realworld_calibrate.py`` measures against).
        """
        if self._cmake is not None:
            self._close_cmake()
        stats = stats or Stats(lines=self.last_no)
        stats.lines_examined = self.examined
        notes = list(notes)
        events = self.events
        if not events and self.hints:
            # the most specific hint (highest confidence), the first of equals
            ev = max(self.hints, key=lambda h: h.sig.confidence)  # type: ignore[union-attr]
            c = self._cause(ev, min(ev.sig.confidence, HINT_ALONE_CAP))  # type: ignore[union-attr]
            notes.append(
                f"The log shows no error of its own; line {ev.line} suggests {c.cause_id}, "
                "so it is reported with low confidence."
            )
            # the reasoning reads the hint like an error's match (pkg-config's missing openblas.pc is the BLAS)
            alone, why = self._reason([c])
            return Diagnosis(alone, self.first_summary, stats, [*notes, *why])
        if not events:
            fe = self.first_summary
            read = self._concept(None)
            if read is not None:
                notes.append(_CONCEPT_NOTE.format(line=read.line, cause=read.cause_id))
                return Diagnosis([read], fe, stats, notes)
            cause = Cause(
                UNKNOWN,
                0.0,
                fe.line if fe else None,
                [Evidence(fe.line, fe.text)] if fe else [],
                (
                    "No error line found in the log."
                    if fe is None
                    else "Only a summary line was found; the failing command's own output is not in this log."
                ),
                "Look at the full build output (rerun with verbose output, e.g. MAX_JOBS=1 and `ninja -v`), "
                "or pass the complete log.",
                "torchbuild",
            )
            return Diagnosis([cause], fe, stats, notes)
        first = events[0]
        step = self._step_of(first)
        first_error = ErrorLine(first.line, first.text, first.kind)
        # the root window: from the first error to the next boundary after it
        end = first.line + ROOT_WINDOW_LINES
        for b in self._boundaries:
            if b > first.line:
                end = min(end, b)
                break
        in_root = [
            e
            for e in events
            if e.sig is not None
            and first.line <= e.line < end
            and (e.step == first.step or first.step == -1 or e.step == -1)
        ]
        causes: list[Cause] = []
        used: set[int] = set()
        if in_root:
            ev = in_root[0]
            fatal = self._fatal_exception_after(ev, events)
            if fatal is not None:
                causes.append(self._cause(fatal, fatal.sig.confidence))  # type: ignore[union-attr]
                causes.append(self._cause(ev, min(ev.sig.confidence, SURVIVED_CAP)))  # type: ignore[union-attr]
                used.update((id(ev), id(fatal)))
                notes.append(
                    f"The error on line {ev.line} did not stop the program: it went on and ended in a Python "
                    f"exception (line {fatal.line}), which is reported first."
                )
            else:
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
                near = [
                    h
                    for h in self.hints
                    # a hint of an environment report (Signature.alone) explains only a log with no error
                    if first.line - HINT_BEFORE <= h.line < end and (h.sig is None or not h.sig.alone)
                ]
                if near:
                    # the closest hint before the first error, else a fallback reading of the error line
                    # itself ("cannot import name X from Y"), else the first hint after it: a line
                    # before the error is context that explains it, the line's own reading is generic
                    before = [h for h in near if h.line < first.line] or [h for h in near if h.line == first.line]
                    ev = before[-1] if before else near[0]
                    if ev.sig is not None and ev.sig.id in PIP_STAGE_HINTS:
                        # pip's stage line names only the hook that failed; the build script's own output,
                        # which pip quotes after the error ("╰─> [11 lines of output]"), says why
                        quoted = [
                            h
                            for h in near
                            if h.line > first.line
                            and h.sig is not None
                            and h.sig.cause != ev.sig.cause
                            and h.sig.confidence > ev.sig.confidence
                        ]
                        ev = quoted[0] if quoted else ev
                    c = self._cause(ev, min(ev.sig.confidence, HINT_CAP))  # type: ignore[union-attr]
                    causes.append(c)
                    used.add(id(ev))
                    notes.append(
                        f"The first error (line {first.line}) matches no known signature; line {ev.line} "
                        f"next to it suggests {c.cause_id}, so it is reported with low confidence."
                    )
                else:
                    read = self._concept(first)
                    if read is not None:
                        causes.append(read)
                        notes.append(_CONCEPT_NOTE.format(line=read.line, cause=read.cause_id))
                    else:
                        causes.append(self._unknown(first, step))
        # root over symptom: re-order or qualify with what else the log says (issue 11)
        causes, why = self._reason(causes)
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
                    conf = (
                        ev.sig.confidence if ev.step >= 0 and ev.step not in seen_steps else min(ev.sig.confidence, 0.6)
                    )
                    causes.append(self._cause(ev, conf))
                    if ev.step >= 0:
                        seen_steps.add(ev.step)
                elif ev.step >= 0 and ev.step not in seen_steps:
                    seen_steps.add(ev.step)
                    st = self._step_of(ev)
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
        causes, why = calibrate(causes, load_precision() if precision is None else precision)
        notes.extend(why)
        return Diagnosis(causes, first_error, stats, notes, step)

    def _fatal_exception_after(self, root: _Event, events: Sequence[_Event]) -> _Event | None:
        """The Python exception that ended the program, when the first error was one it survived.

        A build script that printed an error outside any build step (a feature probe's failed
        link: DeepSpeed's ``test.c`` / ``LNK1181: cannot open input file 'aio.lib'`` before
        "async_io requires the dev libaio", S95Sedan/Deepspeed-Windows#6) and then died of a
        traceback whose last line is a known failure with a higher confidence: that exception
        stopped it.  Returns the exception's event, or None when the rule does not apply (the
        first error belongs to a failing step, the traceback began before it, or a later
        error follows the exception)."""
        if root.step >= 0 or root.sig is None:
            return None
        last = next((e for e in reversed(events) if e.sig is not None), None)
        if last is None or last is root or last.line <= root.line or last.step < 0:
            return None
        step = self._step_of(last)
        if (
            step is None
            or not step.text.startswith("Traceback")
            or step.line <= root.line
            or not PY_EXCEPTION.match(last.text)
            or last.sig.confidence <= root.sig.confidence  # type: ignore[union-attr]
        ):
            return None
        return last

    def _step_of(self, ev: _Event) -> Step | None:
        """The build step ``ev`` belongs to, or None (no step, or one not kept)."""
        return self.steps[ev.step] if 0 <= ev.step < len(self.steps) else None

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
        step = self._step_of(ev)
        return Cause(
            sig.cause,
            round(confidence, 2),
            ev.line,
            self._evidence(ev),
            _fill(sig.explanation, vals),
            _fill(sig.fix, vals),
            sig.source,
            sig.id,
            {k: str(v) for k, v in ev.values.items()},
            step,
        )

    def _reason(self, causes: list[Cause]) -> tuple[list[Cause], list[str]]:
        """``causes`` (root first) re-ordered or qualified by the reasoning rules (:func:`.diagnose_reasons.reason`)
        with the log's context, and the notes they add.  The rules see the hints too, after every error's match (a
        context line such as CMake's "-- The CUDA compiler identification is unknown" that says why the error
        happened)."""
        hint_hits = [SignatureHit(h.sig.cause, h.sig.id, h.line) for h in self.hints if h.sig is not None]
        return reason(causes, self._ctx.ctx, [*self._hits, *hint_hits], self._cause_of_hit)  # type: ignore[arg-type,return-value]

    def _cause_of_hit(self, hit: SignatureHit) -> Cause | None:
        # the line and the signature: a hint can share its line with the error it explains (GCC 4's header path in
        # the error's own line), and the rule asked for the hint's cause, not the error's
        ev = next(
            (
                e
                for e in (*self.events, *self.hints)
                if e.line == hit.line and e.sig is not None and e.sig.id == hit.signature
            ),
            None,
        )
        return self._cause(ev, ev.sig.confidence) if ev is not None else None  # type: ignore[union-attr]

    def _concept(self, first: _Event | None) -> Cause | None:
        """The cause a line states in plain words (:mod:`.concepts`), for a log whose first error
        no signature or hint explains: the first error line, the lines around it, then the log's
        last lines from the end.  None when no concept reads any of them."""
        lines: list[tuple[int, str]] = []
        if first is not None:
            lines.append((first.line, normalize(first.text)))
            lines.extend((e.line, normalize(e.text)) for e in (*first.after, *first.before))
        lines.extend(reversed(self.recent))
        found = read_lines(lines)
        if found is None:
            return None
        concept, number, text = found
        return Cause(
            concept.cause,
            concept.confidence,
            number,
            [Evidence(number, text)],
            _fill(concept.explanation, {"line": text[:300]}),
            concept.fix,
            concept.source,
            concept.id,
            {},
            self._step_of(first) if first is not None and number == first.line else None,
        )

    def _unknown(self, ev: _Event, step: Step | None) -> Cause:
        where = (
            f" (failing step at line {step.line}"
            + (f", command on line {step.command_line})" if step and step.command_line else ")")
            if step
            else ""
        )
        return Cause(
            UNKNOWN,
            0.0,
            ev.line,
            self._evidence(ev),
            f"No known cause matches the first error, on line {ev.line}{where}: {ev.text[:300]}",
            "Read the error above: it is the failing step's own first error. If it is a compile error in your "
            "code, fix the code; otherwise search for its text (without paths) in the project's issues.",
            "torchbuild",
            None,
            {},
            step,
        )


def calibrate(causes: Sequence[Cause], precision: Mapping[str, Precision]) -> tuple[list[Cause], list[str]]:
    """Keep below 0.7 the causes whose signature was often not the root on real logs.

    A signature that named the cause judged from the issue thread in fewer than :data:`PRECISION_BAR`
    of the real logs it named with a confidence of 0.7 or more, over at least
    :data:`PRECISION_MIN_LOGS` logs, on the corpus or at first sight (the logs torchbuild's code met
    before anyone had read them: ``Precision.below_bar``; ``precision``, from
    ``knowledge/data/signature_precision.toml``), matches a line that several roots share, or carries
    over to new logs worse than the corpus it was written from shows; its cause is kept at most
    :data:`CALIBRATED_CAP`.  The
    order is not changed, except that the other cause the threads judged most often for that line (at
    least :data:`ALTERNATIVE_SHARE` of those logs) is put second, when it is not listed yet, with that
    share as its confidence: the log cannot tell the two apart, so both are reported, in order.

    :param causes: the diagnosis' causes, root first.
    :param precision: ``{signature id: Precision}`` (:func:`~.signatures.load_precision`).
    :returns: the causes (confidence lowered where it applies, an alternative root added second) and,
        when the root's was lowered, a note naming how often that signature was right and what the
        other logs' causes were.
    """
    out: list[Cause] = []
    notes: list[str] = []
    for i, c in enumerate(causes):
        p = precision.get(c.signature) if c.signature else None
        if p is None or not p.below_bar or c.confidence <= CALIBRATED_CAP:
            out.append(c)
            continue
        out.append(replace(c, confidence=CALIBRATED_CAP))
        if i == 0:
            notes.append(_calibration_note(c, p))
            alt = _alternative(c, p, {x.cause_id for x in causes})
            if alt is not None:
                out.append(alt)
    return out, notes


def _calibration_note(c: Cause, p: Precision) -> str:
    """The note that says why ``c`` (whose signature's record is ``p``) is reported below 0.7: how often
    the issue threads confirmed its cause on the corpus and at first sight, and what they judged instead."""

    def also(others: Mapping[str, int]) -> str:
        return ", ".join(
            f"{cause if cause != UNKNOWN else 'a cause torchbuild does not list'}: {n}"
            for cause, n in list(others.items())[:3]
        )

    parts = []
    if p.named:
        rest = f" and judged another cause in the rest ({also(p.others)})" if p.others else ""
        parts.append(
            f"Signature {c.signature} named its cause in {p.named} real failure logs of torchbuild's corpus; "
            f"the issue threads confirmed it in {p.right}{rest}."
        )
    if p.first_named:
        rest = f" ({also(p.first_others)})" if p.first_others else ""
        who = "it" if parts else f"signature {c.signature}"
        parts.append(
            f"On the {p.first_named} logs {who} named when torchbuild first met them (before anyone had read them), "
            f"the threads confirmed it in {p.first_right}{rest}."
        )
    parts.append(
        f"So {c.cause_id} is reported as a likely cause (confidence {CALIBRATED_CAP}), not a finding: "
        "check those causes too."
    )
    return " ".join(parts)


#: An other judged cause of a calibrated signature is reported second when the threads judged it in at
#: least this share of the logs the signature named.
ALTERNATIVE_SHARE = 0.1


def _alternative(root: Cause, p: Precision, listed: set[str]) -> Cause | None:
    """The cause the threads judged most often instead of ``root``'s for its signature (``p``), as a
    cause on ``root``'s line with its share of the logs as confidence; None when no listed cause id
    reaches :data:`ALTERNATIVE_SHARE` or it is already among the causes."""
    meaning = {c.id: c for c in known_causes()}
    named, others = (p.named, p.others) if p.others else (p.first_named, p.first_others)
    for cause_id, n in others.items():
        share = n / named
        if share < ALTERNATIVE_SHARE:
            return None
        if cause_id == UNKNOWN or cause_id in listed or cause_id not in meaning:
            continue
        k = meaning[cause_id]
        return Cause(
            cause_id,
            round(min(share, CALIBRATED_CAP), 2),
            root.line,
            root.evidence,
            f"Also possible: {k.meaning.rstrip('.')}. The issue threads judged this cause in {n} of the {named} "
            f"real logs where this line was read as {root.cause_id}.",
            k.fix or "",
            p.sources[0] if p.sources else "knowledge/data/signature_precision.toml",
            None,
            {},
            root.step,
        )
    return None


def diagnose_lines(
    lines: Iterable[tuple[int, str]],
    *,
    all_failures: bool = False,
    signatures: Sequence[Signature] | None = None,
    stats: Stats | None = None,
    precision: Mapping[str, Precision] | None = None,
) -> Diagnosis:
    """Diagnose log lines (``(number, text)`` pairs such as
    :class:`~torchbuild.facts.logfile.LogLine`, in order; gaps allowed).

    :param all_failures: list every distinct failure, not only the root.
    :param signatures: the knowledge to use (default: :func:`load_signatures`).
    :param stats: byte/line counts to put in the result (default: lines seen).
    :param precision: the calibration table (see :meth:`Diagnoser.result`; ``{}``: off).
    :returns: a :class:`Diagnosis`; never raises for any text.
    """
    d = Diagnoser(signatures, all_failures=all_failures)
    for number, text in lines:
        d.feed(number, text)
    return d.result(stats, precision=precision)
