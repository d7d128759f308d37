"""From per-category probabilities to the aspects each sentence mentions: shared by
:meth:`aspectattn.AspectCategoryClassifier.analyze`, the torch-free runtime
(:mod:`aspectattn.serving.runtime`) and the review path (:mod:`aspectattn.reviews`),
so all report the same thing. numpy only: it stands below the estimators, the
span taggers and the runtime that read through it."""

from __future__ import annotations

import numpy as np

__all__ = ["mention_labels", "mentioned_aspects", "check_min_probability"]


def check_min_probability(value, where: str = "analyze") -> float:
    """``min_probability`` validated: a number strictly between 0 and 1 (0 or NaN
    would count every category as mentioned, 1 or more none)."""
    import numbers

    ok = (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and 0 < value < 1  # False for NaN
    )
    if not ok:
        raise ValueError(
            f"The 'min_probability' parameter of {where} must be a number strictly "
            f"between 0 and 1. Got {value!r} instead."
        )
    return float(value)


def mention_labels(
    proba: np.ndarray, none: np.ndarray, min_probability: float = 0.5
) -> np.ndarray:
    """Each (text, category) cell's label: its most probable polarity where the
    category is mentioned -- the probability of "not mentioned" at most
    ``1 - min_probability`` -- else "not mentioned". What ``predict`` answers
    (``min_probability=0.5``) and ``analyze`` lists.

    The mention is read from its own probability, the sum of the polarities',
    not from the single likeliest label: a cell at (positive 0.3, negative 0.3,
    none 0.4) is mentioned, with a polarity in doubt.

    Parameters
    ----------
    proba : ndarray of shape (n_texts, n_categories, n_labels)
    none : ndarray of shape (n_labels,) bool
        The "not mentioned" label.
    min_probability : float, default=0.5

    Returns
    -------
    ndarray of shape (n_texts, n_categories) int
        Indices into the labels.
    """
    polarity = np.where(none, -1.0, proba).argmax(-1)  # (n_texts, n_categories)
    mentioned = proba[..., none].sum(-1) <= 1 - min_probability
    return np.where(mentioned, polarity, np.flatnonzero(none)[0])


def mentioned_aspects(
    texts: list[str],
    tokens: list[list[str]],
    proba: np.ndarray,
    weights: list[np.ndarray],
    categories,
    labels: np.ndarray,
    not_mentioned,
    min_probability: float,
) -> list[list[dict]]:
    """Per text, the categories it mentions with label, probability and attention.

    A category is mentioned when the probability of ``not_mentioned`` is below
    ``1 - min_probability``; its label is then its most probable polarity.

    Parameters
    ----------
    texts : list of str
    tokens : list of list of str
        The tokens the model saw, per text.
    proba : ndarray of shape (n_texts, n_categories, n_labels)
    weights : list of ndarray of shape (n_categories, n_tokens_i)
        Each category's attention over each text's tokens.
    categories : sequence of str
    labels : ndarray of shape (n_labels,)
        The polarities and ``not_mentioned``.
    not_mentioned : label
    min_probability : float
    """
    min_probability = check_min_probability(min_probability)
    none = labels == not_mentioned
    cells = mention_labels(proba, none, min_probability)  # (n_texts, n_categories)
    out = []
    for i, text in enumerate(texts):
        found = []
        for k, category in enumerate(categories):
            polarity = cells[i, k]
            if none[polarity]:
                continue
            p = proba[i, k]
            found.append(
                {
                    "text": text,
                    "aspect": str(category),
                    "label": str(labels[polarity]),
                    "probability": float(p[polarity]),
                    "mention_probability": float(1 - p[none].sum()),
                    "tokens": tokens[i],
                    "weights": weights[i][k],
                }
            )
        out.append(found)
    return out
