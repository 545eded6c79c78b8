"""Issue 11, session 22: messages taken from the tools' own text rather than from one log.

The CUDA runtime's error strings are read from the real ``libcudart.so`` of the CUDA 13.0 toolkit
installed here (``cudaGetErrorString``, which needs no GPU), formatted the way torch reports them
(``RuntimeError: CUDA error: <string>``)."""

from __future__ import annotations

import ctypes
import glob
import os
import shutil

import pytest

from .conftest import diagnose_list as _diag


def _libcudart() -> ctypes.CDLL:
    """The toolkit's libcudart (next to the nvcc on PATH, or under /usr/local/cuda*)."""
    nvcc = shutil.which("nvcc")
    roots = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))] if nvcc else []
    roots += sorted(glob.glob("/usr/local/cuda*"))
    for root in roots:
        for lib in sorted(glob.glob(os.path.join(root, "lib*", "libcudart.so*"))):
            try:
                return ctypes.CDLL(lib)
            except OSError:
                continue
    pytest.skip("no CUDA toolkit libcudart.so on this machine")


def _cuda_error(code: int) -> tuple[str, str]:
    """(cudaGetErrorName, cudaGetErrorString) of ``code``, from the real runtime."""
    lib = _libcudart()
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    lib.cudaGetErrorName.restype = ctypes.c_char_p
    return lib.cudaGetErrorName(code).decode(), lib.cudaGetErrorString(code).decode()


def _torch_traceback(message: str) -> list[str]:
    return [
        "Traceback (most recent call last):",
        '  File "train.py", line 12, in <module>',
        "    model.cuda()",
        f"RuntimeError: CUDA error: {message}",
    ]


@pytest.mark.parametrize(
    ("code", "name", "cause"),
    [
        (35, "cudaErrorInsufficientDriver", "cuda_driver_too_old"),
        (36, "cudaErrorCallRequiresNewerDriver", "cuda_driver_too_old"),
        (803, "cudaErrorSystemDriverMismatch", "cuda_driver_too_old"),
        (804, "cudaErrorCompatNotSupportedOnDevice", "cuda_driver_too_old"),
        (222, "cudaErrorUnsupportedPtxVersion", "cuda_driver_too_old"),
        (98, "cudaErrorInvalidDeviceFunction", "no_kernel_image"),
        (209, "cudaErrorNoKernelImageForDevice", "no_kernel_image"),
    ],
)
def test_cuda_runtime_errors_of_the_environment_name_their_cause(code, name, cause):
    """The runtime's own string for each error that says the driver or the build does not fit the
    machine names that cause, whether torch prints the string or a wrapper prints the enum name."""
    got_name, text = _cuda_error(code)
    assert got_name == name
    d = _diag(_torch_traceback(text))
    assert d.root.cause_id == cause, (text, [(c.cause_id, c.confidence) for c in d.causes])
    assert d.root.confidence >= 0.7
    by_name = _diag([f"CUDA call failed: {name}"])
    assert by_name.root.cause_id == cause, (name, [(c.cause_id, c.confidence) for c in by_name.causes])


@pytest.mark.parametrize(
    ("code", "name"),
    [(2, "cudaErrorMemoryAllocation"), (700, "cudaErrorIllegalAddress"), (710, "cudaErrorAssert")],
)
def test_cuda_runtime_errors_of_the_program_are_no_build_cause(code, name):
    """An illegal address, a device-side assert or a GPU out of memory is the program's own error at
    run time: no build or environment cause is named for it."""
    got_name, text = _cuda_error(code)
    assert got_name == name
    d = _diag(_torch_traceback(text))
    assert d.root.cause_id == "unknown", (text, [(c.cause_id, c.confidence) for c in d.causes])
