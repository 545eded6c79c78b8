"""Lines inside the reader's buffer, by byte offset: walking a number of lines back or forward, and the last
lines of a log merged with the window lines held back (for :meth:`~.reader.LogReader.windows`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from .lines import MAX_LINE_BYTES, LogLine, clean_line


def lines_back(buf: bytearray, start: int, n: int) -> int:
    """The offset of the line ``n`` lines before the line that starts at ``start`` in ``buf`` (0 at the most)."""
    for _ in range(n):
        if start == 0:
            break
        start = buf.rfind(b"\n", 0, start - 1) + 1
    return start


def lines_forward(buf: bytearray, start: int, n: int, limit: int) -> int:
    """The offset just past the ``n`` lines that start at ``start`` in ``buf[:limit]`` (``limit`` at the most)."""
    for _ in range(n):
        j = buf.find(b"\n", start, limit)
        if j == -1:
            return limit
        start = j + 1
    return start


def with_tail(
    held: deque[LogLine], buf: bytearray, base: int, limit: int, tail: int, max_chars: int
) -> Iterator[LogLine]:
    """At the end of :meth:`~.reader.LogReader.windows`: the lines ``held`` back and the last ``tail`` lines of
    ``buf[:limit]`` (whose first line is line ``base``; the look-back holds at most ``4 * MAX_LINE_BYTES`` of
    them), in order, each once."""
    stop = limit - 1 if limit > 0 and buf[limit - 1] == 10 else limit
    ws = buf.rfind(b"\n", 0, stop) + 1 if limit > 0 else limit  # the start of the last line
    ws = lines_back(buf, ws, tail - 1)
    k = base + buf.count(b"\n", 0, ws)
    have = {ln.number for ln in held}
    last: list[LogLine] = []
    a = ws
    while a < limit:
        b = buf.find(b"\n", a, limit)
        if b == -1:
            b = limit
        if k not in have:
            last.append(LogLine(k, clean_line(bytes(buf[a : min(b, a + MAX_LINE_BYTES)]), max_chars)))
        k += 1
        a = b + 1
    if not last:
        yield from held
        return
    yield from sorted([*held, *last], key=lambda ln: ln.number)
