"""``package libtorch [TREE]``: the C++ distribution, laid out like the official libtorch zip.

The official layout (pytorch/builder ``manywheel/build_libtorch.sh`` @1ac2a6ee, the script
the official zips were made with until Nov 2024):

* ``libtorch/lib`` (the shared libraries, RPATH ``$ORIGIN``), ``libtorch/include``,
  ``libtorch/share`` (``cmake/Torch``, ``cmake/Caffe2``, ``cmake/ATen`` ...), ``libtorch/bin``;
* ``libtorch/build-version`` (``PYTORCH_BUILD_VERSION``) and ``libtorch/build-hash``
  (``git rev-parse HEAD`` of the tree);
* the archive named ``libtorch-<cxx11-abi->shared-with-deps-<version>.zip``, ``cxx11-abi-``
  when built with ``_GLIBCXX_USE_CXX11_ABI=1``.

The files come from what the build installed: ``<tree>/torch/{lib,include,share,bin}``
(setup.py installs CMake's output there) or ``--from DIR`` (a ``torch`` package folder such
as an installed wheel's).  ``libtorch_python.so`` (needs the Python interpreter) is left
out; every other library gets ``$ORIGIN`` RPATHs only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...errors import UsageError
from ...facts.elf_deps import is_elf
from ...facts.torch_install import parse_version_py, read_cxx11_abi
from ...ui import echo_command
from .rpath import fix_rpaths
from .wheel import variant_label, with_local

__all__ = ["PYTHON_ONLY_LIBS", "LibtorchResult", "libtorch_zip_name", "package_libtorch"]

#: Libraries of the torch package that only the Python module uses.
PYTHON_ONLY_LIBS = ("libtorch_python.so",)


@dataclass
class LibtorchResult:
    """What :func:`package_libtorch` made: the zip, its version and ABI, the files left out,
    RPATH changes and notes."""

    zip: str
    source: str
    version: str
    cxx11_abi: bool | None
    build_hash: str | None
    left_out: list[str] = field(default_factory=list)
    rpath_changes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


def libtorch_zip_name(version: str, cxx11_abi: bool | None) -> str:
    """``libtorch-cxx11-abi-shared-with-deps-2.6.0+cpu.zip`` (official naming, build_libtorch.sh)."""
    return f"libtorch-{'cxx11-abi-' if cxx11_abi else ''}shared-with-deps-{version}.zip"


def _git_head(tree: Path) -> str | None:
    if not (tree / ".git").exists():
        return None
    argv = ["git", "-C", str(tree), "rev-parse", "HEAD"]
    echo_command(argv)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.strip() or None


def package_libtorch(
    tree: str | os.PathLike[str] | None = None,
    *,
    from_dir: str | None = None,
    output_dir: str | None = None,
    label: str | None = None,
) -> LibtorchResult:
    """Make the libtorch zip.

    :param tree: the built PyTorch tree (its ``torch/`` install folder is used).
    :param from_dir: a ``torch`` package folder instead (``lib/``, ``include/``, ``share/cmake/Torch``).
    :param output_dir: where the zip goes (default ``<tree>/.torchbuild/package`` or the current folder).
    :param label: local version label (default ``cpu``/``cuXYZ`` from ``version.py``).
    :raises UsageError: no ``lib/`` + ``share/cmake/Torch`` in the source; output exists.
    """
    root = Path(tree).resolve() if tree else None
    pkg = Path(from_dir).resolve() if from_dir else (root / "torch" if root else None)
    if pkg is None or not (pkg / "lib").is_dir() or not (pkg / "share" / "cmake" / "Torch").is_dir():
        where = pkg or "TREE/torch"
        raise UsageError(
            f"{where} has no lib/ and share/cmake/Torch: nothing to package (the tree is not built, "
            "or this is not a torch package folder).",
            fix="build the tree first (torchbuild build TREE), or give --from <site-packages>/torch.",
        )
    vtext = (pkg / "version.py").read_text(encoding="utf-8") if (pkg / "version.py").is_file() else ""
    tv = parse_version_py(vtext)
    lab = label or variant_label(tv.cuda, tv.hip)
    version = with_local(tv.version or "0", lab)
    abi = read_cxx11_abi(str(pkg))
    build_hash = tv.git_version or (_git_head(root) if root else None)
    out_dir = Path(output_dir) if output_dir else (root / ".torchbuild" / "package" if root else Path.cwd())
    out = out_dir / libtorch_zip_name(version, abi)
    if out.exists():
        raise UsageError(f"{out} exists; torchbuild does not overwrite files.", fix="remove it or choose --output-dir.")
    left_out: list[str] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="torchbuild-libtorch-") as tmp:
        stage = Path(tmp)
        lt = stage / "libtorch"
        for sub in ("lib", "bin", "include", "share"):
            (lt / sub).mkdir(parents=True)
            src = pkg / sub
            if not src.is_dir():
                continue
            for p in sorted(src.rglob("*")):
                rel = p.relative_to(src)
                if "__pycache__" in rel.parts or p.is_dir():
                    continue
                if sub == "lib" and p.name in PYTHON_ONLY_LIBS:
                    left_out.append(f"lib/{p.name}")
                    continue
                dst = lt / sub / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(p, dst, follow_symlinks=True)  # as `zip -r` stores links: their content
        (lt / "build-version").write_text(version + "\n", encoding="utf-8")
        if build_hash:
            (lt / "build-hash").write_text(build_hash + "\n", encoding="utf-8")
        else:
            notes.append(
                "no git SHA (version.py has no git_version and the tree is not a git checkout): no build-hash."
            )
        elves = sorted(
            str(p.relative_to(stage)) for p in lt.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(str(p))
        )
        changes = fix_rpaths(stage, "libtorch/lib", elves)
        for c in changes:
            for lib, where in c.lost.items():
                notes.append(
                    f"{c.path}: {lib} {where} (absolute RPATH entry, dropped); it must come from the system "
                    "library path or LD_LIBRARY_PATH at run time."
                )
        for p in sorted(lt.rglob("*.cmake")):
            if root and str(root) in p.read_text(encoding="utf-8", errors="replace"):
                notes.append(f"{p.relative_to(stage)} mentions the build tree's path {root}.")
        out_dir.mkdir(parents=True, exist_ok=True)
        part = out.with_suffix(".zip.part")
        echo_command(["zip", "-r", str(out), "libtorch"], cwd=str(stage))
        with zipfile.ZipFile(part, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for p in sorted(lt.rglob("*")):
                arc = str(p.relative_to(stage))
                if p.is_file():
                    zf.write(p, arc)
        part.rename(out)
    if any(re.search(r"libtorch_cuda", x) for x in elves):
        notes.append(
            "a CUDA libtorch: programs built against it need the CUDA toolkit (find_package(Torch) looks for it)."
        )
    return LibtorchResult(
        zip=str(out),
        source=str(pkg),
        version=version,
        cxx11_abi=abi,
        build_hash=build_hash,
        left_out=left_out,
        rpath_changes=[asdict(c) for c in changes],
        notes=notes,
    )
