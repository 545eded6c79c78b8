"""Issue 11, session 24: general tool messages, and the dev logs of batches 55 and later
(tests/diagnose/realworld, index.toml), each failure reproduced with the real tool where it runs here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from torchbuild.decisions.diagnose.model import CALIBRATED_CAP
from torchbuild.decisions.diagnose.signatures import load_precision

from .conftest import ROWS, stated
from .conftest import causes_of as _causes
from .conftest import corpus_lines as _lines
from .conftest import diagnose_list as _diag
from .conftest import run_tool as _run


def _dlopen_after(first: Path, second: Path, cwd: Path) -> str:
    """What real glibc's loader says (Python's ctypes, in a child process) when ``second`` is loaded after
    ``first`` was loaded with RTLD_GLOBAL, as a library found first on the path would be: the stderr text."""
    code = f"import ctypes\nctypes.CDLL({str(first)!r}, mode=ctypes.RTLD_GLOBAL)\nctypes.CDLL({str(second)!r})\n"
    return _run([sys.executable, "-c", code], cwd).stderr


def _stand_in(tmp_path: Path, folder: str, soname: str, node: str, symbol: str) -> Path:
    """A shared library built here with real gcc and a version script: ``<folder>/<soname>`` exporting
    ``int symbol(void)`` under version node ``node`` (a stand-in of a system library's versioned soname)."""
    (tmp_path / folder).mkdir(exist_ok=True)
    (tmp_path / f"{folder}.c").write_text(f"int {symbol}(void) {{ return 0; }}\n")
    (tmp_path / f"{folder}.map").write_text(f"{node} {{ global: {symbol}; local: *; }};\n")
    cmd = ["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", f"{folder}.c", f"-Wl,--version-script={folder}.map"]
    assert _run([*cmd, "-o", f"{folder}/{soname}"], tmp_path).returncode == 0
    return tmp_path / folder / soname


def _linked_against(tmp_path: Path, name: str, library: Path, symbol: str) -> Path:
    """A shared library ``name`` built here with real gcc that calls ``symbol`` from ``library``."""
    (tmp_path / f"{name}.c").write_text(f"int {symbol}(void);\nint use(void) {{ return {symbol}(); }}\n")
    assert _run(["gcc", "-shared", "-fPIC", f"{name}.c", str(library), "-o", name], tmp_path).returncode == 0
    return tmp_path / name


_HOST_CONFIG = Path("/usr/local/cuda/include/crt/host_config.h")


@pytest.mark.parametrize("compiler", ["GNU", "clang", "Microsoft Visual Studio"])
def test_nvcc_host_config_rejection_as_each_compiler_prints_it(compiler):
    """The real ``#error`` directives of the CUDA toolkit installed here (13.0's crt/host_config.h),
    rendered the way each host compiler prints an ``#error``: gcc "error: #error -- ...", MSVC
    "fatal error C1189: #error:  -- ...", clang only the text, "error: -- unsupported clang
    version! ..." (clang is not installed here; that form is the one pasted in public threads, e.g.
    a CUDA 12.1 build with clang 17)."""
    if not _HOST_CONFIG.is_file():
        pytest.skip("no CUDA toolkit headers on this machine")
    lines = _HOST_CONFIG.read_text(encoding="utf-8", errors="replace").splitlines()
    no, text = next(
        (i, t.strip()) for i, t in enumerate(lines, 1) if re.match(rf"#error -- unsupported {compiler} version!", t)
    )
    message = text.removeprefix("#error").strip()
    rendered = {
        "GNU": f"{_HOST_CONFIG}:{no}:2: error: #error {message}",
        "clang": f"{_HOST_CONFIG}:{no}:2: error: {message}",
        "Microsoft Visual Studio": f"{_HOST_CONFIG}({no}): fatal error C1189: #error:  {message}",
    }[compiler]
    d = _diag(["In file included from /usr/local/cuda/include/cuda_runtime.h:82:", rendered])
    assert d.root.cause_id == "host_compiler_unsupported", _causes(d)
    assert d.root.confidence >= 0.9
    # the project's own "error: -- ..." text that is not nvcc's check is not this cause
    d = _diag(["src/a.cpp:3:2: error: -- unsupported platform! build on Linux"])
    assert d.root.cause_id != "host_compiler_unsupported", _causes(d)


def test_the_distributions_nvcc_failing_alone_hints_another_cuda():
    """setuptools' summary naming /usr/bin/nvcc (Debian/Ubuntu's nvidia-cuda-toolkit) is the only line of the
    batch 55 dev log (mit-han-lab/torchsparse#78: nvcc 9.1 beside CUDA 10.2): a low-confidence hint of another
    CUDA; the same summary of a toolkit's own nvcc says nothing."""
    name = "torchsparse-nvcc-91-vs-cuda-102.log"
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "cuda_version_mismatch"
    assert d.root.confidence < 0.7
    d = _diag(["error: command '/usr/local/cuda-12.1/bin/nvcc' failed with exit code 1"])
    assert d.root.cause_id == "unknown", _causes(d)


def test_a_cudnn_soname_is_not_a_cuda_version():
    """ "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open ..." (batch 58 dev, WSL2)
    is the driver's libcuda.so missing from the loader's path; the 8 is cuDNN's major version, never a CUDA 8
    runtime beside the log's CUDA 11.3."""
    name = "import-pytorch-wsl2-conda-libcudnn-cnn-infer-libcuda-missing.log"
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "shared_library_not_found", _causes(d)
    assert "libcuda.so" in d.root.explanation
    d = _diag(["cudatoolkit 11.8", "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory"])
    # cuDNN's own library missing is cuDNN missing (cudnn_unusable; session 25, batch 102 held-out)
    assert d.root.cause_id == "cudnn_unusable", _causes(d)
    assert "CUDA 8" not in d.root.explanation + " ".join(d.notes)


def test_a_stale_lock_of_torchs_real_file_baton(tmp_path):
    """Real torch (2.13 here): FileBaton.wait on a lock file that nobody will remove, as
    cpp_extension._jit_compile waits on <build dir>/lock; faulthandler's stack dump (what pytest-timeout
    prints, PASSIONLab/OpenEquivariance#156, batch 58 dev) shows the waiting frame."""
    pytest.importorskip("torch")
    lock = tmp_path / "lock"
    lock.write_text("")
    code = (
        "import faulthandler, sys\n"
        "from torch.utils.file_baton import FileBaton\n"
        "faulthandler.dump_traceback_later(2, exit=True)\n"
        f"FileBaton({str(lock)!r}, wait_seconds=0.05).wait()\n"
    )
    p = _run([sys.executable, "-c", code])
    assert "file_baton.py" in p.stderr and "in wait" in p.stderr, p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "stale_build_dir", (p.stderr, _causes(d))
    assert d.root.confidence >= 0.7
    assert "lock" in d.root.fix
    name = "jit-openequivariance-ci-hang-filebaton-stale-lock.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


def test_a_jit_load_that_stops_after_naming_its_extensions_root():
    """Only torch's "Using X as PyTorch extensions root..." and nothing after it (OpenRLHF/OpenRLHF#208, batch 58
    dev: a multi-node job hung on a shared cache) hints a stale lock, not confidently; a warning that says more
    beside it (cl not found: batch 15) stays the answer."""
    name = "jit-openrlhf-slurm-multinode-torch-extensions-hang.log"
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "stale_build_dir"
    assert d.root.confidence < 0.7
    name = "msvc-extension-cpp-jit-load-cl-not-on-path.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "compiler_missing"
    # with a real error after it the line is only context
    d = _diag(
        [
            "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...",
            "x.cu:3:10: fatal error: cusparse.h: No such file or directory",
        ]
    )
    assert d.root.cause_id == "cuda_toolkit_incomplete", _causes(d)


def test_pips_get_requires_hook_failing_without_its_output():
    """ "Getting requirements to build editable ... error" with its output cut (flagos-ai/FlagCX#357, batch 57
    dev): the isolated environment lacked torch, named below 0.7; with the hook's output the output decides."""
    name = "pip-flagcx-torch-plugin-develop-build-isolation-no-torch.log"
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "torch_missing_in_build_env"
    assert d.root.confidence < 0.7
    d = _diag(
        [
            "  Getting requirements to build wheel ... error",
            "  error: subprocess-exited-with-error",
            "      ModuleNotFoundError: No module named 'skbuild'",
        ]
    )
    assert d.root.cause_id == "python_dependency_missing", _causes(d)


def test_cmake_prints_a_cudnn_variable_notfound(tmp_path):
    """Real CMake: a find_library of cuDNN that finds nothing leaves <VAR>-NOTFOUND, which a build script prints
    (dmlc/dgl#647, batch 58 dev: "-- Found CUDA_CUDNN_LIBRARY=CUDA_CUDNN_LIBRARY-NOTFOUND")."""
    if shutil.which("cmake") is None:
        pytest.skip("needs cmake")
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\n"
        "find_library(CUDA_CUDNN_LIBRARY cudnn_not_here PATHS ${CMAKE_CURRENT_SOURCE_DIR} NO_DEFAULT_PATH)\n"
        'message(STATUS "Found CUDA_CUDNN_LIBRARY=${CUDA_CUDNN_LIBRARY}")\n'
    )
    p = _run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b")])
    assert "CUDA_CUDNN_LIBRARY-NOTFOUND" in p.stdout, p.stdout
    # the log as pasted stops at that line (a configure that went on to "Build files have been written" says
    # the missing cuDNN did not stop it, and then it explains nothing)
    out = p.stdout.splitlines()
    d = _diag(out[: next(i for i, t in enumerate(out) if "NOTFOUND" in t) + 1])
    assert d.root.cause_id == "cudnn_unusable", _causes(d)
    assert d.root.confidence < 0.7
    name = "cmake-dgl-hpc-cudnn-not-in-cuda-root-notfound.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


def test_cuda_home_set_like_path_in_torchs_real_include_flags(tmp_path):
    """Real torch (2.13 here): cpp_extension takes CUDA_HOME as set (_find_cuda_home) and joins it with "include"
    for the include flags (_join_cuda_home; done here by hand, since a CPU-only torch leaves its CUDA_HOME None),
    so a CUDA_HOME set like PATH gives a folder that does not exist; real g++ then misses cuda_runtime_api.h.  The
    toolkit is not found (vacancy/PreciseRoIPooling#48, batch 61 dev), not incomplete."""
    pytest.importorskip("torch")
    env = dict(os.environ, CUDA_HOME="/usr/local/cuda:/usr/local/cuda")
    code = (
        "import os\nfrom torch.utils.cpp_extension import _find_cuda_home\n"
        "print(os.path.join(_find_cuda_home(), 'include'))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    cuda_include = p.stdout.strip().splitlines()[-1]
    assert cuda_include == "/usr/local/cuda:/usr/local/cuda/include", p.stdout
    src = tmp_path / "k.cpp"
    src.write_text('#include "cuda_runtime_api.h"\n')
    cc = _run(["g++", "-nostdinc", "-isystem", cuda_include, "-c", str(src), "-o", str(tmp_path / "k.o")])
    assert "cuda_runtime_api.h: No such file or directory" in cc.stderr, cc.stderr
    lines = [*cc.stderr.splitlines(), f"-isystem {cuda_include}"]
    d = _diag(lines)
    assert d.root.cause_id == "cuda_toolkit_not_found", _causes(d)
    # without the list the missing header stays an incomplete toolkit
    assert _diag(cc.stderr.splitlines()).root.cause_id == "cuda_toolkit_incomplete"
    name = "prroi-pooling-jit-cuda-home-path-list.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


def test_setup_py_of_the_flash_attention_family_without_nvcc():
    """mamba-ssm's setup.py (copied from flash-attention's) sets bare_metal_version only when CUDA_HOME is set
    (state-spaces/mamba#104, batch 62 dev): its NameError is the toolkit not found; another NameError is not."""
    name = "pip-mamba-ssm-bare-metal-version-no-nvcc.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "cuda_toolkit_not_found"
    d = _diag(["NameError: name 'bare_metal_version_x' is not defined"])
    assert d.root.cause_id != "cuda_toolkit_not_found", _causes(d)


def test_a_standard_library_without_filesystem(tmp_path):
    """Real g++ without its C++ library's headers (-nostdinc++) prints what a compiler older than <filesystem>
    prints (NVlabs/tiny-cuda-nn#352, batch 60 dev: gcc 7.5, fixed with gcc 9); a project header named like it
    is not the compiler's age."""
    src = tmp_path / "fs.cpp"
    src.write_text("#include <filesystem>\n")
    p = _run(["g++", "-nostdinc++", "-c", str(src), "-o", str(tmp_path / "fs.o")])
    assert "fatal error: filesystem: No such file or directory" in p.stderr, p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "compiler_too_old", _causes(d)
    d = _diag(["a.cpp:1:10: fatal error: boost/filesystem.hpp: No such file or directory"])
    assert d.root.cause_id != "compiler_too_old", _causes(d)
    name = "build-tiny-cuda-nn-torch-bindings-gcc7-filesystem.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


@pytest.mark.parametrize("tool", ["nvcc", "g++"])
def test_a_scalar_type_given_to_an_older_torchs_at_type(tmp_path, tool):
    """Real nvcc 13 (EDG) and g++ 12 on code that passes a c10::ScalarType where the headers' function takes an
    at::Type (torch's API before the AT_DISPATCH_* macros took ScalarType): the extension is newer than this
    torch (xinntao/EDVR#105, batch 61 dev).  causes.md has no id for a torch older than the extension: session 51
    removed the row that named it torch_api_removed (3 of the 4 seen logs with the message were labelled unknown,
    the EDVR log torch_api_removed), so the message is no cause of its own now."""
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"needs {tool}")
    src = tmp_path / ("s.cu" if tool == "nvcc" else "s.cpp")
    src.write_text(
        "namespace at { struct Type { int x; }; }\nnamespace c10 { enum class ScalarType { Float }; }\n"
        "void f(const at::Type& t);\nvoid g() { f(c10::ScalarType::Float); }\n"
    )
    p = _run([exe, "-c", str(src), "-o", str(tmp_path / "s.o")])
    assert p.returncode != 0
    d = _diag((p.stdout + p.stderr).splitlines())
    assert d.root.cause_id == "unknown", (p.stdout + p.stderr, _causes(d))
    name = "ext-maskrcnn-benchmark-nms-cpu-scalar-type-user-site-torch.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "unknown"


def test_the_real_loader_with_a_libgomp_older_than_the_module_wants(tmp_path):
    """Real glibc loader (ctypes): a library built against a libgomp.so.1 whose symbols carry GOMP_4.0, loaded
    beside an older libgomp.so.1 without that version node (torch's bundled copy, SeanNaren/deepspeech.pytorch#82,
    batch 65 dev).  Stand-ins built here with version scripts: "version `GOMP_4.0' not found"."""
    new = _stand_in(tmp_path, "new", "libgomp.so.1", "GOMP_4.0", "omp_thing")
    old = _stand_in(tmp_path, "old", "libgomp.so.1", "GOMP_1.0", "omp_other")
    warp = _linked_against(tmp_path, "libwarpctc.so", new, "omp_thing")
    err = _dlopen_after(old, warp, tmp_path)
    assert "version `GOMP_4.0' not found" in err, err
    d = _diag(err.splitlines())
    assert d.root.cause_id == "glibcxx_too_old", _causes(d)
    assert d.root.values.get("ver") == "GOMP_4.0"
    name = "import-warpctc-deepspeech-libgomp-gomp40-not-found.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


def test_pkg_resources_gone_from_setuptools_82(tmp_path):
    """Real Python without site-packages cannot import pkg_resources, as under setuptools 82 (its wheel has no
    pkg_resources; 81.0.0's has: read here): code that still imports it, an older torch's cpp_extension among
    them (geopavlakos/hamer#139, batch 64 dev), fails; named below 0.7, since a venv without setuptools prints the
    same."""
    p = _run([sys.executable, "-I", "-S", "-c", "import pkg_resources"], tmp_path)
    assert "No module named 'pkg_resources'" in p.stderr, p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "dependency_version_conflict", _causes(d)
    assert d.root.confidence < 0.7 and "setuptools<82" in d.root.fix
    name = "import-hamer-cpp-extension-setuptools82-no-pkg-resources.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


def test_markdown_underscore_after_a_cuda_launch_symbol():
    """ "__roi_pooling.so: undefined symbol: __cudaPopCallConfiguration_" (roytseng-tw/Detectron.pytorch, batch 65
    dev: Markdown emphasis kept an underscore) is the launch symbol all the same; THC's "cuda runtime error (8) :
    invalid device function" (pytorch/pytorch#1557, batch 65 dev) names a kernel without code for the GPU, below
    0.7."""
    name = "import-detectron-pytorch-roi-pooling-cudapopcallconfiguration.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "cuda_version_mismatch"
    name = "runtime-pytorch-source-build-other-node-invalid-device-function.log"
    d = _diag(_lines(name))
    assert d.root.cause_id == ROWS[name]["cause"] == "no_kernel_image"
    assert d.root.confidence < 0.7


def test_relocation_truncated_in_a_build_without_gpu_code():
    """ "relocation truncated to fit: R_AARCH64_CALL26" in a CPU-only AArch64 build (pytorch/pytorch#172631,
    batch 70 dev) has no fat binary to blame: the arch list is named below 0.7; beside libtorch_hip's fat-binary
    section (batch 7) it stays confident."""
    name = "pytorch-pytorch-aarch64-gcc14-static-runtime-benchmark-call26-relocation.log"
    d = _diag(_lines(name))
    assert d.root.confidence < 0.7, _causes(d)
    d = _diag(_lines("fatbin-rocm-libtorch-hip-debug-relocation.log"))
    assert d.root.cause_id == "cuda_arch_list_too_large" and stated(d.root)


def test_the_real_loader_with_an_older_nvjitlink_found_first(tmp_path):
    """Real glibc loader (ctypes): a stand-in of CUDA 12.8's libcusparse.so.12 that calls
    __nvJitLinkCreate_12_8 from libnvJitLink.so.12, loaded after an older libnvJitLink.so.12 (same version
    node, only the 12.1 entry point): "undefined symbol: __nvJitLinkCreate_12_8, version libnvJitLink.so.12",
    as with another CUDA first on LD_LIBRARY_PATH (isaac-sim/IsaacSim#24, batch 72 dev)."""
    new = _stand_in(tmp_path, "new", "libnvJitLink.so.12", "libnvJitLink.so.12", "__nvJitLinkCreate_12_8")
    old = _stand_in(tmp_path, "old", "libnvJitLink.so.12", "libnvJitLink.so.12", "__nvJitLinkCreate_12_1")
    cusparse = _linked_against(tmp_path, "libcusparse.so.12", new, "__nvJitLinkCreate_12_8")
    err = _dlopen_after(old, cusparse, tmp_path)
    assert "undefined symbol: __nvJitLinkCreate_12_8, version libnvJitLink.so.12" in err, err
    d = _diag(err.splitlines())
    assert d.root.cause_id == "cuda_version_mismatch", _causes(d)
    assert "12.8" in d.root.explanation
    name = "import-isaacsim-source-build-torch-cusparse-nvjitlink-12-8-undefined.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


def test_a_retyped_nvcc_arch_message_and_a_private_compiled_module():
    """ "nvcc fatal unsupported gpu architecture 'compute_86'" retyped in lower case (deepspeedai/DeepSpeed#607,
    batch 72 dev) is nvcc's message; "No module named '_k2'" (k2-fsa/k2#513, batch 71 dev: a wheel for another
    Python) is a compiled module missing: since session 29 unknown first (no cause id says "the project's own
    compiled module was not built"; the log's label), the missing dependency second and below 0.7."""
    name = "source-deepspeed-ops-cuda110-compute86-unsupported.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "cuda_arch_unsupported"
    d = _diag(_lines("import-k2-pip-wheel-cp38-in-python36-env.log"))
    assert d.root.cause_id == "unknown" == ROWS["import-k2-pip-wheel-cp38-in-python36-env.log"]["cause"], _causes(d)
    assert d.causes[1].cause_id == "python_dependency_missing" and d.causes[1].confidence < 0.7, _causes(d)
    d = _diag(["ModuleNotFoundError: No module named 'yaml'"])
    assert d.root.cause_id == "python_dependency_missing" and stated(d.root), _causes(d)


def test_nvcc_sentences_that_are_not_an_unknown_host_flag(tmp_path):
    """nvcc's own sentence "Option '--cl-version' needs to be specified with option '--use-local'" (in the nvcc
    13 driver binary here; printed on Windows, yolov5_obb#270, batch 74 dev: a Visual Studio this CUDA did not
    support) was read as a host flag "Option"; real nvcc 13's reply to a Visual Studio version it does not know
    is no host flag either."""
    found = [Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "nvcc", Path(shutil.which("nvcc") or "")]
    binaries = [p for p in found if p.is_file() and p.read_bytes()[:4] == b"\x7fELF"]  # not a wrapper script
    if not binaries:
        pytest.skip("needs nvcc's driver binary")
    nvcc = str(binaries[0])
    text = binaries[0].read_bytes()
    sentence = b"Option '--cl-version' needs to be specified with option '--use-local'"
    assert sentence in text
    d = _diag(["nvcc fatal   : " + sentence.decode()])
    assert d.root.cause_id == "host_compiler_unsupported" and d.root.confidence < 0.7, _causes(d)
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k() {}\n")
    p = _run([nvcc, "--cl-version", "2019", "-c", str(src), "-o", str(tmp_path / "k.o")])
    assert "is not defined for option 'cl-version'" in p.stdout + p.stderr
    d = _diag((p.stdout + p.stderr).splitlines())
    assert d.root.cause_id != "nvcc_unknown_host_flag", _causes(d)
    # a real unknown host flag still is one
    p = _run([nvcc, "-Wno-unused-variable", "-c", str(src), "-o", str(tmp_path / "k.o")])
    d = _diag((p.stdout + p.stderr).splitlines())
    assert d.root.cause_id == "nvcc_unknown_host_flag", (p.stdout + p.stderr, _causes(d))


def test_the_toolchains_own_cxx_library_missing_at_link(tmp_path):
    """Real GNU ld searching only its default paths, where no unversioned libstdc++.so lies (it is in GCC's own
    folder, from libstdc++-N-dev): "cannot find -lstdc++", as amdclang's lld says "unable to find library
    -lstdc++" when the newest GCC lacks its C++ development files (ROCm/legacy-rocm-build#2031, batch 77 dev).
    Since session 43 that is a missing library (system_library_missing, as causes.md lists "cannot find -lXXX" and the
    threads of batch 606 judged it; batch 77's collector judged compiler_missing), below 0.7.  Another missing library
    is a system library too, named by the generic row."""
    (tmp_path / "m.c").write_text("int main(void) { return 0; }\n")
    assert _run(["gcc", "-c", "m.c", "-o", "m.o"], tmp_path).returncode == 0
    p = _run(["ld", "m.o", "-lstdc++", "-o", "m"], tmp_path)
    assert "cannot find -lstdc++" in p.stderr, p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "system_library_missing" and d.root.confidence < 0.7, _causes(d)
    assert d.root.signature == "ld-cannot-find-cxx-runtime"
    name = "rocm-amdclang-ubuntu2204-unable-to-find-lstdcxx-gcc12-dev-missing.log"
    assert _diag(_lines(name)).root.signature == "ld-cannot-find-cxx-runtime"
    p = _run(["ld", "m.o", "-lnotalib_here", "-o", "m"], tmp_path)
    assert _diag(p.stderr.splitlines()).root.cause_id == "system_library_missing"
    assert _diag(["ld.lld: error: unable to find library -lnuma"]).root.cause_id == "system_library_missing"


@pytest.mark.parametrize("lib", ["mkl_intel_lp64", "openblas", "flexiblas"])
def test_real_ld_without_a_blas_library(tmp_path, lib):
    """Real GNU ld linking against a BLAS/LAPACK library that is not on its path (conda's MKL whose lib folder was
    not passed on: pytorch/audio#2784, batch 29 held-out, read after session 23's measurement): the BLAS is not
    found, not any system library."""
    (tmp_path / "m.c").write_text("int main(void) { return 0; }\n")
    assert _run(["gcc", "-c", "m.c", "-o", "m.o"], tmp_path).returncode == 0
    p = _run(["ld", "m.o", f"-l{lib}", "-o", "m"], tmp_path)
    if "cannot find -l" not in p.stderr:
        pytest.skip(f"lib{lib} is installed here")
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "blas_not_found", (p.stderr, _causes(d))
    name = "link-torchaudio-mkl-conda-libdir-not-propagated.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]


def test_pytorchs_cmake_reading_no_cudnn_version():
    """ "Found cuDNN: v?" then "PyTorch requires cuDNN 7 and above": a torch before 1.6 read cuDNN's version from
    cudnn.h, which cuDNN 8 moved to cudnn_version.h (pytorch/pytorch#40965, #41593: a sound cuDNN, none of the cause
    ids), a newer torch found an incomplete cuDNN (Karbo123/segmentator#11).  Seen logs of batches 7, 12 and 28 (the
    rule written after session 23's measurement); without a torch version neither is named at 0.7 or above."""
    for name in (
        "cudnn-libtorch-cmake-cudnn8-version-regex.log",
        "cmake-libtorch-cudnn8-debian-layout-version-regex-v-unknown.log",
        "cudnn-segmentator-cmake-cudnn-version-unknown.log",
    ):
        d = _diag(_lines(name))
        assert d.root.confidence < 0.7, (name, _causes(d))
    lines = [
        "-- Found cuDNN: v?  (include: /usr/include, library: /usr/lib/x86_64-linux-gnu/libcudnn.so)",
        "CMake Error at /x/torch/share/cmake/Caffe2/public/cuda.cmake:170 (message):",
        "  PyTorch requires cuDNN 7 and above.",
    ]
    assert _diag(["torch 1.5.1", *lines]).root.cause_id == "unknown"
    d = _diag(["torch 2.1.0", *lines])
    assert d.root.cause_id == "cudnn_unusable" and stated(d.root), _causes(d)
    # a version that was read is an old cuDNN, as before
    d = _diag(["-- Found cuDNN: v6.0.21  (include: /usr/include)", *lines[1:]])
    assert d.root.cause_id == "cudnn_unusable" and stated(d.root), _causes(d)


# ---- after session 24's measurement: rows written from the held-out misses of batches 55-78 (seen logs, not
# evidence of carry-over; benchmarks/eval_diagnose_issue11_session24.txt lists them)


def test_setuptools_and_wheel_releases_that_do_not_fit(tmp_path):
    """Real Python: a build script reaching distutils._msvccompiler without importing it (PyTorch's Windows build
    under setuptools 74+, pytorch/pytorch#136541), and setuptools' Command refusing torch's BuildExtension option
    use_ninja (deepspeedai/DeepSpeed#7165, setuptools 77); wheel 0.46's own ImportError text (read in the wheel
    0.46.1 wheel from PyPI) with the two triton logs (pytorch/pytorch#150931): all a setuptools/wheel release that
    does not fit the build, not a missing module."""
    p = _run([sys.executable, "-c", "import distutils; distutils._msvccompiler"], tmp_path)
    assert "has no attribute '_msvccompiler'" in p.stderr, p.stderr
    assert _diag(p.stderr.splitlines()).root.cause_id == "dependency_version_conflict"
    code = (
        "from distutils.cmd import Command\nfrom distutils.dist import Distribution\n"
        "class C(Command):\n    user_options = []\n"
        "    def initialize_options(self): pass\n    def finalize_options(self): pass\n"
        "C(Distribution(), use_ninja=False)\n"
    )
    p = _run([sys.executable, "-c", code], tmp_path)
    assert "unexpected keyword argument 'use_ninja'" in p.stderr, p.stderr
    assert _diag(p.stderr.splitlines()).root.cause_id == "dependency_version_conflict"
    for name in (
        "source-pytorch-release-triton-wheel-bdist-wheel-removed-old-setuptools.log",
        "source-intel-xpu-triton-ci-old-setuptools-wheel046.log",
        "source-pytorch-windows-setuptools74-distutils-msvccompiler.log",
        "setuptools-deepspeed-pip-install-setuptools77-use-ninja-kwarg.log",
    ):
        assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "dependency_version_conflict", name


def test_ninja_missing_is_named_only_where_the_fallback_fails(tmp_path):
    """Real torch (2.13 here) without ninja on PATH warns "Attempted to use ninja as the BuildExtension backend but
    we could not find ninja" and builds with distutils, which works on Linux: not a cause here.  The Windows form
    (a drive-letter path to cpp_extension.py) is the hint of a Windows build that then failed
    (IDEA-Research/Grounded-Segment-Anything#282); cl.exe not found beside it is the likelier cause."""
    pytest.importorskip("torch")
    empty = tmp_path / "bin"
    empty.mkdir()
    code = (
        "import logging\nlogging.basicConfig()\nfrom setuptools import Distribution\n"
        "from torch.utils.cpp_extension import BuildExtension\nBuildExtension(Distribution())\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ, PATH=str(empty))
    )
    assert "we could not find ninja" in p.stderr, p.stderr
    assert _diag(p.stderr.splitlines()).root.cause_id == "unknown"
    name = "pip-groundingdino-windows-venv-ninja-not-found-distutils-cl.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "ninja_missing"
    name = "msvc-simple-knn-cl-not-on-path-winerror2.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "compiler_missing"


def test_the_real_loader_without_an_mkl_runtime_library(tmp_path):
    """Real glibc loader (ctypes): an MKL runtime library that is not installed (oneAPI not sourced, or another
    oneAPI release: intel-extension-for-pytorch#244, ipex-llm, batches 40 and 67) is a library not found at import,
    not a BLAS missing from a build."""
    p = _run([sys.executable, "-c", "import ctypes; ctypes.CDLL('libmkl_sycl.so.3')"], tmp_path)
    if "cannot open shared object file" not in p.stderr:
        pytest.skip("libmkl_sycl.so.3 is installed here")
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "shared_library_not_found", _causes(d)
    assert "oneAPI" in d.root.fix
    for name in (
        "import-ipex-xpu-libmkl-sycl-so2-oneapi-not-sourced.log",
        "import-ipex-llm-bigdl-libmkl-sycl-so3-missing-oneapi-2024.log",
    ):
        assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"]
    # a link that misses MKL's functions is still the BLAS of the build
    d = _diag(["/usr/bin/ld: build/libfoo.so: undefined reference to `cblas_sgemm'"])
    assert d.root.cause_id == "blas_not_found"


def test_the_real_loader_without_a_torch_stack_function_taking_torch_types(tmp_path):
    """Real g++ and glibc loader: a module calling xpu::get_queue_from_stream(c10::Stream) that no loaded library
    exports (ipex-llm's xe_linear after a torch/IPEX upgrade, intel/ipex-llm#12380, batch 67): a module built against
    another release of the torch stack, below 0.7."""
    (tmp_path / "m.cpp").write_text(
        "namespace c10 { struct Stream { long id; }; }\n"
        "namespace xpu { void* get_queue_from_stream(c10::Stream s); }\n"
        'extern "C" void* f() { return xpu::get_queue_from_stream(c10::Stream{0}); }\n'
    )
    assert _run(["g++", "-shared", "-fPIC", "m.cpp", "-o", "xe_linear.so"], tmp_path).returncode == 0
    p = _run([sys.executable, "-c", f"import ctypes; ctypes.CDLL({str(tmp_path / 'xe_linear.so')!r})"], tmp_path)
    assert "undefined symbol: _ZN3xpu21get_queue_from_streamEN3c106StreamE" in p.stderr, p.stderr
    d = _diag(p.stderr.splitlines())
    assert d.root.cause_id == "torch_extension_mismatch" and d.root.confidence < 0.7, _causes(d)


def test_held_out_misses_of_batches_55_to_78_that_a_general_message_names():
    """NVRTC not knowing the GPU (an RTX 4090 with torch 1.10+cu113: walk-these-ways#72), "No module named 'torch'."
    ending a sentence (open-mmlab/mmdetection#12414), and a ROCm build told by clang's "when compiling for gfx1030"
    (a CUDA header missing there is only a guess: deepspeed's hipify case)."""
    name = "runtime-walk-these-ways-isaacgym-rtx4090-torch110-cu113-nvrtc-arch.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "cuda_toolkit_too_old"
    name = "mmcv-mmdetection-source-install-build-isolation-no-torch.log"
    assert _diag(_lines(name)).root.cause_id == ROWS[name]["cause"] == "torch_missing_in_build_env"
    name = "rocm-deepspeed-jit-fused-adam-hipify-cuda-runtime-api-h-not-found.log"
    assert _diag(_lines(name)).root.confidence < 0.7


#: Messages of torch's cpp_extension.py (a piece of its source text; the line as a log shows it; the cause).
_CPP_EXTENSION_MESSAGES = [
    (
        "Ninja is required to load C++ extensions",
        "RuntimeError: Ninja is required to load C++ extensions",
        "ninja_missing",
    ),
    (
        "ninja is required to build cuda extension",
        "AssertionError: With dlink=True, ninja is required to build cuda extension ops.",
        "ninja_missing",
    ),
    (
        "ninja is required to build sycl extensions",
        "AssertionError: ninja is required to build sycl extensions.",
        "ninja_missing",
    ),
    (
        "MSVC is required to load C++ extensions",
        "RuntimeError: MSVC is required to load C++ extensions",
        "compiler_missing",
    ),
    (
        "CUDA_HOME environment variable is not set",
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        "cuda_toolkit_not_found",
    ),
    (
        "ROCM_HOME environment variable is not set",
        "OSError: ROCM_HOME environment variable is not set. Please set it to your ROCm install root.",
        "cuda_toolkit_not_found",
    ),
    ("or GPU not supported", "ValueError: Unknown CUDA arch (12.0) or GPU not supported", "arch_unknown_to_torch"),
    (
        "than the minimum required version by CUDA",
        "RuntimeError: The current installed version of g++ (4.8.5) is less than the minimum required version by "
        "CUDA 11.8 (6.0.0).",
        "host_compiler_unsupported",
    ),
]


@pytest.mark.parametrize(("template", "line", "cause"), _CPP_EXTENSION_MESSAGES)
def test_torchs_own_extension_builder_messages(template, line, cause):
    """The messages the installed torch's cpp_extension.py raises (torch 2.13 here: each template must still be in
    its source) are named by their cause: a build tool missing, the toolkit not found, an arch torch does not
    know, a host compiler outside CUDA's range."""
    ext = pytest.importorskip("torch.utils.cpp_extension")
    assert template in Path(ext.__file__).read_text(encoding="utf-8")
    d = _diag([line])
    assert d.root.cause_id == cause, _causes(d)
    # each row is written sure; the corpus's calibration holds a row below 0.7 once a thread judged one of its logs
    # otherwise (session 45: the GCC version bounds, pytorch/pytorch#81039, where torch's own table was out of date)
    assert _diag([line], precision={}).root.confidence >= 0.7
    prec = load_precision().get(d.root.signature or "")
    if prec is not None and prec.below_bar:
        assert d.root.confidence == CALIBRATED_CAP, _causes(d)
    else:
        assert d.root.confidence >= 0.7, _causes(d)
