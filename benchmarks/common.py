"""What every benchmark shares: where results go, the word vectors, the base settings
(Wang et al.'s where they carry over, chosen before any test score was seen), the
encoder settings chosen on validation data, and the scores of the pairs whose
sentence has aspects that disagree."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from aspectattn import params as P
from aspectattn._slots import SLOTS
from aspectattn.datasets import DATASETS, get_data_home

RESULTS = Path(__file__).resolve().parent / "results"

#: Wang et al. (2016)'s settings where they carry over (hidden 300, dropout 0.5),
#: with Adam; the epoch chosen on 10% of the training sentences (patience 5).
BASE = dict(
    hidden_size=300,
    dropout=0.5,
    embedding_dropout=0.5,
    lr=1e-3,
    batch_size=25,
    max_epochs=30,
    validation_fraction=0.1,
    early_stopping=True,
    patience=5,
)
#: The estimators' defaults before the aspect-level ones (``"auto"``, resolved in
#: ``fit``): the rows measured before them run with these, so that re-running a
#: row measures the same model; the "defaults" rows of benchmarks/defaults.py do
#: not.
PREVIOUS_DEFAULTS = dict(
    variant="atae",
    final_state=True,
    position_weighting="none",
    bidirectional=False,
    augment=None,
    head_lr=None,
)


#: The candidates here name the components' parameters flat, as they were
#: written when their runs were made: name -> (slot, the component's parameter).
#: :func:`build` hands each to the component of its slot, through ``set_params``.
FLAT = {
    **{
        name: ("encoder", name)
        for name in (
            "hidden_size",
            "bidirectional",
            "n_layers",
            "n_heads",
            "d_model",
            "ff_size",
            "norm_first",
            "positional",
            "position_merge",
            "layer_lr_decay",
            "max_len",
            "embeddings",
            "embedding_dim",
            "aspect_size",
            "embedding_dropout",
            "lowercase",
            "min_count",
            "extra_vocabulary",
            "unseen_words",
            "freeze_embeddings",
            "embedding_lr",
        )
    },
    "transformer_dropout": ("encoder", "dropout"),
    "pretrained_model": ("encoder", "path"),
    "pretrained_input": ("encoder", "input"),
    "attention_score": ("attention", "score"),
    "attention_heads": ("attention", "heads"),
    **{
        name: ("attention", name)
        for name in ("final_state", "position_weighting", "position_dropout")
    },
    "term_query": ("attention", "term_query"),
    **{
        name: ("optimizer", name)
        for name in ("weight_decay", "head_lr", "lr_schedule", "gradient_clip")
    },
    "scoring": ("early_stopping", "scoring"),
    "patience": ("early_stopping", "patience"),
}
#: A distilled candidate's settings: :class:`~aspectattn.DistilledClassifier`'s.
TAUGHT = ("teacher", "distill_weight", "distill_temperature")


#: Slot -> the library's slot (what stands for a component, the classes).
_SLOTS = {slot.name: slot for slot in SLOTS}


def takes(estimator, name: str) -> bool:
    """Whether ``estimator`` (a class) has the setting ``name``: a parameter of
    its own, or (flat) one of its components' that it reads."""
    if name not in FLAT:
        return name in estimator._get_param_names()
    slot, param = FLAT[name]
    return param not in getattr(estimator, "_unread", {}).get(slot, ())


def flat_default(name: str):
    """The default of the setting ``name`` (an estimator's or, flat, a
    component's)."""
    if name not in FLAT:
        return P.TABLE[name].default
    slot, param = FLAT[name]
    classes = _SLOTS[slot].classes
    cls = next(c for c in classes if param in c._get_param_names())
    return cls().get_params()[param]


def previous_defaults(estimator) -> dict:
    """:data:`PREVIOUS_DEFAULTS` that ``estimator`` (a class) has as settings
    (its parameters and its components')."""
    return {k: v for k, v in PREVIOUS_DEFAULTS.items() if takes(estimator, k)}


def build(estimator, **settings):
    """``estimator`` (an attention estimator's class) with ``settings``, the
    components' named flat (:data:`FLAT`): each goes to its slot's component
    through ``set_params`` (``encoder__hidden_size``), and one the component
    lacks (the LSTM's size with a transformer) is not used; with a ``teacher``
    (and ``distill_weight``, ``distill_temperature``), a
    :class:`~aspectattn.DistilledClassifier` of it."""
    from aspectattn import DistilledClassifier

    taught = {name: settings.pop(name) for name in TAUGHT if name in settings}
    model = estimator(**{k: v for k, v in settings.items() if k not in FLAT})
    own = model.get_params(deep=False)
    nested = {}
    for name, value in settings.items():
        if name in FLAT:
            slot, param = FLAT[name]
            component = _SLOTS[slot].component(own[slot])  # (None: no component)
            if component is not None and param in component.get_params():
                nested[f"{slot}__{param}"] = value
    model.set_params(**nested)
    if taught.get("teacher") is None:
        return model
    return DistilledClassifier(
        model,
        taught["teacher"],
        weight=taught.get("distill_weight", 0.5),
        temperature=taught.get("distill_temperature", 2.0),
    )


#: The LSTM's attention prior for terms before the rule chose the learned one
#: (``benchmarks/behaviour.py``): the candidates that ran with it pin it, so that
#: they stay what they measured.
LINEAR = {"position_weighting": "linear"}
#: The categories' copies before the rule chose the LSTM's flipped ones (and
#: negated ones for the detector), and the detector's mention weight before
#: ``mention_weight="auto"`` (2): the rows that ran with them pin them.
JOINED = {"augment": "join"}
JOINED_DETECTOR = {**JOINED, "mention_weight": 1.0}
#: The detector's copies counted once in the loss, as before
#: ``copy_weight="auto"`` (2 for the LSTM detector in English): the detector runs
#: made before it pin it, so that they stay what they measured.
COPIES_ONCE = {"copy_weight": 1.0}
#: The LSTM's 20 epochs for aspect terms and the detector, as before
#: ``max_epochs="auto"`` gave them 30 (``benchmarks/lstm_training.py``): the
#: LSTM runs made before it pin it, so that they stay what they measured (the
#: pair classifier's categories train 20 either way).
TWENTY_EPOCHS = {"max_epochs": 20}
#: The passes of the estimators' own word vectors before
#: ``benchmarks/own_vectors.py`` chose 30 (``aspectattn.params.VECTOR_PASSES``):
#: the experiments whose runs were made before pin them (``Experiment``'s
#: ``vector_passes``), so that they stay what they measured.
TEN_PASSES = 10


def same_sentence(text: str) -> str:
    """``text`` as compared with the sentences to leave out: the same sentence
    reappears in these data sets with other punctuation, spacing or case (a
    SemEval-2014 test sentence ends in "..." in MAMS's copy and "." in its own)."""
    return re.sub(r"\W+", "", text.casefold())


# Transformer shape chosen on validation data (select_config.py): one layer scored
# 77.8 against 77.5 for two (ATAE, restaurant categories).
TRANSFORMER = dict(n_layers=1, n_heads=4, d_model=128)
# Fine-tuning a pretrained checkpoint: BERT's usual batch 24 (Sun et al. 2019), lr
# and epochs chosen on validation data by select_config.py (lr 5e-5 over 2e-5 and
# 3e-5; every run was still improving at epoch 4).
PRETRAINED = dict(lr=5e-5, dropout=0.1, batch_size=24, max_epochs=4, patience=2)


def glove() -> str:
    """GloVe 6B 50-d (100k words) in the data home."""
    return str(get_data_home() / "glove" / "glove.6B.50d.100k.txt.gz")


def load(name: str, split: str):
    """``(X, y)`` of a registered data set (:data:`aspectattn.datasets.DATASETS`)."""
    return DATASETS[name].load(split)


def disagreeing(X, y) -> np.ndarray:
    """Mask of the pairs whose sentence has aspects of different polarities
    (pairs or (text, term, span) triples)."""
    polarities = defaultdict(set)
    for (text, *_), label in zip(X, y, strict=True):
        polarities[text].add(label)
    return np.array([len(polarities[t]) > 1 for t, *_ in X])


def pair_scores(predicted, X, y, prefix: str = "") -> dict:
    """Accuracy and macro-F1 of all pairs; accuracy on the disagreeing pairs and the
    share of disagreeing sentences with every aspect right (in %)."""
    from sklearn.metrics import accuracy_score, f1_score

    y = np.asarray(y)
    hard = disagreeing(X, y)
    right = predicted == y
    by_sentence = defaultdict(list)
    for (text, *_), ok, h in zip(X, right, hard, strict=True):
        if h:
            by_sentence[text].append(ok)
    return {
        f"{prefix}accuracy": 100 * accuracy_score(y, predicted),
        f"{prefix}macro_f1": 100 * f1_score(y, predicted, average="macro"),
        f"{prefix}disagree_accuracy": 100 * right[hard].mean(),
        f"{prefix}disagree_sentences_all_right": 100
        * np.mean([all(v) for v in by_sentence.values()]),
        f"{prefix}disagree_pairs": int(hard.sum()),
        f"{prefix}disagree_sentences": len(by_sentence),
    }
