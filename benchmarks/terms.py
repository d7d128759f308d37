"""Aspect terms: the term's position, disagreeing terms and target-flip probes.

    ASPECTATTN_DATA=../shared/data python -m benchmarks terms [--seeds 0 1 2] \
        [--data restaurants laptops mams] [--candidates NAME ...]
    python -m benchmarks terms --table

For every data set, model and seed: train on the training pairs minus 10% of their
sentences (held out to choose the epoch, early stopping on validation accuracy),
with the terms' character spans from the data files, then score once on

* the test pairs (MAMS-ATSA: its official validation split; its test labels are not
  distributed here): accuracy and macro-F1;
* the test pairs whose sentence has terms of different polarities, and the share of
  those sentences with every term right;
* target-flip probes made from the test sentences by
  :func:`aspectattn.augment.flip_opinions` (the opinion word nearest to one term
  swapped for its antonym): accuracy on the flipped targets ("label follows the
  target") and on the other terms of the probe sentences ("others stay"); and the
  same on the probes that swap only the antonym pairs the flip augmentation does
  not train on (every second pair of ``OPINION_PAIRS``: "unseen words").

The flip-augmented model (``augment="flip"``) trains on copies of the training
sentences that swap the other half of the pairs, so its "unseen words" column is
the one to compare. The join-augmented ones (``augment="join"``) train on pairs of
training sentences of opposite polarity joined into one ("<a>, but <b>"); MAMS has
no single-polarity sentence to join, so they are not run there.

Nothing is chosen on a test set: the epoch on the validation split; between the
options, the validation accuracy in the result files decides. Runs are appended to
``results/terms.runs.jsonl`` (resumable); ``--table`` writes ``results/terms.md``.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from aspectattn import AspectAttentionClassifier
from aspectattn.augment import OPINION_PAIRS, antonym_map, flip_opinions
from aspectattn.datasets import fetch_mams, fetch_semeval2014, get_data_home
from benchmarks import common
from benchmarks.common import BASE, TEN_PASSES, build, glove, pair_scores
from benchmarks.runner import Experiment, read_runs

# The settings of the aspect-level benchmark (chosen before any test score was seen),
# the epoch chosen on validation accuracy.
# Every row states the estimators' defaults of the time (common.PREVIOUS_DEFAULTS)
# and changes what it names.
PARAMS = {
    **BASE,
    **common.PREVIOUS_DEFAULTS,
    "scoring": "accuracy",
    "aspect_type": "term",
}
MODELS = {
    "ATAE-LSTM (today)": dict(variant="atae"),
    "AT-LSTM": dict(variant="at"),
    "AT-LSTM + linear position weighting": dict(
        variant="at", position_weighting="linear"
    ),
    "AT-LSTM + term states as query": dict(variant="at", term_query="states"),
    "AT-LSTM + linear + term states": dict(
        variant="at", position_weighting="linear", term_query="both"
    ),
    "ATAE-LSTM + linear + marker": dict(
        variant="atae", position_weighting="linear", term_marker=True
    ),
}


# Augmentation trains on half the antonym pairs; probes with the other half show
# whether the model learned to follow the target's opinion word, not the words.
TRAIN_ANTONYMS = antonym_map(OPINION_PAIRS[0::2])
PROBE_ANTONYMS = antonym_map(OPINION_PAIRS[1::2])
MODELS["AT-LSTM + linear + flip augmentation"] = dict(
    variant="at",
    position_weighting="linear",
    augment="flip",
    antonyms=TRAIN_ANTONYMS,
)
# The whole GloVe file's vocabulary (100,000 words): test words the training text
# lacks are read as their vectors instead of as the unknown token.
MODELS["AT-LSTM + linear + GloVe vocabulary"] = dict(
    variant="at", position_weighting="linear", extra_vocabulary=100_000
)
MODELS["AT-LSTM + linear + GloVe vocabulary + flip augmentation"] = dict(
    MODELS["AT-LSTM + linear + flip augmentation"], extra_vocabulary=100_000
)
MODELS["AT-BiLSTM + linear + GloVe vocabulary + flip augmentation"] = dict(
    MODELS["AT-LSTM + linear + GloVe vocabulary + flip augmentation"],
    bidirectional=True,
)
# The transformer encoder of the attention_lstm.py benchmark, with the same options.
TRANSFORMER = dict(encoder="transformer", **common.TRANSFORMER)
MODELS["AT-transformer + linear"] = dict(
    TRANSFORMER, variant="at", position_weighting="linear"
)
MODELS["AT-transformer + linear + GloVe vocabulary + flip augmentation"] = dict(
    MODELS["AT-LSTM + linear + GloVe vocabulary + flip augmentation"], **TRANSFORMER
)
# The fine-tuned MiniLM of attention_lstm.py (its settings; the aspect as the query
# only), and with the term options: its sub-word states as the query.
MINILM = dict(
    encoder="pretrained",
    pretrained_model=str(get_data_home() / "all-MiniLM-L6-v2"),
    **common.PRETRAINED,
)
MODELS["AT-MiniLM"] = dict(MINILM, variant="at")
MODELS["AT-MiniLM + linear + term sub-word states + flip augmentation"] = dict(
    MINILM,
    variant="at",
    position_weighting="linear",
    term_query="both",
    augment="flip",
    antonyms=TRAIN_ANTONYMS,
)
# A learned attention bias per distance from the term instead of the fixed linear one.
MODELS["AT-LSTM + learned position weighting"] = dict(
    variant="at", position_weighting="learned"
)
# h* without the encoder's final state h_N, which every term of a sentence shares.
MODELS["AT-LSTM + linear, without the final state"] = dict(
    variant="at", position_weighting="linear", final_state=False
)
# Sentences whose terms disagree, joined from training sentences of opposite polarity.
MODELS["AT-LSTM + linear + join augmentation"] = dict(
    variant="at", position_weighting="linear", augment="join"
)
MODELS["AT-LSTM + learned + join augmentation"] = dict(
    variant="at", position_weighting="learned", augment="join"
)
# TD-LSTM's reading of the term (the forward state at its end, the backward state at
# its start) in place of h_N, from the one pass every term of the sentence shares.
MODELS["AT-LSTM + linear + term final state"] = dict(
    variant="at", position_weighting="linear", final_state="term"
)
MODELS["AT-BiLSTM + linear + term final state"] = dict(
    MODELS["AT-LSTM + linear + term final state"], bidirectional=True
)
MODELS["AT-LSTM + learned + join + term final state"] = dict(
    MODELS["AT-LSTM + learned + join augmentation"], final_state="term"
)
MODELS["AT-BiLSTM + linear + term final state + GloVe vocabulary + flip"] = dict(
    MODELS["AT-BiLSTM + linear + GloVe vocabulary + flip augmentation"],
    final_state="term",
)
MODELS["AT-transformer + linear + term final state"] = dict(
    MODELS["AT-transformer + linear"], final_state="term"
)
# The estimator's default variant with the term's reading in place of h_N.
MODELS["ATAE-LSTM + term final state"] = dict(variant="atae", final_state="term")
PUBLISHED = {
    "restaurants": "Wang ATAE 77.2; RAM/TNet 78.3-80.8; BERT-SPC 84.46",
    "laptops": "Wang ATAE 68.7; TNet 74.0-76.5; BERT-SPC 78.99",
    "mams": "(test) ATAE 77.05, CapsNet 79.78, BERT 82.22",
}


def frame_pairs(df):
    spans = zip(df.start.tolist(), df.end.tolist(), strict=True)
    X = list(zip(df.text, df.aspect, spans, strict=True))
    return X, df.polarity.tolist()


def load(name):
    if name == "mams":
        train = fetch_mams("term", "train", as_frame=True)
        test = fetch_mams("term", "val", as_frame=True)
    else:
        train = fetch_semeval2014(name, "train", "term", as_frame=True)
        test = fetch_semeval2014(name, "test", "term", as_frame=True)
    return frame_pairs(train), frame_pairs(test)


def probe_scores(clf, X, y, prefix, antonyms=None) -> dict:
    """Accuracy on the flip probes of ``X`` (swapping ``antonyms``): on the flipped
    targets and on the other terms of the probe sentences; and the probe count."""
    X_probe, y_probe, target = flip_opinions(X, y, antonyms=antonyms)
    probe_right = clf.predict(X_probe) == np.asarray(y_probe)
    return {
        f"{prefix}flip_target_accuracy": 100 * probe_right[target].mean(),
        f"{prefix}flip_others_accuracy": 100 * probe_right[~target].mean(),
        f"{prefix}flip_probes": int(target.sum()),
    }


def scores(clf, X, y) -> dict:
    out = pair_scores(clf.predict(X), X, y, "")
    out.update(probe_scores(clf, X, y, ""))
    out.update(probe_scores(clf, X, y, "unseen_", PROBE_ANTONYMS))
    return out


@functools.cache
def _data(name: str):
    return load(name)


def run(candidate: str, data: str, seed: int) -> dict:
    train, test = _data(data)
    start = time.perf_counter()
    clf = build(
        AspectAttentionClassifier,
        embeddings=glove(),
        random_state=seed,
        **{**PARAMS, **MODELS[candidate]},
    ).fit(*train)
    out = {"candidate": candidate, "data": data, "seed": seed, **scores(clf, *test)}
    out["valid_accuracy"] = 100 * clf.history_[clf.best_epoch_ - 1]["valid_acc"]
    out["seconds_per_epoch"] = float(np.median([r["dur"] for r in clf.history_]))
    out["seconds"] = time.perf_counter() - start
    return out


KEYS = [
    ("accuracy", "accuracy", 2),
    ("macro_f1", "macro-F1", 2),
    ("disagree_accuracy", "disagreeing pairs", 2),
    ("disagree_sentences_all_right", "disagreeing sentences all right", 2),
    ("flip_target_accuracy", "flip probes: target", 2),
    ("flip_others_accuracy", "flip probes: others stay", 2),
    ("unseen_flip_target_accuracy", "unseen words: target", 2),
    ("unseen_flip_others_accuracy", "unseen words: others stay", 2),
    ("valid_accuracy", "validation accuracy", 2),
    ("seconds_per_epoch", "s / epoch"),
]
DATA = ("restaurants", "laptops", "mams")
#: A validation-selected grid chooses among the GloVe rows with this many seeds.
MIN_SEEDS = 3


def _grid(rows: list[dict], data: str) -> list[dict]:
    return [
        r
        for r in rows
        if r["data"] == data and r["n"] >= MIN_SEEDS and "MiniLM" not in r["candidate"]
    ]


def choose(rows: list[dict]) -> None:
    """What a validation-selected grid over the GloVe rows would pick on each data
    set: the honest figure to set against the published ones."""
    for data in DATA:
        grid = _grid(rows, data)
        if grid:
            max(grid, key=lambda r: r["valid_accuracy"][0])["chosen"] = True


def note() -> str:
    runs = read_runs(EXPERIMENT.log)
    first = {r["data"]: r for r in reversed(runs)}  # each data set's first run
    sizes = "; ".join(
        f"{d}: {r['disagree_sentences']} sentences, {r['disagree_pairs']} pairs, "
        f"{r['flip_probes']} flip probes"
        + (
            f" of which {r['unseen_flip_probes']} with unseen words"
            if r.get("unseen_flip_probes")
            else ""
        )
        for d, r in sorted(first.items(), key=lambda kv: DATA.index(kv[0]))
    )
    return (
        f"Chosen (bold), per data set: the best validation accuracy among the GloVe "
        f"rows with at least {MIN_SEEDS} seeds (a validation-selected grid). "
        f"Disagreeing = test sentences whose terms carry different polarities "
        f"({sizes}). Published (300-d GloVe or BERT): "
        + "; ".join(f"{k}: {v}" for k, v in PUBLISHED.items())
        + ". Mean ± std over seeds; GloVe 6B 50-d; epoch chosen on 10% of the "
        "training sentences by validation accuracy; MAMS-ATSA scored on its "
        "validation split; runs on 1-2 CPU threads."
    )


EXPERIMENT = Experiment(
    "terms",
    DATA,
    MODELS,
    run,
    KEYS,
    note,
    # every model at seed 0 first
    jobs=[(c, d, s) for s in (0, 1, 2) for d in DATA for c in MODELS],
    choose=choose,
    vector_passes=TEN_PASSES,
)

if __name__ == "__main__":
    EXPERIMENT.main()
