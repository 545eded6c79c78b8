"""The byte strings a large log is scanned for, in a module of its own so that the CLI can start that
scan (:meth:`torchbuild.facts.logfile.LogReader.prefetch`) before it imports the diagnosis code."""

from __future__ import annotations

#: Byte strings that a large log is scanned for (see ``LogReader.windows``): every
#: failure the diagnoser names is within a few dozen lines of one of them (the
#: failing command's output, or the ``error``/``failed`` summary that follows it).
TRIGGERS: tuple[bytes, ...] = (b"rror", b"ailed")

#: Lines at the start of a large log that are examined whatever they contain: the configure output and the
#: environment a report opens with (compiler and CUDA versions, collect_env), and a failure printed first.
HEAD_LINES = 200

#: Lines at the end of a large log that are examined whatever they contain: a program that stopped
#: printed its failure last, often in words without a trigger ("No module named 'numpy'", NumPy's
#: "A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.0", git's "fatal: not a git
#: repository").  Every log of tests/diagnose/realworld is shorter than this.
TAIL_LINES = 200
