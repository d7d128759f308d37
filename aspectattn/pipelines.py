"""Old import path, kept for code and pickles written for earlier releases: see
:mod:`aspectattn.text.pipelines`."""

from .text.pipelines import *  # noqa: F403
from .text.pipelines import __all__  # noqa: F401
