"""One line of a log as a terminal shows it: the limits on a line, ``\r`` redraws, ANSI
codes, decoding (:func:`clean_line`), and telling a binary file from a log."""

from __future__ import annotations

import re
from typing import NamedTuple

from ...errors import LogFileError as LogFileError  # re-exported from its old place

#: Bytes read (after decompression) per chunk; the reader's memory is a small
#: multiple of this.
CHUNK_BYTES = 4 << 20
#: Plain files up to this size (bytes) are examined line by line by ``torchbuild diagnose``;
#: a larger one only around its trigger lines (:meth:`LogReader.windows`).
FULL_SCAN_BYTES = 32 << 20
#: Raw bytes of one line that are kept; the rest of a longer line is skipped.
MAX_LINE_BYTES = 64 << 10
#: Characters of decoded text kept per line.
MAX_LINE_CHARS = 8192

_ANSI = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


class LogLine(NamedTuple):
    """One line of a log as a terminal would have shown it.

    :param number: 1-based line number in the (decompressed) log.
    :param text: decoded text, ANSI codes removed, ``\\r`` redraws resolved, no line
        ending, at most :data:`MAX_LINE_CHARS` characters.
    """

    number: int
    text: str


def clean_line(raw: bytes, max_chars: int = MAX_LINE_CHARS) -> str:
    """Turn one raw line (without its ``\\n``) into display text.

    Resolves ``\\r`` redraws (keeps the last segment with visible text; a trailing
    ``\\r`` of CRLF is dropped), removes ANSI escape sequences, decodes UTF-8 with
    replacement characters and caps the result at ``max_chars`` characters.
    """
    if b"\r" in raw:
        raw = _last_visible_segment(raw)
    if b"\x1b" in raw:
        raw = _ANSI.sub(b"", raw)
    text = raw.decode("utf-8", "replace")
    if len(text) > max_chars:
        text = text[:max_chars]
    return text


def _last_visible_segment(raw: bytes) -> bytes:
    segs = raw.split(b"\r")
    for seg in reversed(segs):
        if seg.strip():
            return seg
    return b""


def _extend(carry: bytes, data: bytes) -> bytes:
    """Append ``data`` (no ``\\n`` in it) to the partial line ``carry``, resolving
    ``\\r`` redraws, keeping at most :data:`MAX_LINE_BYTES`."""
    if b"\r" in data:
        segs = data.split(b"\r")
        for i in range(len(segs) - 1, -1, -1):
            if segs[i].strip():
                break
        else:
            return carry
        new = carry + segs[0] if i == 0 else segs[i]
    else:
        if len(carry) >= MAX_LINE_BYTES:
            return carry
        new = carry + data
    return new[:MAX_LINE_BYTES] if len(new) > MAX_LINE_BYTES else new


def _looks_binary(sample: bytes) -> bool:
    """True when ``sample`` is clearly not text: NUL bytes in more than 0.1% of it, or
    more than 5% control bytes other than tab, newline, CR, ESC, BS, FF."""
    if not sample:
        return False
    nul = sample.count(b"\x00")
    if nul * 1000 > len(sample):
        return True
    ctrl = sum(sample.count(bytes([c])) for c in range(32) if c not in (9, 10, 11, 12, 13, 27, 8))
    return ctrl * 20 > len(sample)
