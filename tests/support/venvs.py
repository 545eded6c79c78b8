"""Virtual environments for tests that install something: each sees the packages of the
Python that runs the suite, whatever that is, and installs into itself.

``venv --system-site-packages`` is not that: it adds the site-packages of the *base*
interpreter, so when the suite runs in a venv (the README's fresh-venv set-up) the new
venv would not see that venv's torch, setuptools or pip, and would see the base
interpreter's packages, which the suite's venv does not (a second setuptools there broke
``import setuptools``).  When the suite runs in a venv, :func:`overlay_venv` writes a
``.pth`` file into the new venv whose ``import site; site.addsitedir(...)`` line adds that
venv's site-packages (and runs their own ``.pth`` files) after the new venv's own, and
takes the base interpreter's packages only when the suite's venv does
(``include-system-site-packages`` in its ``pyvenv.cfg``).  Either way what a test installs
in the new venv comes first and the suite's packages stay untouched.
"""

from __future__ import annotations

import site
import sys
import venv
from pathlib import Path

__all__ = ["overlay_venv", "suite_site_packages"]


def suite_site_packages() -> list[str]:
    """The site-packages folders of the interpreter running the tests when it is a venv
    (``sys.prefix != sys.base_prefix``), else ``[]`` (``--system-site-packages`` covers it)."""
    if sys.prefix == sys.base_prefix:
        return []
    return [p for p in site.getsitepackages([sys.prefix]) if Path(p).is_dir()]


def _suite_sees_system_site() -> bool:
    if sys.prefix == sys.base_prefix:
        return True
    cfg = Path(sys.prefix) / "pyvenv.cfg"
    text = cfg.read_text(encoding="utf-8", errors="replace") if cfg.is_file() else ""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "include-system-site-packages":
            return value.strip().lower() == "true"
    return False


def overlay_venv(path: Path, *, with_pip: bool = False) -> Path:
    """Create a venv at ``path`` that sees this interpreter's packages (see the module
    docstring) and return its ``bin/python``.  Without ``with_pip`` it has no pip of its
    own: ``python -m pip`` then runs the suite's pip, which installs into the new venv."""
    venv.EnvBuilder(system_site_packages=_suite_sees_system_site(), with_pip=with_pip, symlinks=True).create(path)
    python = path / "bin" / "python"
    extra = suite_site_packages()
    if extra:
        own = next((path / "lib").glob("python*/site-packages"))
        lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in extra)
        (own / "_torchbuild_tests_suite.pth").write_text(lines, encoding="utf-8")
    return python
