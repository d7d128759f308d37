"""Negation in every form English uses: the LSTM's negated copies in the three
forms they had ("not", "never", "far from") against every form of
:data:`aspectattn.augment.NEGATIONS` (also "n't", "nothing", "no"), both
scored on validation probes in every form.

    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 python -m benchmarks \
        negation [--workers N --worker I] [--candidates ...] [--seeds 0 1 2]
    ASPECTATTN_DATA=../shared/data python -m benchmarks negation --table

Each run fits the LSTM's defaults (its own word vectors, flipped, joined and
negated copies, the learned position prior) with one seed on the 90% of a data
set's training sentences that :mod:`benchmarks.behaviour` fits on, the negated
copies in the candidate's forms, and scores:

- on the other 10% (**validation**, what chooses): accuracy, the Aspect
  Robustness Score of the ARTS-style probes, and the negation probes of each
  form: every positive or negative term whose nearest opinion word the form
  fits, that word negated in it and the term's label reversed
  (:func:`aspectattn.augment.flip_pairs` with ``negations=(form,)``), as
  SemEval's annotators label negated opinions;
- on the test side and the suite (**reported**, chooses nothing): the same, the
  suite's MFT and its negated items.

The rule (issue 63's bound on what accuracy may be given up): the forms whose
validation negation probes (every form's items together) are answered best,
averaged over the data sets, provided their mean validation accuracy is on each
data set at most one point below the other candidate's and their validation
ARS averaged over the data sets at most one point below; otherwise the three
forms stay.
"""

from __future__ import annotations

import time

import numpy as np

from aspectattn import AspectAttentionClassifier, augment
from aspectattn.augment import NEGATIONS, flip_pairs
from aspectattn.evaluation import score_behaviour
from benchmarks.behaviour import load, percents, robustness, suite_tests
from benchmarks.common import pair_scores
from benchmarks.runner import Experiment

DATA = ("restaurant terms", "laptop terms")
SEEDS = (0, 1, 2)
THREE = ("not", "never", "far from")
#: Candidate -> the forms its negated copies take.
CANDIDATES = {
    "LSTM: negated copies in three forms": THREE,
    "LSTM: negated copies in every form": NEGATIONS,
}


def slug(form: str) -> str:
    """A form as a key: "far from" -> "far_from", "n't" -> "nt"."""
    return form.replace(" ", "_").replace("'", "")


def negation_probes(pairs, labels, forms=NEGATIONS) -> dict:
    """form -> (X, y) of its negation probes: the positive and negative terms of
    ``pairs`` whose nearest opinion word ``form`` fits, negated in it, their
    labels reversed."""
    texts, terms, spans = (list(column) for column in zip(*pairs, strict=True))
    probes = {}
    for form in forms:
        X, y, target, _ = flip_pairs(
            texts, terms, spans, list(labels), "positive", "negative",
            negate=True, negations=(form,),
        )  # fmt: skip
        keep = np.flatnonzero(target)
        probes[form] = ([X[i] for i in keep], np.array([y[i] for i in keep]))
    return probes


def negated(model, pairs, labels, prefix: str) -> dict:
    """The share of each form's negation probes ``model`` answers right
    (``prefix + "negated_" + form``) and of all of them together
    (``prefix + "negated"``), in %; their counts (``..._n``)."""
    out, right, n = {}, 0, 0
    for form, (X, y) in negation_probes(pairs, labels).items():
        hits = int(np.sum(model.predict(X) == y)) if X else 0
        out[f"{prefix}negated_{slug(form)}"] = 100 * hits / len(X) if X else None
        out[f"{prefix}negated_{slug(form)}_n"] = len(X)
        right, n = right + hits, n + len(X)
    return out | {f"{prefix}negated": 100 * right / n}


def run(candidate: str, data: str, seed: int) -> dict:
    train, valid, test = load(data)
    before = augment.COPY_NEGATIONS
    augment.COPY_NEGATIONS = CANDIDATES[candidate]  # read when the copies are made
    try:
        start = time.perf_counter()
        clf = AspectAttentionClassifier(random_state=seed).fit(*train)
        seconds = time.perf_counter() - start
    finally:
        augment.COPY_NEGATIONS = before
    out = {"candidate": candidate, "data": data, "seed": seed, "fit_seconds": seconds}
    out["valid_accuracy"] = 100 * float(np.mean(clf.predict(valid[0]) == valid[1]))
    variants = ("RevTgt", "RevNon", "AddDiff")
    out |= robustness(clf, *valid, train, seed, "valid_", variants)
    out |= negated(clf, *valid, "valid_")
    out |= pair_scores(clf.predict(test[0]), *test, prefix="test_")
    out |= negated(clf, *test, "test_")
    out |= robustness(clf, *test, train, seed, "test_", variants)
    suite = score_behaviour(clf)
    out |= percents(suite, ("MFT", "INV", "DIR"), "suite_")
    return out | suite_tests(suite)


KEYS = [
    ("valid_accuracy", "valid accuracy"),
    ("valid_ars", "valid ARS"),
    ("valid_negated", "valid negation probes, every form"),
    *[(f"valid_negated_{slug(f)}", f'valid "{f}"') for f in NEGATIONS],
    ("test_accuracy", "test accuracy"),
    ("test_ars", "test ARS"),
    ("test_negated", "test negation probes, every form"),
    ("suite_MFT", "suite MFT"),
    ("suite_negation", "suite negated items"),
]


def choose(rows: list[dict]) -> None:
    """The rule of the module's docstring: mark the chosen rows."""
    cell = {(r["data"], r["candidate"]): r for r in rows}
    if not all((d, c) in cell for d in DATA for c in CANDIDATES):
        return
    three, every = CANDIDATES

    def mean(c, key):
        return np.mean([cell[d, c][key][0] for d in DATA])

    keeps = (
        all(
            cell[d, every]["valid_accuracy"][0]
            >= cell[d, three]["valid_accuracy"][0] - 1
            for d in DATA
        )
        and mean(every, "valid_ars") >= mean(three, "valid_ars") - 1
    )
    better = mean(every, "valid_negated") > mean(three, "valid_negated")
    chosen = every if keeps and better else three
    for d in DATA:
        cell[d, chosen]["chosen"] = True


NOTE = (
    "Mean ± std over 3 seeds, the LSTM's defaults with its own word vectors, one "
    "thread each on a 2-core CPU. Validation: 10% of the training sentences, "
    "as in the behaviour table. The negation probes of a form are the positive "
    'and negative terms whose nearest opinion word the form fits ("n\'t" and '
    '"nothing" after is/are/was/were, "nothing" and "no" before a positive '
    'word, "no" for its article a/an), negated in it, label reversed. Both '
    "rows put the negation before the words that intensify the opinion word "
    '("not very good") and never edit a term. Chosen (in bold): the forms '
    "with the most validation negation probes right, averaged over the data "
    "sets, if their validation accuracy is on each data set at most one point "
    "below the other's and their validation ARS at most one point below; else "
    "the three forms. The test columns and the suite choose nothing."
)
EXPERIMENT = Experiment(
    "negation", DATA, CANDIDATES, run, KEYS, NOTE, SEEDS, choose=choose
)

if __name__ == "__main__":
    EXPERIMENT.main()
