"""Real build logs from public issues (tests/diagnose/realworld, see index.toml): the
diagnosis must keep naming the cause judged from each issue thread, and the rules that
the corpus taught (hint lines, terminal-wrapped lines, quoted replies) must hold."""

from __future__ import annotations

import contextlib
import functools
import io
import json
from pathlib import Path

import pytest
import tomllib

from torchbuild.cli import main as cli_main
from torchbuild.decisions.diagnose import HINT_ALONE_CAP, HINT_CAP
from torchbuild.knowledge.causes import cause_ids

from .conftest import diagnose_text

CORPUS = Path(__file__).resolve().parent / "realworld"
ROWS = tomllib.loads((CORPUS / "index.toml").read_text(encoding="utf-8"))["log"]

#: Regression floors on the whole corpus.  First 84 logs: 84/84 at the end of the first
#: held-out evaluation.  Issue 11 added 175 logs (batch 2, split by hash); before any
#: change for them the whole corpus scored 226/259 right (87.3%) and 9/259 wrong at high
#: confidence (3.5%) (benchmarks/eval_diagnose_baseline.txt); after the changes of issue
#: 11: 247/259 right (95.4%), 1/259 wrong at high confidence (0.4%).  A change that loses
#: a log must say why (fix it, or lower the floor in the same commit with the reason).
#: Batch 5 (75 logs, 33 of them held out and never tuned for) brought the whole corpus, after
#: its dev work, to 372/393 (94.7%) and 2/393 wrong at high confidence: the floor is 0.94 from
#: then on (still above the issue's goal of 90%), the ceiling unchanged.  Batch 6 (76 logs, 31
#: held out) likewise: 440/469 (93.8%), 4/469 wrong at high confidence, after its dev work: 0.93.
#: Batch 7 (75 logs, 43 held out): 505/544 (92.8%) and 7/544 (1.3%) wrong at high confidence after
#: its dev work (the confident mistakes are on held-out logs, never tuned for): floor 0.92, ceiling
#: 0.015 (the issue's bar is 3%).  Batch 8 (60 logs, 32 held out): 557/604 (92.2%), 8/604 (1.3%)
#: after its dev work, within both.  Batch 9 (58 logs, 23 held out at 78.3%, never tuned for):
#: 609/662 (92.0%), 9/662 (1.4%) after its dev work: floor 0.915.  Batch 10 (58 logs, 24 held
#: out: 75.0%, and 4 of them confidently wrong, never tuned for): 659/720 (91.5%), 14/720 (1.9%)
#: after its dev work: ceiling 0.02 (the issue's bar is 3%).  Batch 11 (20 logs): 678/740 (91.6%),
#: 14/740, within both.  Batch 12 (37 logs, added at the end of session 18 with no work done for its
#: dev logs either: 73.0% of it right, 3 of it confidently wrong): 705/777 (90.7%), 17/777 (2.2%):
#: floor 0.905, ceiling 0.025 until its dev logs are worked on.  Session 19 worked on batch 12's dev
#: logs, added batch 13 (20 logs, 10 held out) and moved the missing-header signatures to
#: headers.toml: 736/797 (92.3%), 15/797 (1.9%): floor 0.92, ceiling 0.02 again.  Batch 14 (20 logs, 7
#: held out) came in after the session's last code change, with no work done for it (75.0% of it right, 2
#: of its dev logs confidently wrong): 751/817 (91.9%), 17/817 (2.1%): floor 0.915, ceiling 0.025 until its
#: dev logs are worked on.  Session 20 worked on them, added batches 15-17 (121 logs, 70 held out, collected
#: blind) and wrote signatures from the tools' own messages: 883/938 (94.1%), 15/938 (1.6%): floor 0.935,
#: ceiling 0.02 again.  Session 21 added batch 18 (80 logs, 46 held out, collected blind; 71.2% of it right
#: with the session start's code) and wrote signatures for its dev misses: 947/1018 (93.0%), 19/1018
#: (1.9%): floor 0.925, ceiling 0.025 while its held-out half stays unread.  Batches 19 and 20 (52 logs,
#: 25 held out, blind; batch 20's held-out half 57.1% right at its baseline) came in the same session:
#: 989/1070 (92.4%), 20/1070 (1.9%): floor 0.92, ceiling 0.025.  Batches 21 and 22 (40 logs, 16 held out,
#: blind; their held-out halves 50% right at their baselines): 1021/1110 (92.0%): floor 0.915.  After the
#: session's one measurement its held-out misses were read and ten of them named: 1031/1110 (92.9%),
#: 21/1110 (1.9%): floor 0.925.  Session 22 added batch 23 (63 logs, 21 held out, blind; 74.6% of it right
#: with the session start's code) and wrote signatures for its dev misses: 1085/1173 (92.5%), 23/1173
#: (2.0%): floor 0.92 while its held-out half stays unread.  Batch 24 (41 logs, 18 held out, blind; 80.5% of
#: it right at its baseline) came in the same session: 1118/1214 (92.1%), 25/1214 (2.1%).  Batch 25 (12 logs,
#: 6 held out, blind; 50% of it right at its baseline): 1125/1226 (91.8%), 29/1226 (2.4%): floor 0.915.
#: Batches 26-28 (42 logs, 20 held out, blind) came in the same session; after the one measurement and
#: three fixes for its held-out misses: 1171/1268 (92.4%), 28/1268 (2.2%): floor 0.92.
#: Session 23 added batches 29-54 (220 logs, 101 held out, blind; 71/101 right at the measurement,
#: benchmarks/eval_diagnose_issue11_session23.txt); after it and two fixes read from its misses:
#: 1342/1488 (90.2%), 39/1488 (2.6%); after the session's later fixes from its held-out misses (seen, listed
#: in that record): 1352/1488 (90.9%), 36/1488 (2.4%): floor 0.905, ceiling 0.025.
#: Session 24 added batches 55-78 (199 logs, 103 held out, blind; 79/103 right at the measurement, the same
#: with the session start's code: benchmarks/eval_diagnose_issue11_session24.txt); after the fixes read from
#: its held-out misses (seen): 1520/1687 (90.1%), 36/1687 (2.1%): floor 0.90, ceiling 0.025.
#: Session 25 added batches 79-105 (203 logs, 108 held out, blind; 57/92 and 11/16 right at its two
#: measurements, the same with the session start's code: benchmarks/eval_diagnose_issue11_session25.txt) and
#: calibrated confidence on the corpus (knowledge/data/signature_precision.toml); after the fixes read from its
#: held-out misses (seen): 1683/1890 (89.0%), 16/1890 (0.8%): floor 0.89 (the new logs are harder: 62% of them
#: right when measured, against 75-77% in earlier rounds), ceiling 0.015.
#: Session 26 added batches 106-128 (195 logs, 102 held out, blind; 67/102 right at its measurement, the same
#: with the session start's code: benchmarks/eval_diagnose_issue11_session26.txt); after the fixes read from its
#: held-out misses (seen): 1833/2085 (87.9%), 17/2085 (0.8%): floor 0.875 (the new logs are harder again: 66%
#: of them right when measured), ceiling 0.015.
#: Session 27 added batches 133-161 (188 logs, 99 held out, blind; 71/99 right at its three measurements, 69/99
#: with the session start's code: benchmarks/eval_diagnose_issue11_session27.txt) and calibrated confidence at
#: first sight too; after the fixes read from its held-out misses (seen): 1987/2285 (87.0%), 14/2285 (0.6%):
#: floor 0.865 (the new logs are harder: 72% of the held-out ones right when measured), ceiling 0.015.
#: Sessions 28-31 kept the corpus above it.  Session 32 added batches 269-296 (165 logs, 82 held out, blind; 52/82
#: right at its two measurements, 53/82 with the session start's code: benchmarks/eval_diagnose_issue11_session32.txt);
#: after the rows read from its misses and its dev logs (seen): 2683/3119 (86.0%), 18/3119 (0.6%): floor 0.86 (the
#: new logs are harder: 63% of the held-out ones right when measured), ceiling unchanged.  Session 33 added batches
#: 297-326 (215 logs, 104 held out, blind; 85/104 right at its two measurements, the same with the session start's
#: code: benchmarks/eval_diagnose_issue11_session33.txt); after the rows read from its misses and its dev logs (seen):
#: 2860/3334 (85.8%), 18/3334 (0.5%): floor 0.855 (82% of the new held-out logs right when measured, under the
#: corpus's 86%), ceiling unchanged.  Session 34 added batches 327-358 (166 logs, 68 held out, blind; 52/68 right at
#: its three measurements, the same with the session start's code: benchmarks/eval_diagnose_issue11_session34.txt);
#: after the rows read from its misses and its dev logs (seen): 3001/3500 (85.7%), 22/3500 (0.6%): floor and
#: ceiling unchanged.  Session 35 added batches 359-386 (177 logs, 82 held out, blind; 61/82 right at its two
#: measurements, the same with the session start's code: benchmarks/eval_diagnose_issue11_session35.txt); after the
#: rows read from its misses and its dev logs (seen): 3158/3677 (85.9%), 25/3677 (0.7%): floor and ceiling unchanged.
#: Session 36 added batches 387-414 (205 logs, 111 held out, blind; 84/111 right at its three measurements, the same
#: with the session start's code: benchmarks/eval_diagnose_issue11_session36.txt); after the rows read from its misses
#: and its dev logs (seen): 3340/3882 (86.0%), 22/3882 (0.6%): floor and ceiling unchanged.  Session 37 added
#: batches 415-443 (193 logs, 101 held out, blind; 69/101 right at its three measurements, 68/101 with the session
#: start's code: benchmarks/eval_diagnose_issue11_session37.txt); after the rows read from its misses and its dev logs
#: (seen): 3516/4075 (86.3%), 26/4075 (0.6%): floor and ceiling unchanged.  Session 38 added batches 444-481 (198
#: logs, 104 held out, blind; 81/104 right at its five measurements, 82/104 with the session start's code:
#: benchmarks/eval_diagnose_issue11_session38.txt); after the rows read from its misses and its dev logs (seen):
#: 3683/4273 (86.2%), 26/4273 (0.6%): floor and ceiling unchanged.  Session 39 added batches 482-513 (153 logs,
#: 83 held out, blind; 57/83 right at its three measurements, 56/83 with the session start's code:
#: benchmarks/eval_diagnose_issue11_session39.txt); after the rows read from its misses and its dev logs (seen):
#: 3816/4426 (86.2%), 26/4426 (0.6%): floor and ceiling unchanged.  Session 40 added batches 514-546 (163 logs,
#: 83 held out, blind; 64/83 right at its three measurements, 63/83 with the session start's code:
#: benchmarks/eval_diagnose_issue11_session40.txt); after the rows read from its misses and its dev logs (seen):
#: 3949/4589 (86.1%), 31/4589 (0.7%): floor and ceiling unchanged.  Session 41 added batches 547-582 (170 logs,
#: 82 held out, blind; 60/82 right at its measurement, 59/82 with the session start's code:
#: benchmarks/eval_diagnose_issue11_session41.txt); after the rows read from its misses and its dev logs (seen):
#: 4087/4759 (85.9%), 33/4759 (0.7%): floor and ceiling unchanged.  Session 42 added batches 583-592 (36 logs,
#: 17 held out, blind; 14/17 right at its measurement, 13/17 with the session start's code:
#: benchmarks/eval_diagnose_issue11_session42.txt); after the row read from its misses and its dev logs (seen):
#: 4120/4795 (85.9%), 34/4795 (0.7%): floor and ceiling unchanged.  Session 43 added batches 593-636 (181 logs,
#: 85 held out, blind; 64/85 right at its measurement, 62/85 with the session start's code; one of them seen by
#: name and label before it: benchmarks/eval_diagnose_issue11_session43.txt); after the row read from its misses
#: and its dev logs (seen): 4270/4976 (85.8%), 37/4976 (0.7%): floor and ceiling unchanged.  Session 44 added batches
#: 637-677 (172 logs, 98 held out, blind; 82/98 right at its measurement, the same with the session start's code:
#: benchmarks/eval_diagnose_issue11_session44.txt); after the rows read from its misses and its dev logs (seen):
#: 4417/5148 (85.8%), 38/5148 (0.7%): floor and ceiling unchanged.  Session 45 added batches 678-715 (157 logs, 86
#: held out, blind; 54/86 right at its measurement, 53/86 with the session start's code:
#: benchmarks/eval_diagnose_issue11_session45.txt); after the rows read from its misses and its dev logs (seen):
#: 4537/5305 (85.5%), 39/5305 (0.7%): floor and ceiling unchanged, the corpus now at the floor (the new round's
#: held-out logs were 62.8% right when measured).  Session 46 added batches 716-717 (15 logs, 10 held out, blind;
#: 10/10 right at its measurement, the same with the session start's code:
#: benchmarks/eval_diagnose_issue11_session46.txt): 4554/5320 (85.6%), 41/5320 (0.8%): floor and ceiling unchanged.
#: Session 47 added batches 718-729 (61 logs, 36 held out, blind; 24/36 right at its measurement, the same with the
#: session start's code: benchmarks/eval_diagnose_issue11_session47.txt); after the rows read from its misses (seen):
#: 4603/5381 (85.5%), 42/5381 (0.8%): floor and ceiling unchanged, the corpus just above the floor.
#: Session 48 added batches 730-760 (130 logs, 56 held out, blind; 42/56 right at its measurement, the same with the
#: session start's code: benchmarks/eval_diagnose_issue11_session48.txt); after the rows read from its misses (seen):
#: 4719/5511 (85.6%), 44/5511 (0.8%): floor and ceiling unchanged.  Session 49 added batches 761-796 (136 logs,
#: 71 held out, blind; 52/71 right at its measurement, the same with the session start's code:
#: benchmarks/eval_diagnose_issue11_session49.txt); its round B added batches 797-803 (34 logs, 18 held out, blind;
#: 17/18 right at its measurement, the same with the start's code); after both (seen): 4866/5681 (85.7%), 45/5681
#: (0.8%): floor and ceiling unchanged.  Session 50 added batches 804-845 (180 logs, 86 held out, blind, in three
#: rounds: 44/63, 5/8 and 12/15 right at their measurements, 42/63, 5/8 and 12/15 with the start's code:
#: benchmarks/eval_diagnose_issue11_session50.txt); after the rows read from their misses (seen): 5008/5861
#: (85.4%), 41/5861 (0.7%), under the floor: by session 46's rule (benchmarks/realworld_protocol.md) the floor
#: follows the corpus, rounded down to 0.005, and the ceiling its confidently-wrong rate, rounded up to 0.005.
#: Session 51 added batches 846-898 (238 logs, 108 held out, blind, in four rounds: 45/60, 23/32, 7/9 and 6/7 right
#: at their measurements, 44/60, 23/32, 7/9 and 6/7 with the start's code:
#: benchmarks/eval_diagnose_issue11_session51.txt); after the rows read from their misses (seen): 5201/6099 (85.3%),
#: 43/6099 (0.7%): floor and ceiling unchanged.  Session 52 added batches 899-952 (175 logs, 87 held out, blind, in
#: three rounds: 40/49, 22/23 and 12/15 right at their measurements, the same with the start's code:
#: benchmarks/eval_diagnose_issue11_session52.txt); after the rows read from their misses (seen): 5355/6274 (85.4%),
#: 48/6274 (0.8%): floor and ceiling unchanged.  Session 53 added batches 953-996 (197 logs, 92 held out, blind, in
#: three rounds: 34/45, 18/27 and 15/20 right at their measurements, the same with the start's code:
#: benchmarks/eval_diagnose_issue11_session53.txt); after the rows read from their misses (seen): 5512/6471 (85.2%),
#: 47/6471 (0.7%): floor and ceiling unchanged.  Session 54 added batches 997-1050 (224 logs, 129 held out, blind, in
#: three rounds: 58/79, 24/33 and 12/17 right at their measurements, 58/79, 23/33 and 12/17 with the start's code:
#: benchmarks/eval_diagnose_issue11_session54.txt); after the rows read from their misses (seen) and the calibration:
#: 5684/6695 (84.9%), under the floor, which session 46's rule then set to 0.845; the session's later rows from the
#: whole corpus (a compiled module's "cannot import name", a crash in a Python session) brought it to 5691/6695
#: (85.0%), 45/6695 (0.7%): floor and ceiling back to 0.850 and 0.010.  Session 55 added batches 1051-1105 (267 logs,
#: 138 held out, blind, in three rounds: 55/72, 34/42 and 24/24 right at their measurements, the same with the start's
#: code: benchmarks/eval_diagnose_issue11_session55.txt; a fourth round found no threads); after the rows read from
#: their misses (seen) and the calibration: 5908/6962 (84.9%), 46/6962 (0.7%), under the floor, which session 46's
#: rule set to 0.845; the session's later rows from the whole corpus (DeepGEMM's nvcc check, cuDNN's sub-library
#: statuses, CUDA-Q's simulator, GroundingDINO's CPU-only warning, CUDA 8's isinf under GCC 6) brought it to 5918/6962
#: (85.0%), 46/6962 (0.7%): floor and ceiling back to 0.850 and 0.010.  Session 56 added batches 1106-1161 (287
#: logs, 141 held out, blind, in three rounds: 66/86, 26/30 and 22/25 right at their measurements, 64/86, 26/30 and
#: 22/25 with the start's code: benchmarks/eval_diagnose_issue11_session56.txt); after the rows read from their misses
#: (seen), the calibration and the later rows and rule from seen logs: 6192/7249 (85.4%), 48/7249 (0.7%): floor and
#: ceiling unchanged.  Session 57 added batches 1162-1214 (256 logs, 131 held out, blind, in three rounds: 52/80,
#: 25/36 and 13/15 right at their measurements, 52/80, 24/36 and 13/15 with the start's code:
#: benchmarks/eval_diagnose_issue11_session57.txt); after the rows and the torch-names rule read from their misses
#: (seen) and the calibration: 6401/7505 (85.3%), 53/7505 (0.7%): floor and ceiling unchanged.  Session 58 added
#: batches 1215-1267 (227 logs, 117 held out, blind, in three rounds: 57/69, 20/27 and 18/21 right at their
#: measurements, the same with the start's code: benchmarks/eval_diagnose_issue11_session58.txt); after the rows read
#: from their misses (seen), the cuda.h rule and the calibration: 6597/7732 (85.3%), 52/7732 (0.7%): floor and
#: ceiling unchanged.
ACCURACY_FLOOR = 0.850
WRONG_HIGH_CEILING = 0.010


def _diagnose_json(path: Path) -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert cli_main(["diagnose", str(path), "--json"]) == 0
    return json.loads(buf.getvalue())


@functools.cache
def _first_causes() -> dict[str, tuple[str, float]]:
    """``{file: (cause_id, confidence)}`` of every corpus log's first cause, by the CLI (diagnosed once
    for the tests of this module)."""
    out = {}
    for r in ROWS:
        c = _diagnose_json(CORPUS / r["file"])["causes"][0]
        out[r["file"]] = (c["cause_id"], c["confidence"])
    return out


def test_corpus_is_well_formed():
    for r in ROWS:
        p = CORPUS / r["file"]
        assert p.is_file(), r["file"]
        assert p.stat().st_size < 16_000, f"{r['file']}: keep corpus logs as small excerpts"
        assert r["url"].startswith("https://github.com/"), r["file"]
        assert r["split"] in ("dev", "holdout")
        assert r["why"].strip()
        assert r["cause"] in cause_ids(), r["file"]
    assert len({r["file"] for r in ROWS}) == len(ROWS)
    assert sorted(f.name for f in CORPUS.glob("*.log")) == sorted(r["file"] for r in ROWS)


def test_accuracy_on_real_logs_stays_at_the_floor():
    misses, wrong_high = [], []
    causes = _first_causes()
    for r in ROWS:
        got, confidence = causes[r["file"]]
        if got != r["cause"]:
            misses.append((r["file"], r["cause"], got, confidence))
            if got != "unknown" and confidence >= 0.7:
                wrong_high.append(misses[-1])
    n = len(ROWS)
    # counts only: the names and labels of held-out logs must not be printed (a blind batch stays
    # unread until its measurement); `python benchmarks/eval_diagnose.py --blind-from N` lists the misses
    assert (n - len(misses)) / n >= ACCURACY_FLOOR, f"{n - len(misses)}/{n} right first cause"
    assert len(wrong_high) / n <= WRONG_HIGH_CEILING, f"{len(wrong_high)}/{n} confidently wrong"


#: Logs right at the last pin (benchmarks/realworld_measure.py pin; blind held-out logs are never pinned).
PINNED = [
    line
    for line in (CORPUS.parent / "realworld_right.txt").read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#")
]


def test_every_pinned_log_keeps_its_cause():
    """Each log that named its thread's cause at the last pin still does: the floor above is a count, under which
    one log's loss can hide behind another's gain.  A change that knowingly gives a log up re-pins
    (`python benchmarks/realworld_measure.py pin --blind-from N`) and says why in its commit.  Only pinned logs are
    named here, and a blind held-out log is never pinned."""
    labels = {r["file"]: r["cause"] for r in ROWS}
    assert PINNED and len(set(PINNED)) == len(PINNED) and set(PINNED) <= set(labels)
    causes = _first_causes()
    lost = [(f, labels[f], *causes[f]) for f in PINNED if causes[f][0] != labels[f]]
    assert not lost, f"{len(lost)} pinned logs no longer name their cause: {lost}"


def test_a_hint_line_is_never_the_first_error():
    # CMake's status line about cuDNN, then an unrelated compile error much later
    lines = ["-- Could NOT find CUDNN (missing: CUDNN_LIBRARY_PATH CUDNN_INCLUDE_PATH)"]
    lines += [f"[{i}/500] Building CXX object obj{i}.o" for i in range(1, 60)]
    lines += ["src/a.cpp:3:1: error: 'foo' was not declared in this scope"]
    d = diagnose_text("\n".join(lines))
    assert d.first_error is not None and d.first_error.line == 61
    assert d.root.cause_id == "unknown"


def test_a_hint_alone_names_its_cause_with_low_confidence():
    d = diagnose_text("""
        -- Caffe2: CUDA detected: 10.1
        -- Could NOT find CUDNN (missing: CUDNN_INCLUDE_DIR CUDNN_LIBRARY)
        -- Configuring done
    """)
    assert d.root.cause_id == "cudnn_unusable"
    assert d.root.line == 2
    assert d.root.confidence <= HINT_ALONE_CAP < 0.7
    assert any("no error of its own" in n for n in d.notes)


def test_a_hint_right_before_an_unmatched_first_error_explains_it():
    d = diagnose_text("""
        /usr/bin/ld: warning: libnccl.so.2, needed by build/lib/libtorch_cuda.so, not found (try using -rpath or -rpath-link)
        build/lib/libtorch_cuda.so: undefined reference to `ncclCommInitRank'
        collect2: error: ld returned 1 exit status
    """)  # noqa: E501 (verbatim log lines)
    assert d.first_error is not None and d.first_error.line == 2
    assert d.root.cause_id == "system_library_missing"
    assert d.root.values.get("lib") == "libnccl.so.2"
    assert 0 < d.root.confidence <= HINT_CAP


def test_a_hint_far_from_the_first_error_is_ignored():
    lines = ["/usr/bin/ld: warning: libfoo.so.1, needed by libbar.so, not found (try using -rpath or -rpath-link)"]
    lines += ["-- building"] * 30
    lines += ["src/a.cpp:3:1: error: expected ';' before '}' token"]
    d = diagnose_text("\n".join(lines))
    assert d.root.cause_id == "unknown"


def test_terminal_wrapped_line_still_matches():
    pad = " " * 60
    d = diagnose_text(f"""
        /usr/include/c++/11/bits/std_function.h:530:146: error: parameter packs not expa{pad}nded with '...':
          530 |         operator=(_Functor&& __f)
    """)
    assert d.root.cause_id == "nvcc_host_stdlib_incompatible"
    assert d.root.confidence >= 0.7


def test_quoted_reply_lines_are_read_like_the_log():
    d = diagnose_text("""
        >   File "/x/torch/utils/cpp_extension.py", line 1430, in verify_ninja_availability
        >     raise RuntimeError("Ninja is required to load C++ extensions")
        > RuntimeError: Ninja is required to load C++ extensions
    """)
    assert d.root.cause_id == "ninja_missing"
    assert d.root.line in (2, 3)
    # without the quote stripping a "> " line is not an exception line at all
    d = diagnose_text("> ModuleNotFoundError: No module named 'torch'")
    assert d.first_error is not None and d.first_error.kind == "python"


@pytest.mark.parametrize(
    "line",
    [
        "CMake Error at cmake_install.cmake:73 (file): file cannot create directory: /THNN.  "
        "Maybe need administrative privileges.",
    ],
)
def test_install_under_the_filesystem_root_is_not_called_a_permission_problem(line):
    d = diagnose_text(line)
    assert d.root.cause_id != "permission_denied"
    assert d.root.confidence < 0.7


def test_install_into_usr_local_is_still_a_permission_problem():
    d = diagnose_text(
        "CMake Error at cmake_install.cmake:41 (file): file INSTALL cannot make directory "
        '"/usr/local/include/caffe2": Permission denied.'
    )
    assert d.root.cause_id == "permission_denied"
