"""Parameters of training and prediction, of the pair classifier's input, and the
detector's own."""

from __future__ import annotations

import os
from numbers import Integral, Real

import numpy as np

from ._constraints import HasMethods, Interval, Matching, StrOptions
from ._core import (
    DEVICE_RE,
    OPTIMIZERS,
    QUANTIZE_OPTIONS,
    Param,
    destined,
)

PARAMS = [
    Param(
        "optimizer",
        "adam",
        [StrOptions(set(OPTIMIZERS))],
        "training",
        "optimizer",
        type='{"adam", "adamw", "adagrad", "sgd"}',
        needs=(),
        doc="""\
``"sgd"`` uses momentum 0.9.""",
    ),
    Param(
        "lr",
        "auto",
        [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "training",
        "learning rate (auto: 1e-3, or 5e-5 to fine-tune a pretrained encoder)",
        type='float or "auto"',
        needs=(),
        doc="""\
Learning rate. ``"auto"``: ``1e-3`` for the encoders trained from scratch,
``5e-5`` for ``encoder="pretrained"`` (fine-tuning a checkpoint: chosen on
validation among 2e-5, 3e-5 and 5e-5); see ``resolved_params_``.""",
    ),
    Param(
        "weight_decay",
        0.0,
        [Interval(Real, 0, None, closed="left")],
        "training",
        "weight decay (never on word vectors)",
        type="float",
        needs=(),
        doc="""\
L2 penalty on all weights except the word vectors.""",
    ),
    Param(
        "batch_size",
        "auto",
        [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "training",
        "pairs per batch (auto: 32, or 24 for a pretrained encoder)",
        type='int or "auto"',
        needs=(),
        doc="""\
Pairs per training batch. ``"auto"``: 32, or BERT's usual 24 with
``encoder="pretrained"``.""",
    ),
    Param(
        "batch_by",
        "auto",
        [StrOptions({"auto", "sentence", "pair"})],
        "pairs",
        "train on whole sentences (all aspects at once) or on shuffled pairs",
        type='{"auto", "sentence", "pair"}',
        needs=(),
        doc="""\
``"sentence"``: training batches hold whole sentences with all their
aspects, and the encoder runs once per sentence for all of them (joint
training over the aspects of a sentence; same loss as per pair).
``"pair"``: pairs are shuffled independently. ``"auto"``: ``"sentence"``
when the encoder does not see the aspect (``variant="at"`` with any
encoder but ``pretrained_input="pair"``), else ``"pair"``. Prediction
always encodes each distinct sentence once when the encoder allows it.""",
    ),
    Param(
        "max_epochs",
        "auto",
        [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "training",
        "training epochs (most; auto: 20, or 4 for a pretrained encoder)",
        type='int or "auto"',
        needs=(),
        doc="""\
Most training epochs (fewer with ``early_stopping``). ``"auto"``: 20, or
:data:`~aspectattn.params.PRETRAINED_TRAINING`'s with ``encoder="pretrained"``
(with ``lr_schedule="linear"`` the rate reaches 0 at the last one).""",
    ),
    Param(
        "lr_schedule",
        "auto",
        [StrOptions({"auto", "constant", "linear"})],
        "training",
        "learning-rate schedule (auto: linear for a pretrained encoder)",
        type='{"auto", "constant", "linear"}',
        needs=(),
        doc="""\
``"constant"``: every batch at its group's rate. ``"linear"``: BERT's
fine-tuning schedule -- the rates rise from 0 over the first 10% of the
training steps, then fall linearly to 0 at the end of ``max_epochs``
(:class:`aspectattn.engine.callbacks.WarmupLinearDecay`, per batch).
``"auto"``: ``"linear"`` with ``encoder="pretrained"``, else
``"constant"``.""",
    ),
    Param(
        "layer_lr_decay",
        1.0,
        [Interval(Real, 0, 1, closed="right")],
        "training",
        "layer-wise rate decay of a pretrained encoder (1: none)",
        type="float",
        needs=("pretrained",),
        doc="""\
With ``encoder="pretrained"``: each layer of the checkpoint trains at
``decay`` times the rate of the layer above it (the top layer at ``lr``,
the embeddings at ``lr * decay ** n_layers``), so the general lower layers
move least. 1 gives every layer ``lr``.""",
    ),
    Param(
        "precision",
        "auto",
        [StrOptions({"auto", "float32", "bfloat16"})],
        "training",
        "training arithmetic (auto: bfloat16 for a pretrained encoder where fast)",
        type='{"auto", "float32", "bfloat16"}',
        needs=(),
        doc="""\
``"bfloat16"`` trains under ``torch.autocast`` (mixed precision: matrix
products in bfloat16, weights, optimizer and loss in float32); prediction
and saved weights stay float32. ``"auto"``: ``"bfloat16"`` with
``encoder="pretrained"`` on a device that computes it natively (a CUDA GPU
with bfloat16, a CPU with AVX-512 BF16 or AMX: 2.5x faster steps), else
``"float32"``; see ``resolved_params_``.""",
    ),
    Param(
        "gradient_clip",
        None,
        [None, Interval(Real, 0, None, closed="neither")],
        "training",
        "clip the gradient norm",
        type="float or None",
        needs=(),
        doc="""\
Clip the gradient norm to this value.""",
    ),
    Param(
        "class_weight",
        None,
        [None, StrOptions({"balanced"}), dict],
        "pairs",
        "loss weights per class",
        type='"balanced", dict or None',
        needs=(),
        doc="""\
Weights of the classes in the loss, as in scikit-learn.""",
    ),
    Param(
        "teacher",
        None,
        [None, HasMethods(["fit", "predict_proba"])],
        "distillation",
        "a stronger estimator whose probabilities the model also learns from",
        type="estimator or None",
        needs=(),
        goes="estimator",
        doc="""\
Knowledge distillation (Hinton et al., 2015): a classifier of the same
input (``(text, aspect)`` pairs; the detector's: texts, with
``predict_proba`` per category and ``categories_``), e.g. the same estimator
with ``encoder="pretrained"``, whose probabilities the model learns from
besides the labels. A fitted teacher is used as it is (wrap it in
:class:`sklearn.frozen.FrozenEstimator` to keep it fitted through ``clone``
and ``GridSearchCV``); an unfitted one is cloned and fitted on the pairs of
the training side of the validation split, so validation scores stay those
of data neither model trained on. It labels every training pair, the copies
``augment`` makes and the unlabelled pairs (label ``-1``, or ``None``; the
detector's: a row of ``Y`` that is ``-1`` in every column, where ``-1`` is
no label of other rows); its classes
(and categories) must be the labels'. Its own parameters are
``teacher__*``. The teacher is not kept: the fitted model, its files and
pickles hold the student alone (``teacher=None`` once saved). Now
:class:`~aspectattn.DistilledClassifier`'s ``teacher``.""",
    ),
    Param(
        "distill_weight",
        0.5,
        [Interval(Real, 0, 1, closed="both")],
        "distillation",
        "share of the teacher's probabilities in the loss of a labelled pair",
        type="float",
        needs=("teacher",),
        doc="""\
With a ``teacher``, the loss of a labelled pair (the detector's: cell) is
``(1 - distill_weight)`` times the cross-entropy with its label plus
``distill_weight`` times ``distill_temperature**2`` times the KL divergence
from the teacher's softened probabilities to the model's; an unlabelled
pair has the second term alone.""",
    ),
    Param(
        "distill_temperature",
        2.0,
        # (below 0.1 the softened teacher is one-hot and the loss's T**-1 logits
        # overflow; above 100 its T**2 factor does)
        [Interval(Real, 0.1, 100, closed="both")],
        "distillation",
        "softening of the teacher's and the model's probabilities",
        type="float",
        needs=("teacher",),
        doc="""\
Both distributions are softened to ``p ** (1 / T)`` (renormalised; the
model's: its logits divided by ``T``), so the teacher's ranking of the
wrong classes reaches the model too. From 0.1 to 100 (Hinton et al. use 1 to 20).""",
    ),
    Param(
        "validation_fraction",
        None,
        [None, Interval(Real, 0, 1, closed="neither")],
        "training",
        "held-out share of sentences",
        type="float or None",
        needs=(),
        doc="""\
Share of the training *sentences* held out for validation (all aspects of a
sentence go to the same side, so validation scores are not inflated by
sentences seen in training). ``None`` trains on everything. Validation loss,
accuracy and macro-F1 per epoch are recorded in ``history_``.""",
    ),
    Param(
        "early_stopping",
        False,
        ["boolean"],
        "training",
        "stop when validation stalls and keep the best epoch",
        type="bool",
        needs=(),
        doc="""\
Stop when the validation ``scoring`` has not improved for ``patience``
epochs and restore the weights of the best epoch. (Interrupting training
with Ctrl-C also keeps the best epoch's weights.) Needs
``validation_fraction``.""",
    ),
    Param(
        "scoring",
        "loss",
        [StrOptions({"loss", "accuracy", "f1_macro"})],
        "pairs",
        "validation score that selects the epoch",
        type='{"loss", "accuracy", "f1_macro"}',
        needs=(),
        doc="""\
Validation metric that selects the best epoch.""",
    ),
    Param(
        "patience",
        "auto",
        [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "training",
        "epochs without improvement before stopping (auto: 5, or 2 pretrained)",
        type='int or "auto"',
        needs=(),
        doc="""\
Epochs without improvement of the validation score before stopping.
``"auto"``: 5, or 2 with ``encoder="pretrained"``.""",
    ),
    Param(
        "checkpoint_dir",
        None,
        [None, str, os.PathLike],
        "training",
        "resumable checkpoint folder",
        type="str, path-like or None",
        needs=(),
        doc="""\
Write a checkpoint after every epoch into this folder (one file per run,
named by a fingerprint of the hyperparameters and the data). A ``fit`` with
the same hyperparameters and data resumes from it, continuing exactly where
the interrupted run stopped (same weights, optimizer state, history and
random states); after a completed run it returns the finished model at once.
Delete the file to train afresh.""",
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
        doc="""\
Column names when ``X`` is a DataFrame.""",
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
        doc="""\
Column names when ``X`` is a DataFrame.""",
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
        doc="""\
Seeds initialisation, shuffling, dropout, word-vector training and the
validation split. Global RNGs of the caller are left untouched.""",
    ),
    Param(
        "device",
        "auto",
        [
            Matching(
                DEVICE_RE,
                ("auto", "cpu", "cuda", "mps"),
                "'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'",
            )
        ],
        "training",
        "torch device",
        type="str",
        needs=(),
        goes="estimator",
        doc="""\
``"auto"`` uses CUDA when available, else the CPU; or a torch device string.""",
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
        doc="""\
``"int8"`` predicts with int8 weights in the encoder's linear layers
(dynamic quantisation, on the CPU whatever ``device`` says); ``"bfloat16"``
runs the encoder under bfloat16 autocast on ``device`` (fast where the
device computes bfloat16 natively: a recent GPU, a CPU with AVX-512 BF16 or
AMX). Training and the saved weights stay float32, so either can also be
set on a fitted or loaded model. Pays with ``encoder="pretrained"`` (the
README gives the speed and accuracy change); the LSTM encoder is left as it
is by ``"int8"``. See :mod:`aspectattn.engine.quantization`.""",
    ),
    Param(
        "verbose",
        0,
        [Interval(Integral, 0, None, closed="left")],
        "training",
        "1: a line per epoch",
        type="int",
        needs=(),
        doc="""\
1 prints a line per epoch (loss, validation scores, time).""",
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
        doc="""\
The value of ``Y`` for a category a text does not talk about (missing cells,
None/NaN and empty strings count as not mentioned too).""",
    ),
    Param(
        "sparse_penalty",
        0.0,
        [Interval(Real, 0, None, closed="left")],
        "categories",
        "CAN's sparse attention regulariser",
        type="float",
        needs=(),
        doc="""\
CAN's attention regularisers over the categories a sentence mentions
(:class:`MultiOutputLoss`).""",
    ),
    Param(
        "orthogonal_penalty",
        0.0,
        [Interval(Real, 0, None, closed="left")],
        "categories",
        "CAN's orthogonal attention regulariser",
        type="float",
        needs=(),
        doc="""\
CAN's attention regularisers over the categories a sentence mentions
(:class:`MultiOutputLoss`).""",
    ),
    Param(
        "mention_weight",
        1.0,
        [Interval(Real, 0, None, closed="neither")],
        "categories",
        "loss weight of mentioned cells",
        type="float",
        needs=(),
        doc="""\
Loss weight of the cells that are mentioned, relative to the "not
mentioned" cells (most cells are not mentioned).""",
    ),
]

#: Where each parameter goes that does not say: the training config.
PARAMS = destined(PARAMS, "training")
