"""Which of a fixed set of words a line holds, in one pass over the line (pure).

The diagnosis asks this of every line of a log: does it hold one of the gate's ~200 words
(:func:`torchbuild.decisions.diagnose.classify.gate`), one of the context's anchors, which
signature anchors does it hold?
Asked word by word (``any(w in line for w in words)``) that costs a pass per word; an
Aho-Corasick automaton (`pyahocorasick <https://pypi.org/project/pyahocorasick/>`_) finds every
word of the set in one pass.  It halves the time of the Python scan of a log (a dev log after the
635-line real PyTorch build output: 0.047 s -> 0.025 s); benchmarks/bench_diagnose.py's 220 MB log
is read mostly by GNU grep and shows no difference.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick

__all__ = ["Words"]


class Words:
    """A fixed set of case-sensitive words (substrings) and the lines that hold them.

    :param words: the words, any order, repeats allowed; an empty word is held by every text (as
        ``"" in text`` is true).
    """

    def __init__(self, words: Iterable[str]) -> None:
        unique = dict.fromkeys(words)
        self._empty = "" in unique
        self._auto = ahocorasick.Automaton()
        for w in unique:
            if w:
                self._auto.add_word(w, w)
        self._live = len(self._auto) > 0
        if self._live:
            self._auto.make_automaton()

    def any_in(self, text: str) -> bool:
        """Whether ``text`` (one line, str) holds at least one of the words, as
        ``any(w in text for w in words)``."""
        if self._empty:
            return True
        if not self._live:
            return False
        for _ in self._auto.iter(text):
            return True
        return False

    def found(self, text: str) -> set[str]:
        """The words that ``text`` (one line, str) holds, overlapping ones included (the empty word
        too, where it is one of them): ``{w for w in words if w in text}``."""
        out = {w for _, w in self._auto.iter(text)} if self._live else set()
        if self._empty:
            out.add("")
        return out
