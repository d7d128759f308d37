"""aspectattn: aspect-level sentiment classification as scikit-learn estimators.

The main estimator is :class:`AspectAttentionClassifier` (AT-LSTM, AE-LSTM and
ATAE-LSTM after Wang et al., 2016); :class:`AspectCategoryClassifier` finds the
categories a sentence mentions and their polarity; :class:`AspectTermExtractor`
finds a sentence's aspect terms and :class:`AspectSentimentPipeline` gives each its
polarity, end to end; :class:`AspectSentimentExtractor` does both from one encoder
pass per sentence; :class:`TfidfEmbeddingVectorizer`
and :class:`POSWeightedEmbeddingVectorizer` are pooled word-vector baselines for any
sklearn classifier; :mod:`aspectattn.datasets` reads and fetches the SemEval and MAMS
benchmarks; :mod:`aspectattn.serving.runtime` serves exported models with numpy and
onnxruntime only.

The estimators are imported on first use (PEP 562), so that ``import
aspectattn.serving.runtime`` does not import torch.
"""

from ._lazy import lazy_names
from .exceptions import (
    AspectAttnError,
    AspectAttnWarning,
    ChecksumError,
    InputError,
    MissingDependencyError,
    NonFiniteError,
    UnknownAspectError,
)
from .text.tokens import Tokenizer, Vocabulary

__version__ = "0.1.0"

# Public name -> the module that defines it (imported when first asked for).
_LAZY = {
    "AspectAttentionClassifier": ".estimators.pairs",
    "AspectCategoryClassifier": ".estimators.categories",
    "DistilledClassifier": ".estimators.distilled",
    "Teaching": ".engine.distillation",
    "TfidfEmbeddingVectorizer": ".estimators.baselines",
    "POSWeightedEmbeddingVectorizer": ".estimators.baselines",
    "make_baseline": ".estimators.baselines",
    "AspectTermExtractor": ".extraction",
    "AspectSentimentPipeline": ".extraction",
    "AspectSentimentExtractor": ".extraction",
    "DistilledExtractor": ".extraction",
}

__all__ = [
    "AspectAttentionClassifier",
    "AspectCategoryClassifier",
    "DistilledClassifier",
    "Teaching",
    "TfidfEmbeddingVectorizer",
    "POSWeightedEmbeddingVectorizer",
    "make_baseline",
    "AspectTermExtractor",
    "AspectSentimentPipeline",
    "AspectSentimentExtractor",
    "DistilledExtractor",
    "AspectAttnError",
    "AspectAttnWarning",
    "ChecksumError",
    "InputError",
    "MissingDependencyError",
    "NonFiniteError",
    "UnknownAspectError",
    "Tokenizer",
    "Vocabulary",
    "__version__",
]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
