"""Quick start: train, predict, explain, save and load
===================================================

Quick start: train, predict, look at the attention, save and load::

    ASPECTATTN_DATA=../shared/data python examples/quickstart.py

About a minute on a laptop CPU.
"""

import argparse
import tempfile
from pathlib import Path

from _common import glove_or_download

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014
from aspectattn.encoders import LSTMEncoder

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=12)
parser.add_argument("--limit", type=int, default=None, help="first N training pairs")
args = parser.parse_args()

# 1. Data: (text, aspect) pairs and labels. SemEval-2014 restaurant categories.
X_train, y_train = fetch_semeval2014(subset="train")
X_train, y_train = X_train[: args.limit], y_train[: args.limit]
X_test, y_test = fetch_semeval2014(subset="test")

# 2. Train ATAE-LSTM; 10% of the training sentences choose the best epoch.
clf = AspectAttentionClassifier(
    variant="atae",
    encoder=LSTMEncoder(embeddings=glove_or_download()),
    max_epochs=args.epochs,
    validation_fraction=0.1,
    early_stopping=True,
    random_state=0,
)
clf.fit(X_train, y_train)
print(f"test accuracy: {clf.score(X_test, y_test):.3f}")

# 3. Predict new pairs: labels and class probabilities (columns follow classes_).
new = [
    ("The pasta was great but the waiter was rude.", "food"),
    ("The pasta was great but the waiter was rude.", "service"),
]
for (_text, aspect), label, proba in zip(
    new, clf.predict(new), clf.predict_proba(new), strict=True
):
    print(
        f"{aspect:>8s}: {label:<8s}",
        {str(c): round(float(p), 3) for c, p in zip(clf.classes_, proba, strict=True)},
    )

# 4. Which words did the model look at?
for result in clf.explain(new):
    top = sorted(zip(result["weights"], result["tokens"], strict=True), reverse=True)[
        :3
    ]
    print(f"{result['aspect']:>8s} attends to", [t for _, t in top])

# 5. Save in the safe format (no code runs on load) and load it back.
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "model.aam"
    clf.save(path)
    same = AspectAttentionClassifier.load(path)
    assert (same.predict_proba(new) == clf.predict_proba(new)).all()
    print(f"saved and reloaded {path.name}: identical predictions")
