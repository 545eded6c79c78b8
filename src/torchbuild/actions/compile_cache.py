"""Old name of :mod:`torchbuild.actions.cache` (the module became a package: statistics,
wrappers, the sccache server, the build's cache session).  Kept so that code written
against the old name still imports; new code imports :mod:`torchbuild.actions.cache`."""

from .cache import *  # noqa: F403
from .cache import __all__  # noqa: F401
