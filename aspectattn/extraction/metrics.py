"""Exact-span scores of aspect term extraction, SemEval's way: a predicted term
counts only when its start and end are both those of a gold term of the same
sentence (a term one word too long or too short is a miss *and* a false hit);
micro-averaged over all terms. :func:`check_spans` checks gold spans as an
estimator's ``y``."""

from __future__ import annotations

from numbers import Integral

from .._validation import _short
from ..exceptions import InputError

__all__ = ["span_scores", "span_f1", "without_conflict", "check_spans"]


def _keyed(y, with_polarity: bool) -> set:
    out = set()
    for i, spans in enumerate(y):
        for span in spans:
            if isinstance(span, dict):  # the pipeline's output
                start, end = span["span"]
                key = (i, int(start), int(end))
                if with_polarity:
                    key += (span["polarity"],)
            else:
                key = (i, int(span[0]), int(span[1]))
                if with_polarity:
                    key += (span[2],)
            out.add(key)
    return out


def span_scores(y_true, y_pred, polarity: bool = False) -> dict:
    """Precision, recall and F1 of predicted spans against gold ones.

    Parameters
    ----------
    y_true, y_pred : sequence of sequences
        Per sentence, its terms: ``(start, end)`` or ``(start, end, polarity)``
        tuples, or the pipeline's ``{"span": (start, end), "polarity": ...}``
        dictionaries.
    polarity : bool, default=False
        A hit also needs the polarity (end-to-end aspect sentiment).

    Returns
    -------
    dict with ``precision``, ``recall``, ``f1`` (0 when undefined), ``true``
    (gold terms), ``predicted`` and ``correct`` (counts).
    """
    if len(y_true) != len(y_pred):
        raise ValueError(
            f"y_true has {len(y_true)} sentences and y_pred {len(y_pred)}."
        )
    gold, found = _keyed(y_true, polarity), _keyed(y_pred, polarity)
    correct = len(gold & found)
    precision = correct / len(found) if found else 0.0
    recall = correct / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if correct else 0.0
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "true": len(gold),
        "predicted": len(found),
        "correct": correct,
    }


def span_f1(y_true, y_pred, polarity: bool = False) -> float:
    """Micro F1 of exact spans (:func:`span_scores`)."""
    return span_scores(y_true, y_pred, polarity)["f1"]


def without_conflict(y_true, y_pred):
    """Gold terms without the ``conflict`` ones, and the predicted terms (the
    pipeline's dictionaries) without those spans: terms of mixed opinion, which
    no classifier here predicts, count neither as gold nor, when found, as
    errors in an end-to-end score."""
    conflict = [{s[:2] for s in spans if s[2] == "conflict"} for spans in y_true]
    gold = [[s for s in spans if s[2] != "conflict"] for spans in y_true]
    found = [
        [t for t in terms if t["span"] not in c]
        for terms, c in zip(y_pred, conflict, strict=True)
    ]
    return gold, found


def check_spans(y, texts: list[str]) -> list[list[tuple]]:
    """``y`` as one list of ``(start, end[, polarity])`` tuples per text, each span
    inside its text; a clear error naming the text otherwise."""
    if isinstance(y, (str, bytes, dict)) or not hasattr(y, "__iter__"):
        raise InputError(
            "y must hold one list of (start, end) spans per text, got "
            f"{type(y).__name__}."
        )
    y = list(y)
    if len(y) != len(texts):
        raise InputError(f"X has {len(texts)} texts but y has {len(y)} span lists.")
    out = []
    for i, (text, spans) in enumerate(zip(texts, y, strict=True)):
        if isinstance(spans, (str, bytes, dict)) or not hasattr(spans, "__iter__"):
            raise InputError(
                f"y[{i}] must be a list of (start, end) spans (empty for none), "
                f"got {_short(spans)}."
            )
        checked = []
        for span in spans:
            if (
                isinstance(span, (str, bytes, dict))
                or not hasattr(span, "__len__")
                or len(span) not in (2, 3)
                or not all(
                    isinstance(v, Integral) and not isinstance(v, bool)
                    for v in span[:2]
                )
                or not 0 <= span[0] < span[1] <= len(text)
            ):
                raise InputError(
                    f"y[{i}] holds {_short(span)}: a span is (start, end) or (start, "
                    f"end, polarity) with 0 <= start < end <= {len(text)}, the "
                    "length of its text."
                )
            checked.append((int(span[0]), int(span[1]), *span[2:]))
        out.append(checked)
    return out
