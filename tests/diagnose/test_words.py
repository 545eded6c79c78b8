"""decisions/words.py: one pass over a line answers what the word-by-word checks it replaced answered."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from torchbuild.decisions.diagnose.classify import gate
from torchbuild.decisions.words import Words

#: Short words over a small alphabet, so that words overlap, nest and repeat in the texts.
_WORD = st.text(alphabet="abc: é", min_size=0, max_size=4)


@given(words=st.lists(_WORD, max_size=12), text=st.text(alphabet="abc: éd", max_size=30))
def test_any_in_and_found_are_the_substring_checks(words: list[str], text: str):
    """For any words (empty, repeated, one inside another, not ASCII) and any text: ``any_in`` is
    ``any(w in text)`` and ``found`` is the set of words the text holds."""
    w = Words(words)
    assert w.any_in(text) == any(x in text for x in words)
    assert w.found(text) == {x for x in words if x in text}


def test_the_gate_words_on_real_lines():
    """The gate (a few hundred words) on lines of this project's real PyTorch build log and an error line."""
    from pathlib import Path

    words = Words(gate())
    lines = (
        (Path(__file__).resolve().parent.parent / "data" / "pytorch-2.6.0-build-excerpt.log")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    lines.append("aten/src/ATen/native/Foo.cpp:12:3: error: 'bar' was not declared in this scope")
    assert [words.any_in(x) for x in lines] == [any(g in x for g in gate()) for x in lines]
    assert words.any_in(lines[-1]) and not words.any_in("[12/40] Building CXX object c10/core/Allocator.cpp.o")
