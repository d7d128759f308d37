"""Aspect-level behaviour, measured beside accuracy: a behavioural suite of
template sentences whose aspects disagree (:mod:`~aspectattn.evaluation.suite`)
and ARTS-style robustness probes made from your own data
(:mod:`~aspectattn.evaluation.arts`). They measure; they never train."""

from .arts import VARIANTS, arts_probes, aspect_robustness_score, pair_answers
from .suite import (
    TESTS,
    behaviour_suite,
    format_behaviour,
    score_behaviour,
    score_detection,
)

__all__ = [
    "behaviour_suite",
    "score_behaviour",
    "format_behaviour",
    "score_detection",
    "TESTS",
    "arts_probes",
    "aspect_robustness_score",
    "pair_answers",
    "VARIANTS",
]
