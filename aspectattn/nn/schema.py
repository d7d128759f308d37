"""The saved model configuration: every field of the keyword arguments of
:class:`~aspectattn.nn.model.AspectAttentionModel` read from a file, checked before
anything is built.

Nothing here restates a bound: a field that is a parameter is checked against the
constraints of the estimators' table or of the component that declares it
(:func:`aspectattn.params.value_constraints`), the
encoder's own configuration against the ``config_schema`` its class declares in its
module, and the encoder's name against the registry
(:data:`aspectattn.params.ENCODERS`).
"""

from __future__ import annotations

from numbers import Integral

from ..attention import AspectAttention
from ..encoders import WORD_CONSTRAINTS
from ..params import ENCODERS, TABLE, value_constraints
from ..params._constraints import Interval, StrOptions, satisfies
from .encoders import get_encoder

__all__ = ["check_module_config", "MODEL_SCHEMA"]

#: Keys a file from an earlier version may lack.
_OPTIONAL = {
    "position_merge",
    "marker_size",
    "position_weighting",
    "position_dropout",
    "term_marker",
    "term_query",
    "final_state",
}
#: The module's own keys (not parameters: what fit derived from the data).
_DERIVED = {
    "encoder": [StrOptions(set(ENCODERS))],
    "encoder_config": [dict],
    "n_classes": [Interval(Integral, 2, 100_000, closed="both")],
    "aspect_type": [StrOptions({"category", "term"})],
    "n_aspects": [Interval(Integral, 1, 1_000_000, closed="both")],
}
#: The attention's parameters, under the module's names where they differ.
_ATTENTION = {
    "attention_score": "score",
    "attention_heads": "heads",
    "final_state": "final_state",
    "position_weighting": "position_weighting",
    "position_dropout": "position_dropout",
    "term_query": "term_query",
}
#: The module configuration: its own keys, then the parameters it holds.
MODEL_SCHEMA = {
    **_DERIVED,
    "aspect_size": [None, *value_constraints(WORD_CONSTRAINTS["aspect_size"])],
    **{
        key: value_constraints(AspectAttention._parameter_constraints[name])
        for key, name in _ATTENTION.items()
    },
    **{
        name: value_constraints(TABLE[name].constraints)
        for name in ("variant", "dropout", "term_marker")
    },
}


def _check_schema(config, schema: dict, what: str) -> dict:
    if not isinstance(config, dict):
        raise ValueError(f"{what} must be an object")
    missing = set(schema) - set(config) - _OPTIONAL
    extra = set(config) - set(schema)
    if missing or extra:
        raise ValueError(
            f"{what} has missing {sorted(missing)} or unknown {sorted(extra)[:5]} keys"
        )
    for key, allowed in schema.items():
        if key in config and not satisfies(config[key], allowed):
            described = " or ".join("None" if c is None else str(c) for c in allowed)
            raise ValueError(f"{what}[{key!r}] must be {described}")
    return config


def check_module_config(config) -> dict:
    """Validate :class:`AspectAttentionModel` keyword arguments read from a file.

    Returns the configuration; raises ``ValueError`` naming the first bad field.
    """
    _check_schema(config, MODEL_SCHEMA, "the module configuration")
    encoder = get_encoder(config["encoder"])
    _check_schema(
        config["encoder_config"], encoder.config_schema, "the encoder configuration"
    )
    encoder.check_config(config["encoder_config"])
    return config
