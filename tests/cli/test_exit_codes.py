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


def _readme_table() -> dict[str, int]:
    """Error class -> exit code, from the README's "Exit codes" table."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = text.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    out: dict[str, int] = {}
    for m in re.finditer(r"^\| (\d+) \|[^|]*\|([^|]*)\|", section, re.M):
        for name in re.findall(r"`(\w+)`", m.group(2)):
            out[name] = int(m.group(1))
    return out


def test_readme_exit_code_table_matches_errors_py():
    readme = _readme_table()
    classes = {n: getattr(errors, n) for n in errors.__all__ if n != "TorchbuildError"}
    assert {n: c.exit_code for n, c in classes.items()} == readme


def test_every_failure_class_is_defined_in_errors_py():
    """No exception class is defined outside errors.py; the old import paths still work."""
    import ast
    from pathlib import Path

    src = Path(errors.__file__).parent
    outside = []
    for f in sorted(src.rglob("*.py")):
        if f.name == "errors.py" and f.parent == src:
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                (isinstance(b, ast.Name) and b.id.endswith(("Error", "Exception")))
                or (isinstance(b, ast.Attribute) and b.attr.endswith(("Error", "Exception")))
                for b in node.bases
            ):
                outside.append(f"{f.relative_to(src)}:{node.lineno} {node.name}")
    assert outside == []

    from torchbuild.actions.cache import CacheToolError
    from torchbuild.actions.unpack import BadArchiveError
    from torchbuild.actions.workarounds import WorkaroundError
    from torchbuild.facts.logfile import LogFileError
    from torchbuild.facts.python import PythonProbeError
    from torchbuild.knowledge import KnowledgeError

    assert CacheToolError is errors.CacheToolError and BadArchiveError is errors.BadArchiveError
    assert WorkaroundError is errors.WorkaroundError and LogFileError is errors.LogFileError
    assert PythonProbeError is errors.PythonProbeError and KnowledgeError is errors.KnowledgeError
    assert issubclass(KnowledgeError, ValueError) and issubclass(PythonProbeError, RuntimeError)  # as before


def test_python_that_does_not_run_is_one_line_of_bad_input(cli, tmp_path):
    """``--python`` naming no interpreter: exit 2 and one ``error:`` line with the fix, never a
    traceback (PythonProbeError was a bare RuntimeError outside errors.py)."""
    r = cli("plan", str(tmp_path), "--python", str(tmp_path / "no-such-python"))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "no-such-python" in last and "Fix: give --python" in last
