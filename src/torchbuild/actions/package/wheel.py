"""``package wheel [TREE]``: an official-like wheel from a built PyTorch tree.

Input: the wheel the tree's build made (newest ``*.whl`` in ``<tree>/.torchbuild/dist``
or ``<tree>/dist``, or ``--wheel FILE``), else the tree's develop install (``torch/`` with
``_C*.so`` and ``lib/``), packed as a wheel here.  Output, in ``--output-dir``
(default ``<tree>/.torchbuild/package``):

* every ELF file with ``$ORIGIN``-relative RPATHs only (:mod:`.rpath`);
* the local version label of the variant: ``+cpu``, ``+cu126`` (from ``torch/version.py``'s
  ``cuda``; the scheme ``<version>+<cuXYZ>`` of the official wheels, https://download.pytorch.org/whl/), written
  into ``METADATA``, the ``.dist-info`` folder name, the file name and ``torch/version.py``;
* the platform tag: the manylinux policy the compiled files fit (auditwheel's policy data,
  :mod:`torchbuild.decisions.manylinux`) when they need no library outside the wheel and
  the policy's whitelist, else ``linux_x86_64`` (with the libraries that prevent it);
  the Python tags of the input wheel are kept;
* ``torchbuild-manifest.json`` (every file, size, sha256, and for compiled files RPATH and
  NEEDED) and ``torchbuild-build-record.json`` (the tree's newest build record, with the
  tree's path replaced by ``$TREE``) in the ``.dist-info`` folder, a fresh ``RECORD``;
  the manifest is also written beside the wheel.

Afterwards the wheel is inspected again: an absolute RPATH or the tree's path in any text
file of the wheel is an error (exit 1).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import tempfile
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ...errors import UsageError
from ...facts.elf_deps import is_elf, read_elf
from .inspect import inspect_path
from .rpath import fix_rpaths

__all__ = ["WheelResult", "find_input_wheel", "package_wheel", "record_line", "variant_label", "with_local"]

TEXT_SUFFIXES = (".py", ".pyi", ".cmake", ".txt", ".json", ".h", ".hpp", ".cuh", ".yaml", ".pc", ".cfg", ".in")


@dataclass
class WheelResult:
    """What :func:`package_wheel` made.

    :ivar wheel: path of the new wheel; :ivar manifest: path of the manifest beside it.
    :ivar input: the wheel (or folder) it was made from.
    :ivar version: the new version (``2.6.0+cpu``); :ivar tag: ``cp311-cp311-manylinux_2_28_x86_64``.
    :ivar rpath_changes: ``[{"path", "before", "after", "lost"}]``.
    :ivar tag_reason: why that platform tag.
    :ivar problems: what fails the official-like checks (absolute RPATH, build path in a file).
    :ivar notes: for a person (libraries to come from the system, compiled-in build paths).
    """

    wheel: str
    manifest: str
    input: str
    version: str
    tag: str
    rpath_changes: list[dict[str, Any]] = field(default_factory=list)
    tag_reason: str = ""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing in :attr:`problems`."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (with ``ok``)."""
        return {**asdict(self), "ok": self.ok}


def find_input_wheel(tree: Path) -> Path | None:
    """The newest ``torch-*.whl`` in ``<tree>/.torchbuild/dist`` or ``<tree>/dist``, or None."""
    cands: list[Path] = []
    for d in (tree / ".torchbuild" / "dist", tree / "dist"):
        cands += [p for p in d.glob("torch-*.whl") if p.is_file()]
    return max(cands, key=lambda p: p.stat().st_mtime) if cands else None


def variant_label(cuda: str | None, rocm: str | None = None) -> str:
    """``"cpu"``, ``"cu126"`` (CUDA 12.6) or ``"rocm6.2"`` (the official wheels' local labels)."""
    if cuda:
        return "cu" + "".join(cuda.split(".")[:2])
    if rocm:
        return "rocm" + ".".join(rocm.split(".")[:2])
    return "cpu"


def with_local(version: str, label: str) -> str:
    """``"2.6.0a0+git1eba9b3"``, ``"cpu"`` -> ``"2.6.0a0+cpu"``: the public part and the label
    (the git SHA stays in ``torch/version.py`` ``git_version`` and in the manifest)."""
    return version.split("+", 1)[0] + "+" + label


def record_line(arcname: str, data: bytes) -> str:
    """A ``RECORD`` row: ``path,sha256=<urlsafe b64, no padding>,size`` (PEP 376/427)."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _read_version_py(pkg: Path) -> dict[str, str | None]:
    text = (pkg / "version.py").read_text(encoding="utf-8") if (pkg / "version.py").is_file() else ""
    out: dict[str, str | None] = {}
    for key in ("__version__", "cuda", "hip", "git_version"):
        m = re.search(rf"^{key}\s*(?::[^=\n]*)?=\s*['\"]([^'\"]*)['\"]", text, re.MULTILINE)
        out[key] = m.group(1) if m else None
    return out


def _newest_record(tree: Path) -> dict[str, Any] | None:
    recs = sorted((tree / ".torchbuild" / "records").glob("*.json"), key=lambda p: p.stat().st_mtime)
    for p in reversed(recs):
        try:
            return json.loads(p.read_text(encoding="utf-8")) | {"_file": p.name}
        except (OSError, ValueError):
            continue
    return None


def _stage_from_develop(tree: Path, stage: Path) -> str:
    """Copy a develop-installed ``torch/`` into ``stage`` as a wheel's contents; returns the
    version.  Sources (``csrc/``, ``*.cpp``...) and caches are left out."""
    pkg = tree / "torch"
    if not (pkg / "lib").is_dir() or not list(pkg.glob("_C*.so")):
        raise UsageError(
            f"{tree} has no wheel in .torchbuild/dist or dist/ and no built torch/ (torch/_C*.so, torch/lib).",
            fix=f"build it first: torchbuild build {tree} --profile release",
        )
    ver = _read_version_py(pkg)["__version__"] or "0+unknown"
    skip_dirs = {"csrc", "__pycache__"}
    for dirpath, dirnames, filenames in os.walk(pkg):
        dirnames[:] = [d for d in dirnames if d not in skip_dirs]
        for f in filenames:
            if f.endswith((".cpp", ".cc", ".c", ".cu", ".o", ".pyc")):
                continue
            src = Path(dirpath) / f
            dst = stage / "torch" / src.relative_to(pkg)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst, follow_symlinks=True)
    info = stage / f"torch-{ver}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {ver}\n", encoding="utf-8")
    import sysconfig

    py = f"cp{sysconfig.get_config_var('py_version_nodot')}"
    (info / "WHEEL").write_text(
        f"Wheel-Version: 1.0\nGenerator: torchbuild\nRoot-Is-Purelib: false\nTag: {py}-{py}-linux_x86_64\n",
        encoding="utf-8",
    )
    return ver


def package_wheel(
    tree: str | os.PathLike[str],
    *,
    wheel: str | None = None,
    output_dir: str | None = None,
    label: str | None = None,
    plat: str | None = None,
) -> WheelResult:
    """Make the official-like wheel (see the module docstring).

    :param wheel: the input wheel (default: found in the tree).
    :param label: local version label (default from ``torch/version.py``: ``cpu``/``cuXYZ``).
    :param plat: force this platform tag (e.g. ``manylinux_2_28_x86_64``).
    :raises UsageError: TREE missing, no input wheel nor develop install, output exists.
    """
    root = Path(tree).resolve()
    if not root.is_dir():
        raise UsageError(f"TREE {tree} is not a folder.", fix="give the PyTorch tree that was built.")
    src_wheel = Path(wheel).resolve() if wheel else find_input_wheel(root)
    if src_wheel is not None and not zipfile.is_zipfile(src_wheel):
        raise UsageError(f"--wheel {src_wheel} is not a wheel (zip).", fix="give the .whl the build made.")
    out_dir = Path(output_dir) if output_dir else root / ".torchbuild" / "package"
    with tempfile.TemporaryDirectory(prefix="torchbuild-wheel-") as tmp:
        stage = Path(tmp) / "stage"
        stage.mkdir()
        if src_wheel is not None:
            with zipfile.ZipFile(src_wheel) as zf:
                zf.extractall(stage)
                for info in zf.infolist():
                    mode = (info.external_attr >> 16) & 0o777
                    if mode:
                        os.chmod(stage / info.filename, mode)
            origin = str(src_wheel)
        else:
            _stage_from_develop(root, stage)
            origin = f"{root}/torch (develop install)"
        return _finish(root, stage, origin, out_dir, label, plat)


def _finish(root: Path, stage: Path, origin: str, out_dir: Path, label: str | None, plat: str | None) -> WheelResult:
    infos = [p for p in stage.glob("*.dist-info") if p.is_dir()]
    if len(infos) != 1:
        raise UsageError(f"{origin}: expected one .dist-info folder, found {len(infos)}.")
    old_info = infos[0]
    meta = (old_info / "METADATA").read_text(encoding="utf-8")
    name = re.search(r"^Name:\s*(\S+)", meta, re.MULTILINE).group(1)  # type: ignore[union-attr]
    old_version = re.search(r"^Version:\s*(\S+)", meta, re.MULTILINE).group(1)  # type: ignore[union-attr]
    pkg = stage / "torch"
    vpy = _read_version_py(pkg)
    lab = label or variant_label(vpy.get("cuda"), vpy.get("hip"))
    version = with_local(old_version, lab)
    notes: list[str] = []
    problems: list[str] = []

    # RPATHs -------------------------------------------------------------------------
    elves = sorted(
        str(p.relative_to(stage)) for p in stage.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(str(p))
    )
    lib_dir = "torch/lib"
    changes = fix_rpaths(stage, lib_dir, elves)
    for c in changes:
        for lib, where in c.lost.items():
            notes.append(
                f"{c.path}: {lib} {where} (an absolute RPATH entry, dropped); at run time it must come from the "
                "system library path, an nvidia-* wheel or LD_LIBRARY_PATH."
            )

    # version: METADATA, dist-info name, torch/version.py ------------------------------
    meta = re.sub(r"^Version:.*$", f"Version: {version}", meta, count=1, flags=re.MULTILINE)
    new_info = stage / f"{name.replace('-', '_')}-{version}.dist-info"
    old_info.rename(new_info)
    (new_info / "METADATA").write_text(meta, encoding="utf-8")
    if (pkg / "version.py").is_file():
        text = (pkg / "version.py").read_text(encoding="utf-8")
        text = re.sub(
            r"^(__version__\s*(?::[^=\n]*)?=\s*)['\"][^'\"]*['\"]",
            rf"\g<1>'{version}'",
            text,
            count=1,
            flags=re.MULTILINE,
        )
        (pkg / "version.py").write_text(text, encoding="utf-8")

    # tags -----------------------------------------------------------------------------
    wheel_txt = (new_info / "WHEEL").read_text(encoding="utf-8")
    tags = re.findall(r"^Tag:\s*(\S+)", wheel_txt, re.MULTILINE)
    pytags = sorted({"-".join(t.split("-")[:2]) for t in tags}) or ["py3-none"]
    rep = inspect_path(stage, arches=False)
    fit = rep.manylinux
    if plat:
        platform, reason = plat, "--plat"
    elif fit.get("policy") and not fit.get("external"):
        platform = f"{fit['policy']}_x86_64"
        reason = (
            f"the compiled files need at most {', '.join(f'{k} {v}' for k, v in rep.versions.items())} and only "
            f"libraries in the wheel or the policy's whitelist ({fit.get('source')})"
        )
    else:
        platform = "linux_x86_64"
        reason = (
            "no manylinux policy: "
            + (
                f"they need libraries outside the wheel and the policy's whitelist: "
                f"{', '.join(fit.get('external') or [])}"
                if fit.get("external")
                else f"symbol versions {', '.join(fit.get('blocking') or [])}"
            )
            + " (bundle them with `auditwheel repair`, or install them on the target machines)"
        )
    new_tags = [f"{p}-{platform}" for p in pytags]
    wheel_txt = (
        re.sub(r"^Tag:.*\n?", "", wheel_txt, flags=re.MULTILINE).rstrip("\n")
        + "\n"
        + "".join(f"Tag: {t}\n" for t in new_tags)
    )
    (new_info / "WHEEL").write_text(wheel_txt, encoding="utf-8")

    # build paths left in the wheel ----------------------------------------------------
    tree_b = str(root).encode()
    for p in sorted(stage.rglob("*")):
        if not p.is_file() or p.is_symlink():
            continue
        rel = str(p.relative_to(stage))
        if (rel.endswith(TEXT_SUFFIXES) or p.parent == new_info) and tree_b in p.read_bytes():
            problems.append(f"{rel} contains the build tree's path {root}")
    for f in rep.files:
        if f.absolute_rpaths:
            problems.append(f"{f.path}: absolute RPATH entries {':'.join(f.absolute_rpaths)}")
    elf_paths = [r for r in elves if tree_b in (stage / r).read_bytes()]
    if elf_paths:
        notes.append(
            f"{len(elf_paths)} compiled file(s) hold the tree path in their strings (__FILE__ of assertions: "
            f"{', '.join(elf_paths[:3])}{' ...' if len(elf_paths) > 3 else ''}); RPATHs do not. Build with "
            f"CFLAGS/CXXFLAGS=-ffile-prefix-map={root}=. to remove them."
        )

    # manifest, record, RECORD ---------------------------------------------------------
    record = _newest_record(root)
    if record is not None:
        text = json.dumps(record, indent=2, default=str).replace(str(root), "$TREE")
        (new_info / "torchbuild-build-record.json").write_text(text, encoding="utf-8")
    else:
        notes.append(f"no build record in {root}/.torchbuild/records: the wheel carries none.")
    files = []
    for p in sorted(stage.rglob("*")):
        if p.is_file() and p.name not in ("RECORD", "torchbuild-manifest.json"):
            rel = str(p.relative_to(stage))
            entry: dict[str, Any] = {
                "path": rel,
                "size": p.stat().st_size,
                "sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
            }
            if rel in elves:
                e = read_elf(str(p))
                entry.update(rpath=e.runpath or e.rpath, needed=e.needed)
            files.append(entry)
    manifest = {
        "name": name,
        "version": version,
        "input": origin.replace(str(root), "$TREE"),
        "input_version": old_version,
        "variant": lab,
        "tags": new_tags,
        "tag_reason": reason,
        "git_version": vpy.get("git_version"),
        "cuda": vpy.get("cuda"),
        "symbol_versions": rep.versions,
        "manylinux": fit,
        "rpath_changes": [asdict(c) for c in changes],
        "files": files,
    }
    man_text = json.dumps(manifest, indent=2).replace(str(root), "$TREE")
    (new_info / "torchbuild-manifest.json").write_text(man_text, encoding="utf-8")
    tag_part = (
        ".".join(sorted({t.split("-")[0] for t in new_tags}))
        + "-"
        + ".".join(sorted({t.split("-")[1] for t in new_tags}))
        + "-"
        + platform
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{name.replace('-', '_')}-{version}-{tag_part}.whl"
    if out.exists():
        raise UsageError(f"{out} exists; torchbuild does not overwrite files.", fix="remove it or choose --output-dir.")
    _zip(stage, new_info, out)
    man_path = out.with_suffix(".manifest.json")
    man_path.write_text(man_text, encoding="utf-8")
    return WheelResult(
        wheel=str(out),
        manifest=str(man_path),
        input=origin,
        version=version,
        tag="-".join([tag_part]),
        rpath_changes=[asdict(c) for c in changes],
        tag_reason=reason,
        problems=problems,
        notes=notes,
    )


def _zip(stage: Path, info: Path, out: Path) -> None:
    """Write the wheel: files in sorted order, dist-info last, a fresh RECORD."""
    rows: list[str] = []
    rec_name = f"{info.name}/RECORD"
    tmp = out.with_suffix(".whl.part")
    files = sorted(
        (p for p in stage.rglob("*") if p.is_file() and p.name != "RECORD"),
        key=lambda p: (p.parent == info or info in p.parents, str(p)),
    )
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for p in files:
            arc = str(p.relative_to(stage))
            data = p.read_bytes()
            zi = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = (p.stat().st_mode & 0xFFFF) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
            rows.append(record_line(arc, data))
        rows.append(f"{rec_name},,")
        zi = zipfile.ZipInfo(rec_name, date_time=(1980, 1, 1, 0, 0, 0))
        zi.external_attr = 0o644 << 16
        zf.writestr(zi, "\n".join(rows) + "\n")
    tmp.rename(out)
