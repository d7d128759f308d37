"""How the span taggers read their tags: greedy (each token's most likely tag)
against Viterbi (each sentence's most likely tag sequence in which every term
starts with a B), and a linear-chain CRF (``decoding="crf"``: tag transitions
learned with the tags, the whole sequence's likelihood the tags' loss, read
with Viterbi under them), for the LSTM extractor's and the LSTM joint model's
defaults, on SemEval-2014 laptops and restaurants (which choose) and the
SemEval-2016 restaurants in Dutch, French, Russian, Spanish and Turkish
(reported).

    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 python -m benchmarks \
        decoding [--workers N --worker I] [--candidates ...] [--seeds 0 1 2]
    ASPECTATTN_DATA=../shared/data python -m benchmarks decoding --table
    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 python -m benchmarks \
        decoding --speed

Each run fits one model's defaults with one seed on the same 90% of a data
set's training sentences as :mod:`benchmarks.extraction`, the epoch chosen on
the tags read one way (``fit`` reads them as ``decoding`` says; the first runs
chose it on the greedy tags, whatever ``decoding`` said), then reads the other
10% (**validation**, what chooses) and the test sentences (**reported**, chooses
nothing) both ways: ``set_params(decoding=...)`` needs no refit. A CRF's fit
chooses its epoch on the tags read as a CRF and is read three ways (greedy and
Viterbi read its tag scores without the transitions). The
extractor is scored by exact-span F1 (SemEval's), the joint model by
end-to-end F1 (gold ``conflict`` terms count neither way; its spans' F1 is
reported beside).

The rule, per model, over the fits (the epoch chosen on greedy or on Viterbi
tags) and the readings, as :mod:`benchmarks.extraction` and
:mod:`benchmarks.joint` choose (the LSTM's size is the same for every pair):
for the extractor, the pair with the best mean validation F1 averaged over the
two English data sets; for the joint model, of the pairs whose mean validation
end-to-end F1 is within one standard deviation of the best pair's on both, the
best validation ARS of the gold terms given (which a fit's epoch can change and
a reading cannot), then F1. On a tie the greedy one, the way the taggers read
before; between Viterbi and a CRF, Viterbi (the CRF candidates were added after
Viterbi was chosen, under this same rule). The rule chooses in rounds, each
among fits made with the same code (``ROUNDS``): the first chose Viterbi and
the epochs; the second fits each model's default again ("again") beside a CRF,
so that the CRF is compared with the default as the code is now, not with fits
of an older version. The third, after :mod:`benchmarks.own_vectors` chose 30
passes of the attention estimators' own word vectors (the span taggers then
made gensim's 10): each model's default fitted again beside the same with its own
vectors trained 30 passes (:data:`aspectattn.params.VECTOR_PASSES` patched in;
the experiment pins 10 for every other run), on
the English data sets alone, each fit read as its default reads (the
extractor as a CRF, the joint model with Viterbi), by the same rule; on a tie
the 10 passes. Set before its runs. The languages choose nothing: they show
whether the choice holds where it was not made (PyABSA's files hold only the
sentences with terms).
``--speed``: ``predict`` on every laptop sentence, both ways, one thread, best
of 3; run it with nothing else running.
"""

from __future__ import annotations

import json
import time
from contextlib import nullcontext
from unittest import mock

import numpy as np

from aspectattn import AspectSentimentExtractor, AspectTermExtractor, params
from aspectattn.evaluation import aspect_robustness_score
from aspectattn.extraction.metrics import span_scores
from aspectattn.extraction.words import DECODINGS
from benchmarks.common import RESULTS, TEN_PASSES
from benchmarks.extraction import ENGLISH, LANGUAGES, load
from benchmarks.joint import _timed, end_to_end, given
from benchmarks.runner import Experiment, read_runs

DATA = ENGLISH + LANGUAGES
SEEDS = (0, 1, 2)
#: Candidate -> the model whose defaults it fits, and the decoding its epoch is
#: chosen on.
CANDIDATES = {
    "LSTM extractor: epoch on greedy tags": (AspectTermExtractor, "greedy"),
    "joint LSTM: epoch on greedy tags": (AspectSentimentExtractor, "greedy"),
    "LSTM extractor: epoch on Viterbi tags": (AspectTermExtractor, "viterbi"),
    "joint LSTM: epoch on Viterbi tags": (AspectSentimentExtractor, "viterbi"),
    # the second round, on the code of session 44: each model's default (as
    # the first round chose it) fitted again beside a CRF
    "LSTM extractor: epoch on greedy tags, again": (AspectTermExtractor, "greedy"),
    "joint LSTM: epoch on Viterbi tags, again": (AspectSentimentExtractor, "viterbi"),
    "LSTM extractor: CRF": (AspectTermExtractor, "crf"),
    "joint LSTM: CRF": (AspectSentimentExtractor, "crf"),
    # the third round, after benchmarks/own_vectors.py chose 30 passes of the
    # attention estimators' own word vectors: each model's default fitted again
    # beside the same with its own vectors trained 30 passes (English only)
    "LSTM extractor: CRF, third round": (AspectTermExtractor, "crf"),
    "joint LSTM: epoch on Viterbi tags, third round": (
        AspectSentimentExtractor,
        "viterbi",
    ),
    "LSTM extractor: CRF, own vectors of 30 passes": (AspectTermExtractor, "crf"),
    "joint LSTM: own vectors of 30 passes": (AspectSentimentExtractor, "viterbi"),
}
#: The candidates whose own word vectors make 30 passes (the others gensim's 10).
THIRTY_PASSES = (
    "LSTM extractor: CRF, own vectors of 30 passes",
    "joint LSTM: own vectors of 30 passes",
)
#: The rounds the rule chooses in, each among its own candidates (fitted with
#: the same code): the first round chose Viterbi and the epochs; the second
#: puts a CRF beside each model's default as the first chose it.
ROUNDS = {
    "first": tuple(CANDIDATES)[:4],
    "second": tuple(CANDIDATES)[4:8],
    "third": tuple(CANDIDATES)[8:],
}
#: The models, by the candidates' names' prefix.
MODELS = ("LSTM extractor", "joint LSTM")


def readings(crf: bool) -> tuple:
    """The decodings a fit is read with: a CRF's (``crf``) in every way, the
    others' greedy and with Viterbi (they learn no transitions)."""
    return DECODINGS if crf else tuple(d for d in DECODINGS if d != "crf")


def is_crf(candidate: str) -> bool:
    """Whether ``candidate`` fits a CRF."""
    return CANDIDATES[candidate][1] == "crf"


def read_each(model, texts, y, decodings) -> dict:
    """``decoding -> {"f1": ..., "span_f1": ...}`` (in %) of ``model`` on
    ``texts`` for each of ``decodings``: the spans' F1, and the joint model's
    end-to-end F1 as ``f1``."""
    out = {}
    for decoding in decodings:
        model.set_params(decoding=decoding)
        found = model.predict(texts)
        if isinstance(model, AspectSentimentExtractor):
            spans = [[t["span"] for t in terms] for terms in found]
            out[decoding] = {
                "f1": end_to_end(model, texts, y, found),
                "span_f1": 100 * span_scores(y, spans)["f1"],
            }
        else:
            f1 = 100 * span_scores(y, found)["f1"]
            out[decoding] = {"f1": f1, "span_f1": f1}
    return out


def run(candidate: str, data: str, seed: int) -> dict:
    train, valid, test = load(data)
    start = time.perf_counter()
    model_class, epoch_on = CANDIDATES[candidate]
    model = model_class(decoding=epoch_on, random_state=seed)
    # the epoch on the tags of ``epoch_on`` whatever the model's own choice
    # (the candidates it was chosen from; an instance attribute, not a parameter)
    model._EPOCH_ON = epoch_on
    thirty = candidate in THIRTY_PASSES  # the own vectors' passes (else pinned)
    with mock.patch.object(params, "VECTOR_PASSES", 30) if thirty else nullcontext():
        model.fit(*train)
    out = {"candidate": candidate, "data": data, "seed": seed}
    out["fit_seconds"] = time.perf_counter() - start
    out["best_epoch"] = model.best_epoch_
    decodings = readings(model.module_.transitions is not None)
    for side, (texts, y) in (("valid", valid), ("test", test)):
        for decoding, scores in read_each(model, texts, y, decodings).items():
            for key, value in scores.items():
                out[f"{side}_{key}_{decoding}"] = value
    if isinstance(model, AspectSentimentExtractor) and data in ENGLISH:
        probes = aspect_robustness_score(model.given_terms(), *given(*valid))
        out["valid_ARS"] = 100 * probes["ARS"]
    return out


KEYS = [
    ("valid_f1_greedy", "valid F1, greedy"),
    ("valid_f1_viterbi", "valid F1, Viterbi"),
    ("test_f1_greedy", "test F1, greedy"),
    ("test_f1_viterbi", "test F1, Viterbi"),
    ("test_span_f1_greedy", "test terms F1, greedy"),
    ("test_span_f1_viterbi", "test terms F1, Viterbi"),
    ("valid_f1_crf", "valid F1, CRF"),
    ("test_f1_crf", "test F1, CRF"),
    ("test_span_f1_crf", "test terms F1, CRF"),
    ("valid_ARS", "valid ARS (joint)"),
]


def _stats(rows, candidate: str, data: str, key: str) -> tuple | None:
    """(mean, sample std) of ``key`` over ``candidate``'s runs on ``data``."""
    values = [r[key] for r in rows if r["candidate"] == candidate and r["data"] == data]
    if not values:
        return None
    return np.mean(values), np.std(values, ddof=1) if len(values) > 1 else 0.0


def decision(rows: list[dict], model: str, round_: str) -> str | None:
    """The rule's (candidate, decoding) for ``model`` among the candidates of
    ``round_`` (:data:`ROUNDS`; None until each has rows on both English data
    sets)."""
    pairs = [  # (greedy first, then Viterbi, then the CRF: the first keeps ties)
        (c, decoding)
        for c in ROUNDS[round_]
        if c.startswith(model + ":")
        # the third round asks about the vectors: each fit read as its default
        for decoding in (
            (CANDIDATES[c][1],) if round_ == "third" else readings(is_crf(c))
        )
    ]
    f1 = {
        (p, d): _stats(rows, p[0], d, f"valid_f1_{p[1]}")
        for p in pairs
        for d in ENGLISH
    }
    if None in f1.values():
        return None

    def mean(p, table) -> float:
        return np.mean([table[p, d][0] for d in ENGLISH])

    eligible = pairs
    key = lambda p: mean(p, f1)  # noqa: E731
    if CANDIDATES[pairs[0][0]][0] is AspectSentimentExtractor:
        floors = {d: max(f1[p, d] for p in pairs) for d in ENGLISH}
        eligible = [
            p
            for p in pairs
            if all(f1[p, d][0] >= floors[d][0] - floors[d][1] for d in ENGLISH)
        ]
        ars = {
            (p, d): _stats(rows, p[0], d, "valid_ARS") for p in pairs for d in ENGLISH
        }
        if None in ars.values():
            return None
        key = lambda p: (mean(p, ars), mean(p, f1))  # noqa: E731
    candidate, decoding = max(eligible, key=key)
    how = {"greedy": "greedily", "viterbi": "with Viterbi", "crf": "as a CRF"}[decoding]
    return f"{candidate}, read {how}"


def note() -> str:
    rows = read_runs(EXPERIMENT.log)
    chosen = " ".join(
        f"{round_.capitalize()} round -- "
        + "; ".join(
            f"{model}: {decision(rows, model, round_) or 'not yet measured'}"
            for model in MODELS
        )
        + "."
        for round_ in ROUNDS
    )
    return (
        "F1 in %, mean ± std over 3 seeds, one fit per row read each way it "
        "can be; the extractor's F1 is exact-span F1, the joint model's "
        "end-to-end F1 (its terms' F1 beside). Validation: 10% of the training "
        "sentences, as in the extraction table. The rule, in each round among "
        "its own fits (the first round's rows were fitted with the code of "
        'then, the second\'s, the rows marked "again" and the CRF, with '
        "today's): per model, the fit and reading with the best validation F1 "
        "averaged over the two English data sets; for the joint model, of those "
        "within one standard deviation of the best on both, the best validation "
        "ARS, then F1 (greedy, then Viterbi, on a tie). Chosen: "
        f"{chosen} The third round's fits are read as each default reads, "
        "English alone: the own word vectors' 10 passes (the default) against "
        "30. The second round's extractor pair, a CRF's fit read "
        "without its transitions, is no setting: the extractor's default is "
        "the CRF read as one (0.15 points below it averaged, level on laptops). "
        "The SemEval-2016 languages (PyABSA's files: only the "
        "sentences with terms) and the test columns choose nothing. One thread "
        "each on a 2-core CPU."
    )


EXPERIMENT = Experiment(
    "decoding", DATA, CANDIDATES, run, KEYS, note, SEEDS, vector_passes=TEN_PASSES
)


def speed() -> None:
    """Sentences per second of ``predict`` on every laptop sentence (each
    model's defaults fitted two epochs, seed 0), read each way it can be
    (greedy, Viterbi, and as a CRF where it learned transitions), one thread,
    best of 3 after a first pass."""
    train, valid, test = load("laptops")
    texts = list(dict.fromkeys(train[0] + valid[0] + test[0]))
    out = {"sentences": len(texts), "threads": 1}
    for model in (AspectTermExtractor, AspectSentimentExtractor):
        fitted = model(max_epochs=2, random_state=0).fit(*train)
        for decoding in readings(fitted.module_.transitions is not None):
            fitted.set_params(decoding=decoding)
            fitted.predict(texts)  # warm up
            best = min(_timed(fitted.predict, texts) for _ in range(3))
            out[f"{model.__name__}, {decoding}"] = round(len(texts) / best)
    (RESULTS / "decoding_speed.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


def main() -> None:
    parser = EXPERIMENT.parser(__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true", help="time predict")
    args = parser.parse_args()
    if args.speed:
        import torch

        torch.set_num_threads(1)
        speed()
    else:
        EXPERIMENT.main(args)


if __name__ == "__main__":
    main()
