"""Parameters of one encoder each (group = the encoder's name in
:data:`aspectattn.params.ENCODERS`). Adding an encoder: its parameters here, its
entry in ``ENCODERS``, and its module in :mod:`aspectattn.nn.encoders`."""

from __future__ import annotations

import os
from numbers import Integral, Real

from ._constraints import Interval, StrOptions
from ._core import SCRATCH_RECIPE, EncoderEntry, Param, Recipe, destined

#: Name -> encoder. Adding an encoder: its module in :mod:`aspectattn.nn.encoders`,
#: its entry here (with its recipe), and its parameters below (group = its name).
ENCODERS = {
    "lstm": EncoderEntry(
        "aspectattn.nn.encoders.lstm:LSTMEncoder",
        ("words", "lstm"),
        "LSTM",
        # flipped, joined and negated copies of English terms and a position
        # prior learned per distance from the term: chosen on validation by
        # accuracy, then robustness, with its own word vectors; for English
        # categories flipped and joined copies (the pair classifier) and
        # flipped, joined and negated ones with the mentioned cells weighted 2
        # (the detector), by the same rule (benchmarks/behaviour.py
        # --category-pairs, --detector); the detector's English copies
        # counted twice in the loss by the same rule (benchmarks/copy_weight.py
        # --detector; the term copies' weight stays 1 by it)
        Recipe(
            SCRATCH_RECIPE.training,
            term_copies="flip+join+negate",
            category_copies="flip+join",
            detector_copies="flip+join+negate",
            mention_weight=2.0,
            detector_copy_weight=2.0,
            term_position="learned",
        ),
    ),
    "transformer": EncoderEntry(
        "aspectattn.nn.encoders.transformer:TransformerEncoder",
        ("words", "transformer"),
        "transformer",
        SCRATCH_RECIPE,  # its copies, mention weight and prior were not measured
    ),
    "pretrained": EncoderEntry(
        "aspectattn.nn.encoders.pretrained:PretrainedEncoder",
        ("pretrained",),
        "pretrained",
        # A checkpoint fine-tuned end to end, BERT's recipe: a small rate with
        # warm-up and linear decay, batches of 24, a few epochs (the rate, epochs
        # and schedule chosen on validation, benchmarks/pretrained.py); the
        # aspect vectors, attention and classifier at 1e-3 (MiniLM, MAMS-ACSA
        # validation: 67.1 -> 74.0 at seed 0); for English terms the copies as
        # the LSTM's, the term also as a second segment (chosen on validation by
        # accuracy, then robustness, benchmarks/behaviour.py); bfloat16 where
        # the device computes it; the detector's mention weight not measured (1).
        Recipe(
            dict(
                freeze_embeddings=True,
                lr=5e-5,
                batch_size=24,
                max_epochs=4,
                patience=2,
                dropout=0.1,
                lr_schedule="linear",
            ),
            head_lr=1e-3,
            term_copies="flip+join+negate",
            term_input="pair",
            bfloat16=True,
        ),
    ),
}
#: Encoder name -> the parameter groups it reads.
ENCODER_GROUPS = {name: entry.groups for name, entry in ENCODERS.items()}

#: ``hidden_size="auto"`` in the attention estimators: Wang et al.'s LSTM size
#: (the aspect term extractor's tagger has its own, 100:
#: :data:`aspectattn.extraction.extractor.TAGGER_LSTM_SIZE`).
LSTM_SIZE = 300

PARAMS = [
    Param(
        "hidden_size",
        "auto",
        [StrOptions({"auto"}), Interval(Integral, 1, 100_000, closed="both")],
        "lstm",
        f"LSTM size (auto: {LSTM_SIZE}; the extractor's tagger 100)",
        type='int or "auto"',
        needs=("lstm",),
    ),
    Param(
        "bidirectional",
        "auto",
        ["boolean", StrOptions({"auto"})],
        "lstm",
        "bidirectional LSTM (auto: for aspect terms)",
        type='bool or "auto"',
        needs=("lstm",),
    ),
    Param(
        "n_layers",
        2,
        [Interval(Integral, 1, 256, closed="both")],
        "transformer",
        "transformer layers",
        type="int",
        needs=("transformer",),
    ),
    Param(
        "n_heads",
        4,
        [Interval(Integral, 1, 1024, closed="both")],
        "transformer",
        "transformer heads",
        type="int",
        needs=("transformer",),
    ),
    Param(
        "d_model",
        128,
        [Interval(Integral, 1, 100_000, closed="both")],
        "transformer",
        "transformer width",
        type="int",
        needs=("transformer",),
    ),
    Param(
        "ff_size",
        None,
        [None, Interval(Integral, 1, 1_000_000, closed="both")],
        "transformer",
        "transformer feed-forward size (default 4 * d_model)",
        type="int or None",
        needs=("transformer",),
    ),
    Param(
        "norm_first",
        True,
        ["boolean"],
        "transformer",
        "pre-norm (True) or post-norm transformer layers",
        type="bool",
        needs=("transformer",),
    ),
    Param(
        "positional",
        "sinusoidal",
        [StrOptions({"sinusoidal", "learned"})],
        "transformer",
        "transformer position encodings",
        type='{"sinusoidal", "learned"}',
        needs=("transformer",),
    ),
    Param(
        "position_merge",
        "add",
        [StrOptions({"add", "concat"})],
        "transformer",
        "add position encodings to the word vectors or concatenate them",
        type='{"add", "concat"}',
        needs=("transformer",),
    ),
    Param(
        "transformer_dropout",
        0.1,
        [Interval(Real, 0, 1, closed="left")],
        "transformer",
        "dropout inside the transformer",
        type="float",
        needs=("transformer",),
    ),
    Param(
        "pretrained_model",
        None,
        [None, str, os.PathLike],
        "pretrained",
        "local Hugging Face checkpoint directory (with encoder pretrained)",
        type="str, path-like or None",
        needs=("pretrained",),
    ),
    Param(
        "pretrained_input",
        "auto",
        [StrOptions({"auto", "vector", "pair"})],
        "pairs",
        "aspect as attention query only, or also as a second segment (auto: "
        "pair for terms, vector for categories)",
        type='{"auto", "vector", "pair"}',
        needs=("pretrained",),
    ),
]

#: Where each parameter goes that does not say: the model config.
PARAMS = destined(PARAMS, "model")
