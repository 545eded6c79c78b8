"""Regex fragments that signature rows share (``[meta.fragments]`` of knowledge/data/signatures/_meta.toml): a pattern
writes ``{{name}}`` and the loader puts the fragment there, so that a list such as the folder names of vendored
dependencies is written once."""

from __future__ import annotations

import re

import pytest

from torchbuild.decisions.diagnose.signatures import fill_fragments, load_signatures
from torchbuild.knowledge import KnowledgeError, load

from .conftest import diagnose_text


def test_a_fragment_is_filled_and_a_regex_repeat_is_left_alone():
    frags = {"dir": "(?:a|b)"}
    assert fill_fragments(r"x/{{dir}}/\d{2}", frags) == r"x/(?:a|b)/\d{2}"
    assert fill_fragments(r"no fragment \w{1,3}", frags) == r"no fragment \w{1,3}"


def test_an_unknown_fragment_is_a_knowledge_error_that_names_it():
    known = r"known: compiled_name, host_cxx_header, vendored_dir\)"
    with pytest.raises(KnowledgeError, match=r"\{\{vendored_dirs\}\}.*" + known):
        fill_fragments("{{vendored_dirs}}/x", load("signatures")["meta"]["fragments"])


def test_no_loaded_pattern_keeps_a_placeholder():
    assert not [p for s in load_signatures() for p in s.patterns if re.search(r"\{\{\w+\}\}", p)]


@pytest.mark.parametrize(
    "folder", ["third_party", "3rdparty", "submodules", "external", "extern", "vendor", "deps", "dependencies"]
)
@pytest.mark.parametrize(
    ("line", "signature"),
    [
        ("fatal error: /src/proj/{d}/fmt/src/format.cc: No such file or directory", "vendored-source-file-missing"),
        (
            "ninja: error: '../{d}/fbgemm/src/C.cc', needed by 'x/C.cc.o', missing and no known rule to make it",
            "build-input-in-vendored-dir-missing",
        ),
        (
            '  add_subdirectory given source "{d}/pybind11" which is not an existing directory.',
            "cmake-add-subdirectory-third-party-missing",
        ),
        ("{d}/pybind11 does not contain a CMakeLists.txt file", "vendored-cmakelists-missing"),
    ],
)
def test_every_vendored_folder_name_reaches_every_row_that_uses_the_list(folder: str, line: str, signature: str):
    """The rows that once each wrote their own list (which differed: one lacked "vendor", another "dependencies") now
    read the one fragment, so each folder name reaches each of them."""
    root = diagnose_text(line.format(d=folder) + "\n").root
    assert (root.cause_id, root.signature) == ("submodule_missing", signature)


@pytest.mark.parametrize("folder", ["/usr/include/c++/11", "/opt/gcc/include/c++/10.2.0", "/usr/include/c++/v1"])
@pytest.mark.parametrize(
    ("message", "signature"),
    [
        ('"constexpr" is not valid here', "nvcc-parse-error-in-host-stdlib"),
        ('pack "_UElements" does not have the same number of elements as "_Elements"', "nvcc-any-error-in-host-stdlib"),
    ],
)
def test_every_host_cxx_header_folder_reaches_both_nvcc_rows(folder: str, message: str, signature: str):
    """The two rows for nvcc failing inside the host's C++ library headers read one fragment for the header's path
    (GCC's include/c++/<version>/, libc++'s c++/v1/), so each folder shape reaches both."""
    root = diagnose_text(f"{folder}/tuple(566): error: {message}\n").root
    assert (root.cause_id, root.signature, root.values["header"]) == (
        "nvcc_host_stdlib_incompatible",
        signature,
        f"{folder}/tuple",
    )
