"""The failure signatures of ``knowledge/data/signatures/`` (one file per cause family): loading, matching and
filling their explanation templates."""

from __future__ import annotations

import functools
import importlib
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...knowledge import KnowledgeError, load, rows
from .model import PRECISION_BAR, PRECISION_MIN_LOGS


# --------------------------------------------------------------------- signatures
@dataclass(frozen=True)
class Signature:
    """One row of a file of ``knowledge/data/signatures/``.

    :param id: stable name of the signature.
    :param cause: cause id from ``knowledge/data/causes.toml``.
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
    :param header: for a row of ``knowledge/data/headers.toml``, the regex of the missing
        include path; its first patterns are then the compilers' not-found messages
        (:func:`header_messages`) around it, and the rest the row's ``also``.
    :param hint: the matching line is context, not an error of its own (CMake's
        ``-- Could NOT find CUDNN``, ld's ``warning: libX.so, needed by Y, not
        found``): it never becomes the first error, and names the cause only when the
        log's first error matched nothing (at most :data:`HINT_CAP`, or
        :data:`HINT_ALONE_CAP` when the log has no error at all).
    :param alone: a hint that explains only a log with no error of its own (``hint = "alone"`` in the row): a line of
        an environment report (torch.utils.collect_env's), which an issue's template puts below whatever failed, so it
        never reads an error it does not name.
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
    header: str = ""
    alone: bool = False

    @property
    def compiled(self) -> tuple[re.Pattern[str], ...]:
        """The compiled :attr:`patterns` (compiled once, on first use)."""
        return _compile_all(self.patterns)

    def match(self, text: str) -> dict[str, str] | None:
        """Values captured when ``text`` holds the anchor and matches, else None: ``{group name:
        text}``, where the groups ``name2``, ``name3``... of alternative patterns give ``name``."""
        if self.anchor not in text:
            return None
        return self.search(text)

    def search(self, text: str) -> dict[str, str] | None:
        """:meth:`match` without the anchor's pre-check (for a caller that checked it another way).

        A pattern is run only on a line that holds its required text (:func:`required_text`), a cheaper test
        that changes no result."""
        for pat, need in _search_plan(self.patterns):
            if need not in text:
                continue
            m = pat.search(text)
            if m:
                vals: dict[str, str] = {}
                for k, v in m.groupdict().items():
                    # a regex names a group once: an alternative spelling of `nvcc` is `nvcc2`
                    if v:
                        vals.setdefault(_ALT.sub("", k), v)
                return vals
        return None


_ALT = re.compile(r"\d+$")
#: Python's regular-expression parser (``re._parser`` since 3.11, ``sre_parse`` before), read by :func:`required_text`.
try:
    _sre_parse: Any = importlib.import_module("re._parser")
except ImportError:  # Python 3.10
    _sre_parse = importlib.import_module("sre_parse")
_LITERAL = _sre_parse.LITERAL


@functools.cache
def _compile_all(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    try:
        return tuple(re.compile(p) for p in patterns)
    except re.error as exc:
        raise KnowledgeError(f"knowledge/data/signatures/: a pattern does not compile ({exc}): {patterns}") from exc


@functools.cache
def _search_plan(patterns: tuple[str, ...]) -> tuple[tuple[re.Pattern[str], str], ...]:
    # each compiled pattern with its required text: one cache lookup per search on the hot path
    return tuple(zip(_compile_all(patterns), (required_text(p) for p in patterns), strict=True))


def required_text(pattern: str) -> str:
    r"""The longest run of plain characters that every match of ``pattern`` (a regular expression, str) holds, as
    read from Python's own parse of it (``re._parser``; ``sre_parse`` before Python 3.11): its top-level literal
    characters in a row (not inside a group, a repeat, a character class or an alternation).  ``""`` when it has
    none, when the pattern is case-insensitive as a whole, or when it does not parse (the search then runs on every
    line).  Example: ``r"nvcc fatal\s*: Unsupported gpu architecture '(?P<arch>\w+)'"`` -> ``": Unsupported gpu
    architecture '"`` (the longer of its two runs, ``"nvcc fatal"`` and this one).
    """
    try:
        parsed = _sre_parse.parse(pattern)
    except Exception:  # noqa: BLE001 - re.error and anything else: no pre-check
        return ""
    if parsed.state.flags & re.IGNORECASE:
        return ""
    best, run = "", []
    for op, arg in parsed:
        if op == _LITERAL:
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    if len(run) > len(best):
        best = "".join(run)
    return best


class _Values(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def _fill(template: str, values: Mapping[str, str]) -> str:
    try:
        return string.Formatter().vformat(template, (), _Values(values))
    except (ValueError, IndexError, KeyError):
        return template


#: A fragment's place in a pattern: ``{{name}}`` (double braces: a regex's ``{n}`` repeat keeps single ones).
_FRAGMENT = re.compile(r"\{\{(\w+)\}\}")


def fill_fragments(pattern: str, fragments: Mapping[str, str]) -> str:
    """``pattern`` (a regex's source, str) with each ``{{name}}`` replaced by the regex ``fragments[name]``: a piece
    that several rows share, written once in ``signatures/_meta.toml``'s ``[meta.fragments]`` (the folder names of
    vendored dependencies).

    :raises KnowledgeError: a ``{{name}}`` that is not a fragment (the message names it and the known ones).
    """

    def one(m: re.Match[str]) -> str:
        if m.group(1) not in fragments:
            raise KnowledgeError(
                f"knowledge/data/signatures/: the pattern {pattern!r} uses {{{{{m.group(1)}}}}}, which is not a key of "
                f"[meta.fragments] in _meta.toml (known: {', '.join(sorted(fragments)) or 'none'})"
            )
        return fragments[m.group(1)]

    return _FRAGMENT.sub(one, pattern) if "{{" in pattern else pattern


def hint_kind(value: object) -> str:
    """What a row's ``hint`` field says: ``""`` (false: an error line), ``"hint"`` (true) or ``"alone"`` (a hint that
    only explains a log with no error of its own, :attr:`Signature.alone`).

    :raises ValueError: for any other value, naming the ones allowed.
    """
    if value is False:
        return ""
    if value is True:
        return "hint"
    if value == "alone":
        return "alone"
    raise ValueError(f'hint = {value!r}: use false, true or "alone" (a hint that explains only a log with no error)')


@functools.lru_cache(maxsize=1)
def load_signatures() -> tuple[Signature, ...]:
    """All signatures, highest priority first: the rows of ``signatures/`` and those
    made from the ``[[header]]`` rows of ``headers.toml``; each pattern's ``{{name}}`` is filled with its fragment
    (:func:`fill_fragments`).

    :raises KnowledgeError: when the file is missing, a row lacks a field, a cause id is
        empty, a ``hint`` is not false, true or "alone" (:func:`hint_kind`) or a pattern names an
        unknown fragment (a pattern that does not compile raises it on first use).
    """
    fragments = load("signatures").get("meta", {}).get("fragments", {})
    out = []
    for i, row in enumerate(rows("signatures", "signature")):
        try:
            pats = row["patterns"]
            if isinstance(pats, str):
                pats = [pats]
            # compiled on first use (every one is compiled by the tests)
            pats = tuple(fill_fragments(p, fragments) for p in pats)
            hint = hint_kind(row.get("hint", False))
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
                    hint=hint != "",
                    alone=hint == "alone",
                )
            )
        except (KeyError, TypeError, ValueError, re.error) as exc:
            raise KnowledgeError(
                f"knowledge/data/signatures/: signature {row.get('id', f'#{i}')} is invalid: {exc}"
            ) from exc
    out.extend(_header_signatures())
    out.sort(key=lambda s: -s.priority)
    return tuple(out)


@dataclass(frozen=True)
class Precision:
    """How a signature fared on the real-log corpus (a row of ``knowledge/data/signature_precision.toml``).

    Two records, both counted with the calibration off over logs named first with a confidence of 0.7
    or more: on the corpus with today's code (the logs the signatures were written from and fixed
    on), and *at first sight*: with the code of the commit that added each log, which had never read
    it (benchmarks/realworld_firstsight.py).  The first overstates how a signature fares on a log
    nobody has read; the second is that figure, but for the signature as it was then.

    :param signature: the signature's id.
    :param named: corpus logs it was named first for with a confidence of 0.7 or more (>= 0).
    :param right: of those, logs whose cause judged from the issue thread is the one diagnose named.
    :param others: the judged causes of the other logs, ``{cause_id: logs}``, most frequent first.
    :param sources: the issue threads of the logs judged another cause, on either record (URLs).
    :param first_named: logs it was named first for (confidence >= 0.7) by the code that first met them.
    :param first_right: of those, logs whose judged cause is the one named.
    :param first_others: the judged causes of the others, ``{cause_id: logs}``, most frequent first.
    """

    signature: str
    named: int
    right: int
    others: Mapping[str, int]
    sources: tuple[str, ...] = ()
    first_named: int = 0
    first_right: int = 0
    first_others: Mapping[str, int] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """``right / named``: the share of the corpus logs diagnose was right on (0..1; 1 when none)."""
        return self.right / self.named if self.named else 1.0

    @property
    def first_ratio(self) -> float:
        """``first_right / first_named``: the share of first-sight logs it was right on (0..1; 1 when none)."""
        return self.first_right / self.first_named if self.first_named else 1.0

    @property
    def below_bar(self) -> bool:
        """Whether the signature may not state its cause as a finding: right in fewer than
        :data:`~.model.PRECISION_BAR` of at least :data:`~.model.PRECISION_MIN_LOGS` logs, on the
        corpus or at first sight."""
        on_corpus = self.named >= PRECISION_MIN_LOGS and self.ratio < PRECISION_BAR
        at_first_sight = self.first_named >= PRECISION_MIN_LOGS and self.first_ratio < PRECISION_BAR
        return on_corpus or at_first_sight


@functools.lru_cache(maxsize=1)
def load_precision() -> Mapping[str, Precision]:
    """``{signature id: Precision}`` for every signature that named a cause with a confidence of 0.7 or
    more for at least one real log whose thread judged another cause, on the corpus or at first sight
    (``knowledge/data/signature_precision.toml``, made by benchmarks/realworld_calibrate.py; the others
    were right every time and have no row).

    :raises KnowledgeError: when the file is missing or a row is invalid (``named`` < 0, ``right``
        outside 0..named, ``first_right`` outside 0..first_named, ``others`` not a table of counts).
    """
    out: dict[str, Precision] = {}
    for row in rows("signature_precision", "signature"):
        try:
            named, right = int(row["named"]), int(row["right"])
            first_named, first_right = int(row.get("first_named", 0)), int(row.get("first_right", 0))
            if named < 0 or not 0 <= right <= named or first_named < 0 or not 0 <= first_right <= first_named:
                raise ValueError(
                    f"named = {named}, right = {right}, first_named = {first_named}, first_right = {first_right}"
                )
            src = row.get("source", ())
            out[row["id"]] = Precision(
                row["id"],
                named,
                right,
                _counts(row["others"]),
                (src,) if isinstance(src, str) else tuple(src),
                first_named,
                first_right,
                _counts(row.get("first_others", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise KnowledgeError(
                f"signature_precision.toml: row {row.get('id', '?')!r} is invalid ({exc}); "
                "regenerate it with benchmarks/realworld_calibrate.py"
            ) from exc
    return out


def _counts(table: Any) -> dict[str, int]:
    """``{cause_id: logs}`` from a TOML table of counts, most frequent first.

    :raises TypeError, ValueError: when ``table`` is not a table of integer counts.
    """
    return dict(sorted(((str(k), int(v)) for k, v in dict(table).items()), key=lambda kv: -kv[1]))


@dataclass(frozen=True)
class HeaderMessage:
    """One ``[[message]]`` row of ``knowledge/data/headers.toml``: how a compiler says an ``#include`` was not found.

    :ivar compiler: the compiler's name (``"gcc"``, ``"clang"``, ``"msvc"``, ``"edg"``).
    :ivar pattern: a regex in which ``{header}`` stands for a header row's regex.
    :ivar example: a real line of that compiler, with some header in it.
    :ivar any_case: a text that, on a line, says the compiler names its header in any case (MSVC's
        ``Cannot open include file``), or ``None``.
    """

    compiler: str
    pattern: str
    example: str
    any_case: str | None = None


@functools.lru_cache(maxsize=1)
def _header_message_rows() -> tuple[HeaderMessage, ...]:
    """The ``[[message]]`` rows of ``headers.toml``, checked once: the one reader of those rows that
    :func:`header_messages`, :func:`any_case_messages` and :func:`header_signature` share.

    :raises KnowledgeError: a row without ``compiler``, ``pattern`` or ``example``, a pattern without
        ``{header}``, or an ``any_case`` that is not a non-empty string.
    """
    out = []
    for m in rows("headers", "message"):
        try:
            msg = HeaderMessage(str(m["compiler"]), str(m["pattern"]), str(m["example"]), m.get("any_case"))
        except (KeyError, TypeError, AttributeError) as exc:
            raise KnowledgeError(f"headers.toml: a [[message]] is invalid: {exc}") from exc
        if "{header}" not in msg.pattern:
            raise KnowledgeError(f"headers.toml: the [[message]] of {msg.compiler} has no {{header}} in its pattern")
        if msg.any_case is not None and not (isinstance(msg.any_case, str) and msg.any_case):
            raise KnowledgeError(f"headers.toml: a [[message]]'s any_case must be a non-empty string: {msg.any_case!r}")
        out.append(msg)
    return tuple(out)


def header_messages() -> tuple[tuple[str, str, str], ...]:
    """How the compilers say an ``#include`` was not found: ``(compiler, pattern, example)``
    per ``[[message]]`` of ``knowledge/data/headers.toml`` (``{header}`` in the pattern
    stands for a header row's regex).

    :raises KnowledgeError: as :func:`_header_message_rows`.
    """
    return tuple((m.compiler, m.pattern, m.example) for m in _header_message_rows())


def any_case_messages() -> tuple[str, ...]:
    """The ``any_case`` texts of ``headers.toml``'s ``[[message]]`` rows: a line that holds one
    names its header in any case (MSVC's ``Cannot open include file``: Windows file names are
    case-insensitive, so ``#include <python.h>`` finds ``Python.h``), and a header row's anchor
    is then looked for in any case too (:meth:`~.matching.Scanner`).

    :raises KnowledgeError: as :func:`_header_message_rows`.
    """
    return tuple(m.any_case for m in _header_message_rows() if m.any_case)


def header_signature(row: Mapping[str, Any]) -> Signature:
    """One ``[[header]]`` row of ``headers.toml`` (a parsed TOML table) as a signature: each
    compiler message of :func:`header_messages` with the row's ``header`` regex in its
    ``{header}`` place (in any case, ``(?i:...)``, for a message with ``any_case``), then the
    row's ``also`` patterns.

    :raises KnowledgeError: a field is missing or invalid, or the header regex names a group.
    """
    try:
        header = row["header"]
        if "(?P<" in header:
            raise ValueError("the header regex names a group (the messages capture it as `header`)")
        pats = tuple(
            m.pattern.replace("{header}", f"(?i:{header})" if m.any_case else header) for m in _header_message_rows()
        ) + tuple(row.get("also", ()))
        src = row["source"] if isinstance(row["source"], str) else row["source"][0]
        cites = load("headers").get("meta", {}).get("sources", {})
        return Signature(
            id=row["id"],
            cause=row["cause"],
            anchor=row["anchor"],
            patterns=pats,
            confidence=float(row["confidence"]),
            explanation=row["explanation"],
            fix=row["fix"],
            source=cites.get(src, src),  # a key of [meta.sources] becomes its citation
            priority=int(row.get("priority", 0)),
            defaults=dict(row.get("defaults", {})),
            examples=tuple(row.get("examples", ())),
            header=header,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise KnowledgeError(f"headers.toml: header row {row.get('id', '?')!r} is invalid: {exc}") from exc


def _header_signatures() -> list[Signature]:
    """The ``[[header]]`` rows of ``headers.toml`` as signatures (:func:`header_signature`)."""
    return [header_signature(row) for row in rows("headers", "header")]
