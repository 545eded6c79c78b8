"""The wrapper scripts a build runs its compilers through (compiler launchers, a CUDA_HOME
whose ``bin/nvcc`` is a wrapper)."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_GUARD = "TORCHBUILD_IN_CACHE_WRAPPER"


def _wrapper_text(run: list[str], real: str | None, env: Mapping[str, str], what: str) -> str:
    """A POSIX sh wrapper.  A compiler wrapper (``real`` set) runs the bare compiler when
    called from inside another wrapper (nvcc calling its host compiler through ``-ccbin
    $CC``), so nothing is cached twice; a launcher (``real`` None) takes the compiler as
    its first argument, as CMake's ``<LANG>_COMPILER_LAUNCHER`` passes it."""
    q = shlex.quote
    lines = ["#!/bin/sh", f"# Written by torchbuild: {what}. Regenerated at each build; safe to delete."]
    if real is not None:
        lines.append(f'if [ -n "${{{_GUARD}:-}}" ]; then exec {q(real)} "$@"; fi')
        lines.append(f"{_GUARD}=1; export {_GUARD}")
    for k, v in env.items():
        lines.append(f"{k}={q(v)}; export {k}")
    lines.append("exec " + " ".join(q(a) for a in run + ([real] if real else [])) + ' "$@"')
    return "\n".join(lines) + "\n"


def _write_exe(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, path)


def write_wrappers(tree: Path, setup: Mapping[str, Any]) -> list[Path]:
    """Write the wrapper scripts ``setup["wrappers"]`` names into ``<tree>/.torchbuild/wrappers``
    and, with ``setup["cuda_home"]``, a CUDA_HOME of symlinks to the real toolkit whose
    ``bin/nvcc`` is a wrapper (torch's cpp_extension runs ``CUDA_HOME/bin/nvcc``).

    :returns: the files written.
    :raises OSError: the folder cannot be written.
    """
    folder = Path(tree) / ".torchbuild" / "wrappers"
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for w in setup.get("wrappers") or []:
        path = folder / w["name"]
        if w.get("launcher"):
            text = _wrapper_text(
                list(w["exec"]), None, w.get("env") or {}, f"CMake compiler launcher {' '.join(w['exec'])}"
            )
        else:
            run, real = list(w["exec"][:-1]), w["exec"][-1]
            text = _wrapper_text(run, real, w.get("env") or {}, f"{' '.join(w['exec'])}")
        _write_exe(path, text)
        written.append(path)
    cuda = setup.get("cuda_home")
    if cuda:
        real_home = Path(cuda["real"])
        home = folder / "cuda"
        if home.exists() or home.is_symlink():
            shutil.rmtree(home) if home.is_dir() and not home.is_symlink() else home.unlink()
        (home / "bin").mkdir(parents=True)
        for entry in real_home.iterdir():
            if entry.name != "bin":
                (home / entry.name).symlink_to(entry)
        real_bin = real_home / "bin"
        if real_bin.is_dir():
            for entry in real_bin.iterdir():
                if entry.name != "nvcc":
                    (home / "bin" / entry.name).symlink_to(entry)
        run, real = list(cuda["exec"][:-1]), cuda["exec"][-1]
        _write_exe(home / "bin" / "nvcc", _wrapper_text(run, real, {}, f"{' '.join(cuda['exec'])}"))
        written.append(home / "bin" / "nvcc")
    return written
