"""What the parameter table is made of: :class:`Param`, the option values that the
constraints name, and the encoder registry (torch-free: names and where the torch
classes are)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "Param",
    "EncoderEntry",
    "VARIANTS",
    "ATTENTION_SCORES",
    "FINAL_STATES",
    "POSITION_WEIGHTINGS",
    "TERM_QUERIES",
    "AUGMENTATIONS",
    "OPTIMIZERS",
    "QUANTIZE_OPTIONS",
    "TRAINABLE_VECTORS",
]


@dataclass(frozen=True)
class Param:
    """One parameter of the estimators: default, constraints, group, one-line
    help (the docstrings that explain it are written out on the estimators; a
    component's parameters are the component's own, :mod:`aspectattn.encoders`).

    ``group`` says who has the parameter (``"pairs"`` and ``"terms"``: the pair
    classifier only; ``"categories"``: the detector only; any other: both).
    ``needs`` lists the conditions under which it is used (see
    :func:`aspectattn.params.unused`; a component states its own in
    ``_needs``): ``"words"`` (an encoder that reads word vectors),
    ``"attention"`` (a variant with an attention layer), ``"terms"`` (aspect
    terms), ``"vector_file"`` (word vectors read from a file).
    ``goes`` says where the value goes: ``"model"`` (``ModelConfig``, what building
    the model reads), ``"training"`` (``TrainingConfig``, what training reads) or
    ``"estimator"`` (read by the estimator itself: input columns, copies, seeding,
    device, prediction).
    """

    name: str
    default: Any
    constraints: list
    group: str
    help: str
    type: str = ""
    needs: tuple = ()
    goes: str = ""


#: Where a parameter's value goes.
DESTINATIONS = ("model", "training", "estimator")


def destined(params: list[Param], default: str) -> list[Param]:
    """``params`` with ``goes`` set to ``default`` where a parameter does not say."""
    out = [p if p.goes else replace(p, goes=default) for p in params]
    bad = [p.name for p in out if p.goes not in DESTINATIONS]
    if bad:
        raise ValueError(f"parameters going nowhere known: {bad}")
    return out


@dataclass(frozen=True)
class Recipe:
    """What the estimators' ``"auto"`` settings stand for with one encoder."""

    #: ``lr``, ``batch_size``, ``max_epochs``, ``patience``, ``dropout``,
    #: ``lr_schedule``, ``freeze_embeddings``.
    training: dict
    #: ``head_lr``: the rate outside the encoder (None: ``lr``).
    head_lr: float | None = None
    #: ``augment`` for English aspect terms (None: no copies).
    term_copies: str | None = None
    #: ``augment`` for the pair classifier's aspect categories in English
    #: (other languages: ``"join"``, as flipping and negating read English
    #: opinion words).
    category_copies: str | None = "join"
    #: ``augment`` for the detector's categories in English (the same rule for
    #: other languages).
    detector_copies: str | None = "join"
    #: ``precision="bfloat16"`` where the device computes it natively.
    bfloat16: bool = False
    #: ``mention_weight``: the detector's loss weight of the mentioned cells.
    mention_weight: float = 1.0
    #: ``copy_weight`` for the detector's copies in English: each copy's loss
    #: weight as a share of its sources' (the pair classifier's copies: 1).
    detector_copy_weight: float = 1.0
    #: ``max_epochs`` for aspect terms and for the detector (None: the
    #: ``training`` one, as for the pair classifier's categories).
    term_max_epochs: int | None = None
    detector_max_epochs: int | None = None
    #: ``position_weighting`` for aspect terms: the attention's prior from the
    #: term's position (categories have none).
    term_position: str = "linear"
    #: A word encoder's ``word_dropout`` (training words read as the unknown
    #: token with probability ``word_dropout / (word_dropout + count)``) for
    #: aspect terms and for categories (the pair classifier's and the
    #: detector's).
    term_word_dropout: float = 0.0
    category_word_dropout: float = 0.0
    #: ``PretrainedEncoder(input=)`` for aspect terms: the term as the query
    #: alone (``"vector"``) or also as a second segment (``"pair"``); categories
    #: read ``"vector"``.
    term_input: str = "vector"
    #: The span taggers' (the extractor's and the joint model's) training:
    #: ``dropout``, ``lr``, ``batch_size``, ``max_epochs``, ``patience``, and
    #: the optimizer's ``optimizer`` (its name), ``weight_decay`` and
    #: ``lr_schedule`` (empty: the encoder tags no spans).
    tagger: dict = field(default_factory=dict)
    #: How the extractor and the joint model read their tags with
    #: ``decoding="auto"`` (``"crf"``: fitted as a CRF too).
    extractor_decoding: str = "greedy"
    joint_decoding: str = "greedy"
    #: The joint model's ``augment="auto"`` for English terms with the labels
    #: ``"positive"`` and ``"negative"`` (none otherwise).
    tagger_copies: str | None = None


#: The recipe of encoders trained from scratch: Wang et al.'s dropout, Adam's
#: usual rate; no copies, float32.
SCRATCH_RECIPE = Recipe(
    dict(
        freeze_embeddings=False,
        lr=1e-3,
        batch_size=32,
        max_epochs=20,
        patience=5,
        dropout=0.5,
        lr_schedule="constant",
    )
)


@dataclass(frozen=True)
class EncoderEntry:
    """A sentence encoder: where its torch class is (``"module:Class"``, imported on
    first use by :func:`aspectattn.nn.encoders.get_encoder`), the parameter
    groups it reads and its recipe (what ``"auto"`` stands for with it)."""

    path: str
    groups: tuple
    #: How the command line names it ("training AT-LSTM on ...").
    label: str = ""
    recipe: Recipe = SCRATCH_RECIPE


#: Values of ``variant`` (Wang et al., 2016).
VARIANTS = ("at", "ae", "atae")
#: Values of ``attention_score`` (classes in :mod:`aspectattn.nn.attention`).
ATTENTION_SCORES = ("additive", "dot", "general", "scaled_dot", "concat")
#: Values of ``final_state``: what joins the attention pooling in ``h*``.
FINAL_STATES = (True, False, "term")
#: Values of ``position_weighting``: attention prior from the term's position.
POSITION_WEIGHTINGS = ("none", "linear", "learned")
#: Values of ``term_query``: what queries the states for an aspect term.
TERM_QUERIES = ("vectors", "states", "both")
#: Values of ``augment``.
AUGMENTATIONS = ("flip", "join", "flip+join", "negate", "flip+join+negate")
#: Values of ``optimizer`` (torch.optim classes in :mod:`aspectattn.engine.training`).
OPTIMIZERS = ("adam", "adamw", "adagrad", "sgd")
#: Values of ``quantize``.
QUANTIZE_OPTIONS = ("int8", "bfloat16")
#: Values of ``unseen_words`` (:mod:`aspectattn.text.ngrams`), besides None.
UNSEEN_WORDS = ("spelling", "vectors")
#: Word vectors trained with gensim on the fitting texts.
TRAINABLE_VECTORS = ("word2vec", "fasttext")
DEVICE_RE = re.compile(r"auto|cpu|mps|cuda(:\d{1,2})?")
#: What the estimators' ``device`` parameter accepts (the classifiers', the
#: detector's and the extractor's: one rule).
DEVICE_DESCRIPTION = "'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'"
