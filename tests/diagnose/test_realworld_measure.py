"""benchmarks/realworld_measure.py, the whole-corpus checks that keep blind held-out logs blind
(benchmarks/realworld_protocol.md): a snapshot never holds a blind log, and compare reports only what changed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import realworld_measure as m  # noqa: E402

from .conftest import ROWS  # noqa: E402


def test_a_snapshot_leaves_blind_logs_out_of_its_file_and_its_counts(tmp_path, monkeypatch, capsys):
    """Three real corpus logs, one of them made a held-out log of a blind batch: the snapshot diagnoses the two
    others for real and neither writes nor counts the third."""
    names = ["cudahome-db-dcn-cuda-home-path-list.log", "torchsparse-nvcc-91-vs-cuda-102.log"]
    blind = dict(ROWS["import-k2-pip-wheel-cp38-in-python36-env.log"], split="holdout", batch=999)
    monkeypatch.setattr(m, "rows", lambda: [ROWS[n] for n in names] + [blind])
    out = tmp_path / "snap.json"
    assert m.main(["snapshot", str(out), "--blind-from", "999"]) == 0
    snap = json.loads(out.read_text())
    assert sorted(snap) == sorted(names)
    assert snap["cudahome-db-dcn-cuda-home-path-list.log"][0] == "cuda_toolkit_not_found"
    printed = capsys.readouterr().out
    assert "2 logs that are not blind" in printed and blind["file"] not in printed


def test_compare_names_only_what_changed(tmp_path, capsys):
    """Two snapshots that differ in one log: that log is listed, as better, with its expected cause."""
    name = "torchsparse-nvcc-91-vs-cuda-102.log"
    other = "cudahome-db-dcn-cuda-home-path-list.log"
    a = {name: ["unknown", 0.0, None, None], other: ["cuda_toolkit_not_found", 0.8, "x", 1]}
    b = {name: ["cuda_version_mismatch", 0.5, "y", 1], other: ["cuda_toolkit_not_found", 0.8, "x", 1]}
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    assert m.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("better") and name[:40] in lines[0]
    assert lines[1] == "1 of 2 logs changed"


@pytest.mark.parametrize(
    ("got", "conf", "right", "wrong"),
    [
        ("cuda_version_mismatch", 0.5, 1, 0),
        ("unknown", 0.0, 0, 0),
        ("no_kernel_image", 0.75, 0, 1),
        ("no_kernel_image", 0.6, 0, 0),
    ],
)
def test_the_issues_two_rates(got, conf, right, wrong):
    """Right first cause, and confidently wrong: another named cause at 0.7 or above (unknown never is)."""
    assert m.score({"a.log": [got, conf, None, None]}, {"a.log": "cuda_version_mismatch"}) == (right, wrong)


def test_the_log_only_reader_sees_numbers_and_its_answers_map_back(tmp_path, monkeypatch, capsys):
    """benchmarks/realworld_reader.py on three real corpus logs, two of them made blind held-out logs: prepare
    copies only the two blind ones, under numbers, and prints neither their names nor their labels; collect maps
    the reader's answers back to the file names; a second prepare into the same folder is refused, and an answer
    for a number prepare did not write is an error."""
    import realworld_reader as rr

    seen = ROWS["cudahome-db-dcn-cuda-home-path-list.log"]
    blind = [
        dict(ROWS[n], split="holdout", batch=999)
        for n in ("torchsparse-nvcc-91-vs-cuda-102.log", "import-k2-pip-wheel-cp38-in-python36-env.log")
    ]
    monkeypatch.setattr(m, "rows", lambda: [seen, *blind])
    folder = tmp_path / "reading"
    assert rr.main(["prepare", "--blind-from", "999", str(folder)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("2 blind held-out logs written")
    assert all(b["file"] not in printed and b["cause"] not in printed for b in blind)
    logs = sorted(p.name for p in (folder / "logs").iterdir())
    assert logs == ["001.log", "002.log"]
    key = json.loads((folder / "key.json").read_text())["key"]
    assert sorted(key.values()) == sorted(b["file"] for b in blind)
    assert (folder / "logs" / "001.log").read_bytes() == (m.CORPUS / key["001"]).read_bytes()
    with pytest.raises(SystemExit, match="already holds logs"):
        rr.main(["prepare", "--blind-from", "999", str(folder)])

    (folder / "answers.json").write_text(json.dumps({"001": ["cuda_version_mismatch", "high"]}))
    out = tmp_path / "reading.json"
    assert rr.main(["collect", str(folder), str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["answers"] == {key["001"]: ["cuda_version_mismatch", "high"]}
    assert got["meta"]["logs"] == 2 and got["meta"]["answered"] == 1
    (folder / "answers.json").write_text(json.dumps({"007": ["unknown", "low"]}))
    with pytest.raises(SystemExit, match="007"):
        rr.main(["collect", str(folder), str(out)])


def test_readings_pool_with_the_first_answer_of_a_log_read_twice(tmp_path):
    """realworld_relabel.pool of two readings (read_answers of each): a log in both keeps the first reading's answer;
    a file without an answers object is refused with the way to write one."""
    import realworld_relabel as rl

    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps({"answers": {"x.log": ["cuda_version_mismatch", "high"]}}))
    b.write_text(json.dumps({"answers": {"x.log": ["unknown", "low"], "y.log": ["compiler_missing", "medium"]}}))
    assert rl.pool([rl.read_answers(a), rl.read_answers(b)]) == {
        "x.log": ["cuda_version_mismatch", "high"],
        "y.log": ["compiler_missing", "medium"],
    }
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"key": {}}))
    with pytest.raises(SystemExit, match="realworld_reader.py collect"):
        rl.read_answers(bad)
