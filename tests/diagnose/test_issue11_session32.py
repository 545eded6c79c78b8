"""Issue 11, session 32: the rows written from real programs' messages this session (the plain-words readings
have their own tests in test_concepts.py).

Each message below is printed here by the real program where it runs (NumPy 2), or is the loader's or the
build script's text as its source and a real corpus log show it (the row's ``source``).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import causes_of, diagnose_list


def test_numpy_2_removed_attribute_is_a_version_conflict() -> None:
    """The real NumPy 2 prints "`np.issctype` was removed in the NumPy 2.0 release" for code written for NumPy
    1.x: the installed NumPy does not fit the package (dependency_version_conflict), not an unknown error."""
    np = pytest.importorskip("numpy")
    if int(np.__version__.split(".")[0]) < 2:
        pytest.skip("NumPy 1.x still has np.issctype")
    p = subprocess.run([sys.executable, "-c", "import numpy as np; np.issctype"], capture_output=True, text=True)
    assert "was removed in the NumPy 2.0 release" in p.stderr, p.stderr
    d = diagnose_list(p.stderr.splitlines())
    assert (d.root.cause_id, d.root.signature) == ("dependency_version_conflict", "numpy2-removed-attribute")
    assert "np.issctype" in d.root.explanation, causes_of(d)


@pytest.mark.parametrize(
    ("line", "cause", "signature"),
    [
        (
            "ImportError: /x/libnvvl.so: symbol _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm,"
            " version GLIBCXX_3.4.21 not defined in file libstdc++.so.6 with link time reference",
            "glibcxx_too_old",
            "glibcxx-version-not-defined",
        ),
        (
            "/usr/bin/java: relocation error: /tmp/libstdc++.so.6: symbol __cxa_thread_atexit_impl, version GLIBC_2.18"
            " not defined in file libc.so.6 with link time reference",
            "libc_too_old",
            "glibc-version-not-defined",
        ),
    ],
)
def test_the_older_loader_form_of_a_missing_symbol_version(line: str, cause: str, signature: str) -> None:
    """Older glibc loaders report a symbol missing from a version node as "symbol S, version V not defined in
    file F with link time reference" (pynvvl#8, opensearch-project/ml-commons#2563): the runtime libstdc++ or
    glibc is older than the one the binary was built with, as with "version `V' not found"."""
    d = diagnose_list([line])
    assert (d.root.cause_id, d.root.signature) == (cause, signature), causes_of(d)
    assert d.root.confidence >= 0.7
