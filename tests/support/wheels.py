"""Wheels made by hand for tests that install something with the real pip: metadata (and one small
module) only, no build backend needed, so they install into a fresh venv that has no setuptools."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def make_wheel(folder: Path, name: str, version: str, requires: list[str], module: str) -> Path:
    """A pure-Python wheel ``name-version-py3-none-any.whl`` with one module and a RECORD."""
    dist = name.replace("-", "_")
    files = {
        f"{dist}.py": module,
        f"{dist}-{version}.dist-info/METADATA": "Metadata-Version: 2.1\n"
        f"Name: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{dist}-{version}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: torchbuild-tests\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{dist}-{version}.dist-info/RECORD,,")
    files[f"{dist}-{version}.dist-info/RECORD"] = "\n".join(record) + "\n"
    whl = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)
    return whl


def fresh_venv_pip(folder: Path) -> list[str]:
    """The command prefix ``python -m pip --python <venv> install --no-index`` for a fresh venv made under
    ``folder`` (``venv``, without pip of its own: this Python's pip installs into it), for tests that install
    hand-made wheels with the real pip."""
    import subprocess
    import sys

    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    return [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-index"]
