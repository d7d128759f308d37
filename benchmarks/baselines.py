"""Pooling baselines (tf-idf- and POS-weighted GloVe means) with linear classifiers.

    ASPECTATTN_DATA=../shared/data NLTK_DATA=../shared/data/nltk_data \\
        python -m benchmarks.baselines

Data: SemEval-2014 restaurant categories, restaurant terms and laptop terms (conflict
dropped). Model selection: 3-fold cross-validation on the *training* data, folds split
by sentence (GroupKFold), over the classifier's C and, for the POS baseline, the
adjective and "other" weights. The selected pipeline is refitted on all training data
and scored once on the test data.

With GloVe vectors and these solvers the whole procedure is deterministic, so one run
is reported (there is no seed to vary). Writes ``benchmarks/results/baselines.json``
and ``.md``, with the best SemEval-2014 systems' published accuracy beside ours.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from joblib import Memory
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import GridSearchCV, GroupKFold

from aspectattn import make_baseline
from aspectattn.datasets import fetch_semeval2014
from benchmarks.common import glove

RESULTS = Path(__file__).resolve().parent / "results"
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


def run(dataset, kind, classifier, vectors, cache):
    domain, aspect, published, system = DATASETS[dataset]
    X, y = fetch_semeval2014(domain, "train", aspect)
    X_test, y_test = fetch_semeval2014(domain, "test", aspect)
    pipe = make_baseline(kind, classifier, embeddings=vectors, aspect_type=aspect)
    pipe.set_params(memory=Memory(cache, verbose=0))
    if classifier == "svm":
        pipe.set_params(clf__random_state=0)
    grid = GridSearchCV(
        pipe,
        {**GRIDS[kind], "clf__C": C_GRID[classifier]},
        cv=GroupKFold(n_splits=3),
        scoring="accuracy",
    )
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
        "dataset": dataset,
        "features": kind,
        "classifier": classifier,
        "best_params": {k: v for k, v in grid.best_params_.items()},
        "cv_accuracy": 100 * grid.best_score_,
        "test_accuracy": 100 * accuracy_score(y_test, predicted),
        "test_macro_f1": 100 * f1_score(y_test, predicted, average="macro"),
        "features_fit_transform_seconds": fit_transform_time,
        "features_transform_test_seconds": transform_time,
        "search_seconds": search_time,
        "published_best_accuracy": published,
        "published_system": system,
    }


def markdown(runs):
    names = {
        "tfidf": "tf-idf mean",
        "pos": "POS-weighted mean",
        "logreg": "logistic regression",
        "svm": "linear SVM",
    }
    lines = [
        "| data | model | test accuracy | test macro-F1 | features fit+transform "
        "(train) s | best SemEval-2014 system |",
        "|---|---|---|---|---|---|",
    ]
    for r in runs:
        lines.append(
            f"| {r['dataset']} | {names[r['features']]} + {names[r['classifier']]} | "
            f"{r['test_accuracy']:.2f} | {r['test_macro_f1']:.2f} | "
            f"{r['features_fit_transform_seconds']:.1f} | "
            f"{r['published_best_accuracy']} ({r['published_system']}) |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--out", default=str(RESULTS / "baselines"))
    args = parser.parse_args()
    vectors = glove()
    runs = []
    with tempfile.TemporaryDirectory() as cache:
        for dataset in args.datasets:
            for kind in ("tfidf", "pos"):
                for classifier in ("logreg", "svm"):
                    r = run(dataset, kind, classifier, vectors, cache)
                    runs.append(r)
                    print(json.dumps(r), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"runs": runs}, indent=1))
    table = markdown(runs)
    out.with_suffix(".md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
