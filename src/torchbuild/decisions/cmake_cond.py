"""Evaluate the condition of a ``cmake_dependent_option`` (pure).

``cmake_dependent_option(USE_CUDNN "Use cuDNN" ON "USE_CUDA" OFF)`` forces
``USE_CUDNN`` OFF whenever ``USE_CUDA`` is false; the condition is a ``;``-separated
list of CMake ``if()`` expressions that must all hold (CMake documentation,
module CMakeDependentOption; PyTorch's uses: its top ``CMakeLists.txt``).

Three-valued: a name we know nothing about makes the answer None ("CMake decides").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["evaluate", "cmake_bool"]

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_TRUE = {"1", "ON", "YES", "TRUE", "Y"}
_FALSE = {"0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND", ""}


def cmake_bool(value: str | None) -> bool | None:
    """CMake's truthiness of a raw value (CMake docs, ``if(<constant>)``).

    True for ``1``/``ON``/``YES``/``TRUE``/``Y`` (any case) and non-zero numbers; False for
    ``0``/``OFF``/``NO``/``FALSE``/``N``/``IGNORE``/``NOTFOUND``/empty and anything ending in
    ``-NOTFOUND``; None for ``None`` or any other string (CMake would read it as a variable
    name, so its truth is unknown here).
    """
    if value is None:
        return None
    v = value.strip().upper()
    if v in _TRUE:
        return True
    if v in _FALSE or v.endswith("-NOTFOUND"):
        return False
    try:
        return float(v) != 0.0
    except ValueError:
        return None


def _const(value: str) -> bool | None:
    return cmake_bool(value.strip().strip('"'))


def evaluate(condition: str, values: Mapping[str, str], platform: Mapping[str, bool]) -> bool | None:
    """Evaluate ``condition`` (e.g. ``"USE_CUDA OR USE_ROCM;UNIX;NOT APPLE"``).

    :param values: option values as CMake strings (``"ON"``, ``"0"``...).
    :param platform: platform variables (``UNIX``, ``LINUX``, ``APPLE``, ``WIN32``...).
    :returns: True / False, or None when an unknown name or an unsupported operator
        (``VERSION_LESS``, ``DEFINED``...) decides the result.
    """
    result: bool | None = True
    for part in condition.split(";"):
        part = part.strip()
        if not part:
            continue
        r = _expr(_TOKEN.findall(part), values, platform)
        result = _and(result, r)
    return result


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def _expr(tokens: list[str], values: Mapping[str, str], platform: Mapping[str, bool]) -> bool | None:
    pos = 0

    def atom() -> bool | None:
        nonlocal pos
        if pos >= len(tokens):
            return None
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            r = or_expr()
            if pos < len(tokens) and tokens[pos] == ")":
                pos += 1
            return r
        if tok.upper() == "NOT":
            r = atom()
            return None if r is None else not r
        if tok in values:
            return _const(values[tok])
        if tok in platform:
            return platform[tok]
        c = _const(tok)
        return c  # unknown variable -> None

    def and_expr() -> bool | None:
        nonlocal pos
        r = atom()
        while pos < len(tokens) and tokens[pos].upper() == "AND":
            pos += 1
            r = _and(r, atom())
        return r

    def or_expr() -> bool | None:
        nonlocal pos
        r = and_expr()
        while pos < len(tokens) and tokens[pos].upper() == "OR":
            pos += 1
            r = _or(r, and_expr())
        return r

    r = or_expr()
    if pos != len(tokens):
        return None  # an operator we do not model (VERSION_LESS, DEFINED, ...)
    return r
