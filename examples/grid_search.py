"""Baselines and the attention model in one GridSearchCV
=====================================================

Compare the pooling baselines and the attention model in one GridSearchCV::

    ASPECTATTN_DATA=../shared/data NLTK_DATA=../shared/data/nltk_data \
        python examples/grid_search.py

One Pipeline whose "model" step is itself a hyperparameter: tf-idf- and POS-weighted
GloVe means with logistic regression, and AT/ATAE-LSTM. Folds are grouped by sentence
(the aspects of one sentence never sit on both sides). The test set is scored once, by
the winner. Uses a sample of the training data to finish in about a minute.
"""

import argparse

import numpy as np
from _common import glove_or_download
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import Pipeline

from aspectattn import AspectAttentionClassifier, make_baseline
from aspectattn.datasets import fetch_semeval2014
from aspectattn.encoders import LSTMEncoder

parser = argparse.ArgumentParser()
parser.add_argument("--pairs", type=int, default=2500, help="training sample size")
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()

X, y = fetch_semeval2014(subset="train")
X_test, y_test = fetch_semeval2014(subset="test")
rng = np.random.default_rng(0)
sample = rng.choice(len(X), size=min(args.pairs, len(X)), replace=False)
X, y = [X[i] for i in sample], [y[i] for i in sample]
glove = glove_or_download()

pipe = Pipeline([("model", make_baseline("tfidf", embeddings=glove))])
grid = [
    {
        "model": [make_baseline("tfidf", embeddings=glove, aspect_type="category")],
        "model__clf__C": [0.1, 1.0],
    },
    {
        "model": [make_baseline("pos", embeddings=glove, aspect_type="category")],
        "model__features__adj_weight": [1.0, 3.0],
    },
    {
        "model": [
            AspectAttentionClassifier(
                encoder=LSTMEncoder(embeddings=glove, hidden_size=100),
                max_epochs=args.epochs,
                random_state=0,
            )
        ],
        "model__variant": ["at", "atae"],
    },
]
search = GridSearchCV(pipe, grid, cv=GroupKFold(n_splits=3), n_jobs=1)
search.fit(X, y, groups=[text for text, _ in X])

results = search.cv_results_
order = np.argsort(-results["mean_test_score"])
print(f"{'candidate':<60s} {'cv accuracy':>12s}")
for i in order:
    params = results["params"][i]
    model = params["model"]
    name = (
        type(model).__name__
        if not hasattr(model, "steps")
        else type(model.steps[0][1]).__name__
    )
    detail = ", ".join(
        f"{k.split('__', 1)[1]}={v}" for k, v in params.items() if k != "model"
    )
    print(f"{name + ' (' + detail + ')':<60s} {results['mean_test_score'][i]:12.3f}")
print(f"\nwinner on the test set: {search.score(X_test, y_test):.3f} accuracy")
