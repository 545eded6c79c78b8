"""Issue 11, session 32: the plain-words reading of a failure message (knowledge/data/concepts.toml,
decisions/diagnose/concepts.py), for the logs whose first error no signature knows.

Every example of a concept row is a real line of a corpus log from one of the row's source threads (checked
here against the corpus, so an example cannot be made up), and the row is the first that reads it.  The
reading replaces only an ``unknown`` diagnosis, below the "sure" bar.
"""

from __future__ import annotations

import pytest

from torchbuild.decisions.diagnose import diagnose_lines
from torchbuild.decisions.diagnose.classify import normalize
from torchbuild.decisions.diagnose.concepts import Concept, load_concepts, read_line, readable, words
from torchbuild.knowledge import KnowledgeError
from torchbuild.knowledge.causes import causes

from .conftest import ROWS, causes_of, corpus_lines, diagnose_list

CONCEPTS = load_concepts()


def _corpus_logs_of(urls: list[str]) -> list[str]:
    """The corpus logs (file names) of the threads ``urls`` (threads collected before the concepts were written:
    a blind collection skips a known thread)."""
    return [n for n, r in ROWS.items() if r["url"] in urls]


@pytest.mark.parametrize("concept", CONCEPTS, ids=lambda c: c.id)
def test_each_example_is_a_real_line_of_a_source_thread_and_the_row_reads_it_first(concept: Concept) -> None:
    """Each example is (a part of) a line, as diagnose normalises it, of a corpus log whose thread is one of the
    row's sources; the row reads it and no row before it does."""
    urls = concept.source.split()
    logs = _corpus_logs_of(urls)
    assert logs, f"{concept.id}: no corpus log of {urls}"
    lines = {normalize(x) for n in logs for x in corpus_lines(n)}
    assert concept.examples
    for ex in concept.examples:
        assert any(ex in line for line in lines), f"{concept.id}: {ex!r} is in no log of {urls}"
        assert read_line(ex) is concept, (concept.id, ex, read_line(ex))


def test_rows_name_known_causes_below_the_sure_bar() -> None:
    known = {c.id for c in causes()}
    assert len({c.id for c in CONCEPTS}) == len(CONCEPTS)
    for c in CONCEPTS:
        assert c.cause in known and 0 < c.confidence < 0.7, c


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"confidence": 0.8}, "not below 0.7"),
        ({"cause": "cuda_is_sad"}, "not in causes.toml"),
    ],
)
def test_a_bad_row_is_refused_with_its_id(monkeypatch, row: dict, message: str) -> None:
    """A row that would claim "sure" or name a cause no one defined is refused when the table loads."""
    from torchbuild.decisions.diagnose import concepts as mod

    good = {
        "id": "said-x",
        "cause": "cuda_toolkit_not_found",
        "subject": "cuda",
        "claim": "missing",
        "confidence": 0.5,
        "explanation": "x",
        "fix": "y",
        "source": "https://github.com/o/r/issues/1",
    }
    monkeypatch.setattr(mod, "rows", lambda name, table: [{**good, **row}])
    mod.load_concepts.cache_clear()
    try:
        with pytest.raises(KnowledgeError, match=f"said-x.*{message}"):
            mod.load_concepts()
    finally:
        monkeypatch.undo()
        mod.load_concepts.cache_clear()


def test_folders_of_a_path_are_not_words_of_the_message() -> None:
    """MSVC's error inside ATen's cudnn folder is not about cuDNN (a corpus log of a narrowing error in
    ...\\ATen\\native\\cudnn\\Conv.cpp, whose thread judged no cause); a library's file name is kept."""
    line = (
        r"C:\Jenkins\workspace\pytorch-builds\pytorch-win-ws2016-cuda9-cudnn7-py3-build\aten\src\ATen\native"
        r"\cudnn\Conv.cpp(1207): error C2398: Element '1': conversion from 'size_t' to 'int' requires a narrowing"
        " conversion"
    )
    assert words(line).startswith("Conv.cpp(1207): error C2398")
    assert read_line(line) is None
    assert words("OSError: /opt/x/lib/libfoo.so.1: cannot open shared object file") == (
        "OSError: libfoo.so.1: cannot open shared object file"
    )


def test_warnings_and_command_lines_are_not_read() -> None:
    """A warning is not the failure ("CUDA_SETUP: WARNING! libcudart.so not found in any environmental path",
    bitsandbytes, a corpus log whose thread judged no cause), and a compiler's command line holds options,
    not words ("-fopenmp" beside "-DNOT_FOUND")."""
    warning = "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching /usr/local/cuda..."
    assert not readable(warning) and read_line(warning) is None
    cmd = "/usr/bin/c++ -DUSE_PTHREADPOOL -I/src/include -fopenmp -O2 " + "-Wall " * 30 + "-o x.o -c x.cpp not found"
    assert not readable(cmd) and read_line(cmd) is None
    assert read_line("clang: error: unsupported option '-fopenmp'").cause == "openmp_missing"  # type: ignore[union-attr]
    # pip's resolver: MKL without a release for Windows on ARM64 is not BLAS missing (a round-B log of session 32,
    # whose thread judged no cause; the line read as blas_not_found at the measurement)
    pip = "ERROR: Could not find a version that satisfies the requirement mkl<=2021.4.0,>=2021.1.1; platform_system"
    assert not readable(pip) and read_line(pip) is None


@pytest.mark.parametrize(
    ("name", "concept"),
    [
        ("install-weclone-uv-torch-cu126-vs-triton-cu129-unsatisfiable.log", "said-versions-conflict"),
        ("make-canu-macos-omp-h-not-found-apple-clang-interleaved.log", "said-openmp-missing"),
        ("build-dlib-cmake-windows-cudnn-not-found-cuda-disabled.log", "said-cudnn-wrong"),
        ("inductor-comfyui-zonos-windows-cl-not-found-vs-buildtools-path.log", "said-compiler-missing"),
    ],
)
def test_a_corpus_log_no_signature_knows_gets_the_cause_its_words_state(name: str, concept: str) -> None:
    """Corpus logs that were `unknown` before the concepts (their thread's cause in ROWS): the concept names
    it, below the sure bar, with the line it read as evidence and a note that says so.  (The last three are
    held-out logs of earlier sessions, seen long before the concepts were written: listed as what the rows
    do, not as a measurement.)"""
    d = diagnose_list(corpus_lines(name))
    root = d.root
    assert (root.cause_id, root.signature) == (ROWS[name]["cause"], concept), causes_of(d)
    assert 0 < root.confidence < 0.7
    assert root.evidence and root.line == root.evidence[0].line
    assert any("plain words" in n for n in d.notes)


def test_a_signature_wins_over_a_concept() -> None:
    """A log whose first error a signature knows keeps that cause, whatever its last lines say in words."""
    lines = [
        "/tmp/x.cpp:1:10: fatal error: Python.h: No such file or directory",
        "compilation terminated.",
        "NerfAcc: No CUDA toolkit found. NerfAcc will be disabled.",
    ]
    assert diagnose_lines(enumerate(lines, 1)).root.cause_id == "python_headers_missing"


def test_a_log_without_an_error_line_is_read_from_its_end() -> None:
    """nerfacc's message (no "error" in it) at the end of a log with no error line at all: the last lines are
    read from the end (the real line, https://github.com/nerfstudio-project/nerfacc/issues/89)."""
    lines = ["$ python train.py", "Loading data...", "NerfAcc: No CUDA toolkit found. NerfAcc will be disabled.", ""]
    d = diagnose_lines(enumerate(lines, 1))
    assert (d.root.cause_id, d.root.line) == ("cuda_toolkit_not_found", 3), causes_of(d)


def test_an_unknown_stays_unknown_when_no_words_state_a_cause() -> None:
    """A compile error that says nothing about a cause stays `unknown` (the reading never guesses)."""
    lines = ["src/a.cpp:3:5: error: 'foo' was not declared in this scope", "ninja: build stopped: subcommand failed."]
    assert diagnose_lines(enumerate(lines, 1)).root.cause_id == "unknown"
