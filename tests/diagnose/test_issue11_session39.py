"""Issue 11, session 39: rows written from round A's dev logs (batches 482 and later), before its measurement.

* setuptools running the cl.exe of Visual Studio 2015 or older ("Microsoft Visual Studio 14.0\\VC\\BIN"): a compiler
  too old for torch's headers;
* torchvision's image decoder compiled without libjpeg's headers (its names undeclared), with the real g++: a system
  library missing, where torchvision's other sources stay a torchvision/torch mismatch and its video decoder (FFmpeg's
  API) is left to no row;
* protobuf's run-time version check (two protobufs in one process);
* GNU ld on an archive member it cannot read (objects of another target left in the build folder), with the real ld;
* Arm's BF16 NEON types unknown to an old compiler (Android NDK r21b), with the real g++'s wording too;
* a package's own message that it is imported from its source directory, under the ModuleNotFoundError of its
  compiled module (the concept said-import-from-source-dir).

From the dev logs of round A's later collectors (batches 497-504), before its measurement:

* torch's "CUDA capability sm_N is not compatible" warning wrapped after "compatible";
* the "FATAL: ... is for smA, but was built for smB" of xformers' attention kernels: no kernel image for this GPU;
* a traceback cut before its error whose last frame imports torch._six;
* a libstdc++ symbol of the C++11 ABI (std::__cxx11) undefined at import: an old libstdc++ loaded first (the real g++
  and nm: a module built here needs such symbols of GLIBCXX_3.4.21, GCC 5's libstdc++);
* TorchSharp's "doesn't contain a reference to libtorch-..." check.

After round A's measurement, from its held-out misses (listed as such in the rows' sources):

* CMake's "The source directory ... does not exist." inside third_party (the real cmake): a submodule;
* CMake's "The C/CXX compiler identification is unknown" (the real cmake with /bin/true): a hint of a missing compiler;
* ninja's "Error writing to deps log: Permission denied";
* MSVC's "INTERNAL COMPILER ERROR in '...cl.exe'" banner;
* MSVC's C2039 in double quotes without "is";
* the typeinfo / vtable of a std class undefined (std::thread::_State, with the real g++ and nm): an old libstdc++.

From round B's dev logs (batches 505 and later), before its measurement:

* nvcc's "The version ('9.0') of the host compiler ('clang') is not supported" (a version with a dot);
* a torch symbol with libc++'s std::__1 types undefined on Linux: libc++ against libstdc++;
* GNU ld's "cannot find -lomp": LLVM's OpenMP runtime missing.

After round B's measurement, from its held-out misses (listed as such in the rows' sources):

* musl's loader on a glibc binary (Alpine), with the real musl loader run on this machine's glibc libraries;
* the import library of a free-threaded Python (python313t.lib) that the linker cannot open.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import diagnose_text, named_below_sure, run_tool


def test_the_cl_exe_of_visual_studio_2015_is_too_old():
    """ActionDetection-AFSD#25 (batch 482 dev): torch's version check could not run cl (not on PATH), then setuptools
    ran Visual Studio 14.0's cl.exe from the registry; the maintainer said Visual Studio 2017 or newer is needed."""
    log = r"""
    UserWarning: Error checking compiler version for cl: [WinError 2] The system cannot find the file specified
      warnings.warn('Error checking compiler version for {}: {}'.format(compiler, error))
    error: command 'C:\\Program Files (x86)\\Microsoft Visual Studio 14.0\\VC\\BIN\\x86_amd64\\cl.exe' failed \
    with exit status 2
    """.replace("\\\n    ", "")
    root = named_below_sure(log, "compiler_too_old", "msvc-2015-or-older-compiler-failed")
    assert "Visual Studio 14.0" in root.explanation and "2019" in root.fix


@pytest.mark.parametrize(
    "path",
    [
        r"C:\Program Files\Microsoft Visual Studio\2022\BuildTools\VC\Tools\MSVC\14.38.33130\bin\HostX86\x64\cl.exe",
        r"C:\Program Files (x86)\Microsoft Visual Studio\2017\Pro\VC\Tools\MSVC\14.16.27023\bin\HostX64\x64\cl.exe",
    ],
)
def test_a_newer_visual_studio_failing_is_not_called_too_old(path):
    """Visual Studio 2017 and later install under "Microsoft Visual Studio\\<year>\\": their cl.exe failing says
    nothing of its age."""
    root = diagnose_text(f"error: command '{path}' failed with exit code 2").root
    assert root.signature != "msvc-2015-or-older-compiler-failed"


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_real_gcc_on_torchvisions_jpeg_decoder_without_libjpeg(tmp_path):
    """This machine's g++ compiling a file at torchvision's decode_jpeg.cpp path that uses libjpeg's names without
    its header, as torchvision built without libjpeg did (pytorch/vision#7840, batch 483 dev): a system library
    missing, the name in the explanation."""
    src = tmp_path / "vision" / "torchvision" / "csrc" / "io" / "image" / "cpu" / "decode_jpeg.cpp"
    src.parent.mkdir(parents=True)
    src.write_text("int jpeg_version() {\n  return JPEG_LIB_VERSION;\n}\n")
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "d.o")]).stderr
    assert "JPEG_LIB_VERSION" in out
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("system_library_missing", "torchvision-image-library-missing")
    assert "JPEG_LIB_VERSION" in root.explanation and "libjpeg" in root.fix


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize(
    ("part", "mismatch"),
    [
        (("ops", "cpu", "nms_kernel.cpp"), True),
        (("io", "decoder", "decoder.cpp"), False),
        (("io", "image", "cpu", "decode_png.cpp"), False),
    ],
)
def test_the_real_gcc_on_torchvisions_other_sources(tmp_path, part, mismatch):
    """The same g++ error in torchvision's operators stays the torchvision/torch mismatch row; in its decoders
    (image and video, which compile against system libraries: FFmpeg 5 dropped AVLockOp, pytorch/vision#5928,
    batch 483 dev, judged no listed cause) it is not called a torch mismatch."""
    src = tmp_path.joinpath("vision", "torchvision", "csrc", *part)
    src.parent.mkdir(parents=True)
    src.write_text("int f() {\n  return AV_LOCK_CREATE;\n}\n")
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "d.o")]).stderr
    root = diagnose_text(out).root
    assert (root.signature == "domain-library-source-vs-torch") is mismatch


def test_visual_studio_2015_without_torch_in_the_log_is_not_called_too_old():
    """pycocotools built with Visual Studio 2015 failed on a GCC-only flag (cl's D8021 on '/Wno-cpp'; the corpus's
    msvc-centernet-nms-wno-cpp-d8021.log, judged no listed cause): with no torch in the log, the old Visual Studio
    is not the cause."""
    log = r"""
    building 'pycocotools._mask' extension
    cl : Command line error D8021 : invalid numeric argument '/Wno-cpp'
    error: command 'D:\\Program Files (x86)\\Microsoft Visual Studio 14.0\\VC\\BIN\\x86_amd64\\cl.exe' failed \
    with exit status 2
    """.replace("\\\n    ", "")
    assert diagnose_text(log).root.cause_id == "unknown"


def test_protobufs_runtime_version_check():
    """protobuf's own check (stubs/common.cc's VerifyVersion) as pytorch/pytorch#6833 pasted it (batch 493 dev):
    onnx built against the system protobuf 2.6.1, loaded beside PyTorch's protobuf 3.5.0."""
    line = (
        "[libprotobuf FATAL /home/u/pytorch/third_party/protobuf/src/google/protobuf/stubs/common.cc:79] This program "
        "was compiled against version 2.6.1 of the Protocol Buffer runtime library, which is not compatible with the "
        "installed version (3.5.0).  Contact the program author for an update."
    )
    root = diagnose_text(line).root
    assert (root.cause_id, root.signature) == ("protobuf_conflict", "protobuf-runtime-version-check")
    assert root.confidence >= 0.7 and "2.6.1" in root.explanation and "3.5.0" in root.explanation


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("ar") is None, reason="gcc or ar is not installed")
def test_the_real_ld_on_an_archive_member_it_cannot_read(tmp_path):
    """This machine's GNU ld linking an archive whose member is no object it can read, as the Arm linker met the
    x86-64 objects an earlier build had left in ExecuTorch's build folder (pytorch/executorch#7455, batch 488 dev):
    a stale build folder, below the sure bar (a damaged archive prints the same)."""
    (tmp_path / "ArmBackendEthosU.cpp.o").write_text("not an object\n")
    run_tool(["ar", "rc", "libdelegate.a", "ArmBackendEthosU.cpp.o"], cwd=tmp_path)
    (tmp_path / "m.c").write_text("int main(void) { return 0; }\n")
    link = ["gcc", "m.c", "-o", "m", "-Wl,--whole-archive", "./libdelegate.a", "-Wl,--no-whole-archive"]
    out = run_tool(link, cwd=tmp_path).stderr
    assert "in archive is not an object" in out
    root = named_below_sure(out, "stale_build_dir", "ld-archive-member-not-an-object")
    assert "ArmBackendEthosU.cpp.o" in root.explanation


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_neon_bf16_types_unknown_to_the_compiler(tmp_path):
    """Android NDK r21b's clang did not know arm_neon.h's bfloat16x8_t (pytorch/executorch#8508, batch 488 dev: NDK
    27c built it): a compiler too old, in clang's words and in this machine's g++'s (x86: no such type at all)."""
    clang = (
        "/src/executorch/kernels/optimized/blas/BlasKernel.cpp:80:29: error: unknown type name 'bfloat16x8_t'; "
        "did you mean 'float16x8_t'?"
    )
    root = named_below_sure(clang, "compiler_too_old", "neon-bf16-types-unknown")
    assert "bfloat16x8_t" in root.explanation
    src = tmp_path / "BlasKernel.cpp"
    src.write_text("float f32_dot_bf16(bfloat16x8_t b);\n")
    out = run_tool(["g++", "-c", str(src), "-o", str(tmp_path / "b.o")]).stderr
    assert diagnose_text(out).root.signature == "neon-bf16-types-unknown"


def test_a_package_that_says_it_is_imported_from_its_source_directory():
    """microsoft/qlib#279 (batch 494 dev): qlib's own message under the ModuleNotFoundError of its compiled module
    says it is imported from the repository directory (PyCharm's working directory): import_from_source_dir first,
    where the same missing module alone stays unknown (built, shadowed or another version)."""
    missing = ">ModuleNotFoundError: No module named 'qlib.data._libs.rolling'."
    said = "Do not import qlib package in the repository directory in case of importing qlib from . without compiling"
    root = diagnose_text(missing + "\n" + said).root
    assert root.cause_id == "import_from_source_dir" and root.confidence < 0.7
    assert "repository directory" in root.explanation
    assert diagnose_text(missing).root.cause_id == "unknown"


def test_the_sm_warning_wrapped_after_not_compatible():
    """runpod/containers#114 (batch 500 dev): torch 2.4.1+cu124 on a B200, its warning wrapped after "is not
    compatible"; the unwrapped form and the form wrapped after "CUDA capability" keep their row."""
    log = """
    UserWarning: NVIDIA B200 with CUDA capability sm_100 is not compatible
    with the current PyTorch installation. The current PyTorch install
    supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature) == ("no_kernel_image", "sm-not-compatible-with-torch")
    assert "sm_100" in root.explanation
    assert diagnose_text("but the GPU's sm_90 is not compatible, it says").root.signature is None


@pytest.mark.parametrize(
    ("line", "need", "built"),
    [
        ("FATAL: this function is for sm80, but was built for sm750", "sm80", "sm750"),
        (
            "FATAL: kernel `fmha_cutlassF_f16_aligned_64x64_rf_sm80` is for sm80-sm100, but was built for sm121",
            "sm80-sm100",
            "sm121",
        ),
    ],
)
def test_attention_kernels_built_for_another_sm(line, need, built):
    """TheLastBen/fast-stable-diffusion#1352 (batch 499 dev): an xformers wheel built on a T4 run on an A10G; the
    later wording names the kernel and a range."""
    root = diagnose_text(line).root
    assert (root.cause_id, root.signature) == ("no_kernel_image", "cutlass-kernel-built-for-other-sm")
    assert need in root.explanation and built in root.explanation


def test_a_traceback_cut_at_the_torch_six_import():
    """FlagAI-Open/FlagAI#362 (batch 504 dev): the paste ends with the frame that imports torch._six."""
    log = """
      File "/root/miniconda3/envs/flagai/lib/python3.10/site-packages/flagai/mpu/grads.py", line 23, in <module>
        from torch._six import inf
    """
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature) == ("torch_api_removed", "torch-six-removed")
    assert "inf" in root.explanation


@pytest.mark.skipif(shutil.which("nm") is None or shutil.which("g++") is None, reason="nm or g++ is not installed")
def test_libstdcxx_own_cxx11_symbols_undefined(tmp_path):
    """giacbrd/ShallowLearn#15 (batch 501 dev): fasttext built by a newer GCC, loaded under Anaconda2's old
    libstdc++: the vtable of std::__cxx11::basic_stringbuf undefined.  This machine's g++ and nm show that such a
    module needs that very symbol from libstdc++ (nm -u lists it), so the row reads libstdc++'s own symbols; a
    module's own function taking a std::__cxx11::string stays with the C++ ABI rows."""
    src = tmp_path / "m.cpp"
    src.write_text("#include <sstream>\nstd::string f(int x) { std::ostringstream s; s << x; return s.str(); }\n")
    run_tool(["g++", "-shared", "-fPIC", "-O0", str(src), "-o", str(tmp_path / "m.so")])
    undefined = run_tool(["nm", "-u", "-D", str(tmp_path / "m.so")]).stdout
    needed = [ln.split()[-1] for ln in undefined.splitlines() if "St7__cxx11" in ln]
    # libstdc++'s own C++11-ABI symbols, of the symbol version GCC 5's libstdc++ introduced (GLIBCXX_3.4.21)
    assert any(sym.endswith("@GLIBCXX_3.4.21") for sym in needed), needed
    for sym in needed:
        loaded = f"ImportError: {tmp_path}/m.so: undefined symbol: {sym.split('@')[0]}"
        assert diagnose_text(loaded).root.signature == "libstdcxx-cxx11-symbol-undefined", sym
    line = (
        "ImportError: /home/usr/anaconda2/lib/python2.7/site-packages/fasttext/fasttext.so: undefined symbol: "
        "_ZTVNSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEEE"
    )
    root = named_below_sure(line, "glibcxx_too_old", "libstdcxx-cxx11-symbol-undefined")
    assert "_ZTVNSt7__cxx1115basic_stringbuf" in root.explanation
    own = (
        "ImportError: /x/site-packages/ext/_C.so: undefined symbol: "
        "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
    )
    assert diagnose_text(own).root.cause_id != "glibcxx_too_old"


def test_torchsharps_native_package_check():
    """dotnet/TorchSharp#1372 (batch 498 dev): in Unity the native DLLs were not where Unity loads plugins from."""
    line = (
        "NotSupportedException: This application or script uses TorchSharp but doesn't contain a reference to "
        "libtorch-cpu-win-x64, Version=2.4.0.0."
    )
    root = diagnose_text(line).root
    assert (root.cause_id, root.signature) == ("shared_library_not_found", "torchsharp-native-package-missing")
    assert "libtorch-cpu-win-x64" in root.explanation and "2.4.0.0" in root.explanation


# After round A's measurement, from its held-out misses (read after the measurement; listed as such in the rows'
# sources): not evidence that the rows carry over.


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_the_real_cmake_on_a_source_directory_inside_an_empty_submodule(tmp_path):
    """This machine's CMake given a source directory inside third_party that is not there, as caffe2's
    build_host_protoc.bat ran it on a clone without submodules (facebookarchive/caffe2#1045, batch 493 held-out)."""
    missing = tmp_path / "caffe2" / "third_party" / "protobuf" / "cmake"
    out = run_tool(["cmake", "-S", str(missing), "-B", str(tmp_path / "b")])
    text = out.stdout + out.stderr
    assert "does not exist" in text
    root = diagnose_text(text).root
    assert (root.cause_id, root.signature) == ("submodule_missing", "third-party-path-not-found")
    assert "third_party" in root.explanation


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_the_real_cmake_identifying_no_c_compiler(tmp_path):
    """This machine's CMake given a C and a C++ "compiler" that is none (/bin/true): "The C compiler identification
    is unknown", a hint that names a missing compiler when the configure error after it is unknown (dlib's
    setup.py: "error: cmake configuration failed!", davisking/dlib#1050, batch 484 held-out)."""
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.10)\nproject(p C CXX)\n")
    env_cmd = ["env", "CC=/bin/true", "CXX=/bin/true", "cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b")]
    out = run_tool(env_cmd).stdout
    assert "-- The C compiler identification is unknown" in out
    lines = [ln for ln in out.splitlines() if "identification" in ln] + [" error: cmake configuration failed!"]
    root = named_below_sure("\n".join(lines), "compiler_missing", "cmake-c-compiler-identification-unknown")
    assert "C" in root.explanation


def test_ninja_cannot_write_its_deps_log():
    """ninja's own message (its 1.11.1 binary's strings: "Error writing to deps log: ") after a `sudo ninja install`
    left .ninja_deps owned by root (syntalos/syntalos#78, batch 492 held-out)."""
    root = diagnose_text("ninja: build stopped: Error writing to deps log: Permission denied.").root
    assert (root.cause_id, root.signature) == ("permission_denied", "ninja-log-not-writable")
    assert root.confidence >= 0.7 and "chown" in root.fix


def test_msvc_internal_compiler_error_banner():
    """Visual Studio 2017's cl.exe crashing on LibTorch's headers in a Qt project (pytorch/pytorch#24308, batch 498
    held-out): the banner, not C1001."""
    cl = r"C:\Program Files (x86)\Microsoft Visual Studio\2017\Community\VC\Tools\MSVC\14.16.27023\bin\HostX64\x64"
    log = (
        f"INTERNAL COMPILER ERROR in '{cl}\\cl.exe'\n    Please choose the Technical Support command on the Visual C++"
    )
    root = diagnose_text(log).root
    assert (root.cause_id, root.signature) == ("internal_compiler_error", "msvc-internal-compiler-error-banner")


def test_msvc_c2039_in_double_quotes_names_a_removed_torch_api():
    """A translated Visual Studio's C2039 ('"get": not a member of "c10"'; LibTorch-UE#3, batch 498 held-out)."""
    root = named_below_sure(
        'error C2039: "get": not a member of "c10".', "torch_api_removed", "torch-cxx-name-not-in-namespace"
    )
    assert "c10::get" in root.explanation


@pytest.mark.skipif(shutil.which("nm") is None or shutil.which("g++") is None, reason="nm or g++ is not installed")
def test_std_thread_typeinfo_undefined_is_an_old_libstdcxx(tmp_path):
    """pyfasttext under Anaconda's older libstdc++ (vrasneur/pyfasttext#23, batch 501 held-out): std::thread::_State's
    typeinfo undefined.  A module that starts a std::thread, built here by g++, needs it from libstdc++ (nm -u)."""
    src = tmp_path / "th.cpp"
    src.write_text("#include <thread>\nvoid f() { std::thread t([] {}); t.join(); }\n")
    run_tool(["g++", "-shared", "-fPIC", str(src), "-o", str(tmp_path / "th.so"), "-pthread"])
    undefined = run_tool(["nm", "-u", "-D", str(tmp_path / "th.so")]).stdout
    assert "_ZTINSt6thread6_StateE@GLIBCXX_" in undefined
    line = f"ImportError: {tmp_path}/th.so: undefined symbol: _ZTINSt6thread6_StateE"
    root = diagnose_text(line).root
    assert (root.cause_id, root.signature) == ("glibcxx_too_old", "libstdcxx-symbol-undefined")
    libcxx = (
        "ImportError: /x/m.so: undefined symbol: _ZNSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEED1Ev"
    )
    assert diagnose_text(libcxx).root.signature != "libstdcxx-symbol-undefined"


# From round B's dev logs (batches 505 and later), before its measurement.


def test_nvcc_rejects_a_host_compiler_version_with_a_dot():
    """ingowald/optix7course#20 (batch 510 dev): CUDA 11.3's nvcc refusing clang 9.0 ("9.0", where Apple clang's
    form is "90000")."""
    line = "nvcc fatal   : The version ('9.0') of the host compiler ('clang') is not supported"
    root = diagnose_text(line).root
    assert root.cause_id == "host_compiler_unsupported" and "9.0" in root.explanation


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt is not installed")
def test_a_torch_symbol_with_libcxx_types_undefined():
    """pytorch/glow#5713 (batch 510 dev): torch_glow built with clang and libc++ against a libstdc++ torch.  The real
    c++filt demangles the symbol to c10's function with std::__1 (libc++) types."""
    sym = "_ZNK3c104Type14isSubtypeOfExtERKNSt3__110shared_ptrIS0_EEPNS1_13basic_ostreamIcNS1_11char_traitsIcEEEE"
    assert "std::__1::shared_ptr" in run_tool(["c++filt", sym]).stdout
    root = diagnose_text(f"ImportError: _torch_glow.cpython-36m-x86_64-linux-gnu.so: undefined symbol: {sym}").root
    assert (root.cause_id, root.signature) == ("cxx_abi_mismatch", "undefined-symbol-libcxx-vs-libstdcxx")
    assert "libc++" in root.explanation


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_the_real_ld_without_llvms_openmp_runtime(tmp_path):
    """This machine's GNU ld asked for -lomp, which Debian's clang needs from libomp-dev (QMCPACK/qmcpack#3339, batch
    510 dev): OpenMP missing; the same ld without another library stays a system library."""
    (tmp_path / "m.c").write_text("int main(void) { return 0; }\n")
    out = run_tool(["gcc", str(tmp_path / "m.c"), "-o", str(tmp_path / "m"), "-lomp"]).stderr
    if "cannot find -lomp" not in out:
        pytest.skip("this machine has LLVM's libomp installed")
    root = diagnose_text(out).root
    assert (root.cause_id, root.signature) == ("openmp_missing", "gnu-ld-libomp-missing")
    other = run_tool(["gcc", str(tmp_path / "m.c"), "-o", str(tmp_path / "m"), "-lnosuchlib"]).stderr
    assert diagnose_text(other).root.cause_id == "system_library_missing"


# After round B's measurement, from its held-out misses (read after the measurement; listed as such).

MUSL_LOADER = next(
    (p for p in ("/lib/ld-musl-x86_64.so.1", "/usr/lib/x86_64-linux-musl/libc.so") if Path(p).exists()), None
)


@pytest.mark.skipif(MUSL_LOADER is None, reason="musl's loader is not installed (Debian: apt install musl)")
def test_the_real_musl_loader_on_glibc_binaries():
    """musl's own loader (Debian's musl package, as Alpine runs it) given this machine's glibc libstdc++ and /bin/true:
    what a glibc wheel prints on Alpine (mlverse/torch#1323, OpenMined/PySyft#1590, batch 506 held-out): a binary
    for another C library, below the sure bar (an earlier thread judged it no listed cause)."""
    libstdcxx = next(Path("/usr/lib").glob("*-linux-gnu/libstdc++.so.6"), None)
    if libstdcxx is None:
        pytest.skip("no glibc libstdc++.so.6 here")
    listed = run_tool([MUSL_LOADER, "--list", str(libstdcxx)]).stderr
    assert "Error loading shared library ld-linux" in listed
    root = named_below_sure(listed, "libc_too_old", "musl-loader-glibc-binary")
    assert "glibc" in root.explanation and "Alpine" in root.fix
    relocating = run_tool([MUSL_LOADER, "/bin/true"]).stderr
    assert "_chk: symbol not found" in relocating
    assert diagnose_text(relocating).root.signature == "musl-loader-glibc-binary"


def test_a_free_threaded_pythons_import_library():
    """cython/cython#6162 (batch 509 held-out): python313t.lib, the import library of a free-threaded Python."""
    root = diagnose_text("fatal error LNK1104: cannot open file 'python313t.lib'").root
    assert (root.cause_id, root.signature) == ("python_lib_missing", "msvc-python-lib-missing")
    assert "python313t.lib" in root.explanation
