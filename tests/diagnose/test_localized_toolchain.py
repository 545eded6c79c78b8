"""The toolchain speaking another language.  GNU ld's messages whose translation moves the symbol or the
library ("对‘powf@GLIBC_2.27’未定义的引用", "-lc10_cuda が見つかりません") are put back in English by the
``[[pattern]]`` rows of knowledge/data/localized.toml (scripts/gen-localized-messages, from the ld.mo
catalogs of Debian 12's binutils-common 2.40); gcc's and the C library's fixed texts ("致命错误：",
"没有那个文件或目录") by its ``[[text]]`` rows.

The linker and the compiler run for real: each locale is compiled with ``localedef`` from the system's
locale sources (Debian's ``locales`` package) into a temporary folder, and g++ runs under
``LOCPATH``/``LC_ALL``, so the messages are the ones this machine's tools print (gcc's own translations
come from Debian's gcc-N-locales; scripts/setup-tests installs both packages).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from torchbuild.decisions.diagnose.classify import normalize

from .conftest import diagnose_text

LOCALE_SOURCES = Path("/usr/share/i18n/locales")
#: the languages whose ld.mo (binutils-common 2.40) translates "cannot find %s" or "undefined reference"
LOCALES = ["ru_RU", "uk_UA", "es_ES", "fr_FR", "it_IT", "pt_BR", "tr_TR", "vi_VN", "ja_JP", "zh_CN", "zh_TW"]
#: languages whose gcc catalog (Debian's gcc-N-locales) translates "fatal error: " and whose C library translates
#: "No such file or directory": the compiler's own half of a localized log
GCC_LOCALES = ["zh_CN", "ru_RU", "ja_JP", "es_ES", "fr_FR", "de_DE"]

#: an extension built with one C++ ABI against a torch of the other: a c10 function taking std::string
#: that the linked library does not define (its std::__cxx11 name is in the message)
ABI_SOURCE = """#include <string>
namespace c10 { namespace detail {
void torchCheckFail(const char*, const char*, unsigned, const std::string&);
} }
int main() { c10::detail::torchCheckFail("a", "b", 1, std::string("c")); }
"""
CASES = {
    # a CUDA extension linked against a CPU-only torch: no libc10_cuda.so to find
    "missing-c10-cuda": ["-L{tmp}/nonexistent", "-lc10_cuda"],
    "undefined-c10-symbol": [],
}


def _needs_tools() -> None:
    for tool in ("g++", "localedef"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    if not (LOCALE_SOURCES / "ru_RU").exists():
        pytest.skip("no locale sources in /usr/share/i18n/locales: install Debian's `locales` (scripts/setup-tests)")


@pytest.fixture(scope="module")
def locpath(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of compiled locales (``<lang>.UTF-8``), built once with the real localedef."""
    _needs_tools()
    root = tmp_path_factory.mktemp("locales")
    for lang in sorted(set(LOCALES) | set(GCC_LOCALES)):
        subprocess.run(
            ["localedef", "-i", lang, "-f", "UTF-8", str(root / f"{lang}.UTF-8")],
            check=False,  # localedef exits 1 on warnings while still writing the locale
            capture_output=True,
        )
        assert (root / f"{lang}.UTF-8").is_dir(), f"localedef did not build {lang}"
    return root


def _link(tmp: Path, locpath: Path, locale: str, case: str) -> str:
    """What g++ (and the ld it runs) prints for ``case`` under ``locale``, the temporary object's
    random name replaced."""
    src = tmp / "abi.cpp"
    src.write_text(ABI_SOURCE)
    env = dict(os.environ, LOCPATH=str(locpath), LC_ALL=locale, LANGUAGE="")
    argv = ["g++", str(src), "-o", str(tmp / "a.out"), *(a.format(tmp=tmp) for a in CASES[case])]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode != 0, proc.stderr
    return re.sub(r"/tmp/cc\w+\.o", "/tmp/cc.o", proc.stderr)


@pytest.mark.parametrize("lang", LOCALES)
def test_the_real_linker_in_another_language_names_the_same_cause(lang, locpath, tmp_path):
    """A CUDA extension linked against a CPU-only torch (``-lc10_cuda`` not found) and an extension of
    the other C++ ABI (an undefined ``c10::`` symbol taking ``std::__cxx11::basic_string``), linked by
    the real g++/ld under LC_ALL=<lang>.UTF-8: diagnose names the cause it names for the English
    output.  Before the pattern rows, 8 of the 12 outputs of ru_RU, es_ES, fr_FR, ja_JP and zh_CN
    were ``unknown`` (session 34)."""
    translated = 0
    for case in CASES:
        english = _link(tmp_path, locpath, "C.UTF-8", case)
        local = _link(tmp_path, locpath, f"{lang}.UTF-8", case)
        expected = diagnose_text(english).root.cause_id
        assert expected in {"torch_cpu_only", "cxx_abi_mismatch"}, english
        if local != english:
            translated += 1
        assert diagnose_text(local).root.cause_id == expected, local
    # every listed language's ld.mo translates at least one of the two messages
    assert translated >= 1, f"ld printed English under {lang}: the test would not test the translation"


def test_the_old_linker_form_of_a_centos7_log_is_read():
    """binutils 2.27 (CentOS 7) under LANG=zh_CN, from a real log (wenet-e2e/wenet#771): the symbol is
    inside the message ("对‘X’未定义的引用"), which a fixed-text replacement cannot undo.  It reads as
    GNU ld's English form, and a torch library needing a newer glibc is named."""
    lines = [
        "wenet/runtime/server/x86/fc_base/libtorch-src/lib/libtorch_cpu.so：对‘powf@GLIBC_2.27’未定义的引用",
        "wenet/runtime/server/x86/fc_base/libtorch-src/lib/libtorch_cpu.so：对‘log2f@GLIBC_2.27’未定义的引用",
    ]
    assert normalize(lines[0]).endswith("libtorch_cpu.so: undefined reference to `powf@GLIBC_2.27'")
    assert diagnose_text("\n".join(lines)).root.cause_id == "libc_too_old"


@pytest.mark.parametrize(
    ("line", "english"),
    [
        # the placeholder is one word where no quote follows it: the reason after it stays a libc text
        (
            "/usr/bin/ld: 找不到 -ltorch_cuda: 没有那个文件或目录",
            "/usr/bin/ld: cannot find -ltorch_cuda: No such file or directory",
        ),
        # French's no-break spaces inside « » match plain spaces too (a paste may have lost them)
        ("x.o : référence indéfinie vers « foo »", "x.o : undefined reference to `foo'"),
        ("x.o\xa0: référence indéfinie vers «\xa0foo\xa0»", "x.o\xa0: undefined reference to `foo'"),
        # a Japanese message that only looks alike (no space before が) is left alone
        ("指定されたモジュールが見つかりません。", "指定されたモジュールが見つかりません。"),
    ],
)
def test_pattern_rows_read_the_placeholder_they_should(line, english):
    """What the pattern rows take as the symbol or library, on lines a real ld printed or a paste of them."""
    assert normalize(line) == english


#: a header of the CUDA toolkit and one that torch removed (THC, gone in torch 1.11): each names its cause
HEADERS = {"cuda_runtime.h": "cuda_toolkit_incomplete", "THC/THC.h": "torch_api_removed"}


@pytest.mark.parametrize("lang", GCC_LOCALES)
def test_the_real_compiler_in_another_language_names_the_same_cause(lang, locpath, tmp_path):
    """g++ under LC_ALL=<lang>.UTF-8 failing on a missing #include ("致命错误：cuda_runtime.h：没有那个文件或目录",
    "erreur fatale: THC/THC.h : Aucun fichier ou dossier de ce type"): the gcc and C library texts of
    localized.toml put it back in English, and diagnose names the cause it names for the English output."""
    major = (
        subprocess.run(["gcc", "-dumpversion"], capture_output=True, text=True, check=False)
        .stdout.strip()
        .split(".")[0]
    )
    short = lang.split("_")[0] if lang not in ("zh_CN", "zh_TW", "pt_BR") else lang
    if not (Path("/usr/share/locale") / short / "LC_MESSAGES" / f"gcc-{major}.mo").exists():
        pytest.skip(
            f"gcc's {short} catalog is not installed (Debian: gcc-{major}-locales, which scripts/setup-tests installs)"
        )
    for header, cause in HEADERS.items():
        src = tmp_path / "inc.cpp"
        src.write_text(f"#include <{header}>\nint main() {{ return 0; }}\n")
        outs = {}
        for locale in ("C.UTF-8", f"{lang}.UTF-8"):
            env = dict(os.environ, LOCPATH=str(locpath), LC_ALL=locale, LANGUAGE="")
            argv = ["g++", "-c", str(src), "-o", str(tmp_path / "inc.o")]
            outs[locale] = subprocess.run(argv, env=env, capture_output=True, text=True, check=False).stderr
        english, local = outs["C.UTF-8"], outs[f"{lang}.UTF-8"]
        assert "fatal error" in english and "fatal error" not in local, local  # the compiler spoke <lang>
        assert diagnose_text(english).root.cause_id == cause
        assert diagnose_text(local).root.cause_id == cause, local
