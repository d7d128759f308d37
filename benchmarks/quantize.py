"""Int8 dynamic quantisation (``quantize="int8"``): accuracy change and speed-up.

    ASPECTATTN_DATA=../shared/data python -m benchmarks quantize \
        [--candidates MiniLM AT-transformer] [--seeds 0 1 2]
    python -m benchmarks quantize --table

For each model and seed: train as ``attention_lstm.py`` does (SemEval-2014 restaurant
categories, epoch chosen on 10% of the training sentences, the test set chooses
nothing), then score the test pairs twice, float32 and with ``quantize="int8"`` set
on the fitted model: accuracy, macro-F1, accuracy on the pairs whose sentence has
aspects that disagree, the share of test pairs whose label changes, the largest
probability change, and test pairs per second of ``predict_proba`` end to end
(tokenising included; best of 3; float and int8 timed alternately in the same
process). Each run is appended to ``results/quantize.runs.jsonl`` as it finishes
and skipped when the command is run again (delete the file to start afresh);
``--table`` writes the summary of every run there to ``results/quantize.md``. No
LSTM row:
``quantize`` leaves the LSTM encoder as it is (see
:mod:`aspectattn.engine.quantization`).
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014, get_data_home
from benchmarks.attention_lstm import PARAMS, PRETRAINED, TRANSFORMER
from benchmarks.common import TEN_PASSES, build, disagreeing, glove
from benchmarks.runner import Experiment


def models(data_home: Path) -> dict[str, dict]:
    vectors = glove()
    return {
        "MiniLM": dict(
            variant="at",
            encoder="pretrained",
            pretrained_model=str(data_home / "all-MiniLM-L6-v2"),
            **{**PARAMS, **PRETRAINED},
        ),
        "AT-transformer": dict(
            variant="at",
            encoder="transformer",
            embeddings=vectors,
            **{**PARAMS, **TRANSFORMER},
        ),
    }


def rate(clf, X) -> float:
    """Pairs per second of one ``predict_proba`` over ``X``."""
    start = time.perf_counter()
    clf.predict_proba(X)
    return len(X) / (time.perf_counter() - start)


def run_one(name, params, seed, data) -> dict:
    (X, y), (X_test, y_test) = data
    clf = build(
        AspectAttentionClassifier,
        aspect_type="category",
        random_state=seed,
        device="cpu",
        **params,
    ).fit(X, y)
    y_test = np.asarray(y_test)
    hard = disagreeing(X_test, y_test)
    row = {"seed": seed, "best_epoch": clf.best_epoch_}
    probas = {}
    for quantize in (None, "int8"):
        clf.set_params(quantize=quantize)
        proba = probas[quantize] = clf.predict_proba(X_test)
        predicted = clf.classes_[proba.argmax(1)]
        key = quantize or "float"
        row[f"{key}_accuracy"] = 100 * accuracy_score(y_test, predicted)
        row[f"{key}_macro_f1"] = 100 * f1_score(y_test, predicted, average="macro")
        row[f"{key}_disagree_accuracy"] = 100 * accuracy_score(
            y_test[hard], predicted[hard]
        )
    rates = {None: [], "int8": []}
    for _ in range(3):  # alternate, so that both see the same machine load
        for quantize in rates:
            clf.set_params(quantize=quantize)
            rates[quantize].append(rate(clf, X_test))
    row["float_pairs_per_second"] = max(rates[None])
    row["int8_pairs_per_second"] = max(rates["int8"])
    row["labels_changed"] = 100 * float(
        np.mean(probas[None].argmax(1) != probas["int8"].argmax(1))
    )
    row["max_proba_change"] = float(np.abs(probas[None] - probas["int8"]).max())
    row["disagree_pairs"] = int(hard.sum())
    row["speedup"] = row["int8_pairs_per_second"] / row["float_pairs_per_second"]
    return row


KEYS = [
    ("float_accuracy", "accuracy float", 2),
    ("int8_accuracy", "accuracy int8", 2),
    ("float_macro_f1", "macro-F1 float", 2),
    ("int8_macro_f1", "macro-F1 int8", 2),
    ("float_disagree_accuracy", "disagreeing pairs float", 2),
    ("int8_disagree_accuracy", "disagreeing pairs int8", 2),
    ("labels_changed", "labels changed %", 2),
    ("max_proba_change", "max Δp", 3),
    ("float_pairs_per_second", "pairs / s float", 0),
    ("int8_pairs_per_second", "pairs / s int8", 0),
    ("speedup", "speed-up", 2),
]


def note() -> str:
    return (
        "SemEval-2014 restaurant categories, 3,518 train / 973 test pairs (53 in "
        "sentences whose aspects disagree); epoch chosen on 10% of the training "
        f"sentences; 1 CPU thread; torch {torch.__version__}, quantised engine "
        f"{torch.backends.quantized.engine}, {platform.machine()}. Command: "
        "`python -m benchmarks quantize`."
    )


def run(candidate: str, data: str, seed: int) -> dict:
    torch.set_num_threads(1)
    splits = (
        fetch_semeval2014("restaurants", "train", "category"),
        fetch_semeval2014("restaurants", "test", "category"),
    )
    record = run_one(candidate, models(get_data_home())[candidate], seed, splits)
    return {"candidate": candidate, "data": data, **record}


EXPERIMENT = Experiment(
    "quantize",
    ("restaurant categories",),
    dict.fromkeys(("MiniLM", "AT-transformer")),
    run,
    KEYS,
    note,
    vector_passes=TEN_PASSES,
)

if __name__ == "__main__":
    EXPERIMENT.main()
