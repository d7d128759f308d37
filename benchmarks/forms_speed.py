"""Seconds per training epoch of each attention form, measured together.

    ASPECTATTN_DATA=../shared/data python -m benchmarks forms_speed

AT and ATAE LSTMs on SemEval-2014 restaurant categories, the settings of
``attention_lstm.py``, 3 epochs each without a validation split; the median of the
epochs after the first. Run on a quiet machine: the forms are compared with each
other, in one process, one after the other. Writes ``results/forms_speed.json``.
"""

import json
from pathlib import Path

import numpy as np
import torch

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014
from benchmarks.common import build, glove

FORMS = [
    ("additive", 1),
    ("dot", 1),
    ("general", 1),
    ("scaled_dot", 1),
    ("concat", 1),
    ("additive", 4),
]
OUT = Path(__file__).resolve().parent / "results" / "forms_speed.json"


def main():
    X, y = fetch_semeval2014("restaurants", "train", "category")
    vectors = glove()
    out = {"cpu_threads": torch.get_num_threads(), "seconds_per_epoch": {}}
    for variant in ("at", "atae"):
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
                random_state=0,
            ).fit(X, y)
            key = f"{variant} {score} x{heads}"
            seconds = float(np.median([r["dur"] for r in clf.history_[1:]]))
            out["seconds_per_epoch"][key] = seconds
            print(key, round(seconds, 3), flush=True)
    OUT.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
