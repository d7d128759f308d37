"""Knowledge distillation: the teacher fitted (or taken as it is), its
probabilities read and checked, and the loss that mixes them with the labels.

The estimator's ``fit`` calls, in order::

    teacher = fitted_teacher(teacher, X_train_side, y_train_side, name)
    soft = teacher_targets(teacher, X_every_training_row, classes, T, name)
    dataset.teacher = soft                    # (n, C), rows with no label too
    train_module(...)                         # the criterion: DistillationLoss

The teacher stays outside the fitted state: nothing here keeps a reference.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted
from torch import nn

from ..exceptions import InputError

__all__ = ["fitted_teacher", "teacher_targets", "soften", "DistillationLoss"]

#: Probabilities below this are raised to it before softening (log 0 is -inf).
_FLOOR = 1e-8


def fitted_teacher(teacher, X, y, name: str):
    """``teacher`` as it is when fitted, else a clone fitted on ``X``, ``y``."""
    try:
        check_is_fitted(teacher)
    except NotFittedError:
        return clone(teacher).fit(X, y)
    except TypeError as error:  # not an estimator sklearn can inspect
        raise InputError(f"teacher of {name} is not an estimator: {error}") from None
    return teacher


def soften(proba: np.ndarray, temperature: float) -> np.ndarray:
    """``proba ** (1 / T)``, each row renormalised: what ``softmax(z / T)`` is
    for the logits ``z`` behind ``proba``, read from the probabilities alone."""
    logp = np.log(np.clip(proba, _FLOOR, 1.0)) / temperature  # (n, C)
    logp -= logp.max(axis=1, keepdims=True)
    soft = np.exp(logp)
    return soft / soft.sum(axis=1, keepdims=True)


def teacher_targets(teacher, X, classes, temperature: float, name: str):
    """The teacher's softened probabilities of ``X``'s pairs, columns in the
    order of ``classes`` (the student's), float32 (n, C).

    The teacher must have ``classes_`` equal to ``classes`` as a set, and give
    one finite probability row per pair summing to 1: anything else is an
    error, never a silent misalignment.
    """
    own = getattr(teacher, "classes_", None)
    if own is None:
        raise InputError(
            f"The teacher of {name} has no classes_ after fitting; it must be a "
            "classifier with predict_proba."
        )
    own = np.asarray(own)
    if len(own) != len(classes) or set(own.tolist()) != set(classes.tolist()):
        raise InputError(
            f"The teacher of {name} predicts the classes {own.tolist()!r}; the "
            f"labels have {classes.tolist()!r}. Fit both on the same labels."
        )
    proba = np.asarray(teacher.predict_proba(X), dtype=np.float64)
    if proba.shape != (len(X), len(classes)):
        raise InputError(
            f"The teacher of {name} gave probabilities of shape {proba.shape}; "
            f"expected {(len(X), len(classes))}."
        )
    if not np.isfinite(proba).all() or (proba < 0).any():
        raise InputError(
            f"The teacher of {name} gave probabilities that are negative or not finite."
        )
    if not np.allclose(proba.sum(axis=1), 1.0, atol=1e-3):
        raise InputError(
            f"The teacher of {name} gave probability rows that do not sum to 1."
        )
    order = [own.tolist().index(c) for c in classes.tolist()]
    return soften(proba[:, order], temperature).astype(np.float32)


class DistillationLoss(nn.Module):
    """Cross-entropy with the labels mixed with the KL divergence from the
    teacher's softened probabilities (Hinton et al., 2015).

    ``forward(logits, target)``: ``target`` a dict with ``label`` (B,) -- the
    class index, ``-1`` for a pair with no label -- and ``teacher`` (B, C), the
    teacher's probabilities softened at ``temperature``. A labelled pair's loss
    is ``(1 - w) * CE + w * T**2 * KL``, an unlabelled pair's ``T**2 * KL``
    (``w``: ``distill_weight``); the batch's loss is their mean. A plain tensor
    of class indices (the validation set's) gives the cross-entropy alone, so
    validation losses compare with and without a teacher.

    Parameters
    ----------
    weight : tensor of shape (C,) or None
        Class weights of the cross-entropy (``class_weight``).
    distill_weight : float
    temperature : float
    """

    def __init__(self, weight=None, distill_weight: float = 0.5, temperature=2.0):
        super().__init__()
        self.weight = weight
        self.distill_weight = distill_weight
        self.temperature = temperature

    def forward(self, logits: torch.Tensor, target) -> torch.Tensor:
        weight = None if self.weight is None else self.weight.to(logits.device)
        if not isinstance(target, dict):
            return nn.functional.cross_entropy(logits, target, weight=weight)
        label, soft = target["label"], target["teacher"]  # (B,), (B, C)
        T, w = self.temperature, self.distill_weight
        log_student = nn.functional.log_softmax(logits / T, dim=-1)  # (B, C)
        kl = (soft * (torch.log(soft.clamp_min(_FLOOR)) - log_student)).sum(-1)
        labelled = label >= 0  # (B,)
        ce = nn.functional.cross_entropy(
            logits, label.clamp_min(0), weight=weight, reduction="none"
        )  # (B,)
        if weight is not None:  # as cross_entropy's mean: over the weights
            scale = weight[label.clamp_min(0)]
            ce = ce * labelled.sum() / scale[labelled].sum().clamp_min(_FLOOR)
        mix = torch.where(labelled, (1 - w) * ce + w * T * T * kl, T * T * kl)
        return mix.mean()
