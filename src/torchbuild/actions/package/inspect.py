"""``package inspect``: what a wheel, a shared object or a tree needs at run time.

For every ELF file: RPATH/RUNPATH (each entry classified ``$ORIGIN``-relative or
absolute), NEEDED and where each resolves (ld.so's order, :mod:`torchbuild.facts.elf_deps`),
the newest GLIBC/GLIBCXX/CXXABI/GCC symbol versions it requires and the CUDA arches it
embeds; for the whole: the oldest manylinux policy it fits (auditwheel's policy data,
:mod:`torchbuild.decisions.manylinux`), libraries it needs that neither the package nor
the policy provides, size by component, and for a wheel its tags and version.

A wheel is unpacked into a temporary folder (removed afterwards); its files resolve
against each other as they would once installed, plus the system's libraries.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import zipfile
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...decisions.manylinux import fit_policy, newest_versions
from ...errors import UsageError
from ...facts.elf_deps import CudaArchs, ElfInfo, cuda_archs, find_cuobjdump, is_elf, read_elf, resolve_needed
from ...knowledge.manylinux import load_policies, policy_source

__all__ = ["FileReport", "InspectReport", "component_of", "inspect_path", "wheel_metadata"]

#: Sonames of the NVIDIA driver: never shipped in a wheel, found at run time on a GPU machine.
DRIVER_LIBS = ("libcuda.so.1", "libnvidia-ml.so.1")


@dataclass
class FileReport:
    """One ELF file of the inspected thing.

    :ivar path: relative to the inspected root (the file name for a single file).
    :ivar size: bytes.
    :ivar rpath: ``DT_RPATH`` entries; :ivar runpath: ``DT_RUNPATH`` entries.
    :ivar absolute_rpaths: entries of either that do not start with ``$ORIGIN``.
    :ivar needed: ``{soname: resolved path relative to the root when inside it, absolute
        when outside, None when not found}``.
    :ivar versions: newest required version per family (``{"GLIBC": "2.28"}``).
    :ivar cuda: ``{"sass": [...], "ptx": [...], "tool": ..., "reason": ...}``.
    """

    path: str
    size: int
    soname: str | None
    rpath: list[str]
    runpath: list[str]
    absolute_rpaths: list[str]
    needed: dict[str, str | None]
    versions: dict[str, str]
    cuda: dict[str, Any]


@dataclass
class InspectReport:
    """The whole result (``--json`` prints :meth:`to_dict`).

    :ivar target: what was inspected; :ivar kind: ``"wheel"``, ``"file"`` or ``"tree"``.
    :ivar files: :class:`FileReport` per ELF file.
    :ivar versions: newest required version per family over all files.
    :ivar manylinux: ``{"policy", "aliases", "blocking", "external", "source"}``.
    :ivar unresolved: ``{soname: [files needing it]}`` not found anywhere (driver libraries
        listed separately in ``driver_libs``).
    :ivar absolute_rpaths: ``{file: [entries]}`` for every file with a non-``$ORIGIN`` entry.
    :ivar cuda_sass / cuda_ptx: union of the arches over all files.
    :ivar sizes: bytes by component; :ivar total_size: bytes.
    :ivar wheel: tags, name, version, local label (wheels only).
    """

    target: str
    kind: str
    files: list[FileReport] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    manylinux: dict[str, Any] = field(default_factory=dict)
    unresolved: dict[str, list[str]] = field(default_factory=dict)
    driver_libs: dict[str, list[str]] = field(default_factory=dict)
    absolute_rpaths: dict[str, list[str]] = field(default_factory=dict)
    cuda_sass: list[str] = field(default_factory=list)
    cuda_ptx: list[str] = field(default_factory=list)
    cuda_notes: list[str] = field(default_factory=list)
    sizes: dict[str, int] = field(default_factory=dict)
    total_size: int = 0
    wheel: dict[str, Any] = field(default_factory=dict)

    @property
    def origin_only(self) -> bool:
        """True when no file has an RPATH/RUNPATH entry outside ``$ORIGIN``."""
        return not self.absolute_rpaths

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (with ``origin_only``)."""
        d = asdict(self)
        d["origin_only"] = self.origin_only
        return d


def component_of(rel: str) -> str:
    """The size component of a path inside a package: ``lib/libtorch_cpu.so`` -> the library
    itself for shared objects, else ``headers``, ``python``, ``cmake``, ``metadata``, ``other``."""
    name = os.path.basename(rel)
    parts = rel.replace("\\", "/").split("/")
    if re.search(r"\.so(\.\d+)*$", name):
        return f"lib {name}"
    if "include" in parts or name.endswith((".h", ".hpp", ".cuh", ".hh")):
        return "headers"
    if name.endswith((".py", ".pyi", ".pyc")):
        return "python"
    if name.endswith(".cmake") or "cmake" in parts:
        return "cmake"
    if any(p.endswith((".dist-info", ".egg-info")) for p in parts):
        return "metadata"
    if name.endswith((".a", ".lib")):
        return "static libraries"
    return "other"


def wheel_metadata(names: list[str], read: Any) -> dict[str, Any]:
    """Name, version, local label and tags of a wheel from its ``*.dist-info/WHEEL`` and
    ``METADATA`` (``read(name) -> str``)."""
    info: dict[str, Any] = {}
    wheel_file = next((n for n in names if re.fullmatch(r"[^/]+\.dist-info/WHEEL", n)), None)
    meta_file = next((n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)), None)
    if wheel_file:
        text = read(wheel_file)
        info["tags"] = re.findall(r"^Tag:\s*(\S+)", text, re.MULTILINE)
        m = re.search(r"^Root-Is-Purelib:\s*(\S+)", text, re.MULTILINE)
        info["root_is_purelib"] = m.group(1) if m else None
    if meta_file:
        text = read(meta_file)
        for key, field_name in (("name", "Name"), ("version", "Version")):
            m = re.search(rf"^{field_name}:\s*(\S+)", text, re.MULTILINE)
            info[key] = m.group(1) if m else None
        v = info.get("version") or ""
        info["local"] = v.split("+", 1)[1] if "+" in v else None
    return info


def _walk(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "__pycache__"))
        for f in sorted(filenames):
            p = Path(dirpath) / f
            if p.is_file() and not p.is_symlink():
                out.append(p)
    return out


def _inspect_tree(root: Path, report: InspectReport, *, arches: bool, only: list[Path] | None = None) -> None:
    files = only if only is not None else _walk(root)
    sizes: dict[str, int] = defaultdict(int)
    elves: list[tuple[str, ElfInfo]] = []
    for p in files:
        rel = p.name if only is not None and len(files) == 1 and root == p.parent else str(p.relative_to(root))
        size = p.stat().st_size
        report.total_size += size
        comp = component_of(rel)
        if is_elf(str(p)):
            if comp == "other":
                comp = "executables"
            with contextlib.suppress(ValueError):
                elves.append((rel, read_elf(str(p))))
        sizes[comp] += size
    shipped = {os.path.basename(r) for r, _ in elves} | {e.soname for _, e in elves if e.soname}
    # the dynamic loader is part of glibc (auditwheel treats the ELF interpreter so, not as a library to bundle)
    shipped |= {n for _, e in elves for n in e.needed if re.fullmatch(r"ld-linux[-\w.]*\.so(\.\d+)*", n)}
    cuobjdump = find_cuobjdump() if arches else None
    sass: set[str] = set()
    ptx: set[str] = set()
    for rel, info in elves:
        resolved = resolve_needed(info)
        needed: dict[str, str | None] = {}
        for name, path in resolved.items():
            if path is not None and os.path.realpath(path).startswith(str(root.resolve()) + os.sep):
                needed[name] = os.path.relpath(os.path.realpath(path), root.resolve()) if only is None else path
                shipped.add(name)
            else:
                needed[name] = path
            if path is None:
                (report.driver_libs if name in DRIVER_LIBS else report.unresolved).setdefault(name, []).append(rel)
        absolute = [e for e in info.rpath + info.runpath if not e.startswith(("$ORIGIN", "${ORIGIN}"))]
        if absolute:
            report.absolute_rpaths[rel] = absolute
        if arches:
            ca = cuda_archs(info, cuobjdump)
        else:
            ca = CudaArchs(
                reason="not asked (--no-arches)" if info.fatbin_bytes else "no CUDA device code (no .nv_fatbin section)"
            )
        sass.update(ca.sass)
        ptx.update(ca.ptx)
        if info.fatbin_bytes and not ca.sass and not ca.ptx and ca.reason and ca.reason not in report.cuda_notes:
            report.cuda_notes.append(ca.reason)
        report.files.append(
            FileReport(
                path=rel,
                size=info.size,
                soname=info.soname,
                rpath=info.rpath,
                runpath=info.runpath,
                absolute_rpaths=absolute,
                needed=needed,
                versions=newest_versions([info.version_needs]),
                cuda=asdict(ca),
            )
        )
    report.versions = newest_versions([e.version_needs for _, e in elves])
    policies = load_policies("x86_64")
    all_needed = {n for _, e in elves for n in e.needed}
    fit = fit_policy([e.version_needs for _, e in elves], all_needed, shipped, policies)
    report.manylinux = {**asdict(fit), "source": policy_source()}
    report.cuda_sass = sorted(sass, key=_arch_key)
    report.cuda_ptx = sorted(ptx, key=_arch_key)
    report.sizes = dict(sorted(sizes.items(), key=lambda kv: -kv[1]))


def _arch_key(arch: str) -> tuple[int, str]:
    """Sort key of an arch name such as ``sm_86`` or ``sm_100a``: its number, then the name (the
    names come from ``cuobjdump``'s ``sm_<digits>`` file names, so the number is always there)."""
    digits = re.search(r"\d+", arch)
    return (int(digits.group()) if digits else 0, arch)


def inspect_path(target: str | os.PathLike[str], *, arches: bool = True) -> InspectReport:
    """Inspect a wheel (``.whl``), one ELF file, or a directory tree.

    :param arches: run cuobjdump on files with CUDA device code (slow on big libraries).
    :raises UsageError: the path does not exist, or is neither a wheel, an ELF file nor a
        directory (exit 2).
    """
    path = Path(target)
    if not path.exists():
        raise UsageError(f"{path} does not exist.", fix="give a wheel, a .so file or a directory.")
    if path.is_dir():
        report = InspectReport(target=str(path), kind="tree")
        _inspect_tree(path, report, arches=arches)
        return report
    if path.suffix == ".whl":
        if not zipfile.is_zipfile(path):
            raise UsageError(
                f"{path} is not a wheel (not a zip archive).", fix="give a .whl file built by pip or torchbuild."
            )
        report = InspectReport(target=str(path), kind="wheel")
        with zipfile.ZipFile(path) as zf, tempfile.TemporaryDirectory(prefix="torchbuild-inspect-") as tmp:
            names = zf.namelist()
            report.wheel = wheel_metadata(names, lambda n: zf.read(n).decode("utf-8", "replace"))
            report.wheel["file"] = path.name
            zf.extractall(tmp)
            _inspect_tree(Path(tmp), report, arches=arches)
        return report
    if is_elf(str(path)):
        report = InspectReport(target=str(path), kind="file")
        _inspect_tree(path.parent, report, arches=arches, only=[path])
        return report
    raise UsageError(
        f"{path} is neither a wheel, an ELF shared object nor a directory.",
        fix="give a .whl, a .so file or a directory such as site-packages/torch.",
    )
