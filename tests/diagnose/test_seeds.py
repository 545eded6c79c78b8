"""The seeds' failures (shared/seeds), each written the way the tool prints it."""

from __future__ import annotations

import pytest

from .conftest import diagnose_text, stated

SEED_LOGS = {
    # seed 000: nvcc rejects a host warning flag (CMake + ninja build of PyTorch)
    "nvcc_unknown_host_flag": """
        [2201/5930] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/Foo.cpp.o
        FAILED: caffe2/CMakeFiles/cuda_test.dir/__/aten/src/ATen/test/cuda_atomic_ops_test.cu.o
        /usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DUSE_CUDA -Wno-unused-variable -x cu -c /src/pytorch/aten/src/ATen/test/cuda_atomic_ops_test.cu -o caffe2/CMakeFiles/cuda_test.dir/__/aten/src/ATen/test/cuda_atomic_ops_test.cu.o
        nvcc fatal   : Unknown option '-Wno-unused-variable'
        [2202/5930] Building CXX object caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/Bar.cpp.o
        ninja: build stopped: subcommand failed.
    """,  # noqa: E501 (verbatim log lines)
    # seed 000: Visual Studio 17.4 LNK1161 (verbatim shape of the seed's block)
    "msvc_toolset_bug": r"""
          FAILED: bin/torch_cpu.dll lib/torch_cpu.lib
          cmd.exe /C "cd . && "C:\Program Files\Microsoft Visual Studio\2022\Community\Common7\IDE\CommonExtensions\Microsoft\CMake\CMake\bin\cmake.exe" -E vs_link_dll --intdir=caffe2\CMakeFiles\torch_cpu.dir -- C:\PROGRA~1\MICROS~2\2022\COMMUN~1\VC\Tools\MSVC\1434~1.319\bin\Hostx64\x64\link.exe /nologo @CMakeFiles\torch_cpu.rsp  /out:bin\torch_cpu.dll /dll && cd ."
          LINK: command "C:\PROGRA~1\MICROS~2\2022\COMMUN~1\VC\Tools\MSVC\1434~1.319\bin\Hostx64\x64\link.exe /nologo @CMakeFiles\torch_cpu.rsp /out:bin\torch_cpu.dll /dll /MANIFEST" failed (exit code 1161) with the following output:
        D:\git_source\pytorch\out\build\x64-Debug\LazyNativeFunctions.cpp.obj : fatal error LNK1161: invalid export specification
        ninja: build stopped: subcommand failed.
    """,  # noqa: E501 (verbatim log lines)
    # seed 002: a release magma.lib in a debug build
    "msvc_runtime_mismatch": r"""
        [5120/6102] Linking CXX shared library bin\torch_cuda.dll
        FAILED: bin/torch_cuda.dll lib/torch_cuda.lib
        cmd.exe /C "cd . && cmake.exe -E vs_link_dll --intdir=caffe2\CMakeFiles\torch_cuda.dir -- link.exe /nologo @CMakeFiles\torch_cuda.rsp /out:bin\torch_cuda.dll && cd ."
        magma.lib(interface.obj) : error LNK2038: mismatch detected for '_ITERATOR_DEBUG_LEVEL': value '0' doesn't match value '2' in Activation.cu.obj
        magma.lib(interface.obj) : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MD_DynamicRelease' doesn't match value 'MDd_DynamicDebug' in Activation.cu.obj
        bin\torch_cuda.dll : fatal error LNK1319: 2 mismatches detected
        ninja: build stopped: subcommand failed.
    """,  # noqa: E501 (verbatim log lines)
    # seed 002: debug build without the debug Python library
    "python_lib_missing": r"""
        [6011/6102] Linking CXX shared library bin\torch_python.dll
        FAILED: bin/torch_python.dll lib/torch_python.lib
        cmd.exe /C "cd . && cmake.exe -E vs_link_dll --intdir=torch\CMakeFiles\torch_python.dir -- link.exe /nologo @CMakeFiles\torch_python.rsp /out:bin\torch_python.dll && cd ."
        LINK : fatal error LNK1104: cannot open file 'python38_d.lib'
        ninja: build stopped: subcommand failed.
        Traceback (most recent call last):
          File "setup.py", line 1270, in <module>
            main()
        subprocess.CalledProcessError: Command '['cmake', '--build', '.', '--target', 'install', '--config', 'Debug']' returned non-zero exit status 1.
    """,  # noqa: E501 (verbatim log lines)
    # seed 002: protobuf's callback.h fails in a .cu file (FindCUDA wrapper around it)
    "protobuf_conflict": r"""
        FAILED: caffe2/CMakeFiles/torch_cuda.dir/operators/torch_cuda_generated_spatial_batch_norm_op.cu.obj
        cmd.exe /C "cd /D E:\code\pytorch\build\caffe2\CMakeFiles\torch_cuda.dir\operators && cmake.exe -D verbose:BOOL=OFF -D build_configuration:STRING=Debug -P E:/code/pytorch/build/caffe2/CMakeFiles/torch_cuda.dir/operators/torch_cuda_generated_spatial_batch_norm_op.cu.obj.Debug.cmake"
        spatial_batch_norm_op.cu
        spatial_batch_norm_op.cu
        E:\code\pytorch\third_party\protobuf\src\google/protobuf/stubs/callback.h(236): error C2065: 'UnknownType': undeclared identifier
        E:\code\pytorch\third_party\protobuf\src\google/protobuf/stubs/callback.h(256): note: see reference to class template instantiation 'google::protobuf::internal::MethodClosure2<Class,Arg1,Arg2>' being compiled
        CMake Error at torch_cuda_generated_spatial_batch_norm_op.cu.obj.Debug.cmake:281 (message):
          Error generating file
          E:/code/pytorch/build/caffe2/CMakeFiles/torch_cuda.dir/operators/./torch_cuda_generated_spatial_batch_norm_op.cu.obj
        ninja: build stopped: subcommand failed.
    """,  # noqa: E501 (verbatim log lines)
    # seed 001: a system library file named in the build is missing (make)
    "system_library_missing": """
        [  9%] Built target libprotobuf
        make[2]: *** No rule to make target '/usr/lib/x86_64-linux-gnu/librt.so', needed by 'lib/libc10.so'.  Stop.
        make[1]: *** [CMakeFiles/Makefile2:2466: c10/CMakeFiles/c10.dir/all] Error 2
        make: *** [Makefile:146: all] Error 2
    """,
    # seed 001: no C++ compiler
    "compiler_missing": """
        [1/6244] Building CXX object c10/CMakeFiles/c10.dir/core/Allocator.cpp.o
        FAILED: c10/CMakeFiles/c10.dir/core/Allocator.cpp.o
        /usr/bin/c++ -DC10_BUILD_MAIN_LIB -I/lab/pytorch -O3 -DNDEBUG -fPIC -o c10/CMakeFiles/c10.dir/core/Allocator.cpp.o -c /lab/pytorch/c10/core/Allocator.cpp
        /bin/sh: 1: /usr/bin/c++: not found
        ninja: build stopped: subcommand failed.
    """,  # noqa: E501 (verbatim log lines)
    # seed 001: internal compiler error in a Debug build
    "internal_compiler_error": """
        FAILED: caffe2/CMakeFiles/torch_cpu.dir/__/aten/src/ATen/native/cpu/SortingKernel.cpp.DEFAULT.cpp.o
        /usr/bin/c++ -O0 -g -c /lab/pytorch/build/aten/src/ATen/native/cpu/SortingKernel.cpp.DEFAULT.cpp
        during RTL pass: expand
        /lab/pytorch/aten/src/ATen/native/cpu/SortingKernel.cpp: In lambda function:
        /lab/pytorch/aten/src/ATen/native/cpu/SortingKernel.cpp:87:1: internal compiler error: Segmentation fault
           87 | }
              | ^
        Please submit a full bug report,
        with preprocessed source if appropriate.
        ninja: build stopped: subcommand failed.
    """,
    # seed 003: fat binary too big
    "cuda_arch_list_too_large": """
        [4890/4892] Linking CXX shared library lib/libtorch_cuda.so
        FAILED: lib/libtorch_cuda.so
        : && /usr/bin/c++ -fPIC -shared -o lib/libtorch_cuda.so @CMakeFiles/torch_cuda.rsp && :
        /usr/lib/gcc/x86_64-linux-gnu/9/../../../x86_64-linux-gnu/crti.o: in function `_init':
        (.init+0xb): relocation truncated to fit: R_X86_64_REX_GOTPCRELX against undefined symbol `__gmon_start__'
        crtstuff.c:(.text+0x3): relocation truncated to fit: R_X86_64_PC32 against `.tm_clone_table'
        collect2: error: ld returned 1 exit status
        ninja: build stopped: subcommand failed.
    """,
    # seed 003: forward compatibility refused
    "cuda_driver_too_old": """
        >>> import torch
        >>> torch.cuda.is_available()
        /opt/conda/lib/python3.8/site-packages/torch/cuda/__init__.py:52: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW (Triggered internally at  ../c10/cuda/CUDAFunctions.cpp:104.)
          return torch._C._cuda_getDeviceCount() > 0
        False
    """,  # noqa: E501 (verbatim log lines)
    # seed 004: install into /usr/local without permission
    "permission_denied": """
        -- Install configuration: "Release"
        CMake Error at cmake_install.cmake:41 (file):
          file INSTALL cannot set permissions on "/usr/local/include": Operation not
          permitted.
        Traceback (most recent call last):
          File "setup.py", line 1270, in <module>
        subprocess.CalledProcessError: Command '['cmake', '--build', '.', '--target', 'install', '--config', 'Release']' returned non-zero exit status 1.
    """,  # noqa: E501 (verbatim log lines)
    # seed 002: torchvision built for the other C++ ABI of torch
    "cxx_abi_mismatch": """
        torch 1.10.0a0+git71f889c /media/sde/aaron-wu/pytorch
        >>> import torchvision
        /home/u/.conda/envs/PyTorchCompile/lib/python3.8/site-packages/torchvision/io/image.py:11: UserWarning: Failed to load image Python extension: /home/u/.conda/envs/PyTorchCompile/lib/python3.8/site-packages/torchvision/image.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs
          warn(f"Failed to load image Python extension: {e}")
    """,  # noqa: E501 (verbatim log lines)
    # seed 001/002: incomplete submodules
    "submodule_missing": """
        Building wheel torch-1.10.0a0+git71f889c
        -- Building version 1.10.0a0+git71f889c
        Could not find /media/sde/pytorch/third_party/gloo/CMakeLists.txt
        Did you run 'git submodule update --init --recursive'?
    """,
    # seed 000: Windows cannot find NvToolsExt
    "nvtx_missing": """
        CMake Error at cmake/public/cuda.cmake:170 (message):
          Cannot find nvToolsExt
        Call Stack (most recent call first):
          cmake/Dependencies.cmake:43 (include)
        -- Configuring incomplete, errors occurred!
    """,
}


#: Seeds whose log names the cause first but cannot make it certain, and why.
NOT_CONFIDENT = {
    # torch's ABI is inferred from its +git version, not printed: the old-ABI torchvision may also
    # have been built against another torch build (tests/diagnose/test_issue11_session21.py)
    "cxx_abi_mismatch": 0.65,
}


@pytest.mark.parametrize("cause", sorted(SEED_LOGS))
def test_seed_failure_is_diagnosed(cause):
    d = diagnose_text(SEED_LOGS[cause])
    assert d.root.cause_id == cause, (d.root, d.first_error)
    # stated: 0.7 or more, or the calibrated cap of a signature below the bar on real logs (conftest.stated)
    assert stated(d.root) or d.root.confidence >= NOT_CONFIDENT.get(cause, 0.7)
    assert d.root.source
    assert any(e.line == d.root.line for e in d.root.evidence)


def test_seed_values_are_captured():
    d = diagnose_text(SEED_LOGS["nvcc_unknown_host_flag"])
    assert d.root.values["flag"] == "-Wno-unused-variable"
    assert "-Wno-unused-variable" in d.root.fix
    assert d.root.step is not None and d.root.step.command_line == 3


def test_seed_lnk2038_names_the_setting():
    d = diagnose_text(SEED_LOGS["msvc_runtime_mismatch"])
    assert d.root.values["what"] == "_ITERATOR_DEBUG_LEVEL"
    assert d.root.line == 4


def test_seed_protobuf_root_is_the_compile_error_not_the_cmake_wrapper():
    d = diagnose_text(SEED_LOGS["protobuf_conflict"])
    assert d.first_error is not None and "UnknownType" in d.first_error.text
