"""What the reasoning rules of :mod:`torchbuild.decisions.diagnose_reasons` share (pure): the
shape of a cause they work on, a signature hit, the confidence of an undecided pair, and small
helpers that rewrite a cause or read the log's context."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from .diagnose_context import LogContext

__all__ = ["UNDECIDED_CAP", "SignatureHit", "CauseFor", "Verdict"]

#: Confidence of each cause when the log cannot tell two causes apart.
UNDECIDED_CAP = 0.55
_CUDA_SO = re.compile(
    r"lib(?:cudart|cublas\w*|cudnn\w*|cufft\w*|curand|cusparse|cusolver\w*|nvrtc|nccl|nvToolsExt)\.so\.(?P<v>\d+(?:\.\d+)?)"
)
#: What Python says when None reaches code that wanted a version string (``torch.version.cuda``
#: of a CPU-only torch): ``.split()`` on None, ``re``/``packaging`` parsing None.
_NONE_ERROR = re.compile(r"NoneType|expected string or bytes-like object")
#: ROCm's runtime libraries, versioned by the ROCm major in their soname (ROCm/apex#73: ROCm 5.0.2
#: ships libamdhip64.so.5, ROCm 4.5.2 libamdhip64.so.4).
_ROCM_SO = re.compile(
    r"lib(?:amdhip64|hiprtc|rocblas|MIOpen|rccl|hipblas\w*|hipsparse|hipfft|rocfft|roctracer64|hsa-runtime64)"
    r"\.so\.(?P<v>\d+)"
)
#: torch's own shared libraries (torch/lib of a wheel, lib/ of libtorch).
_TORCH_SO = re.compile(r"\b(?P<lib>lib(?:torch\w*|c10\w*|shm|caffe2\w*)\.(?:so|dylib))\b")


class _CauseLike(Protocol):
    cause_id: str
    confidence: float
    line: int | None
    signature: str | None
    values: dict[str, str]
    explanation: str
    fix: str
    source: str


@dataclass(frozen=True)
class SignatureHit:
    """A signature match anywhere in the log: its cause id, signature id and line."""

    cause_id: str
    signature: str
    line: int


def _cap(c: _CauseLike, conf: float) -> _CauseLike:
    return replace(c, confidence=round(min(c.confidence, conf), 2))  # type: ignore[type-var]


def _as(c: _CauseLike, cause_id: str, conf: float, explanation: str, fix: str, source: str) -> _CauseLike:
    return replace(
        c,
        cause_id=cause_id,
        confidence=round(conf, 2),
        explanation=explanation,  # type: ignore[type-var]
        fix=fix,
        source=source,
        signature=f"reason:{cause_id}",
    )


def _root_line(c: _CauseLike) -> str:
    """The text of the line ``c`` was found on (its evidence on ``c.line``; pieces of a joined message
    separated by spaces), or "" when it has none."""
    return " ".join(e.text for e in getattr(c, "evidence", []) if e.line == c.line)


def _unknown(c: _CauseLike, explanation: str, fix: str) -> _CauseLike:
    """``c`` turned into ``unknown`` (no signature, confidence 0) with what the log does say: for a
    root whose signature fits the line but whose cause the rest of the log rules out."""
    out = _as(c, "unknown", 0.0, explanation, fix, "torchbuild")
    return replace(out, signature=None)  # type: ignore[type-var]


def _first_ahead(first: _CauseLike, root: _CauseLike, rest: list[_CauseLike], note: str) -> Verdict:
    """The verdict of a rule that puts another reading before the root's: ``first`` (the cause the rule read), then
    ``root`` with its confidence capped at :data:`UNDECIDED_CAP` (kept as the second reading, not dropped), then
    ``rest`` unchanged; ``note`` is the rule's one-line note for the person (the verdict's only note)."""
    return [first, _cap(root, UNDECIDED_CAP), *rest], [note]


def _unknown_ahead(root: _CauseLike, rest: list[_CauseLike], explanation: str, fix: str, note: str) -> Verdict:
    """The verdict of a rule whose log cannot tell the root's cause from another: ``root`` turned into ``unknown``
    with ``explanation`` and ``fix`` (:func:`_unknown`) first, the root's own reading second at most at
    :data:`UNDECIDED_CAP`, then ``rest``; ``note`` is the rule's one-line note for the person."""
    return _first_ahead(_unknown(root, explanation, fix), root, rest, note)


def _release(version: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a torch version as logs print it (``2.7.0+cu126``, ``1.4``,
    ``1.9.1.post3``), or None when it does not start with two numbers."""
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _site(path: str) -> bool:
    return "site-packages" in path or "dist-packages" in path


def _torch_new_abi(ctx: LogContext) -> bool | None:
    """Whether the log's torch uses the new C++ ABI: conda-forge and source builds
    (``+git``) do; pip wheels do from torch 2.7 (PyTorch 2.7 release notes) and did not
    before; None when the log does not say."""
    if ctx.torch_conda_forge or any("+git" in v or "cxx11" in v for v in ctx.torch_versions):
        return True
    for v in ctx.torch_versions:
        release = _release(v)
        if release is not None:
            return release >= (2, 7)
    return None


def _abi_evidence(symbol: str, ctx: LogContext) -> bool:
    """True when the log shows that torch and the extension use different C++ ABIs:
    both ``-D_GLIBCXX_USE_CXX11_ABI`` values, or the ABI the missing symbol was built
    with (``__cxx11``: new; ``Ss``: old) against the ABI of the log's torch."""
    if len(ctx.abi_flags) == 2:
        return True
    torch_new = _torch_new_abi(ctx)
    if torch_new is None or not symbol:
        return False
    ext_new = "cxx11" in symbol
    return ext_new != torch_new


#: Makes the cause of a signature hit elsewhere in the log (None: not available).
CauseFor = Callable[[SignatureHit], "_CauseLike | None"] | None


def _hit_cause(
    hits: Sequence[SignatureHit], cause_for: CauseFor, match: Callable[[SignatureHit], bool]
) -> _CauseLike | None:
    """The cause of the first of ``hits`` that ``match`` accepts (a signature match elsewhere in the log that a
    rule puts beside or before the root), or None when none does or causes of hits are not available."""
    if cause_for is None:
        return None
    hit = next((h for h in hits if match(h)), None)
    return cause_for(hit) if hit is not None else None


#: What a rule returns: the new cause list (root first) and notes, or None when it does not apply.
Verdict = tuple[list[_CauseLike], list[str]] | None


def _hit_first(
    root: _CauseLike,
    rest: list[_CauseLike],
    hits: Sequence[SignatureHit],
    cause_for: CauseFor,
    *,
    roots: frozenset[str],
    hit: str,
    note: str,
) -> Verdict:
    """When the root was named by one of the signatures ``roots`` (a message that says that a step failed, not why)
    and the log also matched the signature ``hit`` (the line that says why), that line's cause first and the root's
    second, capped at :data:`UNDECIDED_CAP`, then ``rest`` without the hit's own cause (so that it is not listed
    twice); ``note`` is formatted with ``line`` (the hit's line number).  None when either is missing."""
    if root.signature not in roots:
        return None
    why = _hit_cause(hits, cause_for, lambda h: h.signature == hit)
    if why is None:
        return None
    return _first_ahead(why, root, [c for c in rest if c.signature != hit], note.format(line=why.line))
