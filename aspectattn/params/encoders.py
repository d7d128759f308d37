"""Parameters of one encoder each (group = the encoder's name in
:data:`aspectattn.params.ENCODERS`). Adding an encoder: its parameters here, its
entry in ``ENCODERS``, and its module in :mod:`aspectattn.nn.encoders`."""

from __future__ import annotations

import os
from numbers import Integral, Real

from ._constraints import Interval, StrOptions
from ._core import EncoderEntry, Param, destined

#: Name -> encoder. Adding an encoder: its module in :mod:`aspectattn.nn.encoders`,
#: its entry here, and its parameters below (group = its name).
ENCODERS = {
    "lstm": EncoderEntry(
        "aspectattn.nn.encoders.lstm:LSTMEncoder", ("words", "lstm"), "LSTM"
    ),
    "transformer": EncoderEntry(
        "aspectattn.nn.encoders.transformer:TransformerEncoder",
        ("words", "transformer"),
        "transformer",
    ),
    "pretrained": EncoderEntry(
        "aspectattn.nn.encoders.pretrained:PretrainedEncoder",
        ("pretrained",),
        "pretrained",
    ),
}
#: Encoder name -> the parameter groups it reads.
ENCODER_GROUPS = {name: entry.groups for name, entry in ENCODERS.items()}

PARAMS = [
    Param(
        "hidden_size",
        300,
        [Interval(Integral, 1, 100_000, closed="both")],
        "lstm",
        "LSTM size",
        type="int",
        needs=("lstm",),
        doc="""\
LSTM hidden size.""",
    ),
    Param(
        "bidirectional",
        "auto",
        ["boolean", StrOptions({"auto"})],
        "lstm",
        "bidirectional LSTM (auto: for aspect terms)",
        type='bool or "auto"',
        needs=("lstm",),
        doc="""\
Use a bidirectional LSTM (exact on padded batches without packing).
``"auto"``: bidirectional for aspect terms (the backward state at the
term's first token is half of ``final_state="term"``), one direction for
categories; see ``resolved_params_``.""",
    ),
    Param(
        "n_layers",
        2,
        [Interval(Integral, 1, 256, closed="both")],
        "transformer",
        "transformer layers",
        type="int",
        needs=("transformer",),
        doc="""\
Number of transformer layers.""",
    ),
    Param(
        "n_heads",
        4,
        [Interval(Integral, 1, 1024, closed="both")],
        "transformer",
        "transformer heads",
        type="int",
        needs=("transformer",),
        doc="""\
``d_model`` must be divisible by it.""",
    ),
    Param(
        "d_model",
        128,
        [Interval(Integral, 1, 100_000, closed="both")],
        "transformer",
        "transformer width",
        type="int",
        needs=("transformer",),
        doc="""\
Width of the transformer (its states' size ``D``).""",
    ),
    Param(
        "ff_size",
        None,
        [None, Interval(Integral, 1, 1_000_000, closed="both")],
        "transformer",
        "transformer feed-forward size (default 4 * d_model)",
        type="int or None",
        needs=("transformer",),
        doc="""\
Width of the position-wise feed-forward layer (``None``: ``4 * d_model``).""",
    ),
    Param(
        "norm_first",
        True,
        ["boolean"],
        "transformer",
        "pre-norm (True) or post-norm transformer layers",
        type="bool",
        needs=("transformer",),
        doc="""\
Pre-norm (LayerNorm before each sublayer) or post-norm (after the residual).""",
    ),
    Param(
        "positional",
        "sinusoidal",
        [StrOptions({"sinusoidal", "learned"})],
        "transformer",
        "transformer position encodings",
        type='{"sinusoidal", "learned"}',
        needs=("transformer",),
        doc="""\
Fixed sinusoidal encodings (Vaswani et al., 2017), or learned ones for up to
``max_len`` positions (sentences are cut to ``max_len`` tokens first).""",
    ),
    Param(
        "position_merge",
        "add",
        [StrOptions({"add", "concat"})],
        "transformer",
        "add position encodings to the word vectors or concatenate them",
        type='{"add", "concat"}',
        needs=("transformer",),
        doc="""\
Position vectors added to the word vectors, or concatenated to them
(``x_i = [W emb(w_i); pos(i)]``, half of ``d_model`` each).""",
    ),
    Param(
        "transformer_dropout",
        0.1,
        [Interval(Real, 0, 1, closed="left")],
        "transformer",
        "dropout inside the transformer",
        type="float",
        needs=("transformer",),
        doc="""\
Dropout inside the transformer layers (attention and feed-forward).""",
    ),
    Param(
        "pretrained_model",
        None,
        [None, str, os.PathLike],
        "pretrained",
        "local Hugging Face checkpoint directory (with encoder pretrained)",
        type="str, path-like or None",
        needs=("pretrained",),
        doc="""\
With ``encoder="pretrained"``: a local Hugging Face checkpoint directory
(e.g. ``all-MiniLM-L6-v2``), fine-tuned end to end with its own sub-word
tokenizer; ``embeddings`` and the word-level options are then unused. Use a
small ``lr`` (e.g. 5e-5) and ``dropout`` (0.1). Needs ``transformers``. The
fitted model does not need the directory to predict.""",
    ),
    Param(
        "pretrained_input",
        "vector",
        [StrOptions({"vector", "pair"})],
        "pairs",
        "aspect as attention query only, or also as a second segment",
        type='{"vector", "pair"}',
        needs=("pretrained",),
        doc="""\
``"vector"``: the aspect is only the attention query ``v_a`` (one encoder
pass per sentence); ``"pair"``: the aspect is also fed as a second segment,
``[CLS] sentence [SEP] aspect [SEP]``.""",
    ),
]

#: Where each parameter goes that does not say: the model config.
PARAMS = destined(PARAMS, "model")
