"""The streaming half of the diagnosis: :class:`Scanner` reads lines in order, tracks
failing steps (ninja ``FAILED:``, tracebacks, CMake messages) and keeps the error events
and hint lines that the ranking (:mod:`.ranking`) chooses from.  Memory is bounded (see
:mod:`.model`)."""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..diagnose_reasons import ContextCollector, SignatureHit
from ..words import Words
from .classify import (
    _ERROR,
    _PROGRESS,
    _SNIPPET,
    _SUMMARY,
    _WARNING,
    _WRAP_PAD,
    PROSE_INTRO,
    _is_error_not_command,
    _kind,
    gate,
    normalize,
    unframe,
)
from .keyindex import _candidates, _key_index
from .localize import delocalize_ascii
from .model import CMAKE_JOIN_LINES, CONCEPT_TAIL_LINES, MAX_EVENTS, MAX_HINTS, MAX_STEPS, ErrorLine, Evidence, Step
from .signatures import Signature, any_case_messages, load_signatures

#: An error line at least this long (characters) that no signature matched may be the first half
#: of a message that was wrapped: it is matched again joined with the next line.
WRAP_MIN = 60
#: The ends of a line that is not an error by itself but whose message a wrap cut in two: the loader's "undefined" with
#: its "symbol: ..." on the next line.
_WRAP_ENDS_NOT_ERROR = (" undefined",)
#: A shorter error line that ends with one of these (a colon, or the quote after a name: clang's
#: "fatal error: 'omp.h'" / "file not found"; or a word after which nvcc's EDG front end breaks its
#: messages: "no suitable conversion function from" / '"const at::DeprecatedTypeProperties"'; or the
#: ends of :data:`_WRAP_ENDS_NOT_ERROR`) is also tried joined with the next line, with a space.
#: " by": a sentence cut at its preposition (CUDAnative's "CUDA 10.0 is not supported by" / "your driver (which
#: supports up to 9.0)", JuliaGPU/julia-ngc#7, issue 11 batch 532 held-out)
WRAP_ENDS = (":", "'", '"', "\u2019", " from", " type", " by", *_WRAP_ENDS_NOT_ERROR)
#: A Python warning line ("...py:368: UserWarning: ...", "FutureWarning: ...").
#: ... or logged at the WARNING level by Python's logging in its basic format (logging.BASIC_FORMAT,
#: "%(levelname)s:%(name)s:%(message)s"): "WARNING:root:Memory-efficient GCoder implementation unavailable: No module
#: named gcoder_line" (kliment/Printrun#763, issue 11 batch 820 dev)
_PY_WARNING = re.compile(r"(?:^|[\s:])[A-Z]\w*Warning: |^WARNING:[\w.]+:")
#: How CMake starts a message of its own (a new message, not the indented text of the one before).
_CMAKE_HEADS = ("CMake Error", "CMake Warning", "CMake Deprecation Warning")
#: IPython's traceback listing: the frame's current line behind an arrow ("---> 13     import megablocks_ops as ops"),
#: then the source lines after it, each behind its line number ("     15     raise ModuleNotFoundError(...)"): code
#: that raises, not the error it raised (printed at the traceback's end: databricks/megablocks#159, issue 11 batch 274).
_IPY_ARROW = re.compile(r"^-{2,}>\s*\d+\s")
_IPY_LISTED = re.compile(r"^\d+\s")


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


@functools.lru_cache(maxsize=1)
def _gate_words() -> Words:
    """The gate's words (:func:`.classify.gate`), one automaton for every :class:`Scanner`."""
    return Words(gate())


@functools.lru_cache(maxsize=1)
def _any_case_words() -> Words:
    """The MSVC messages that name a header in any case (:func:`.signatures.any_case_messages`)."""
    return Words(any_case_messages())


class Scanner:
    """Incremental scanning: :meth:`feed` lines in order (gaps allowed); the events,
    steps and hints it keeps are ranked by :class:`~.ranking.Diagnoser`."""

    def __init__(self, signatures: Sequence[Signature] | None = None, *, all_failures: bool = False) -> None:
        self.sigs = tuple(signatures) if signatures is not None else load_signatures()
        self.all_failures = all_failures
        self._gate = _gate_words()
        self._any_case = _any_case_words()
        self._keywords, self._by_key, self._cand_cache = _key_index(self.sigs)
        self.events: list[_Event] = []
        self.events_dropped = 0
        self.steps: list[Step] = []
        self._step_cmd_pending: int | None = None  # index of a ninja step waiting for its command line
        self.cur_step = -1
        self.prev: deque[Evidence] = deque(maxlen=2)
        #: the last non-empty lines, ``(number, normalised text)``, for :mod:`.concepts`
        self.recent: deque[tuple[int, str]] = deque(maxlen=CONCEPT_TAIL_LINES)
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
        self._ctx = ContextCollector()  # versions, ABI flags, import paths (decisions/diagnose_reasons)
        self._hits: list[SignatureHit] = []  # every signature match (bounded), for the reasoning
        self._wrap_prev: tuple[int, str] | None = None  # an unmatched error line, maybe wrapped
        self._ipy_listing = False  # inside an IPython traceback's source listing (after its arrow line)

    @property
    def saturated(self) -> bool:
        """Whether the memory bound of error lines is reached (:data:`MAX_EVENTS` kept, bool): later lines can
        then add only a cause not seen yet (for ``--all``) or a bounded fact, so a reader may narrow its windows
        to :data:`NARROW_BEFORE`/:data:`NARROW_AFTER` lines around each trigger line."""
        return len(self.events) >= MAX_EVENTS

    # -- helpers ------------------------------------------------------------
    def _interesting(self, body: str) -> bool:
        return self._gate.any_in(body)

    def _match_sigs(self, text: str) -> tuple[Signature, dict[str, str]] | None:
        held = self._keywords.found(text)
        if held:
            # the signatures one of whose keys the line holds, in their order (highest priority first)
            sigs = self.sigs
            for i in _candidates(held, self._by_key, self._cand_cache):
                s = sigs[i]
                v = s.match(text)
                if v is not None:
                    return s, v
        if self._any_case.any_in(text):
            # MSVC's "Cannot open include file: 'python.h'": Windows finds Python.h under any case,
            # so a header row's anchor is looked for in any case (its regex is, headers.toml)
            low = text.lower()
            for s in self.sigs:
                if s.header and s.anchor.lower() in low:
                    v = s.search(text)
                    if v is not None:
                        return s, v
        if "        " in text:
            # a line copied from a terminal that wrapped it: the padding of the wrap
            # splits words ("not expa          nded with"); match it joined again
            joined = _WRAP_PAD.sub("", text)
            if joined != text:
                # or the terminal broke the line at a space ("No such file or          directory":
                # Chia-Network/bladebit#15, issue 11 batch 1131 dev): joined with one space
                return self._match_sigs(joined) or self._match_sigs(_WRAP_PAD.sub(" ", text))
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
                if len(self._hits) < MAX_EVENTS:  # the reasoning sees it like any other match
                    self._hits.append(SignatureHit(sig.cause, sig.id, ev.line))
                return
        self._add_event(
            _Event(
                msg[0].line,
                msg[0].text,
                self._cmake_step,
                sig,
                vals,
                extra=[e for e in msg[1:] if e.text.strip()][:6],
                kind="cmake",
            )
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
            first = normalize(text)
            if first.isascii():
                first = delocalize_ascii(first)  # "c++: error fatal: ..." (LANG=es) is the error, not the command
            if not _is_error_not_command(first, self._match_sigs):
                st = self.steps[i]
                self.steps[i] = Step(st.line, st.text, number, text.strip()[:2000])
                self._ctx.feed(text.strip())
                self.prev.append(Evidence(number, text))
                return
        # CMake message continuation: indented or blank lines (seen without a CI timestamp,
        # quote marker or pip frame in front, which would hide the indent)
        if self._cmake is not None:
            raw = unframe(text)
            # an indented "CMake Error at ..." (a paste indented as a whole) starts a message of its own
            if (raw.startswith(" ") and not raw.lstrip().startswith(_CMAKE_HEADS)) or not raw.strip():
                if not raw.strip():
                    self._cmake_blank += 1
                else:
                    self._cmake_blank = 0
                if self._cmake_blank < 3 and len(self._cmake) < CMAKE_JOIN_LINES:
                    self._cmake.append(Evidence(number, raw))
                    # still look at the line itself below (it may be a signature)
                else:
                    self._close_cmake()
            else:
                self._close_cmake()

        body = normalize(text)
        if not body:
            self.prev.append(Evidence(number, text))
            return
        self.recent.append((number, body))
        self._ctx.feed(body)
        if self.hints and body.startswith("-- Build files have been written"):
            # CMake's configure succeeded: its status hints ("-- Could NOT find X") did not stop
            # this build, so they explain nothing that fails after this line
            self.hints.clear()
        if self._ipy_listing or body[0] == "-":
            # an IPython traceback's source lines are code (its arrow line, then the numbered lines after it)
            arrow = _IPY_ARROW.match(body)
            code = body[arrow.end() :].lstrip() if arrow else ""
            if code.startswith(("from ", "import ")):
                # the import the frame stopped on is read as a plain traceback's source line is ("    from torch._six
                # import container_abcs" above Python 3.6's bare "cannot import name 'container_abcs'":
                # huggingface/pytorch-image-models#420, issue 11 batch 1231 held-out, read after the measurement)
                self._ipy_listing = True
                body = code
            elif arrow or (self._ipy_listing and not gap and _IPY_LISTED.match(body)):
                self._ipy_listing = True
                if arrow and " raise " in body and len(self.hints) < MAX_HINTS and (hit := self._match_sigs(body)):
                    # the line that raised, in a traceback cut before its error line: the message it raises
                    # names a cause only while the log shows no error of its own (NVlabs/tiny-cuda-nn#341)
                    self.hints.append(_Event(number, body, self.cur_step, hit[0], hit[1], before=list(self.prev)))
                self.prev.append(Evidence(number, text))
                return
            else:
                self._ipy_listing = False
        if body[0] == "[" and _PROGRESS.match(body):
            # another job's progress: ends the current ninja step's output
            self.cur_step = -1
            self._boundary(number)
            self.prev.append(Evidence(number, text))
            return
        wrapped = self._wrap_prev
        self._wrap_prev = None
        if wrapped is not None:
            self._join_wrapped(wrapped, body)
        if not self._interesting(body):
            self.prev.append(Evidence(number, text))
            return
        if body.isascii():
            body = delocalize_ascii(body)  # "error fatal: x.h: No existe el fichero o el directorio" (LANG=es)
        n_events = len(self.events)
        self._classify(number, text, body)
        self.prev.append(Evidence(number, text))
        if (
            (len(body) >= WRAP_MIN or body.endswith(WRAP_ENDS))
            and len(self.events) > n_events
            and self.events[-1].line == number
            and self.events[-1].sig is None
        ) or (len(self.events) == n_events and body.endswith(_WRAP_ENDS_NOT_ERROR)):
            # an error line that no signature knows: maybe the first half of a wrapped message (long,
            # or cut after a colon or a quoted name: clang's "fatal error: 'omp.h'" / "file not found");
            # or a line that is no error yet because its message goes on in the next one ("...so: undefined" /
            # "symbol: _ZN3c10...": Dao-AILab/flash-attention#950, issue 11 batch 412 held-out)
            self._wrap_prev = (number, body)

    def _join_wrapped(self, wrapped: tuple[int, str], body: str) -> None:
        """A long error line (or one ending with a colon) that matched no signature, and the line
        after it: a message that a terminal or an issue page broke in two ("...libcudart.so.11.0:
        cannot op" / "en shared object file"; "undefined symbol:" / "c10::cuda::...")?  When the
        two joined match a signature that neither matches alone, the first line's event gets it
        (or becomes one)."""
        number, first = wrapped
        if first.endswith(WRAP_ENDS):
            # "undefined symbol:" / "c10::cuda::c10_cuda_check_implementation(...)";
            # "fatal error: 'omp.h'" / "file not found"
            first += " "
        hit = self._match_sigs(first + body)
        if hit is None and not first.endswith(" "):
            # a terminal that wrapped at a space: "#error:  -- unsupported Microsoft Visual" / " Studio version!"
            # (fireice-uk/xmr-stak#606, issue 11 batch 726 held-out, read after session 47's measurement)
            hit = self._match_sigs(first + " " + body)
            if hit is not None:
                first += " "
        if hit is None or hit[0].hint or self._match_sigs(body) is not None:
            return
        sig, vals = hit
        for ev in reversed(self.events[-4:]):
            if ev.line == number:
                if ev.sig is None:
                    ev.sig, ev.values = sig, vals
                    self._sig_seen.add(sig.cause)
                    if len(self._hits) < MAX_EVENTS:
                        self._hits.append(SignatureHit(sig.cause, sig.id, number))
                return
        self._add_event(
            _Event(number, first + body, self.cur_step, sig, vals, before=list(self.prev)[:-1], kind=_kind(first))
        )

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
            hit = self._match_sigs(body)
            if hit is None:
                return
            if hit[0].hint:
                # the step's target alone suggests a cause (a FlashAttention kernel stopped without a word),
                # used only when the log shows no error of its own
                if len(self.hints) < MAX_HINTS:
                    self.hints.append(_Event(number, body, self.cur_step, hit[0], hit[1], before=list(self.prev)))
            elif body.startswith("FAILED: [code=") and not body.startswith("FAILED: [code=1]"):
                # ninja 1.13 names the step's exit code ("FAILED: [code=137] x.o"): a signature may read a code
                # other than a compiler's plain 1 (a killed step), as make's "*** [x.o] Error 137" is read
                self._add_event(_Event(number, body, self.cur_step, hit[0], hit[1], before=list(self.prev)))
            return
        if body.startswith("Traceback (most recent call last)"):
            self._new_step(number, body)
            return
        if _SNIPPET.match(body):
            code = body.partition("|")[2].strip()
            if code.startswith("#error") and not (self.events and self.events[-1].line >= number - 3):
                # gcc's caret snippet of an #error directive whose "error:" line was cut from the paste
                # ("  138 | #error -- unsupported GNU version! ..."): the directive's text is the message
                hit = self._match_sigs(code)
                if hit is not None and not hit[0].hint:
                    self._add_event(
                        _Event(number, code, self.cur_step, hit[0], hit[1], before=list(self.prev), kind="compiler")
                    )
            return
        hit = self._match_sigs(body)
        status = body.startswith("--") and not body.startswith("-- Configuring incomplete")
        if hit is not None and hit[0].cause == "python_dependency_missing" and _PY_WARNING.search(body):
            # a module named missing in a Python warning is an optional one ("UserWarning: Failed to
            # initialize NumPy: No module named 'numpy'", printed by every torch import without
            # numpy): context, not the failure.  Other warnings keep their weight: they quote the
            # real failure ("UserWarning: Failed to load image Python extension: ... undefined symbol")
            return
        if hit is not None and (hit[0].hint or status):
            # CMake's status output ("-- Looking for sgemm_ - not found", "--   Library mkl_gf:
            # not found", "-- Cannot find a library with BLAS API. Not using BLAS.") is context
            # that a successful configure prints too: never an error of its own, at most a hint
            if len(self.hints) < MAX_HINTS:
                self.hints.append(
                    _Event(number, body, self.cur_step, hit[0], hit[1], before=list(self.prev), kind=_kind(body))
                )
                self._after.append(self.hints[-1])
            hit = None  # the line itself is classified as if nothing matched
        if status:
            return
        if hit is not None:
            sig, vals = hit
            if body.startswith("CMake Error"):
                self._new_step(number, body)
                self._cmake, self._cmake_step, self._cmake_blank = [Evidence(number, body)], self.cur_step, 0
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
        if _ERROR.search(body) and not PROSE_INTRO.search(body):
            if body.startswith("CMake Error"):
                self._new_step(number, body)
                self._cmake, self._cmake_step, self._cmake_blank = [Evidence(number, body)], self.cur_step, 0
            self._add_event(_Event(number, body, self.cur_step, before=list(self.prev), kind=_kind(body)))
