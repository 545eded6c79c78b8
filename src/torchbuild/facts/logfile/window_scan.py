"""The scan behind :meth:`LogReader.windows <torchbuild.facts.logfile.reader.LogReader.windows>`: the lines
around trigger substrings of a log of any size, read chunk by chunk into one reused buffer."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

from .buffer_lines import lines_back, lines_forward, with_tail
from .lines import MAX_LINE_BYTES, LogLine, _extend, clean_line
from .narrowing import WindowSize

if TYPE_CHECKING:
    from .grep_hits import GrepHits


class ScanTarget(Protocol):
    """What :class:`WindowScan` reads and sets on the reader it scans for (a :class:`~.reader.LogReader` is one).

    * ``bytes_read`` (int, bytes): bytes read so far, which turns a buffer offset into a file offset;
    * ``scanner`` (str | None): set to the command of the grep process that finds the triggers, or None;
    * ``line_count`` (int): set to the lines read so far.
    """

    bytes_read: int
    scanner: str | None
    line_count: int


class WindowScan:
    """One pass over a log that yields the lines within ``before``/``after`` lines of a trigger, the first
    ``head`` and the last ``tail`` lines, in order, each once (:meth:`lines`).

    The log is read with ``readinto`` into one buffer of ``2 * chunk + 8 * MAX_LINE_BYTES`` bytes, reused for
    the whole log; each trigger is searched with ``bytearray.find`` (or found by ``hits``, a grep process
    reading the same file) and lines are counted with ``bytearray.count``, so untouched parts of the log cost no
    Python per line.  Only the last ``before`` (or ``tail``) lines and the unfinished last line are kept from one
    chunk to the next.  A line longer than a chunk is cut down to :data:`MAX_LINE_BYTES` (its ``\\r`` redraws
    resolved) before it is searched, and the search moves here from then on (the cut shifts the offsets grep
    reports).

    :param reader: the log's reader (:class:`ScanTarget`); its ``scanner`` and ``line_count`` are set here.
    :param readinto: fills a view with the next bytes of the log and returns their number (0 at its end).
    :param triggers: exact, case-sensitive byte strings without ``\\n``.
    :param hits: a started grep search for ``triggers`` over the same bytes, or None to search here.
    :param chunk: bytes read at a time.
    :param window: the lines kept before and after each trigger line (:class:`~.narrowing.WindowSize`); read
        again at every chunk, so that a consumer may narrow it while it reads.
    """

    def __init__(
        self,
        reader: ScanTarget,
        readinto: Callable[[memoryview], int],
        triggers: tuple[bytes, ...],
        hits: GrepHits | None,
        *,
        chunk: int,
        window: WindowSize,
        head: int,
        tail: int,
        max_chars: int,
    ) -> None:
        self.reader = reader
        self.readinto = readinto
        self.trig = triggers
        self.hits = hits
        reader.scanner = hits.command if hits is not None else None
        self.size = chunk
        self.window = window
        self.head, self.tail, self.max_chars = head, tail, max_chars
        self.buf = bytearray(2 * chunk + 8 * MAX_LINE_BYTES)
        self.base = 1  # line number of the line that starts at buf[0]
        self.lb_end = 0  # buf[0:lb_end]: look-back lines (complete, already scanned)
        self.end = 0  # buf[lb_end:end]: the unfinished line and new data
        self.long_line = False  # buf[lb_end:end] starts with a line already cut down
        self.pending_after = 0  # lines still owed after a hit near the end of the last round

    @property
    def before(self) -> int:
        """Lines kept before a trigger line (read from :attr:`window` at every chunk)."""
        return self.window.before

    @property
    def after(self) -> int:
        """Lines kept after a trigger line (read from :attr:`window` at every chunk)."""
        return self.window.after

    def stop_grep(self) -> None:
        """Stop the grep search (if any): from now on the triggers are searched here."""
        if self._close_grep():
            self.reader.scanner = None

    def _close_grep(self) -> bool:
        """Close the grep process, if one runs; whether one did.  ``reader.scanner`` is left as it is."""
        if self.hits is None:
            return False
        self.hits.close()
        self.hits = None
        return True

    def lines(self) -> Iterator[LogLine]:
        """The lines of the windows, in order, each once; ``reader.line_count`` is exact at the end.

        :returns: an iterator of :class:`LogLine` (number from 1, cleaned text of at most ``max_chars``
            characters); the grep process is closed when it ends, also when it is not read to the end.
        """
        view = memoryview(self.buf)
        buf, tail, max_chars = self.buf, self.tail, self.max_chars
        find, count = buf.find, buf.count
        delivered = 0  # highest line number yielded (or held back)
        held: deque[LogLine] = deque()  # window lines held back while they may be among the last ``tail``
        try:
            while True:
                filled = self._fill(view)
                if filled is None:
                    continue
                limit, eof = filled
                spans = self._spans(self._positions(limit), limit, eof)
                pos, line_at_pos = 0, self.base
                for s0, e0 in spans:
                    line_at_pos += count(b"\n", pos, s0)
                    pos = s0
                    k = line_at_pos
                    a = s0
                    while a < e0:
                        b = find(b"\n", a, e0)
                        if b == -1:
                            b = e0
                        if k > delivered:
                            raw = bytes(buf[a : min(b, a + MAX_LINE_BYTES)])
                            if tail:
                                held.append(LogLine(k, clean_line(raw, max_chars)))
                            else:
                                yield LogLine(k, clean_line(raw, max_chars))
                            delivered = k
                        k += 1
                        a = b + 1
                line_at_pos += count(b"\n", pos, limit)  # line number at ``limit``
                if eof:
                    ends_with_nl = limit == 0 or buf[limit - 1] == 10
                    self.reader.line_count = line_at_pos - 1 if ends_with_nl else line_at_pos
                    if tail:
                        yield from with_tail(held, buf, self.base, limit, tail, max_chars)
                    return
                self.reader.line_count = line_at_pos - 1
                # a line held back is let go once it cannot be among the last ``tail`` lines
                while held and held[0].number < line_at_pos - tail:
                    yield held.popleft()
                self._keep_look_back(view, limit, line_at_pos)
        finally:
            view.release()
            self._close_grep()  # done: ``scanner`` keeps the command that found the triggers

    def _fill(self, view: memoryview) -> tuple[int, bool] | None:
        """Read the next chunk after the kept bytes.

        :returns: ``(limit, eof)``: ``limit`` is the end of the complete lines now in ``buf[lb_end:limit]`` (the
            rest waits for the next chunk); at the end of the log (``eof``) every byte counts.  None when the chunk
            ended inside a line, which is kept (cut down once longer than a chunk) for the next one.
        """
        buf, lb_end, size = self.buf, self.lb_end, self.size
        new = self.end
        n = self.readinto(view[new : new + size])
        end = self.end = new + n
        if n == 0:
            return end, True
        nl = buf.rfind(b"\n", new, end)
        if nl != -1 and not self.long_line:
            return nl + 1, False
        first_nl = buf.find(b"\n", new, end) if self.long_line else nl
        if first_nl == -1:
            if end - lb_end > size or self.long_line:
                self.stop_grep()  # cut lines shift offsets: search here from now on
                # a line longer than a chunk: keep it cut down
                cut = _extend(
                    bytes(buf[lb_end:new]) if self.long_line else b"",
                    bytes(buf[new if self.long_line else lb_end : end]),
                )
                buf[lb_end : lb_end + len(cut)] = cut
                self.end = lb_end + len(cut)
                self.long_line = True
            return None
        if self.long_line:
            cut = _extend(bytes(buf[lb_end:new]), bytes(buf[new:first_nl]))
            rest = bytes(buf[first_nl:end])
            buf[lb_end : lb_end + len(cut)] = cut
            buf[lb_end + len(cut) : lb_end + len(cut) + len(rest)] = rest
            self.end = lb_end + len(cut) + len(rest)
            self.long_line = False
            nl = buf.rfind(b"\n", lb_end, self.end)
        return nl + 1, False

    def _positions(self, limit: int) -> list[int]:
        """The buffer offsets of the triggers in ``buf[lb_end:limit]`` (unsorted), from grep while it runs."""
        lb_end = self.lb_end
        if self.hits is not None:
            shift = self.reader.bytes_read - self.end  # file offset of buf[0]
            found = self.hits.upto(shift + limit)
            if found is not None:
                return [o - shift for o in found if o - shift >= lb_end]
            self.stop_grep()  # grep failed: search here from now on
        find = self.buf.find
        positions = []
        for t in self.trig:
            i = find(t, lb_end, limit)
            while i != -1:
                positions.append(i)
                i = find(t, i + len(t), limit)
        return positions

    def _spans(self, positions: list[int], limit: int, eof: bool) -> list[tuple[int, int]]:
        """The byte ranges of ``buf`` to yield, in order and merged: the after-context and head lines owed
        from the last round, and ``before`` lines before to ``after`` lines after each trigger's line."""
        buf, lb_end = self.buf, self.lb_end
        find, rfind, count = buf.find, buf.rfind, buf.count
        spans: list[tuple[int, int]] = []
        owed = self.pending_after  # lines from lb_end on that must be yielded (after-context, the head)
        if self.head:
            first_new = self.base + count(b"\n", 0, lb_end)  # the number of the line at lb_end
            if first_new <= self.head:
                owed = max(owed, self.head - first_new + 1)
        if owed:
            spans.append((lb_end, lines_forward(buf, lb_end, owed, limit)))
            self.pending_after = 0
        if not positions:
            return spans
        positions.sort()
        hit_line_end = -1  # end of the last hit's line: more hits in it add nothing
        for p in positions:
            if p < hit_line_end:
                continue
            ls = rfind(b"\n", 0, p) + 1
            ws = ls
            if not spans or ws > spans[-1][1]:
                ws = lines_back(buf, ws, self.before)
            hit_line_end = find(b"\n", p, limit)
            hit_line_end = limit if hit_line_end == -1 else hit_line_end
            we = lines_forward(buf, ls, self.after + 1, limit)
            if we == limit and not eof:
                have = count(b"\n", ls, we)
                self.pending_after = max(self.pending_after, self.after + 1 - have)
            if spans and ws <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(spans[-1][1], we))
            else:
                spans.append((ws, we))
        return spans

    def _keep_look_back(self, view: memoryview, limit: int, line_at_pos: int) -> None:
        """Move the last ``before`` (or ``tail``) complete lines and the unfinished line to the start of the
        buffer (as many whole lines as fit in ``4 * MAX_LINE_BYTES``); ``line_at_pos`` is the number of the
        line at ``limit``."""
        buf = self.buf
        ts, k = limit, 0
        while k < max(self.before, self.tail) and ts > 0:
            back = buf.rfind(b"\n", 0, ts - 1) + 1
            if limit - back > 4 * MAX_LINE_BYTES:
                break
            ts = back
            k += 1
        keep = self.end - ts
        buf[0:keep] = bytes(view[ts : self.end])  # small: look-back + unfinished line
        self.base = line_at_pos - k
        self.lb_end = limit - ts
        self.end = keep
