"""The attention forms of the design (dot, general, additive, scaled dot, concat,
multi-head) on the LSTM, AT and ATAE, restaurant categories and terms.

    ASPECTATTN_DATA=../shared/data python -m benchmarks forms_table \\
        [--candidates "AT-LSTM, dot x1" ...] [--data ...] [--seeds 0 1 2 3 4]
    python -m benchmarks forms_table --table

Each run trains as :mod:`benchmarks.attention_lstm` does (Wang et al.'s settings,
GloVe 6B 50-d, the epoch kept by validation accuracy on 10% of the training
sentences) with the form and head count its candidate names, and is appended to
``results/forms.runs.jsonl``; ``--table`` writes ``results/forms.md``. Validation
accuracy is the column to choose by; test accuracy is reported beside it and
chooses nothing.
"""

from __future__ import annotations

from benchmarks.attention_lstm import scored_run
from benchmarks.common import TEN_PASSES
from benchmarks.runner import Experiment

#: Candidate -> (variant, attention score, heads).
CANDIDATES = {
    f"{variant.upper()}-LSTM, {score} x{heads}": (variant, score, heads)
    for variant in ("at", "atae")
    for score, heads in [
        ("additive", 1),
        ("additive", 4),
        ("concat", 1),
        ("dot", 1),
        ("general", 1),
        ("scaled_dot", 1),
    ]
}
DATA = ("restaurant categories", "restaurant terms")
KEYS = [
    ("valid_accuracy", "validation accuracy", 2),
    ("test_accuracy", "test accuracy", 2),
    ("test_macro_f1", "test macro-F1", 2),
    ("disagree_accuracy", "disagreeing pairs", 2),
    ("seconds_per_epoch", "s / epoch", 2),
]
NOTE = (
    "Mean ± std over seeds; the disagreeing pairs over the runs that measured them "
    "(the later ones). Validation: 10% of the training sentences, the epoch's own "
    "selection split; it is the column to choose by. s / epoch: one thread while "
    "other jobs shared the machine."
)


def run(candidate: str, data: str, seed: int) -> dict:
    variant, score, heads = CANDIDATES[candidate]
    attention = {"attention_score": score, "attention_heads": heads}
    record = scored_run(candidate, data, seed, variant, attention=attention)
    return {**record, "encoder": "lstm", **attention}


EXPERIMENT = Experiment(
    "forms",
    DATA,
    CANDIDATES,
    run,
    KEYS,
    NOTE,
    seeds=(0, 1, 2, 3, 4),
    vector_passes=TEN_PASSES,
)

if __name__ == "__main__":
    EXPERIMENT.main()
