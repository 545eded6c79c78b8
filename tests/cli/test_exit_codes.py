"""Every failure kind's exit code is the one the documented table in ``errors.py`` gives it.
An unknown PyPI package is bad input (exit 2); it was documented as a fetch error (exit 3)
while the code exited 2."""

from __future__ import annotations

import re

import torchbuild.errors as errors


def _table() -> dict[int, str]:
    doc = errors.__doc__ or ""
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\* (\d+) — (.*(?:\n  .*)*)", doc, re.M)}


def test_every_error_class_has_a_documented_exit_code():
    table = _table()
    classes = [getattr(errors, n) for n in errors.__all__]
    assert all(issubclass(c, errors.TorchbuildError) for c in classes)
    for c in classes:
        assert c.exit_code in table, f"{c.__name__} exits {c.exit_code}, not in the errors.py table {sorted(table)}"


def test_unknown_pypi_package_is_bad_input_in_code_and_docs():
    from torchbuild.actions import fetch

    assert fetch.UnknownPackageError is errors.UnknownPackageError
    assert errors.UnknownPackageError.exit_code == 2
    table = _table()
    assert "unknown PyPI package" in table[2] and "unknown" not in table[3]
