"""Issue 11, session 55: rows written, before the session's measurement, from the dev logs of its blind batches
(1051 on) that the start's code (1f4705a) missed or named wrongly.

* Windows' "The procedure entry point cu... could not be located in the dynamic link library nvcuda.dll": nvcuda.dll
  is the NVIDIA driver's CUDA driver-API library, so a cu* entry point it lacks means a driver older than the CUDA
  the program was built with (trexminer/T-Rex#118), the Windows form of the Linux "undefined symbol: cu..." row.  The
  same message for another DLL stays a package built for another torch.  These are Windows loader messages; no
  Windows machine runs here, so the tests read the text recorded in the thread.
* dash's "cd: can't cd to <path>" (make's recipes run /bin/sh, dash on Debian and Ubuntu) for a path inside the
  tree's third_party folder: PyTorch's old NCCL step entering third_party/nccl/nccl, a submodule that was not there
  (pytorch/pytorch#12335).  The test runs the real dash through make.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import assert_named_by, diagnose_text, named_below_sure, run_tool


@pytest.mark.parametrize(
    ("name", "cause", "signature"),
    [
        (
            "runtime-t-rex-windows-nvcuda-dll-cudeviceprimaryctxreset-v2-entry-point.log",
            "cuda_driver_too_old",
            "nvcuda-dll-entry-point-missing",
        ),
        (
            "nccl-pytorch-cant-cd-third-party-nccl-nccl-submodule-absent.log",
            "submodule_missing",
            "third-party-path-not-found",
        ),
    ],
)
def test_dev_misses_of_session_55(name: str, cause: str, signature: str | None):
    """Dev logs of batches 1051 on that the start's code named unknown or another cause."""
    assert_named_by(name, "dev", cause, signature)


def test_nvcuda_entry_point_is_the_driver_and_another_dll_is_not():
    """The loader's message for nvcuda.dll (bare or with its System32 path) names the driver; the same message for a
    package's DLL (torchcodec's, the existing row's example) still names a package built for another torch."""
    root = named_below_sure(
        "The procedure entry point cuGetProcAddress_v2 could not be located in the dynamic link library "
        "C:\\WINDOWS\\SYSTEM32\\nvcuda.dll.",
        "cuda_driver_too_old",
        "nvcuda-dll-entry-point-missing",
    )
    assert "cuGetProcAddress_v2" in root.explanation
    other = diagnose_text(
        "The procedure entry point torch_from_blob could not be located in the dynamic link library "
        "E:\\ComfyUI\\python_embeded\\Lib\\site-packages\\torchcodec\\libtorchcodec_core8.dll."
    ).root
    assert (other.cause_id, other.signature) == ("torch_extension_mismatch", "dll-entry-point-not-found")


def test_make_recipe_cd_into_an_empty_third_party_folder_with_the_real_dash(tmp_path: Path):
    """make runs a recipe that enters third_party/nccl/nccl (as PyTorch's old NCCL step did) through /bin/sh; with the
    submodule not checked out dash prints "cd: can't cd to ...", which names the submodule.  The same failure for a
    folder outside third_party is not this row's."""
    make, dash = shutil.which("make"), shutil.which("dash")
    if make is None or dash is None:
        pytest.skip("needs make and dash")
    (tmp_path / "third_party" / "nccl").mkdir(parents=True)
    (tmp_path / "Makefile").write_text(
        f"SHELL := {dash}\nall:\n\tcd {tmp_path}/third_party/nccl/nccl && $(MAKE) src.build\n"
        f"other:\n\tcd {tmp_path}/tools/gen && ./gen.sh\n"
    )
    run = run_tool([make, "-C", str(tmp_path)])
    assert run.returncode != 0 and "can't cd to" in run.stderr
    root = named_below_sure(run.stdout + run.stderr, "submodule_missing", "third-party-path-not-found")
    assert "third_party/nccl/nccl" in root.explanation

    other = run_tool([make, "-C", str(tmp_path), "other"])
    assert "can't cd to" in other.stderr
    assert diagnose_text(other.stdout + other.stderr).root.signature != "third-party-path-not-found"
