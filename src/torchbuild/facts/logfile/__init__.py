"""Streaming reader for build logs of any size (``torchbuild diagnose``).

Reading a log is looking at the machine, so it lives in the facts layer.  Bytes in,
:class:`LogLine` out:

* tolerant of invalid UTF-8 (replaced), CRLF, ANSI colour/erase codes and ``\\r``
  progress redraws (a line shows what a terminal would show: its last non-empty
  ``\\r`` segment);
* lines of any length: a kept line is capped (:data:`MAX_LINE_BYTES` raw bytes,
  :data:`MAX_LINE_CHARS` characters of text); the rest of an over-long line is
  skipped without being held in memory, so memory is bounded by the chunk size
  (:data:`CHUNK_BYTES`) whatever the file size;
* gzip, xz/lzma, bzip2 and zstd files are recognised by their magic bytes and
  decompressed on the fly (zstd through the ``zstandard`` package, the standard
  library's ``compression.zstd`` on Python 3.14+, or the ``zstd`` program);
* ``-`` reads standard input.

Two ways to read: :meth:`LogReader.lines` yields every line; :meth:`LogReader.windows`
yields only the lines around *trigger* substrings (a few lines before and after each),
which is how a multi-gigabyte log is scanned at close to ``grep`` speed.

Errors: :class:`LogFileError` (a :class:`torchbuild.errors.UsageError`, exit code 2)
for a missing path, a directory, an unreadable file or a compressed file that
cannot be opened.  A compressed stream that is truncated or corrupt part-way is
not an error: the text read so far is kept and :attr:`LogReader.stream_error` says
what happened.
"""

from __future__ import annotations

import os

from .lines import CHUNK_BYTES, FULL_SCAN_BYTES, MAX_LINE_BYTES, MAX_LINE_CHARS, LogFileError, LogLine, clean_line
from .narrowing import LineWindows, WindowSize
from .reader import LogReader

__all__ = [
    "FULL_SCAN_BYTES",
    "LogLine",
    "LogFileError",
    "LogReader",
    "LineWindows",
    "WindowSize",
    "open_log",
    "clean_line",
    "CHUNK_BYTES",
    "MAX_LINE_BYTES",
    "MAX_LINE_CHARS",
]


def open_log(path: str | os.PathLike[str], *, chunk_bytes: int = CHUNK_BYTES) -> LogReader:
    """Open a log for streaming: a path (plain or gzip/xz/bz2/zstd-compressed) or ``"-"``
    for standard input.

    :returns: a :class:`LogReader`; iterate :meth:`LogReader.lines` or
        :meth:`LogReader.windows` once, then :meth:`LogReader.close` it.
    :raises LogFileError: missing path, a directory, permission denied, or zstd
        without a decompressor.
    """
    return LogReader(path, chunk_bytes=chunk_bytes)
