"""The parameters of the attention estimators, and the policy that resolves
their ``"auto"`` settings.

Every parameter of :class:`~aspectattn.AspectAttentionClassifier` and
:class:`~aspectattn.AspectCategoryClassifier` is one :class:`Param` of
:data:`PARAMS` (the two share most of them): its default, its constraints, its
group and a one-line help. The parameters of their components -- the encoder, the
attention, the optimizer, early stopping -- are the components' own
(:mod:`aspectattn.encoders`, :mod:`aspectattn.attention`,
:mod:`aspectattn.training`), declared once there. From the table come

* each estimator's ``_parameter_constraints`` (:func:`constraints`); the written-out
  signatures and docstrings are checked against it (``tests/test_params.py``);
* the ``--help`` strings of the command line (:func:`cli_help`) and the user
  guide's parameter table;
* the warnings for settings that the others leave unused (:func:`unused`), and the
  configs that building and training take whole (:class:`ModelConfig`,
  :class:`TrainingConfig`, which hold the resolved components): nothing below the
  estimators reads the estimator.

A group names who has a parameter (``"pairs"`` and ``"terms"``: the pair
classifier only; ``"categories"``: the detector only; the rest: both) and who
uses it (``"words"``: encoders that read word vectors). The table is
:mod:`.table`; :mod:`.recipes` is the encoder registry (:data:`ENCODERS`) with
each encoder's recipe, what ``"auto"`` stands for with it.

This module imports neither torch nor gensim, so the command line starts fast.
"""

from __future__ import annotations

import warnings
from dataclasses import field, make_dataclass
from typing import Any

from .._validation import plain
from ..exceptions import AspectAttnWarning
from ..text.languages import auto_language
from ._constraints import satisfies
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
from .components import value_constraints
from .recipes import ENCODERS, LSTM_SIZE, TAGGER_LSTM_SIZE, VECTOR_PASSES
from .table import PARAMS

__all__ = [
    "AUTO_PARAMS",
    "is_auto",
    "resolve_auto",
    "resolve_tagger_auto",
    "resolved_record",
    "check_resolved",
    "value_constraints",
    "SLOTS",
    "LSTM_SIZE",
    "TAGGER_LSTM_SIZE",
    "VECTOR_PASSES",
    "Param",
    "PARAMS",
    "TABLE",
    "ENCODERS",
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

#: Name -> :class:`Param` (:data:`PARAMS`: the table, in documentation order).
TABLE = {p.name: p for p in PARAMS}
#: The parameters that hold a component (or a name that stands for one).
SLOTS = ("encoder", "attention", "optimizer", "early_stopping")


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
    """``(parameter, setting)`` for each parameter of ``values`` -- the
    estimator's, and its components' as ``slot__name`` -- that the other values
    leave unused, in the words of the warning: "... is not used when {setting}".
    ``values``: the estimator's settings, each slot holding its component (or
    None); ``aspect_type``: the (resolved) aspect type, when known."""
    encoder = values["encoder"]
    embeddings = getattr(encoder, "embeddings", None)
    groups = ENCODERS[encoder.kind].groups
    # (needs that these values leave unmet, the setting that leaves them unmet)
    unmet = [({"words"} - set(groups), f"encoder={encoder.kind!r}")]
    if values.get("variant") == "ae":
        unmet.append(({"attention"}, "variant='ae'"))
    if aspect_type == "category":
        unmet.append(({"terms"}, "aspect_type='category'"))
    if embeddings is None or embeddings in TRAINABLE_VECTORS:
        unmet.append(({"vector_file"}, f"embeddings={embeddings!r}"))
    needs = _needs(values)
    return [
        (name, setting)
        for missing, setting in unmet
        for name, needed in needs.items()
        if missing & needed
    ]


def needing(values: dict, need: str) -> list[str]:
    """The settings of ``values`` (as :func:`unused` names them) used only when
    ``need`` is met (``"terms"``: with aspect terms)."""
    return [name for name, needed in _needs(values).items() if need in needed]


def _needs(values: dict) -> dict:
    """Each setting of ``values`` -> the conditions under which it is used."""
    needs = {p.name: set(p.needs) for p in PARAMS if p.name in values}
    for slot in SLOTS:
        component = values.get(slot)
        for name, needed in getattr(component, "_needs", {}).items():
            needs[f"{slot}__{name}"] = set(needed)
    return needs


def setting(values: dict, name: str):
    """``(value, default)`` of the setting ``name`` of ``values``: an estimator's
    parameter, or a component's as ``slot__name``."""
    slot, _, own = name.partition("__")
    if not own:
        return values[name], TABLE[name].default
    component = values[slot]
    return getattr(component, own), type(component)().get_params()[own]


def warn_unused(values: dict, pairs, stacklevel: int = 3) -> None:
    """Warn, in scikit-learn's words, for each ``(parameter, setting)`` of ``pairs``
    whose value in ``values`` is not its default."""
    for name, reason in pairs:
        value, default = setting(values, name)
        if value is not default and value != default:
            warnings.warn(
                f"The parameter {name!r} is not used when {reason}.",
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
    "batch_by",
    "augment",
    "copy_weight",
    "lr",
    "batch_size",
    "max_epochs",
    "dropout",
    "precision",
    "mention_weight",
)
# Each encoder's recipe is in its entry of ENCODERS (params/recipes.py); these
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
    ``aspect_type`` and the training ``labels`` (None: not known yet): the
    parameters of :data:`AUTO_PARAMS` that ``values`` has, resolved, and each
    slot's component with its own ``"auto"`` parameters resolved (a copy).

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
    robustness (``benchmarks/behaviour.py``). The pretrained encoder's
    ``input``: the recipe's ``term_input`` for aspect terms (the term also as a second
    segment for the pretrained encoder, chosen by the same rule), the query
    alone for categories. ``batch_by``: whole sentences when the encoder does
    not see the aspect. The training settings
    (``lr``, ``batch_size``, ``max_epochs``, ``patience``, ``dropout``,
    ``lr_schedule``, ``freeze_embeddings``), ``head_lr`` and ``precision``
    (``"bfloat16"`` where the recipe says so and the resolved ``device`` computes
    it natively, else ``"float32"``, also with no device) come from the
    encoder's :class:`Recipe` in :data:`ENCODERS`, ``max_epochs`` for aspect
    terms and for the ``detector`` from its ``term_max_epochs`` and
    ``detector_max_epochs`` where it has them (30 for the LSTM's, chosen by
    validation accuracy, then robustness, ``benchmarks/lstm_training.py``; its
    pair classifier's categories keep the ``training`` 20 by it).
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
    recipe = ENCODERS[values["encoder"].kind].recipe
    resolved = {
        slot: _resolved_component(values[slot], recipe, term)
        for slot in SLOTS
        if values.get(slot) is not None
    }
    if term:
        epochs = recipe.term_max_epochs
    else:
        epochs = recipe.detector_max_epochs if detector else None
    rules = {
        **{k: recipe.training[k] for k in ("lr", "batch_size", "dropout")},
        "max_epochs": recipe.training["max_epochs"] if epochs is None else epochs,
        "precision": "bfloat16"
        if recipe.bfloat16 and device is not None and fast_bfloat16(device)
        else "float32",
        "aspect_type": aspect_type,
        "mention_weight": recipe.mention_weight,
    }
    for name in AUTO_PARAMS:
        if name not in values:
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
                term, values["encoder"].kind, labels, resolved.get("language"), detector
            )
        elif name == "copy_weight":
            english = resolved.get("language") == "en"
            resolved[name] = (
                recipe.detector_copy_weight if detector and english else 1.0
            )
        elif name == "language":  # (no texts: the checks before fit, which
            # read no language)
            resolved[name] = None if texts is None else auto_language(texts)
        else:
            resolved[name] = rules[name]
    return resolved


def _component_rules(component, recipe: Recipe, term: bool) -> dict:
    """What each ``"auto"`` parameter of ``component`` stands for with
    ``recipe``'s encoder and aspect terms (``term``) or categories."""
    slot = component.slot
    if slot == "encoder":
        fasttext = getattr(component, "embeddings", None) == "fasttext"
        return {
            "hidden_size": LSTM_SIZE,
            "bidirectional": term,
            "input": recipe.term_input if term else "vector",
            "freeze_embeddings": recipe.training["freeze_embeddings"],
            "unseen_words": "vectors" if fasttext else "spelling",
            "word_dropout": recipe.term_word_dropout
            if term
            else recipe.category_word_dropout,
        }
    if slot == "attention":
        return {
            "final_state": "term" if term else False,
            "position_weighting": recipe.term_position if term else "none",
        }
    if slot == "optimizer":
        return {
            "head_lr": recipe.head_lr,
            "lr_schedule": recipe.training["lr_schedule"],
        }
    return {"patience": recipe.training["patience"]}  # early stopping


def _resolved_component(component, recipe: Recipe, term: bool):
    """``component`` with each of its ``"auto"`` parameters resolved and numpy
    scalars as Python values (a copy): the plain configuration building and
    training read."""
    rules = _component_rules(component, recipe, term)
    params = component.get_params(deep=False)
    return type(component)(
        **{
            name: rules[name] if is_auto(value) else plain(value)
            for name, value in params.items()
        }
    )


def resolved_record(values: dict, names) -> dict:
    """``resolved_params_`` of resolved ``values``: the value of each of the
    estimator's parameters ``names`` that can be ``"auto"``, and of each of its
    components' as ``slot__name``; scikit-learn's names, so that
    ``set_params(**resolved_params_)`` gives an estimator that trains as the fit
    did."""
    record = {
        name: values[name]
        for name in AUTO_PARAMS
        if name in names and not is_auto(values.get(name, "auto"))
    }
    for slot in SLOTS:
        component = values.get(slot)
        if component is not None:
            for name in component.auto_names():
                record[f"{slot}__{name}"] = getattr(component, name)
    return record


def resolve_tagger_auto(values: dict, encoder) -> dict:
    """What the ``"auto"`` training settings of a span tagger (the extractor, the
    joint model) stand for with ``encoder`` (its component): ``dropout``, ``lr``,
    ``batch_size`` and ``max_epochs`` of ``values`` from the encoder's recipe (its
    ``tagger``), the patience of its ``early_stopping`` (the component, or None) as
    ``early_stopping__patience``, the LSTM's size (:data:`TAGGER_LSTM_SIZE`) as
    ``encoder__hidden_size``, and the resolved ``language`` of ``values``.
    (``decoding="auto"`` is read at each prediction: the recipe's
    ``extractor_decoding`` or ``joint_decoding``; the joint model's copies: its
    ``tagger_copies``.)"""
    rules = ENCODERS[encoder.kind].recipe.tagger
    resolved = {
        name: rules[name] if is_auto(values[name]) else values[name]
        for name in ("dropout", "lr", "batch_size", "max_epochs")
    }
    stopping = values["early_stopping"]
    if stopping is not None:
        patience = stopping.patience
        resolved["early_stopping__patience"] = (
            rules["patience"] if is_auto(patience) else patience
        )
    resolved["language"] = values["language"]
    if encoder.kind == "lstm":
        size = encoder.hidden_size
        resolved["encoder__hidden_size"] = TAGGER_LSTM_SIZE if is_auto(size) else size
    return resolved


def _copies(term: bool, encoder: str, labels, language, detector: bool) -> str | None:
    """``augment="auto"``: the encoder's recipe's copies -- for terms its
    ``term_copies`` (English alone: they reverse English opinion words and join
    with English connectives), for the pair classifier's categories and the
    detector's its ``category_copies`` and ``detector_copies`` (in other
    languages their joins alone) -- and none without the labels ``"positive"``
    and ``"negative"``."""
    if labels is not None and missing_join_labels(labels):
        return None
    recipe = ENCODERS[encoder].recipe
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


def check_resolved(record, components: dict) -> dict:
    """Validate a ``resolved_params_`` read from a file: a dict of parameters of
    :data:`AUTO_PARAMS` and of the ``components``' (slot -> component or None)
    ``"auto"`` parameters as ``slot__name``, each a value its constraints allow
    other than ``"auto"``. Raises ``ValueError``."""
    if not isinstance(record, dict):
        raise ValueError("resolved_params_ must be an object")
    for key, value in record.items():
        slot, _, name = str(key).partition("__")
        component = components.get(slot) if name else None
        if component is not None and name in component.auto_names():
            allowed = component._parameter_constraints[name]
        elif key in AUTO_PARAMS:
            allowed = TABLE[key].constraints
        else:
            raise ValueError(f"resolved_params_ has an unknown key {str(key)[:80]!r}")
        if is_auto(value) or not satisfies(value, allowed):
            raise ValueError(f"resolved_params_[{key!r}] is not a valid {key}")
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
        """The config of ``values`` (parameters not given: their defaults; the
        encoder and the attention: the components, resolved)."""
        return cls(**cls.pick(values))

    def encoder_sees_aspect(self, aspect_type: str) -> bool:
        """Whether the encoder's input depends on the aspect (each pair is then its
        own encoder pass): the aspect in every word, as a second segment, or the
        term's tokens flagged (options whose needs the encoder meets)."""
        groups = ENCODERS[self.encoder.kind].groups
        return (
            self.variant != "at"
            or getattr(self.encoder, "input", None) == "pair"
            or (aspect_type == "term" and self.term_marker and "words" in groups)
        )


class _TrainingConfigMethods(_Config):
    @classmethod
    def from_params(cls, values: dict, run_params: dict | None = None):
        """The config of ``values``; ``run_params``: every parameter of the
        estimator as data, which identifies a run for resuming from a
        checkpoint."""
        return cls(
            **cls.pick(values),
            encoder=values["encoder"],
            run_params=dict(run_params or {}),
        )


ModelConfig = _config_class(
    "ModelConfig",
    "model",
    _ModelConfigMethods,
    [],
    """The parameters that building a model reads (text pipeline, word vectors,
    encoder, attention, head): a field per table parameter that goes to
    ``"model"``; ``encoder`` and ``attention`` hold the resolved components,
    whose attributes are their parameters. Built once in ``fit`` by
    :meth:`from_params`.""",
)
TrainingConfig = _config_class(
    "TrainingConfig",
    "training",
    _TrainingConfigMethods,
    [
        # the encoder (its embedding table's rate, freezing, layer-wise decay)
        ("encoder", Any, field(default=None)),
        # a teacher's share of the loss and its temperature (distillation)
        ("distill_weight", float, field(default=0.5)),
        ("distill_temperature", float, field(default=2.0)),
        ("keep_sentences", bool, field(default=False)),
        ("run_params", dict, field(default_factory=dict)),
    ],
    """The parameters that training reads (optimizer, batches, validation,
    stopping, checkpoints, the detector's loss): a field per table parameter that
    goes to ``"training"`` (``optimizer`` and ``early_stopping``: the resolved
    components, or None for no early stopping), and the resolved ``encoder``.
    Built once in ``fit`` by :meth:`from_params`; ``run_params`` (every
    parameter) identifies a run for resuming.""",
)
