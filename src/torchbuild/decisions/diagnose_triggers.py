"""The byte strings a large log is scanned for, in a module of its own so that the CLI can start that
scan (:meth:`torchbuild.facts.logfile.LogReader.prefetch`) before it imports the diagnosis code."""

from __future__ import annotations

#: Byte strings that a large log is scanned for (see ``LogReader.windows``): every
#: failure the diagnoser names is within a few dozen lines of one of them (the
#: failing command's output, or the ``error``/``failed`` summary that follows it).
TRIGGERS: tuple[bytes, ...] = (b"rror", b"ailed")
