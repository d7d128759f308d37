"""aspectattn: aspect-level sentiment classification as scikit-learn estimators.

The main estimator is :class:`AspectAttentionClassifier` (AT-LSTM, AE-LSTM and
ATAE-LSTM after Wang et al., 2016); :class:`TfidfEmbeddingVectorizer` and
:class:`POSWeightedEmbeddingVectorizer` are pooled word-vector baselines for any sklearn
classifier; :mod:`aspectattn.datasets` reads and fetches the SemEval and MAMS
benchmarks.
"""

from .baselines import (
    POSWeightedEmbeddingVectorizer,
    TfidfEmbeddingVectorizer,
    make_baseline,
)
from .detection import AspectCategoryClassifier
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
    "AspectCategoryClassifier",
    "TfidfEmbeddingVectorizer",
    "POSWeightedEmbeddingVectorizer",
    "make_baseline",
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
