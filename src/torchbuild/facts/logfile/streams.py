"""Byte streams under :class:`~.reader.LogReader`: standard input with its first bytes put back
(:class:`Prepend`), and UTF-16 text read as UTF-8 (:func:`utf16_kind`, :class:`Utf16Text`)."""

from __future__ import annotations

import codecs
import io
from typing import BinaryIO


class Prepend(io.RawIOBase):
    """A raw stream that first returns ``head`` and then reads from ``rest``."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(b))
        if not data:
            return 0
        b[: len(data)] = data
        return len(data)


def utf16_kind(head: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` when ``head`` (the first 8 bytes of a log) starts UTF-16 text, else None.

    UTF-16 is recognised by its byte-order mark (Windows PowerShell 5.1 writes its ``>`` redirections and
    ``Out-File`` as UTF-16LE with a BOM: learn.microsoft.com, Out-File's default encoding "Unicode" and
    about_Character_Encoding), or, without one, by four ASCII characters with a NUL byte beside each
    (``cmd /U``).  A UTF-32 BOM is not UTF-16."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return None
    if head.startswith(b"\xff\xfe"):
        return "utf-16-le"
    if head.startswith(b"\xfe\xff"):
        return "utf-16-be"
    if len(head) >= 8:
        even, odd = head[0:8:2], head[1:8:2]
        if not any(odd) and _printable(even):
            return "utf-16-le"
        if not any(even) and _printable(odd):
            return "utf-16-be"
    return None


def _printable(chars: bytes) -> bool:
    return all(0x20 <= c < 0x7F or c in (9, 10, 13) for c in chars)


class Utf16Text(io.RawIOBase):
    """UTF-16 text (``encoding``: ``"utf-16-le"`` or ``"utf-16-be"``) read from ``f`` as UTF-8 bytes: the BOM
    dropped, an unpaired surrogate or a cut last byte replaced by U+FFFD."""

    def __init__(self, f: BinaryIO, encoding: str) -> None:
        self._f = f
        self._dec = codecs.getincrementaldecoder(encoding)("replace")
        self._out = b""
        self._pos = 0
        self._eof = False
        self._start = True

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        while self._pos >= len(self._out) and not self._eof:
            data = self._f.read(max(2, len(b)))
            text = self._dec.decode(data, final=not data)
            self._eof = not data
            if self._start and text:
                text = text.removeprefix("\ufeff")
                self._start = False
            self._out, self._pos = text.encode("utf-8"), 0
        n = min(len(b), len(self._out) - self._pos)
        b[:n] = self._out[self._pos : self._pos + n]
        self._pos += n
        return n
