"""aspectattn: aspect-level sentiment classification as scikit-learn estimators.

The main estimator is :class:`AspectAttentionClassifier` (AT-LSTM, AE-LSTM and
ATAE-LSTM after Wang et al., 2016); :mod:`aspectattn.datasets` reads and fetches the
SemEval and MAMS benchmarks.
"""

from .estimator import AspectAttentionClassifier
from .exceptions import (
    AspectAttnError,
    AspectAttnWarning,
    ChecksumError,
    InputError,
    MissingDependencyError,
    UnknownAspectError,
)
from .text import Tokenizer, Vocabulary

__version__ = "0.1.0"

__all__ = [
    "AspectAttentionClassifier",
    "AspectAttnError",
    "AspectAttnWarning",
    "ChecksumError",
    "InputError",
    "MissingDependencyError",
    "UnknownAspectError",
    "Tokenizer",
    "Vocabulary",
    "__version__",
]
