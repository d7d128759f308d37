"""Old import path, kept for code and pickles written for earlier releases: see
:mod:`aspectattn.engine.quantization`."""

from .engine.quantization import *  # noqa: F403
from .engine.quantization import __all__  # noqa: F401
