"""Confidence from the real logs (issue 11): a signature that often named another root than the one the
issue thread judged is reported as a likely cause, below 0.7, with how often it was right
(knowledge/data/signature_precision.toml, made by benchmarks/realworld_calibrate.py)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
import tomllib

from torchbuild import knowledge
from torchbuild.decisions.diagnose import Diagnosis, load_signatures
from torchbuild.decisions.diagnose.model import CALIBRATED_CAP, PRECISION_MIN_LOGS
from torchbuild.decisions.diagnose.ranking import calibrate
from torchbuild.decisions.diagnose.signatures import Precision, load_precision
from torchbuild.knowledge.causes import cause_ids

from .conftest import ROWS, corpus_lines, diagnose_list

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import realworld_calibrate as cal  # noqa: E402
import realworld_firstsight as firstsight  # noqa: E402
import realworld_measure as measure  # noqa: E402

#: A real log whose first cause is an undefined torch symbol, named by the signature
#: undefined-symbol-torch (torch_sparse built for another torch; batch 2, dev).
SYMBOL_LOG = "undefsym-sparse-infer-schema-torch170.log"


def _root(name: str = SYMBOL_LOG, precision: dict | None = None) -> Diagnosis:
    """The diagnosis of corpus log ``name``, read as the CLI reads it (``precision={}``: uncalibrated)."""
    return diagnose_list(corpus_lines(name), precision=precision)


@pytest.fixture
def uncalibrated():
    """The diagnosis of :data:`SYMBOL_LOG` with the calibration off (an empty precision table)."""
    return _root(precision={})


def test_a_signature_often_wrong_on_real_logs_is_reported_as_a_likely_cause(uncalibrated):
    """The root of a real log, with a table saying its signature was right in 10 of 12 logs: the cause and
    the order stay, the confidence drops to the cap, and the note names the counts and the other causes (each
    judged in fewer than 1 of 10 logs: none is listed as a cause of its own)."""
    root = uncalibrated.root
    assert root.confidence > CALIBRATED_CAP and root.signature
    table = {root.signature: Precision(root.signature, 12, 10, {"cxx_abi_mismatch": 1, "unknown": 1})}
    out, notes = calibrate([root, root], table)
    assert [c.cause_id for c in out] == [root.cause_id] * 2
    assert [c.confidence for c in out] == [CALIBRATED_CAP, CALIBRATED_CAP]
    assert out[0].evidence == root.evidence and out[0].fix == root.fix
    assert len(notes) == 1
    assert "in 12 real failure logs" in notes[0] and "confirmed it in 10 " in notes[0]
    assert "(cxx_abi_mismatch: 1, a cause torchbuild does not list: 1)" in notes[0]


def test_the_cause_the_threads_judged_instead_is_listed_second(uncalibrated):
    """A calibrated root whose other judged causes include one in at least 1 of 10 logs: that cause comes second,
    on the root's line, with its share as confidence, its meaning from causes.toml and a thread as its source;
    one below the share, `unknown`, or a cause already listed is not added."""
    root = uncalibrated.root
    table = {
        root.signature: Precision(
            root.signature, 20, 15, {"cxx_abi_mismatch": 3, "unknown": 1, "stale_build_dir": 1}, ("https://x/1",)
        )
    }
    out, _ = calibrate([root], table)
    assert [c.cause_id for c in out] == [root.cause_id, "cxx_abi_mismatch"]
    alt = out[1]
    assert alt.confidence == 0.15 and alt.line == root.line and alt.source == "https://x/1"
    assert "3 of the 20 real logs" in alt.explanation and "_GLIBCXX_USE_CXX11_ABI" in alt.explanation
    out, _ = calibrate([root, replace(root, cause_id="cxx_abi_mismatch")], table)
    assert [c.cause_id for c in out] == [root.cause_id, "cxx_abi_mismatch"]
    thin = {root.signature: Precision(root.signature, 40, 35, {"unknown": 4, "stale_build_dir": 1})}
    assert [c.cause_id for c in calibrate([root], thin)[0]] == [root.cause_id]


@pytest.mark.parametrize(
    ("named", "right"),
    [
        (10, 9),  # right 9 times in 10: at the bar
        (PRECISION_MIN_LOGS - 1, 0),  # too few logs to judge the signature
    ],
)
def test_a_signature_at_the_bar_or_judged_on_too_few_logs_keeps_its_confidence(uncalibrated, named, right):
    root = uncalibrated.root
    table = {root.signature: Precision(root.signature, named, right, {"unknown": named - right})}
    out, notes = calibrate([root], table)
    assert out == [root] and notes == []


def test_a_cause_already_below_the_cap_or_without_a_signature_is_left_alone(uncalibrated):
    root = uncalibrated.root
    low = replace(root, confidence=0.5)
    table = {root.signature: Precision(root.signature, 10, 1, {"unknown": 9})}
    assert calibrate([low], table) == ([low], [])
    bare = replace(root, signature=None)
    assert calibrate([bare], table) == ([bare], [])


def test_the_cli_reports_the_calibrated_confidence_with_its_note():
    """End to end with the shipped table: any signature the table puts below the bar, matched on a real
    log, comes out at the cap with the note (checked for the signature of SYMBOL_LOG when it is below
    the bar; otherwise that its confidence is its own)."""
    root = _root().root
    p = load_precision().get(root.signature or "")
    capped = p is not None and p.below_bar
    sig = next(s for s in load_signatures() if s.id == root.signature)
    if capped:
        assert root.confidence == CALIBRATED_CAP
        assert any(f"confirmed it in {p.right} " in n for n in _root().notes)  # type: ignore[union-attr]
    else:
        assert root.confidence == sig.confidence


def test_the_shipped_table_names_real_signatures_and_causes():
    """Every row of signature_precision.toml names a signature of knowledge/data/signatures (or a reasoning
    rule's ``reason:<cause id>``), counts that add up, judged causes that exist, and the threads it cites."""
    ids = {s.id for s in load_signatures()}
    causes = set(cause_ids()) | {"unknown"}
    rows = knowledge.rows("signature_precision", "signature")
    assert rows
    for row in rows:
        sid = row["id"]
        assert sid in ids or (sid.startswith("reason:") and sid.split(":", 1)[1] in causes), sid
        assert 0 <= row["right"] <= row["named"] and 0 <= row.get("first_right", 0) <= row.get("first_named", 0)
        assert row["right"] < row["named"] or row["first_right"] < row["first_named"]  # judged another cause once
        assert sum(row["others"].values()) == row["named"] - row["right"]
        assert sum(row.get("first_others", {}).values()) == row.get("first_named", 0) - row.get("first_right", 0)
        assert set(row["others"]) | set(row.get("first_others", {})) <= causes
        assert all(u.startswith("https://") for u in row["source"])
    assert set(load_precision()) == {r["id"] for r in rows}


def test_the_shipped_table_is_what_the_corpus_gives():
    """The table is regenerated from the corpus it names (every log up to its ``last_batch`` that is not
    blind for its ``blind_from``), diagnosed with the calibration off, and from the recorded first-sight
    answers of those logs (benchmarks/realworld_firstsight.json): the counts must be the shipped ones.  A
    signature or rule changed since the last `python benchmarks/realworld_calibrate.py --blind-from N` fails here."""
    meta = knowledge.load("signature_precision")["meta"]
    files = [
        r["file"]
        for r in measure.rows()
        if (r.get("batch") or 0) <= meta["last_batch"] and not measure.is_blind(r, meta["blind_from"])
    ]
    assert len(files) == meta["logs"]
    expected, urls = {f: r["cause"] for f, r in ROWS.items()}, {f: r["url"] for f, r in ROWS.items()}
    table = cal.counts(cal.uncalibrated(files), expected, urls)
    seen = cal.first_sight(meta["blind_from"], meta["last_batch"], {s.id for s in load_signatures()})
    assert len(seen) == meta["first_sight_logs"]
    first = cal.counts(seen, expected, urls)
    got = {s: (n, r, dict(o)) for s, (n, r, o, _u) in table.items() if o or first.get(s, (0, 0, {}))[2]}
    got |= {s: (0, 0, {}) for s, (_n, _r, o, _u) in first.items() if o and s not in table}
    shipped = {p.signature: (p.named, p.right, dict(p.others)) for p in load_precision().values()}
    assert got == shipped
    got_first = {s: (n, r, dict(o)) for s, (n, r, o, _u) in first.items() if s in shipped}
    shipped_first = {
        p.signature: (p.first_named, p.first_right, dict(p.first_others)) for p in load_precision().values()
    }
    assert got_first == {s: v for s, v in shipped_first.items() if v[0]}


def test_every_first_sight_answer_is_one_the_code_of_its_commit_gives():
    """benchmarks/realworld_firstsight.json records, for each log, the commit that added it and the first
    cause that commit's code named for it.  For the logs of three recorded commits (the oldest, one in
    the middle, the newest), the record names the commit git says added the log, and that commit's code,
    run again from the repository's history, gives the recorded answers."""
    record = firstsight.load()
    have = subprocess.run(
        ["git", "cat-file", "-e", f"{min(v[3] for v in record.values())}^{{commit}}"], cwd=cal.ROOT, check=False
    )
    if have.returncode != 0:
        pytest.skip("a shallow clone: the commits that added the corpus logs are not in this repository's history")
    commits = firstsight.adding_commits()
    assert {f: commits[f][:12] for f in record} == {f: v[3] for f, v in record.items()}
    order = sorted(
        {v[3] for v in record.values()},
        key=lambda h: min(ROWS[f].get("batch") or 0 for f, v in record.items() if v[3] == h),
    )
    for commit in (order[0], order[len(order) // 2], order[-1]):
        files = sorted(f for f, v in record.items() if v[3] == commit)[:4]
        again = firstsight.diagnose_at(commit, files)
        assert {f: again[f][:3] for f in files} == {f: record[f][:3] for f in files}, commit


def test_render_writes_a_table_that_loads_back():
    """counts() over a made-up snapshot, render(), then the knowledge loader's own checks via tomllib."""
    snap = {
        "a.log": ["cxx_abi_mismatch", 0.8, "sig-a", 3],
        "b.log": ["cxx_abi_mismatch", 0.8, "sig-a", 5],
        "c.log": ["cxx_abi_mismatch", 0.6, "sig-a", 5],  # below 0.7: not a stated finding, not counted
        "d.log": ["unknown", 0.0, None, 1],
        "e.log": ["cuda_version_mismatch", 0.9, "sig-b", 2],
    }
    expected = {"a.log": "cxx_abi_mismatch", "b.log": "torch_extension_mismatch", "c.log": "unknown"}
    expected |= {"d.log": "unknown", "e.log": "cuda_version_mismatch"}
    urls = {f: f"https://github.com/o/r/issues/{i}" for i, f in enumerate(snap)}
    table = cal.counts(snap, expected, urls)
    assert table["sig-a"][:3] == (2, 1, Counter({"torch_extension_mismatch": 1}))
    assert table["sig-b"][:3] == (1, 1, Counter())
    doc = tomllib.loads(cal.render(table, len(snap), "abc1234", 7, 9))
    assert doc["meta"] == {"logs": 5, "first_sight_logs": 0, "blind_from": 7, "last_batch": 9}
    assert doc["signature"] == [
        {
            "id": "sig-a",
            "named": 2,
            "right": 1,
            "others": {"torch_extension_mismatch": 1},
            "source": ["https://github.com/o/r/issues/1"],
        }
    ]
    # At first sight sig-b was wrong once (e.log's thread judged another cause then): it gets a row with
    # both records, and the first-sight thread among its sources; sig-a's row gains its first-sight counts.
    first_snap = {"a.log": ["cxx_abi_mismatch", 0.8, "sig-a", "c1"], "e.log": ["cxx_abi_mismatch", 0.9, "sig-b", "c1"]}
    first_expected = expected | {"e.log": "unknown"}
    first = cal.counts(first_snap, first_expected, urls)
    doc = tomllib.loads(cal.render(table, len(snap), "abc1234", 7, 9, first, len(first_snap)))
    assert doc["meta"]["first_sight_logs"] == 2
    assert [r["id"] for r in doc["signature"]] == ["sig-b", "sig-a"]  # worst first: 0 of 1 at first sight
    assert doc["signature"][0] == {
        "id": "sig-b",
        "named": 1,
        "right": 1,
        "others": {},
        "first_named": 1,
        "first_right": 0,
        "first_others": {"unknown": 1},
        "source": ["https://github.com/o/r/issues/4"],
    }
    assert (doc["signature"][1]["first_named"], doc["signature"][1]["first_right"]) == (1, 1)


@pytest.mark.parametrize(
    ("named", "right", "first_named", "first_right", "below"),
    [
        (20, 20, 10, 8, True),  # always right on the corpus, right 8 times in 10 at first sight
        (20, 17, 10, 10, True),  # at first sight always right, on the corpus 17 in 20
        (20, 20, 10, 9, False),  # at the bar at first sight
        (20, 20, PRECISION_MIN_LOGS - 1, 0, False),  # too few first-sight logs to judge
        (0, 0, 5, 2, True),  # no longer named on the corpus (narrowed since), 2 in 5 at first sight
    ],
)
def test_a_signature_below_the_bar_at_first_sight_is_a_likely_cause(
    uncalibrated, named, right, first_named, first_right, below
):
    """A signature is kept below 0.7 when it is below the bar on either record; the note then says how
    it fared on the logs torchbuild met before anyone had read them, and the cause the threads judged
    instead at first sight is listed second when the corpus record has none."""
    root = uncalibrated.root
    others = {"unknown": named - right} if named > right else {}
    p = Precision(
        root.signature,
        named,
        right,
        others,
        (),
        first_named,
        first_right,
        {"cxx_abi_mismatch": first_named - first_right},
    )
    assert p.below_bar is below
    out, notes = calibrate([root], {root.signature: p})
    if not below:
        assert out == [root] and notes == []
        return
    assert out[0].cause_id == root.cause_id and out[0].confidence == CALIBRATED_CAP
    assert f"On the {first_named} logs " in notes[0] and "named when torchbuild first met them" in notes[0]
    assert f"confirmed it in {first_right} (cxx_abi_mismatch: {first_named - first_right})" in notes[0]
    assert root.signature in notes[0]
    if not others:
        assert [c.cause_id for c in out] == [root.cause_id, "cxx_abi_mismatch"]
        assert f"of the {first_named} real logs" in out[1].explanation


def test_a_first_sight_count_outside_its_range_is_refused(tmp_path, monkeypatch):
    """A row whose first_right exceeds first_named is a knowledge error that says to regenerate the table."""
    bad = 'id = "x"\nnamed = 3\nright = 2\nothers = { unknown = 1 }\nfirst_named = 2\nfirst_right = 3\n'
    monkeypatch.setattr("torchbuild.decisions.diagnose.signatures.rows", lambda *_a: [tomllib.loads(bad)])
    load_precision.cache_clear()
    try:
        with pytest.raises(knowledge.KnowledgeError, match="first_right = 3.*realworld_calibrate"):
            load_precision()
    finally:
        load_precision.cache_clear()
