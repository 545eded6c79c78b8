"""Windows around trigger lines that a consumer may narrow while it reads (a log with thousands of failed steps).

:class:`WindowSize` is the context :class:`~.window_scan.WindowScan` keeps around each trigger line; it is read
again at every chunk, so a consumer that has seen enough (``torchbuild diagnose`` once its memory bound of error
lines is reached) can shrink it for the rest of the log.  :class:`LineWindows` does the same for a log read line by
line (:meth:`~.reader.LogReader.lines`): every line until :meth:`LineWindows.narrow` is called, then only the
lines near a trigger and the last ``tail`` lines.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .lines import LogLine

__all__ = ["WindowSize", "LineWindows"]


@dataclass
class WindowSize:
    """Lines kept before and after each trigger line (mutable: a scan reads it again at every chunk).

    :param before: lines before a trigger line (int, >= 0).
    :param after: lines after a trigger line (int, >= 0).
    """

    before: int = 40
    after: int = 10


class LineWindows:
    """Every line of ``lines`` until :meth:`narrow` is called; from then on only the lines within ``before`` lines
    before or ``after`` lines after a line that contains one of ``triggers``, and the last ``tail`` lines of the
    log, in order, each once (the same lines :meth:`~.reader.LogReader.windows` yields for that part of the log).

    After :meth:`narrow`, lines are yielded ``max(tail, before)`` lines late (they wait until it is known whether
    a trigger follows or the log ends); before it, at once.

    :param lines: the log's lines in order (:class:`LogLine`, numbers increasing).
    :param triggers: exact, case-sensitive substrings (``str``).
    :param tail: the last lines always yielded (int, >= 0).

    Attributes: ``window`` (:class:`WindowSize`, the lines kept around a trigger line once narrowed), ``narrowed``
    (bool), ``narrowed_at`` (the number of the last line yielded before the narrowing, 0 when it came before the
    first line, None while not narrowed).
    """

    def __init__(self, lines: Iterable[LogLine], triggers: Iterable[str], *, tail: int) -> None:
        self._lines = lines
        self._triggers = tuple(triggers)
        self._tail = tail
        self.window = WindowSize()
        self.narrowed = False
        self.narrowed_at: int | None = None  # number of the last line yielded before narrowing

    def narrow(self, before: int, after: int) -> None:
        """From the next line on, yield only the lines near a trigger (and the tail).  A second call changes the
        window again."""
        self.window = WindowSize(before, after)
        self.narrowed = True

    def __iter__(self) -> Iterator[LogLine]:
        trig = self._triggers
        it = iter(self._lines)
        last = 0
        if not self.narrowed:
            for line in it:
                last = line.number
                yield line
                if self.narrowed:
                    break
            else:
                return
        self.narrowed_at = last
        # the lines right after the narrowing point are kept as after-context (none when narrowed before the start)
        last_hit = last if last else -(1 << 62)
        held: deque[LogLine] = deque()
        hits: deque[int] = deque()  # numbers of the trigger lines in ``held``
        tail = self._tail

        def kept(old: LogLine) -> bool:
            """Whether ``old``, leaving ``held``, is near a trigger (every trigger up to ``before`` lines after it
            is in ``hits`` by then)."""
            nonlocal last_hit
            n = old.number
            if hits and hits[0] == n:
                hits.popleft()
                last_hit = n
                return True
            return n - last_hit <= self.window.after or bool(hits and hits[0] - n <= self.window.before)

        for line in it:
            if any(t in line.text for t in trig):
                hits.append(line.number)
            held.append(line)
            if len(held) > max(tail, self.window.before) and kept(old := held.popleft()):
                yield old
        # the end: the last ``tail`` lines whatever they hold, the ones before them by the same rule
        while len(held) > tail:
            if kept(old := held.popleft()):
                yield old
        yield from held
