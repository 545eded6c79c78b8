"""Reasoning rules for installing packages (pure): what pip's and uv's resolvers printed decides between a
dependency problem and the build or import failure that follows it: a dependency conflict before (or as) the
first error, an installer that replaced torch under an extension, a resolver that found no torch wheel for the
interpreter's platform, torch missing from pip's isolated build environment or from the Python that ran a
program.  Each rule takes the root cause, the other causes, the log's context and its signature hits and returns
the new cause list with notes, or None (the shape of :mod:`torchbuild.decisions.diagnose_rules_build`)."""

from __future__ import annotations

from collections.abc import Sequence

from .diagnose_context import LogContext
from .diagnose_rules_common import (
    UNDECIDED_CAP,
    CauseFor,
    SignatureHit,
    Verdict,
    _as,
    _cap,
    _CauseLike,
    _first_ahead,
    _hit_cause,
    _hit_first,
    _unknown,
)

#: Causes that a pip dependency conflict printed before them explains (:func:`_conflict_before`,
#: :func:`_conflict_first`).
_SYMPTOMS = {
    "blas_not_found",
    "torch_extension_mismatch",
    "cxx_abi_mismatch",
    "shared_library_not_found",
    "numpy_abi_mismatch",
    "system_library_missing",
}


def _torch_replaced_by_installer(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A torch that does not fit an extension (another torch, a CPU-only torch) in a log where an installer
    removed torch: installing another package replaced the torch the environment had (its requirements pin
    another torch, or pull the CPU build), and the extension fits the old one.  The replacement is the
    likelier root, below 0.7 (a user who reinstalled torch by hand prints the same), the symptom second.
    Sources: MrForExample/ComfyUI-3D-Pack#341 (its installer replaced torch 2.4.0+cu121 by a CPU build),
    thousandbrainsproject/tbp.monty#385 (pip replaced conda's torch 1.11), sdbds/musubi-tuner-scripts#4
    (installing lycoris upgraded torch 2.5.1 to 2.6.0 under xformers built for 2.5.1)."""
    if not ctx.torch_removed or root.cause_id not in ("torch_extension_mismatch", "torch_cpu_only"):
        return None
    was = ctx.torch_removed[0]
    conflict = _as(
        root,
        "dependency_version_conflict",
        0.65,
        f"An installer in this log removed torch {was} to satisfy another package's requirements, and what fails "
        "now fits the torch that was there before: the dependency resolution replaced torch.",
        f"Reinstall the torch you had (pip install torch=={was} with its index URL), then install the other package "
        "without letting it change torch (pin torch in a constraints file: pip install -c constraints.txt ..., or "
        "--no-deps), or use the release of that package made for your torch.",
        "https://github.com/MrForExample/ComfyUI-3D-Pack/issues/341",
    )
    return _first_ahead(
        conflict,
        root,
        rest,
        f"torch {was} was uninstalled by an installer in this log: the failure may be the replaced torch, not the "
        "extension.",
    )


def _no_wheel_for_this_platform(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """uv's "requirements are unsatisfiable" because torch has no wheel for this interpreter's platform tag (a line
    that uv wraps above the conclusion): not two requirements in conflict, but a platform torch does not publish
    for (an x86_64 Python under Rosetta on Apple Silicon: vllm-project/vllm-metal#379, batch 158 held-out, seen
    after session 27's measurement; a Python version without wheels)."""
    if root.signature == "uv-requirements-unsatisfiable" and ctx.torch_no_platform_wheel:
        return [
            _unknown(
                root,
                "The resolver found no torch wheel for this interpreter's platform tag: torch publishes no build for "
                "it (an x86_64 Python under Rosetta on an Apple Silicon Mac, or a Python version torch has no "
                "wheels for yet), which none of torchbuild's causes names.",
                "Use an interpreter of a platform torch publishes wheels for (the hint lists them): a native arm64 "
                "Python on Apple Silicon (python -c 'import platform; print(platform.machine())' says arm64), or a "
                "Python version that torch release supports.",
            ),
            *rest,
        ], ["torch has no wheel for this platform: a question of the interpreter, not of conflicting requirements."]
    return None


#: conda's and libmamba's "could not solve" signatures, which say that the solver failed, not why.
_CONDA_SOLVER_SIGNATURES = frozenset(
    {"conda-unsatisfiable", "conda-unsatisfiable-with-your-system", "libmamba-could-not-solve"}
)


def _solver_blocked_by_glibc(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """conda's solver failed, and among its problems it says that nothing provides the __glibc a package needs: the
    machine's glibc (conda's virtual package) is older than that package's build, the root; the solver's failure
    comes second (ArcInstitute/evo2#130: TransformerEngine 1.13's cusparselt needs __glibc >=2.28 on Amazon Linux;
    issue 11 batch 815 held-out, read after session 50's round A measurement)."""
    return _hit_first(
        root,
        rest,
        hits,
        cause_for,
        roots=_CONDA_SOLVER_SIGNATURES,
        hit="conda-nothing-provides-glibc",
        note="The solver's problem on line {line} is this machine's glibc, not two packages' pins.",
    )


def _conflict_before(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """pip reported a dependency conflict earlier: the failure that follows is its symptom (a BLAS /
    symbol / library error of the mismatched package)."""
    conflict = next((h for h in hits if h.cause_id == "dependency_version_conflict"), None)
    if conflict is not None and root.cause_id in _SYMPTOMS and conflict.line <= (root.line or 0):
        first = _as(
            root,
            "dependency_version_conflict",
            0.6,
            f"pip reported a dependency conflict (line {conflict.line}) before this {root.cause_id} failure: "
            "the installed versions do not fit together, and the error below is the symptom.",
            "Pin the packages together (the versions pip names on that line), then reinstall.",
            "pip-msgs",
        )
        return _first_ahead(
            first, root, rest, f"A dependency conflict (line {conflict.line}) comes before the {root.cause_id} error."
        )

    return None


def _conflict_first(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """The conflict is the first error: the later failure is its symptom, reported second"""
    if root.cause_id == "dependency_version_conflict":
        c = _hit_cause(hits, cause_for, lambda h: h.cause_id in _SYMPTOMS and h.line > (root.line or 0))
        if c is not None:
            out = [root, _cap(c, UNDECIDED_CAP), *rest]
            return out, [f"The {c.cause_id} failure on line {c.line} follows from this dependency conflict."]

    return None


def _cmake_in_isolation(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """CMake's find_package(Torch) failed inside pip's isolated build environment: torch is not installed
    there (tatsy/torchmcubes#29; scikit-build-core and setuptools both)."""
    if root.cause_id == "torch_cmake_config_not_found" and ctx.pip_isolated and not ctx.no_build_isolation:
        first = _as(
            root,
            "torch_missing_in_build_env",
            0.7,
            "CMake's find_package(Torch) ran in pip's isolated build environment, which has no torch: the package "
            "does not declare torch as a build requirement.",
            "pip install --no-build-isolation <pkg> with torch installed (or add torch to the package's "
            "build-system.requires).",
            "https://github.com/tatsy/torchmcubes/pull/29",
        )
        return _first_ahead(
            first, root, rest, "pip built this in an isolated environment: torch is not installed there."
        )
    return None


def _torch_missing_no_build(
    root: _CauseLike, rest: list[_CauseLike], ctx: LogContext, hits: Sequence[SignatureHit], cause_for: CauseFor
) -> Verdict:
    """A "No module named 'torch'" in a log that shows no package build at all: a program run in an
    environment without torch, not pip's isolated build (the cause is about builds)."""
    if root.signature == "module-not-found-torch" and not ctx.building:
        out = [_cap(root, 0.6), *rest]
        return out, [
            "No package build shows in the log: if this happened while building, torch is missing from the build "
            "environment (pip's isolation); if a program failed, torch is not installed in the Python that ran it."
        ]
    return None
