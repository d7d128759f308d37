"""Hyperparameter constraints: scikit-learn's own
(:mod:`sklearn.utils._param_validation`), so that its messages, its
``InvalidParameterError`` and its estimator checks (``check_param_validation``) apply
to these estimators as to its own. Two refinements, as subclasses its machinery
accepts: a bool is not a number, and a float interval holds finite values only (an
infinite rate trains to NaN)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from sklearn.utils._param_validation import (
    HasMethods,
    InvalidParameterError,
    Options,
    StrOptions,
    make_constraint,
    validate_parameter_constraints,
)
from sklearn.utils._param_validation import Interval as _SkInterval

__all__ = [
    "Interval",
    "StrOptions",
    "HasMethods",
    "Matching",
    "JSONObject",
    "InvalidParameterError",
    "satisfies",
    "validate_params",
]


class Interval(_SkInterval):
    """scikit-learn's :class:`~sklearn.utils._param_validation.Interval`, where a
    bool is not a number and a float must be finite: ``Interval(Integral, 1, None,
    closed="left")`` is "an int in the range [1, inf)"."""

    def is_satisfied_by(self, val) -> bool:
        if isinstance(val, (bool, np.bool_)):
            return False
        if isinstance(val, numbers.Real) and not math.isfinite(val):
            return False
        return super().is_satisfied_by(val)


class Matching(StrOptions):
    """A string that fully matches the compiled regular expression ``pattern``
    (``examples``: values shown in the message, and from which sklearn's checks
    make an invalid one)."""

    def __init__(self, pattern, examples, description: str):
        super().__init__(set(examples))
        self.pattern, self.description = pattern, description

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, str) and self.pattern.fullmatch(val) is not None

    def __str__(self) -> str:
        return self.description


class JSONObject(Options):
    """A JSON object of bounded size and depth (a pretrained checkpoint's
    configuration, as a model file stores it)."""

    MAX_DEPTH, MAX_KEYS, MAX_ITEMS, MAX_INT = 6, 1000, 10_000, 10**8

    def __init__(self):
        super().__init__(dict, set())

    def is_satisfied_by(self, val) -> bool:
        return isinstance(val, dict) and self._json(val, 0)

    def _json(self, value, depth: int) -> bool:
        if depth > self.MAX_DEPTH:
            return False
        if isinstance(value, dict):
            return len(value) <= self.MAX_KEYS and all(
                isinstance(k, str) and self._json(v, depth + 1)
                for k, v in value.items()
            )
        if isinstance(value, list):
            return len(value) <= self.MAX_ITEMS and all(
                self._json(v, depth + 1) for v in value
            )
        if value is None or isinstance(value, (bool, str, float)):
            return True
        return isinstance(value, int) and abs(value) <= self.MAX_INT

    def __str__(self) -> str:
        return "a JSON object of bounded size"


def satisfies(value: Any, allowed: list) -> bool:
    """Whether ``value`` meets one of the constraints ``allowed`` (scikit-learn's
    constraint forms: ``None``, ``"boolean"``, a type, an :class:`Interval`...)."""
    return any(make_constraint(c).is_satisfied_by(value) for c in allowed)


def validate_params(
    estimator: Any, constraints: dict[str, list], caller: str | None = None
) -> None:
    """Check the parameters ``constraints`` names on ``estimator``, as
    scikit-learn does: an ``InvalidParameterError`` (a ``ValueError``) such as
    "The 'hidden_size' parameter of LSTMEncoder must be an int in the range
    [1, inf). Got -3 instead.". ``caller``: who the message names (default: the
    estimator's class)."""
    validate_parameter_constraints(
        constraints,
        {name: getattr(estimator, name) for name in constraints},
        caller_name=caller or type(estimator).__name__,
    )
