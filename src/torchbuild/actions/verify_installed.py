"""Find the installed distributions whose compiled modules link libtorch (issue 11).

``torchbuild verify`` without ``--extension`` checks each of them against the
installed torch: torchvision, torchaudio, torch-scatter, a package built here...  The
checked Python lists its distributions and their files (``importlib.metadata``, in a
clean subprocess outside any source tree); this process reads each compiled file's
``DT_NEEDED`` with pyelftools: a module that needs ``libtorch*``/``libc10*`` is an
extension of torch.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

from ..decisions.verify_causes import ExtensionInfo
from ..facts.elf import elf_info as _elf_info

__all__ = ["InstalledExtension", "find_torch_extensions"]

#: Distributions never treated as extensions (torch itself and the libraries it ships with).
_SKIP = re.compile(r"^(torch|nvidia-.*|triton|pytorch-triton.*|intel-openmp|mkl.*)$", re.I)
_TORCH_LIB = re.compile(r"^lib(torch|c10)[A-Za-z0-9_]*\.so")
TIMEOUT_S = 120

_LISTER = r"""
import importlib.metadata as md, json, os, sys
out = []
for d in md.distributions():
    name = d.metadata.get("Name") or ""
    files = []
    for f in (d.files or []):
        s = str(f)
        b = os.path.basename(s)
        if b.endswith(".so") or ".so." in b:
            p = os.path.realpath(str(d.locate_file(f)))
            if os.path.isfile(p):
                files.append([s, p])
    if not files:
        continue
    top = (d.read_text("top_level.txt") or "").split()
    out.append({"name": name, "version": d.version, "requires": list(d.requires or []), "top": top, "files": files})
print(json.dumps(out))
"""


@dataclass(frozen=True)
class InstalledExtension:
    """An installed distribution with compiled modules that link torch.

    :param name: distribution name (``torchvision``).
    :param version: its version.
    :param module: the top-level module to import (``torchvision``).
    :param files: its compiled modules that need a torch library (absolute paths).
    :param torch_requirement: its requirement on torch (``torch==2.14.0``), or None.
    :param cuda_libs: CUDA libraries those modules need (``libcudart.so.12``...).
    """

    name: str
    version: str
    module: str
    files: tuple[str, ...]
    torch_requirement: str | None = None
    cuda_libs: tuple[str, ...] = ()

    def info(self) -> ExtensionInfo:
        """The :class:`ExtensionInfo` verify's cause mapping uses."""
        return ExtensionInfo(self.module, self.name, self.version, self.torch_requirement, self.cuda_libs)


def _module_of(rel: str, top: list[str]) -> str:
    first = rel.replace("\\", "/").split("/")[0]
    if "/" not in rel.replace("\\", "/"):  # a top-level module file: name.cpython-311-x86_64-linux-gnu.so
        first = first.split(".")[0]
    if top and first not in top and top[0].isidentifier():
        return top[0]
    return first


def find_torch_extensions(python: str) -> list[InstalledExtension]:
    """The distributions installed in ``python`` whose ``.so`` files link libtorch/libc10.

    :param python: an existing interpreter (resolved by the caller).
    :returns: in distribution-name order; ``[]`` when the listing fails (the torch
        report says why the interpreter does not work).
    """

    with tempfile.TemporaryDirectory(prefix="torchbuild-verify-") as cwd:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
        try:
            proc = subprocess.run(
                [python, "-I", "-c", _LISTER], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
            )
            dists = (
                json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 and proc.stdout.strip() else []
            )
        except (subprocess.TimeoutExpired, OSError, json.JSONDecodeError, IndexError):
            return []
    out = []
    for d in dists:
        if _SKIP.match(d["name"] or ""):
            continue
        linked, cuda = [], set()
        rel_first = None
        for rel, path in d["files"]:
            needed = _elf_info(path).get("needed", [])
            if any(_TORCH_LIB.match(n) for n in needed):
                linked.append(path)
                rel_first = rel_first or rel
                cuda |= {n for n in needed if n.startswith(("libcudart.so", "libc10_cuda", "libtorch_cuda"))}
        if not linked:
            continue
        req = next(
            (
                re.sub(r"\s*\((.*)\)", r"\1", r.split(";")[0].strip())
                for r in d["requires"]
                if re.match(r"^torch\b(?![-_.\w])", r.strip()) and ("extra ==" not in r)
            ),
            None,
        )
        out.append(
            InstalledExtension(
                d["name"],
                d["version"],
                _module_of(rel_first or "", d["top"]),
                tuple(sorted(linked)),
                req or None,
                tuple(sorted(cuda)),
            )
        )
    return sorted(out, key=lambda e: e.name.lower())
