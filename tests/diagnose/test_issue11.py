"""Issue 11 on real logs (tests/diagnose/realworld, see index.toml): reasoning between
causes (root over symptom, both causes when the log cannot tell), structure that does
not depend on one layout (a FAILED: line directly followed by the error; an error
200 MB above the end of a log)."""

from __future__ import annotations

import pytest

from torchbuild.actions.diagnose_log import FULL_SCAN_BYTES, diagnose_file
from torchbuild.decisions.diagnose_reasons import UNDECIDED_CAP

from .conftest import CORPUS, ROWS, diagnose_text, stated
from .conftest import corpus_lines as _lines
from .conftest import diagnose_list as _diag


# ---------------------------------------------------------------- reasoning
def test_missing_torch_symbol_without_abi_context_lists_both_causes():
    # rusty1s/pytorch_sparse#250: the maintainer's diagnosis was another torch version
    d = _diag(_lines("undefsym-sparse-parseschema-wheels.log"))
    assert [c.cause_id for c in d.causes[:2]] == ["torch_extension_mismatch", "cxx_abi_mismatch"]
    assert all(c.confidence <= UNDECIDED_CAP for c in d.causes[:2])
    assert any("both" in n for n in d.notes)


def test_missing_torch_symbol_with_conda_forge_torch_is_the_abi():
    # the conda list shows conda-forge's torch (new C++ ABI); the symbol takes the old std::string.
    # torch's ABI is inferred from its distributor, not printed: first, not confident (session 21)
    d = _diag(_lines("scatter-abi-condaforge.log"))
    assert [c.cause_id for c in d.causes[:2]] == ["cxx_abi_mismatch", "torch_extension_mismatch"]
    assert d.root.confidence == 0.65


def test_missing_torch_symbol_with_a_source_built_torch_is_the_abi():
    d = diagnose_text("""
        torch 1.10.0a0+git71f889c /media/sde/aaron-wu/pytorch
        /x/site-packages/torchvision/io/image.py:11: UserWarning: Failed to load image Python extension: /x/site-packages/torchvision/image.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs
    """)  # noqa: E501 (verbatim log lines)
    assert d.root.cause_id == "cxx_abi_mismatch" and d.root.confidence == 0.65


def test_missing_cxx11_symbol_without_torch_abi_puts_the_abi_first():
    # intel/torch-ccl#16: the extension wants std::__cxx11; pip torch 1.8.1 (old ABI) exports none
    d = _diag(_lines("abi-torchccl-cxx11-pip-torch.log"))
    assert [c.cause_id for c in d.causes[:2]] == ["cxx_abi_mismatch", "torch_extension_mismatch"]
    assert d.root.confidence < 0.7 and d.causes[1].confidence < d.root.confidence
    assert any("__cxx11" in n for n in d.notes)


def test_missing_cxx11_symbol_with_a_new_abi_torch_is_not_called_the_abi():
    # torch 2.7+ wheels use the C++11 ABI themselves: a missing __cxx11 symbol is then another torch
    symbol = "_ZN3c105ErrorC1ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
    d = _diag(["torch 2.8.0", f"ImportError: /x/ext.so: undefined symbol: {symbol}"])
    assert d.root.cause_id == "torch_extension_mismatch"


def test_errors_in_gcc6_headers_are_the_unsupported_host_compiler():
    # NVIDIA/nccl#102: <tuple> of GCC 6 with CUDA 8 (the GCC 11 std_function bug is another case)
    d = _diag(_lines("tuple-packs-nccl-gcc6-cuda8.log"))
    assert [c.cause_id for c in d.causes[:2]] == ["host_compiler_unsupported", "nvcc_host_stdlib_incompatible"]
    d11 = _diag(_lines("stdfunction-capellini-make-nvcc115.log"))
    assert d11.root.cause_id == "nvcc_host_stdlib_incompatible" and d11.root.confidence >= 0.7


def test_torch_c_missing_from_site_packages_is_not_the_source_tree():
    d = _diag(_lines("torchC-missing-vocalremover-sitepackages.log"))
    assert d.root.cause_id == "unknown"
    assert "site-packages" in d.root.explanation
    src = _diag(_lines("import-src-pytorch11222-ipython.log"))  # /opt/pytorch/torch/__init__.py
    assert src.root.cause_id == "import_from_source_dir" and stated(src.root)


def test_versioned_cuda_library_alone_is_undecided_and_with_another_cuda_is_the_extension():
    # a module other than torch: a CUDA mismatch first, the loader's path second, neither stated (session 28: the
    # threads judged 16 such logs a CUDA mismatch and 10 a library off the path, this one among the latter)
    alone = _diag(_lines("libcudart100-cpcl-path.log"))
    assert [c.cause_id for c in alone.causes[:2]] == ["cuda_version_mismatch", "shared_library_not_found"]
    assert alone.root.confidence <= 0.55 and alone.causes[1].confidence <= 0.55
    # the same line with the machine's CUDA printed before it (the nvidia-smi header line
    # of lllyasviel/Fooocus#1313, tests/diagnose/realworld/driver-old-fooocus-470.log)
    lines = ["| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4"]
    lines += _lines("libcudart100-cpcl-path.log")
    d = _diag(lines)
    assert d.root.cause_id == "torch_extension_mismatch"
    assert d.causes[1].cause_id == "shared_library_not_found"


def test_pip_conflict_before_a_symbol_error_is_the_root_and_the_symbol_error_its_symptom():
    # two real logs one after the other: pip's resolver conflict, then the import failure
    lines = _lines("depconflict-torchaudio-torch111.log") + _lines("undefsym-scatter-symbool-pyg-warning.log")
    d = _diag(lines)
    assert [c.cause_id for c in d.causes[:2]] == ["dependency_version_conflict", "torch_extension_mismatch"]
    assert d.causes[1].confidence <= UNDECIDED_CAP
    assert any("follows from this dependency conflict" in n for n in d.notes)


def test_compiler_crash_beside_a_write_failure_is_the_full_disk():
    """pytorch/pytorch#2046 (batch 5, dev): cicc died of signal 11 several times, and ptxas
    could not write its file; a full TMPDIR was the root."""
    d = _diag(_lines("disk-pytorch-source-tmp-cicc-signal11.log"))
    assert [c.cause_id for c in d.causes[:2]] == ["disk_full", "internal_compiler_error"]
    assert d.root.confidence <= 0.7 and d.causes[1].confidence <= UNDECIDED_CAP
    # the crash alone stays the compiler's
    crash = [ln for ln in _lines("disk-pytorch-source-tmp-cicc-signal11.log") if "writing file" not in ln]
    assert _diag(crash).root.cause_id == "internal_compiler_error"


def test_missing_rocm_runtime_library_is_undecided_between_path_and_another_rocm():
    """ROCm/apex#73 (batch 5, dev): libamdhip64.so.5 missing after a rebuild with ROCm 4.5;
    the log alone cannot tell a library path problem from a module built for another ROCm."""
    d = _diag(_lines("stale-rocm-apex-setup-clean-leftover-lib.log"))
    assert [c.cause_id for c in d.causes[:2]] == ["shared_library_not_found", "torch_extension_mismatch"]
    assert d.root.confidence <= 0.6 and d.causes[1].confidence <= UNDECIDED_CAP


def test_xformers_built_for_a_cuda_torch_beside_a_cpu_torch_and_beside_another_torch():
    """open-mmlab/PIA#30 (batch 5, dev): xFormers' own message names both torch builds
    (xformers/_cpp_lib.py); a CPU-only torch is torch_cpu_only, another version the mismatch."""
    d = _diag(_lines("cpuonly-xformers-pia-windows-torch212cpu.log"))
    assert d.root.cause_id == "torch_cpu_only" and d.root.values["have"] == "2.1.2+cpu"
    other = [
        ln.replace("(you have 2.1.2+cpu)", "(you have 2.2.2+cu121)")
        for ln in _lines("cpuonly-xformers-pia-windows-torch212cpu.log")
    ]
    d2 = _diag(other)
    assert d2.root.cause_id == "torch_extension_mismatch" and d2.root.values["built"] == "2.1.2+cu121"


def test_libcuda_at_link_is_the_driver_library_not_the_toolkit():
    """NVlabs/tiny-cuda-nn#408 (batch 5, dev): -lcuda is the driver's library; -lcudart stays
    the toolkit's."""
    d = _diag(_lines("syslib-tinycudann-conda-ld-lcuda.log"))
    assert d.root.cause_id == "system_library_missing" and d.root.signature == "ld-cannot-find-libcuda"
    assert _diag(["/usr/bin/ld: cannot find -lcudart"]).root.cause_id == "cuda_toolkit_incomplete"


def test_none_from_torch_cuda_version_in_a_setup_py_is_the_cpu_only_torch():
    """openvinotoolkit/openvino.genai#163 (batch 6, dev): auto-gptq's setup.py read
    torch.version.cuda (None in a CPU-only torch) and crashed on .split()."""
    d = _diag(_lines("cpuonly-autogptq-pip-macos-cuda-version-none.log"))
    assert d.root.cause_id == "torch_cpu_only" and d.root.confidence == 0.6
    # the same AttributeError without the code line that reads the CUDA version says nothing
    other = [ln for ln in _lines("cpuonly-autogptq-pip-macos-cuda-version-none.log") if "CUDA_VERSION" not in ln]
    assert _diag(other).root.cause_id == "unknown"


def test_torch_config_not_found_under_pip_isolation_is_torch_missing_in_the_build_env():
    """tatsy/torchmcubes#29 (batch 6, dev): find_package(Torch) in pip's isolated build.  The
    log alone cannot tell a C++ project from a pip build (both reported, neither sure); with
    pip's isolated-build line of another real log before it (isolation-autogptq-pymport.log)
    the missing torch in the build environment is the root; with a cmake command line, the
    CMAKE_PREFIX_PATH."""
    alone = _diag(_lines("buildiso-torchmcubes-torchconfig-cmake-isolated.log"))
    assert [c.cause_id for c in alone.causes[:2]] == ["torch_cmake_config_not_found", "torch_missing_in_build_env"]
    assert alone.root.confidence <= 0.6
    pip = [ln for ln in _lines("isolation-autogptq-pymport.log") if "Installing build dependencies" in ln]
    assert pip
    d = _diag(pip + _lines("buildiso-torchmcubes-torchconfig-cmake-isolated.log"))
    assert [c.cause_id for c in d.causes[:2]] == ["torch_missing_in_build_env", "torch_cmake_config_not_found"]
    by_hand = _diag(
        ["$ cmake -DCMAKE_PREFIX_PATH=/opt/libtorch .."] + _lines("buildiso-torchmcubes-torchconfig-cmake-isolated.log")
    )
    assert by_hand.root.cause_id == "torch_cmake_config_not_found" and by_hand.root.confidence >= 0.9


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("ice-rocm-pytorch-hcc-llc-crash-gfx900.log", "internal_compiler_error"),  # LLVM stack dump
        ("cudahome-db-dcn-cuda-home-path-list.log", "cuda_toolkit_not_found"),  # unable to execute nvcc
        ("fetch-causal-conv1d-wheel-url-remote-closed.log", "source_fetch_failed"),  # http.client
        ("import-torchaudio-macos-stale-nightly-recordfunction.log", "torch_extension_mismatch"),  # dyld
        ("import-torchaudio-from-clone-ext-not-available.log", "import_from_source_dir"),
    ],
)
def test_batch6_dev_logs_name_their_cause(name, cause):
    """Batch 6 dev logs whose messages now have signatures (written from the tools' messages)."""
    assert _diag(_lines(name)).root.cause_id == cause


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("disk-sdwebui-linux-tmpfs-torch-download-german.log", "disk_full"),  # [Errno 28] in German
        ("pyh-triton-windows-comfy-portable-tcc-python-h.log", "python_headers_missing"),  # tcc's wording
        ("nvtx-nvblox-torch-conda-libnvtoolsext-notfound.log", "nvtx_missing"),  # CMake's NOTFOUND list
        ("import-sgl-kernel-kvcache-fork-torch-bump-c10-cuda-check.log", "torch_extension_mismatch"),  # split
        ("srcdir-pytorch-baidu-ctc-unittest-in-clone.log", "import_from_source_dir"),  # pkg._C from the clone
        ("abi-deepmd-kit-cmake-pytorch-vs-tensorflow.log", "cxx_abi_mismatch"),
    ],
)
def test_batch7_dev_logs_name_their_cause(name, cause):
    """Batch 7 dev logs: errno 28 in any language, tcc's "include file 'Python.h' not found",
    a demangled torch symbol on the line after "undefined symbol:", an extension's compiled
    module missing when run from its clone, a stated C++11 ABI mismatch."""
    assert _diag(_lines(name)).root.cause_id == cause


def test_torch_module_missing_outside_a_build_is_not_sure_of_build_isolation():
    """torch_missing_in_build_env is about builds: the error line of a real dev log
    (torch-missing-dcnv2-setup.log) keeps its confidence inside its pip/setup.py log, and
    alone (no package build shown) is reported without certainty."""
    lines = _lines("torch-missing-dcnv2-setup.log")
    whole = _diag(lines)
    assert whole.root.cause_id == "torch_missing_in_build_env" and whole.root.confidence >= 0.85
    alone = _diag([ln for ln in lines if "No module named" in ln][-1:])
    assert alone.root.cause_id == "torch_missing_in_build_env" and alone.root.confidence <= 0.6


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("nocc-espnet-warpctc-cc-devtoolset-missing.log", "compiler_missing"),  # CC names a missing gcc
        ("depconflict-mmd-conda-mkl-2024-1-ijit.log", "dependency_version_conflict"),  # MKL 2024.1
        ("cxxstd-deepmd-kit-cmake-forces-cxx14-pytorch-backend.log", "cxx_standard_mismatch"),  # is_same_v
        ("apiremoved-pcreg-emd-msvc-at-check-c3861.log", "torch_api_removed"),  # MSVC's wording
        ("cpuonly-torch-ngp-freqencoder-torch-version-cuda-none.log", "torch_cpu_only"),  # parse(None)
    ],
)
def test_batch8_dev_logs_name_their_cause(name, cause):
    """Batch 8 dev logs: CMake's "Could not find compiler set in environment variable CC", an
    MKL too new for torch, a C++17 library name missing from std, MSVC's "identifier not found",
    cpp_extension parsing torch.version.cuda = None (a CPU-only torch)."""
    assert _diag(_lines(name)).root.cause_id == cause


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("nocuda-causalconv1d-macos-pip.log", "cuda_toolkit_not_found"),  # setup.py's UserWarning
        ("cmakeold-libtorch-cuda-device-link-cmake312.log", "cmake_too_old"),  # -Wl, at device link
        ("cudnn-old-pytorch-source-winograd-nonfused.log", "cudnn_unusable"),  # CUDNN_* undeclared
        ("nocompiler-simpleknn-which-gxx-pip.log", "compiler_missing"),  # `which g++` failed
        ("rocmhome-torchvision-rocm-aur-bin-hipcc.log", "cuda_toolkit_not_found"),  # Russian shell
        ("glibcxx-detectron2-exceptionptr-conda.log", "glibcxx_too_old"),  # std:: symbol undefined
    ],
)
def test_batch9_dev_logs_name_their_cause(name, cause):
    """Batch 9 dev logs: "X was requested, but nvcc was not found" (flash-attn's setup.py,
    copied by causal-conv1d), nvcc given libtorch's -Wl option by an old CMake's device link, a
    cuDNN constant the cuDNN headers lack, cpp_extension's `which` failing, the shell unable to
    run bin/hipcc (ROCM_HOME unset) in a Russian locale, a libstdc++ symbol missing at import."""
    assert _diag(_lines(name)).root.cause_id == cause


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("oom-pointnet2ops-killed-cc1plus-zh.log", "out_of_memory"),  # "已杀死" is glibc's "Killed"
        ("apiremoved-groundingdino-msdeformattn-deprecatedtypeproperties.log", "torch_api_removed"),
        ("cudaold-sageattention-abotworld-needs-cuda12.log", "cuda_toolkit_too_old"),
        ("submod-torchaudio-kaldi-macos.log", "submodule_missing"),  # add_library in third_party/
        ("cpuonly-pytorch-041-cpu-wheel-setdevice.log", "torch_cpu_only"),  # torch._C lacks _cuda_*
    ],
)
def test_batch10_dev_logs_name_their_cause(name, cause):
    """Batch 10 dev logs: GCC's "Killed" in Chinese (strsignal's translation), tensor.type()
    given to AT_DISPATCH, "CUDA 12.0 or higher is required", CMake unable to find a submodule's
    sources, a CPU-only torch without its _cuda_ bindings."""
    assert _diag(_lines(name)).root.cause_id == cause


def test_torch_library_not_found_is_undecided_between_path_and_another_torch():
    """torch's own libtorch_cpu.so / libc10.so not found: the loader path (import order,
    LD_LIBRARY_PATH) or a module built for another torch; where the log cannot tell, neither is
    confident (trilinear and hasktorch are the path; torchlars#15, another torch, prints torch 1.4,
    which decides it: tests/diagnose/test_issue11_session21.py)."""
    for name, want in [
        ("sharedlib-hasktorch-regression-libc10.log", "shared_library_not_found"),
        ("import-trilinear-libc10-before-torch.log", "shared_library_not_found"),
    ]:
        assert ROWS[name]["cause"] == want
        d = _diag(_lines(name))
        assert [c.cause_id for c in d.causes[:2]] == ["shared_library_not_found", "torch_extension_mismatch"], name
        assert max(c.confidence for c in d.causes[:2]) <= 0.6, name


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("apiremoved-warptransducer-thc-h-setup.log", "torch_api_removed"),  # a bare THC.h, curly quote
        ("abi-lammps-pairnequip-libtorch-torchcheckfail-cxx11.log", "cxx_abi_mismatch"),  # demangled, at link
        ("import-torchscatter-libtorch-cuda-cu-missing.log", "torch_extension_mismatch"),  # BUILD_SPLIT_CUDA lib
        ("import-pytorch3d-c-dll-procedure-windows-shape.log", "torch_extension_mismatch"),
    ],
)
def test_batch12_and_13_dev_logs_name_their_cause(name, cause):
    """Batch 12/13 dev logs: THC.h included without its THC/ directory, a link-time undefined
    reference to a c10 function taking std::__cxx11::basic_string, libtorch_cuda_cu.so (only in
    torch builds with BUILD_SPLIT_CUDA), Windows' "The specified procedure could not be found"."""
    assert ROWS[name]["split"] == "dev"
    assert _diag(_lines(name)).root.cause_id == cause


def test_uv_hint_about_a_build_dependency_is_a_package_build():
    """whyNLP/LCKV#17, flash-attn under uv (batch 10, dev): uv says the package "doesn't declare [torch] as a
    build dependency": the log shows a package build, so "No module named 'torch'" is torch
    missing from the isolated build environment, with confidence, alone or after other output."""
    d = _diag(_lines("isolation-lckv-uv-flashattn-281.log"))
    assert d.root.cause_id == "torch_missing_in_build_env" and d.root.confidence >= 0.85


def test_rocm_compiler_missing_in_a_rocm_build_is_a_finding_not_a_cuda_guess():
    """rocm-arch/rocm-arch#865 (batch 9, dev): the shell cannot run bin/hipcc, in Russian.  The
    line is translated (knowledge/data/localized.toml) and the cause is the toolkit's absence,
    with the signature's confidence: ROCm's own compiler is not a CUDA cause in a ROCm build."""
    d = _diag(_lines("rocmhome-torchvision-rocm-aur-bin-hipcc.log"))
    assert d.root.cause_id == "cuda_toolkit_not_found" and d.root.confidence >= 0.8
    assert d.root.values.get("hipcc") == "bin/hipcc"


def test_cuda_cause_in_a_rocm_build_is_only_a_guess():
    # the ROCm build command of ROCm/pytorch#728, then the CUDA header error of
    # NVlabs/imaginaire#154 (two real logs one after the other)
    rocm = [
        "RCCL_DIR=/opt/rocm/rccl/lib/cmake/rccl/ PYTORCH_ROCM_ARCH=gfx906 hip_DIR=/opt/rocm/hip/cmake/ "
        "USE_NVCC=OFF BUILD_CAFFE2_OPS=0 PATH=/usr/lib/ccache/:$PATH USE_CUDA=OFF  python3 setup.py bdist_wheel"
    ]
    cuda = _lines("cudart-h-imaginaire-conda.log")
    assert stated(_diag(cuda).root)
    d = _diag(rocm + cuda)
    assert d.root.cause_id == "cuda_toolkit_incomplete" and d.root.confidence <= 0.5
    assert any("ROCm" in n for n in d.notes)


# ---------------------------------------------------------------- structure
@pytest.mark.parametrize("name", ["nvcc-arch30-nccl-pytorch-build.log", "stdfunction-visrtx-gcc114-nvcc115.log"])
def test_failed_block_without_its_command_line_is_diagnosed_the_same(name):
    lines = _lines(name)
    full = _diag(lines)
    i = next(i for i, t in enumerate(lines) if t.lstrip().startswith("FAILED:"))
    cut = _diag(lines[: i + 1] + lines[i + 2 :])  # the command line removed, as in a cut log
    assert full.root.cause_id == cut.root.cause_id != "unknown"


def test_failed_step_keeps_its_command_when_it_is_there():
    lines = _lines("nvcc-arch30-nccl-pytorch-build.log")
    d = _diag(lines)
    assert d.root.cause_id == "cuda_arch_unsupported"
    assert d.root.step is not None and d.root.step.line == 1 and d.root.step.command_line == 2


def test_failed_line_directly_followed_by_unsupported_gnu_version():
    # the example, with the error line of ceccocats/tkDNN#134
    d = diagnose_text("""
        FAILED: kernels_generated_upsample.cu.o
        /usr/local/cuda/include/crt/host_config.h:138:2: error: #error -- unsupported GNU version! gcc versions later than 8 are not supported!
          138 | #error -- unsupported GNU version! gcc versions later than 8 are not supported!
        ninja: build stopped: subcommand failed.
    """)  # noqa: E501 (verbatim log lines)
    assert d.root.cause_id == "host_compiler_unsupported" and d.root.confidence >= 0.9
    assert d.root.line == 2
    assert d.failing_step is not None and d.failing_step.line == 1 and d.failing_step.command_line is None


def test_error_200_mb_above_the_end_is_found(tmp_path):
    # a real failure (tests/diagnose/realworld/nvcc-arch30-nccl-pytorch-build.log) followed
    # by 200 MB of a parallel build's progress and warning lines
    real = (CORPUS / "nvcc-arch30-nccl-pytorch-build.log").read_bytes()
    noise = b"".join(
        b"[%d/90000] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/aten/src/ATen/native/K%d.cpp.o\n"
        b"/src/aten/src/ATen/native/K%d.cpp:12:3: warning: unused variable 'x' [-Wunused-variable]\n" % (i, i, i)
        for i in range(2000)
    )
    p = tmp_path / "big.log"
    with p.open("wb") as f:
        f.write(b"-- Configuring done\n" + real)
        written = 0
        while written < 200 << 20:
            f.write(noise)
            written += len(noise)
        f.write(b"ninja: build stopped: subcommand failed.\n")
    assert p.stat().st_size > FULL_SCAN_BYTES
    d = diagnose_file(p)
    assert d.root.cause_id == "cuda_arch_unsupported"
    assert d.root.line is not None and d.root.line < 20
    assert d.stats.bytes - (len(real) + 20) >= 200 << 20
    # the trigger lines of a plain file were found by the real GNU grep (where it is on PATH), and the note says so
    from torchbuild.facts.logfile.grep_hits import gnu_grep

    if gnu_grep() is not None:
        assert any(f"(found by {gnu_grep()} -a -b -o -E -e rror -e ailed -e RROR -e AILED -- " in n for n in d.notes), (
            d.notes
        )
