"""``diagnose --explain-miss`` on real logs (tests/diagnose/realworld): the first error,
the failing step, the closest signatures with why each did not fit, and a draft row
that, filled in, names the cause with one data-file edit."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from pathlib import Path

import tomllib

from torchbuild.cli import main
from torchbuild.decisions.diagnose import Signature, diagnose_lines, load_signatures
from torchbuild.decisions.diagnose_explain import explain_miss

CORPUS = Path(__file__).resolve().parent / "realworld"
UNKNOWN_LOG = CORPUS / "msvc-narrowing-far-above-ninja-yaml.log"  # pytorch/pytorch#4990


def _run(*args: str) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["diagnose", *args]) == 0
    return buf.getvalue()


def _diag(path: Path):
    return diagnose_lines(enumerate(path.read_text(encoding="utf-8").split("\n"), 1))


def test_explain_miss_prints_first_error_near_signatures_and_a_draft():
    out = _run("--explain-miss", str(UNKNOWN_LOG))
    assert "first error, line 1:" in out and "error C2398" in out
    assert "closest signatures" in out and "is not in the line" in out
    assert "[[signature]]" in out and "docs/diagnose-signatures.md" in out
    doc = json.loads(_run("--explain-miss", "--json", str(UNKNOWN_LOG)))
    assert doc["diagnosed"] == "unknown" and doc["first_error"]["line"] == 1
    assert 1 <= len(doc["near"]) <= 5 and all(n["why"] for n in doc["near"])
    assert doc["near"] == sorted(doc["near"], key=lambda n: -n["score"])


def test_the_draft_filled_in_is_one_data_file_edit_that_names_the_cause():
    d = _diag(UNKNOWN_LOG)
    assert d.root.cause_id == "unknown"
    draft = explain_miss(d).draft
    filled = (
        draft.replace('"<short-name>"', '"test-narrowing"')
        .replace('"<a cause id of knowledge/data/causes.toml>"', '"internal_compiler_error"')
        .replace('"<the issue URL this line comes from>"', '"https://github.com/pytorch/pytorch/issues/4990"')
    )
    row = tomllib.loads(filled)["signature"][0]
    sig = Signature(
        row["id"],
        row["cause"],
        row["anchor"],
        tuple(row["patterns"]),
        row["confidence"],
        row["explanation"],
        row["fix"],
        row["source"],
        row["priority"],
        examples=tuple(row["examples"]),
    )
    assert all(sig.match(ex) is not None for ex in sig.examples)
    lines = UNKNOWN_LOG.read_text(encoding="utf-8").split("\n")
    d2 = diagnose_lines(enumerate(lines, 1), signatures=(sig, *load_signatures()))
    assert d2.root.cause_id == "internal_compiler_error" and d2.root.signature == "test-narrowing"


def test_near_miss_says_when_the_anchor_is_there_but_the_pattern_is_not():
    # a signature whose anchor is in the line but whose pattern asks for more
    d = _diag(CORPUS / "lnk1181-tcnn-fmt-obj-win.log")  # NVlabs/tiny-cuda-nn#399 (French MSVC)
    sig = replace(
        load_signatures()[0],
        id="probe",
        anchor="LNK1181",
        patterns=(r"LNK1181: cannot open input file 'python\d+\.lib'",),
        examples=("LINK : fatal error LNK1181: cannot open input file 'python311.lib'",),
    )
    ex = explain_miss(d, [sig])
    assert d.root.cause_id == "unknown"
    assert ex.near and ex.near[0].signature == "probe" and "no pattern matches" in ex.near[0].why


def test_a_diagnosed_log_has_nothing_missing():
    out = _run("--explain-miss", str(CORPUS / "nvcc-arch30-nccl-pytorch-build.log"))
    assert "diagnosed as cuda_arch_unsupported" in out and "nothing is missing" in out


def test_a_missing_header_drafts_a_headers_toml_row_that_names_the_cause():
    """A compiler that cannot find an #include no row knows (nvcc's front end, a real line of
    TomClabault/HIPRT-Path-Tracer#13, fixed there by `git submodule update --init`): the draft
    is a [[header]] row of headers.toml, and that row, filled in, names the cause in every
    compiler's wording."""
    from torchbuild.decisions.diagnose.signatures import header_signature

    line = '../src/HostDeviceCommon/Math.h(11): catastrophic error: cannot open source file "hip/hip_runtime.h"'
    # headers.toml has a row for HIP headers since (ROCm not found, below 0.7): without it, as here
    # before, this header is one no row knows
    known = tuple(s for s in load_signatures() if s.id != "hip-header-missing")
    d = diagnose_lines([(1, line)], signatures=known)
    assert d.root.cause_id == "unknown"
    ex = explain_miss(d)
    assert ex.draft_file.endswith("knowledge/data/headers.toml") and ex.draft.startswith("[[header]]")
    filled = (
        ex.draft.replace('"<short-name>-header-missing"', '"hip-runtime-header-missing"')
        .replace('"<a cause id of knowledge/data/causes.toml>"', '"submodule_missing"')
        .replace(
            '"<the issue URL this line comes from>"', '"https://github.com/TomClabault/HIPRT-Path-Tracer/issues/13"'
        )
    )
    sig = header_signature(tomllib.loads(filled)["header"][0])
    assert sig.anchor in line
    for other in (line, "x.cpp:11:10: fatal error: hip/hip_runtime.h: No such file or directory"):
        d2 = diagnose_lines([(1, other)], signatures=(sig, *known))
        assert d2.root.signature == "hip-runtime-header-missing" and d2.root.values["header"] == "hip/hip_runtime.h"
    out = _run("--explain-miss", "--json", str(CORPUS / "nvcc-arch30-nccl-pytorch-build.log"))
    draft_file = json.loads(out)["draft_file"]  # not a header: the file of the closest signature's family
    assert draft_file.startswith("src/torchbuild/knowledge/data/signatures/") and draft_file.endswith(".toml")


def test_a_missing_program_is_not_drafted_as_a_header():
    """'bin/hipcc: No such file or directory' (a program, no include) keeps the signature draft."""
    from torchbuild.decisions.diagnose_explain import _missing_header

    assert _missing_header("/bin/sh: 1: /opt/rocm/bin/hipcc: No such file or directory") is None
    assert _missing_header("x.cpp:2:10: fatal error: Eigen/Dense: No such file or directory") == "Eigen/Dense"


def test_a_first_error_of_stop_words_alone_has_no_near_signature():
    """A bare "ERROR:" line (the first error of pytorch/pytorch's MSVC log in the corpus,
    msvc-pytorch-source-cuda8-vs2017-misleading-cmake-warning.log) shares no word with any signature:
    --explain-miss says so and still drafts a row, where it divided by zero before (session 36, found
    by running it over every corpus log diagnosed unknown)."""
    diag = diagnose_lines(enumerate(["ERROR:", "the build stopped"], 1))
    assert diag.root.cause_id == "unknown" and diag.first_error is not None
    ex = explain_miss(diag)
    assert ex.near == []
    assert "ERROR:" in ex.draft
    out = _run("--explain-miss", str(CORPUS / "msvc-pytorch-source-cuda8-vs2017-misleading-cmake-warning.log"))
    assert "no signature shares words with it" in out
