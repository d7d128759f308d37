"""Every sentence on every aspect at once
======================================

Score every sentence of a list of reviews on every aspect category at once::

    ASPECTATTN_DATA=../shared/data python examples/multi_aspect.py

Trained on MAMS (Jiang et al., 2019), where every sentence mentions several aspects
with different polarities -- the data that teaches a model to tell aspects apart. (On
SemEval-2014 most training sentences carry one opinion, and a model trained there
tends to give all aspects of a sentence the same label.)

With the AT variant the LSTM does not see the aspect, so each sentence is encoded once
and its states are shared by all eight aspects: scoring 8 aspects costs little more
than scoring one. About a minute on a CPU.
"""

import argparse
import re
import time

import numpy as np
from _common import glove_or_download

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_mams
from aspectattn.encoders import LSTMEncoder

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=12)
parser.add_argument("--limit", type=int, default=None, help="first N training pairs")
args = parser.parse_args()

X_train, y_train = fetch_mams("category", "train")
X_train, y_train = X_train[: args.limit], y_train[: args.limit]
clf = AspectAttentionClassifier(
    variant="at",
    encoder=LSTMEncoder(embeddings=glove_or_download()),
    max_epochs=args.epochs,
    validation_fraction=0.1,
    early_stopping=True,
    random_state=0,
)
clf.fit(X_train, y_train)

reviews = [
    "The sushi was fresh and creative but service was painfully slow. "
    "A bit pricey for the portions.",
    "Terrible food, but the staff were lovely and the room is beautiful.",
]
sentences = [s for review in reviews for s in re.split(r"(?<=[.!?])\s+", review) if s]
aspects = list(clf.aspects_)  # every category seen in fit

proba = clf.predict_proba_aspects(sentences, aspects)  # (sentences, aspects, classes)
labels = clf.classes_[proba.argmax(-1)]
confidence = proba.max(-1)
print(f"{'sentence':<48s}" + "".join(f"{a[:12]:>14s}" for a in aspects))
for sentence, row, conf in zip(sentences, labels, confidence, strict=True):
    cells = "".join(
        f"{lab[:3]} {c:4.2f}".rjust(14) for lab, c in zip(row, conf, strict=True)
    )
    print(f"{sentence[:46]:<48s}{cells}")

# The same numbers, pair by pair, cost one encoder pass per (sentence, aspect):
pairs = [(s, a) for s in sentences * 50 for a in aspects]
start = time.perf_counter()
clf.predict_proba(pairs)
pairwise = time.perf_counter() - start
start = time.perf_counter()
many = clf.predict_proba_aspects(sentences * 50, aspects)
shared = time.perf_counter() - start
assert np.allclose(
    many.reshape(-1, len(clf.classes_)), clf.predict_proba(pairs), atol=1e-5
)
print(
    f"\n{len(pairs)} pairs: {pairwise * 1e3:.0f} ms pair by pair, "
    f"{shared * 1e3:.0f} ms with one encoder pass per sentence"
)
