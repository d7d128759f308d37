"""The one parameter table of the attention estimators and their components.

Every parameter of :class:`~aspectattn.AspectAttentionClassifier`,
:class:`~aspectattn.AspectCategoryClassifier` and their components
(:mod:`aspectattn.encoders`, :mod:`aspectattn.attention`,
:mod:`aspectattn.training`) is one :class:`Param` of :data:`PARAMS`: its default,
its constraints, its group and a one-line help. From the table come

* each estimator's ``_parameter_constraints`` (:func:`constraints`) and each
  encoder's; their written-out signatures and docstrings are checked against it
  (``tests/test_params.py``, ``tests/test_encoders.py``);
* the ``--help`` strings of the command line (:func:`cli_help`) and the user
  guide's parameter tables (checked by a test);
* the warnings for parameters that the other settings leave unused
  (:func:`unused`), and the configs that building and training take whole
  (:class:`ModelConfig`, :class:`TrainingConfig`): nothing below the estimators
  reads the estimator. The estimators hand down their settings under the table's
  names, their components' spelled out (``_table_params``), as model files keep
  them.

A group names who has a parameter (``"pairs"`` and ``"terms"``: the pair
classifier only; ``"categories"``: the detector only; ``"distillation"``:
neither, :class:`~aspectattn.DistilledClassifier` instead; the rest: both) and who
uses it (an encoder's own group; ``"words"``: encoders that read word vectors).
The table is kept in three modules by theme: :mod:`.model` (variant, aspects, word
vectors, attention, aspect terms), :mod:`.encoders` (one group per encoder; adding
an encoder: its parameters there and its entry in :data:`ENCODERS`) and
:mod:`.training` (training, prediction, input columns, the detector's own).

This module imports neither torch nor gensim, so the command line starts fast.
"""

from __future__ import annotations

import warnings
from dataclasses import field, make_dataclass
from typing import Any

from ..exceptions import AspectAttnWarning
from ..text.languages import auto_language
from . import encoders as _encoders
from . import model as _model
from . import training as _training
from ._constraints import StrOptions, satisfies
from ._core import (
    ATTENTION_SCORES,
    AUGMENTATIONS,
    FINAL_STATES,
    OPTIMIZERS,
    POSITION_WEIGHTINGS,
    QUANTIZE_OPTIONS,
    TERM_QUERIES,
    TRAINABLE_VECTORS,
    UNSEEN_WORDS,
    VARIANTS,
    EncoderEntry,
    Param,
    Recipe,
)
from .encoders import ENCODER_GROUPS, ENCODERS, LSTM_SIZE

__all__ = [
    "AUTO_PARAMS",
    "is_auto",
    "resolve_auto",
    "check_resolved",
    "Param",
    "PARAMS",
    "TABLE",
    "ENCODERS",
    "ENCODER_GROUPS",
    "EncoderEntry",
    "Recipe",
    "ModelConfig",
    "TrainingConfig",
    "constraints",
    "cli_help",
    "unused",
    "warn_unused",
    "VARIANTS",
    "ATTENTION_SCORES",
    "FINAL_STATES",
    "POSITION_WEIGHTINGS",
    "TERM_QUERIES",
    "AUGMENTATIONS",
    "UNSEEN_WORDS",
    "OPTIMIZERS",
    "QUANTIZE_OPTIONS",
    "TRAINABLE_VECTORS",
]

#: Groups that only one estimator has.
PAIR_GROUPS = ("pairs", "terms")
CATEGORY_GROUPS = ("categories",)
#: The group that neither estimator has since 0.1.0: distillation's settings,
#: now :class:`~aspectattn.DistilledClassifier`'s (its constraints, the command
#: line's help and ``TrainingConfig``'s fields stay the table's).
DISTILLATION_GROUPS = ("distillation",)

#: The table: every parameter of both estimators, in documentation order.
PARAMS: list[Param] = [*_model.PARAMS, *_encoders.PARAMS, *_training.PARAMS]

#: Name -> :class:`Param`.
TABLE = {p.name: p for p in PARAMS}
#: The distillation settings' names (``teacher``, ``distill_weight``,
#: ``distill_temperature``), which the estimators took before 0.1.0.
DISTILLATION_NAMES = tuple(p.name for p in PARAMS if p.group in DISTILLATION_GROUPS)


def names_for(exclude_groups) -> list[str]:
    """The parameters of an estimator that lacks ``exclude_groups``, table order."""
    return [p.name for p in PARAMS if p.group not in exclude_groups]


def constraints(names) -> dict[str, list]:
    """``_parameter_constraints`` for the parameters ``names``."""
    return {name: list(TABLE[name].constraints) for name in names}


def cli_help(name: str) -> str:
    """The one-line help of parameter ``name`` (the command line's ``--help``)."""
    return TABLE[name].help


# ------------------------------------------------------------ unused parameters
def unused(values: dict, aspect_type: str | None = None) -> list[tuple[str, str]]:
    """``(parameter, setting)`` for each parameter of ``values`` that the other
    values leave unused, in the words of the warning: "... is not used when
    {setting}". ``aspect_type``: the (resolved) aspect type, when known."""
    encoder, embeddings = values.get("encoder"), values.get("embeddings")
    groups = ENCODER_GROUPS.get(encoder, ())
    # (needs that these values leave unmet, the setting that leaves them unmet)
    unmet = [({"words", *ENCODERS} - set(groups), f"encoder={encoder!r}")]
    if values.get("variant") == "ae":
        unmet.append(({"attention"}, "variant='ae'"))
    if aspect_type == "category":
        unmet.append(({"terms"}, "aspect_type='category'"))
    if embeddings is None or embeddings in TRAINABLE_VECTORS:
        unmet.append(({"vector_file"}, f"embeddings={embeddings!r}"))
    if values.get("teacher") is None:
        unmet.append(({"teacher"}, "teacher=None"))
    return [
        (p.name, setting)
        for needs, setting in unmet
        for p in PARAMS
        if p.name in values and needs & set(p.needs)
    ]


def warn_unused(
    values: dict, pairs, stacklevel: int = 3, spelled: dict | None = None
) -> None:
    """Warn, in scikit-learn's words, for each ``(parameter, setting)`` of ``pairs``
    whose value in ``values`` is not its default; ``spelled``: how the user names
    a parameter where it differs from the table (``attention__heads``)."""
    for name, setting in pairs:
        value, default = values[name], TABLE[name].default
        if value is not default and value != default:
            shown = (spelled or {}).get(name, name)
            warnings.warn(
                f"The parameter {shown!r} is not used when {setting}.",
                AspectAttnWarning,
                stacklevel=stacklevel,
            )


# ------------------------------------------------------------ "auto" settings
#: Parameters whose ``"auto"`` value ``fit`` resolves from the aspect type, the
#: labels and the other settings (:func:`resolve_auto`); what they resolved to is
#: the fitted ``resolved_params_``, kept in model files and pickles.
AUTO_PARAMS = (
    "language",
    "aspect_type",
    "pretrained_input",
    "batch_by",
    "final_state",
    "position_weighting",
    "bidirectional",
    "hidden_size",
    "augment",
    "copy_weight",
    "head_lr",
    "lr",
    "batch_size",
    "max_epochs",
    "patience",
    "dropout",
    "lr_schedule",
    "precision",
    "freeze_embeddings",
    "unseen_words",
    "mention_weight",
)
# Each encoder's recipe is in its entry of ENCODERS (params/encoders.py); these
# names read it.
#: ``augment="auto"`` for aspect terms in English, per encoder (none: no copies).
TERM_COPIES = {
    name: entry.recipe.term_copies
    for name, entry in ENCODERS.items()
    if entry.recipe.term_copies
}
#: ``head_lr="auto"`` with a pretrained encoder.
PRETRAINED_HEAD_LR = ENCODERS["pretrained"].recipe.head_lr
#: What the training settings' ``"auto"`` stand for: encoders trained from
#: scratch ...
SCRATCH_TRAINING = ENCODERS["lstm"].recipe.training
#: ... and a pretrained checkpoint fine-tuned end to end.
PRETRAINED_TRAINING = ENCODERS["pretrained"].recipe.training
#: The labels that ``augment="join"`` needs.
JOIN_LABELS = frozenset({"positive", "negative"})


def missing_join_labels(labels) -> list[str]:
    """The labels of :data:`JOIN_LABELS` that ``labels`` lacks (sorted): joining
    sentences of opposite polarity needs both."""
    return sorted(JOIN_LABELS - {str(label) for label in labels})


def is_auto(value) -> bool:
    """Whether ``value`` is the string ``"auto"`` (a value ``fit`` resolves); a
    value of another type, an array say, never is."""
    return isinstance(value, str) and value == "auto"


def resolve_auto(
    values: dict,
    aspect_type: str,
    labels=None,
    texts=None,
    device=None,
    *,
    detector: bool = False,
) -> dict:
    """What each ``"auto"`` value of ``values`` stands for with aspects of
    ``aspect_type`` and the training ``labels`` (None: not known yet); the
    parameters of :data:`AUTO_PARAMS` that ``values`` has, resolved.

    The rules come from validation scores on five data sets
    (``benchmarks/defaults.py``): for aspect terms, the TD-LSTM reading of the
    term (``final_state="term"``) from a bidirectional LSTM with a position prior
    (the recipe's ``term_position``: learned per distance for the LSTM, chosen by
    validation accuracy, then validation robustness, ``benchmarks/behaviour.py``;
    linear for the others); for categories, the attention pooling alone
    (``final_state=False``: the final state, the same for every aspect of the
    sentence, pulls them all to its overall tone); the encoder's copies, which
    need the labels ``"positive"`` and ``"negative"``: for categories, sentences
    joined from two of opposite polarity (``augment="join"``), with the LSTM in
    English also flipped ones (the pair classifier: the recipe's
    ``category_copies``) and negated ones (the ``detector``: its
    ``detector_copies``); for English aspect terms, the recipe's
    ``term_copies`` (flipped, negated and joined sentences for the LSTM and the
    pretrained encoder); each chosen by validation accuracy, then validation
    robustness (``benchmarks/behaviour.py``). ``pretrained_input``:
    the recipe's ``term_input`` for aspect terms (the term also as a second
    segment for the pretrained encoder, chosen by the same rule), the query
    alone for categories. ``batch_by``: whole sentences when the encoder does
    not see the aspect. The training settings
    (``lr``, ``batch_size``, ``max_epochs``, ``patience``, ``dropout``,
    ``lr_schedule``, ``freeze_embeddings``), ``head_lr`` and ``precision``
    (``"bfloat16"`` where the recipe says so and the resolved ``device`` computes
    it natively, else ``"float32"``, also with no device: the record of a model
    saved before) come from the encoder's :class:`Recipe` in :data:`ENCODERS`.
    ``unseen_words``: ``"vectors"`` with ``embeddings="fasttext"`` (their n-gram
    vectors beat the spelling by 1.6 points of validation accuracy over five
    languages, ``benchmarks/languages.py``), else ``"spelling"``.
    ``mention_weight`` (the detector's): the recipe's, 2 for the LSTM, chosen by
    validation micro-F1, then validation robustness (``benchmarks/behaviour.py
    --detector``). ``copy_weight``: the recipe's ``detector_copy_weight`` for
    the detector's copies in English (2 for the LSTM: validation micro-F1 and
    ARS within a point, more negation probes found, ``benchmarks/copy_weight.py
    --detector``), else 1 (the LSTM's term copies and its pair classifier's
    copies of categories: 1 by the same rule, ``--category-pairs``).
    """
    term = aspect_type == "term"
    recipe = _recipe(values.get("encoder"))
    rules = {
        **recipe.training,
        "precision": "bfloat16"
        if recipe.bfloat16 and device is not None and fast_bfloat16(device)
        else "float32",
        "aspect_type": aspect_type,
        "final_state": "term" if term else False,
        "position_weighting": recipe.term_position if term else "none",
        "pretrained_input": recipe.term_input if term else "vector",
        "bidirectional": term,
        "hidden_size": LSTM_SIZE,
        "head_lr": recipe.head_lr,
        "mention_weight": recipe.mention_weight,
        "unseen_words": "vectors"
        if values.get("embeddings") == "fasttext"
        else "spelling",
    }
    # (another encoder's parameters -- the LSTM's size with a checkpoint, the
    # checkpoint's input with the LSTM -- stand for nothing: left as they are)
    others = set(ENCODERS) - set(ENCODER_GROUPS.get(values.get("encoder"), ()))
    resolved = {}
    for name in AUTO_PARAMS:
        if name not in values or others & set(TABLE[name].needs):
            continue
        value = values[name]
        if not is_auto(value):
            resolved[name] = value
        elif name == "batch_by":
            sees = ModelConfig.from_params({**values, **resolved}).encoder_sees_aspect(
                aspect_type
            )
            resolved[name] = "pair" if sees else "sentence"
        elif name == "augment":
            resolved[name] = _copies(
                term,
                values.get("encoder", "lstm"),
                labels,
                resolved.get("language"),
                detector,
            )
        elif name == "copy_weight":
            english = resolved.get("language") == "en"
            resolved[name] = (
                recipe.detector_copy_weight if detector and english else 1.0
            )
        elif name == "language":  # (read from the texts only when asked)
            # no texts: a record derived for a model saved before the language was
            # one (its tokenizer was English)
            resolved[name] = "en" if texts is None else auto_language(texts)
        else:
            resolved[name] = rules[name]
    return resolved


def _recipe(encoder) -> Recipe:
    """The recipe of the encoder named ``encoder`` (the LSTM's for a name the
    table does not know, which the encoder's own check refuses)."""
    return ENCODERS.get(encoder, ENCODERS["lstm"]).recipe


def _copies(term: bool, encoder: str, labels, language, detector: bool) -> str | None:
    """``augment="auto"``: the encoder's recipe's copies -- for terms its
    ``term_copies`` (English alone: they reverse English opinion words and join
    with English connectives), for the pair classifier's categories and the
    detector's its ``category_copies`` and ``detector_copies`` (in other
    languages their joins alone) -- and none without the labels ``"positive"``
    and ``"negative"``."""
    if labels is not None and missing_join_labels(labels):
        return None
    recipe = _recipe(encoder)
    if term:
        return recipe.term_copies if language == "en" else None
    copies = recipe.detector_copies if detector else recipe.category_copies
    if language == "en" or copies is None:
        return copies
    return "join" if "join" in copies.split("+") else None


def fast_bfloat16(device: str) -> bool:
    """Whether ``device`` (a resolved torch device string) computes bfloat16
    matrix products natively: a CUDA GPU that supports it, a CPU with AVX-512
    BF16 or AMX. (Elsewhere autocast emulates them, slower than float32.)"""
    import torch

    if device.startswith("cuda"):
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    if device != "cpu":
        return False
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, name, lambda: False)() for name in checks)


def value_constraints(name: str) -> list:
    """The constraints of parameter ``name`` once set: its table constraints
    without ``None`` and ``"auto"`` (what a built model and a model file hold;
    :mod:`aspectattn.nn.schema` checks files against them)."""
    out = []
    for c in TABLE[name].constraints:
        if c is None:
            continue
        if type(c) is StrOptions:
            options = set(c.options) - {"auto"}
            if not options:
                continue
            c = StrOptions(options)
        out.append(c)
    return out


def check_resolved(record) -> dict:
    """Validate a ``resolved_params_`` read from a file: a dict of parameters of
    :data:`AUTO_PARAMS`, each a value its constraints allow other than
    ``"auto"``. Raises ``ValueError``."""
    if not isinstance(record, dict) or not set(record) <= set(AUTO_PARAMS):
        raise ValueError(f"resolved_params_ must map some of {list(AUTO_PARAMS)}")
    for name, value in record.items():
        if is_auto(value) or not satisfies(value, TABLE[name].constraints):
            raise ValueError(f"resolved_params_[{name!r}] is not a valid {name}")
    return dict(record)


# ---------------------------------------------------------------------- configs
# The two configs that go down from ``fit`` are made from the table: one field per
# parameter whose ``goes`` names them (so a parameter cannot be left out of its
# config), plus what ``fit`` adds. A value that is no table parameter is an error.


def check_known(values: dict) -> None:
    """Raise ``ValueError`` for a name of ``values`` that is not in the table."""
    unknown = sorted(set(values) - set(TABLE))
    if unknown:
        raise ValueError(f"settings that are not parameters: {unknown}")


class _Config:
    """What both configs share: :meth:`pick`, the values of their fields."""

    #: The table's ``goes`` of the parameters that are fields.
    goes = ""

    @classmethod
    def pick(cls, values: dict) -> dict:
        """The table parameters of ``values`` that go to this config (the others
        go elsewhere; a name outside the table is an error)."""
        check_known(values)
        return {k: v for k, v in values.items() if TABLE[k].goes == cls.goes}


def _config_class(name: str, goes: str, base: type, extra: list, doc: str) -> type:
    spec = [(p.name, Any, field(default=p.default)) for p in PARAMS if p.goes == goes]
    cls = make_dataclass(
        name, spec + extra, bases=(base,), frozen=True, namespace={"goes": goes}
    )
    cls.__doc__, cls.__module__, cls.__qualname__ = doc, __name__, name
    return cls


class _ModelConfigMethods(_Config):
    @classmethod
    def from_params(cls, values: dict):
        """The config of ``values`` (parameters not given: their defaults)."""
        encoder = values.get("encoder", TABLE["encoder"].default)
        own = {
            p.name: values[p.name]
            for p in PARAMS
            if p.group == encoder and p.name in values
        }
        return cls(**cls.pick(values), encoder_params=own)

    def encoder_sees_aspect(self, aspect_type: str) -> bool:
        """Whether the encoder's input depends on the aspect (each pair is then its
        own encoder pass): the aspect in every word, as a second segment, or the
        term's tokens flagged (options whose needs the encoder meets)."""
        groups = ENCODER_GROUPS[self.encoder]
        return (
            self.variant != "at"
            or ("pretrained" in groups and self.pretrained_input == "pair")
            or (aspect_type == "term" and self.term_marker and "words" in groups)
        )


class _TrainingConfigMethods(_Config):
    @classmethod
    def from_params(cls, values: dict, run_params: dict | None = None):
        """The config of ``values``; ``run_params``: every parameter of the
        estimator, which identifies a run for resuming from a checkpoint."""
        return cls(**cls.pick(values), run_params=dict(run_params or {}))


ModelConfig = _config_class(
    "ModelConfig",
    "model",
    _ModelConfigMethods,
    # The values of the chosen encoder's own group (what a newly added encoder
    # reads in ``config_from``).
    [("encoder_params", dict, field(default_factory=dict))],
    """The parameters that building a model reads (text pipeline, word vectors,
    encoder, attention, head): a field per table parameter that goes to
    ``"model"``. Built once in ``fit`` by :meth:`from_params`.""",
)
TrainingConfig = _config_class(
    "TrainingConfig",
    "training",
    _TrainingConfigMethods,
    [
        ("keep_sentences", bool, field(default=False)),
        ("run_params", dict, field(default_factory=dict)),
    ],
    """The parameters that training reads (optimizer, batches, validation,
    stopping, checkpoints, the detector's loss): a field per table parameter that
    goes to ``"training"``. Built once in ``fit`` by :meth:`from_params`;
    ``run_params`` (every parameter) identifies a run for resuming.""",
)
