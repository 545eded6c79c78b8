"""The key index of the signatures (pure, with a cache): for each signature the texts of which a line must hold one
for the signature to match it (its *keys*), and for each key the signatures that have it, so that :class:`.matching.
Scanner` tries on a line only the signatures one of whose keys the line holds.  Computing the keys parses every
pattern with Python's regular-expression parser; the result is kept in the knowledge cache
(:func:`torchbuild.knowledge.derived`), keyed by the rows and by this code."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ...knowledge import derived
from ..words import Words
from . import signatures as signatures_module
from .signatures import Signature, required_text

#: The key index of the last signature tuple a :class:`.matching.Scanner` was made with (the shipped one, usually):
#: ``(signatures, words, {key: [index in signatures, ...]}, {held keys: candidate indices})``.
_KEY_INDEX: list[tuple[tuple[Signature, ...], Words, dict[str, list[int]], dict[frozenset[str], tuple[int, ...]]]] = []
#: How many distinct sets of held keys :func:`_candidates` remembers (a log repeats a few sets on most lines).
_CANDIDATE_CACHE = 4096


def _keys(sig: Signature) -> tuple[str, ...]:
    """The texts of which a line must hold one for ``sig`` to match it: the required texts of its patterns
    (:func:`.signatures.required_text`; :meth:`.Signature.search` runs no pattern whose text the line lacks) when
    every pattern has one at least as long as the anchor, else the anchor alone (which every match holds too)."""
    need = tuple(dict.fromkeys(required_text(p) for p in sig.patterns))
    if need and all(len(n) >= max(len(sig.anchor), 1) for n in need):
        return need
    return (sig.anchor,)


@functools.lru_cache(maxsize=1)
def _key_code() -> bytes:
    """The source of the code that computes a signature's keys (:func:`_keys` here, :func:`.signatures.required_text`),
    part of the key index's cache key; b"" when it cannot be read (a zip import: the version still keys the cache)."""
    parts = []
    for path in (Path(__file__), Path(signatures_module.__file__ or "")):
        try:
            parts.append(path.read_bytes())
        except OSError:
            parts.append(b"")
    return b"\0".join(parts)


def _key_index(
    sigs: tuple[Signature, ...],
) -> tuple[Words, dict[str, list[int]], dict[frozenset[str], tuple[int, ...]]]:
    """The keys of ``sigs`` (:func:`_keys`) as :class:`~torchbuild.decisions.words.Words`, for each key the indices
    of the signatures that have it (ascending), and an empty cache for :func:`_candidates`; computed once for the
    same tuple."""
    if _KEY_INDEX and _KEY_INDEX[0][0] is sigs:
        return _KEY_INDEX[0][1], _KEY_INDEX[0][2], _KEY_INDEX[0][3]

    def compute() -> dict[str, Any]:
        out: dict[str, list[int]] = {}
        for i, s in enumerate(sigs):
            for k in _keys(s):
                out.setdefault(k, []).append(i)
        return out

    # computing the keys parses every pattern with Python's regex parser (about 0.1 s for the shipped rows): kept in
    # the knowledge cache, keyed by the rows' anchors and patterns and by the code that computes the keys
    rows_text = "\0".join(s.anchor + "\1" + "\1".join(s.patterns) for s in sigs)
    by_key: dict[str, list[int]] = derived("signature-keys", _key_code() + rows_text.encode(), compute)
    words = Words(by_key)
    cache: dict[frozenset[str], tuple[int, ...]] = {}
    _KEY_INDEX[:] = [(sigs, words, by_key, cache)]
    return words, by_key, cache


def _candidates(
    held: set[str], by_key: dict[str, list[int]], cache: dict[frozenset[str], tuple[int, ...]]
) -> tuple[int, ...]:
    """The indices (ascending: highest priority first) of the signatures one of whose keys is in ``held``."""
    key = frozenset(held)
    got = cache.get(key)
    if got is None:
        got = tuple(sorted({i for a in held for i in by_key[a]}))
        if len(cache) < _CANDIDATE_CACHE:
            cache[key] = got
    return got
