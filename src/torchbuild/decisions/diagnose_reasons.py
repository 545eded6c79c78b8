"""Root over symptom: reasoning between causes with the context a log gives (pure).

Several real failures show a true symptom whose root is elsewhere (issue 11): a CUDA
library that is not found because the extension was built for another CUDA, a
missing torch symbol that is the extension/torch version mismatch rather than the
C++ ABI, errors inside ``<tuple>`` because nvcc does not support that GCC at all.
Signatures match lines; this module looks at what else the log says and re-orders
(or qualifies) the causes:

* :class:`~torchbuild.decisions.diagnose_context.ContextCollector` keeps a few facts while
  the log streams by (bounded): versions printed (torch, CUDA, GCC),
  ``-D_GLIBCXX_USE_CXX11_ABI`` flags, where torch was imported from, ROCm markers, code that
  reads torch's CUDA version, pip's isolated builds;
* :func:`reason` applies the rules to the causes the signatures gave and
  returns the new cause list (root first) with notes for the person.  When the log
  cannot tell two causes apart, both are reported in order, with lowered confidence.

The rules live in :mod:`~torchbuild.decisions.diagnose_rules_after_build` (import-time
failures), :mod:`~torchbuild.decisions.diagnose_rules_libraries` (a library not found at import),
:mod:`~torchbuild.decisions.diagnose_rules_build` (build failures),
:mod:`~torchbuild.decisions.diagnose_rules_runtime` (a program that failed at run time),
:mod:`~torchbuild.decisions.diagnose_rules_toolkit` (a CUDA header missing: no toolkit, or a toolkit without it),
:mod:`~torchbuild.decisions.diagnose_rules_windows` (setuptools' [WinError 2], an old Visual Studio's cl.exe, the
STL's CUDA check under clang) and
:mod:`~torchbuild.decisions.diagnose_rules_install` (what pip's and uv's resolvers printed);
:data:`RULES` alone orders them.
Every rule names its source (the issue threads of tests/diagnose/realworld or the tool whose
message is matched).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import diagnose_rules_after_build as _after
from . import diagnose_rules_build as _build
from . import diagnose_rules_install as _install
from . import diagnose_rules_libraries as _libs
from . import diagnose_rules_runtime as _runtime
from . import diagnose_rules_toolkit as _toolkit
from . import diagnose_rules_windows as _windows
from .diagnose_context import ContextCollector, LogContext
from .diagnose_rules_common import UNDECIDED_CAP, SignatureHit, _CauseLike

__all__ = ["LogContext", "ContextCollector", "reason", "UNDECIDED_CAP", "SignatureHit", "RULES"]

#: Every rule, in the order tried; the first that applies decides.
RULES = (
    _after._frozen_app_bundle,
    _runtime._crash_in_a_python_session,
    _runtime._package_ops_missing_then_name_error,
    _runtime._module_missing_compiler_missing,
    _runtime._torch_c_without_numpy,
    _runtime._torch_name_of_a_newer_torch,
    _install._torch_replaced_by_installer,
    _after._torch_python_not_loaded_first,
    _after._stale_jit_cache,
    _after._abi_or_version,
    _after._extension_built_without_cuda,
    _after._extension_compiled_for_other_cuda,
    _after._torchvision_for_other_torch,
    _build._gcc_headers_unsupported,
    _after._torch_c_installed,
    _libs._torch_lib_missing_in_source_tree,
    _libs._library_of_other_build,
    _libs._library_named_at_build,
    _libs._glibc_beside_glibcxx,
    _install._no_wheel_for_this_platform,
    _install._solver_blocked_by_glibc,
    _install._conflict_before,
    _install._conflict_first,
    _build._std_old_compiler,
    _build._cuda_in_rocm,
    _build._crash_beside_full_disk,
    _build._none_cuda_version,
    _install._cmake_in_isolation,
    _install._torch_missing_no_build,
    _build._cmake_torch_not_found,
    _build._cuda_too_old_or_no_nvcc,
    _build._nvcc_path_failed,
    _build._std_header_error_under_nvcc,
    _build._math_library_api_either_way,
    _build._own_module_never_built,
    _after._package_from_current_folder,
    _after._private_module_not_built,
    _after._package_without_its_module,
    _windows._build_program_not_found_windows,
    _build._cuda_home_list,
    _toolkit._driver_header_without_toolkit,
    _build._relocation_without_gpu,
    _build._cudnn_version_unread,
    _build._same_cuda_twice,
    _build._cuda_arch_without_compiler,
    _windows._old_msvc_without_torch,
    _windows._stl_cuda_check_without_nvcc,
)


def reason(
    causes: Sequence[_CauseLike],
    ctx: LogContext,
    hits: Sequence[SignatureHit] = (),
    cause_for: Callable[[SignatureHit], _CauseLike | None] | None = None,
) -> tuple[list[_CauseLike], list[str]]:
    """Re-order or qualify ``causes`` (root first, as the signatures gave them) with
    the log's context.

    :param causes: the diagnosis' causes (dataclass instances with ``cause_id``,
        ``confidence``, ``signature``, ``values``...); not modified.
    :param ctx: what :class:`ContextCollector` saw in the log.
    :param hits: every signature match of the log (for rules that look beyond the
        root, e.g. a pip dependency conflict printed before the failure).
    :param cause_for: makes the cause of one of ``hits`` (to report a symptom next
        to its root); None: such causes are not added.
    :returns: the new cause list (root first; an undecidable pair as two causes with
        confidence at most :data:`UNDECIDED_CAP`) and notes for the person.
    """
    out = list(causes)
    if not out:
        return out, []
    for rule in RULES:
        verdict = rule(out[0], out[1:], ctx, hits, cause_for)
        if verdict is not None:
            return verdict
    return out, []
