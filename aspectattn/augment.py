"""Training data whose aspects disagree, made from the training data itself.

Most review sentences carry one opinion: a model selected on overall accuracy can do
well by reading a sentence's overall tone and giving it to every aspect. Joining two
single-aspect sentences of opposite polarity ("The pasta was great" + "the waiter was
rude") makes sentences in which the aspects disagree, with labels known by
construction, for training (and as probes: see :func:`join_opposite`).
"""

from __future__ import annotations

import numpy as np

from ._validation import check_labels, check_pairs

__all__ = ["join_opposite"]

_CONNECTIVES = ("but", "while", "whereas", "though")


def join_opposite(
    X,
    y,
    n_sentences: int,
    positive="positive",
    negative="negative",
    random_state=None,
):
    """Sentences with two aspects of opposite polarity, joined from single-aspect ones.

    Each new sentence joins a sentence with one positive aspect and a sentence with
    one negative aspect of a *different* aspect, in random order, with a random
    connective: ``"The pasta was great, but the waiter was rude."``. Both pairs are
    returned with their original labels.

    Parameters
    ----------
    X : sequence of (text, aspect) pairs
    y : sequence of labels
    n_sentences : int
        How many sentences to make (each gives two pairs).
    positive, negative : label values of the two polarities.
    random_state : int or None

    Returns
    -------
    X_new : list of (text, aspect) pairs, 2 * n_sentences of them
    y_new : list of labels
    """
    texts, aspects, _ = check_pairs(X)
    labels = check_labels(y, len(texts)).tolist()
    count: dict[str, int] = {}
    for t in texts:
        count[t] = count.get(t, 0) + 1
    single = [
        (t, a, label)
        for t, a, label in zip(texts, aspects, labels, strict=True)
        if count[t] == 1 and label in (positive, negative)
    ]
    good = [s for s in single if s[2] == positive]
    bad = [s for s in single if s[2] == negative]
    if not good or not bad:
        raise ValueError(
            "join_opposite needs single-aspect sentences of both polarities "
            f"({positive!r} and {negative!r})."
        )
    rng = np.random.default_rng(random_state)
    X_new, y_new = [], []
    tries = 0
    while len(X_new) < 2 * n_sentences and tries < 50 * n_sentences:
        tries += 1
        first = good[rng.integers(len(good))]
        second = bad[rng.integers(len(bad))]
        if first[1] == second[1]:
            continue
        if rng.random() < 0.5:
            first, second = second, first
        head = first[0].strip().rstrip(".!?;, ")
        tail = second[0].strip()
        tail = tail[:1].lower() + tail[1:] if not tail[:2].isupper() else tail
        word = _CONNECTIVES[rng.integers(len(_CONNECTIVES))]
        text = f"{head}, {word} {tail}"
        X_new += [(text, first[1]), (text, second[1])]
        y_new += [first[2], second[2]]
    return X_new, y_new
