"""Knowledge distillation: what a :class:`Teaching` gives a student's fit -- the
teacher fitted (or taken as it is), its probabilities read and checked -- and the
loss that mixes them with the labels.

:class:`~aspectattn.DistilledClassifier` hands the student's ``fit`` a
:class:`Teaching`, which then calls, in order::

    teacher = fitted_teacher(teacher, X_train_side, y_train_side, name)
    soft = teacher_targets(teacher, X_every_training_row, classes, T, name)
    dataset.teacher = soft                    # (n, C), rows with no label too
    train_module(...)                 # the criterion: engine.training.PairLoss

The teacher stays outside the fitted state: nothing here keeps a reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..exceptions import InputError
from ..nn.ops import distillation_loss

__all__ = [
    "Teaching",
    "check_teaching",
    "fitted_teacher",
    "teacher_labels",
    "check_minus_one_marks",
    "teacher_targets",
    "table_teacher_targets",
    "soften",
    "distillation_loss",
]

#: Probabilities below this are raised to it before softening (log 0 is -inf).
_FLOOR = 1e-8


@dataclass(frozen=True)
class Teaching:
    """What a student's ``fit`` learns from besides the labels
    (``fit(X, y, teaching=Teaching(teacher))``, as
    :class:`~aspectattn.DistilledClassifier` calls it).

    Parameters
    ----------
    teacher : estimator
        Fitted (used as it is), or fitted on the training side of the student's
        validation split; it gives ``predict_proba`` of the student's samples
        and of the copies the student's ``augment`` makes.
    weight : float, default=0.5
        The weight of its probabilities in a labelled sample's loss (a sample
        labelled ``-1`` learns from them alone).
    temperature : float, default=2.0
        Softens them (and the student's) in the loss.
    """

    teacher: object
    weight: float = 0.5
    temperature: float = 2.0


def check_teaching(teaching) -> Teaching | None:
    """``teaching`` as a student's ``fit`` takes it: None or a :class:`Teaching`."""
    if teaching is None or isinstance(teaching, Teaching):
        return teaching
    raise TypeError(
        "teaching must be None or an aspectattn.Teaching (a teacher, its weight "
        f"and temperature); got a {type(teaching).__name__}. Pass a teacher with "
        "DistilledClassifier(student, teacher)."
    )


def fitted_teacher(teacher, X, y, name: str):
    """``teacher`` as it is when fitted, else a clone fitted on ``X``, ``y``."""
    if _is_fitted(teacher, name):
        return teacher
    if type(teacher).__name__ == "FrozenEstimator":  # its fit fits nothing
        raise InputError(
            f"The teacher of {name} is a FrozenEstimator around an unfitted "
            f"{type(teacher.estimator).__name__}: fit it before freezing it, or "
            "give it unfrozen to be fitted on the training pairs."
        )
    return clone(teacher).fit(X, y)


def _is_fitted(teacher, name: str) -> bool:
    try:
        check_is_fitted(teacher)
    except NotFittedError:
        return False
    except TypeError as error:  # not an estimator sklearn can inspect
        raise InputError(f"teacher of {name} is not an estimator: {error}") from None
    return True


def teacher_labels(teacher) -> set[str] | None:
    """The labels a fitted teacher predicts, as strings (a detector's
    ``labels_``, a classifier's ``classes_``), or None for a teacher to fit or
    one that does not say."""
    try:
        check_is_fitted(teacher)
    except (NotFittedError, TypeError):
        return None
    for attribute in ("labels_", "classes_"):
        values = getattr(teacher, attribute, None)
        if values is None:
            continue
        if attribute == "classes_" and isinstance(values, list):  # multi-output
            values = [v for output in values for v in np.asarray(output).ravel()]
        return {str(v) for v in np.asarray(values, dtype=object).ravel()}
    return None


def check_minus_one_marks(labels, teacher, name: str, unit: str) -> None:
    """Refuse ``-1`` as scikit-learn's mark of unlabelled ``unit`` where it may
    be a label: beside integer labels all 0 or 1 (a -1/0/1 or -1/1 polarity
    scale), unless a fitted teacher's labels lack -1; or where the teacher
    predicts -1 itself. ``labels`` are the labelled samples' (or cells')
    values."""
    known = teacher_labels(teacher)
    if known is not None and "-1" in known:
        reason = "the teacher predicts -1 as a label"
    elif known is None and _polarity_scale(labels):
        reason = "the other labels are 0 and 1, so -1 may be a label of a -1/0/1 scale"
    else:
        return
    raise InputError(
        f"{name} reads -1 as the mark of unlabelled {unit} (scikit-learn's), but "
        f"{reason}. Mark the unlabelled {unit} with None or NaN instead (labels "
        "as objects or floats), or map the labels to others (e.g. strings)."
    )


def _polarity_scale(labels) -> bool:
    """Whether ``labels`` are integers, every one 0 or 1."""
    values = np.asarray(labels, dtype=object).ravel()
    return all(
        isinstance(v, (int, np.integer))
        and not isinstance(v, (bool, np.bool_))
        and v in (0, 1)
        for v in values
    )


def soften(proba: np.ndarray, temperature: float) -> np.ndarray:
    """``proba ** (1 / T)``, each row renormalised: what ``softmax(z / T)`` is
    for the logits ``z`` behind ``proba``, read from the probabilities alone.

    Examples
    --------
    >>> import numpy as np
    >>> from aspectattn.engine.distillation import soften
    >>> soften(np.array([[0.8, 0.2]]), temperature=2.0).round(3).tolist()
    [[0.667, 0.333]]
    """
    logp = np.log(np.clip(proba, _FLOOR, 1.0)) / temperature  # (n, C)
    logp -= logp.max(axis=1, keepdims=True)
    soft = np.exp(logp)
    return soft / soft.sum(axis=1, keepdims=True)


def _teacher_proba(teacher, X, name: str):
    """``teacher.predict_proba(X)``; a teacher that says it is fitted but is
    not (a wrapper around an unfitted one) is named as such."""
    try:
        return teacher.predict_proba(X)
    except NotFittedError as error:
        raise InputError(
            f"The teacher of {name} is not fitted ({error}); fit it, or give it "
            "unfitted and unwrapped to be fitted on the training pairs."
        ) from None


def _checked_proba(proba, shape, name: str) -> np.ndarray:
    """A teacher's probabilities, checked: ``shape``, finite, rows summing to 1."""
    proba = np.asarray(proba, dtype=np.float64)
    if proba.shape != shape:
        raise InputError(
            f"The teacher of {name} gave probabilities of shape {proba.shape}; "
            f"expected {shape}."
        )
    if not np.isfinite(proba).all() or (proba < 0).any():
        raise InputError(
            f"The teacher of {name} gave probabilities that are negative or not finite."
        )
    if not np.allclose(proba.sum(axis=-1), 1.0, atol=1e-3):
        raise InputError(
            f"The teacher of {name} gave probability rows that do not sum to 1."
        )
    return proba


def _class_order(own, classes, name: str, what: str = "classes") -> list[int]:
    """Where each of ``classes`` is among the teacher's ``own`` (the same set)."""
    if own is None:
        raise InputError(
            f"The teacher of {name} has no {what}_ after fitting; it must be a "
            "classifier with predict_proba."
        )
    own, classes = list(own), list(classes)
    if len(own) != len(classes) or set(own) != set(classes):
        raise InputError(
            f"The teacher of {name} predicts the {what} {own!r}; the labels have "
            f"{classes!r}. Fit both on the same labels."
        )
    return [own.index(c) for c in classes]


def _names(values) -> list[str] | None:
    """A detector's category or label names as strings (as its ``fit`` reads
    them), or None."""
    return None if values is None else [str(v) for v in np.asarray(values).tolist()]


def teacher_targets(teacher, X, classes, temperature: float, name: str):
    """The teacher's softened probabilities of ``X``'s pairs, columns in the
    order of ``classes`` (the student's), float32 (n, C).

    The teacher must have ``classes_`` equal to ``classes`` as a set, and give
    one finite probability row per pair summing to 1: anything else is an
    error, never a silent misalignment.
    """
    classes = np.asarray(classes).tolist()
    own = getattr(teacher, "classes_", None)
    own = None if own is None else np.asarray(own).tolist()
    order = _class_order(own, classes, name)
    proba = _checked_proba(
        _teacher_proba(teacher, X, name), (len(X), len(classes)), name
    )
    return soften(proba[:, order], temperature).astype(np.float32)


def table_teacher_targets(
    teacher, texts, categories, labels, temperature: float, name: str
):
    """A detector teacher's softened probabilities of ``texts``, float32
    (n, K, C): categories in the order of ``categories``, labels in the order of
    ``labels`` (the student's). The teacher gives scikit-learn's multi-output
    ``predict_proba`` (a list of (n, C) arrays, one per output, columns as its
    ``classes_[k]``) and names its outputs ``categories_``."""
    cells = _class_order(
        _names(getattr(teacher, "categories_", None)),
        [str(c) for c in categories],
        name,
        "categories",
    )
    own_classes = getattr(teacher, "classes_", None)
    proba = _teacher_proba(teacher, texts, name)
    if not isinstance(proba, list) or len(proba) != len(categories):
        raise InputError(
            f"The teacher of {name} must give one probability array per "
            f"category ({len(categories)}), as scikit-learn's multi-output "
            "classifiers do."
        )
    out = np.empty((len(texts), len(categories), len(labels)), dtype=np.float32)
    for k, cell in enumerate(cells):
        own = _names(None if own_classes is None else own_classes[cell])
        order = _class_order(own, [str(c) for c in labels], name)
        p = _checked_proba(proba[cell], (len(texts), len(labels)), name)
        out[:, k] = soften(p[:, order], temperature)
    return out
