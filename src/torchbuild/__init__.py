"""torchbuild: build PyTorch and its C++/CUDA extensions from source, correctly the first time.

Layers (``docs/architecture.md``), each depending only on those above it:

1. :mod:`torchbuild.facts` — probes of the machine and the source tree (the only code
   that looks at the machine);
2. :mod:`torchbuild.knowledge` — data files with a source on every row;
3. :mod:`torchbuild.decisions` — pure functions: findings, plans, diagnoses;
4. :mod:`torchbuild.actions` — run a plan, fetch sources, verify, write records;
5. :mod:`torchbuild.cli` and :mod:`torchbuild.api` — the interface.
"""

__version__ = "0.1.0"

from .api import build, diagnose, doctor, plan, verify  # noqa: E402  (thin, lazy wrappers)

__all__ = ["__version__", "build", "diagnose", "doctor", "plan", "verify"]
