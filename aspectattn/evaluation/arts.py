"""Robustness probes made from your own labelled data, after ARTS (Xing et al.,
EMNLP 2020), and the Aspect Robustness Score.

For each pair of a sentence with its term's character span, up to three variants
(a pair without a span, such as an aspect category's, gets AddDiff alone):

RevTgt
    the opinion word next to the target is replaced by its antonym (English,
    :data:`aspectattn.augment.OPINION_ANTONYMS`): the label flips.
RevNon
    the opinion words next to the other terms of the sentence are reversed:
    the target's label stays.
AddDiff
    a clause about another aspect with the opposite opinion, taken from another
    sentence of the data (one with a single aspect), is joined with ", but": the
    target's label stays.

A pair counts towards the score only if it and every variant made from it are
right (the Aspect Robustness Score). Make the probes from validation data to
choose between models, and from test data to report.
"""

from __future__ import annotations

import re

import numpy as np

from .._validation import check_labels, check_pairs
from ..augment import flip_pairs
from ..exceptions import InputError
from ..text.spans import check_span

__all__ = ["arts_probes", "aspect_robustness_score", "pair_answers", "VARIANTS"]

VARIANTS = ("RevTgt", "RevNon", "AddDiff")
_POLAR = ("positive", "negative")
_END = re.compile(r"[\s.!?;,]+$")


def _groups(texts, spans=None):
    """Sentence -> the indices of its pairs (with ``spans``: those with a span)."""
    groups: dict[str, list[int]] = {}
    for k, text in enumerate(texts):
        if spans is None or spans[k] is not None:
            groups.setdefault(text, []).append(k)
    return groups


def _reverse(text, terms, spans, labels, flip_at) -> tuple[str, list] | None:
    """The sentence with the opinion of each pair in ``flip_at`` reversed in turn,
    and every pair's new span; None when no opinion could be reversed."""
    spans = list(spans)
    changed = False
    for j in flip_at:
        X, _, target, source = flip_pairs(
            [text] * len(terms), terms, spans, labels, *_POLAR
        )
        hit = np.flatnonzero(target & (source == j))
        if not len(hit):
            continue
        text = X[hit[0]][0]
        spans = [None] * len(terms)
        for k in range(len(X)):
            if X[k][0] == text:
                spans[source[k]] = X[k][2]
        changed = True
    return (text, spans) if changed else None


def _clause_pool(texts, terms, spans, labels) -> list[tuple[str, str, str]]:
    """(clause, aspect, label) of the positive and negative pairs alone in their
    sentence, of at most 12 words: what AddDiff adds."""
    pool = []
    for text, members in _groups(texts).items():
        if len(members) != 1 or labels[members[0]] not in _POLAR:
            continue
        clause = _END.sub("", text.strip())
        if clause and len(clause.split()) <= 12:
            pool.append((clause, terms[members[0]].lower(), labels[members[0]]))
    return pool


def arts_probes(X, y, *, clauses=None, random_state: int = 0) -> dict:
    """The ARTS variants of ``X``'s pairs.

    Parameters
    ----------
    X : sequence of (text, term, (start, end)) triples (or a DataFrame with
        ``start``/``end`` columns); ``(text, aspect)`` pairs without a span (aspect
        categories) get AddDiff alone.
    y : array-like of labels ``"positive"``, ``"negative"``, ``"neutral"``...
    clauses : (X, y) or None
        Where AddDiff takes its clauses from (e.g. the training pairs); ``X, y``
        themselves by default.
    random_state : int, default=0

    Returns
    -------
    dict
        Variant name -> ``(X_variant, y_variant, item)``: the probes (triples, or
        pairs where the source has no span), their labels, and for each the index
        in ``X`` of the pair it was made from.
    """
    return _probes(_columns(X, y), clauses, random_state)


#: The labels ARTS reads: it reverses positive and negative opinions.
LABELS = ("positive", "negative", "neutral", "conflict")


def _columns(X, y) -> tuple[list, list, list, list]:
    """``(texts, terms, spans, labels)`` of pairs checked (a span None where
    a pair has none): each span holds its term, as a classifier checks it, and
    each label is one of :data:`LABELS`."""
    texts, terms, _, spans = check_pairs(X, return_spans=True)
    spans = [
        None if span is None else check_span(i, texts[i], terms[i], span)
        for i, span in enumerate(spans or [None] * len(texts))
    ]
    labels = check_labels(y, len(texts)).tolist()
    odd = sorted({str(v) for v in labels if v not in LABELS})
    if odd:
        raise InputError(
            f"y has the labels {odd[:5]}; the robustness probes reverse opinions "
            f"and read the labels {list(LABELS)} (map yours to them)."
        )
    return texts, terms, spans, labels


def _probes(columns, clauses, random_state: int) -> dict:
    """:func:`arts_probes` on checked ``(texts, terms, spans, labels)``."""
    texts, terms, spans, labels = columns
    pool = _clause_pool(*(columns if clauses is None else _columns(*clauses)))
    rng = np.random.default_rng(random_state)
    out = {name: ([], [], []) for name in VARIANTS}

    def add(name, text, term, span, label, item):
        probe = (text, term) if span is None else (text, term, span)
        for column, value in zip(out[name], (probe, label, item), strict=True):
            column.append(value)

    spanned = _groups(texts, spans)
    for text, members in _groups(texts).items():
        present = {terms[k].lower() for k in members}
        # the reversals need every span: the sentence's pairs that have one
        local = spanned.get(text, [])
        local_terms = [terms[k] for k in local]
        local_spans = [spans[k] for k in local]
        local_labels = [labels[k] for k in local]
        for k in members:
            label = labels[k]
            j = local.index(k) if k in local else None
            if j is not None and label in _POLAR:  # RevTgt
                made = _reverse(text, local_terms, local_spans, local_labels, [j])
                if made is not None:
                    new_text, new_spans = made
                    flipped = _POLAR[1 - _POLAR.index(label)]
                    add("RevTgt", new_text, terms[k], new_spans[j], flipped, k)
            others = [
                i for i in range(len(local)) if i != j and local_labels[i] in _POLAR
            ]
            if j is not None and others:  # RevNon
                made = _reverse(text, local_terms, local_spans, local_labels, others)
                if made is not None and made[1][j] is not None:
                    add("RevNon", made[0], terms[k], made[1][j], label, k)
            wanted = [
                c
                for c in pool
                if c[1] not in present
                and c[1] not in text.lower()
                and (label not in _POLAR or c[2] != label)
            ]
            if wanted:  # AddDiff
                clause = wanted[int(rng.integers(len(wanted)))][0]
                head = _END.sub("", text.rstrip())
                joined = f"{head}, but {clause[:1].lower()}{clause[1:]}."
                if clause[:2] in ("I ", "I'"):  # "I" stays upper case
                    joined = f"{head}, but {clause}."
                add("AddDiff", joined, terms[k], spans[k], label, k)
    return {
        name: (X_new, y_new, np.asarray(item, dtype=np.intp))
        for name, (X_new, y_new, item) in out.items()
    }


def pair_answers(estimator, pairs) -> np.ndarray:
    """Each pair's answer, as a string: what :func:`aspect_robustness_score`
    compares with the labels.

    Parameters
    ----------
    estimator : fitted pair model or category detector
        A category detector (a model with ``categories_`` and ``not_mentioned``,
        :class:`~aspectattn.AspectCategoryClassifier`) answers each pair with its
        table's cell of the pair's category, its "not mentioned" label where it
        does not find it; any other model with its ``predict``.
    pairs : sequence of (text, aspect) pairs or (text, term, (start, end)) triples

    Returns
    -------
    ndarray of str, shape (n_pairs,)
    """
    known = getattr(estimator, "categories_", None)
    if known is None or not hasattr(estimator, "not_mentioned"):
        return np.asarray([str(p) for p in estimator.predict(pairs)])
    column = {str(c): j for j, c in enumerate(np.asarray(known).tolist())}
    unknown = sorted({str(p[1]) for p in pairs} - column.keys())
    if unknown:
        raise InputError(
            f"The detector does not know the categories {unknown[:5]}; it knows "
            f"{sorted(column)}."
        )
    texts = list(dict.fromkeys(p[0] for p in pairs))
    row = {text: i for i, text in enumerate(texts)}
    table = np.asarray(estimator.predict(texts), dtype=object)
    return np.asarray([str(table[row[p[0]], column[str(p[1])]]) for p in pairs])


def aspect_robustness_score(
    estimator, X, y, *, clauses=None, random_state: int = 0
) -> dict:
    """The Aspect Robustness Score of a fitted model on ``X``, ``y`` and their
    ARTS variants (:func:`arts_probes`).

    ``estimator`` is a pair model (``predict`` of pairs), or a category detector
    (:class:`~aspectattn.AspectCategoryClassifier`), which answers each
    ``(text, category)`` pair with its table's cell: a pair is right only when the
    detector finds that category with that polarity.

    Returns
    -------
    dict
        ``"ARS"``: of the pairs some variant was made from (``"n_items"``), the
        share right with every variant made from them; ``"accuracy"`` on all the
        pairs themselves (``"n"``); for each variant its accuracy (``"RevTgt"``...)
        and count (``"n_RevTgt"``...).
    """
    texts, terms, spans, labels = _columns(X, y)
    truth = np.asarray([str(v) for v in labels])
    classes = np.asarray(getattr(estimator, "classes_", []), dtype=object)
    if classes.ndim == 1 and len(classes) and not set(truth) & set(map(str, classes)):
        raise InputError(
            f"None of y's labels {sorted(set(truth))} is a class of the model "
            f"({classes.tolist()}): every answer would count as wrong."
        )
    pairs = [
        (t, a) if s is None else (t, a, s)
        for t, a, s in zip(texts, terms, spans, strict=True)
    ]
    right = pair_answers(estimator, pairs) == truth
    every, probed = right.copy(), np.zeros(len(truth), dtype=bool)
    out = {"n": len(truth), "accuracy": float(right.mean())}
    probes = _probes((texts, terms, spans, truth.tolist()), clauses, random_state)
    for name, (X_new, y_new, item) in probes.items():
        out[f"n_{name}"] = len(X_new)
        if not X_new:
            continue
        ok = pair_answers(estimator, X_new) == np.asarray(y_new)
        out[name] = float(ok.mean())
        np.logical_and.at(every, item, ok)
        probed[item] = True
    out["n_items"] = int(probed.sum())
    out["ARS"] = float(every[probed].mean()) if probed.any() else float("nan")
    return out
