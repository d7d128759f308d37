"""Aspect-level benchmarks: aspects that disagree, joint training, detection.

    ASPECTATTN_DATA=../shared/data python -m benchmarks aspect_level \
        [--candidates ...] [--seeds 0 1 2]
    python -m benchmarks aspect_level --table

For every model and seed: train on the training data minus 10% of its sentences
(held out to choose the epoch, early stopping), then score once:

* SemEval-2014 restaurant categories, test pairs (973): accuracy and macro-F1 on
  all of them, and on the pairs of the sentences whose aspects *disagree* (25
  sentences, 53 pairs), with the share of those sentences that have every aspect
  right;
* MAMS-ACSA (two models): trained on MAMS-ACSA train, scored on MAMS-ACSA val
  (the official validation split; its test labels are not distributed here), a
  corpus built of sentences whose aspects disagree;
* category detection (AspectCategoryClassifier only): micro-F1 of the categories
  found, and of the (category, polarity) pairs found end to end, on the SemEval-2014
  test sentences (sentences with a conflict aspect left out).

Training sets: "sem14" (SemEval-2014 train), "sem14+joined" (plus 1,500 sentences
whose two aspects disagree, joined from single-aspect training sentences of opposite
polarity: :func:`aspectattn.augment.join_opposite`), "sem14+mams" (plus MAMS-ACSA train,
``anecdotes/miscellaneous`` written ``miscellaneous`` as in MAMS, and every MAMS
sentence that also occurs in the SemEval-2014 test set removed).

Nothing is chosen on a test set: the epoch on the 10% validation split; between
settings, the validation accuracy (pair models) or validation loss (detector) in
the result files decides. Each finished run is appended to
``results/aspect_level.runs.jsonl`` so an interrupted run resumes; ``--table``
writes ``results/aspect_level.md`` (and measures the joint training's speed once,
``aspect_level.speed.json``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import time
from pathlib import Path

import numpy as np
import torch

from aspectattn import AspectAttentionClassifier, AspectCategoryClassifier
from aspectattn.augment import join_opposite
from aspectattn.datasets import (
    DATASETS,
    fetch_category_table,
    fetch_mams,
    fetch_semeval2014,
    get_data_home,
)
from aspectattn.estimators.categories import detection_f1, mention_f1
from benchmarks.common import (
    BASE,
    COPIES_ONCE,
    JOINED,
    JOINED_DETECTOR,
    PRETRAINED,
    TEN_PASSES,
    build,
    glove,
    pair_scores,
    previous_defaults,
)
from benchmarks.runner import Experiment

RESULTS = Path(__file__).resolve().parent / "results"
# Wang et al.'s settings (benchmarks.common; chosen before any test score was seen).
PARAMS = BASE
# The rows below were measured with the estimators' defaults of the time, which
# they state; the library's own defaults are the rows of benchmarks/defaults.py.
OLD = previous_defaults(AspectAttentionClassifier)
OLD_DETECTOR = previous_defaults(AspectCategoryClassifier)
# MiniLM fine-tuned end to end, with the fine-tuning settings chosen on validation
# data (benchmarks.common.PRETRAINED); word vectors are not used.
MINILM = dict(
    PRETRAINED,
    encoder="pretrained",
    pretrained_model=str(get_data_home() / "all-MiniLM-L6-v2"),
)
# ... and with the library's defaults alone (the recipe resolved by "auto"), on
# the benchmark's validation split and early stopping.
MINILM_DEFAULTS = {
    **{
        k: v
        for k, v in PARAMS.items()
        if k in ("validation_fraction", "early_stopping")
    },
    "encoder": "pretrained",
    "pretrained_model": MINILM["pretrained_model"],
    **{k: "auto" for k in ("lr", "dropout", "batch_size", "max_epochs", "patience")},
}
MODELS = {
    # name -> (kind, training set, extra parameters); kind "pairs" is scored on
    # SemEval-2014 test pairs, "mams" on MAMS-ACSA val, "detector" on both
    # SemEval-2014 test pairs and test sentences.
    "ATAE-LSTM, per pair": ("pairs", "sem14", dict(OLD, variant="atae")),
    "AT-LSTM, per pair": ("pairs", "sem14", dict(OLD, variant="at", batch_by="pair")),
    "AT-LSTM, joint over a sentence's aspects": (
        "pairs",
        "sem14",
        dict(OLD, variant="at", batch_by="sentence"),
    ),
    "ATAE-LSTM, per pair, +MAMS": ("pairs", "sem14+mams", dict(OLD, variant="atae")),
    "AT-LSTM, joint, +MAMS": (
        "pairs",
        "sem14+mams",
        dict(OLD, variant="at", batch_by="sentence"),
    ),
    "ATAE-LSTM, per pair, +joined": (
        "pairs",
        "sem14+joined",
        dict(OLD, variant="atae"),
    ),
    "AT-LSTM, joint, +joined": (
        "pairs",
        "sem14+joined",
        dict(OLD, variant="at", batch_by="sentence"),
    ),
    "ATAE-LSTM, per pair, MAMS-ACSA": ("mams", "mams_train", dict(OLD, variant="atae")),
    "AT-LSTM, joint, MAMS-ACSA": (
        "mams",
        "mams_train",
        dict(OLD, variant="at", batch_by="sentence"),
    ),
    "Detector (AT-LSTM, all categories)": ("detector", "sem14", OLD_DETECTOR),
    "Detector + CAN regularisers (0.1, 0.1)": (
        "detector",
        "sem14",
        dict(OLD_DETECTOR, sparse_penalty=0.1, orthogonal_penalty=0.1),
    ),
    "Detector, +MAMS": ("detector", "sem14+mams", OLD_DETECTOR),
    # The joined sentences made inside fit (augment="join"): copies never validated
    # and trained only with their sources ("+joined" adds them before fit).
    "AT-LSTM, joint, augment='join' in fit": (
        "pairs",
        "sem14",
        dict(OLD, variant="at", batch_by="sentence", augment="join"),
    ),
    "Detector, augment='join' in fit": (
        "detector",
        "sem14",
        dict(OLD_DETECTOR, augment="join"),
    ),
    # The library's defaults when these rows ran (nothing set but Wang et al.'s
    # training settings): for categories they resolved to AT, joint over a
    # sentence's aspects, joined sentences in fit, and no h_N (which every
    # aspect of a sentence shares, and which pulls them all to the sentence's
    # tone: h* = tanh(W_p r)). The rows pin what has changed since: the joined
    # copies alone (the LSTM's English categories now also flip, the detector's
    # also negate) and the detector's mention weight 1.
    "Defaults": ("pairs", "sem14", JOINED),
    "Detector, defaults": ("detector", "sem14", JOINED_DETECTOR),
    "Defaults, MAMS-ACSA": ("mams", "mams_train", JOINED),
    # SemEval-2015 restaurant categories (entity#attribute), scored on its test set.
    "ATAE-LSTM, per pair, SemEval-15": ("pairs", "sem15", dict(OLD, variant="atae")),
    "Defaults, SemEval-15": ("pairs", "sem15", JOINED),
    # Candidates beside the defaults, compared on validation: a bi-LSTM for
    # categories, and CAN's regularisers re-tuned with the joined copies.
    "Defaults, bidirectional": ("pairs", "sem14", dict(JOINED, bidirectional=True)),
    "Defaults, bidirectional, MAMS-ACSA": (
        "mams",
        "mams_train",
        dict(JOINED, bidirectional=True),
    ),
    "Defaults, bidirectional, SemEval-15": (
        "pairs",
        "sem15",
        dict(JOINED, bidirectional=True),
    ),
    "Detector, defaults, bidirectional": (
        "detector",
        "sem14",
        dict(JOINED_DETECTOR, bidirectional=True),
    ),
    "Detector, defaults + CAN regularisers (0.01, 0.01)": (
        "detector",
        "sem14",
        dict(JOINED_DETECTOR, sparse_penalty=0.01, orthogonal_penalty=0.01),
    ),
    "Detector, defaults + CAN regularisers (0.03, 0.03)": (
        "detector",
        "sem14",
        dict(JOINED_DETECTOR, sparse_penalty=0.03, orthogonal_penalty=0.03),
    ),
    # The pretrained encoder under the defaults: the aspect as the attention query
    # only ("vector") or also as the encoder's second segment ("pair"), and with
    # every parameter at the checkpoint's lr (head_lr=None, the previous default).
    "MiniLM, defaults": ("pairs", "sem14", MINILM),
    # The pretrained detector behind `aspectattn analyze`: the defaults, whose
    # fine-tuning recipe is the pretrained encoder's own since lr etc. are "auto".
    "Detector, MiniLM defaults": ("detector", "sem14", MINILM_DEFAULTS),
    "MiniLM, pair input, defaults": (
        "pairs",
        "sem14",
        dict(MINILM, pretrained_input="pair"),
    ),
    "MiniLM, previous defaults": ("pairs", "sem14", {**MINILM, **OLD, "variant": "at"}),
    "MiniLM, defaults, MAMS-ACSA": ("mams", "mams_train", MINILM),
    "MiniLM, previous defaults, MAMS-ACSA": (
        "mams",
        "mams_train",
        {**MINILM, **OLD, "variant": "at"},
    ),
    "MiniLM, head_lr=None, MAMS-ACSA": (
        "mams",
        "mams_train",
        dict(MINILM, head_lr=None),
    ),
    "MiniLM, pair input, defaults, MAMS-ACSA": (
        "mams",
        "mams_train",
        dict(MINILM, pretrained_input="pair"),
    ),
}
# Joined sentences added by "+joined" (3,000 pairs, about as many as the original
# 3,518): set before any run, not tuned.
N_JOINED = 1500
# Seeds per model: 5, and 3 for the rows that train on MAMS (10k pairs, long
# sentences: 1-3 min a run on this 2-core machine).
SEEDS = {name: 3 if "MAMS" in name else 5 for name in MODELS}
# MiniLM: 5-10 min a run on MAMS on this CPU (2 threads), 3 on SemEval-14.
SEEDS.update({name: 2 for name in MODELS if name.startswith("MiniLM")})
PUBLISHED = {
    "restaurant categories": "CAN multi-task 84.28 (300-d GloVe); ATAE 84.0 (Wang)",
    "disagreeing": "GCAE 50.55, ATAE 45.62 (Xue & Li 2018, 4-way 'hard' set)",
    "detection": "CAN 87.65; AS-Capsules 89.6; BERT-single 90.89",
    "mams": "(test) ATAE 70.63, CapsNet 73.99, BERT 78.29",
}


def misc(aspect: str) -> str:
    return "miscellaneous" if aspect == "anecdotes/miscellaneous" else aspect


def load():
    sem_train = fetch_semeval2014("restaurants", "train", "category")
    sem_test = fetch_semeval2014("restaurants", "test", "category")
    mams_train, mams_val = (
        fetch_mams("category", "train"),
        fetch_mams("category", "val"),
    )
    test_texts = {t for t, _ in sem_test[0]}
    keep = [i for i, (t, _) in enumerate(mams_train[0]) if t not in test_texts]
    mams_clean = ([mams_train[0][i] for i in keep], [mams_train[1][i] for i in keep])
    sem_misc = ([(t, misc(a)) for t, a in sem_train[0]], sem_train[1])
    mixed = (sem_misc[0] + mams_clean[0], sem_misc[1] + mams_clean[1])
    table_train = fetch_category_table("semeval2014", "train")
    table_test = fetch_category_table("semeval2014", "test")
    mams_table = fetch_category_table("mams", "train")
    sem15 = DATASETS["semeval2015-restaurants-category"]
    return {
        "sem15": sem15.load("train"),
        "sem15_test": sem15.load("test"),
        "sem14": sem_train,
        "sem14+mams": mixed,
        "test": sem_test,
        "mams_train": mams_train,
        "mams_val": mams_val,
        "table_train": table_train,
        "table_test": table_test,
        "mams_table": mams_table,
        "mams_removed": len(mams_train[0]) - len(keep),
    }


def mixed_table(data):
    """SemEval-2014 and MAMS-ACSA category tables stacked (MAMS sentences that are
    in the SemEval-2014 test set removed; missing categories not mentioned)."""
    import pandas as pd

    texts, Y = data["table_train"]
    m_texts, m_Y = data["mams_table"]
    test_texts = set(data["table_test"][0])
    keep = [i for i, t in enumerate(m_texts) if t not in test_texts]
    Y = Y.rename(columns={"anecdotes/miscellaneous": "miscellaneous"})
    both = pd.concat([Y, m_Y.iloc[keep]], ignore_index=True).fillna("none")
    return texts + [m_texts[i] for i in keep], both[sorted(both.columns)]


def training_pairs(train, data, seed):
    """The training pairs of ``train``; "+joined" adds N_JOINED sentences whose two
    aspects disagree, joined from single-aspect training sentences (seeded)."""
    if train != "sem14+joined":
        return data[train]
    X, y = data["sem14"]
    X_new, y_new = join_opposite(X, y, N_JOINED, random_state=seed)
    return X + X_new, y + y_new


def run_pairs(extra, train, seed, data, embeddings):
    if extra.get("encoder") != "pretrained":
        extra = dict(extra, embeddings=embeddings)
    clf = build(
        AspectAttentionClassifier,
        random_state=seed,
        aspect_type="category",
        scoring="accuracy",
        **{**PARAMS, **extra},
    )
    clf.fit(*training_pairs(train, data, seed))
    if train == "mams_train":
        X_test, y_test = data["mams_val"]
        prefix = "mams_val_"
    elif train == "sem15":
        X_test, y_test = data["sem15_test"]
        prefix = "sem15_test_"
    else:
        X_test, y_test = data["test"]
        prefix = "test_"
        if train == "sem14+mams":
            X_test = [(t, misc(a)) for t, a in X_test]
    out = pair_scores(clf.predict(X_test), X_test, y_test, prefix)
    out["valid_accuracy"] = 100 * clf.history_[clf.best_epoch_ - 1]["valid_acc"]
    out["seconds_per_epoch"] = float(np.median([r["dur"] for r in clf.history_]))
    return out


def run_detector(extra, train, seed, data, embeddings):
    texts, Y = data["table_train"] if train == "sem14" else mixed_table(data)
    clf = build(
        AspectCategoryClassifier,
        embeddings=embeddings,
        random_state=seed,
        **{**PARAMS, **COPIES_ONCE, **extra},
    ).fit(texts, Y)
    test_texts, Y_test = data["table_test"]
    if train != "sem14":
        Y_test = Y_test.rename(columns={"anecdotes/miscellaneous": "miscellaneous"})
    categories = list(clf.categories_)
    Y_test = Y_test.reindex(columns=categories, fill_value="none")
    predicted = clf.predict(test_texts)
    truth = Y_test.to_numpy()
    detection = detection_f1(truth, predicted)
    X_test, y_test = data["test"]
    if train != "sem14":
        X_test = [(t, misc(a)) for t, a in X_test]
    out = pair_scores(clf.predict_sentiment(X_test), X_test, y_test, "test_")
    out.update(
        detection_micro_f1=100 * detection,
        end_to_end_micro_f1=100 * mention_f1(truth, predicted),
        valid_loss=clf.history_[clf.best_epoch_ - 1]["valid_loss"],
        seconds_per_epoch=float(np.median([r["dur"] for r in clf.history_])),
    )
    return out


def joint_speed(data, embeddings, epochs=4) -> dict:
    """AT-LSTM s/epoch on MAMS-ACSA, median over the epochs after the first:

    * "pair": every pair encoded on its own (the encoder runs once per pair, as
      before joint training existed), shuffled pairs;
    * "pair, shared in batch": shuffled pairs, but pairs of one sentence that land
      in the same batch share its encoder pass (``batch_by="pair"`` today);
    * "sentence": whole sentences, one encoder pass for all their aspects
      (``batch_by="sentence"``, the default for AT).
    """
    from aspectattn.nn.model import AspectAttentionModel

    original = AspectAttentionModel.forward

    def per_pair(module, tokens, lengths, aspect, sentence=None, **kw):
        return original(module, tokens, lengths, aspect, None, **kw)

    out = {}
    for name, batch_by, forward in (
        ("pair", "pair", per_pair),
        ("pair, shared in batch", "pair", original),
        ("sentence", "sentence", original),
    ):
        AspectAttentionModel.forward = forward
        try:
            clf = build(
                AspectAttentionClassifier,
                variant="at",
                embeddings=embeddings,
                random_state=0,
                aspect_type="category",
                batch_by=batch_by,
                **{
                    **PARAMS,
                    "max_epochs": epochs,
                    "validation_fraction": None,
                    "early_stopping": False,
                },
            ).fit(*data["mams_train"])
        finally:
            AspectAttentionModel.forward = original
        out[name] = float(np.median([r["dur"] for r in clf.history_[1:]]))
    out["ratio"] = out["sentence"] / out["pair"]
    return out


KEYS = [
    ("test_accuracy", "SemEval-14 categories: accuracy", 2),
    ("test_macro_f1", "macro-F1", 2),
    ("test_disagree_accuracy", "disagreeing pairs", 2),
    ("test_disagree_sentences_all_right", "disagreeing sentences all right", 2),
    ("mams_val_accuracy", "MAMS-ACSA val accuracy", 2),
    ("sem15_test_accuracy", "SemEval-15 categories: accuracy", 2),
    ("sem15_test_disagree_accuracy", "disagreeing pairs", 2),
    ("detection_micro_f1", "detection micro-F1", 2),
    ("end_to_end_micro_f1", "(category, polarity) micro-F1", 2),
    ("valid_accuracy", "validation accuracy", 2),
    ("valid_loss", "validation loss", 4),
    ("seconds_per_epoch", "s / epoch", 2),
]
SPEED = RESULTS / "aspect_level.speed.json"


@functools.cache
def _data() -> dict:
    return load()


def run(candidate: str, data: str, seed: int) -> dict:
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    kind, train, extra = MODELS[candidate]
    start = time.perf_counter()
    fit = run_detector if kind == "detector" else run_pairs
    scores = fit(extra, train, seed, _data(), glove())
    seconds = time.perf_counter() - start
    return {"candidate": candidate, "data": data, "seed": seed, **scores} | {
        "seconds": seconds
    }


def note(name: str = "aspect_level") -> str:
    """The table's note; ``name``: the record's, whose own speed measurement
    (``<name>.speed.json``) it reports where one was made."""
    data = _data()
    own = RESULTS / f"{name}.speed.json"
    speed_file = own if own.is_file() else SPEED
    speed = json.loads(speed_file.read_text()) if speed_file.is_file() else None
    if speed is None:  # measured once, by the first table
        speed = joint_speed(data, glove())
        SPEED.write_text(json.dumps(speed))
    return "\n".join(
        [
            "Published (300-d GloVe or BERT): "
            + "; ".join(f"{k}: {v}" for k, v in PUBLISHED.items())
            + ".",
            "",
            f"AT-LSTM on MAMS-ACSA ({len(data['mams_train'][0])} pairs), s / epoch: "
            f"every pair encoded {speed['pair']:.2f}; shuffled pairs sharing a "
            f"sentence's pass within a batch {speed['pair, shared in batch']:.2f}; "
            f"joint over each sentence's aspects {speed['sentence']:.2f} "
            f"({speed['ratio']:.2f}x the first).",
            "",
            "Mean ± std over the seeds in the seeds column; GloVe 6B 50-d; epoch "
            "chosen on 10% of the training sentences (validation accuracy for the "
            "pair models, loss for the detectors); the MAMS-ACSA rows train on "
            f"MAMS-ACSA train alone; {data['mams_removed']} MAMS train pairs whose "
            "sentence is in the SemEval-14 test set were removed from '+MAMS'; the "
            "runs on 2 CPU threads.",
        ]
    )


EXPERIMENT = Experiment(
    "aspect_level",
    ("restaurant categories",),
    MODELS,
    run,
    KEYS,
    note,
    jobs=[
        (name, "restaurant categories", seed)
        for name in MODELS
        for seed in range(SEEDS[name])
    ],
    vector_passes=TEN_PASSES,
)


def main() -> None:
    parser = EXPERIMENT.parser(__doc__.splitlines()[0])
    parser.add_argument(
        "--log",
        default=EXPERIMENT.name,
        help="the record (results/LOG.runs.jsonl) and table: the runs of "
        "benchmarks.defaults have their own",
    )
    args = parser.parse_args()
    named = functools.partial(note, args.log)
    dataclasses.replace(EXPERIMENT, name=args.log, note=named).main(args)


if __name__ == "__main__":
    main()
