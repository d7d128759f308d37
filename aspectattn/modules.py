"""Old import path of the torch model, kept for code written for earlier releases:
see :mod:`aspectattn.nn` (:mod:`~aspectattn.nn.model`, :mod:`~aspectattn.nn.ops`,
:mod:`~aspectattn.nn.schema`)."""

from .nn.model import MAX_DISTANCE, AspectAttentionModel
from .nn.ops import (
    clip_spans,
    distance_weights,
    first_of_group,
    span_mask,
    span_mean,
    token_distances,
    uses_position,
)
from .nn.schema import check_module_config
from .params import FINAL_STATES, POSITION_WEIGHTINGS, TERM_QUERIES, VARIANTS

__all__ = [
    "AspectAttentionModel",
    "MAX_DISTANCE",
    "VARIANTS",
    "POSITION_WEIGHTINGS",
    "TERM_QUERIES",
    "FINAL_STATES",
    "first_of_group",
    "span_mask",
    "distance_weights",
    "token_distances",
    "span_mean",
    "clip_spans",
    "uses_position",
    "check_module_config",
]
