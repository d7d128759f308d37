"""Old import path of the pair classifier, kept so that code and pickles written
for earlier releases keep working: see :mod:`aspectattn.estimators.pairs`."""

from . import params as _params
from .estimators._base import FITTED_ATTRIBUTES
from .estimators.pairs import AspectAttentionClassifier

__all__ = ["AspectAttentionClassifier", "ENCODER_PARAMS", "FITTED_ATTRIBUTES"]

#: Parameters that only some encoders use (derived from :mod:`aspectattn.params`).
ENCODER_PARAMS = {
    p.name: tuple(
        name
        for name, groups in _params.ENCODER_GROUPS.items()
        if all(n in groups for n in p.needs if n in ("words", *_params.ENCODER_GROUPS))
    )
    for p in _params.PARAMS
    if any(n in ("words", *_params.ENCODER_GROUPS) for n in p.needs)
}
