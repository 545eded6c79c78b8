"""Doctor checks that need the PyTorch release a tree is: its CUDA toolkits, the minimums the tree
itself states (Python, GCC), and its third-party components (complete tree, or system copies
that are new enough).  Pure; called by :func:`torchbuild.decisions.doctor.check`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..facts.model import Facts
from ..knowledge.compat import version_lt
from .components import SourceReport, check_components, known_release
from .workarounds import select_workarounds, worked_around

if TYPE_CHECKING:
    from .doctor import Finding

__all__ = ["release_findings"]


def release_findings(
    facts: Facts,
    *,
    kind: str | None,
    target: str | None,
    target_from: str,
    rel: Any,
    cuda_on: bool,
    system_libs: bool = False,
    options: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Findings for a PyTorch tree (or ``--target``) judged against its release.

    :param kind: ``"pytorch"``, ``"extension"`` or None (only ``"pytorch"`` is judged here).
    :param target: major.minor of the release; ``target_from`` says where that came from.
    :param rel: :class:`torchbuild.knowledge.compat.ReleaseFacts` of ``target`` or None.
    :param cuda_on: the build will compile CUDA.
    :param system_libs: the build uses system copies of missing components (``--system-libs``).
    :param options: the plan's ``USE_*`` values, when a plan exists.
    :returns: findings with check ids ``cuda_toolkit``, ``python``, ``compiler``, ``submodules``,
        ``system_libs``.
    """
    from .doctor import Finding

    out: list[Finding] = []
    if kind != "pytorch":
        return out
    src = facts.source
    # CUDA toolkit against the release ------------------------------------------------
    tk = facts.cuda
    if cuda_on and tk is not None and tk.version and rel is not None and rel.cuda:
        stable = list(rel.cuda.get("stable", []))
        experimental = list(rel.cuda.get("experimental", []))
        mm = ".".join(tk.version.split(".")[:2])
        if mm not in stable + experimental:
            listed = ", ".join(stable) + (f" (experimental: {', '.join(experimental)})" if experimental else "")
            out.append(
                Finding(
                    "cuda_toolkit",
                    "error",
                    f"CUDA {tk.version} ({tk.home}) is not a toolkit PyTorch {target} supports ({target_from}); "
                    f"its release supports CUDA {listed} [{rel.cuda.get('source', '')}].",
                    f"install CUDA {stable[-1] if stable else 'a supported toolkit'} and export "
                    f"CUDA_HOME=/usr/local/cuda-{stable[-1] if stable else 'X.Y'}, or build without CUDA (--no-cuda)",
                )
            )
        elif mm in experimental:
            out.append(
                Finding(
                    "cuda_toolkit",
                    "warning",
                    f"CUDA {tk.version} is experimental for PyTorch {target} [{rel.cuda.get('source', '')}].",
                    f"for a supported build use CUDA {', '.join(stable)}",
                )
            )
    if src is None:
        return out
    # minimums the tree itself states ---------------------------------------------------
    py = facts.python
    if src.python_minimum and py.version and version_lt(py.version, src.python_minimum):
        out.append(
            Finding(
                "python",
                "error",
                f"Python {py.version} ({py.executable}) is older than this tree's setup.py requires "
                f"(python_min_version {src.python_minimum}).",
                f"create a venv with Python {src.python_minimum} or newer and pass --python",
            )
        )
    cxx = facts.cxx
    if (
        src.gcc_minimum
        and cxx is not None
        and cxx.kind == "gcc"
        and cxx.version
        and version_lt(cxx.version, src.gcc_minimum)
    ):
        out.append(
            Finding(
                "compiler",
                "error",
                f"GCC {cxx.version} ({cxx.path}) is older than this tree's CMakeLists.txt accepts "
                f"('GCC-{src.gcc_minimum} or newer is required to compile PyTorch').",
                f"install g++-{src.gcc_minimum.split('.')[0]} or newer and export CXX=g++-N CC=gcc-N",
            )
        )
    # third-party components --------------------------------------------------------------
    release = known_release(src.version)
    if release is None:
        return out
    opts = dict(options or {})
    opts.setdefault("USE_CUDA", "ON" if cuda_on else "OFF")
    cmake = facts.tools.get("cmake")
    selected = select_workarounds(
        release,
        src,
        facts.system_libs,
        system_libs=system_libs,
        cmake_version=cmake.version if cmake is not None else None,
    )
    covered = worked_around(selected)
    report = check_components(
        src,
        release,
        system_libs=system_libs,
        libs=facts.system_libs,
        options=opts,
        python=py.executable or "python",
        is_root=facts.os.root is True,
        worked_around=covered,
    )
    out.extend(_component_findings(report, src.path))
    return out


def _component_findings(report: SourceReport, tree: str) -> list[Finding]:
    from .doctor import Finding

    out: list[Finding] = []
    missing = [c for c in report.components if c.state == "missing"]
    modified = [c for c in report.components if c.state == "modified"]
    debian_min = [c for c in report.components if c.state == "system" and c.min_version]
    if debian_min:
        out.append(
            Finding(
                "system_libs",
                "warning",
                "system copies older than Debian's PyTorch package asks for (no failure known to torchbuild; "
                "a compile error in them is the first thing to suspect): "
                + ", ".join(f"{c.provider.removeprefix('apt: ')} < {c.min_version}" for c in debian_min)
                + ".",
                "install newer packages if the build fails there (the record names these versions)",
            )
        )
    old = [c for c in report.components if c.state in ("too-old", "worked-around")]
    if missing:
        names = ", ".join(f"{c.path}" + (f" ({c.feature})" if c.feature else "") for c in missing)
        ways = []
        if report.git:
            ways.append(f"fetch them: git -C {tree} submodule update --init --recursive")
        else:
            ways.append(
                "fetch them: clone each component's repository at the release's commit into its path "
                "(torchbuild source check --json lists repo and commit), or unpack a source archive that "
                "includes them"
            )
        sysable = [c for c in missing if c.system_switch]
        if sysable and not report.system_libs:
            ways.append(
                f"build against system libraries: --system-libs ({len(sysable)} of them have a USE_SYSTEM_* switch)"
            )
        if report.install_commands:
            ways.append("install the system packages: " + " && ".join(report.install_commands))
        feats = sorted(
            {
                f.strip()
                for c in missing
                for f in (c.feature.split("&")[-1:] if "&" in c.feature else c.feature.split("|"))
                if f.strip()
            }
        )
        if feats:
            ways.append("turn the features off: " + " ".join(f"--set {f}=0" for f in feats))
        out.append(
            Finding(
                "submodules",
                "error",
                f"{len(missing)} third-party components PyTorch {report.release} needs are missing from the "
                f"tree{' and the system' if report.system_libs else ''}: {names}. CMake would stop at the first.",
                "; or ".join(ways),
            )
        )
    if modified:
        out.append(
            Finding(
                "submodules",
                "warning",
                f"{len(modified)} submodules are at other commits than the tree records: "
                + ", ".join(c.path for c in modified)
                + ".",
                f"git -C {tree} submodule update --init --recursive",
            )
        )
    for c in old:
        if c.state == "worked-around":
            out.append(
                Finding(
                    "system_libs",
                    "warning",
                    f"{c.name}: {c.detail} before the build (plan --explain lists it).",
                    f"upgrade {c.provider.split()[1] if c.provider.startswith('apt:') else c.name} to "
                    f"{c.min_version} or newer to build without it",
                )
            )
        else:
            pkg = c.provider.split()[1] if c.provider.startswith("apt:") else c.name
            out.append(
                Finding(
                    "system_libs",
                    "error",
                    f"{c.name}: {c.detail}; the compile would fail on what the newer version declares. "
                    "Stopped before compiling.",
                    f"install {pkg} {c.min_version} or newer, or let the build use the tree's own copy "
                    f"(put {c.path} in place and drop --system-libs for it: --set {c.system_switch}=OFF)",
                )
            )
    return out
