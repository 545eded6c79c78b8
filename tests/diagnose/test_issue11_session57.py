"""Issue 11, session 57: rows written, before the session's measurement, from the dev logs of its blind batches
(1162 on) that the start's code (052d7a6) missed or named wrongly.

* uv's "hint: You're on Linux (`manylinux_2_17_x86_64`), but `nvidia-cublas-cu12` (v12.8.4.1) only has wheels for the
  following platforms: `manylinux_2_27_aarch64`, `manylinux_2_27_x86_64`, ..." (astral-sh/uv#12597): the package has
  a wheel for this architecture under a newer glibc (PEP 600's manylinux_2_X tag), so this machine's glibc is too
  old.  uv resolves against PyPI, which this suite does not reach, so the tests read the recorded log and uv's hint
  text with other tags.
* unsloth's "NotImplementedError: Unsloth: No NVIDIA GPU found? Unsloth currently only supports GPUs!"
  (unslothai/unsloth#2024): torch.cuda.is_available() is False, most often a CPU-only torch; below the sure bar, and
  the driver rows still go first when torch warned that the driver is too old (unslothai/unsloth#2499).  unsloth is
  not installed here (it needs a GPU to import): the recorded logs.
* TensorFlow's "DNN library is not found." (apapiu/guided-diffusion-keras#8, Steffenhir/GraXpert#84): cuDNN could not
  start, another cuDNN than the one TensorFlow was built for; and TensorFlow's Bazel configure "Cuda Configuration
  Error: Cannot find cuda library libcublas.so.10.1" (BrainTwister/docker-devel-env#11): a toolkit without that
  library.  No TensorFlow here: the recorded logs.
"""

from __future__ import annotations

import pytest

from .conftest import assert_named_by, diagnose_text


@pytest.mark.parametrize(
    ("name", "split", "cause", "signature"),
    [
        (
            "install-uv-jax-cuda12-nvidia-cublas-no-wheel-glibc217.log",
            "dev",
            "libc_too_old",
            "uv-no-wheel-older-manylinux",
        ),
        (
            "import-unsloth-windows-conda-cpu-only-torch-no-nvidia-gpu-found.log",
            "dev",
            "torch_cpu_only",
            "unsloth-no-nvidia-gpu-found",
        ),
        (
            "runtime-tensorflow-dnn-library-not-found-wrong-cudnn.log",
            "dev",
            "cudnn_unusable",
            "tensorflow-dnn-library-not-found",
        ),
        (
            "build-tensorflow-docker-cuda101-cublas-moved-not-in-lib64.log",
            "dev",
            "cuda_toolkit_incomplete",
            "tensorflow-configure-cuda-library-missing",
        ),
    ],
)
def test_logs_named_by_the_new_rows(name: str, split: str, cause: str, signature: str) -> None:
    """The corpus logs the session's rows were written from name their thread's cause through the new row: the dev
    logs of the blind batches (rows written before the measurement), the held-out logs read after their round's
    measurement or the reader's answers, and seen logs of the whole corpus that diagnose had left unknown."""
    assert_named_by(name, split, cause, signature)


@pytest.mark.parametrize(
    "hint",
    [
        # only macOS wheels for a Linux machine: another platform, not an old glibc
        "hint: You're on Linux (`manylinux_2_35_x86_64`), but `torch` (v2.6.0) only has wheels for the following "
        "platforms: `macosx_11_0_arm64`, `win_amd64`",
        # a manylinux wheel for another architecture only
        "hint: You're on Linux (`manylinux_2_17_x86_64`), but `foo` (v1.0) only has wheels for the following "
        "platforms: `manylinux_2_28_aarch64`",
    ],
)
def test_uv_hint_without_a_wheel_for_this_arch_is_not_glibc(hint: str) -> None:
    """The row needs a manylinux wheel of the machine's own architecture: a hint listing only other platforms or
    another architecture is not read as an old glibc."""
    d = diagnose_text("error: Distribution `foo` can't be installed\n\n" + hint)
    assert all(c.cause_id != "libc_too_old" for c in d.causes)


def test_unsloth_message_after_a_driver_warning_is_the_driver() -> None:
    """The same unsloth message under torch's "NVIDIA driver on your system is too old" warning (unslothai/unsloth#2499)
    stays the driver's: the unsloth row is a likely cause, the driver's message a finding."""
    name = "runtime-unsloth-pip-pulls-torch-cu124-driver-520-too-old.log"
    d = assert_named_by(name, "dev", "cuda_driver_too_old", "cuda-driver-too-old")
    assert d.root.confidence >= 0.7
