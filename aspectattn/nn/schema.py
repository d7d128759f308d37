"""The saved model configuration: every field of the keyword arguments of
:class:`~aspectattn.nn.model.AspectAttentionModel` read from a file, checked
against a schema before anything is built."""

from __future__ import annotations

from ..params import (
    ATTENTION_SCORES,
    FINAL_STATES,
    POSITION_WEIGHTINGS,
    TERM_QUERIES,
    VARIANTS,
)

__all__ = ["check_module_config"]

_INT_LIMIT = 10**8


def _int(low: int, high: int = _INT_LIMIT):
    def check(v):
        return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high

    check.description = f"an int in [{low}, {high}]"
    return check


def _fraction(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1


_fraction.description = "a number in [0, 1)"


def _one_of(*values):
    def check(v):
        return isinstance(v, (str, bool)) and v in values

    check.description = f"one of {values}"
    return check


def _json_config(value, depth: int = 0) -> bool:
    """A JSON object of bounded size (a pretrained checkpoint's configuration)."""
    if depth > 6:
        return False
    if isinstance(value, dict):
        return len(value) <= 1000 and all(
            isinstance(k, str) and _json_config(v, depth + 1) for k, v in value.items()
        )
    if isinstance(value, list):
        return len(value) <= 10_000 and all(_json_config(v, depth + 1) for v in value)
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return True
    return isinstance(value, int) and abs(value) <= _INT_LIMIT


_json_config.description = "a JSON object of bounded size"

_ENCODER_SCHEMAS = {
    "lstm": {
        "vocab_size": _int(2),
        "embedding_dim": _int(1, 100_000),
        "hidden_size": _int(1, 100_000),
        "bidirectional": _one_of(True, False),
        "embedding_dropout": _fraction,
        "marker_size": _int(0, 1),
    },
    "transformer": {
        "vocab_size": _int(2),
        "embedding_dim": _int(1, 100_000),
        "embedding_dropout": _fraction,
        "d_model": _int(1, 100_000),
        "n_layers": _int(1, 256),
        "n_heads": _int(1, 1024),
        "ff_size": _int(1, 1_000_000),
        "dropout": _fraction,
        "norm_first": _one_of(True, False),
        "positional": _one_of("sinusoidal", "learned"),
        "position_merge": _one_of("add", "concat"),
        "max_len": _int(1, 1_000_000),
        "marker_size": _int(0, 1),
    },
    "pretrained": {
        "pretrained_config": _json_config,
        "pair_input": _one_of(True, False),
        "sep_id": _int(0),
    },
}
# Keys a file from an earlier version may lack.
_OPTIONAL = {
    "position_merge",
    "marker_size",
    "position_weighting",
    "term_marker",
    "term_query",
    "final_state",
}
_MODEL_SCHEMA = {
    "encoder": _one_of(*_ENCODER_SCHEMAS),
    "encoder_config": lambda v: isinstance(v, dict),
    "n_classes": _int(2, 100_000),
    "aspect_type": _one_of("category", "term"),
    "n_aspects": _int(1, 1_000_000),
    "aspect_size": lambda v: v is None or _int(1, 100_000)(v),
    "variant": _one_of(*VARIANTS),
    "attention_score": lambda v: isinstance(v, str) and v in ATTENTION_SCORES,
    "attention_heads": _int(1, 1024),
    "dropout": _fraction,
    "final_state": _one_of(*FINAL_STATES),
    "position_weighting": _one_of(*POSITION_WEIGHTINGS),
    "term_marker": _one_of(True, False),
    "term_query": _one_of(*TERM_QUERIES),
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
    for key, check in schema.items():
        if key in config and not check(config[key]):
            description = getattr(check, "description", "valid")
            raise ValueError(f"{what}[{key!r}] must be {description}")
    return config


def check_module_config(config) -> dict:
    """Validate :class:`AspectAttentionModel` keyword arguments read from a file.

    Returns the configuration; raises ``ValueError`` naming the first bad field.
    """
    _check_schema(config, _MODEL_SCHEMA, "the module configuration")
    encoder = config["encoder"]
    _check_schema(
        config["encoder_config"], _ENCODER_SCHEMAS[encoder], "the encoder configuration"
    )
    if encoder == "pretrained":
        pretrained = config["encoder_config"]["pretrained_config"]
        for key in ("num_hidden_layers", "num_attention_heads"):
            if not _int(1, 256)(pretrained.get(key, 1)):
                raise ValueError(
                    f"the checkpoint configuration's {key} is out of range"
                )
    return config
