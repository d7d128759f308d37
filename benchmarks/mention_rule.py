"""How the category detector reads a mention from its probabilities: the
single likeliest label of each (sentence, category) cell (``predict`` before),
against the mention's own probability -- the sum of the polarities', at least
0.5 -- with the likeliest polarity (``predict`` now, and what ``analyze`` lists
by default).

    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 python -m benchmarks \
        mention_rule [--workers N --worker I] [--seeds 0 1 2]
    ASPECTATTN_DATA=../shared/data python -m benchmarks mention_rule --table

Each run fits the LSTM detector's defaults (``AspectCategoryClassifier()``)
with one seed on the same 90% of a category table's training sentences as
:mod:`benchmarks.behaviour`'s detector runs, then reads the other 10%
(**validation**, what chooses) and the test sentences (**reported**, chooses
nothing) both ways: one fit, two readings of the same probabilities. Scores:
(category, polarity) micro-F1 (``score``), the categories' detection micro-F1
(whatever the polarity), the ARS of the AddDiff probes (the detector must find
the category with its polarity in both the sentence and its variant), and, on
the test side, the share of the mentioned pairs, and of those whose sentence's
categories disagree, found with their polarity; and the behavioural suite's
detection tests (:func:`aspectattn.evaluation.score_detection`: the categories
a sentence is about found, their polarity, no other category found), which
choose nothing.

The rule, stated before the runs: of the two readings, those whose validation
(category, polarity) micro-F1, averaged over the two data sets, is at most 0.5
point below the better one's, the one with the better validation ARS averaged
over them; on a tie, the mention's own probability (what ``analyze`` reads).
The test and suite columns choose nothing.
"""

from __future__ import annotations

import time

from aspectattn import AspectCategoryClassifier
from aspectattn.estimators.categories import detection_f1, mention_f1
from aspectattn.evaluation import pair_answers, score_detection
from benchmarks.behaviour import (
    DETECTOR_DATA,
    load_table,
    robustness,
    table_pairs,
)
from benchmarks.common import TEN_PASSES, TWENTY_EPOCHS, pair_scores
from benchmarks.runner import Experiment, read_runs, summarize_by

SEEDS = (0, 1, 2)
#: The readings, by their keys' suffix.
READINGS = {
    "likeliest": "the single likeliest label",
    "mention": "the mention's own probability",
}
CANDIDATES = {"LSTM detector: defaults": {}}


class LikeliestLabel:
    """A fitted detector read the other way: each cell's single likeliest label
    (``predict`` before), as the evaluation functions call a detector."""

    def __init__(self, detector):
        self.detector = detector
        self.categories_ = detector.categories_
        self.not_mentioned = detector.not_mentioned

    def predict(self, X):
        detector = self.detector
        return detector.labels_[detector._category_proba(X).argmax(-1)]


def run(candidate: str, data: str, seed: int) -> dict:
    train, valid, test = load_table(data)
    start = time.perf_counter()
    detector = AspectCategoryClassifier(
        random_state=seed, **TWENTY_EPOCHS, **CANDIDATES[candidate]
    )
    detector.fit(*train)
    out = {"candidate": candidate, "data": data, "seed": seed}
    out["fit_seconds"] = time.perf_counter() - start
    clauses = table_pairs(*train)
    readers = {"likeliest": LikeliestLabel(detector), "mention": detector}
    for reading, reader in readers.items():
        for side, (texts, Y) in (("valid", valid), ("test", test)):
            predicted = reader.predict(texts)
            out[f"{side}_f1_{reading}"] = 100 * mention_f1(Y.to_numpy(), predicted)
            out[f"{side}_detection_{reading}"] = 100 * detection_f1(
                Y.to_numpy(), predicted
            )
            pairs, labels = table_pairs(texts, Y)
            ars = robustness(reader, pairs, labels, clauses, seed, f"{side}_")
            out[f"{side}_ars_{reading}"] = ars[f"{side}_ars"]
        pairs, labels = table_pairs(*test)
        found = pair_scores(pair_answers(reader, pairs), pairs, labels)
        out[f"test_found_{reading}"] = found["accuracy"]
        out[f"test_disagree_{reading}"] = found["disagree_accuracy"]
        suite = score_detection(reader)  # (the suite measures, it never chooses)
        for key in ("found", "polarity", "no_false_mentions"):
            value = suite[key]  # (None: nothing to score)
            out[f"suite_{key}_{reading}"] = None if value is None else 100 * value
    return out


KEYS = [
    (f"{side}_{key}_{reading}", f"{side} {label}, {reading}")
    for side, key, label in (
        ("valid", "f1", "(category, polarity) F1"),
        ("valid", "ars", "ARS"),
        ("test", "f1", "(category, polarity) F1"),
        ("test", "detection", "detection F1"),
        ("test", "found", "pairs found with their polarity"),
        ("test", "disagree", "disagreeing pairs"),
        ("test", "ars", "ARS"),
        ("suite", "found", "detection tests: found"),
        ("suite", "polarity", "detection tests: polarity"),
        ("suite", "no_false_mentions", "detection tests: no false mentions"),
    )
    for reading in READINGS
]


def decision(rows: list[dict]) -> str | None:
    """The rule's reading (None until both data sets have runs)."""
    summary = summarize_by(rows, KEYS, DETECTOR_DATA, CANDIDATES)
    if {r["data"] for r in summary} != set(DETECTOR_DATA):
        return None

    def mean(key: str) -> float:
        return sum(r[key][0] for r in summary) / len(summary)

    f1 = {reading: mean(f"valid_f1_{reading}") for reading in READINGS}
    eligible = [r for r in READINGS if f1[r] >= max(f1.values()) - 0.5]
    ars = {reading: mean(f"valid_ars_{reading}") for reading in READINGS}
    best = max(ars[r] for r in eligible)
    # on a tie the mention's own probability (listed last: max keeps the last)
    return [r for r in eligible if ars[r] == best][-1]


def note() -> str:
    chosen = decision(read_runs(EXPERIMENT.log))
    said = READINGS[chosen] if chosen else "not yet measured"
    return (
        "In %, mean ± std over 3 seeds, one fit per row read both ways: "
        "'likeliest', each (sentence, category) cell's single likeliest label "
        "(predict before); 'mention', the category mentioned when the sum of "
        "its polarities' probabilities is at least 0.5, with its likeliest "
        "polarity (predict now, and analyze's default). Validation: 10% of the "
        "training sentences, as in benchmarks.behaviour's detector runs. ARS: "
        "each mentioned pair and its AddDiff variant, found with its polarity "
        "in both. The rule: of the readings whose validation (category, "
        "polarity) micro-F1 averaged over the two data sets is at most 0.5 "
        "point below the better one's, the better validation ARS averaged over "
        f"them; on a tie the mention's own probability. Chosen: {said}. The "
        "test and suite columns choose nothing (the suite's sentences of "
        "SemEval-15, whose categories it does not name: those about no aspect "
        "in particular alone). One thread each on a 2-core CPU."
    )


EXPERIMENT = Experiment(
    "mention_rule",
    DETECTOR_DATA,
    CANDIDATES,
    run,
    KEYS,
    note,
    SEEDS,
    vector_passes=TEN_PASSES,
)


def main() -> None:
    EXPERIMENT.main(EXPERIMENT.parser(__doc__.splitlines()[0]).parse_args())


if __name__ == "__main__":
    main()
