"""Pooling baselines (tf-idf- and POS-weighted GloVe means) with linear classifiers.

    ASPECTATTN_DATA=../shared/data NLTK_DATA=../shared/data/nltk_data \\
        python -m benchmarks baselines [--own-vectors] [--workers N --worker I]

Data: SemEval-2014 restaurant categories, restaurant terms and laptop terms (conflict
dropped). Model selection: 3-fold cross-validation on the *training* data, folds split
by sentence (GroupKFold), over the classifier's C and, for the POS baseline, the
adjective and "other" weights. The selected pipeline is refitted on all training data
and scored once on the test data.

With GloVe vectors and these solvers the whole procedure is deterministic, so one run
is reported (there is no seed to vary). Each run goes to
``results/baselines.runs.jsonl``; ``--table`` writes ``results/baselines.md``, with
the best SemEval-2014 systems' published accuracy beside ours.

``--own-vectors``: the baselines as users get them, with their own word2vec
vectors (``embeddings="word2vec"``, the default) trained 10 passes (the
default) or 30 (what the word encoders' own vectors make, chosen by
``own_vectors.py`` and ``decoding.py``), the vectors' seed varied over 3 seeds;
chosen per kind of features by the cross-validation accuracy averaged over the
data sets, 10 on a tie (set before its runs).
"""

from __future__ import annotations

import time
from unittest import mock

import numpy as np
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import GridSearchCV, GroupKFold

from aspectattn import make_baseline, params
from aspectattn.datasets import fetch_semeval2014
from benchmarks.common import TEN_PASSES, glove
from benchmarks.runner import Experiment, main_of

DATASETS = {
    "restaurant categories": ("restaurants", "category", 82.9, "NRC-Canada"),
    "restaurant terms": ("restaurants", "term", 80.95, "DCU"),
    "laptop terms": ("laptops", "term", 70.48, "DCU"),
}
GRIDS = {
    "tfidf": {},
    "pos": {"features__adj_weight": [1.0, 3.0], "features__other_weight": [0.25, 1.0]},
}
C_GRID = {"logreg": [0.001, 0.01, 0.1, 1.0, 10.0], "svm": [1e-4, 1e-3, 1e-2, 0.1, 1.0]}


#: Candidate -> (features, classifier).
CANDIDATES = {
    "tf-idf mean + logistic regression": ("tfidf", "logreg"),
    "tf-idf mean + linear SVM": ("tfidf", "svm"),
    "POS-weighted mean + logistic regression": ("pos", "logreg"),
    "POS-weighted mean + linear SVM": ("pos", "svm"),
}


def search(kind: str, classifier: str, data: str, **features):
    """The baseline's ``(grid, X, y, X_test, y_test)`` on ``data`` (its features
    given ``features``), unfitted: its classifier's C (and the POS weights)
    searched by 3-fold cross-validation, folds by sentence."""
    domain, aspect, _, _ = DATASETS[data]
    X, y = fetch_semeval2014(domain, "train", aspect)
    X_test, y_test = fetch_semeval2014(domain, "test", aspect)
    pipe = make_baseline(kind, classifier, aspect_type=aspect, **features)
    grid = GridSearchCV(
        pipe,
        {**GRIDS[kind], "clf__C": C_GRID[classifier]},
        cv=GroupKFold(n_splits=3),
        scoring="accuracy",
    )
    return grid, X, y, X_test, y_test


def run(candidate: str, data: str, seed: int) -> dict:
    kind, classifier = CANDIDATES[candidate]
    grid, X, y, X_test, y_test = search(kind, classifier, data, embeddings=glove())
    if classifier == "svm":
        grid.estimator.set_params(clf__random_state=seed)
    start = time.perf_counter()
    grid.fit(X, y, groups=[t for t, _ in X])
    search_time = time.perf_counter() - start
    best = grid.best_estimator_
    start = time.perf_counter()
    features = best.named_steps["features"]
    features.transform(X_test)
    transform_time = time.perf_counter() - start
    start = time.perf_counter()
    best.named_steps["features"].fit(X, y)
    best.named_steps["features"].transform(X)
    fit_transform_time = time.perf_counter() - start
    predicted = best.predict(X_test)
    return {
        "candidate": candidate,
        "data": data,
        "seed": seed,
        "best_params": {k: v for k, v in grid.best_params_.items()},
        "cv_accuracy": 100 * grid.best_score_,
        "test_accuracy": 100 * accuracy_score(y_test, predicted),
        "test_macro_f1": 100 * f1_score(y_test, predicted, average="macro"),
        "features_fit_transform_seconds": fit_transform_time,
        "features_transform_test_seconds": transform_time,
        "search_seconds": search_time,
    }


KEYS = [
    ("test_accuracy", "test accuracy", 2),
    ("test_macro_f1", "test macro-F1", 2),
    ("cv_accuracy", "cross-validation accuracy", 2),
    ("features_fit_transform_seconds", "features fit+transform (train) s"),
]
NOTE = (
    "GloVe 6B 50-d; C (and the POS weights) chosen by 3-fold cross-validation on "
    "the training data, folds by sentence; one run (deterministic). Best "
    "SemEval-2014 systems, test accuracy: "
    + "; ".join(f"{d}: {a} ({s})" for d, (_, _, a, s) in DATASETS.items())
    + "."
)
EXPERIMENT = Experiment(
    "baselines",
    tuple(DATASETS),
    CANDIDATES,
    run,
    KEYS,
    NOTE,
    seeds=(0,),
    vector_passes=TEN_PASSES,
)


# ---------------------------------------------- their own word vectors' passes
#: Candidate -> (features, the passes of the vectors trained on the fitting
#: sentences, ``embeddings="word2vec"``: the baselines' default). Set before
#: its runs, after benchmarks/own_vectors.py and decoding.py chose 30 passes
#: for the word encoders.
OWN_CANDIDATES = {
    "tf-idf mean + logistic regression, own vectors of 10 passes": ("tfidf", 10),
    "tf-idf mean + logistic regression, own vectors of 30 passes": ("tfidf", 30),
    "POS-weighted mean + logistic regression, own vectors of 10 passes": ("pos", 10),
    "POS-weighted mean + logistic regression, own vectors of 30 passes": ("pos", 30),
}


def own_run(candidate: str, data: str, seed: int) -> dict:
    """One seed of a baseline with its own word2vec vectors (their passes the
    candidate's), chosen and scored as :func:`run` chooses and scores."""
    kind, passes = OWN_CANDIDATES[candidate]
    grid, X, y, X_test, y_test = search(
        kind, "logreg", data, embeddings="word2vec", random_state=seed
    )
    with mock.patch.object(params, "VECTOR_PASSES", passes):
        grid.fit(X, y, groups=[t for t, _ in X])
    predicted = grid.best_estimator_.predict(X_test)
    return {
        "candidate": candidate,
        "data": data,
        "seed": seed,
        "cv_accuracy": 100 * grid.best_score_,
        "test_accuracy": 100 * accuracy_score(y_test, predicted),
        "test_macro_f1": 100 * f1_score(y_test, predicted, average="macro"),
    }


def own_choose(rows: list[dict]) -> None:
    """Per kind of features, the passes with the best cross-validation accuracy
    averaged over the data sets (10 on a tie), once every row is in."""
    cell = {(r["data"], r["candidate"]): r for r in rows}
    if not all((d, c) in cell for d in DATASETS for c in OWN_CANDIDATES):
        return
    for kind in GRIDS:
        names = [c for c, (k, _) in OWN_CANDIDATES.items() if k == kind]
        mean = {
            c: np.mean([cell[d, c]["cv_accuracy"][0] for d in DATASETS]) for c in names
        }
        chosen = max(names, key=lambda c: mean[c])  # the first (10) on a tie
        for d in DATASETS:
            cell[d, chosen]["chosen"] = True


OWN_EXPERIMENT = Experiment(
    "baselines_own_vectors",
    tuple(DATASETS),
    OWN_CANDIDATES,
    own_run,
    KEYS[:3],
    "The baselines with their own word2vec vectors (the default, "
    "embeddings='word2vec', trained on the fitting sentences of each fold and "
    "of the refit) for 10 passes (the default) or 30, logistic regression; C "
    "(and the POS weights) chosen by 3-fold cross-validation on the training "
    "data, folds by sentence; mean ± std over 3 seeds (the vectors' seed). "
    "Chosen (in bold), per kind of features: the passes with the best "
    "cross-validation accuracy averaged over the data sets (10 on a tie). The "
    "test columns choose nothing.",
    seeds=(0, 1, 2),
    choose=own_choose,
)


if __name__ == "__main__":
    main_of(EXPERIMENT, __doc__.splitlines()[0], own_vectors=OWN_EXPERIMENT)
