"""The byte strings a large log is scanned for, in a module of its own so that the CLI can start that
scan (:meth:`torchbuild.facts.logfile.LogReader.prefetch`) before it imports the diagnosis code."""

from __future__ import annotations

#: Byte strings that a large log is scanned for (see ``LogReader.windows``): every
#: failure the diagnoser names is within a few dozen lines of one of them (the
#: failing command's output, or the ``error``/``failed`` summary that follows it).  The upper-case
#: forms are pip's "ERROR: No matching distribution found for ..." and ninja's "FAILED: x.o"; with a
#: seen log placed between two stretches of build output, they cut the logs whose cause the windowed
#: scan lost from 301 to 254 of 2,950 at no cost in speed (benchmarks/bench_diagnose.py: 2.40x grep;
#: eight more words such as "fatal" and "not found" cut it to 70 but took 3.25x, over the goal).
TRIGGERS: tuple[bytes, ...] = (b"rror", b"ailed", b"RROR", b"AILED")

#: Lines at the start of a large log that are examined whatever they contain: the configure output and the
#: environment a report opens with (compiler and CUDA versions, collect_env), and a failure printed first.
HEAD_LINES = 200

#: Lines at the end of a large log that are examined whatever they contain: a program that stopped
#: printed its failure last, often in words without a trigger ("No module named 'numpy'", NumPy's
#: "A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.0", git's "fatal: not a git
#: repository").  Every log of tests/diagnose/realworld is shorter than this.
TAIL_LINES = 200
