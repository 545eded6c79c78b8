"""Issue 11, session 54: rows written, before the session's measurement, from the dev logs of its blind batches
(997 on) that the start's code (ccde1a6) missed or named wrongly.

* CMake's ``Unknown CMake command "pybind11_add_module"``: pybind11's CMake files were never loaded; in every seen
  log (Tencent/ncnn#2543, andrewssobral/bgslibrary#140, geoffxy/habitat#9) the project's pybind11 git submodule was
  not checked out.  Below the sure bar: a pybind11 found some other way could fail the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import assert_named_by, diagnose_text, named_below_sure, run_tool


@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        (
            "cmake-habitat-pybind11-add-module-unknown-submodules.log",
            "submodule_missing",
            "pybind11-cmake-function-unknown",
        ),
    ],
)
def test_dev_misses_of_session_54(name: str, cause: str, signature: str | None):
    """Dev logs of batches 997 on that the start's code named unknown or another cause."""
    assert_named_by(name, "dev", cause, signature)


def _cmake_configure_fails(tmp_path: Path, cmakelists: str) -> str:
    """Configure a project whose CMakeLists.txt is ``cmakelists`` with the real CMake; returns its whole output (the
    configure must fail).  Skipped without cmake."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("needs cmake")
    (tmp_path / "src").mkdir(parents=True, exist_ok=True)
    (tmp_path / "src" / "CMakeLists.txt").write_text(cmakelists)
    run = run_tool([cmake, "-S", "src", "-B", "build"], cwd=tmp_path)
    assert run.returncode != 0, run.stdout
    return run.stdout + run.stderr


def test_pybind11_function_unknown_with_an_empty_submodule_and_the_real_cmake(tmp_path: Path):
    """A project that vendors pybind11 as a submodule: with the folder empty (not checked out) and the
    add_subdirectory guarded, the real CMake stops at pybind11_add_module, a command it does not know.  A project's
    own unknown function is not this row's."""
    (tmp_path / "src" / "pybind11").mkdir(parents=True)
    log = _cmake_configure_fails(
        tmp_path,
        "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\n"
        "if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/pybind11/CMakeLists.txt)\n  add_subdirectory(pybind11)\nendif()\n"
        "pybind11_add_module(ext ext.cpp)\n",
    )
    assert 'Unknown CMake command "pybind11_add_module"' in log
    named_below_sure(log, "submodule_missing", "pybind11-cmake-function-unknown")

    own = _cmake_configure_fails(
        tmp_path / "own", "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\nmy_add_module(ext ext.cpp)\n"
    )
    assert 'Unknown CMake command "my_add_module"' in own
    assert diagnose_text(own).causes[0].signature != "pybind11-cmake-function-unknown"
