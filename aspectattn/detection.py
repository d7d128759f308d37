"""Old import path of the category detector, kept so that code and pickles written
for earlier releases keep working: see :mod:`aspectattn.estimators.categories`."""

from .estimators.categories import AspectCategoryClassifier, detection_f1, mention_f1
from .nn.categories import CategoryModel, MultiOutputLoss

__all__ = [
    "AspectCategoryClassifier",
    "CategoryModel",
    "MultiOutputLoss",
    "detection_f1",
    "mention_f1",
]
