"""Another language: Russian restaurant reviews, words never seen in training
=============================================================================

Train on the SemEval-2016 Russian restaurant reviews (aspect terms, PyABSA's
three-line files), score the test file beside the majority class, and see how
words training never saw -- inflections, mostly -- are read::

    ASPECTATTN_DATA=../shared/data python examples/other_languages.py

About a minute on a laptop CPU. Any language works the same way: nothing here is
Russian-specific but the data (``read_apc`` reads a file of your own).
"""

import argparse
from collections import Counter

import numpy as np

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2016

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--limit", type=int, default=None, help="first N training pairs")
args = parser.parse_args()

# 1. (text, term, (start, end)) triples and labels; the test file only scores.
X_train, y_train = fetch_semeval2016("russian", "train")
X_train, y_train = X_train[: args.limit], y_train[: args.limit]
X_test, y_test = fetch_semeval2016("russian", "test")
print(f"{len(X_train)} train / {len(X_test)} test pairs")

# 2. The defaults: word vectors learned from the training text, the language's
#    own rules (language="auto" sees it is not English), words never seen in
#    training read as the known word they are spelled most like.
clf = AspectAttentionClassifier(max_epochs=args.epochs, random_state=0)
clf.fit(X_train, y_train)
majority = Counter(y_train).most_common(1)[0][0]
language = clf.resolved_params_["language"]
print(f"language rules: {language or 'none (the texts are not English)'}")
print(f"test accuracy: {clf.score(X_test, y_test):.3f} "
      f"(majority class: {np.mean(np.asarray(y_test) == majority):.3f})")  # fmt: skip

# 3. How the model reads a new sentence: each word as itself, or, if training
#    never saw it, as its nearest known word (or <unk> when none is alike).
sentence = "Креветкой остались довольны, а официантка ужасно долго несла счета."
pipeline = clf.text_pipeline_
words = pipeline.vocabulary.words_
for token, word_id in zip(
    pipeline.tokenize([sentence])[0], pipeline.encode([sentence]).ids, strict=True
):
    if token != words[word_id]:
        print(f"  {token!r} is read as {words[word_id]!r}")

# 4. Two terms of the sentence, and where the attention looks for each.
pairs = [(sentence, "Креветкой"), (sentence, "официантка")]
for (_, term), label in zip(pairs, clf.predict(pairs), strict=True):
    print(f"{term!r} -> {label}")
explained = clf.explain(pairs[1:])[0]
top = np.argsort(explained["weights"])[::-1][:3]
print("attention for 'официантка':",
      ", ".join(f"{explained['tokens'][i]} {explained['weights'][i]:.2f}"
                for i in top))  # fmt: skip
