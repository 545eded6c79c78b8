"""What a source tree is and what it needs, read from its files (and ``git``).

* kind: ``pytorch`` when the tree has ``version.txt``, ``c10/``, ``torch/`` and a
  ``setup.py`` or ``pyproject.toml``; ``extension`` when its
  ``setup.py`` uses ``torch.utils.cpp_extension`` or its ``CMakeLists.txt`` calls
  ``find_package(Torch ...)``; else ``unknown``.
* front end: ``setup.py`` (PyTorch <= 2.13 and most extensions), ``scikit-build-core``
  (PyTorch >= 2.14: no ``setup.py``, ``pyproject.toml`` only), ``cmake``.
* name and version: ``PKG-INFO`` (sdist), ``pyproject.toml`` ``[project]``, ``version.txt``,
  ``setup.py``'s ``name=``/``version=``/``__version__``; a pytorch tree's version is
  ``version.txt`` plus ``+git<sha7>`` (as PyTorch's build names it).
* submodules: ``.gitmodules`` (``path =`` lines, as PyTorch's setup.py reads them), present
  when the folder has any entry, state as ``git submodule status`` reports it (``-`` = not
  initialised, ``+`` = checked out at another commit, ``U`` = conflict), found without its
  cost: ``git submodule status`` runs a shell script and ``git describe`` per submodule
  (0.35 s for 35 submodules on the 2-core test machine, every doctor/plan/build), while
  :func:`submodule_states` asks ``git ls-files --stage`` once and reads each checkout's
  ``HEAD`` (see its docstring).
* CMake: ``option(NAME "doc" DEFAULT)``, ``cmake_dependent_option(NAME "doc" DEFAULT "COND"
  FORCE)`` and ``cmake_minimum_required(VERSION X)`` of the top ``CMakeLists.txt``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ._util import read_text, run
from .model import CMakeOption, SourceTree, Submodule
from .tree_needs import (  # noqa: F401  (re-exported: the probe's parsers)
    cmake_third_party_refs,
    non_empty_dirs,
    parse_flatbuffers_assert,
    parse_gcc_minimum,
    parse_python_minimum,
    tree_requirements,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "probe_source",
    "parse_gitmodules",
    "parse_cmake_options",
    "parse_cmake_minimum",
    "parse_submodule_status",
    "parse_ls_files_stage",
    "submodule_states",
    "cmake_commands",
    "setup_env_vars",
]

_SKIP_DIRS = {".git", "build", "dist", "node_modules", ".torchbuild", "__pycache__", ".tox", ".venv", "venv"}
_WALK_LIMIT = 20000


# ---------------------------------------------------------------- CMake language
def _strip_comments(text: str) -> str:
    """Remove ``#`` line comments and ``#[[ ]]`` bracket comments outside quoted arguments."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif c == "#":
            m = re.match(r"#\[(=*)\[", text[i:])
            if m:
                end = text.find("]" + m.group(1) + "]", i)
                i = n if end == -1 else end + len(m.group(1)) + 2
            else:
                end = text.find("\n", i)
                i = n if end == -1 else end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _split_args(body: str) -> list[str]:
    """CMake arguments of one command body: quoted (unescaped), bracket or unquoted words."""
    args: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and body[j] != '"':
                if body[j] == "\\" and j + 1 < n:
                    buf.append(body[j + 1])
                    j += 2
                else:
                    buf.append(body[j])
                    j += 1
            args.append("".join(buf))
            i = j + 1
        else:
            j, depth = i, 0
            while j < n and not (body[j].isspace() and depth == 0):
                if body[j] == "(":
                    depth += 1
                elif body[j] == ")":
                    depth -= 1
                j += 1
            args.append(body[i:j])
            i = j
    return args


def cmake_commands(text: str, names: set[str]) -> list[tuple[str, list[str]]]:
    """Every call of the commands ``names`` (lower case) in CMake ``text``: (name, args)."""
    clean = _strip_comments(text)
    out: list[tuple[str, list[str]]] = []
    pattern = re.compile(r"(?:^|(?<=[\s;)]))([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)
    for m in pattern.finditer(clean):
        name = m.group(1).lower()
        if name not in names:
            continue
        i, depth, in_q = m.end(), 1, False
        while i < len(clean) and depth:
            ch = clean[i]
            if ch == '"' and clean[i - 1] != "\\":
                in_q = not in_q
            elif not in_q:
                depth += ch == "("
                depth -= ch == ")"
            i += 1
        out.append((name, _split_args(clean[m.end() : i - 1])))
    return out


def parse_cmake_options(text: str) -> list[CMakeOption]:
    """The ``option`` and ``cmake_dependent_option`` declarations of a CMakeLists.txt, in order
    (a name declared twice keeps its first declaration)."""
    opts: list[CMakeOption] = []
    seen: set[str] = set()
    for name, args in cmake_commands(text, {"option", "cmake_dependent_option"}):
        if not args or args[0] in seen or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args[0]):
            continue
        if name == "option" and len(args) >= 2:
            opts.append(CMakeOption(name=args[0], description=args[1], default=args[2] if len(args) >= 3 else "OFF"))
        elif name == "cmake_dependent_option" and len(args) >= 5:
            opts.append(
                CMakeOption(name=args[0], description=args[1], default=args[2], condition=args[3], forced=args[4])
            )
        else:
            continue
        seen.add(args[0])
    return opts


def parse_cmake_minimum(text: str) -> str | None:
    """``X.Y[.Z]`` from the first ``cmake_minimum_required(VERSION X[...Y])``, or None."""
    for _, args in cmake_commands(text, {"cmake_minimum_required"}):
        for i, a in enumerate(args):
            if a.upper() == "VERSION" and i + 1 < len(args):
                m = re.match(r"(\d+(?:\.\d+)*)", args[i + 1])
                if m:
                    return m.group(1)
    return None


# ---------------------------------------------------------------- git
def parse_gitmodules(text: str) -> list[Submodule]:
    """Submodules declared in a ``.gitmodules`` file (git-config syntax), in file order."""
    subs: list[Submodule] = []
    cur: Submodule | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        m = re.match(r'\[submodule\s+"(.*)"\s*\]$', line)
        if m:
            cur = Submodule(name=m.group(1))
            subs.append(cur)
            continue
        if line.startswith("["):
            cur = None
            continue
        if cur is not None and "=" in line:
            key, _, value = line.partition("=")
            key, value = key.strip().lower(), value.strip().strip('"')
            if key == "path":
                cur.path = value
            elif key == "url":
                cur.url = value
    for s in subs:
        s.path = s.path or s.name
    return subs


def parse_submodule_status(text: str) -> dict[str, tuple[str, str]]:
    """``git submodule status`` lines -> {path: (state, sha)}; state ``ok``/``uninitialized``/
    ``modified``/``conflict``."""
    states = {" ": "ok", "-": "uninitialized", "+": "modified", "U": "conflict"}
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        m = re.match(r"^([ \-+U])([0-9a-f]{7,64})\s+(\S+)", line)
        if m:
            out[m.group(3)] = (states[m.group(1)], m.group(2))
    return out


def parse_ls_files_stage(text: str) -> dict[str, tuple[str, int]]:
    """``git ls-files --stage -z`` output -> {path: (recorded sha, highest stage)} of the
    gitlinks (mode ``160000``, i.e. submodules).  Entries are ``<mode> SP <object> SP
    <stage> TAB <path> NUL`` (git-ls-files(1), "Output"); a stage above 0 is a merge
    conflict."""
    out: dict[str, tuple[str, int]] = {}
    for entry in text.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[0] == "160000" and path:
            sha, stage = parts[1], int(parts[2]) if parts[2].isdigit() else 0
            old = out.get(path)
            out[path] = (sha if old is None or stage == 0 else old[0], max(stage, old[1] if old else 0))
    return out


_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def _checked_out_sha(folder: Path) -> str | None:
    """The commit a submodule checkout is at, read as git lays it out
    (gitrepository-layout(5)): ``<folder>/.git`` is the repository or a ``gitdir: PATH``
    file; its ``HEAD`` holds the commit (a detached HEAD, what ``git submodule update``
    leaves) or ``ref: REF``, resolved through the loose ref file or ``packed-refs``
    (of the ``commondir`` for a worktree).  Anything else (e.g. the reftable format) is
    asked of git itself: ``git -C FOLDER rev-parse HEAD``."""
    dotgit = folder / ".git"
    gitdir: Path | None = dotgit if dotgit.is_dir() else None
    if gitdir is None:
        text = read_text(dotgit, limit=4096) or ""
        m = re.match(r"gitdir:\s*(.+?)\s*$", text.strip())
        if m:
            gitdir = Path(m.group(1)) if os.path.isabs(m.group(1)) else folder / m.group(1)
    head = (read_text(gitdir / "HEAD", limit=4096) or "").strip() if gitdir else ""
    if _SHA.fullmatch(head):
        return head
    m = re.fullmatch(r"ref:\s*(refs/\S+)", head)
    if gitdir is not None and m and m.group(1) != "refs/heads/.invalid":  # .invalid: reftable
        ref = m.group(1)
        common_rel = (read_text(gitdir / "commondir", limit=4096) or "").strip()
        common = (gitdir / common_rel) if common_rel else gitdir
        for d in (gitdir, common):
            sha = (read_text(d / ref, limit=4096) or "").strip()
            if _SHA.fullmatch(sha):
                return sha
        for line in (read_text(common / "packed-refs") or "").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref and _SHA.fullmatch(parts[0]):
                return parts[0]
    out = _git(folder, "rev-parse", "HEAD")
    sha = out.strip() if out else ""
    return sha if _SHA.fullmatch(sha) else None


def _ls_files_args(paths: list[str]) -> list[str]:
    """``ls-files --stage -z -- :(literal)PATH...``: the paths as they are, never as globs
    (gitglossary(7), "pathspec")."""
    return ["ls-files", "--stage", "-z", "--", *(f":(literal){p}" for p in paths)]


def submodule_states(root: Path, paths: list[str]) -> dict[str, tuple[str, str]]:
    """{path: (state, sha)} for the submodules at ``paths``, as ``git submodule status``
    would report them (:func:`parse_submodule_status`): ``uninitialized`` with the
    recorded commit when the folder has no ``.git``; ``conflict`` with 40 zeros for an
    unmerged gitlink; else the checked-out commit, ``ok`` when it is the recorded one and
    ``modified`` when not.  Paths that are no gitlink in the index are left out (git
    leaves them out too).  One ``git ls-files --stage`` for the whole tree.  (git also
    says ``-`` for a checkout whose submodule was made inactive in ``.git/config`` while
    its files stay; here that is ``ok``/``modified``: the files a build needs are there.)"""
    listing = _git(root, *_ls_files_args(paths)) if paths else None
    if listing is None:
        return {}
    out: dict[str, tuple[str, str]] = {}
    for path, (recorded, stage) in parse_ls_files_stage(listing).items():
        folder = root / path
        if stage > 0:
            out[path] = ("conflict", "0" * 40)
        elif not (folder / ".git").exists():
            out[path] = ("uninitialized", recorded)
        else:
            sha = _checked_out_sha(folder)
            if sha is None:
                continue
            out[path] = ("ok" if sha == recorded else "modified", sha)
    return out


def _has_content(folder: Path) -> bool:
    try:
        return any(folder.iterdir())
    except OSError:
        return False


def git_argv(root: Path, *args: str) -> list[str]:
    """``git -C ROOT ARGS...``: how the source probe asks git."""
    return ["git", "-C", str(root), *args]


def git_questions(root: Path) -> list[list[str]]:
    """The git commands :func:`probe_source` will run for ``root`` (for
    :func:`torchbuild.facts.start_slow_probes`)."""
    if not (root / ".git").exists():
        return []
    cmds = [git_argv(root, "rev-parse", "HEAD")]
    gitmodules = read_text(root / ".gitmodules")
    if gitmodules:
        paths = [s.path for s in parse_gitmodules(gitmodules)]
        if paths:
            cmds.append(git_argv(root, *_ls_files_args(paths)))
    return cmds


def _git(root: Path, *args: str) -> str | None:
    out = run(git_argv(root, *args), timeout=20)
    return out.stdout if out is not None and out.returncode == 0 else None


# ---------------------------------------------------------------- Python build scripts
_ENV_PATTERNS = [
    r"os\.environ\.get\(\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]",
    r"os\.getenv\(\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]",
    r"os\.environ\[\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]\s*\]",
    r"['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]\s+(?:not\s+)?in\s+os\.environ",
    r"environ\.get\(\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]",
]


def setup_env_vars(text: str) -> list[str]:
    """Environment variables a build script reads (``os.environ.get("FORCE_CUDA")``,
    ``os.getenv``, ``os.environ[...]``, ``"X" in os.environ``), sorted, unique."""
    found: set[str] = set()
    for pat in _ENV_PATTERNS:
        found.update(re.findall(pat, text))
    return sorted(found)


def _pyproject(root: Path) -> dict:
    text = read_text(root / "pyproject.toml")
    if not text:
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _pkg_info(root: Path) -> tuple[str | None, str | None]:
    text = read_text(root / "PKG-INFO", limit=65536)
    if not text:
        return None, None
    name = re.search(r"^Name:\s*(\S+)", text, re.MULTILINE)
    ver = re.search(r"^Version:\s*(\S+)", text, re.MULTILINE)
    return (name.group(1) if name else None), (ver.group(1) if ver else None)


def _has_cuda_sources(root: Path) -> bool:
    seen = 0
    for _dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")]
        for f in filenames:
            if f.endswith((".cu", ".cuh")):
                return True
        seen += len(filenames) + len(dirnames)
        if seen > _WALK_LIMIT:
            break
    return False


# ---------------------------------------------------------------- the probe
def probe_source(path: Path) -> SourceTree:
    """Describe the tree at ``path`` (an existing folder).  Never raises for odd content:
    what cannot be read stays None/empty and ``kind`` says ``unknown``."""
    root = path.resolve()
    tree = SourceTree(path=str(root))
    setup_py = read_text(root / "setup.py")
    cmake_text = read_text(root / "CMakeLists.txt", limit=4 << 20)
    pyproject = _pyproject(root)
    version_txt = (read_text(root / "version.txt") or "").strip() or None
    is_git = (root / ".git").exists()

    tree.build_requires = list(pyproject.get("build-system", {}).get("requires", []) or [])
    if version_txt and (root / "c10").is_dir() and (root / "torch").is_dir() and (setup_py is not None or pyproject):
        tree.kind, tree.name = "pytorch", "torch"
        tree.backend = "setup.py" if setup_py is not None else "scikit-build-core"
        tree.has_cuda_sources = (root / "aten" / "src" / "ATen" / "native" / "cuda").is_dir()
    else:
        uses_ext = bool(setup_py and re.search(r"cpp_extension|CUDAExtension|CppExtension|BuildExtension", setup_py))
        finds_torch = bool(cmake_text and re.search(r"find_package\s*\(\s*Torch\b", cmake_text, re.IGNORECASE))
        if uses_ext or finds_torch:
            tree.kind = "extension"
            tree.uses_cpp_extension = uses_ext
            if setup_py is not None:
                tree.backend = "setup.py"
            elif "scikit_build_core" in str(pyproject.get("build-system", {}).get("build-backend", "")):
                tree.backend = "scikit-build-core"
            else:
                tree.backend = "cmake"
            tree.has_cuda_sources = _has_cuda_sources(root)
        if setup_py:
            tree.disables_ninja = bool(re.search(r"use_ninja\s*=\s*False", setup_py))
            tree.env_vars = setup_env_vars(setup_py)
        name, version = _pkg_info(root)
        project = pyproject.get("project", {}) or {}
        name = name or project.get("name")
        version = version or (project.get("version") if isinstance(project.get("version"), str) else None)
        if setup_py:
            name = name or (re.search(r"\bname\s*=\s*['\"]([^'\"]+)['\"]", setup_py) or [None, None])[1]
            version = (
                version
                or (re.search(r"\b(?:__version__|version)\s*=\s*['\"](\d[^'\"]*)['\"]", setup_py) or [None, None])[1]
            )
        tree.name, tree.version = name, version or version_txt

    if cmake_text:
        tree.cmake_minimum_required = parse_cmake_minimum(cmake_text)
        if tree.kind == "pytorch":
            tree.cmake_options = parse_cmake_options(cmake_text)

    if tree.kind == "pytorch":
        env_py = read_text(root / "tools" / "setup_helpers" / "env.py")
        m = re.search(r"^CMAKE_MINIMUM_VERSION_STRING\s*=\s*['\"](\d+(?:\.\d+)+)['\"]", env_py or "", re.M)
        tree.setup_cmake_minimum = m.group(1) if m else None

    if tree.kind == "pytorch":
        tree_requirements(root, tree, setup_py, cmake_text)

    gitmodules = read_text(root / ".gitmodules")
    if gitmodules:
        tree.submodules = parse_gitmodules(gitmodules)
        for s in tree.submodules:
            s.present = _has_content(root / s.path)
        if is_git and tree.submodules:
            states = submodule_states(root, [s.path for s in tree.submodules])
            for s in tree.submodules:
                if s.path in states:
                    s.state, s.sha = states[s.path]
    if is_git:
        sha = _git(root, "rev-parse", "HEAD")
        tree.git_sha = sha.strip() if sha and re.fullmatch(r"[0-9a-f]{40,64}", sha.strip()) else None
    if tree.kind == "pytorch" and version_txt:  # a pytorch tree always has its version.txt
        tree.version = version_txt + (f"+git{tree.git_sha[:7]}" if tree.git_sha else "")
    return tree
