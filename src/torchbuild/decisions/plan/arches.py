"""The CUDA arch list (``TORCH_CUDA_ARCH_LIST``): parsing what the user wrote, and the
list that the detected GPUs ask for."""

from __future__ import annotations

import re

from ...errors import UsageError
from ...facts.model import Facts

_ARCH_ITEM = re.compile(r"^(?:sm_|compute_)?(\d+)\.?(\d)?([af]?)(\+PTX)?$", re.IGNORECASE)
_NAMED_ARCHES = {
    "kepler",
    "kepler+tesla",
    "maxwell",
    "maxwell+tegra",
    "pascal",
    "volta",
    "volta+tegra",
    "turing",
    "ampere",
    "ampere+tegra",
    "ada",
    "hopper",
    "blackwell",
    "blackwell+tegra",
    "rubin",
}


def parse_arch_list(text: str) -> list[str]:
    """Normalise an arch list to ``TORCH_CUDA_ARCH_LIST`` items: ``"8.6"``, ``"9.0a"``,
    ``"9.0+PTX"``.  Accepts ``;``, ``,`` or spaces between items and the spellings
    ``86``, ``8.6``, ``sm_86``, ``compute_90``; PyTorch's named arches (``Ampere``,
    ``Hopper``; ``torch/utils/cpp_extension.py`` ``_get_cuda_arch_flags``) pass through unchanged.

    :raises UsageError: an item is none of these (message names it and the accepted forms).
    """
    items = [t for t in re.split(r"[;,\s]+", text.strip()) if t]
    out: list[str] = []
    for item in items:
        if item.lower() in _NAMED_ARCHES or item.lower().rstrip("+ptx") in _NAMED_ARCHES:
            out.append(item)
            continue
        m = _ARCH_ITEM.match(item)
        if not m:
            raise UsageError(
                f"arch {item!r} is not a compute capability. Use forms like 8.6, 9.0a, 9.0+PTX or sm_86 "
                f"(your GPU's value: nvidia-smi --query-gpu=compute_cap --format=csv)."
            )
        major, minor, suffix, ptx = m.groups()
        if minor is None:
            if len(major) < 2:
                raise UsageError(f"arch {item!r} is ambiguous; write it as major.minor, e.g. 8.6.")
            major, minor = major[:-1], major[-1]
        norm = f"{int(major)}.{minor}{suffix.lower()}" + ("+PTX" if ptx else "")
        if norm not in out:
            out.append(norm)
    if not out:
        raise UsageError("the arch list is empty. Give at least one compute capability, e.g. --arch 8.6.")
    return out


def _arches_from_gpus(facts: Facts) -> tuple[list[str], str] | None:
    caps = sorted(
        {g.compute_capability for g in facts.gpus if g.compute_capability},
        key=lambda c: tuple(int(x) for x in re.findall(r"\d+", c)),
    )
    if not caps:
        return None
    arches = list(caps)
    arches[-1] += "+PTX"
    names = ", ".join(f"{g.name} ({g.compute_capability})" for g in facts.gpus)
    return arches, f"detected GPU{'s' if len(facts.gpus) > 1 else ''}: {names}"
