"""The one parameter table of the attention estimators.

Every parameter of :class:`~aspectattn.AspectAttentionClassifier` and
:class:`~aspectattn.AspectCategoryClassifier` is one :class:`Param` of
:data:`PARAMS`: its default, its constraints, its group, a one-line help and its
docstring entry. From the table come

* each estimator's ``__init__`` (generated, as :mod:`dataclasses` does, with an
  explicit keyword-only signature that scikit-learn reads) and its
  ``_parameter_constraints`` (:func:`init_for`, :func:`constraints`);
* the Parameters section of both docstrings (:func:`parameters_doc`), the
  ``--help`` strings of the command line (:func:`cli_help`) and the README's
  parameter table (checked by a test);
* the warnings for parameters that the other settings leave unused
  (:func:`unused`), and the configs that building and training take whole
  (:class:`ModelConfig`, :class:`TrainingConfig`): nothing below the estimators
  reads the estimator.

A group names who has a parameter (``"pairs"`` and ``"terms"``: the pair
classifier only; ``"categories"``: the detector only; the rest: both) and who
uses it (an encoder's own group; ``"words"``: encoders that read word vectors).
Adding an encoder: its entry in :data:`ENCODER_GROUPS` and its parameters here
(group = its name), and one file in :mod:`aspectattn.nn.encoders`.

This module imports neither torch nor gensim, so the command line starts fast.
"""

from __future__ import annotations

import os
import re
import textwrap
import warnings
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ._validation import InstanceOf, Interval, Options
from .exceptions import AspectAttnWarning

__all__ = [
    "Param",
    "PARAMS",
    "ENCODER_GROUPS",
    "ModelConfig",
    "TrainingConfig",
    "constraints",
    "init_for",
    "parameters_doc",
    "cli_help",
    "unused",
    "warn_unused",
]

# ------------------------------------------------------------------ option values
#: Values of ``variant`` (Wang et al., 2016).
VARIANTS = ("at", "ae", "atae")
#: Encoder name -> the parameter groups it uses. The torch classes are registered
#: under the same names in :data:`aspectattn.nn.encoders.ENCODERS` (a test keeps the
#: two in step).
ENCODER_GROUPS = {
    "lstm": ("words", "lstm"),
    "transformer": ("words", "transformer"),
    "pretrained": ("pretrained",),
}
#: Values of ``attention_score`` (classes in :mod:`aspectattn.nn.attention`).
ATTENTION_SCORES = ("additive", "dot", "general", "scaled_dot", "concat")
#: Values of ``final_state``: what joins the attention pooling in ``h*``.
FINAL_STATES = (True, False, "term")
#: Values of ``position_weighting``: attention prior from the term's position.
POSITION_WEIGHTINGS = ("none", "linear", "learned")
#: Values of ``term_query``: what queries the states for an aspect term.
TERM_QUERIES = ("vectors", "states", "both")
#: Values of ``augment``.
AUGMENTATIONS = ("flip", "join", "flip+join")
#: Values of ``optimizer`` (torch.optim classes in :mod:`aspectattn.engine.training`).
OPTIMIZERS = ("adam", "adamw", "adagrad", "sgd")
#: Values of ``quantize``.
QUANTIZE_OPTIONS = ("int8",)
#: Word vectors trained with gensim on the fitting texts.
TRAINABLE_VECTORS = ("word2vec", "fasttext")
DEVICE_RE = re.compile(r"auto|cpu|mps|cuda(:\d{1,2})?")
BOOL = Options({True, False})


@dataclass(frozen=True)
class Param:
    """One hyperparameter: default, constraints, group, one-line help, docstring.

    ``needs`` lists the conditions under which the parameter is used (see
    :func:`unused`): ``"words"``, ``"lstm"``, ``"transformer"``, ``"pretrained"``
    (the encoder's groups), ``"attention"`` (a variant with an attention layer),
    ``"terms"`` (aspect terms), ``"vector_file"`` (word vectors read from a file).
    """

    name: str
    default: Any
    constraints: list
    group: str
    help: str
    type: str = ""
    needs: tuple = ()
    doc: str = ""


#: Groups that only one estimator has.
PAIR_GROUPS = ("pairs", "terms")
CATEGORY_GROUPS = ("categories",)

PARAMS = [
    Param(
        "variant",
        "atae",
        [Options(set(VARIANTS))],
        "pairs",
        "AT: aspect as attention query; AE: aspect with every word; ATAE: both",
        type='{"atae", "at", "ae"}',
        needs=(),
        doc="""\
``"at"``: attention with the aspect as query over an aspect-independent
encoder (one encoder pass serves all aspects of a sentence); ``"ae"``: the
aspect vector appended to every word, last state classified; ``"atae"``: both.""",
    ),
    Param(
        "aspect_type",
        "auto",
        [Options({"auto", "category", "term"})],
        "pairs",
        "aspect categories, terms found in the text, or auto",
        type='{"auto", "category", "term"}',
        needs=(),
        doc="""\
``"category"``: aspects form a closed set (``food``, ``service``...); each
gets a learnable vector, initialised from the word vectors of its name where
they exist; an unseen category at predict time is an error. ``"term"``:
aspects are phrases from the text (``"pasta carbonara"``); ``v_a`` is the
mean of the term's (trainable) word embeddings, so unseen terms work.
``"auto"`` picks ``"term"`` when at least 90% of the training aspects occur
in their text, else ``"category"``; see ``aspect_type_``.""",
    ),
    Param(
        "encoder",
        "lstm",
        [Options(set(ENCODER_GROUPS))],
        "model",
        "sentence encoder under the aspect attention",
        type='{"lstm", "transformer", "pretrained"}',
        needs=(),
        doc="""\
The sentence encoder under the aspect attention. ``"transformer"``: multi-head
self-attention with position encodings, residual connections and LayerNorm
(``n_layers``, ``n_heads``, ``d_model``, ``ff_size``, ``norm_first``,
``positional``, ``transformer_dropout``); the mean of its states replaces the
LSTM's last state. ``hidden_size`` and ``bidirectional`` apply to the LSTM only.""",
    ),
    Param(
        "embeddings",
        "word2vec",
        [None, InstanceOf((str,), "a string"), InstanceOf((os.PathLike,), "a path")],
        "words",
        "'word2vec', 'fasttext', a vector file, a gensim-data name, or none for "
        "random vectors",
        type="str, path-like or None",
        needs=("words",),
        doc="""\
Word vectors: ``"word2vec"``/``"fasttext"`` trains them with gensim on the
fitting texts; a path loads word2vec text/binary, GloVe text or gensim
``.kv`` vectors (``.gz`` allowed); a gensim-data name such as
``"glove-wiki-gigaword-50"`` downloads them; ``None`` initialises randomly.
Files are loaded once per process and cached. Only the rows of the fitted
vocabulary are kept in the fitted model.""",
    ),
    Param(
        "embedding_dim",
        None,
        [None, Interval(int, 1, None)],
        "words",
        "size of trained or random vectors (default 100)",
        type="int or None",
        needs=("words",),
        doc="""\
Word-vector size when vectors are trained or random (default 100); must
match the file when vectors are loaded (``None`` takes the file's size).""",
    ),
    Param(
        "freeze_embeddings",
        False,
        [BOOL],
        "model",
        "keep the word vectors fixed",
        type="bool",
        needs=(),
        doc="""\
Keep the word vectors fixed during training.""",
    ),
    Param(
        "embedding_lr",
        None,
        [None, Interval(float, 0, None, "neither")],
        "model",
        "learning rate of the word vectors (default: lr)",
        type="float or None",
        needs=(),
        doc="""\
Learning rate of the word vectors (``None``: same as ``lr``). Weight decay
is never applied to them.""",
    ),
    Param(
        "aspect_size",
        None,
        [None, Interval(int, 1, None)],
        "words",
        "size of the aspect vector v_a",
        type="int or None",
        needs=("words",),
        doc="""\
Size of ``v_a``; ``None`` uses the word-vector size, or the encoder
states' size for the single-head ``"dot"`` form (so that ``v_a`` itself
is the query).""",
    ),
    Param(
        "hidden_size",
        300,
        [Interval(int, 1, None)],
        "lstm",
        "LSTM size",
        type="int",
        needs=("lstm",),
        doc="""\
LSTM hidden size.""",
    ),
    Param(
        "bidirectional",
        False,
        [BOOL],
        "lstm",
        "bidirectional LSTM",
        type="bool",
        needs=("lstm",),
        doc="""\
Use a bidirectional LSTM (exact on padded batches without packing).""",
    ),
    Param(
        "attention_score",
        "additive",
        [Options(set(ATTENTION_SCORES))],
        "attention",
        "how the aspect vector scores the encoder states",
        type='{"additive", "dot", "general", "scaled_dot", "concat"}',
        needs=("attention",),
        doc="""\
How ``v_a`` scores the encoder states ``h_i`` (:mod:`aspectattn.attention`):
``"additive"`` ``w^T tanh(W_h h_i + W_v v_a)`` (Bahdanau); ``"dot"``
``<v_a, h_i>``; ``"general"`` ``h_i^T W_a v_a`` (Luong); ``"scaled_dot"``
``softmax(q K^T / sqrt(d)) V`` with keys and values ``tanh(H W)``;
``"concat"`` the formula printed in the paper, where the aspect cancels in
the softmax (AT then ignores the aspect).""",
    ),
    Param(
        "attention_heads",
        1,
        [Interval(int, 1, None)],
        "attention",
        "aspect-attention heads",
        type="int",
        needs=("attention",),
        doc="""\
Several queries per aspect, each its own projection of ``v_a`` over a
``1/m`` slice of the projected states; the pooled vectors are
concatenated and projected back. Must divide the encoder's state size.
``explain`` then returns weights per head.""",
    ),
    Param(
        "final_state",
        True,
        [Options(set(FINAL_STATES))],
        "attention",
        "what joins the aspect's attention pooling: the encoder's final state, "
        "its summary of the term, or nothing",
        type='{True, False, "term"}',
        needs=("attention",),
        doc="""\
Whether the classified vector ``h* = tanh(W_p r + W_x h_N)`` takes the
encoder's final state ``h_N`` besides the attention pooling ``r`` (Wang
et al.). With ``variant="at"`` the encoder does not see the aspect, so
``h_N`` is the same for every aspect of a sentence and carries its
overall tone; ``False`` classifies ``h* = tanh(W_p r)``, what the aspect's
attention picked out, alone. ``"term"`` (aspect terms only) puts the
encoder's summary of the term in place of ``h_N``: for the LSTM, the
forward state at the term's last token and, with ``bidirectional=True``,
the backward state at its first -- TD-LSTM's two readings of the sentence
up to the term (Tang et al., 2016), taken from the one encoder pass that
every term of the sentence shares; for the transformer and pretrained
encoders, the mean of the term's states. Unused by ``variant="ae"``.""",
    ),
    Param(
        "position_weighting",
        "none",
        [Options(set(POSITION_WEIGHTINGS))],
        "terms",
        "aspect terms: weigh words near the term more in the attention",
        type='{"none", "linear", "learned"}',
        needs=("attention", "terms"),
        doc="""\
Aspect terms only. ``"linear"``: the attention weight of token ``i`` is
proportional to ``w_i exp(e_i)`` with ``w_i = 1 - d_i / n``, ``d_i`` its
distance in tokens from the term (0 on the term) and ``n`` the sentence
length: nearer words weigh more (the location weighting of Tang et al.
2016 and Chen et al. 2017, as a prior on the attention). ``"learned"``:
proportional to ``exp(e_i + b_d)`` with one learned bias ``b_d`` per
distance ``d`` up to 16 (farther tokens share one), started at 0: the
model learns how fast attention falls off away from the term.""",
    ),
    Param(
        "term_marker",
        False,
        [BOOL],
        "terms",
        "aspect terms: flag the term's tokens in the encoder input",
        type="bool",
        needs=("words", "terms"),
        doc="""\
Aspect terms only, LSTM and transformer encoders: append a 0/1 flag to
every input word, 1 on the term's tokens. The encoder then sees the aspect,
so each pair is its own encoder pass.""",
    ),
    Param(
        "term_query",
        "vectors",
        [Options(set(TERM_QUERIES))],
        "terms",
        "aspect terms: query with the term's word vectors, its encoder states, or both",
        type='{"vectors", "states", "both"}',
        needs=("attention", "terms"),
        doc="""\
Aspect terms only: what queries the encoder states. ``"vectors"``: ``v_a``,
the mean of the term's word vectors (Wang et al.); ``"states"``: the mean of
the encoder states over the term's tokens, projected to the size of
``v_a``; ``"both"``: their sum. With the pretrained encoder, the states are
those of the term's sub-words.
The three term-position options need to know where the term is: give its
character span as a pair's third item ``(text, term, (start, end))`` or as
``start``/``end`` columns of a DataFrame; without one the term is found in
the text (its first whole-word occurrence, ignoring case). A term that is
not in its text is then an error.""",
    ),
    Param(
        "augment",
        None,
        [None, Options(set(AUGMENTATIONS))],
        "terms",
        "aspect terms: also train on copies with one opinion flipped, or on "
        "sentences joined",
        type='{None, "flip", "join", "flip+join"}',
        needs=("terms",),
        doc="""\
Aspect terms only: add training pairs made from the training sentences.
``"flip"``: for each positive or negative term, a copy of its sentence in
which the opinion word nearest to the term (and nearer to it than to any
other term) is replaced by its antonym, with the term's label reversed and
the other terms' labels kept (:func:`aspectattn.augment.flip_opinions`).
``"join"``: each sentence whose terms are all positive (or all negative)
joined with a random one of the opposite polarity, ``"<one>, but
<other>"``, every term keeping its label
(:func:`aspectattn.augment.join_pairs`). Both teach the model to follow
the words of the term rather than the sentence's overall tone. A copy
trains only when all its source sentences are on the training side of
the validation split, and copies are never scored in validation. Needs
the labels ``"positive"`` and ``"negative"``.""",
    ),
    Param(
        "antonyms",
        None,
        [None, InstanceOf((dict,), "a dict")],
        "terms",
        "the word -> antonym map of augment='flip'",
        type="dict or None",
        needs=("terms",),
        doc="""\
The opinion words ``augment="flip"`` swaps, lower-case word -> antonym;
``None`` uses :data:`aspectattn.augment.OPINION_ANTONYMS`.""",
    ),
    Param(
        "pretrained_model",
        None,
        [None, InstanceOf((str, os.PathLike), "a path")],
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
        [Options({"vector", "pair"})],
        "pairs",
        "aspect as attention query only, or also as a second segment",
        type='{"vector", "pair"}',
        needs=("pretrained",),
        doc="""\
``"vector"``: the aspect is only the attention query ``v_a`` (one encoder
pass per sentence); ``"pair"``: the aspect is also fed as a second segment,
``[CLS] sentence [SEP] aspect [SEP]``.""",
    ),
    Param(
        "n_layers",
        2,
        [Interval(int, 1, None)],
        "transformer",
        "transformer layers",
        type="int",
        needs=("transformer",),
        doc="""\
""",
    ),
    Param(
        "n_heads",
        4,
        [Interval(int, 1, None)],
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
        [Interval(int, 1, None)],
        "transformer",
        "transformer width",
        type="int",
        needs=("transformer",),
        doc="""\
""",
    ),
    Param(
        "ff_size",
        None,
        [None, Interval(int, 1, None)],
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
        [BOOL],
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
        [Options({"sinusoidal", "learned"})],
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
        [Options({"add", "concat"})],
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
        [Interval(float, 0, 1, "left")],
        "transformer",
        "dropout inside the transformer",
        type="float",
        needs=("transformer",),
        doc="""\
""",
    ),
    Param(
        "dropout",
        0.5,
        [Interval(float, 0, 1, "left")],
        "model",
        "dropout before the classifier",
        type="float",
        needs=(),
        doc="""\
Dropout on the final sentence representation, as in Wang et al.'s code.""",
    ),
    Param(
        "embedding_dropout",
        0.5,
        [Interval(float, 0, 1, "left")],
        "words",
        "dropout on word vectors",
        type="float",
        needs=("words",),
        doc="""\
Dropout on the word vectors entering the LSTM. (The authors' code has none;
with 50-d GloVe it improves validation accuracy on SemEval-2014, see
``benchmarks/select_config.py``.)""",
    ),
    Param(
        "lowercase",
        True,
        [BOOL],
        "words",
        "lower-case the text",
        type="bool",
        needs=("words",),
        doc="""\
Lower-case text before tokenizing.""",
    ),
    Param(
        "min_count",
        1,
        [Interval(int, 1, None)],
        "words",
        "words seen fewer times are unknown",
        type="int",
        needs=("words",),
        doc="""\
Words seen fewer times in the training texts map to the unknown token.""",
    ),
    Param(
        "extra_vocabulary",
        0,
        [Interval(int, 0, None)],
        "words",
        "keep the vectors of this many frequent words the training text lacks",
        type="int",
        needs=("words", "vector_file"),
        doc="""\
With pretrained word vectors (a file or name in ``embeddings``): the words
among the first ``extra_vocabulary`` of the vectors (their most frequent
words; only lower-case ones with ``lowercase=True``) that the training
texts lack join the vocabulary with their pretrained vectors, so that a
word first met at prediction time is read as its vector instead of as the
unknown token. Training never updates those rows (no training word uses
them). The model grows by ``extra_vocabulary x dim`` floats at most (20 MB
for the 100,000 50-d GloVe words).""",
    ),
    Param(
        "max_len",
        100,
        [Interval(int, 1, None)],
        "model",
        "tokens kept per sentence",
        type="int",
        needs=(),
        doc="""\
Sentences are truncated to their first ``max_len`` tokens.""",
    ),
    Param(
        "optimizer",
        "adam",
        [Options(set(OPTIMIZERS))],
        "training",
        "optimizer",
        type='{"adam", "adamw", "adagrad", "sgd"}',
        needs=(),
        doc="""\
``"sgd"`` uses momentum 0.9.""",
    ),
    Param(
        "lr",
        0.001,
        [Interval(float, 0, None, "neither")],
        "training",
        "learning rate",
        type="float",
        needs=(),
        doc="""\
""",
    ),
    Param(
        "weight_decay",
        0.0,
        [Interval(float, 0, None)],
        "training",
        "weight decay (never on word vectors)",
        type="float",
        needs=(),
        doc="""\
L2 penalty on all weights except the word vectors.""",
    ),
    Param(
        "batch_size",
        32,
        [Interval(int, 1, None)],
        "training",
        "pairs per batch",
        type="int",
        needs=(),
        doc="""\
Pairs per training batch.""",
    ),
    Param(
        "batch_by",
        "auto",
        [Options({"auto", "sentence", "pair"})],
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
        20,
        [Interval(int, 1, None)],
        "training",
        "training epochs (most)",
        type="int",
        needs=(),
        doc="""\
""",
    ),
    Param(
        "gradient_clip",
        None,
        [None, Interval(float, 0, None, "neither")],
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
        [None, Options({"balanced"}), InstanceOf((dict,), "a dict")],
        "pairs",
        "loss weights per class",
        type='"balanced", dict or None',
        needs=(),
        doc="""\
Weights of the classes in the loss, as in scikit-learn.""",
    ),
    Param(
        "validation_fraction",
        None,
        [None, Interval(float, 0, 1, "neither")],
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
        [BOOL],
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
        [Options({"loss", "accuracy", "f1_macro"})],
        "pairs",
        "validation score that selects the epoch",
        type='{"loss", "accuracy", "f1_macro"}',
        needs=(),
        doc="""\
Validation metric that selects the best epoch.""",
    ),
    Param(
        "patience",
        5,
        [Interval(int, 1, None)],
        "training",
        "epochs without improvement before stopping",
        type="int",
        needs=(),
        doc="""\
""",
    ),
    Param(
        "checkpoint_dir",
        None,
        [None, InstanceOf((str, os.PathLike), "a path")],
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
        [InstanceOf((str,), "a string")],
        "pairs",
        "column with the sentence",
        type="str",
        needs=(),
        doc="""\
Column names when ``X`` is a DataFrame.""",
    ),
    Param(
        "aspect_column",
        "aspect",
        [InstanceOf((str,), "a string")],
        "pairs",
        "column with the aspect",
        type="str",
        needs=(),
        doc="""\
Column names when ``X`` is a DataFrame.""",
    ),
    Param(
        "random_state",
        None,
        [
            None,
            Interval(int, 0, None),
            InstanceOf(
                (np.random.RandomState, np.random.Generator),
                "a numpy RandomState or Generator",
            ),
        ],
        "training",
        "random seed",
        type="int, RandomState, Generator or None",
        needs=(),
        doc="""\
Seeds initialisation, shuffling, dropout, word-vector training and the
validation split. Global RNGs of the caller are left untouched.""",
    ),
    Param(
        "device",
        "auto",
        [Options.matching(DEVICE_RE, "'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'")],
        "training",
        "torch device",
        type="str",
        needs=(),
        doc="""\
``"auto"`` uses CUDA when available, else the CPU; or a torch device string.""",
    ),
    Param(
        "quantize",
        None,
        [None, Options(set(QUANTIZE_OPTIONS))],
        "training",
        "predict with int8 linear layers on the CPU",
        type='{None, "int8"}',
        needs=(),
        doc="""\
``"int8"`` predicts with int8 weights in the encoder's linear layers
(dynamic quantisation, on the CPU whatever ``device`` says); training and
the saved weights stay float32, so it can also be set on a fitted or loaded
model. Pays with ``encoder="pretrained"`` (1.5x on a 2-core CPU; the README
gives the accuracy change); the LSTM encoder is left as it is. See
:mod:`aspectattn.quantization`.""",
    ),
    Param(
        "verbose",
        0,
        [Interval(int, 0, None)],
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
        [InstanceOf((str,), "a string")],
        "categories",
        "the label of a category a text does not mention",
        type="str",
        needs=(),
        doc="""\
The value of ``Y`` for a category a text does not talk about (missing cells,
None/NaN and empty strings count as not mentioned too).""",
    ),
    Param(
        "sparse_penalty",
        0.0,
        [Interval(float, 0, None)],
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
        [Interval(float, 0, None)],
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
        [Interval(float, 0, None, "neither")],
        "categories",
        "loss weight of mentioned cells",
        type="float",
        needs=(),
        doc="""\
Loss weight of the cells that are mentioned, relative to the "not
mentioned" cells (most cells are not mentioned).""",
    ),
]

#: Name -> :class:`Param`.
TABLE = {p.name: p for p in PARAMS}


def _default(name: str):
    return field(default=TABLE[name].default)


def names_for(exclude_groups) -> list[str]:
    """The parameters of an estimator that lacks ``exclude_groups``, table order."""
    return [p.name for p in PARAMS if p.group not in exclude_groups]


def constraints(names) -> dict[str, list]:
    """``_parameter_constraints`` for the parameters ``names``."""
    return {name: list(TABLE[name].constraints) for name in names}


def init_for(names, qualname: str):
    """An ``__init__(self, *, name=default, ...)`` for ``names`` that only stores its
    keyword arguments, as scikit-learn requires; generated from the table (the way
    :mod:`dataclasses` writes ``__init__``) so that no parameter list is kept by
    hand in two places. ``inspect.signature`` shows every parameter and default."""
    if not all(name.isidentifier() for name in names):  # table names only
        raise ValueError(f"not identifiers: {names}")
    namespace = {f"_{name}": TABLE[name].default for name in names}
    arguments = ", ".join(f"{name}=_{name}" for name in names)
    body = "".join(f"    self.{name} = {name}\n" for name in names)
    exec(f"def __init__(self, *, {arguments}):\n{body}", namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__qualname__ = f"{qualname}.__init__"
    init.__doc__ = "Store the keyword arguments; see the class docstring."
    return init


def _default_doc(value) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def parameters_doc(names, indent: str = "    ") -> str:
    """The numpydoc Parameters entries of ``names``, indented for a class docstring."""
    lines = []
    for name in names:
        p = TABLE[name]
        lines.append(f"{name} : {p.type}, default={_default_doc(p.default)}")
        lines += [f"    {line}" if line else "" for line in p.doc.splitlines()]
    return textwrap.indent("\n".join(lines), indent)


def document(template: str, names) -> str:
    """``template`` with ``%(parameters)s`` replaced by the entries of ``names``."""
    return template.replace("%(parameters)s", parameters_doc(names).lstrip())


def cli_help(name: str) -> str:
    """The one-line help of parameter ``name`` (the command line's ``--help``)."""
    return TABLE[name].help


# ------------------------------------------------------------ unused parameters
def unused(values: dict, aspect_type: str | None = None) -> list[tuple[str, str]]:
    """``(parameter, setting)`` for each parameter of ``values`` that the other
    values leave unused, in the words of the warning: "... is not used when
    {setting}". ``aspect_type``: the (resolved) aspect type, when known."""
    encoder = values.get("encoder")
    groups = ENCODER_GROUPS.get(encoder, ())
    embeddings = values.get("embeddings")
    conditions = [
        (
            lambda need: (
                need in ("words", "lstm", "transformer", "pretrained")
                and need not in groups
            ),
            f"encoder={encoder!r}",
        ),
        (
            lambda need: need == "attention" and values.get("variant") == "ae",
            "variant='ae'",
        ),
        (
            lambda need: need == "terms" and aspect_type == "category",
            "aspect_type='category'",
        ),
        (
            lambda need: (
                need == "vector_file"
                and (embeddings is None or embeddings in TRAINABLE_VECTORS)
            ),
            f"embeddings={embeddings!r}",
        ),
    ]
    out = []
    for applies, setting in conditions:
        for p in PARAMS:
            if p.name in values and any(applies(need) for need in p.needs):
                out.append((p.name, setting))
    return out


def warn_unused(values: dict, pairs, stacklevel: int = 3) -> None:
    """Warn, in scikit-learn's words, for each ``(parameter, setting)`` of ``pairs``
    whose value in ``values`` is not its default."""
    for name, setting in pairs:
        value, default = values[name], TABLE[name].default
        if value is not default and value != default:
            warnings.warn(
                f"The parameter {name!r} is not used when {setting}.",
                AspectAttnWarning,
                stacklevel=stacklevel,
            )


# ---------------------------------------------------------------------- configs
def _pick(cls, values: dict):
    return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})


@dataclass(frozen=True)
class ModelConfig:
    """The parameters that building a model reads (text pipeline, word vectors,
    encoder, attention, head). Built once in ``fit`` by :meth:`from_params`."""

    encoder: str = _default("encoder")
    variant: str = _default("variant")
    embeddings: Any = _default("embeddings")
    embedding_dim: int | None = _default("embedding_dim")
    embedding_dropout: float = _default("embedding_dropout")
    aspect_size: int | None = _default("aspect_size")
    lowercase: bool = _default("lowercase")
    min_count: int = _default("min_count")
    extra_vocabulary: int = _default("extra_vocabulary")
    max_len: int = _default("max_len")
    hidden_size: int = _default("hidden_size")
    bidirectional: bool = _default("bidirectional")
    n_layers: int = _default("n_layers")
    n_heads: int = _default("n_heads")
    d_model: int = _default("d_model")
    ff_size: int | None = _default("ff_size")
    norm_first: bool = _default("norm_first")
    positional: str = _default("positional")
    position_merge: str = _default("position_merge")
    transformer_dropout: float = _default("transformer_dropout")
    pretrained_model: Any = _default("pretrained_model")
    pretrained_input: str = _default("pretrained_input")
    attention_score: str = _default("attention_score")
    attention_heads: int = _default("attention_heads")
    dropout: float = _default("dropout")
    final_state: Any = _default("final_state")
    position_weighting: str = _default("position_weighting")
    term_marker: bool = _default("term_marker")
    term_query: str = _default("term_query")

    @classmethod
    def from_params(cls, values: dict) -> ModelConfig:
        return _pick(cls, values)

    def encoder_sees_aspect(self, aspect_type: str) -> bool:
        """Whether the encoder's input depends on the aspect (each pair is then its
        own encoder pass): the aspect in every word, as a second segment, or the
        term's tokens flagged."""
        return (
            self.variant != "at"
            or (self.encoder == "pretrained" and self.pretrained_input == "pair")
            or (
                aspect_type == "term"
                and self.term_marker
                and self.encoder != "pretrained"
            )
        )


@dataclass(frozen=True)
class TrainingConfig:
    """The parameters that training reads (optimizer, batches, validation,
    stopping, checkpoints). Built once in ``fit`` by :meth:`from_params`;
    ``run_params`` (every parameter) identifies a run for resuming."""

    optimizer: str = _default("optimizer")
    lr: float = _default("lr")
    weight_decay: float = _default("weight_decay")
    embedding_lr: float | None = _default("embedding_lr")
    freeze_embeddings: bool = _default("freeze_embeddings")
    batch_size: int = _default("batch_size")
    batch_by: str = _default("batch_by")
    max_epochs: int = _default("max_epochs")
    gradient_clip: float | None = _default("gradient_clip")
    class_weight: Any = _default("class_weight")
    validation_fraction: float | None = _default("validation_fraction")
    scoring: str = _default("scoring")
    early_stopping: bool = _default("early_stopping")
    patience: int = _default("patience")
    checkpoint_dir: Any = _default("checkpoint_dir")
    verbose: int = _default("verbose")
    keep_sentences: bool = False
    run_params: dict = field(default_factory=dict)

    @classmethod
    def from_params(cls, values: dict, run_params: dict) -> TrainingConfig:
        return _pick(cls, {**values, "run_params": run_params})
