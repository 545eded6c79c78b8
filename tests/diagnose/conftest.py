"""Helpers for the diagnose tests: diagnose a log given as text."""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest
import tomllib

from torchbuild.decisions.diagnose import Cause, Diagnosis, diagnose_lines
from torchbuild.decisions.diagnose.model import CALIBRATED_CAP
from torchbuild.decisions.diagnose.signatures import load_precision

#: The real-log corpus (tests/diagnose/realworld) and its index rows by file name.
CORPUS = Path(__file__).resolve().parent / "realworld"
ROWS: dict[str, dict] = {
    r["file"]: r for r in tomllib.loads((CORPUS / "index.toml").read_text(encoding="utf-8"))["log"]
}


def corpus_lines(name: str) -> list[str]:
    """The lines of corpus log ``name``, as diagnose reads them."""
    return (CORPUS / name).read_text(encoding="utf-8").split("\n")


def diagnose_list(lines: list[str], *, precision: dict | None = None) -> Diagnosis:
    """Diagnose ``lines``, numbering them from 1 (``precision={}``: the calibration off)."""
    return diagnose_lines(enumerate(lines, 1), precision=precision)


def diagnose_text(text: str, *, all_failures: bool = False) -> Diagnosis:
    """Diagnose ``text`` (dedented), numbering lines from 1."""
    lines = textwrap.dedent(text).strip("\n").split("\n")
    return diagnose_lines(enumerate(lines, 1), all_failures=all_failures)


def named_below_sure(text: str, cause: str, signature: str) -> Cause:
    """The root cause diagnose gives ``text``, checked to be ``cause`` named by ``signature`` below the sure bar (0.7):
    a likely cause, as the rows of one or two threads are."""
    root = diagnose_text(text).root
    assert (root.cause_id, root.signature) == (cause, signature)
    assert root.confidence < 0.7
    return root


def run_tool(
    cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a real tool as the diagnose tests do: an argument list, output captured as text, a failure
    is not an error (the tests read what the tool printed); ``env`` replaces the environment when given, ``stdin`` is
    the text the tool reads on its standard input."""
    return subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False)


def cmake_configure_fails(
    tmp_path: Path, name: str, cmakelists: str, *args: str, env: dict[str, str] | None = None
) -> list[str]:
    """Run the real CMake on a CMakeLists.txt (text ``cmakelists``) written to ``tmp_path/name``, with the extra
    arguments ``args`` (and ``env`` as the environment when given); its output lines (the configure must fail).
    Skipped without cmake."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("needs cmake")
    src = tmp_path / name
    src.mkdir(parents=True, exist_ok=True)
    (src / "CMakeLists.txt").write_text(cmakelists, encoding="utf-8")
    p = run_tool([cmake, "-S", str(src), "-B", str(src / "b"), *args], env=env)
    assert p.returncode != 0, p.stdout
    return (p.stdout + p.stderr).splitlines()


def gxx_fails(tmp_path: Path, source: str, include: dict[str, str]) -> str:
    """Compile ``source`` (ext.cpp) with the real g++, with the files ``include`` (path under include/: text) on the
    include path; returns g++'s stderr (the compile must fail).  Skipped without g++."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("needs g++")
    (tmp_path / "include").mkdir(parents=True)
    for rel, text in include.items():
        (tmp_path / "include" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "include" / rel).write_text(text)
    (tmp_path / "ext.cpp").write_text(source)
    run = run_tool([gxx, "-c", "-Iinclude", "ext.cpp", "-o", "ext.o"], cwd=tmp_path)
    assert run.returncode != 0, run.stdout
    return run.stderr


def real_nvcc() -> str:
    """The path of the real nvcc on PATH; the test is skipped on a machine without one."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc on this machine")
    return nvcc


def real_ptxas() -> str:
    """The path of the real ptxas: the one on PATH, else the one beside :func:`real_nvcc` (a toolkit's bin/ that is
    not on PATH); the test is skipped on a machine without nvcc."""
    return shutil.which("ptxas") or str(Path(real_nvcc()).resolve().parent / "ptxas")


def build_python_module(tmp_path: Path, name: str, source: str, include_dirs: Sequence[str] = ()) -> Path:
    """Build the C ``source`` into the Python extension module ``name`` in ``tmp_path``, with the real gcc and this
    Python's headers, plus the folders ``include_dirs`` (NumPy's, ...) on the include path (``<name><EXT_SUFFIX>``; a
    shared object may keep undefined symbols, which the loader then names at import); returns its path.  The test is
    skipped on a machine without gcc; a failed compile fails it."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("needs gcc")
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    so = tmp_path / f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    include = sysconfig.get_paths()["include"]
    extra = [f"-I{d}" for d in include_dirs]
    built = run_tool([gcc, "-shared", "-fPIC", f"-I{include}", *extra, str(src), "-o", str(so)], cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    return so


def write_sdist(path: Path, setup_py: str) -> Path:
    """A minimal source tree at ``path`` (created) that pip builds with setuptools in an isolated environment:
    ``pyproject.toml`` (build-system: setuptools) and ``setup.py`` with the text ``setup_py``; returns ``path``."""
    path.mkdir(parents=True)
    (path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    (path / "setup.py").write_text(setup_py)
    return path


def causes_of(d: Diagnosis) -> list[tuple[str, float]]:
    """``[(cause_id, confidence)]`` of ``d``, root first: what a failing assertion shows."""
    return [(c.cause_id, c.confidence) for c in d.causes]


def assert_dev_log(name: str, batch: int, cause: str, least: float) -> Diagnosis:
    """Check that corpus log ``name`` is a dev log of ``batch`` and that diagnose names ``cause`` first with at
    least ``least`` confidence (the DEV_LOGS tables of the session tests: a dev log a row or rule was written
    from); returns the diagnosis for further checks."""
    assert ROWS[name]["split"] == "dev" and ROWS[name]["batch"] == batch
    d = diagnose_list(corpus_lines(name))
    assert d.root.cause_id == cause and d.root.confidence >= least, causes_of(d)
    return d


def assert_named_by(name: str, split: str, cause: str, signature: str | None) -> Diagnosis:
    """Check that corpus log ``name`` is of ``split`` ("dev" or "holdout") and labelled ``cause``, and that diagnose
    names ``cause`` first through ``signature`` (None: no signature, for ``unknown``); returns the diagnosis."""
    assert ROWS[name]["split"] == split and ROWS[name]["cause"] == cause
    d = diagnose_list(corpus_lines(name))
    assert (d.root.cause_id, d.root.signature) == (cause, signature), causes_of(d)
    return d


def stated(cause: Cause) -> bool:
    """Whether ``cause`` is stated as a finding: confidence 0.7 or more, or exactly the calibrated cap
    when its signature is below the precision bar on the real-log corpus
    (knowledge/data/signature_precision.toml): the most such a signature may claim."""
    if cause.confidence >= 0.7:
        return True
    p = load_precision().get(cause.signature or "")
    return p is not None and p.below_bar and cause.confidence == CALIBRATED_CAP


@pytest.fixture
def diag():
    return diagnose_text
