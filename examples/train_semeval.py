"""Train the defaults on SemEval-2014 restaurant categories
========================================================

Trains the default model and shows its attention::

    python examples/train_semeval.py [--epochs 30] [--embeddings PATH] [--seed 0]

Nothing about the model is set: the defaults are AT-LSTM trained jointly over the
aspects of each sentence (one encoder pass per sentence), with sentences whose two
aspects disagree joined inside ``fit`` from training sentences of opposite polarity
(only 4.5% of the training sentences have aspects that disagree, and without them a
model learns to give every aspect the sentence's overall tone) and, in English,
copies of the sentences of one tone with their opinion words swapped for their
antonyms, labels reversed (``augment="flip+join"``), and the aspect's attention
alone in the classified vector (``final_state=False``). The script prints what the
``"auto"`` defaults resolved to. Only the training settings are Wang et al.'s
(hidden size 300, batches of 25, the epoch chosen on 10% of the training
sentences), as in ``benchmarks/defaults.py``.

The data come from the data home (``$ASPECTATTN_DATA``, downloaded there when
missing). Word vectors: ``--embeddings``, else GloVe 6B 50-d from
``$ASPECTATTN_DATA/glove/glove.6B.50d.100k.txt.gz`` when present, else gensim-data's
``glove-wiki-gigaword-50`` (downloaded by gensim).

The epoch is selected on a validation split carved from the training data (10% of the
training sentences); the test set is only used for the final report.
"""

import argparse
import time

from _common import glove_or_download
from sklearn.metrics import accuracy_score, classification_report, f1_score

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014
from aspectattn.encoders import LSTMEncoder
from aspectattn.training import EarlyStopping


def disagreeing(X, y) -> list[int]:
    """Indices of the pairs whose sentence has aspects of different polarities."""
    labels: dict[str, set] = {}
    for (text, _), label in zip(X, y, strict=True):
        labels.setdefault(text, set()).add(label)
    return [i for i, (text, _) in enumerate(X) if len(labels[text]) > 1]


def show_attention(result: dict, width: int = 12) -> str:
    """One line per token: the token and a bar proportional to its weight."""
    top = result["weights"].max()
    lines = [f"  {result['aspect']!r} -> {result['label']}  ({result['text']})"]
    for token, weight in zip(result["tokens"], result["weights"], strict=True):
        bar = "#" * max(1, round(width * weight / top)) if weight > 0 else ""
        lines.append(f"    {token:>14s} {weight:5.3f} {bar}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--embeddings", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--limit", type=int, default=None, help="first N training pairs"
    )
    args = parser.parse_args()

    X_train, y_train = fetch_semeval2014(subset="train", aspect="category")
    X_train, y_train = X_train[: args.limit], y_train[: args.limit]
    X_test, y_test = fetch_semeval2014(subset="test", aspect="category")
    print(f"SemEval-2014 restaurants: {len(X_train)} train / {len(X_test)} test pairs")

    clf = AspectAttentionClassifier(
        encoder=LSTMEncoder(
            embeddings=args.embeddings or glove_or_download(), hidden_size=300
        ),
        batch_size=25,
        max_epochs=args.epochs,
        validation_fraction=0.1,
        early_stopping=EarlyStopping(scoring="accuracy", patience=5),
        random_state=args.seed,
        verbose=1,
    )
    start = time.perf_counter()
    clf.fit(X_train, y_train)
    elapsed = time.perf_counter() - start
    print(f"trained in {elapsed:.1f} s, best epoch {clf.best_epoch_}")
    print(f"the defaults resolved to {clf.resolved_params_}")

    predicted = clf.predict(X_test)
    print(
        f"\ntest accuracy {accuracy_score(y_test, predicted):.4f}   "
        f"macro-F1 {f1_score(y_test, predicted, average='macro'):.4f}"
    )
    print(classification_report(y_test, predicted, digits=3))
    hard = disagreeing(X_test, y_test)
    right = sum(predicted[i] == y_test[i] for i in hard)
    print(
        f"pairs whose sentence has aspects that disagree: {right}/{len(hard)} right "
        f"({100 * right / len(hard):.1f}%)\n"
    )

    examples = [
        ("The pasta was great but the waiter was rude.", "food"),
        ("The pasta was great but the waiter was rude.", "service"),
        ("Prices are a bit steep, but the view is worth it.", "price"),
        ("Prices are a bit steep, but the view is worth it.", "ambience"),
    ]
    print("Predictions with attention:")
    for result in clf.explain(examples):
        print(show_attention(result))


if __name__ == "__main__":
    main()
