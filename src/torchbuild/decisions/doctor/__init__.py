"""Doctor: judge the facts against what the build needs (pure: no I/O).

:func:`check` returns :class:`Finding` objects, each with a stable ``check`` id, a
``severity`` (``error`` stops a build; ``warning`` and ``note`` do not), a message with the
numbers, and the exact ``fix`` (a command or a setting).  Check ids (never renamed):

``python``, ``compiler``, ``host_compiler``, ``driver``, ``gpu_arch``, ``arch_list``,
``cuda_toolkit``, ``cuda_home``, ``cuda_headers``, ``cudnn``, ``cmake``, ``ninja``,
``compiler_cache``, ``memory``, ``disk``, ``submodules``, ``torch``, ``torch_cuda``,
``cxx_abi``, ``build_isolation``, ``target``.

Every threshold comes from :mod:`torchbuild.knowledge.compat` (cited tables); a row marked
uncertain can only warn.  Memory per job comes from :mod:`torchbuild.decisions.resources`.
"""

from __future__ import annotations

from .base import CHECK_IDS, DISK_NEEDS_BYTES, SEVERITIES, Finding, normalise_arch
from .judge import check

__all__ = ["Finding", "check", "CHECK_IDS", "SEVERITIES", "DISK_NEEDS_BYTES", "normalise_arch"]
