"""``--set KEY=VALUE`` and profile ``set`` tables: parsing, and checking each name against
the variables the tree's build reads (its CMake options, PyTorch's build variables, an
extension's ``setup.py``)."""

from __future__ import annotations

from ... import knowledge
from ...errors import ConflictingOptionsError, UnknownOptionError
from ...facts.model import Facts
from .model import did_you_mean


def _allowed_keys(facts: Facts, kind: str) -> tuple[set[str], set[str], dict[str, str]]:
    """(known names, names declared as CMake options, forbidden name -> message)."""
    doc = knowledge.load("build_env")
    names: set[str] = set()
    for row in doc.get(kind, []):
        names.update(row["names"])
    declared = {o.name for o in (facts.source.cmake_options if facts.source else [])}
    if kind == "extension" and facts.source:
        names.update(facts.source.env_vars)
    forbidden = {row["name"]: row["message"] for row in doc.get("forbidden", [])} if kind == "pytorch" else {}
    return names | declared, declared, forbidden


def _check_key(key: str, kind: str, known: set[str], forbidden: dict[str, str], have_options: bool) -> None:
    if key in forbidden:
        raise ConflictingOptionsError(
            f"--set {key}: {forbidden[key]}", fix=f"drop {key}; torchbuild and setup.py set it."
        )
    if key in known:
        return
    if kind == "pytorch" and key.startswith("CMAKE_"):
        return  # CMAKE_* is forwarded verbatim (PyTorch's tools/setup_helpers/cmake.py)
    if kind == "pytorch" and not have_options and key.startswith(("USE_", "BUILD_")):
        return  # the tree declared no options we could read: cannot check
    where = (
        "this tree's CMakeLists.txt options or the variables PyTorch's build reads"
        if kind == "pytorch"
        else "the variables this package's setup.py or torch.utils.cpp_extension read"
    )
    raise UnknownOptionError(
        f"unknown option {key!r}: not among {where}.{did_you_mean(key, known)}",
        fix="check the spelling; `torchbuild plan --explain` lists the tree's options.",
    )


def _platform_vars(facts: Facts) -> dict[str, bool]:
    system = facts.os.system
    machine = (facts.os.machine or "").lower()
    return {
        "UNIX": system in ("Linux", "Darwin"),
        "LINUX": system == "Linux",
        "APPLE": system == "Darwin",
        "WIN32": system == "Windows",
        "MSVC": system == "Windows",
        "CPU_INTEL": machine in ("x86_64", "amd64", "i686"),
        "CPU_AARCH64": machine in ("aarch64", "arm64"),
        "CPU_POWER": machine.startswith("ppc64"),
        "INTERN_BUILD_MOBILE": False,
    }
