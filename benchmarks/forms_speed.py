"""Seconds per training epoch of each attention form, measured together.

    ASPECTATTN_DATA=../shared/data python -m benchmarks forms_speed [--table]

AT and ATAE LSTMs on SemEval-2014 restaurant categories, the settings of
``attention_lstm.py``, 3 epochs each without a validation split; the median of the
epochs after the first. Run on a quiet machine: the forms are compared with each
other, in one process, one after the other. Writes ``results/forms_speed.json``
(the record) and ``forms_speed.md`` (``--table``: the table again, from the record).
"""

from __future__ import annotations

import numpy as np
import torch

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014
from benchmarks.common import build, glove
from benchmarks.runner import Measurement

FORMS = [
    ("additive", 1),
    ("dot", 1),
    ("general", 1),
    ("scaled_dot", 1),
    ("concat", 1),
    ("additive", 4),
]
VARIANTS = ("at", "atae")


def measure(args) -> dict:
    """Seconds per epoch of each variant and form, and the threads torch used."""
    X, y = fetch_semeval2014("restaurants", "train", "category")
    vectors = glove()
    out = {"cpu_threads": torch.get_num_threads(), "seconds_per_epoch": {}}
    for variant in VARIANTS:
        for score, heads in FORMS:
            clf = build(
                AspectAttentionClassifier,
                variant=variant,
                embeddings=vectors,
                attention_score=score,
                attention_heads=heads,
                hidden_size=300,
                batch_size=25,
                max_epochs=3,
                validation_fraction=None,
                early_stopping=False,
                random_state=0,
            ).fit(X, y)
            key = f"{variant} {score} x{heads}"
            seconds = float(np.median([r["dur"] for r in clf.history_[1:]]))
            out["seconds_per_epoch"][key] = seconds
            print(key, round(seconds, 3), flush=True)
    return out


def markdown(results: dict) -> str:
    seconds = results["seconds_per_epoch"]
    lines = ["| form | AT-LSTM, s / epoch | ATAE-LSTM, s / epoch |", "|---|---|---|"]
    for score, heads in FORMS:
        cells = [f"{seconds[f'{v} {score} x{heads}']:.2f}" for v in VARIANTS]
        lines.append(f"| {score} x{heads} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "SemEval-2014 restaurant categories, GloVe 6B 50-d, hidden size 300, batch "
        "25; the median of epochs 2 and 3, every form in one process on "
        f"{results['cpu_threads']} thread(s), alone on the machine.",
    ]
    return "\n".join(lines)


MEASUREMENT = Measurement("forms_speed", measure, markdown)

if __name__ == "__main__":
    MEASUREMENT.main(__doc__.splitlines()[0])
