"""Exact-span scores of aspect term extraction, SemEval's way: a predicted term
counts only when its start and end are both those of a gold term of the same
sentence (a term one word too long or too short is a miss *and* a false hit);
micro-averaged over all terms."""

from __future__ import annotations

__all__ = ["span_scores", "span_f1", "without_conflict"]


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
