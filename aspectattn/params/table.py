"""The estimators' parameter table: each parameter of
:class:`~aspectattn.AspectAttentionClassifier` and
:class:`~aspectattn.AspectCategoryClassifier` once, in documentation order --
those of the model (the variant and aspects, the component slots, the
language, the aspect-term options, the copies), then those of training and
prediction, the pair classifier's input and the detector's own. The components'
parameters are the components' (:mod:`aspectattn.encoders`,
:mod:`aspectattn.attention`, :mod:`aspectattn.training`)."""

from __future__ import annotations

import os
from numbers import Integral, Real

import numpy as np

from ..text.languages import LANGUAGE_CODE
from ._constraints import Interval, Matching, StrOptions
from ._core import (
    ATTENTION_SCORES,
    AUGMENTATIONS,
    DEVICE_DESCRIPTION,
    DEVICE_RE,
    OPTIMIZERS,
    QUANTIZE_OPTIONS,
    VARIANTS,
    Param,
    destined,
)
from .recipes import ENCODERS

#: The model's parameters (where one does not say: the model config).
MODEL = destined(
    [
        Param(
            "variant",
            "at",
            [StrOptions(set(VARIANTS))],
            "pairs",
            "AT: aspect as attention query; AE: aspect with every word; ATAE: both",
            type='{"atae", "at", "ae"}',
            needs=(),
        ),
        Param(
            "aspect_type",
            "auto",
            [StrOptions({"auto", "category", "term"})],
            "pairs",
            "aspect categories, terms found in the text, or auto",
            type='{"auto", "category", "term"}',
            needs=(),
            goes="estimator",
        ),
        Param(
            "encoder",
            "lstm",
            [StrOptions(set(ENCODERS))],
            "model",
            "sentence encoder under the aspect attention",
            type='encoder or {"lstm", "transformer", "pretrained"}',
            needs=(),
        ),
        Param(
            "attention",
            "additive",
            [StrOptions(set(ATTENTION_SCORES))],
            "model",
            "how the aspect vector scores the encoder states",
            type='AspectAttention or {"additive", "dot", "general", "scaled_dot", '
            '"concat"}',
            needs=(),
        ),
        Param(
            "dropout",
            "auto",
            [StrOptions({"auto"}), Interval(Real, 0, 1, closed="left")],
            "model",
            "dropout before the classifier (auto: 0.5, or 0.1 pretrained)",
            type='float or "auto"',
            needs=(),
        ),
        Param(
            "language",
            "auto",
            [
                None,
                StrOptions({"auto"}),
                Matching(LANGUAGE_CODE, ("en", "fr", "ru", "tr"), "an ISO 639 code"),
            ],
            "words",
            "language of the text: an ISO 639 code, none, or auto",
            type='str, "auto" or None',
            needs=("words",),
        ),
        Param(
            "term_marker",
            False,
            ["boolean"],
            "terms",
            "aspect terms: flag the term's tokens in the encoder input",
            type="bool",
            needs=("words", "terms"),
        ),
        Param(
            "augment",
            "auto",
            [None, StrOptions({*AUGMENTATIONS, "auto"})],
            "model",
            "also train on sentences joined from two of opposite polarity (join), or "
            "on copies with their opinion flipped (flip) or negated (negate): for a "
            "term the opinion next to it, for categories a sentence of one tone",
            type="str or None",
            needs=(),
            goes="estimator",
        ),
        Param(
            "copy_weight",
            "auto",
            [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
            "model",
            "the loss weight of each copy augment makes, a share of its sources' "
            "weight (auto: 2 for the LSTM detector's English copies, else 1)",
            type='float or "auto"',
            needs=(),
            goes="estimator",
        ),
        Param(
            "antonyms",
            None,
            [None, dict],
            "terms",
            "the word -> antonym map of augment='flip'",
            type="dict or None",
            needs=(),
            goes="estimator",
        ),
    ],
    "model",
)
#: Those of training and prediction (where one does not say: the training
#: config).
TRAINING = destined(
    [
        Param(
            "optimizer",
            "adam",
            [StrOptions(set(OPTIMIZERS))],
            "training",
            "optimizer",
            type='{"adam", "adamw", "adagrad", "sgd"}',
            needs=(),
        ),
        Param(
            "lr",
            "auto",
            [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
            "training",
            "learning rate (auto: 1e-3, or 5e-5 to fine-tune a pretrained encoder)",
            type='float or "auto"',
            needs=(),
        ),
        Param(
            "batch_size",
            "auto",
            [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
            "training",
            "pairs per batch (auto: 32, or 24 for a pretrained encoder)",
            type='int or "auto"',
            needs=(),
        ),
        Param(
            "batch_by",
            "auto",
            [StrOptions({"auto", "sentence", "pair"})],
            "pairs",
            "train on whole sentences (all aspects at once) or on shuffled pairs",
            type='{"auto", "sentence", "pair"}',
            needs=(),
        ),
        Param(
            "max_epochs",
            "auto",
            [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
            "training",
            "training epochs (most; auto: 20, 30 for the LSTM's aspect terms and "
            "detector, or 4 for a pretrained encoder)",
            type='int or "auto"',
            needs=(),
        ),
        Param(
            "precision",
            "auto",
            [StrOptions({"auto", "float32", "bfloat16"})],
            "training",
            "training arithmetic (auto: bfloat16 for a pretrained encoder where fast)",
            type='{"auto", "float32", "bfloat16"}',
            needs=(),
        ),
        Param(
            "class_weight",
            None,
            [None, StrOptions({"balanced"}), dict],
            "pairs",
            "loss weights per class",
            type='"balanced", dict or None',
            needs=(),
        ),
        Param(
            "validation_fraction",
            None,
            [None, Interval(Real, 0, 1, closed="neither")],
            "training",
            "held-out share of sentences",
            type="float or None",
            needs=(),
        ),
        Param(
            "early_stopping",
            False,
            ["boolean"],
            "training",
            "stop when validation stalls and keep the best epoch",
            type="bool",
            needs=(),
        ),
        Param(
            "checkpoint_dir",
            None,
            [None, str, os.PathLike],
            "training",
            "resumable checkpoint folder",
            type="str, path-like or None",
            needs=(),
        ),
        Param(
            "text_column",
            "text",
            [str],
            "pairs",
            "column with the sentence",
            type="str",
            needs=(),
            goes="estimator",
        ),
        Param(
            "aspect_column",
            "aspect",
            [str],
            "pairs",
            "column with the aspect",
            type="str",
            needs=(),
            goes="estimator",
        ),
        Param(
            "random_state",
            None,
            [
                None,
                Interval(Integral, 0, 2**32 - 1, closed="both"),
                np.random.RandomState,
                np.random.Generator,
            ],
            "training",
            "random seed",
            type="int, RandomState, Generator or None",
            needs=(),
            goes="estimator",
        ),
        Param(
            "device",
            "auto",
            [Matching(DEVICE_RE, ("auto", "cpu", "cuda", "mps"), DEVICE_DESCRIPTION)],
            "training",
            "torch device",
            type="str",
            needs=(),
            goes="estimator",
        ),
        Param(
            "quantize",
            None,
            [None, StrOptions(set(QUANTIZE_OPTIONS))],
            "training",
            "predict with int8 linear layers (CPU) or a bfloat16 encoder",
            type='{None, "int8", "bfloat16"}',
            needs=(),
            goes="estimator",
        ),
        Param(
            "verbose",
            0,
            [Interval(Integral, 0, None, closed="left")],
            "training",
            "1: a line per epoch",
            type="int",
            needs=(),
        ),
        Param(
            "not_mentioned",
            "none",
            [str],
            "categories",
            "the label of a category a text does not mention",
            type="str",
            needs=(),
            goes="estimator",
        ),
        Param(
            "sparse_penalty",
            0.0,
            [Interval(Real, 0, None, closed="left")],
            "categories",
            "CAN's sparse attention regulariser",
            type="float",
            needs=(),
        ),
        Param(
            "orthogonal_penalty",
            0.0,
            [Interval(Real, 0, None, closed="left")],
            "categories",
            "CAN's orthogonal attention regulariser",
            type="float",
            needs=(),
        ),
        Param(
            "mention_weight",
            "auto",
            [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
            "categories",
            "loss weight of mentioned cells (auto: 2 with the LSTM, else 1)",
            type='float or "auto"',
            needs=(),
        ),
    ],
    "training",
)
#: The table, in documentation order.
PARAMS = [*MODEL, *TRAINING]
