"""``doctor --assume KEY=VALUE``: override single facts to ask "would this machine work?".

Keys (each value is checked; unknown keys and bad values raise
:class:`torchbuild.errors.FactsFileError` with a "did you mean"):

=========  =====================================================================
``cuda``    toolkit version (``11.8``, ``12.4.1``); creates the toolkit if absent
            (its probed ``nvcc --list-gpu-code`` list is dropped: it described
            another toolkit)
``gcc``     C/C++ compiler = GCC of that version (``12.2``)
``clang``   C/C++ compiler = Clang of that version (``17``)
``driver``  NVIDIA driver version (``535.54.03``)
``gpu``     GPU model (``"RTX 4090"``, compute capability from the GPU table) or a
            compute capability (``8.9``) or ``NAME:CC``; repeat for more GPUs;
            ``gpu=none`` removes all
``python``  Python version (``3.12``)
``cmake``   CMake version (``3.22``)
``ninja``   Ninja version (``1.11.1``) or ``none``
``torch``   installed torch version (``2.4``, ``2.4.0+cu121``; the ``+cuXYZ`` tag
            sets its CUDA) or ``none``
``torch_cuda``  the installed torch's CUDA (``12.1``) or ``none`` (CPU build)
``cores``   usable CPU cores; ``memory``/``disk``: GiB (``64``, ``64GiB``)
=========  =====================================================================

The PyTorch version a source build targets is ``--target``, not an assumption.
"""

from __future__ import annotations

import copy
import difflib
import re

from ..errors import FactsFileError
from ..facts.model import GPU, Compiler, CudaToolkit, Driver, Facts, InstalledTorch, Tool

__all__ = ["apply_assumptions", "KEYS"]

KEYS = (
    "cuda",
    "gcc",
    "clang",
    "driver",
    "gpu",
    "python",
    "cmake",
    "ninja",
    "torch",
    "torch_cuda",
    "cores",
    "memory",
    "disk",
)

_VERSION = re.compile(r"\d+(\.\d+){0,3}")
_GIB = 1 << 30


def _version(key: str, value: str, parts: tuple[int, int] = (1, 4)) -> str:
    v = value.strip().lstrip("v")
    if not _VERSION.fullmatch(v) or not parts[0] <= v.count(".") + 1 <= parts[1]:
        raise FactsFileError(
            f"--assume {key}={value!r}: not a version number (expected e.g. "
            f"{ {'cuda': '11.8', 'driver': '535.54.03', 'python': '3.12'}.get(key, '12.2') })."
        )
    return v


def _size(key: str, value: str) -> int:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(gib|gb|g)?\s*", value, re.IGNORECASE)
    if not m:
        raise FactsFileError(f"--assume {key}={value!r}: give a size in GiB (e.g. {key}=64).")
    return int(float(m.group(1)) * _GIB)


def _gpu(value: str, index: int) -> GPU:
    from ..knowledge import compat  # the GPU name -> compute capability table

    v = value.strip().strip("\"'")
    name, _, cc = v.rpartition(":") if re.search(r":\d+\.\d+$", v) else (v, "", "")
    if not name and re.fullmatch(r"\d+\.\d+", v):
        return GPU(index=index, name=f"GPU with compute capability {v}", compute_capability=v)
    if cc:
        return GPU(index=index, name=name, compute_capability=cc)
    model = compat.gpu_model(name)
    if model is None:
        close = difflib.get_close_matches(name, compat.gpu_names(), n=3, cutoff=0.4)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise FactsFileError(
            f'--assume gpu={value!r}: unknown GPU model.{hint} Or give its compute capability: gpu="{name}:8.9".'
        )
    return GPU(index=index, name=name, compute_capability=model.cc)


def apply_assumptions(facts: Facts, items: list[str]) -> Facts:
    """A copy of ``facts`` with each ``KEY=VALUE`` of ``items`` applied, in order; the copy's
    ``assumed`` lists them and ``origin`` gains ``+assumed``.

    :raises FactsFileError: an item without ``=``, an unknown key (with "did you mean"), or a
        value that is not a version / size / known GPU.
    """
    f = copy.deepcopy(facts)
    gpus_reset = False
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not sep or not value.strip():
            raise FactsFileError(f"--assume {item!r}: expected KEY=VALUE (e.g. cuda=11.8).")
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise FactsFileError(f"--assume {item!r}: unknown key {key!r}.{hint} Known keys: {', '.join(KEYS)}.")
        value = value.strip()
        none = value.lower() in ("none", "no", "off")
        if key == "cuda":
            v = _version(key, value, (2, 3))
            mm = ".".join(v.split(".")[:2])
            if f.cuda is None or f.cuda.version != mm:
                # a hypothetical toolkit: what the probed one holds (headers, archs) says nothing about it
                f.cuda = CudaToolkit(
                    home=f"/usr/local/cuda-{mm}", nvcc=f"/usr/local/cuda-{mm}/bin/nvcc", found_by="assumed"
                )
            f.cuda.version, f.cuda.full_version = mm, (v if v.count(".") >= 2 else None)
            f.cuda.gpu_codes = []
        elif key in ("gcc", "clang"):
            v = _version(key, value)
            cxx, cc = ("g++", "gcc") if key == "gcc" else ("clang++", "clang")
            f.cxx = Compiler(kind=key, path=f"/usr/bin/{cxx}", version=v)
            f.cc = Compiler(kind=key, path=f"/usr/bin/{cc}", version=v)
            f.cuda_host = None
        elif key == "driver":
            f.driver = Driver(version=_version(key, value, (2, 3)), found_by="assumed")
        elif key == "gpu":
            if not gpus_reset:
                f.gpus, gpus_reset = [], True
            if not none:
                f.gpus.append(_gpu(value, len(f.gpus)))
        elif key == "python":
            f.python.version = _version(key, value, (2, 3))
        elif key in ("cmake", "ninja"):
            f.tools[key] = Tool() if none else Tool(path=f"/usr/bin/{key}", version=_version(key, value))
            if key == "cmake":
                f.tools["cmake3"] = Tool()
        elif key == "torch":
            if none:
                f.torch = None
            else:
                m = re.fullmatch(r"(\d+\.\d+(?:\.\d+)?)(?:\+(cpu|cu(\d+)(\d)))?", value)
                if not m:
                    raise FactsFileError(
                        f"--assume torch={value!r}: expected a torch version such as 2.4 or 2.4.0+cu121."
                    )
                t = f.torch or InstalledTorch()
                t.version = value
                if m.group(2) == "cpu":
                    t.cuda = None
                elif m.group(3):
                    t.cuda = f"{m.group(3)}.{m.group(4)}"
                f.torch = t
        elif key == "torch_cuda":
            if f.torch is None:
                raise FactsFileError("--assume torch_cuda=...: no torch is installed; give torch=VERSION first.")
            f.torch.cuda = None if none else ".".join(_version(key, value, (2, 3)).split(".")[:2])
        elif key == "cores":
            if not value.isdigit() or int(value) < 1:
                raise FactsFileError(f"--assume cores={value!r}: give a positive whole number.")
            f.resources.cpu_count = int(value)
        elif key == "memory":
            n = _size(key, value)
            f.resources.memory_total_bytes = n
            f.resources.memory_available_bytes = n
        elif key == "disk":
            f.resources.disk_free_bytes = _size(key, value)
        f.assumed.append(f"{key}={value}")
    if items and "+assumed" not in f.origin:
        f.origin += "+assumed"
    return f
