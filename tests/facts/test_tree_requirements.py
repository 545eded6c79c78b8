"""What a PyTorch tree says it needs, read from its own files (texts quoted from the real
PyTorch 2.6.0 tree: setup.py line 235, CMakeLists.txt lines 58-61, the generated FlatBuffers header)."""

from __future__ import annotations

from torchbuild.facts.source import (
    cmake_third_party_refs,
    non_empty_dirs,
    parse_flatbuffers_assert,
    parse_gcc_minimum,
    parse_python_minimum,
)


def test_python_minimum_from_setup_py():
    assert parse_python_minimum("import os\npython_min_version = (3, 9, 0)\npython_min_version_str = '.'\n") == "3.9.0"
    assert parse_python_minimum("setup(name='x')") is None


def test_gcc_minimum_from_cmakelists():
    text = (
        "if(CMAKE_COMPILER_IS_GNUCXX AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 9.3)\n"
        "  message(FATAL_ERROR\n"
        '      "GCC-9.3 or newer is required to compile PyTorch, but found ${CMAKE_CXX_COMPILER_VERSION}")\n'
    )
    assert parse_gcc_minimum(text) == "9.3"


def test_flatbuffers_assert():
    text = (
        "static_assert(FLATBUFFERS_VERSION_MAJOR == 23 &&\n              FLATBUFFERS_VERSION_MINOR == 3 &&\n"
        '              FLATBUFFERS_VERSION_REVISION == 3,\n             "Non-compatible flatbuffers version included");'
    )
    assert parse_flatbuffers_assert(text) == "23.3.3"


def test_vendored_and_cmake_refs(tmp_path):
    (tmp_path / "third_party" / "pybind11").mkdir(parents=True)
    (tmp_path / "third_party" / "pybind11" / "CMakeLists.txt").write_text("x")
    (tmp_path / "third_party" / "empty").mkdir()
    (tmp_path / "third_party" / "nccl" / "nccl").mkdir(parents=True)
    (tmp_path / "third_party" / "nccl" / "nccl" / "Makefile").write_text("x")
    assert non_empty_dirs(tmp_path) == ["third_party/nccl", "third_party/nccl/nccl", "third_party/pybind11"]
    (tmp_path / "cmake").mkdir()
    (tmp_path / "CMakeLists.txt").write_text("add_subdirectory(${PROJECT_SOURCE_DIR}/third_party/fmt)\n")
    (tmp_path / "cmake" / "Dependencies.cmake").write_text(
        'set(POCKETFFT_INCLUDE_DIR "${Torch_SOURCE_DIR}/third_party/pocketfft/")\n'
        "set(pybind11_INCLUDE_DIRS ${PROJECT_SOURCE_DIR}/third_party/pybind11/include)\n"
    )
    assert cmake_third_party_refs(tmp_path) == ["third_party/fmt", "third_party/pocketfft", "third_party/pybind11"]
