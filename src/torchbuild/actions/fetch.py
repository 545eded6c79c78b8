"""Turn SOURCE into a source tree on disk.

SOURCE is one of:

* a directory (``.``, ``/src/pytorch``, ``./vision``): used in place;
* a source archive (``.tar.gz``, ``.tar.xz``, ``.zip``) or a Debian ``.dsc``: checked, then
  unpacked next to it (or into the cache) and reused on the next run (:mod:`.unpack`);
* ``pytorch@<ref>``: ``git clone --recursive`` of github.com/pytorch/pytorch at ``ref``
  into torchbuild's cache (network needed; a clear error where there is none);
* a PyPI requirement (``torch-scatter==2.1.2``): the sdist, fetched with
  ``pip download --no-binary :all: --no-deps --no-build-isolation`` (pip's own index
  settings and mirrors apply) into ``<cache>/sdists`` and unpacked into
  ``<cache>/sources/<name>-<version>``.  An unpacked tree is reused, so a failed
  build resumes where it stopped.

The cache is ``$TORCHBUILD_CACHE`` or ``~/.cache/torchbuild``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import FetchError, GitRefError, SourceNotFoundError, UnknownPackageError, UsageError
from ..facts._util import cache_dir
from ..facts.model import SourceTree, Submodule
from ..ui import echo_command
from .unpack import is_archive, unpack_source

if TYPE_CHECKING:
    from packaging.requirements import Requirement

__all__ = [
    "PlannedFetch",
    "ResolvedSource",
    "cache_dir",
    "looks_like_path",
    "planned_fetch",
    "pytorch_dest",
    "resolve_source",
]

PYTORCH_URL = "https://github.com/pytorch/pytorch"


@dataclass
class ResolvedSource:
    """Where the tree is (``path``) and how it got there (``origin``: ``"directory"``,
    ``"pypi"``, ``"git"``), with the original ``spec`` and, for PyPI, the ``sdist`` file.
    ``planned``: for a ``pytorch@<ref>`` not fetched yet (``plan`` fetches nothing), what
    ``build`` will fetch; ``path`` is then where it will go and does not exist yet."""

    path: Path
    origin: str
    spec: str
    sdist: Path | None = None
    planned: PlannedFetch | None = None


def looks_like_path(spec: str) -> bool:
    """True when ``spec`` is meant as a path (has a separator, starts with ``.``/``~``,
    or exists)."""
    return os.sep in spec or "/" in spec or spec.startswith((".", "~")) or Path(spec).exists()


def resolve_source(spec: str, *, python: str, cache: Path | None = None) -> ResolvedSource:
    """Resolve SOURCE to a directory (fetching it when needed).

    :param spec: the SOURCE argument.
    :param python: the interpreter whose pip fetches sdists.
    :param cache: cache folder (default :func:`cache_dir`).
    :raises SourceNotFoundError: a path that does not exist (exit 2).
    :raises UsageError: a path that is a file, or a spec that is neither a path nor a
        requirement (exit 2); a PyPI name that does not exist (exit 2).
    :raises FetchError: no network / the clone or download failed (exit 3).
    """
    cache = cache or cache_dir()
    if spec.startswith("pytorch@"):
        return _clone_pytorch(spec, spec.split("@", 1)[1], cache)
    if looks_like_path(spec):
        p = Path(spec).expanduser()
        if not p.exists():
            raise SourceNotFoundError(
                f"source {spec!r} does not exist.",
                fix="give the path of a PyTorch checkout or an extension package, "
                "a PyPI requirement such as torch-scatter==2.1.2, or pytorch@<ref>.",
            )
        if p.is_file() and is_archive(p):
            from ..knowledge import compat  # the releases an archive's version must be among

            tree = unpack_source(p, cache=cache, known_releases=compat.known_releases())
            return ResolvedSource(tree, "archive", spec, sdist=p.resolve())
        if not p.is_dir():
            raise UsageError(
                f"source {spec!r} is a file, not a source tree.",
                fix="give the directory that holds setup.py or pyproject.toml, or a source archive "
                "(.tar.gz, .tar.xz, .zip, or a Debian .dsc).",
            )
        return ResolvedSource(p.resolve(), "directory", spec)
    from packaging.requirements import InvalidRequirement, Requirement  # only for PyPI specs

    try:
        req = Requirement(spec)
    except InvalidRequirement:
        raise SourceNotFoundError(
            f"source {spec!r} is neither an existing directory nor a PyPI requirement.",
            fix="give a path, a requirement such as torch-scatter==2.1.2, or pytorch@<ref>.",
        ) from None
    return _fetch_sdist(req, spec, python=python, cache=cache)


_NO_DIST = re.compile(r"No matching distribution found|Could not find a version that satisfies", re.I)
_NET = re.compile(
    r"Failed to establish a new connection|Temporary failure in name resolution|Network is unreachable|"
    r"ConnectTimeout|Max retries exceeded|Could not fetch URL",
    re.I,
)


def _fetch_sdist(req: Requirement, spec: str, *, python: str, cache: Path) -> ResolvedSource:
    pin = next((s.version for s in req.specifier if s.operator in ("==", "===")), None)
    sources = cache / "sources"
    if pin and "*" not in pin:
        existing = _find_unpacked(sources, req.name, pin)
        if existing is not None:
            return ResolvedSource(existing, "pypi", spec)
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    before = {p.name for p in sdists.iterdir()}
    argv = [
        python,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        "--no-build-isolation",
        "--disable-pip-version-check",
        "-d",
        str(sdists),
        str(req),
    ]
    echo_command(argv)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        raise FetchError(
            f"fetching {spec} from PyPI timed out after 900 s.", fix="check the network or the index, then retry."
        ) from None
    out = proc.stdout + proc.stderr
    saved = re.findall(r"(?:Saved|File was already downloaded) (\S+)", out)
    files = [Path(s) for s in saved] or [sdists / n for n in sorted({p.name for p in sdists.iterdir()} - before)]
    files = [f if f.is_absolute() else (Path.cwd() / f) for f in files]
    files = [f for f in files if f.exists() and _is_sdist(f)]
    if not files:
        if _NO_DIST.search(out):
            raise UnknownPackageError(
                f"{spec!r}: the package index has no such package or version (with an sdist).",
                fix="check the name and version on PyPI (pip index versions NAME), or give a local directory.",
            )
        if _NET.search(out):
            raise FetchError(
                f"cannot reach the package index to fetch {spec}.",
                fix="check the network or pip's index settings, or download the sdist and give its unpacked directory.",
            )
        tail = "\n".join(out.strip().splitlines()[-15:])
        raise FetchError(
            f"pip could not fetch {spec} (exit {proc.returncode}):\n{tail}",
            fix="fix the problem pip names above, then retry.",
        )
    sdist = files[0]
    path = _unpack(sdist, sources)
    return ResolvedSource(path, "pypi", spec, sdist=sdist)


def _is_sdist(p: Path) -> bool:
    return p.name.endswith((".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz"))


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _find_unpacked(sources: Path, name: str, version: str) -> Path | None:
    if not sources.is_dir():
        return None
    want = f"{_norm(name)}-{version}"
    for p in sources.iterdir():
        if (
            p.is_dir()
            and _norm(p.name.rsplit("-", 1)[0]) + "-" + p.name.rsplit("-", 1)[-1] == want
            and (p / ".torchbuild-unpacked").exists()
        ):
            return p
    return None


def _unpack(sdist: Path, sources: Path) -> Path:
    """Unpack ``sdist`` into ``sources/<top folder>``; reuse a complete earlier unpack."""
    sources.mkdir(parents=True, exist_ok=True)
    if sdist.name.endswith(".zip"):
        with zipfile.ZipFile(sdist) as zf:
            top = zf.namelist()[0].split("/")[0]
            dest = sources / top
            if not (dest / ".torchbuild-unpacked").exists():
                for member in zf.namelist():
                    target = (sources / member).resolve()
                    if not str(target).startswith(str(sources.resolve())):
                        raise FetchError(
                            f"{sdist.name} holds a path outside its folder: {member}.", fix="do not build it."
                        )
                zf.extractall(sources)
    else:
        with tarfile.open(sdist) as tf:
            names = tf.getnames()
            top = names[0].split("/")[0]
            dest = sources / top
            if not (dest / ".torchbuild-unpacked").exists():
                tf.extractall(sources, filter="data")
    (dest / ".torchbuild-unpacked").write_text(str(sdist) + "\n", encoding="utf-8")
    return dest.resolve()


_SHA = re.compile(r"[0-9a-f]{7,40}")
_NETWORK = re.compile(
    r"Could not resolve host|unable to access|Failed to connect|Connection timed out|Network is unreachable"
)


def _check_ref(spec: str, ref: str) -> None:
    if not ref or not re.fullmatch(r"[A-Za-z0-9._/\-]+", ref):
        raise UsageError(
            f"{spec!r}: {ref!r} is not a git ref.", fix="write pytorch@v2.4.0, pytorch@main or pytorch@<sha>."
        )


def pytorch_dest(ref: str, cache: Path | None = None) -> Path:
    """The folder ``pytorch@<ref>`` is cloned into: ``<cache>/sources/pytorch-<ref>``."""
    return (cache or cache_dir()) / "sources" / f"pytorch-{ref.replace('/', '_')}"


def _git(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    echo_command(argv)
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise FetchError(
            f"{' '.join(argv[:3])} ... timed out after {timeout:.0f} s.",
            fix="retry, or clone by hand and give the directory.",
        ) from None


def _last(proc: subprocess.CompletedProcess[str]) -> str:
    err = (proc.stderr or proc.stdout or "").strip().splitlines()
    return err[-1] if err else f"git exited {proc.returncode}"


def _clone_pytorch(spec: str, ref: str, cache: Path) -> ResolvedSource:
    """Clone ``PYTORCH_URL`` at ``ref`` with its submodules into :func:`pytorch_dest`.

    Every git step's exit status is checked; the clone is made in a ``.partial`` folder and
    renamed only when all of them succeeded, so a failed fetch never leaves a tree that a
    later run would build.

    :raises FetchError: the clone failed (network, unknown tag or branch), exit 3.
    :raises GitRefError: the commit ``ref`` cannot be checked out, or its submodules cannot
        be updated (exit 3): nothing is built at another commit.
    """
    _check_ref(spec, ref)
    dest = pytorch_dest(ref, cache)
    if (dest / ".git").exists():
        return ResolvedSource(dest, "git", spec)
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    is_sha = bool(_SHA.fullmatch(ref))
    argv = ["git", "clone", "--recursive", "--branch", ref, PYTORCH_URL, str(partial)]
    if is_sha:
        argv = ["git", "clone", PYTORCH_URL, str(partial)]  # submodules after the checkout, for that commit
    try:
        proc = _git(argv, 7200)
        if proc.returncode != 0:
            last = _last(proc)
            if _NETWORK.search(proc.stderr):
                raise FetchError(
                    f"cannot clone {PYTORCH_URL}: the network is not reachable from here ({last}).",
                    fix="clone it where there is network (git clone --recursive), copy it here and give the "
                    "directory, or set a mirror with git config url.<mirror>.insteadOf.",
                )
            raise FetchError(
                f"git clone of {PYTORCH_URL} at {ref} failed: {last}",
                fix="check the ref (a tag such as v2.4.0, a branch, or a commit), then retry.",
            )
        if is_sha:
            _checkout_commit(partial, ref)
        partial.rename(dest)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
    return ResolvedSource(dest, "git", spec)


def _checkout_commit(tree: Path, sha: str) -> None:
    """Check out commit ``sha`` in ``tree`` and update its submodules; every step checked."""
    proc = _git(["git", "-C", str(tree), "checkout", "--detach", sha], 600)
    if proc.returncode != 0:
        raise GitRefError(
            f"commit {sha} cannot be checked out from {PYTORCH_URL} ({_last(proc)}); nothing was built.",
            fix=f"check the SHA (git ls-remote {PYTORCH_URL}, or the commit's page on GitHub) and give a commit of "
            "pytorch/pytorch, a tag such as pytorch@v2.6.0, or a branch.",
        )
    head = _git(["git", "-C", str(tree), "rev-parse", "HEAD"], 60)
    if head.returncode != 0 or not head.stdout.strip().startswith(sha):
        raise GitRefError(
            f"after checking out {sha}, HEAD is {head.stdout.strip() or _last(head)}; nothing was built.",
            fix="give the full 40-character SHA of the commit.",
        )
    proc = _git(["git", "-C", str(tree), "submodule", "update", "--init", "--recursive"], 7200)
    if proc.returncode != 0:
        raise GitRefError(
            f"the submodules of commit {sha} could not be fetched ({_last(proc)}); nothing was built.",
            fix="check the network (or set a mirror with git config url.<mirror>.insteadOf), then retry.",
        )


@dataclass
class PlannedFetch:
    """What ``build pytorch@<ref>`` will fetch, known without running git: the ``repo`` URL,
    the ``ref``, the folder ``dest`` it goes to, the PyTorch ``release`` (``"2.6"``) whose data
    describes it, and the ``submodules`` that release lists
    (``knowledge/data/pytorch_components.toml``: name, path, repository, pinned commit or None)."""

    repo: str
    ref: str
    dest: Path
    version: str
    release: str
    submodules: list[Submodule]

    def source_tree(self) -> SourceTree:
        """The tree as the release data describes it, for planning before it is fetched: a
        pytorch tree at ``version``, built through setup.py up to 2.13 and scikit-build-core
        from 2.14 (DESIGN.md, "Source kinds"); no CMake options are known yet."""
        from ..knowledge.compat import vkey

        backend = "scikit-build-core" if vkey(self.release) >= (2, 14) else "setup.py"
        return SourceTree(
            path=str(self.dest), kind="pytorch", backend=backend, version=self.version, submodules=self.submodules
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``repo``, ``ref``, ``dest``, ``release``, ``submodules`` (name, path, url, sha)."""
        return {
            "repo": self.repo,
            "ref": self.ref,
            "dest": str(self.dest),
            "release": self.release,
            "submodules": [{"name": s.name, "path": s.path, "url": s.url, "sha": s.sha} for s in self.submodules],
        }


def planned_fetch(spec: str, cache: Path | None = None) -> PlannedFetch | None:
    """What ``build`` would fetch for SOURCE ``spec``, without running anything.

    None when ``spec`` is not ``pytorch@<ref>`` or the ref is fetched already (then the tree
    itself is read).  Sources of facts: the release tables (``pytorch_releases.toml``,
    ``pytorch_components.toml``).

    :raises UsageError: ``ref`` is not a git ref, or not a release torchbuild has data for
        (``pytorch@main``, a commit): such a tree must be fetched before it can be planned (exit 2).
    """
    if not spec.startswith("pytorch@"):
        return None
    ref = spec.split("@", 1)[1]
    _check_ref(spec, ref)
    dest = pytorch_dest(ref, cache)
    if (dest / ".git").exists():
        return None
    from ..knowledge import compat, components

    m = re.fullmatch(r"v?(\d+\.\d+(?:\.\d+)?)(?:-?rc\d+)?", ref)
    version = m.group(1) if m else ""
    release = compat.major_minor(version) if version else None
    if release is None or not (components.components_for(release) or compat.torch_release(release).known):
        raise UsageError(
            f"{spec!r} is not fetched yet and torchbuild has no release data for {ref!r}, so it cannot plan it "
            "without fetching (plan runs nothing).",
            fix=f"run 'torchbuild build {spec}' (it fetches the tree first), or clone it and plan the folder; "
            "a release tag such as pytorch@v2.6.0 plans from the release data.",
        )
    subs = []
    for c in components.components_for(release):
        pin = components.pin_for(c.name, release)
        subs.append(Submodule(name=c.name, path=c.path, url=c.repo or None, sha=(pin.commit or None) if pin else None))
    return PlannedFetch(PYTORCH_URL, ref, dest, version, release, subs)
