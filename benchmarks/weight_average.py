"""Averaged weights for the span taggers: the LSTM extractor's and the LSTM
joint model's defaults, trained as they are, against the same models scored and
kept with an exponential moving average of their weights (Polyak averaging), on
SemEval-2014 laptops and restaurants.

    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 python -m benchmarks \
        weight_average [--workers N --worker I] [--candidates ...] [--seeds 0 1 2]
    ASPECTATTN_DATA=../shared/data python -m benchmarks weight_average --table

The average follows every training step, ``a = d * a + (1 - d) * w`` with ``d``
the smaller of :data:`DECAY` and ``(1 + t) / (10 + t)`` after ``t`` steps (so
that the first steps do not hold it near the initial weights); training goes on
from the weights themselves. At each epoch's end the average is what the
validation F1 scores and what the epoch kept holds; the validation loss, whose
share of the epoch's score only breaks ties of F1, is the weights' own. A
benchmark candidate, not a setting (:class:`AveragedSpanF1`, the taggers'
validation callback with the average).

Each run fits one model with one seed on the same 90% of a data set's training
sentences as :mod:`benchmarks.extraction`, and scores the other 10%
(**validation**, what chooses) and the test sentences (**reported**): the
extractor by exact-span F1, the joint model by end-to-end F1 and the ARS of the
validation terms given. The rule, as :mod:`benchmarks.decoding` chooses for
each model (committed before the runs): for the extractor, the better mean
validation F1 averaged over the two data sets; for the joint model, of the two
within one standard deviation of the better validation F1 on both, the better
validation ARS, then F1. A tie keeps the weights as they are.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from aspectattn import AspectSentimentExtractor, AspectTermExtractor
from aspectattn.evaluation import aspect_robustness_score
from aspectattn.extraction._nets import ValidJointF1, ValidSpanF1
from benchmarks.common import TEN_PASSES
from benchmarks.decoding import read_each
from benchmarks.extraction import ENGLISH, load
from benchmarks.joint import given, joint_rule
from benchmarks.runner import Experiment

SEEDS = (0, 1, 2)
#: The average's decay per training step (its horizon about 100 steps: an
#: epoch of the LSTM taggers' batches on these data sets).
DECAY = 0.99


class _Averaging:
    """A validation callback's mixin that keeps the moving average of the
    module's parameters and scores (and leaves for the epoch kept) the average
    at each epoch's end."""

    def initialize(self):
        self.average_, self.raw_, self.steps_ = None, None, 0
        return super().initialize()

    def _parameters(self, net) -> list:
        return [p for p in net.module_.parameters() if p.requires_grad]

    def on_batch_end(self, net, batch=None, training=False, **kwargs):
        if not training:
            return
        with torch.no_grad():
            params = self._parameters(net)
            if self.average_ is None:
                self.average_ = [p.detach().clone() for p in params]
                return
            self.steps_ += 1
            d = min(DECAY, (1 + self.steps_) / (10 + self.steps_))
            for a, p in zip(self.average_, params, strict=True):
                a.mul_(d).add_(p.detach(), alpha=1 - d)

    def on_epoch_begin(self, net, **kwargs):
        if self.raw_ is not None:  # training goes on from the weights themselves
            with torch.no_grad():
                for p, raw in zip(self._parameters(net), self.raw_, strict=True):
                    p.copy_(raw)
            self.raw_ = None

    def on_epoch_end(self, net, **kwargs):
        if self.average_ is not None:
            with torch.no_grad():
                params = self._parameters(net)
                self.raw_ = [p.detach().clone() for p in params]
                for p, a in zip(params, self.average_, strict=True):
                    p.copy_(a)
        super().on_epoch_end(net, **kwargs)


class AveragedSpanF1(_Averaging, ValidSpanF1):
    """The extractor's validation F1, of the averaged weights."""


class AveragedJointF1(_Averaging, ValidJointF1):
    """The joint model's validation F1, of the averaged weights."""


class AveragedExtractor(AspectTermExtractor):
    _SCORING = AveragedSpanF1


class AveragedJoint(AspectSentimentExtractor):
    _SCORING = AveragedJointF1


#: Candidate -> the estimator it fits with its defaults.
CANDIDATES = {
    "LSTM extractor: defaults": AspectTermExtractor,
    "LSTM extractor: averaged weights": AveragedExtractor,
    "joint LSTM: defaults": AspectSentimentExtractor,
    "joint LSTM: averaged weights": AveragedJoint,
}
MODELS = ("LSTM extractor", "joint LSTM")


def run(candidate: str, data: str, seed: int) -> dict:
    train, valid, test = load(data)
    start = time.perf_counter()
    model = CANDIDATES[candidate](random_state=seed).fit(*train)
    out = {"candidate": candidate, "data": data, "seed": seed}
    out["fit_seconds"] = time.perf_counter() - start
    out["best_epoch"] = model.best_epoch_
    for side, (texts, y) in (("valid", valid), ("test", test)):
        scores = read_each(model, texts, y, ("auto",))["auto"]  # (as it reads)
        out |= {f"{side}_{key}": value for key, value in scores.items()}
    if isinstance(model, AspectSentimentExtractor):
        probes = aspect_robustness_score(model.given_terms(), *given(*valid))
        out["valid_ARS"] = 100 * probes["ARS"]
    return out


KEYS = [
    ("valid_f1", "valid F1"),
    ("valid_ARS", "valid ARS (joint)"),
    ("test_f1", "test F1"),
    ("test_span_f1", "test terms F1"),
    ("best_epoch", "epoch kept"),
]


def choose(rows: list[dict]) -> None:
    """The rule (the module's docstring): mark each model's chosen rows."""
    cell = {(r["data"], r["candidate"]): r for r in rows}
    for model in MODELS:
        names = [  # (the defaults first: a tie keeps them)
            c
            for c in CANDIDATES
            if c.startswith(model + ":") and all((d, c) in cell for d in ENGLISH)
        ]
        if len(names) < 2:
            continue
        if model == "joint LSTM":
            chosen = joint_rule(cell, names)
        else:
            f1 = {
                c: np.mean([cell[d, c]["valid_f1"][0] for d in ENGLISH]) for c in names
            }
            chosen = max(names, key=f1.get)
        for data in ENGLISH:
            cell[data, chosen]["chosen"] = True


NOTE = (
    "F1 in %, mean ± std over 3 seeds; the extractor's exact-span F1, the joint "
    "model's end-to-end F1 (its terms' F1 beside); validation: 10% of the "
    "training sentences, as in the extraction table. Averaged weights: an "
    f"exponential moving average of every training step's weights (decay "
    f"{DECAY}), scored and kept at each epoch's end, training going on from the "
    "weights themselves. Chosen per model: the extractor, the better mean "
    "validation F1 over both data sets; the joint model, of the two within one "
    "standard deviation of the better validation F1 on both, the better "
    "validation ARS, then F1; a tie keeps the defaults. The test columns choose "
    "nothing. One thread each on a 2-core CPU."
)

EXPERIMENT = Experiment(
    "weight_average",
    ENGLISH,
    CANDIDATES,
    run,
    KEYS,
    NOTE,
    SEEDS,
    None,
    choose,
    vector_passes=TEN_PASSES,
)


def main() -> None:
    EXPERIMENT.main(EXPERIMENT.parser(__doc__.splitlines()[0]).parse_args())


if __name__ == "__main__":
    main()
