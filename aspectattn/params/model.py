"""Parameters of the model: the variant and aspects, the encoder and the
attention (components, :mod:`aspectattn.encoders` and :mod:`aspectattn.attention`,
with their own parameters), the language, and the aspect-term options."""

from __future__ import annotations

from numbers import Real

from ..text.languages import LANGUAGE_CODE
from ._constraints import Interval, Matching, StrOptions
from ._core import ATTENTION_SCORES, AUGMENTATIONS, VARIANTS, Param, destined
from .encoders import ENCODERS

PARAMS = [
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
        "the loss weight of each copy augment makes, a share of its sources' weight "
        "(auto: 2 for the LSTM detector's English copies, else 1)",
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
]

#: Where each parameter goes that does not say: the model config.
PARAMS = destined(PARAMS, "model")
