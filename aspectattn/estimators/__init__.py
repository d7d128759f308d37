"""The estimators: the pair classifier (:mod:`.pairs`) and the category detector
(:mod:`.categories`), siblings on one base (:mod:`._base`), distillation as a
meta-estimator over either (:mod:`.distilled`), and the pooled word-vector
baselines (:mod:`.baselines`)."""

from .categories import AspectCategoryClassifier
from .distilled import DistilledClassifier
from .pairs import AspectAttentionClassifier

__all__ = [
    "AspectAttentionClassifier",
    "AspectCategoryClassifier",
    "DistilledClassifier",
]
