"""Issue 11, session 40: rows written from round A's dev logs (batches 514 and later), before its measurement.

* Triton's "out of resource: shared memory" (a kernel's launch configuration too large for the GPU's on-chip shared
  memory) is no longer read as the machine running out of memory: the concept said-memory-exhausted leaves "shared
  memory" and /dev/shm alone;
* a driver "not compatible with any supported CUDA toolkit" (CUDA.jl): the NVIDIA driver too old (the concept
  said-driver-too-old).
"""

from __future__ import annotations

from .conftest import diagnose_text, named_below_sure


def test_triton_shared_memory_out_of_resource_is_not_the_machine_out_of_memory():
    """Two threads of batch 528 (dev), both judged no listed cause by their maintainers (a GPU the project's kernels
    do not support; a kernel's num_stages too high for sm_86): Triton's message, copied from the reporters' logs,
    says "out of resource" and "memory", which the concept for a machine out of RAM read as out_of_memory."""
    for line in (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: "
        "65536. Reducing block sizes or `num_stages` may help.",
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, Hardware "
        "limitation: 101376. reducing the block size or `num_stages` may help.",
    ):
        root = diagnose_text(line).root
        assert root.cause_id == "unknown", (line, root)


def test_a_machine_out_of_ram_is_still_read_as_out_of_memory():
    """The concept's own example (mit-han-lab/torchsparse#306), and /dev/shm's wording left out by the same change:
    the RAM sentence is still out_of_memory below the sure bar."""
    named_below_sure("freeze because it reached maximum RAM(16GB)", "out_of_memory", "said-memory-exhausted")
    root = diagnose_text("ERROR: the shm (shared memory) of the container ran out of memory").root
    assert root.cause_id != "out_of_memory"


def test_a_driver_not_compatible_with_any_toolkit_is_too_old():
    """JuliaGPU/CUDA.jl#2231 (batch 532 dev): a Quadro 600 whose driver supports CUDA 8.0 at most; the maintainer
    answered that CUDA.jl supports only what NVIDIA supports (CUDA 11.4 and newer), so the driver is too old for any
    toolkit it can use. The line is the reporter's own."""
    root = named_below_sure(
        "Error: CUDA driver 8.0.0 is not compatible with any supported CUDA toolkit (11.4.4, 11.5.2, 11.6.2, 11.7.1, "
        "11.8.0, 12.0.1, 12.1.1, 12.2.2 or 12.3.1)",
        "cuda_driver_too_old",
        "said-driver-too-old",
    )
    assert "driver" in root.explanation
