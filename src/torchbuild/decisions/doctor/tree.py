"""Checks of the source tree: submodules, and for an extension the installed torch (CUDA,
arch list, C++ ABI) and pip's build isolation."""

from __future__ import annotations

import re

from ...facts.model import Facts
from ...knowledge import compat
from ...knowledge.compat import major_minor, vkey
from .base import Finding


def _check_submodules(facts: Facts, out: list[Finding]) -> None:
    src = facts.source
    if src is None or not src.submodules:
        return
    missing = [s for s in src.submodules if not s.present]
    if missing:
        names = ", ".join(s.path for s in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        if src.git_sha is not None:
            fix = f"git -C {src.path} submodule update --init --recursive"
        else:
            fix = (
                "this tree is not a git checkout: download a source archive that includes submodules "
                "(the 'pytorch-vX.Y.Z.tar.gz' release asset) or clone with git clone --recursive"
            )
        out.append(
            Finding(
                "submodules",
                "error",
                f"{len(missing)} of {len(src.submodules)} submodules are missing or empty: {names}. The build "
                "would stop with 'Could not find any of CMakeLists.txt, Makefile, setup.py, LICENSE...'.",
                fix,
            )
        )
    modified = [s.path for s in src.submodules if s.present and s.state == "modified"]
    if modified:
        out.append(
            Finding(
                "submodules",
                "warning",
                f"{len(modified)} submodules are checked out at other commits than the tree records: "
                f"{', '.join(modified[:5])}.",
                f"git -C {src.path} submodule update --init --recursive",
            )
        )


def _check_extension(facts: Facts, out: list[Finding], cuda: bool, wants_cuda: bool | None, arches: list[str]) -> None:
    src, torch = facts.source, facts.torch
    if src is None:  # kind "extension" comes from the source tree: never None here
        return
    py = facts.python.executable or "python"
    if torch is None or not torch.version:
        out.append(
            Finding(
                "torch",
                "error",
                f"torch is not installed in {py}: an extension builds against the installed torch.",
                f"{py} -m pip install torch",
            )
        )
        return
    out.append(Finding("torch", "note", f"Building against torch {torch.version} at {torch.location}.", None))
    if src.has_cuda_sources and not torch.cuda and wants_cuda is not False:
        sev = "error" if wants_cuda else "note"
        out.append(
            Finding(
                "torch_cuda",
                sev,
                f"torch {torch.version} is a CPU-only build (torch.version.cuda is None), so its CUDA "
                f"extension parts {'cannot be built' if wants_cuda else 'will be skipped: a CPU-only build'}.",
                f"{py} -m pip install --force-reinstall torch=={(torch.version or '').split('+')[0]} "
                "--index-url https://download.pytorch.org/whl/"
                f"cu{(facts.cuda.version or '').replace('.', '') if facts.cuda and facts.cuda.version else '130'}",
            )
        )
    tk = facts.cuda
    if cuda and torch.cuda and tk is not None and tk.version:
        t_mm, k_mm = major_minor(torch.cuda) or torch.cuda, major_minor(tk.version) or tk.version
        if vkey(t_mm)[0] != vkey(k_mm)[0]:
            out.append(
                Finding(
                    "torch_cuda",
                    "error",
                    f"torch {torch.version} was built with CUDA {torch.cuda}, but the toolkit that would "
                    f"compile ({tk.home}) is CUDA {tk.version}: cpp_extension stops with 'The detected CUDA "
                    "version mismatches the version that was used to compile PyTorch'.",
                    f"install CUDA {t_mm} and export CUDA_HOME=/usr/local/cuda-{t_mm}, or install torch built "
                    f"for CUDA {k_mm} ({py} -m pip install torch --index-url "
                    f"https://download.pytorch.org/whl/cu{k_mm.replace('.', '')})",
                )
            )
        elif t_mm != k_mm:
            out.append(
                Finding(
                    "torch_cuda",
                    "warning",
                    f"torch was built with CUDA {torch.cuda}, the toolkit is CUDA {tk.version}: a minor version "
                    "mismatch (cpp_extension warns; usually fine).",
                    f"use CUDA {t_mm} to match exactly (export CUDA_HOME=/usr/local/cuda-{t_mm})",
                )
            )
    if cuda and arches and torch.version:
        ext = compat.torch_release(torch.version).extension_arches
        if ext:
            bad = [a for a in arches if a not in ext["arches"]]
            if bad:
                out.append(
                    Finding(
                        "arch_list",
                        "error",
                        f"torch {torch.version}'s cpp_extension does not know {', '.join(bad)}: it raises "
                        f"'ValueError: Unknown CUDA arch ({bad[0]}) or GPU not supported' before compiling.",
                        f"use only {', '.join(ext['arches'])} (drop {', '.join(bad)})",
                    )
                )
    if torch.cxx11_abi is not None:
        flags = facts.env.get("CXXFLAGS", "") + " " + facts.env.get("CFLAGS", "")
        m = re.search(r"-D_GLIBCXX_USE_CXX11_ABI=(\d)", flags)
        want = "1" if torch.cxx11_abi else "0"
        if m and m.group(1) != want:
            out.append(
                Finding(
                    "cxx_abi",
                    "error",
                    f"CXXFLAGS sets -D_GLIBCXX_USE_CXX11_ABI={m.group(1)} but torch {torch.version} uses "
                    f"_GLIBCXX_USE_CXX11_ABI={want}: the extension would fail to load with 'undefined symbol' "
                    "errors naming std::__cxx11.",
                    "remove -D_GLIBCXX_USE_CXX11_ABI from CXXFLAGS/CFLAGS (torch adds the right one)",
                )
            )
        else:
            out.append(
                Finding(
                    "cxx_abi",
                    "note",
                    f"torch {torch.version} uses the "
                    f"{'new (cxx11abiTRUE)' if torch.cxx11_abi else 'old (cxx11abiFALSE)'} "
                    f"C++ ABI (_GLIBCXX_USE_CXX11_ABI={want}); prebuilt extension wheels must match it.",
                    None,
                )
            )
    # pip build isolation
    reqs = [re.split(r"[<>=!~;\[\s]", r, maxsplit=1)[0].lower() for r in src.build_requires]
    no_iso = facts.env.get("PIP_NO_BUILD_ISOLATION", "").lower() in ("0", "false", "no", "off")
    if "torch" in reqs and not no_iso:
        out.append(
            Finding(
                "build_isolation",
                "warning",
                f"pyproject.toml lists torch in build-system.requires: a plain 'pip install' builds in an "
                f"isolated environment with a freshly downloaded torch, not the installed {torch.version}, so "
                "the extension is compiled against a different torch (undefined symbols at import, or a "
                "CPU/CUDA mismatch). torchbuild builds with --no-build-isolation.",
                f"{py} -m pip install --no-build-isolation {src.path}",
            )
        )
    elif src.uses_cpp_extension and "torch" not in reqs and not no_iso:
        out.append(
            Finding(
                "build_isolation",
                "note",
                "setup.py imports torch but pyproject.toml does not list it in build-system.requires: with "
                "pip's default build isolation it fails with \"No module named 'torch'\". torchbuild builds "
                "with --no-build-isolation.",
                f"{py} -m pip install --no-build-isolation {src.path}",
            )
        )
