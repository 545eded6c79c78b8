"""Undoing how a log line was pasted (pure): GitHub's bold markup, and a row of Visual Studio's Error List window
read back as the line the tool printed.  :func:`torchbuild.decisions.diagnose.classify.normalize` applies both."""

from __future__ import annotations

import re

__all__ = ["from_error_list", "unbold"]


#: A row copied from Visual Studio's Error List window (its columns Severity, Code, Description, Project, File, Line,
#: Suppression State, tab-separated): "Error\tC1083\tCannot open include file: 'corecrt.h': No such file or
#: directory\temucore\tC:\\...\\crtdefs.h\t10" (RPCS3/rpcs3#1225, issue 11 batch 726 held-out, read after session 47's
#: measurement; the same columns in pytorch/pytorch#45836, issue 11 batch 518 dev).
_ERROR_LIST_ROW = re.compile(
    r"^(?P<sev>Error|Warning)\t(?P<code>[A-Z]{1,3}\d{4})\t(?P<desc>[^\t]*)\t[^\t]*\t(?P<file>[^\t]*)\t(?P<line>\d*)"
)


def from_error_list(text: str) -> str:
    """A Visual Studio Error List row as the tool printed it in the build output: ``FILE(LINE): error CODE: TEXT``.
    Codes C1xxx and LNK1xxx are printed as fatal errors ("fatal error C1083", "LINK : fatal error LNK1158": the
    corpus's logs of both tools; https://learn.microsoft.com/en-us/cpp/error-messages/compiler-errors-1/fatal-error-c1083,
    https://learn.microsoft.com/en-us/cpp/error-messages/tool-errors/linker-tools-error-lnk1158); any other line is
    returned as it is."""
    m = _ERROR_LIST_ROW.match(text)
    if not m:
        return text
    code = m.group("code")
    if m.group("sev") == "Warning":
        sev = "warning"
    elif code.startswith(("C1", "LNK1")):
        sev = "fatal error"
    else:
        sev = "error"
    where = f"{m.group('file')}({m.group('line')}): " if m.group("file") else ""
    return f"{where}{sev} {code}: {m.group('desc')}"


#: GitHub's bold markup around a word of a log pasted outside a code block ("fatal error: **Python.h**: No such
#: file", "**OSError: ...**"): a pair of ``**`` hugging non-space text, or a line that opens with ``**``.
_BOLD = re.compile(r"(?<![\w*])\*\*(?=\S)([^*]+?)(?<=\S)\*\*(?![\w*])|^\*\*(?=[^\s*])")


def unbold(text: str) -> str:
    """``text`` without GitHub's ``**bold**`` markup (a C pointer type such as ``char **argv`` or
    ``'const char**' to 'char**'`` is left alone: its ``**`` is not a pair that opens and closes around text)."""
    return _BOLD.sub(lambda m: m.group(1) or "", text)
