"""The scan behind :meth:`LogReader.windows <torchbuild.facts.logfile.reader.LogReader.windows>`: the lines
around trigger substrings of a log of any size, read chunk by chunk into one reused buffer."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .buffer_lines import lines_back, lines_forward, with_tail
from .lines import MAX_LINE_BYTES, LogFileError, LogLine, _extend, clean_line
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


@dataclass
class Deferred:
    """A chunk counted ahead of grep (:meth:`WindowScan._count_ahead`), to be read again by ``pread``.

    * ``offset`` (bytes): file offset of the buffer's first byte; ``limit`` (bytes): end of its complete lines;
    * ``base``: number of the buffer's first line; ``lb_end`` (bytes): end of the look-back lines;
    * ``first_new``: number of the line at ``lb_end``; ``line_at_limit``: number of the line at ``limit``;
    * ``resolved``: whether grep's offsets were taken; ``positions``: then grep's file offsets of the triggers in
      it, or None when grep failed (searched here then).
    """

    offset: int
    base: int
    lb_end: int
    limit: int
    first_new: int
    line_at_limit: int
    resolved: bool = False
    positions: list[int] | None = None


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
    :param pread: reads the log's bytes at a file offset into a view and returns their number (a plain file), or
        None.  With it and ``hits``, a chunk that grep has not reached yet is not waited for: its lines are
        counted and it is read again once grep's offsets for it are in (:meth:`_replay`), so that Python's pass
        and grep's run at the same time instead of one after the other.
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
        pread: Callable[[memoryview, int], int] | None = None,
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
        self.delivered = 0  # highest line number yielded (or held back)
        self.held: deque[LogLine] = deque()  # window lines held back while they may be among the last ``tail``
        self.line_at_limit = 1  # set by _emit: the number of the line at the end of the complete lines
        self.pread = pread
        self.deferred: list[Deferred] = []  # chunks counted ahead of grep, in order
        self.ready: list[int] | None = None  # grep's offsets for the chunk in the buffer, taken by _defer
        self.rbuf: bytearray | None = None  # the second buffer of _replay, made on first use

    @property
    def before(self) -> int:
        """Lines kept before a trigger line (read from :attr:`window` at every chunk)."""
        return self.window.before

    @property
    def after(self) -> int:
        """Lines kept after a trigger line (read from :attr:`window` at every chunk)."""
        return self.window.after

    def stop_grep(self) -> None:
        """Stop the grep search (if any): from now on the triggers are searched here (the offsets of the chunks
        counted ahead are taken from grep first)."""
        self._resolve_deferred()
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
        tail = self.tail
        try:
            while True:
                filled = self._fill(view)
                if filled is None:
                    continue
                limit, eof = filled
                if not eof and self._defer(limit):
                    self._count_ahead(view, limit)
                    continue
                if self.deferred:
                    yield from self._replay()
                yield from self._emit(self._positions(limit), limit, eof)
                line_at_pos = self.line_at_limit
                if eof:
                    ends_with_nl = limit == 0 or self.buf[limit - 1] == 10
                    self.reader.line_count = line_at_pos - 1 if ends_with_nl else line_at_pos
                    if tail:
                        yield from with_tail(self.held, self.buf, self.base, limit, tail, self.max_chars)
                    return
                self.reader.line_count = line_at_pos - 1
                yield from self._let_go(line_at_pos)
                self._keep_look_back(view, limit, line_at_pos)
        finally:
            view.release()
            self._close_grep()  # done: ``scanner`` keeps the command that found the triggers

    def _emit(self, positions: list[int], limit: int, eof: bool) -> Iterator[LogLine]:
        """The window lines of ``buf[:limit]`` (whose first line is line ``base``) around the triggers at
        ``positions``, not yielded yet, in order (held back while they may be among the last ``tail`` lines);
        sets :attr:`line_at_limit`, the number of the line that starts at ``limit``."""
        buf, tail, max_chars, held = self.buf, self.tail, self.max_chars, self.held
        find, count = buf.find, buf.count
        delivered = self.delivered
        pos, line_at_pos = 0, self.base
        for s0, e0 in self._spans(positions, limit, eof):
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
                    delivered = self.delivered = k
                k += 1
                a = b + 1
        self.line_at_limit = line_at_pos + count(b"\n", pos, limit)

    def _let_go(self, line_at_pos: int) -> Iterator[LogLine]:
        """The lines held back that can no longer be among the last ``tail`` lines (the line at the end of the
        complete lines read is ``line_at_pos``)."""
        held, tail = self.held, self.tail
        while held and held[0].number < line_at_pos - tail:
            yield held.popleft()

    # -- counting ahead of grep ----------------------------------------------------------------------------
    def _defer(self, limit: int) -> bool:
        """Whether the chunk in ``buf[:limit]`` is only counted now and its windows read later (:meth:`_replay`):
        grep runs, the file can be read again at an offset, and grep has not yet told which triggers lie in it
        (or an earlier chunk is already deferred: lines are yielded in order).  When grep has told, its offsets
        are kept for :meth:`_positions`."""
        if self.hits is None or self.pread is None:
            return False
        if self.deferred:
            return True
        found = self.hits.ready_upto(self.reader.bytes_read - self.end + limit)
        if found is None:
            return True
        self.ready = found
        return False

    def _count_ahead(self, view: memoryview, limit: int) -> None:
        """Count the lines of a deferred chunk and keep where it lies in the file (:class:`Deferred`)."""
        count = self.buf.count
        first_new = self.base + count(b"\n", 0, self.lb_end)
        line_at_pos = first_new + count(b"\n", self.lb_end, limit)
        self.deferred.append(
            Deferred(self.reader.bytes_read - self.end, self.base, self.lb_end, limit, first_new, line_at_pos)
        )
        self.reader.line_count = line_at_pos - 1
        self._keep_look_back(view, limit, line_at_pos)

    def _resolve_deferred(self) -> None:
        """Take grep's offsets for every deferred chunk (waiting for grep to pass them), before grep is closed."""
        for d in self.deferred:
            if not d.resolved:
                d.positions = self.hits.upto(d.offset + d.limit) if self.hits is not None else None
                d.resolved = True

    def _replay(self) -> Iterator[LogLine]:
        """The window lines of the deferred chunks, in order: a chunk without a trigger or owed lines is skipped
        (its lines were counted); the others are read again from the file into a second buffer."""
        self._resolve_deferred()
        main = self.buf, self.base, self.lb_end
        pread = self.pread
        assert pread is not None  # deferred only when the file can be read again
        try:
            for d in self.deferred:
                rel = None if d.positions is None else [o - d.offset for o in d.positions if o - d.offset >= d.lb_end]
                owed = self.pending_after or (self.head and d.first_new <= self.head)
                if rel is not None and not rel and not owed:
                    yield from self._let_go(d.line_at_limit)
                    continue
                if self.rbuf is None:
                    self.rbuf = bytearray(len(main[0]))
                with memoryview(self.rbuf) as rview:
                    got = pread(rview[: d.limit], d.offset)
                if got != d.limit:  # the file was cut or rewritten under the reader
                    raise LogFileError(
                        f"the log file became shorter while it was read ({got} of {d.limit} bytes at offset "
                        f"{d.offset} could be read again); diagnose a copy that nothing writes to"
                    )
                self.buf, self.base, self.lb_end = self.rbuf, d.base, d.lb_end
                yield from self._emit(rel if rel is not None else self._find(d.limit), d.limit, False)
                yield from self._let_go(d.line_at_limit)
        finally:
            self.buf, self.base, self.lb_end = main
        self.deferred.clear()

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
        found, self.ready = self.ready, None
        if self.hits is not None:
            shift = self.reader.bytes_read - self.end  # file offset of buf[0]
            if found is None:
                found = self.hits.upto(shift + limit)
            if found is not None:
                return [o - shift for o in found if o - shift >= lb_end]
            self.stop_grep()  # grep failed: search here from now on
        return self._find(limit)

    def _find(self, limit: int) -> list[int]:
        """The buffer offsets of the triggers in ``buf[lb_end:limit]``, searched here."""
        find, lb_end = self.buf.find, self.lb_end
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
