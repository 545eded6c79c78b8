"""Issue 11, session 37: rows written from round A's dev logs (batches 415 and later), before its measurement.

* macOS's dyld missing a symbol of libc++ (std::__1) from the system's /usr/lib/libc++.1.dylib: the binary was built
  for a newer macOS (mlverse/torch#1002);
* parallel-hashmap's header missing (acxz/pkgbuilds#227), with the real g++;
* numba's "libNVVM cannot be found" and ctypes' nvvm.dll (xinzhuma/monodle#23);
* conda's UnsatisfiableError "incompatible with your system" and libmamba's "Could not solve for environment specs";
* GNU ld's "cannot open output file X: Permission denied";
* torch/extension.h missing (torch 0.4), a THC header missing from torch's own ATen/cuda header (a CPU-only torch), and
  a call of a torch C++ constructor that no overload takes (torch::jit::RegisterOperators), with the real g++.
"""

from __future__ import annotations

import shutil

import pytest

from torchbuild.decisions.diagnose.signatures import load_signatures

from .conftest import diagnose_text, named_below_sure, run_tool


def test_macos_libcxx_symbol_not_found_is_the_system_cxx_library_too_old():
    """dyld's three lines as the R torch printed them on macOS (mlverse/torch#1002, issue 11 batch 415 dev; recorded
    from the reporter's real Mac: dyld does not run here).  The missing symbol is in libc++'s inline namespace
    std::__1, so the libc++ loaded is older than the binary's: glibcxx_too_old, below the sure bar (one thread)."""
    lib = "/Library/Frameworks/R.framework/Versions/4.1/Resources/library/torch/lib/liblantern.dylib"
    log = "\n".join(
        [
            'Error in cpp_lantern_init(file.path(install_path(), "lib")) :',
            f"  {lib} - dlopen({lib}, 10): Symbol not found: "
            "__ZNSt3__113basic_filebufIcNS_11char_traitsIcEEE4openEPKcj",
            f"  Referenced from: {lib} (which was built for Mac OS X 12.6)",
            "  Expected in: /usr/lib/libc++.1.dylib",
        ]
    )
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature, root.line) == ("glibcxx_too_old", "libcxx-symbol-not-found-macos", 2)
    assert root.confidence < 0.7
    assert "_ZNSt3__113basic_filebuf" in root.explanation


def test_a_torch_symbol_not_found_on_macos_is_not_the_cxx_library():
    """A symbol of torch itself (namespace c10, not std::__1) keeps its own row: the extension and torch differ."""
    log = (
        "OSError: dlopen(/Users/u/miniforge3/lib/python3.9/site-packages/torchaudio/lib/libtorchaudio.so, 0x0006): "
        "Symbol not found: __ZN3c1017RegisterOperatorsD1Ev"
    )
    assert diagnose_text(log).root.cause_id != "glibcxx_too_old"


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_missing_parallel_hashmap(tmp_path):
    """This machine's g++ compiling a file that includes parallel_hashmap/phmap.h, as torch-sparse's csrc/cpu/utils.h
    does (acxz/pkgbuilds#227, issue 11 batch 417 dev): system_library_missing, below the sure bar, since a git
    checkout without the third_party/parallel-hashmap submodule fails the same way (the fix says both)."""
    (tmp_path / "utils.h").write_text('#pragma once\n#include "parallel_hashmap/phmap.h"\n')
    src = tmp_path / "diag_cpu.cpp"
    src.write_text('#include "utils.h"\nint main() { return 0; }\n')
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "diag_cpu.o")]).stderr
    assert "parallel_hashmap/phmap.h: No such file or directory" in out
    root = named_below_sure(out, "system_library_missing", "parallel-hashmap-header-missing")
    assert "submodule" in root.fix


def test_numba_libnvvm_cannot_be_found_is_the_cuda_toolkit_missing():
    """numba's NvvmSupportError and ctypes' nvvm.dll line below it, as pasted on Windows (xinzhuma/monodle#23, issue 11
    batch 420 dev; NVIDIA/numba-cuda#69, batch 334 dev; recorded from the threads: numba's CUDA target does not run
    here).  Both name cuda_toolkit_not_found, the first error first; before, ctypes' line read as a DLL's dependency."""
    log = """
        numba.cuda.cudadrv.error.NvvmSupportError: libNVVM cannot be found. Do `conda install cudatoolkit`:
        Could not find module 'nvvm.dll' (or one of its dependencies). Try using the full path with constructor syntax.
    """
    d = diagnose_text(log)
    assert (d.root.cause_id, d.root.signature, d.root.line) == (
        "cuda_toolkit_not_found",
        "numba-libnvvm-cannot-be-found",
        1,
    )
    only_ctypes = diagnose_text(
        "OSError: Could not find module 'C:\\\\CUDA\\\\nvvm\\\\bin\\\\nvvm64_40_0.dll' (or one of its dependencies)."
    )
    assert only_ctypes.root.cause_id == "cuda_toolkit_not_found"
    assert only_ctypes.root.values.get("lib") == "nvvm64_40_0.dll"


def test_conda_unsatisfiable_with_your_system_and_libmamba_could_not_solve():
    """conda's "incompatible with your system" (pytorch/vision#3264, batch 421 dev) and libmamba's "Could not solve for
    environment specs" (conda-forge/pytorch-cpu-feedstock#390, batch 421 dev), recorded from the threads (conda is not
    installed here): dependency_version_conflict, below the sure bar for the first (its root may be __cuda or
    __glibc, which the fix names)."""
    conda = diagnose_text(
        """
        Solving environment: failed

        UnsatisfiableError: The following specifications were found to be incompatible with your system:

          - feature:/linux-64::__glibc==2.31=0
          - torchvision=0.8.2 -> cudatoolkit[version='>=11.0,<11.1'] -> __glibc[version='>=2.17,<3.0.a0']
        """
    ).root
    assert (conda.cause_id, conda.signature) == ("dependency_version_conflict", "conda-unsatisfiable-with-your-system")
    assert conda.confidence < 0.7 and "__cuda" in conda.fix
    mamba = diagnose_text(
        """
        mamba install python=3.12 torchvision=0.22 pytorch=2.7.1=cuda129_mkl_py312_hd99729e_301
        error    libmamba Could not solve for environment specs
            The following packages are incompatible
            ├─ pytorch =2.7.1 cuda129_mkl_py312_hd99729e_301 is requested and can be installed;
            └─ torchvision =0.22 * is not installable because there are no viable options
        """
    ).root
    assert (mamba.cause_id, mamba.signature) == ("dependency_version_conflict", "libmamba-could-not-solve")
    assert mamba.line == 2


def test_ld_cannot_open_its_output_file_permission_denied():
    """GNU ld's "cannot open output file X: Permission denied" (NVIDIA/VideoProcessingFramework#270, batch 423 dev: an
    extension linked into /usr/bin), recorded from the thread: this machine's tests run as root, whom ld is never
    denied.  permission_denied, with the path."""
    log = """
        /usr/bin/ld: cannot open output file /usr/bin/PytorchNvCodec.cpython-39-x86_64-linux-gnu.so: Permission denied
        collect2: error: ld returned 1 exit status
        error: command '/usr/bin/g++' failed with exit code 1
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.line) == ("permission_denied", 1)
    assert "/usr/bin/PytorchNvCodec.cpython-39-x86_64-linux-gnu.so" in root.explanation


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_without_torch_extension_h(tmp_path):
    """This machine's g++ compiling an extension that includes torch/extension.h against a torch include folder that
    lacks it, as torch 0.4's did (facebookresearch/maskrcnn-benchmark#44, batch 424 dev; SeanNaren/warp-ctc#101, batch
    20): torch_extension_mismatch, below the sure bar."""
    inc = tmp_path / "torch" / "lib" / "include"
    (inc / "TH").mkdir(parents=True)
    (inc / "TH" / "TH.h").write_text("#pragma once\n")
    src = tmp_path / "binding.cpp"
    src.write_text("#include <TH/TH.h>\n#include <torch/extension.h>\nint main() { return 0; }\n")
    out = run_tool(["g++", "-I", str(inc), "-c", str(src), "-o", str(tmp_path / "binding.o")]).stderr
    assert "torch/extension.h: No such file or directory" in out
    named_below_sure(out, "torch_extension_mismatch", "torch-inner-header-missing")


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_thc_missing_from_torchs_own_cuda_header_is_a_cpu_only_torch(tmp_path):
    """This machine's g++ with a torch include folder whose ATen/cuda header includes a THC header the folder lacks, as
    a CPU-only wheel's did (pytorch/pytorch#40356, batch 425 dev): torch_cpu_only.  The same THC header included by the
    extension's own source stays torch_api_removed (thc-header-missing)."""
    inc = tmp_path / "site-packages" / "torch" / "include"
    (inc / "ATen" / "cuda" / "detail").mkdir(parents=True)
    (inc / "ATen" / "cuda" / "detail" / "OffsetCalculator.cuh").write_text(
        "#pragma once\n#include <array>\n#include <THC/THCIntegerDivider.cuh>\n"
    )
    ext = tmp_path / "ext.cpp"
    ext.write_text("#include <ATen/cuda/detail/OffsetCalculator.cuh>\nint main() { return 0; }\n")
    out = run_tool(["g++", "-I", str(inc), "-c", str(ext), "-o", str(tmp_path / "ext.o")]).stderr
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("torch_cpu_only", "torch-own-cuda-header-lacks-thc")
    own = tmp_path / "own.cpp"
    own.write_text("#include <THC/THCIntegerDivider.cuh>\nint main() { return 0; }\n")
    out = run_tool(["g++", "-I", str(inc), "-c", str(own), "-o", str(tmp_path / "own.o")]).stderr
    assert diagnose_text(out).root.cause_id == "torch_api_removed"


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_no_matching_torch_constructor(tmp_path):
    """This machine's g++ calling a torch::jit::RegisterOperators constructor with arguments the declared one does not
    take, as an old spconv did on torch 1.6 (traveller59/spconv#217, batch 427 dev): torch_api_removed, below the sure
    bar.  The header is a stand-in with torch's namespace and class name; the message is g++'s own."""
    (tmp_path / "reg.h").write_text(
        "#pragma once\nnamespace torch { namespace jit {\n"
        "struct RegisterOperators { RegisterOperators(); template <class F> RegisterOperators(F f, int options); };\n"
        "}}\n"
    )
    src = tmp_path / "all.cc"
    src.write_text(
        '#include "reg.h"\nint get_indice_pairs(int);\nint get_indice_pairs(double);\n'
        'static auto r = torch::jit::RegisterOperators("spconv::get_indice_pairs_2d", &get_indice_pairs);\n'
    )
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "all.o")]).stderr
    assert "no matching function for call to" in out
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("torch_api_removed", "torch-cxx-call-no-matching-overload")
    assert "torch::jit::RegisterOperators" in root.explanation


def test_older_gits_submodule_clone_failed_without_the_fatal_prefix():
    """Older git's "Clone of 'URL' into submodule path 'P' failed" (no "fatal: ", a capital C), as pasted in
    torch/distro#66 (batch 430 dev; recorded from the thread: this machine's git prints the newer form, which
    git-fetch-failed reads): source_fetch_failed, with the submodule's path."""
    log = "\n".join(
        [
            "Cloning into 'exe/env'...",
            "Ffatal: u unable to access 'https://github.com/torch/env.git/': Failed to connect to github.com port 443: "
            "Operation timed out",
            "Clone of 'https://github.com/torch/env.git' into submodule path 'exe/env' failed",
        ]
    )
    # the garbled line above it ("Ffatal: u unable to access ...") is read first since git-unable-to-access (round A)
    assert diagnose_text(log).root.cause_id == "source_fetch_failed"
    root = diagnose_text(log.splitlines()[-1]).root
    assert (root.cause_id, root.signature) == ("source_fetch_failed", "git-submodule-clone-failed")
    assert root.values["path"] == "exe/env"


_SSL_MODULE_MISSING = "\n".join(
    [
        "ERROR: Could not find a version that satisfies the requirement torch==1.4.0+cpu",
        "ERROR: No matching distribution found for torch==1.4.0+cpu",
        "WARNING: pip is configured with locations that require TLS/SSL, however the ssl module in Python is not "
        "available.",
        "Could not fetch URL https://pypi.org/simple/pip/: There was a problem confirming the ssl certificate: "
        "HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/pip/ "
        '(Caused by SSLError("Can\'t connect to HTTPS URL because the SSL module is not available.")) - skipping',
    ]
)
_EXPIRED_CERTIFICATE = (
    "Could not fetch URL https://download.pytorch.org/whl/cpu/torchvision/: There was a problem confirming the ssl "
    "certificate: HTTPSConnectionPool(host='download.pytorch.org', port=443): Max retries exceeded with url: "
    "/whl/cpu/torchvision/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] "
    "certificate verify failed: certificate has expired (_ssl.c:1133)'))) - skipping"
)


@pytest.mark.parametrize(
    ("log", "network"),
    [
        (_SSL_MODULE_MISSING, False),
        (_EXPIRED_CERTIFICATE, False),
        (
            "ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='files.pythonhosted.org', "
            "port=443): Max retries exceeded with url: /packages/x.whl",
            True,
        ),
        (
            "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get "
            "local issuer certificate (_ssl.c:1006)",
            True,
        ),
    ],
    ids=["no-ssl-module", "expired-certificate", "connection", "untrusted-certificate"],
)
def test_which_tls_failures_are_the_network(log, network):
    """pip's "Can't connect to HTTPS URL because the SSL module is not available" (pytorch/pytorch#35880, batch 430
    dev: the interpreter has no ssl module; it was source_fetch_failed at 0.75) and a server's expired certificate
    (pytorch/pytorch#150492, batch 430 held-out, read after session 37's measurement of round A: its maintainers
    renewed it) are not read as the network failing, since no cause names them; a connection that fails and a
    certificate that is not trusted (a proxy's, a missing CA bundle) still are source_fetch_failed."""
    assert (diagnose_text(log).root.cause_id == "source_fetch_failed") is network


def test_an_ipython_traceback_listing_is_code_not_the_error():
    """IPython's traceback lists the frame's source: an arrow line, then numbered lines after it, here one that
    raises ModuleNotFoundError("No module named 'megablocks_ops'.").  That is code, not the failure: the error printed
    at the traceback's end (an undefined old-ABI c10 symbol) is the one read (databricks/megablocks#159, issue 11 batch
    274, seen; it was named a missing module).  Which of its two causes comes first is the corpus's open label
    question (torch_extension_mismatch or cxx_abi_mismatch): both are listed."""
    log = "\n".join(
        [
            "     10 # Wrap this in a try-block with better error message and",
            "     11 # instructions for building the c++ operations.",
            "     12 try:",
            "---> 13     import megablocks_ops as ops  # type: ignore",
            "     14 except ModuleNotFoundError as e:",
            "     15     raise ModuleNotFoundError(\"No module named 'megablocks_ops'.\") from e",
            "...",
            "python3.10/site-packages/megablocks_ops.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
            "_ZN3c106detail23torchInternalAssertFailEPKcS2_jS2_RKSs",
        ]
    )
    d = diagnose_text(log)
    assert d.root.line == 8
    assert {"torch_extension_mismatch", "cxx_abi_mismatch"} <= {c.cause_id for c in d.causes}
    assert "python_dependency_missing" not in {c.cause_id for c in d.causes}
    # the same message as a line of its own (the exception itself, no listing around it) is still read
    plain = diagnose_text("ModuleNotFoundError: No module named 'megablocks_ops'.")
    assert "python_dependency_missing" in {c.cause_id for c in plain.causes}


# ---------------------------------------------------------------- after round A's measurement (and round B's dev logs)


def test_cmake_unknown_builtin_command_is_cmake_too_old():
    """CMake 3.18.4 (its PyPI wheel, run here with cmake -P on a one-line script; the output recorded, as the test
    machine's cmake 3.25 knows the command) has no cmake_path: cmake_too_old, naming the command.  An unknown
    function of the project's own (pybind11_add_module, whose files were not included) is not this row
    (apache/tvm#16233, issue 11 batch 428 held-out, read after session 37's measurement of round A)."""
    log = """
        CMake Error at p.cmake:1 (cmake_path):
          Unknown CMake command "cmake_path".
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature, root.values["command"]) == (
        "cmake_too_old",
        "cmake-builtin-command-unknown",
        "cmake_path",
    )
    other = diagnose_text(
        """
        CMake Error at python/CMakeLists.txt:19 (pybind11_add_module):
          Unknown CMake command "pybind11_add_module".
        """
    ).root
    assert other.signature != "cmake-builtin-command-unknown"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_the_real_cmake_documents_every_command_the_row_names():
    """Each command the row cmake-builtin-command-unknown names is one of CMake's own: this machine's cmake (3.25)
    documents it (cmake --help-command), so its being unknown means an older CMake, not a missing include."""
    import re

    row = next(s for s in load_signatures() if s.id == "cmake-builtin-command-unknown")
    names = re.search(r"\(\?P<command>([\w|]+)\)", row.patterns[0]).group(1).split("|")
    assert "cmake_path" in names
    for name in names:
        out = run_tool(["cmake", "--help-command", name])
        assert out.returncode == 0 and name in out.stdout, name


def test_bazel_download_failed_and_a_conda_conflict_of_older_conda():
    """Bazel's "Error downloading [...]" (pytorch/pytorch#80099, batch 430) is source_fetch_failed with the URL; older
    conda's "...were found to be in conflict" (zju3dv/OnePose#21, batch 421) is dependency_version_conflict.  Both
    held-out, read after session 37's measurement of round A; recorded from the threads."""
    url = "https://github.com/llvm/llvm-project/archive/9c6a2f29660b886044a267bb4de662cd801079bc.tar.gz"
    bazel = diagnose_text(
        f"Error in download_and_extract: java.io.IOException: Error downloading [{url}] to /tmp/x.tar.gz: "
        "Read timed out"
    ).root
    assert (bazel.cause_id, bazel.values["url"]) == ("source_fetch_failed", url)
    conda = diagnose_text(
        """
        Solving environment: failed

        UnsatisfiableError: The following specifications were found to be in conflict:
          - pytorch=1.8.0
          - torchvision=0.9.1 -> __glibc[version='>=2.17,<3.0.a0']
        """
    ).root
    assert (conda.cause_id, conda.signature) == ("dependency_version_conflict", "conda-unsatisfiable")


def test_metatensor_without_a_build_for_this_torch():
    """metatensor-torch's loader listing the torch versions it has builds for (TorchSim/torch-sim#178, batch 429
    held-out, read after session 37's measurement of round A): torch_extension_mismatch with both versions' sides."""
    log = (
        "ImportError: Trying to load metatensor-torch with torch v2.7.0+cu126, we found builds for torch v2.3, v2.2, "
        "v2.0, v2.6, v1.12, v2.4, v1.13, v2.5, v2.1; which are not ABI compatible."
    )
    root = diagnose_text(log).root
    assert (root.cause_id, root.values["package"], root.values["torch"]) == (
        "torch_extension_mismatch",
        "metatensor-torch",
        "2.7.0+cu126",
    )


def test_an_executorch_runtime_symbol_is_not_libtorchs():
    """ld.lld's undefined torch::executor::... (pytorch/executorch#10389, batch 431 dev: ExecuTorch's MediaTek backend
    and a vendor library, a packaging bug of the project) is not read as an extension built for another torch, where
    it was torch_extension_mismatch at 0.75; a c10:: symbol still is."""
    executorch = "ld.lld: error: undefined symbol: torch::executor::neuron::BufferAllocator::Find(void*)"
    assert diagnose_text(executorch).root.cause_id != "torch_extension_mismatch"
    mangled = "ImportError: /x/libnb.so: undefined symbol: _ZN5torch8executor6neuron15BufferAllocator4FindEPv"
    assert diagnose_text(mangled).root.cause_id != "torch_extension_mismatch"
    c10 = "ImportError: undefined symbol: c10::cuda::c10_cuda_check_implementation(int, char const*, int, bool)"
    assert diagnose_text(c10).root.cause_id == "torch_extension_mismatch"


def test_nvidia_container_cli_cuda_requirement_is_the_host_driver():
    """The NVIDIA Container Toolkit's "requirement error: unsatisfied condition: cuda>=10.0" (anibali/docker-pytorch#19,
    batch 433 dev; recorded from the thread: no docker here): cuda_driver_too_old, with what the image needs."""
    log = (
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:346: starting container "
        'process caused "process_linux.go:449: container init caused \\"process_linux.go:432: running prestart hook 0 '
        'caused \\\\\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: requirement error: '
        'unsatisfied condition: cuda>=10.0\\\\\\\\n\\\\\\"\\"": unknown.'
    )
    root = diagnose_text(log).root
    assert (root.cause_id, root.values["need"]) == ("cuda_driver_too_old", "cuda>=10.0")


def test_findcuda_looking_for_cublas_device_is_an_old_cmake():
    """CMake's NOTFOUND list naming CUDA_cublas_device_LIBRARY (ceccocats/tkDNN#39, batch 434 dev: CMake 3.10 with
    CUDA 10): cmake_too_old, where the generic reading said the toolkit lacks cublas (cuda_toolkit_incomplete at 0.8);
    another CUDA library NOTFOUND keeps that reading."""
    log = """
        CMake Error: The following variables are used in this project, but they are set to NOTFOUND.
        Please set them or make sure they are set and tested correctly in the CMake files:
        CUDA_cublas_device_LIBRARY (ADVANCED)
            linked by target "tkDNN" in directory /home/work/deep_learning/tkDNN
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.line) == ("cmake_too_old", 3)
    other = diagnose_text(log.replace("cublas_device", "cublas")).root
    assert other.cause_id == "cuda_toolkit_incomplete"


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_missing_nccl_h(tmp_path):
    """This machine's g++ compiling nccl-tests' common.h, which includes nccl.h, with no NCCL on the include path
    (NVIDIA/nccl-tests#81, batch 435 dev: NCCL_HOME pointed at the source folder, not the build one):
    system_library_missing below the sure bar, the fix naming NCCL_HOME."""
    (tmp_path / "common.h").write_text('#pragma once\n#include "nccl.h"\n')
    src = tmp_path / "all_reduce.cu.cpp"
    src.write_text('#include "common.h"\nint main() { return 0; }\n')
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "all_reduce.o")]).stderr
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("system_library_missing", "nccl-header-missing")
    assert root.confidence < 0.7 and "NCCL_HOME" in root.fix


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_loader_missing_a_cxx11_abi_tagged_function(tmp_path):
    """A library built with _GLIBCXX_USE_CXX11_ABI=0 and a module built with the new ABI calling its function that
    returns std::string, loaded for real (ctypes, RTLD_NOW): the loader's "undefined symbol: ...B5cxx11Ev" names
    cxx_abi_mismatch below the sure bar, as in NVIDIA/MinkowskiEngine#15 (batch 422 held-out, read after session 37's
    measurement of round A)."""
    import ctypes

    (tmp_path / "coords.h").write_text("#include <string>\nstruct CoordsManager { std::string toString() const; };\n")
    (tmp_path / "coords.cpp").write_text(
        '#include "coords.h"\nstd::string CoordsManager::toString() const { return "c"; }\n'
    )
    (tmp_path / "mod.cpp").write_text(
        '#include "coords.h"\nextern "C" int use() { return (int)CoordsManager().toString().size(); }\n'
    )
    lib = tmp_path / "libcoords.so"
    mod = tmp_path / "mod.so"
    for cmd in (
        ["g++", "-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=0", str(tmp_path / "coords.cpp"), "-o", str(lib)],
        [
            "g++",
            "-shared",
            "-fPIC",
            "-D_GLIBCXX_USE_CXX11_ABI=1",
            str(tmp_path / "mod.cpp"),
            "-o",
            str(mod),
            "-L",
            str(tmp_path),
            "-lcoords",
            f"-Wl,-rpath,{tmp_path}",
        ],
    ):
        assert run_tool(cmd).returncode == 0, cmd
    with pytest.raises(OSError) as err:
        ctypes.CDLL(str(mod), mode=ctypes.RTLD_GLOBAL)
    message = f"ImportError: {err.value}"
    assert "B5cxx11" in message
    named_below_sure(message, "cxx_abi_mismatch", "undefined-symbol-new-abi-string-any-library")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_real_git_in_chinese_unable_to_access(tmp_path):
    """This machine's git cloning from a closed port on loopback with LANGUAGE=zh_CN ("致命错误：无法访问 'URL'：Failed
    to connect ..."), put back in English by localized.toml's git rows (read from Debian 12 git 2.39.5's git.mo by
    scripts/gen-localized-messages): source_fetch_failed with the URL, as the line alone was in shenyunhang/APE#6
    (batch 430 held-out, read after session 37's measurement of round A)."""
    import os
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"https://127.0.0.1:{port}/x.git/"
    env = dict(os.environ, LANGUAGE="zh_CN", LC_ALL="C.UTF-8", GIT_TERMINAL_PROMPT="0")
    out = subprocess.run(
        ["git", "clone", url, str(tmp_path / "y")], capture_output=True, text=True, env=env, check=False
    ).stderr
    if "无法访问" not in out:
        pytest.skip("git has no zh_CN catalog here")
    root = diagnose_text(out).root
    assert (root.cause_id, root.values["url"]) == ("source_fetch_failed", url)
    alone = out[out.index("无法访问") :]  # the message without git's "致命错误：", as pip quoted it
    assert diagnose_text(alone).root.cause_id == "source_fetch_failed"


def test_older_nvrtcs_failed_to_load_builtins():
    """Older NVRTC's "nvrtc: error: failed to load builtins" (openmm/openmm#1485 on macOS, batch 420 held-out, read
    after session 37's measurement of round A; recorded from the thread) reads like the newer "failed to open
    libnvrtc-builtins.so.X": shared_library_not_found."""
    root = diagnose_text("Exception: Error compiling program: nvrtc: error: failed to load builtins").root
    assert (root.cause_id, root.signature) == ("shared_library_not_found", "nvrtc-builtins-not-found")
    assert "libnvrtc-builtins" in root.explanation


# ------------------------------------------------- after round B's measurement (and round C's dev logs)


def test_msvc_cmath_calling_host_intrinsics_in_device_code():
    """MSVC 14.28.29910's <cmath> under nvcc (pytorch/pytorch#56899, batch 441 dev; #54382, batch 5 held-out, seen;
    recorded from the threads: no MSVC here): msvc_toolset_bug with the toolset's version."""
    log = (
        "C:\\Program Files (x86)\\Microsoft Visual Studio\\2019\\Enterprise\\VC\\Tools\\MSVC\\14.28.29910\\include\\"
        'cmath(68): error : calling a __host__ function("__ceilf") from a __host__ __device__ function("ceil") is not '
        "allowed [D:\\Source\\pytorch\\build\\caffe2\\torch_cuda.vcxproj]"
    )
    root = diagnose_text(log).root
    assert (root.cause_id, root.values["toolset"]) == ("msvc_toolset_bug", "14.28.29910")


def test_the_real_python_without_torch_utils_cpp_extension(tmp_path):
    """This Python importing torch.utils.cpp_extension from a torch package that lacks it (a stand-in for torch
    0.3.1, rusty1s/pytorch_unique#5, batch 439 held-out, read after session 37's measurement of round B): Python's own
    ModuleNotFoundError names torch_extension_mismatch."""
    import subprocess
    import sys

    (tmp_path / "torch" / "utils").mkdir(parents=True)
    (tmp_path / "torch" / "__init__.py").write_text("__version__ = '0.3.1'\n")
    (tmp_path / "torch" / "utils" / "__init__.py").write_text("")
    out = subprocess.run(
        [sys.executable, "-c", "from torch.utils.cpp_extension import BuildExtension"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    ).stderr
    assert "No module named 'torch.utils.cpp_extension'" in out
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("torch_extension_mismatch", "torch-without-cpp-extension")


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_cudnn_struct_without_a_member(tmp_path):
    """This machine's g++ reading a member that a cuDNN struct of the headers found lacks (a stand-in cudnn.h with
    cuDNN v5's cudnnConvolutionBwdDataAlgoPerf_t, no determinism: pytorch/pytorch#3093, batch 439 held-out, read after
    session 37's measurement of round B): cudnn_unusable below the sure bar, naming the type and the member."""
    (tmp_path / "cudnn.h").write_text(
        "#pragma once\ntypedef struct { int algo; float time; } cudnnConvolutionBwdDataAlgoPerf_t;\n"
    )
    src = tmp_path / "Conv.cpp"
    src.write_text('#include "cudnn.h"\nint pick(cudnnConvolutionBwdDataAlgoPerf_t p) { return p.determinism; }\n')
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "Conv.o")]).stderr
    root = diagnose_text(out).root
    assert (root.cause_id, root.values["member"]) == ("cudnn_unusable", "determinism")
    assert root.confidence < 0.7


def test_ninja_missing_library_cut_after_missing_and_msvc_without_its_c_runtime():
    """ninja's "'lib', needed by 'target', missing" cut after "missing" in the paste (hailo-ai/hailo-apps#140, batch
    431) is system_library_missing; MSVC's C1083 for stddef.h from its own <cstddef> (YanWenKun/Hunyuan3D-2-WinPortable
    #95, batch 436) is compiler_missing, not a library's header.  Both held-out, read after session 37's measurement of
    round B; recorded from the threads (ninja here prints the whole message, which the row read before)."""
    ninja = (
        "ninja: error: '/usr/lib/aarch64-linux-gnu/libgsthailometa.so.5.1.0', needed by "
        "'cpp/libyolo_hailortpp_postprocess.so', missing"
    )
    root = diagnose_text(ninja).root
    assert (root.cause_id, root.values["lib"]) == (
        "system_library_missing",
        "/usr/lib/aarch64-linux-gnu/libgsthailometa.so.5.1.0",
    )
    msvc = (
        "C:\\Program Files (x86)\\Microsoft Visual Studio\\2022\\BuildTools\\VC\\Tools\\MSVC\\14.44.35207\\include\\"
        "cstddef(11): fatal error C1083: Cannot open include file: 'stddef.h': No such file or directory"
    )
    root = diagnose_text(msvc).root
    assert (root.cause_id, root.values["header"]) == ("compiler_missing", "stddef.h")
    assert root.confidence < 0.7


def test_torch_tensor_h_missing_is_another_torch():
    """torch/tensor.h missing where the code was written for torch 1.0's headers and torch 0.4.1 was installed
    (zhanghang1989/PyTorch-Encoding#132, batch 439 held-out, read after session 37's measurement of round B)."""
    root = diagnose_text(
        "encoding/lib/cpu/syncbn_cpu.cpp:1:26: fatal error: torch/tensor.h: No such file or directory"
    ).root
    assert (root.cause_id, root.signature) == ("torch_extension_mismatch", "torch-inner-header-missing")


# ------------------------------------------------------------------------- after round C's measurement


def test_vs2019_16_9_floorf_seen_from_the_projects_own_cu_file():
    """The Visual Studio 2019 16.9 <cmath> change as the project's .cu file shows it (no MSVC path on the line):
    "calling a __host__ function("__floorf") from a __global__ function" and "identifier "__floorf" is undefined in
    device code" (davisking/dlib#2323, open-mmlab/mmcv#888, CMU-Perceptual-Computing-Lab/openpose#1886, RTK PR 417:
    batches 441-442 held-out, read after session 37's measurement of round C; recorded from the threads)."""
    for line in (
        '2>C:/MLCNN/dlib-19.21/dlib/cuda/cuda_dlib.cu(1497): error : calling a __host__ function("__floorf") from a '
        '__global__ function("dlib::cuda::_cuda_resize_bilinear") is not allowed',
        'C:/x/mmcv/ops/csrc\\roi_pool_kernel.cuh(42): error: identifier "__ceilf" is undefined in device code',
    ):
        root = diagnose_text(line).root
        assert root.cause_id == "msvc_toolset_bug"
        assert "16.9" in root.explanation
    # a call of the project's own host function from device code is the project's bug, not the toolset's
    own = 'k.cu(3): error: calling a __host__ function("helper") from a __global__ function("kern") is not allowed'
    assert diagnose_text(own).root.cause_id != "msvc_toolset_bug"


def test_older_nvcc_on_gcc_6_type_traits():
    """An older nvcc's EDG front end on GCC 6.1's <type_traits> ("space required between adjacent ">" delimiters",
    torch/torch.github.io#54, batch 442 held-out, read after session 37's measurement of round C):
    nvcc_host_stdlib_incompatible, as its other EDG errors on those headers were."""
    line = (
        '/usr/include/c++/6.1.1/type_traits(842): error: space required between adjacent ">" delimiters of nested '
        'template argument lists (">>" is the right shift operator)'
    )
    assert diagnose_text(line).root.cause_id == "nvcc_host_stdlib_incompatible"
