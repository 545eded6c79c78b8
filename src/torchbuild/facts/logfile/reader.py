"""Streaming a log of any size, plain or compressed (:class:`LogReader`)."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from .grep_hits import GrepHits, gnu_grep
from .lines import (
    CHUNK_BYTES,
    MAX_LINE_BYTES,
    MAX_LINE_CHARS,
    LogFileError,
    LogLine,
    _extend,
    _looks_binary,
    clean_line,
)
from .narrowing import WindowSize
from .streams import Prepend, Utf16Text, utf16_kind
from .window_scan import WindowScan

_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


class LogReader:
    """A log opened for streaming; use as a context manager or call :meth:`close`.

    Attributes, valid after reading:

    * ``name`` (str): the path as given, or ``"-"`` for standard input;
    * ``compression`` (str | None): ``"gzip"``, ``"xz"``, ``"bz2"``, ``"zstd"`` or None;
    * ``encoding`` (str | None): ``"utf-16-le"`` or ``"utf-16-be"`` for a log in UTF-16 (a file, compressed
      or not, or standard input; :func:`~.streams.utf16_kind`), which is read as UTF-8; None when the bytes
      are read as they are;
    * ``bytes_read`` (int, bytes): decompressed (and decoded) bytes read so far;
    * ``line_count`` (int): lines read so far (a last line without ``\\n`` counts);
    * ``binary`` (bool): the first 64 KiB look like binary data (NUL or control
      bytes), not text;
    * ``stream_error`` (str | None): why a compressed stream ended early.

    :raises LogFileError: from the constructor, when the path cannot be opened.
    """

    def __init__(self, path: str | os.PathLike[str], *, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.name = str(path)
        self.compression: str | None = None
        self.encoding: str | None = None
        self.bytes_read = 0
        self.line_count = 0
        self.binary = False
        self.stream_error: str | None = None
        #: How :meth:`windows` found its trigger lines: the grep command it ran beside the reader, or None
        #: (Python's ``bytearray.find``).
        self.scanner: str | None = None
        self._path: str | None = None  # a plain file that grep may read
        self._hits: GrepHits | None = None  # a search started by prefetch()
        self._chunk = max(1024, int(chunk_bytes))
        self._proc: subprocess.Popen[bytes] | None = None
        self._raw: BinaryIO
        self._stream: BinaryIO
        self._consumed = False
        self._filling = False  # reading through _readinto (windows)
        self._eof = False
        if self.name == "-":
            self._raw = sys.stdin.buffer
            head = self._raw.read(8)
            base: BinaryIO = io.BufferedReader(Prepend(head, self._raw), buffer_size=1 << 16)  # type: ignore[arg-type]
            self._stream = self._wrap(base, head, None)
        else:
            p = Path(path)
            if not p.exists():
                raise LogFileError(
                    f"log file {self.name} does not exist; pass the path of a build log (or '-' to read standard input)"
                )
            if p.is_dir():
                raise LogFileError(
                    f"{self.name} is a directory, not a log file; pass the log itself (e.g. {self.name}/build.log)"
                )
            try:
                f = open(p, "rb")  # noqa: SIM115 - closed in close()
            except OSError as exc:
                raise LogFileError(
                    f"cannot read log file {self.name}: {exc.strerror or exc}; check its permissions"
                ) from exc
            self._raw = f
            try:
                head = f.read(8)
                f.seek(0)
            except OSError as exc:
                f.close()
                raise LogFileError(f"cannot read log file {self.name}: {exc.strerror or exc}") from exc
            self._stream = self._wrap(f, head, p)
            if self.compression is None and self.encoding is None:
                self._path = str(p)  # grep reads the file's own bytes

    # -- opening -------------------------------------------------------------
    def _wrap(self, f: BinaryIO, head: bytes, path: Path | None) -> BinaryIO:
        kind = None
        for magic, name in _MAGIC:
            if head.startswith(magic):
                kind = name
        if kind is None and head[:3] == b"BZh" and head[3:4].isdigit() and head[4:8] == b"1AY&":
            kind = "bz2"
        self.compression = kind
        if kind is None:
            return self._decoded(f, head)
        if kind == "gzip":
            return self._text_of(gzip.GzipFile(fileobj=f, mode="rb"))  # type: ignore[arg-type]
        if kind == "xz":
            return self._text_of(lzma.LZMAFile(f, mode="rb"))  # type: ignore[arg-type]
        if kind == "bz2":
            return self._text_of(bz2.BZ2File(f, mode="rb"))  # type: ignore[arg-type]
        return self._text_of(self._open_zstd(f, path))

    def _text_of(self, d: BinaryIO) -> BinaryIO:
        """The decompressed stream ``d``, UTF-16 text in it (recognised on its first 8 bytes by
        :func:`~.streams.utf16_kind`, as on a plain file) read as UTF-8; sets :attr:`encoding`.  A stream
        that cannot be read from its start is returned as it is: :meth:`_chunks` reports its error."""
        try:
            head = d.read(8)
        except (OSError, EOFError, ValueError, lzma.LZMAError):
            return d
        return self._decoded(io.BufferedReader(Prepend(head, d), buffer_size=1 << 16), head)  # type: ignore[arg-type]

    def _decoded(self, f: BinaryIO, head: bytes) -> BinaryIO:
        """``f`` (whose first bytes are ``head``) read as UTF-8: UTF-16 text (:func:`~.streams.utf16_kind`)
        decoded, anything else as it is; sets :attr:`encoding`."""
        self.encoding = utf16_kind(head)
        if self.encoding is None:
            return f
        return io.BufferedReader(Utf16Text(f, self.encoding), buffer_size=1 << 16)  # type: ignore[return-value]

    def _open_zstd(self, f: BinaryIO, path: Path | None) -> BinaryIO:
        try:  # Python 3.14+
            from compression import zstd as _zstd  # type: ignore[import-not-found]

            return _zstd.ZstdFile(f, mode="rb")  # type: ignore[no-any-return]
        except ImportError:
            pass
        try:
            import zstandard  # type: ignore[import-not-found]

            return zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)  # type: ignore[no-any-return]
        except ImportError:
            pass
        exe = shutil.which("zstd")
        if exe and path is not None:
            f.close()
            self._proc = subprocess.Popen(
                [exe, "-dc", "--", str(path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
            assert self._proc.stdout is not None
            return self._proc.stdout  # type: ignore[return-value]
        raise LogFileError(
            f"{self.name} is zstd-compressed and this Python cannot decompress it; "
            "pip install zstandard (or decompress it first: zstd -d FILE)"
        )

    # -- reading -------------------------------------------------------------
    def _chunks(self) -> Iterator[bytes]:
        """Raw decompressed chunks; sets :attr:`binary` on the first one."""
        if self._consumed:
            raise RuntimeError("a LogReader can be read only once")
        self._consumed = True
        first = True
        while True:
            try:
                data = self._stream.read(self._chunk)
            except (EOFError, OSError, lzma.LZMAError, ValueError) as exc:
                self.stream_error = (
                    f"the {self.compression or 'input'} stream ended early ({exc}); diagnosed the text read before that"
                )
                return
            except Exception as exc:  # zstandard.ZstdError and the like
                self.stream_error = f"the {self.compression or 'input'} stream could not be read to the end ({exc})"
                return
            if not data:
                if self._proc is not None and self._proc.wait() != 0:
                    self.stream_error = (
                        f"zstd could not decompress {self.name} to the end (exit code {self._proc.returncode}); "
                        "diagnosed the text read before that"
                    )
                return
            if first:
                first = False
                self.binary = _looks_binary(data[: 64 << 10])
            self.bytes_read += len(data)
            yield data

    def _aligned(self) -> Iterator[bytes]:
        """Buffers of whole lines (each ends with ``\\n``, except perhaps the last);
        over-long lines are already capped (and their ``\\r`` redraws resolved)."""
        carry = b""
        for data in self._chunks():
            nl = data.rfind(b"\n")
            if nl == -1:
                carry = _extend(carry, data)
                continue
            if carry:
                first_nl = data.find(b"\n")
                buf = _extend(carry, data[:first_nl]) + data[first_nl : nl + 1]
            else:
                buf = data[: nl + 1] if nl + 1 < len(data) else data
            carry = _extend(b"", data[nl + 1 :]) if nl + 1 < len(data) else b""
            yield buf
        if carry:
            yield carry

    def lines(self, *, max_chars: int = MAX_LINE_CHARS) -> Iterator[LogLine]:
        """Every line of the log, in order, numbered from 1."""
        n = 0
        for buf in self._aligned():
            parts = buf.split(b"\n")
            if parts and parts[-1] == b"":
                parts.pop()
            for raw in parts:
                n += 1
                if len(raw) > MAX_LINE_BYTES:
                    raw = raw[:MAX_LINE_BYTES]
                yield LogLine(n, clean_line(raw, max_chars))
            self.line_count = n

    def _readinto(self, view: memoryview) -> int:
        """Fill ``view`` from the (decompressed) stream; 0 at the end.  Sets
        :attr:`binary` on the first data and :attr:`stream_error` like :meth:`_chunks`."""
        if self._consumed and not self._filling:
            raise RuntimeError("a LogReader can be read only once")
        self._consumed = self._filling = True
        if self._eof:
            return 0
        try:
            readinto = getattr(self._stream, "readinto", None)
            if readinto is not None:
                n = readinto(view) or 0
            else:  # a stream without readinto (some decompressors)
                data = self._stream.read(len(view))
                n = len(data)
                view[:n] = data
        except (EOFError, OSError, lzma.LZMAError, ValueError) as exc:
            self.stream_error = (
                f"the {self.compression or 'input'} stream ended early ({exc}); diagnosed the text read before that"
            )
            n = 0
        except Exception as exc:  # zstandard.ZstdError and the like
            self.stream_error = f"the {self.compression or 'input'} stream could not be read to the end ({exc})"
            n = 0
        if n == 0:
            self._eof = True
            if self._proc is not None and self._proc.wait() != 0 and self.stream_error is None:
                self.stream_error = (
                    f"zstd could not decompress {self.name} to the end (exit code {self._proc.returncode}); "
                    "diagnosed the text read before that"
                )
            return 0
        if self.bytes_read == 0:
            self.binary = _looks_binary(bytes(view[: min(n, 64 << 10)]))
        self.bytes_read += n
        return n

    def prefetch(self, triggers: Iterable[bytes], *, min_bytes: int = 0) -> None:
        """Start the search of a later :meth:`windows` call with the same ``triggers`` now, so that it runs
        while the caller gets ready (imports, loading knowledge): GNU grep in its own process
        (:class:`GrepHits`), for a plain file of more than ``min_bytes`` bytes only; nothing otherwise
        (standard input, a compressed log, a smaller file, no GNU grep, already read).  A search already
        started for the same triggers is kept, one for other triggers stopped: afterwards the pending search
        is None or one for ``triggers``.  :meth:`close` stops a search that was never used."""
        trig = tuple(triggers)
        if self._hits is not None:
            if self._hits.triggers == trig:
                return
            self._hits.close()
            self._hits = None
        if self._path is None or self._consumed:
            return
        try:
            if os.path.getsize(self._path) <= min_bytes:
                return
        except OSError:
            return
        exe = gnu_grep()
        if exe is None:
            return
        self._hits = GrepHits(exe, self._path, trig)

    def windows(
        self,
        triggers: Iterable[bytes],
        *,
        before: int = 40,
        after: int = 10,
        head: int = 0,
        tail: int = 0,
        max_chars: int = MAX_LINE_CHARS,
        grep: bool | None = None,
        window: WindowSize | None = None,
    ) -> Iterator[LogLine]:
        """Only the lines within ``before``/``after`` lines of a line that contains one
        of ``triggers`` (exact, case-sensitive byte strings, no ``\\n``), the first ``head`` and the
        last ``tail`` lines of the log, in order, each once.

        The log is read with ``readinto`` into one reused buffer (no copy of the data,
        no allocation per chunk); each trigger is searched with ``bytearray.find``
        and lines are counted with ``bytearray.count``, once over each byte, so
        untouched parts of the log cost no Python per line.  Only the last ``before``
        lines and the unfinished last line are kept from one chunk to the next.  A
        line longer than a chunk is cut down to :data:`MAX_LINE_BYTES` (its ``\\r``
        redraws resolved) before it is searched.  :attr:`line_count` is exact at the end.

        ``grep``: for a plain (not compressed) file, GNU grep finds the triggers in a
        process of its own while this one reads and counts lines (:class:`GrepHits`;
        the command is kept in :attr:`scanner`).  None (the default) uses it when GNU
        grep is on PATH; False never.  The lines yielded are the same either way: from
        a line longer than a chunk on, or when grep fails, the rest is searched here.

        ``window``: a :class:`~.narrowing.WindowSize` that replaces ``before``/``after`` and is read again at every
        chunk: the consumer may narrow it while it reads (from the next chunk on).
        """
        trig = tuple(triggers)
        if grep is not False:
            self.prefetch(trig)  # keeps a search prefetched for these triggers
        hits, self._hits = self._hits, None
        if hits is not None and grep is False:
            hits.close()
            hits = None
        yield from WindowScan(
            self,
            self._readinto,
            trig,
            hits,
            chunk=self._chunk,
            window=window if window is not None else WindowSize(before, after),
            head=head,
            tail=tail,
            max_chars=max_chars,
            pread=self._pread if hits is not None and hasattr(os, "preadv") else None,
        ).lines()

    def _pread(self, view: memoryview, offset: int) -> int:
        """Read the plain file's bytes at ``offset`` (bytes) into ``view`` without moving its position; their
        number (fewer only at the end of the file)."""
        done = 0
        while done < len(view):
            n = os.preadv(self._raw.fileno(), [view[done:]], offset + done)
            if n == 0:
                break
            done += n
        return done

    def close(self) -> None:
        """Close the file (and stop a ``zstd`` helper process, if one was started)."""
        try:
            if self._stream is not self._raw:
                self._stream.close()
        except Exception:  # noqa: BLE001 - closing a broken stream must not raise
            pass
        if self._raw is not sys.stdin.buffer:
            with contextlib.suppress(Exception):
                self._raw.close()
        if self._hits is not None:
            self._hits.close()
            self._hits = None
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            self._proc = None

    def __enter__(self) -> LogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
