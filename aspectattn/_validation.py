"""The input contract and hyperparameter checks shared by every estimator.

Input contract
--------------
``X`` is either

* a sequence (list, tuple, numpy array, pandas Series) of ``(text, aspect)`` pairs, or
* a pandas DataFrame with a text column and an aspect column (names configurable),

where ``text`` is a non-empty string and ``aspect`` a non-empty string (an aspect
category such as ``"food"`` or an aspect term such as ``"pasta carbonara"``). A pair
may carry a third item, the term's character span ``(start, end)`` (or ``None``);
a DataFrame may carry it as ``start`` and ``end`` columns (as the SemEval readers
give them). Spans are read by models that use the term's position.
``y`` is a 1-d sequence of labels of the same length, without missing values.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from .exceptions import InputError, UnknownAspectError

__all__ = [
    "check_pairs",
    "check_labels",
    "check_partial_labels",
    "text_tags",
    "check_texts",
    "resolve_aspect_type",
    "category_ids",
    "plain",
]


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if type(value).__name__ == "NAType":  # pandas.NA: its comparisons are NA
        return True
    try:
        return bool(value != value)  # NaN, pd.NA raises -> not missing here
    except (TypeError, ValueError):
        return False


def _span_item(i: int, value) -> tuple[int, int] | None:
    """A pair's third item: None (or missing) or two integer offsets."""
    if value is None or (not hasattr(value, "__len__") and _is_missing(value)):
        return None
    ok = (
        hasattr(value, "__len__")
        and not isinstance(value, (str, bytes, dict))
        and len(value) == 2
    )
    if ok:
        items = []
        for v in value:
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                ok = False
                break
            items.append(int(v))
    if not ok:
        raise InputError(
            f"The third item of pair {i} must be the term's character span "
            f"(start, end) as two integers, or None; got {_short(value)}."
        )
    return items[0], items[1]


def check_pairs(
    X: Any,
    text_column: str = "text",
    aspect_column: str = "aspect",
    return_spans: bool = False,
):
    """Validate ``X`` and split it into texts and aspects.

    Returns
    -------
    texts, aspects : list of str
    feature_names : ndarray of str or None
        The two column names when ``X`` is a DataFrame.
    spans : list of (int, int) or None per pair, or None
        Only with ``return_spans=True``: the terms' character spans where ``X``
        gives them (third items, or ``start``/``end`` columns); ``None`` when it
        gives none. The offsets are checked against the text by the model.
    """
    expected = (
        "X must be a sequence of (text, aspect) pairs or a pandas DataFrame "
        f"with columns {text_column!r} and {aspect_column!r}"
    )
    if isinstance(X, (str, bytes)):
        raise InputError(
            f"{expected}; got a bare string. Wrap a single pair as [(text, aspect)]."
        )
    feature_names = None
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # pandas DataFrame
        texts, aspects, raw_spans = _frame_columns(
            X, text_column, aspect_column, expected
        )
        feature_names = np.asarray([text_column, aspect_column], dtype=object)
    else:
        texts, aspects, raw_spans = _pair_items(X, expected)
    if len(texts) == 0:
        raise InputError(f"{expected}; got no pairs (0 samples).")
    _check_strings(texts, aspects)
    spans = (
        None
        if raw_spans is None
        else [_span_item(i, value) for i, value in enumerate(raw_spans)]
    )
    if return_spans:
        return texts, aspects, feature_names, spans
    return texts, aspects, feature_names


def _frame_columns(X, text_column, aspect_column, expected) -> tuple:
    """A DataFrame's ``(texts, aspects, spans)``: its two columns, and the
    ``start``/``end`` columns where it has them (else None)."""
    missing = [c for c in (text_column, aspect_column) if c not in X.columns]
    if missing:
        raise InputError(
            f"{expected}; the DataFrame has no column(s) {missing} "
            f"(it has {list(X.columns)}). Set text_column= and "
            "aspect_column= to the right names."
        )
    texts = X[text_column].tolist()
    aspects = X[aspect_column].tolist()
    raw_spans = None
    if "start" in X.columns and "end" in X.columns:
        raw_spans = list(zip(X["start"].tolist(), X["end"].tolist(), strict=True))
        raw_spans = [
            None if _is_missing(a) and _is_missing(b) else (a, b) for a, b in raw_spans
        ]
    return texts, aspects, raw_spans


def _pair_items(X, expected) -> tuple:
    """A sequence (or array) of pairs' ``(texts, aspects, spans)``: the third
    items where some pair has one (else None)."""
    if isinstance(X, np.ndarray):
        if X.ndim == 1 and X.dtype == object:  # an array of pair objects
            X = np.asarray(list(X), dtype=object) if len(X) else X.reshape(0, 2)
        if X.ndim != 2 or X.shape[1] != 2:
            raise InputError(
                f"{expected}; got an array of shape {X.shape}, "
                "expected shape (n_pairs, 2)."
            )
        pairs = X.tolist()
    elif isinstance(X, Sequence) or hasattr(X, "__array__") or hasattr(X, "tolist"):
        pairs = X.tolist() if hasattr(X, "tolist") else list(X)
    elif hasattr(X, "__iter__") and not isinstance(X, dict):
        pairs = list(X)
    else:
        raise InputError(f"{expected}; got {type(X).__name__}.")
    texts, aspects, raw_spans = [], [], None
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes, dict, set, frozenset)) or not hasattr(
            pair, "__getitem__"
        ):
            raise InputError(f"{expected}; element {i} is {_short(pair)}, not a pair.")
        if len(pair) not in (2, 3):
            raise InputError(
                f"{expected}; element {i} has {len(pair)} items "
                f"instead of 2 (or 3 with the term's span): {_short(pair)}."
            )
        texts.append(pair[0])
        aspects.append(pair[1])
        if len(pair) == 3:
            if raw_spans is None:
                raw_spans = [None] * i
            raw_spans.append(pair[2])
        elif raw_spans is not None:
            raw_spans.append(None)
    return texts, aspects, raw_spans


def _check_strings(texts, aspects) -> None:
    """Every text and aspect a non-empty string (errors name the pair)."""
    for name, values in (("text", texts), ("aspect", aspects)):
        for i, value in enumerate(values):
            if _is_missing(value):
                raise InputError(
                    f"The {name} of pair {i} is missing ({value!r}); "
                    f"every pair needs a non-empty {name} string."
                )
            if not isinstance(value, str):
                raise InputError(
                    f"The {name} of pair {i} is a {type(value).__name__} "
                    f"({value!r}); expected a string."
                )
            if _SURROGATE.search(value):
                raise InputError(_surrogate_message(f"The {name} of pair {i}", value))
            if not value.strip():
                raise InputError(
                    f"The {name} of pair {i} is empty; every pair "
                    f"needs a non-empty {name} string."
                )


def check_labels(y: Any, n_samples: int) -> np.ndarray:
    """Validate ``y``: 1-d, ``n_samples`` long, no missing values."""
    if y is None:
        raise InputError("y is required: one label per (text, aspect) pair.")
    if isinstance(y, (str, bytes)):
        raise InputError("y must be a sequence of labels, got a bare string.")
    values = y.tolist() if hasattr(y, "tolist") else list(y)
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise InputError(f"y must be 1-dimensional, got shape {arr.shape}.")
    if len(arr) != n_samples:
        raise InputError(
            f"X and y have different lengths: {n_samples} pairs but {len(arr)} labels."
        )
    for i, value in enumerate(values):
        # An empty string (an empty CSV cell) is no label either.
        if _is_missing(value) or (isinstance(value, str) and not value.strip()):
            raise InputError(
                f"Label {i} is missing ({value!r}); remove unlabelled "
                "pairs before fitting, or give a teacher that labels them: "
                "DistilledClassifier(..., teacher=...)."
            )
    # str and np.str_ (a subclass) are one kind, as are the numbers
    kinds = {
        "str"
        if isinstance(v, str)
        else "number"
        if isinstance(v, numbers.Number)
        else type(v).__name__
        for v in values
    }
    if len(kinds) > 1:
        hint = (
            " (-1 marks a sample unlabelled only for a teacher to label: "
            "DistilledClassifier(..., teacher=...))"
            if any(_is_unlabelled(v) for v in values)
            else ""
        )
        raise InputError(
            f"y mixes label types {sorted(kinds)}; use one type (e.g. all "
            f"strings).{hint}"
        )
    return np.asarray(values)


#: The label of an unlabelled sample, as in :mod:`sklearn.semi_supervised`.
UNLABELLED = -1


def _is_unlabelled(value: Any) -> bool:
    """``None``/NaN, or the number ``-1`` (scikit-learn's mark; not a bool)."""
    if _is_missing(value):
        return True
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, (bool, np.bool_))
        and value == UNLABELLED
    )


def check_partial_labels(y: Any, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``y`` where some samples may be unlabelled: ``-1`` as in
    :mod:`sklearn.semi_supervised` (or ``None``/NaN, the mark for labels that are
    objects).

    Returns
    -------
    labels : ndarray of shape (n_labelled,)
        The labels of the labelled samples, checked as :func:`check_labels`.
    labelled : ndarray of shape (n_samples,) bool
    """
    values = (
        None
        if y is None or isinstance(y, (str, bytes))
        else (y.tolist() if hasattr(y, "tolist") else list(y))
    )
    if (
        values is None
        or np.asarray(values, dtype=object).ndim != 1
        or len(values) != n_samples
    ):
        check_labels(y, n_samples)  # raises its message
    labelled = np.array([not _is_unlabelled(v) for v in values], dtype=bool)
    given = [v for v, k in zip(values, labelled, strict=True) if k]
    return check_labels(given, len(given)), labelled


def check_texts(values: Any, what: str = "texts") -> list[str]:
    """A non-empty sequence of non-empty strings (not a bare string)."""
    if isinstance(values, (str, bytes)):
        raise InputError(
            f"{what} must be a sequence of strings, got a bare string; "
            "wrap it in a list."
        )
    if isinstance(values, (dict, set, frozenset)) or not hasattr(values, "__iter__"):
        raise InputError(
            f"{what} must be a sequence of strings, got {type(values).__name__}."
        )
    values = list(values)
    if not values:
        raise InputError(f"{what} is empty.")
    for i, v in enumerate(values):
        if not isinstance(v, str) or not v.strip():
            raise InputError(
                f"{what}[{i}] must be a non-empty string, got {_short(v)}."
            )
        if _SURROGATE.search(v):
            raise InputError(_surrogate_message(f"{what}[{i}]", v))
    return values


#: A lone UTF-16 surrogate (valid in a JSON string or a Python str, never in
#: text): no encoding writes it, so the tokenizers cannot read it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate_message(where: str, value: str) -> str:
    at = _SURROGATE.search(value).start()
    return (
        f"{where} holds a lone surrogate (U+{ord(value[at]):04X} at character "
        f"{at}), which is not text: decode the source with errors='replace' (or "
        "mend it) before predicting."
    )


def category_ids(aspects, categories, who: str = "this model") -> np.ndarray:
    """The index of each aspect among the fitted ``categories``, shape (n,) int64;
    an unseen category is an :class:`UnknownAspectError` naming it."""
    index = {a: i for i, a in enumerate(categories)}
    unknown = sorted(set(aspects) - set(index))
    if unknown:
        raise UnknownAspectError(
            f"Aspect categor{'y' if len(unknown) == 1 else 'ies'} {unknown[:10]} "
            f"{'was' if len(unknown) == 1 else 'were'} not seen in fit; {who} "
            f"knows {list(categories)}. Refit with examples of the new aspect "
            "or use aspect_type='term'."
        )
    return np.fromiter((index[a] for a in aspects), np.int64, len(aspects))


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


AUTO_TERM_SHARE = 0.9


def resolve_aspect_type(aspect_type: str, texts: list[str], aspects: list[str]) -> str:
    """``"category"`` or ``"term"``; ``"auto"`` picks ``"term"`` when at least 90% of
    the aspects occur (case-insensitively) in their text."""
    if aspect_type != "auto":
        return aspect_type
    inside = sum(a.lower() in t.lower() for t, a in zip(texts, aspects, strict=True))
    return "term" if inside >= AUTO_TERM_SHARE * len(texts) else "category"


def plain(value: Any) -> Any:
    """``value`` with numpy scalars (``np.int64(16)``, ``np.float32(0.1)``,
    ``np.bool_``) as the Python ones the constraints accept them for: what goes
    to torch and into model files."""
    return value.item() if isinstance(value, np.generic) else value


def text_tags(tags):
    """scikit-learn tags of an estimator of text: it reads strings (pairs,
    sentences), not numeric 2-D arrays, so ``check_estimator`` runs none of the
    checks that feed it numbers."""
    tags.input_tags.two_d_array = False
    tags.input_tags.string = True
    return tags
