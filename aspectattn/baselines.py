"""Old import path, kept for code and pickles written for earlier releases: see
:mod:`aspectattn.estimators.baselines`."""

from .estimators.baselines import *  # noqa: F403
from .estimators.baselines import __all__  # noqa: F401
