"""Old import path, kept for code and pickles written for earlier releases: see
:mod:`aspectattn.engine.inference`."""

from .engine.inference import *  # noqa: F403
from .engine.inference import __all__  # noqa: F401
