"""The knowledge: every cause has signatures; every example matches its own signature."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from torchbuild import knowledge
from torchbuild.decisions.diagnose import GATE, diagnose_lines, load_signatures, normalize
from torchbuild.decisions.diagnose.signatures import header_messages
from torchbuild.decisions.diagnose_reasons import UNDECIDED_CAP
from torchbuild.knowledge import KnowledgeError, causes, load


def test_every_cause_has_a_signature():
    # additions to the project's cause list are named by other commands (their `added` says which)
    listed = {c.id for c in causes.causes() if c.id != causes.UNKNOWN and not c.added}
    assert listed - {s.cause for s in load_signatures()} == set()


def test_each_signature_is_in_the_file_of_its_causes_family():
    """knowledge/data/signatures/ holds one file per cause family of causes.toml (a newcomer knows
    where a row goes); _meta.toml holds only [meta]."""
    base = Path(knowledge.__file__).parent / "data"
    parts = knowledge.files("signatures")
    assert parts[0] == "signatures/_meta.toml" and len(parts) > 1
    assert set(tomllib.loads((base / parts[0]).read_text(encoding="utf-8"))) == {"meta"}
    seen = 0
    for rel in parts[1:]:
        doc = tomllib.loads((base / rel).read_text(encoding="utf-8"))
        assert set(doc) == {"signature"}, rel
        fam = Path(rel).stem
        assert fam in causes.families(), f"{rel} is not named after a family of causes.toml"
        wrong = [r["id"] for r in doc["signature"] if causes.family_of(r["cause"]) != fam]
        assert not wrong, f"{rel} holds signatures of another family's causes: {wrong}"
        seen += len(doc["signature"])
    assert seen == len(knowledge.rows("signatures", "signature"))


def test_a_folder_table_keeps_meta_in_its_meta_file_only(monkeypatch, tmp_path):
    """A file of rows with its own [meta], or a row citing an unknown key, is refused with the
    file's name; a table that exists neither as a file nor as a folder is named as missing."""
    data = tmp_path / "data"
    (data / "t").mkdir(parents=True)
    (data / "t" / "_meta.toml").write_text('[meta]\nsources = { k = "https://example.org/v1" }\n', encoding="utf-8")
    (data / "t" / "a.toml").write_text('[[row]]\nsource = "k"\n', encoding="utf-8")
    monkeypatch.setattr(knowledge, "_data", lambda: data)
    knowledge.load.cache_clear()
    try:
        assert knowledge.load("t")["row"] == [{"source": "k"}]
        knowledge.load.cache_clear()
        (data / "t" / "b.toml").write_text('[[row]]\nsource = "nokey"\n', encoding="utf-8")
        with pytest.raises(KnowledgeError, match=r"t/b\.toml: row\[0\] cites 'nokey'"):
            knowledge.load("t")
        (data / "t" / "b.toml").write_text('[meta]\ndescription = "x"\n', encoding="utf-8")
        with pytest.raises(KnowledgeError, match=r"t/b\.toml: \[meta\] belongs in t/_meta\.toml"):
            knowledge.load("t")
        with pytest.raises(KnowledgeError, match="knowledge file nothere.toml is missing"):
            knowledge.files("nothere")
    finally:
        knowledge.load.cache_clear()


def test_signatures_name_only_known_causes():
    assert {s.cause for s in load_signatures()} <= causes.cause_ids() - {causes.UNKNOWN}


def test_signature_ids_unique_and_sourced():
    sigs = load_signatures()
    assert len({s.id for s in sigs}) == len(sigs)
    sources = load("signatures")["meta"]["sources"]
    for s in sigs:
        assert s.source.startswith("http") or s.source in sources, s.id
        assert 0 < s.confidence <= 1
        assert s.examples, f"{s.id} has no example log line"


@pytest.mark.parametrize("sig", load_signatures(), ids=lambda s: s.id)
def test_examples_match_and_give_their_cause(sig):
    for ex in sig.examples:
        body = normalize(ex)
        assert any(g in body for g in GATE), f"example of {sig.id} would be skipped by the gate: {ex}"
        d = diagnose_lines([(1, ex)])
        if d.root.cause_id != sig.cause:
            # a line alone that fits two causes (diagnose_reasons): both are reported,
            # this signature's cause second, neither with confidence
            assert [c.cause_id for c in d.causes[:2]][1:] == [sig.cause], (sig.id, ex, d.root.signature)
            assert d.root.confidence <= UNDECIDED_CAP and d.causes[1].confidence <= UNDECIDED_CAP, (sig.id, ex)


def test_every_pattern_has_an_example_that_reaches_it():
    """A pattern no example exercises can be dead without anyone seeing it: a line it would
    match may lack the row's anchor (the fast pre-check) or every GATE word, and then it is
    never tried.  Each pattern has an example that it matches, that holds the anchor and passes
    the gate (test_examples_match_and_give_their_cause then checks the cause)."""
    import re

    n_messages = len(header_messages())
    dead = []
    for sig in load_signatures():
        bodies = [normalize(ex) for ex in sig.examples]
        # a headers.toml row: its compiler messages, together, are reached by an example (each
        # message is tested whole by test_every_compiler_message_names_the_header_cause); `also`
        # patterns one by one, as the patterns of signatures/
        own = sig.patterns[n_messages:] if sig.header else sig.patterns
        groups = ([list(sig.patterns[:n_messages])] if sig.header else []) + [[p] for p in own]
        for pats in groups:
            rxs = [re.compile(p) for p in pats]
            if not any(any(r.search(b) for r in rxs) and sig.anchor in b and any(g in b for g in GATE) for b in bodies):
                dead.append((sig.id, pats[0] if len(pats) == 1 else "its compiler messages (headers.toml)"))
    assert not dead, dead


def test_explanations_fill_their_fields_from_defaults_or_captures():
    """Every field of an explanation or fix is filled, by a capture of the example's own
    pattern (``nvcc5`` of an alternative pattern fills ``{nvcc}``) or by a default: never the
    ``<name>`` placeholder of a value that was not found."""
    import string

    for sig in load_signatures():
        fields = {f for t in (sig.explanation, sig.fix) for _, f, _, _ in string.Formatter().parse(t) if f}
        for ex in sig.examples:
            d = diagnose_lines([(1, ex)])
            if d.root.signature == sig.id:
                assert "{" not in d.root.explanation and "{" not in d.root.fix, sig.id
                missing = [f for f in fields if f not in sig.defaults and f not in d.root.values]
                assert not missing, (sig.id, ex, missing)


@pytest.mark.parametrize("message", header_messages(), ids=lambda m: m[0])
def test_every_compiler_message_names_the_header_cause(message):
    """Each compiler's not-found wording of headers.toml (gcc, clang, MSVC, nvcc's EDG front
    end), on its real example line, gives the cause of the header row that the missing path
    fits, with the path as ``header``: every [[header]] row is matched in every wording."""
    compiler, _, example = message
    d = diagnose_lines([(1, example)])
    assert d.root.signature is not None and d.root.values.get("header"), (compiler, example)
    row = next(s for s in load_signatures() if s.id == d.root.signature)
    assert row.header, (compiler, row.id)
    assert d.root.cause_id == row.cause == "cuda_toolkit_incomplete"
    assert d.root.values["header"] in example


def test_a_header_path_is_matched_whole():
    """A header row's regex fits the whole include path, not its tail: ``myPython.h`` or
    ``foo/Python.h`` is not Python.h, ``python3.11/Python.h`` is."""
    for line, want in [
        ("x.c:1:10: fatal error: myPython.h: No such file or directory", None),
        ("x.c:1:10: fatal error: foo/omp.h: No such file or directory", None),
        ("x.c:1:10: fatal error: python3.11/Python.h: No such file or directory", "python_headers_missing"),
        ("x.c:1:10: fatal error: omp.h: no such file or directory", "openmp_missing"),
    ]:
        d = diagnose_lines([(1, line)])
        got = d.root.cause_id if d.root.signature in {s.id for s in load_signatures() if s.header} else None
        assert got == want, line
