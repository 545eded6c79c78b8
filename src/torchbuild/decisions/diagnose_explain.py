"""Why no signature fits a log: the closest signatures and a draft of the missing one (pure).

``torchbuild diagnose --explain-miss LOG`` shows, for a log diagnosed ``unknown``, its
first error, the failing step and the signatures of ``knowledge/data/signatures/``
closest to that error with the reason each did not fit (its anchor is not in the line,
or the anchor is there but no pattern matched), and a draft row to add to the data file
(docs/diagnose-signatures.md says how).  Closeness is the cosine of the word sets of
the error line and of a signature's anchor and examples.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..knowledge.causes import family_of
from .diagnose import UNKNOWN, Diagnosis, Signature, load_signatures, normalize
from .diagnose.signatures import header_messages

__all__ = ["NearMiss", "MissExplanation", "explain_miss", "SIGNATURES_DIR"]

#: Where the signature rows live, relative to the repository: one file per cause family of
#: ``knowledge/data/causes.toml`` (``cuda.toml``, ``toolchain.toml``, ...).
SIGNATURES_DIR = "src/torchbuild/knowledge/data/signatures/"


_WORD = re.compile(r"[A-Za-z_][A-Za-z_+]{2,}")
#: Words too common in error lines to tell signatures apart.
_STOP = frozenset(
    [
        "error",
        "fatal",
        "the",
        "and",
        "for",
        "not",
        "was",
        "with",
        "this",
        "that",
        "from",
        "file",
        "line",
        "warning",
        "note",
        "failed",
        "found",
        "such",
        "directory",
        "command",
        "exit",
        "status",
        "code",
        "cannot",
        "could",
    ]
)


@dataclass(frozen=True)
class NearMiss:
    """A signature close to the first error: its ``signature`` id, ``cause`` id,
    ``score`` (0..1, cosine of the word sets) and ``why`` it did not fit."""

    signature: str
    cause: str
    score: float
    why: str


@dataclass
class MissExplanation:
    """What ``--explain-miss`` prints.

    :param diagnosed: the root cause id of the diagnosis (``unknown`` for a miss).
    :param first_error: ``(line, text)`` of the first real error, or None.
    :param failing_step: ``(line, text, command)`` of its step, or None.
    :param near: the closest signatures, best first.
    :param draft: a draft row (TOML text) for the first error: a ``[[header]]`` row of
        ``headers.toml`` when the error is a compiler that cannot find an ``#include``,
        else a ``[[signature]]`` row of ``signatures/``.
    :param draft_file: the data file the draft belongs in, relative to the repository
        (``src/torchbuild/knowledge/data/signatures/<family>.toml``, the family of the closest
        signature's cause, or ``.../headers.toml``).
    """

    diagnosed: str
    first_error: tuple[int, str] | None
    failing_step: tuple[int, str, str | None] | None
    near: list[NearMiss] = field(default_factory=list)
    draft: str = ""
    draft_file: str = f"{SIGNATURES_DIR}other.toml"

    def to_json_dict(self) -> dict[str, object]:
        """JSON-ready dict with the same fields."""
        return {
            "diagnosed": self.diagnosed,
            "first_error": {"line": self.first_error[0], "text": self.first_error[1]} if self.first_error else None,
            "failing_step": (
                {"line": self.failing_step[0], "text": self.failing_step[1], "command": self.failing_step[2]}
                if self.failing_step
                else None
            ),
            "near": [n.__dict__ for n in self.near],
            "draft": self.draft,
            "draft_file": self.draft_file,
        }


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _STOP


def _why(sig: Signature, line: str) -> str:
    if sig.anchor not in line:
        return f"its anchor {sig.anchor!r} is not in the line"
    for pat in sig.patterns:
        if sig.match(line) is None:
            return f"the anchor is there, but no pattern matches (e.g. {pat[:90]!r})"
    return "it matches this line, but a signature of higher priority or an earlier error came first"


#: Any header path, in the place of a header row's regex in the compilers' not-found messages;
#: an extensionless one (``Eigen/Dense``, ``google/dense_hash_map``) only after "fatal error" /
#: "catastrophic error" (a missing program, ``bin/hipcc: No such file``, is no include).
_ANY_HEADER = r"[\w.+/-]+\.(?:h|hh|hpp|hxx|cuh|inc)"
_ANY_PATH = r"[\w.+-]+/[\w.+/-]+"


def _missing_header(text: str) -> str | None:
    """The include path of a compiler's not-found message in ``text`` (the wordings of
    ``headers.toml``), else None."""
    body = normalize(text)
    shapes = [_ANY_HEADER] + ([_ANY_PATH] if re.search(r"(?i)(?:fatal|catastrophic) error", body) else [])
    for shape in shapes:
        for _, pat, _ in header_messages():
            m = re.search(pat.replace("{header}", shape), body)
            if m:
                return m.group("header")
    return None


def _header_draft(text: str, header: str) -> str:
    literal = max(re.split(r"[^\w.+-]", header), key=len) or header
    ex = normalize(text).replace("\\", "\\\\").replace('"', '\\"')
    return (
        "[[header]]\n"
        'id = "<short-name>-header-missing"\n'
        'cause = "<a cause id of knowledge/data/causes.toml>"\n'
        f'anchor = "{literal}"\n'
        f"header = '''{re.escape(header)}'''\n"
        "confidence = 0.8\n"
        "priority = 4\n"
        'explanation = "The compiler cannot find {header}: <which package or step provides it>"\n'
        'fix = "<what to install or run>"\n'
        f'examples = ["{ex}"]\n'
        'source = "<the issue URL this line comes from>"\n'
    )


def _draft(text: str) -> str:
    body = normalize(text)
    # the anchor: the longest run of words without paths or numbers
    runs = re.findall(r"[A-Za-z][A-Za-z ',_-]{6,}[A-Za-z']", re.sub(r"\S*[/\\]\S*|\S*\d\S*", "|", body))
    anchor = max(runs, key=len).strip() if runs else body[:30]
    parts = []
    for tok in body.split():
        if "/" in tok or "\\" in tok:
            parts.append(r"\S+")  # a path: any path
        else:
            parts.append(re.sub(r"\d+", r"\\d+", re.escape(tok)))
    pat = r"\s+".join(parts)
    q = anchor.replace('"', '\\"')
    ex = body.replace("\\", "\\\\").replace('"', '\\"')
    return (
        "[[signature]]\n"
        'id = "<short-name>"\n'
        'cause = "<a cause id of knowledge/data/causes.toml>"\n'
        f'anchor = "{q}"\n'
        f"patterns = ['''{pat}''']\n"
        "confidence = 0.8\n"
        "priority = 3\n"
        'explanation = "<why this fails>"\n'
        'fix = "<what to do>"\n'
        f'examples = ["{ex}"]\n'
        'source = "<the issue URL this line comes from>"\n'
    )


def explain_miss(diag: Diagnosis, signatures: Sequence[Signature] | None = None, *, top: int = 5) -> MissExplanation:
    """Explain ``diag``'s root: for ``unknown``, the closest signatures to its first error
    and a draft row; for a named cause, the same fields with no near misses.

    :param diag: a diagnosis of :mod:`torchbuild.decisions.diagnose`.
    :param signatures: the knowledge (default: :func:`load_signatures`).
    :param top: how many near misses to list.
    """
    sigs = tuple(signatures) if signatures is not None else load_signatures()
    fe = diag.first_error
    step = diag.failing_step
    out = MissExplanation(
        diag.root.cause_id,
        (fe.line, fe.text) if fe else None,
        (step.line, step.text, step.command) if step else None,
    )
    if fe is None or diag.root.cause_id != UNKNOWN:
        return out
    words = _words(fe.text)
    scored = []
    for s in sigs if words else ():  # a first error of symbols and stop words alone is near no signature
        sw = _words(" ".join((s.anchor, *s.examples)))
        if not sw:
            continue
        score = len(words & sw) / (len(words) * len(sw)) ** 0.5  # cosine of the word sets
        if score > 0:
            scored.append((score, s))
    scored.sort(key=lambda t: (-t[0], -t[1].priority))
    out.near = [NearMiss(s.id, s.cause, round(sc, 2), _why(s, normalize(fe.text))) for sc, s in scored[:top]]
    header = _missing_header(fe.text)
    if header is not None:
        out.draft = _header_draft(fe.text, header)
        out.draft_file = "src/torchbuild/knowledge/data/headers.toml"
    else:
        out.draft = _draft(fe.text)
        if out.near:
            out.draft_file = f"{SIGNATURES_DIR}{family_of(out.near[0].cause)}.toml"
    return out
