"""Source archives as SOURCE: ``.tar.gz``/``.tgz``/``.tar.xz``/``.tar.bz2``/``.zip`` and Debian ``.dsc``.

An archive is checked completely *before* anything is written: every member is read (a
truncated archive fails here, not half-way through an unpack), the top folder must hold a
PyTorch tree (``version.txt``, ``c10/``, ``torch/``, ``setup.py`` or ``pyproject.toml``) or
an extension package (a ``setup.py`` that uses ``torch.utils.cpp_extension``), and a PyTorch
version must be one torchbuild's release data knows.  Only then is it unpacked, into a
temporary folder beside the destination that is renamed into place when complete, so an
interrupted unpack never leaves a half tree that looks whole.

Where: next to the archive (``/src/pytorch-v2.6.0.tar.gz`` -> ``/src/pytorch-v2.6.0/``), or
into ``<cache>/sources/`` when the archive's folder is not writable.  A folder unpacked
earlier (it holds ``.torchbuild-unpacked``) is reused as it is, so a failed build resumes
in the same tree.  A folder of that name that torchbuild did not unpack is never touched.

A Debian source package (``.dsc``, format ``3.0 (quilt)``) is unpacked with Debian's own
``dpkg-source -x`` (which applies ``debian/patches/series``), after its files' sha256 sums
are checked against the ``.dsc``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import BadArchiveError, UsageError  # BadArchiveError: re-exported from its old place
from ..ui import echo_command

__all__ = ["ARCHIVE_SUFFIXES", "ArchiveInfo", "BadArchiveError", "is_archive", "inspect_archive", "unpack_source"]

#: File name endings taken as source archives.
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tar", ".zip", ".dsc")

MARKER = ".torchbuild-unpacked"


@dataclass
class ArchiveInfo:
    """What an archive holds, read without unpacking it.

    ``top``: the single top folder (``"pytorch-v2.6.0"``); ``kind``: ``"pytorch"`` or
    ``"extension"``; ``version``: ``version.txt`` of a PyTorch tree (``"2.6.0"``) or None;
    ``members``: number of entries; ``size``: unpacked bytes.
    """

    path: Path
    top: str
    kind: str
    version: str | None
    members: int
    size: int


def is_archive(path: Path) -> bool:
    """True when ``path`` names a file with one of :data:`ARCHIVE_SUFFIXES`."""
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def _read_members(path: Path) -> tuple[list[str], dict[str, bytes], int]:
    """(member names, contents of the few small files we look at, total size in bytes).

    Reads every member to its end, so truncation and corruption show here.
    :raises BadArchiveError: unreadable, truncated or corrupt archive.
    """
    wanted = re.compile(r"^[^/]+/(version\.txt|setup\.py)$")
    names: list[str] = []
    small: dict[str, bytes] = {}
    size = 0
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                bad = zf.testzip()
                if bad is not None:
                    raise BadArchiveError(
                        f"{path.name} is corrupt (bad CRC in {bad}).",
                        fix="download the archive again and check its checksum.",
                    )
                for info in zf.infolist():
                    names.append(info.filename)
                    size += info.file_size
                    if wanted.match(info.filename):
                        small[info.filename] = zf.read(info)
        else:
            with tarfile.open(path, "r:*") as tf:
                for m in tf:  # streams through the whole archive
                    names.append(m.name + ("/" if m.isdir() else ""))
                    size += m.size
                    if m.isfile():
                        f = tf.extractfile(m)
                        data = f.read() if f is not None else b""
                        if wanted.match(m.name):
                            small[m.name] = data
    except BadArchiveError:
        raise
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise BadArchiveError(
            f"{path.name} cannot be read to its end ({type(exc).__name__}: {exc}): the archive is "
            "truncated or corrupt.",
            fix="download it again and compare its checksum.",
        ) from None
    return names, small, size


def inspect_archive(path: Path, known_releases: list[str]) -> ArchiveInfo:
    """Check an archive without writing anything.

    :param path: a ``.tar.*``/``.zip`` file.
    :param known_releases: major.minor PyTorch releases torchbuild has data for (``["2.6", ...]``).
    :raises BadArchiveError: truncated/corrupt; not one top folder; neither a PyTorch tree nor
        an extension package; a PyTorch version not in ``known_releases``.
    """
    names, small, size = _read_members(path)
    tops = {n.split("/", 1)[0] for n in names if n.strip("/")}
    if len(tops) != 1:
        raise BadArchiveError(
            f"{path.name} does not hold one top folder (it has {len(tops)}: "
            f"{', '.join(sorted(tops)[:4])}...), as source archives do.",
            fix="unpack it yourself and give the folder that holds setup.py.",
        )
    top = tops.pop()
    if any(n.startswith("/") or ".." in n.split("/") for n in names):
        raise BadArchiveError(f"{path.name} holds paths outside its folder.", fix="do not build it.")
    has = set(names)
    version_b = small.get(f"{top}/version.txt")
    is_pytorch = (
        version_b is not None
        and f"{top}/c10/" in has
        and f"{top}/torch/" in has
        and (f"{top}/setup.py" in has or f"{top}/pyproject.toml" in has)
    )
    if not is_pytorch and f"{top}/c10/" not in has:
        # a directory entry may be missing from the listing; look for files under it
        prefixes = {n.split("/", 2)[1] for n in names if n.count("/") >= 2}
        is_pytorch = (
            version_b is not None
            and {"c10", "torch"} <= prefixes
            and (f"{top}/setup.py" in has or f"{top}/pyproject.toml" in has)
        )
    if is_pytorch:
        version = (version_b or b"").decode("utf-8", "replace").strip()
        mm = ".".join(re.findall(r"\d+", version)[:2])
        if mm not in known_releases:
            raise BadArchiveError(
                f"{path.name} is PyTorch {version}, which is not in torchbuild's release data "
                f"(known: {', '.join(known_releases)}).",
                fix="use a release torchbuild knows, or add the release's rows to "
                "knowledge/data/pytorch_components.toml and pytorch_releases.toml.",
            )
        return ArchiveInfo(path, top, "pytorch", version, len(names), size)
    setup = small.get(f"{top}/setup.py", b"").decode("utf-8", "replace")
    if re.search(r"cpp_extension|CUDAExtension|CppExtension|BuildExtension", setup):
        return ArchiveInfo(path, top, "extension", None, len(names), size)
    raise BadArchiveError(
        f"{path.name} is not a PyTorch source archive (no version.txt, c10/ and torch/ in {top}/) "
        "nor an extension package (no setup.py that uses torch.utils.cpp_extension).",
        fix="give a PyTorch source archive (e.g. pytorch-v2.6.0.tar.gz from the release page) or "
        "the folder of a checkout.",
    )


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def _destination_parent(archive: Path, cache: Path) -> Path:
    return archive.parent if _writable(archive.parent) else cache / "sources"


def unpack_source(archive: Path, *, cache: Path, known_releases: list[str]) -> Path:
    """Unpack ``archive`` (or reuse its earlier unpack) and return the tree's folder.

    :param archive: a source archive or a Debian ``.dsc``.
    :param cache: torchbuild's cache folder (used when the archive's folder is read-only).
    :param known_releases: major.minor releases with release data.
    :raises BadArchiveError: see :func:`inspect_archive`; a ``.dsc`` whose files are missing or
        whose sha256 differs.
    :raises UsageError: the destination exists but was not unpacked by torchbuild; ``dpkg-source``
        is missing for a ``.dsc``.
    """
    archive = archive.resolve()
    if archive.name.endswith(".dsc"):
        return _unpack_dsc(archive, cache=cache, known_releases=known_releases)
    parent = _destination_parent(archive, cache)
    # a finished earlier unpack of this archive is reused without reading the archive again
    for cand in _candidates(parent, archive):
        return cand
    info = inspect_archive(archive, known_releases)
    dest = parent / info.top
    if dest.exists():
        raise UsageError(
            f"{archive.name} would unpack into {dest}, which exists and was not unpacked by torchbuild.",
            fix=f"give {dest} itself as SOURCE, or move it away.",
        )
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".torchbuild-unpack-", dir=parent))
    try:
        echo_command(["unpack", str(archive), str(dest)])
        if archive.name.lower().endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                zf.extractall(tmp)
        else:
            with tarfile.open(archive, "r:*") as tf:
                tf.extractall(tmp, filter="data")
        (tmp / info.top / MARKER).write_text(f"{archive}\n", encoding="utf-8")
        os.replace(tmp / info.top, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _candidates(parent: Path, archive: Path) -> list[Path]:
    """Folders in ``parent`` that torchbuild unpacked from this very archive."""
    if not parent.is_dir():
        return []
    out = []
    for marker in parent.glob(f"*/{MARKER}"):
        try:
            if marker.read_text(encoding="utf-8").strip() == str(archive):
                out.append(marker.parent)
        except OSError:
            continue
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def parse_dsc(text: str) -> tuple[str, str, list[tuple[str, int, str]]]:
    """(Source, Version, [(file name, size in bytes, sha256)]) from a ``.dsc``'s text.

    Format: Debian Policy §5.4 (``Checksums-Sha256`` field: one ``sha256 size name`` per line).
    :raises ValueError: no Source/Version field or no Checksums-Sha256 entries.
    """
    src = re.search(r"^Source:\s*(\S+)", text, re.M)
    ver = re.search(r"^Version:\s*(\S+)", text, re.M)
    block = re.search(r"^Checksums-Sha256:\s*\n((?:[ \t]+\S+[ \t]+\d+[ \t]+\S+\n?)+)", text, re.M)
    if not (src and ver and block):
        raise ValueError("not a Debian source control file")
    files = []
    for line in block.group(1).splitlines():
        sha, size, name = line.split()
        files.append((name, int(size), sha))
    return src.group(1), ver.group(1), files


def _unpack_dsc(dsc: Path, *, cache: Path, known_releases: list[str]) -> Path:
    try:
        source, version, files = parse_dsc(dsc.read_text(encoding="utf-8", errors="replace"))
    except ValueError:
        raise BadArchiveError(
            f"{dsc.name} is not a Debian source control file (no Source, Version and Checksums-Sha256 fields).",
            fix="give the .dsc of a Debian source package.",
        ) from None
    upstream = re.sub(r"^\d+:", "", version).rsplit("-", 1)[0]
    parent = _destination_parent(dsc, cache)
    dest = parent / f"{source}-{upstream}"
    if (dest / MARKER).exists():
        return dest
    for name, size, sha in files:
        f = dsc.parent / name
        if not f.is_file():
            raise BadArchiveError(
                f"{dsc.name} names {name}, which is not beside it.",
                fix=f"put {name} in {dsc.parent} (apt-get source fetches all three files).",
            )
        if f.stat().st_size != size or _sha256(f) != sha:
            raise BadArchiveError(
                f"{name} does not match the sha256 in {dsc.name}: the file is truncated or another.",
                fix="download the source package again (apt-get source).",
            )
    orig = next((dsc.parent / n for n, _, _ in files if ".orig.tar." in n), None)
    if orig is not None:
        inspect_archive(orig, known_releases)  # a PyTorch version we know, readable to its end
    if dest.exists():
        raise UsageError(
            f"{dsc.name} would unpack into {dest}, which exists and was not unpacked by torchbuild.",
            fix=f"give {dest} itself as SOURCE, or move it away.",
        )
    tool = shutil.which("dpkg-source")
    if tool is None:
        raise UsageError(
            f"unpacking {dsc.name} needs dpkg-source, which is not on PATH.",
            fix="apt-get install dpkg-dev (it applies Debian's patches as Debian does).",
        )
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".torchbuild-unpack-", dir=parent))
    try:
        argv = [tool, "--no-check", "-x", str(dsc), str(tmp / "tree")]
        echo_command(argv)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            raise BadArchiveError(
                f"dpkg-source could not unpack {dsc.name}: "
                f"{(proc.stderr.strip().splitlines() or ['exit ' + str(proc.returncode)])[-1]}",
                fix="check the package's files, or unpack it by hand and give the folder.",
            )
        (tmp / "tree" / MARKER).write_text(f"{dsc}\n", encoding="utf-8")
        os.replace(tmp / "tree", dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
