"""The joint aspect-sentiment model (one encoder pass: terms and their
polarities) against the two-part pipeline, on SemEval-2014 laptops and
restaurants.

    ASPECTATTN_DATA=../shared/data python -m benchmarks joint \
        [--workers N --worker I] [--candidates ...] [--data ...] [--seeds 0 1 2]
    ASPECTATTN_DATA=../shared/data python -m benchmarks joint --table
    ASPECTATTN_DATA=../shared/data python -m benchmarks joint --speed

Each run fits one candidate with one seed on the same 90% of a data set's
training sentences as ``benchmarks.extraction`` (the model draws its own
early-stopping split from it) and scores:

- on the other 10% (**validation**, what chooses): end-to-end F1 (a term counts
  when its span and its polarity are a gold term's) and the Aspect Robustness
  Score of the model on the validation terms given (``aspect_robustness_score``
  of ``given_terms()``: each term's answer must survive its ARTS variants);
- on the test sentences (**reported**, chooses nothing): end-to-end F1, the
  spans' F1, the accuracy on the gold terms given, and the behavioural suite's
  MFT on the data set's domain.

Gold ``conflict`` terms count neither as gold nor, when found, as errors in the
end-to-end F1 (as ``benchmarks.extraction`` scores the pipeline), and are
scored as terms in the spans' F1 (as SemEval scores extraction).

The taught candidates (``--candidates "joint LSTM taught by MiniLM" "joint LSTM
taught by MiniLM, + unlabelled reviews" --data restaurants``) fit the MiniLM
joint model of seed 0 on the training side first, once, into the git-ignored
``benchmarks/results/cache``; every seed's student learns from it.

The LSTM's candidates were chosen in three rounds, each among fits made with
the same code: the first (flips and joins, the polarities' weight; its tags read
greedily) chose the defaults; the second fits them again ("again", the tags read
as the defaults read them, with Viterbi) beside unified tags
(``benchmarks/unified_tags.py``: BERT-E2E-ABSA's ``B-POS``/``I-NEG`` tags, each
term's polarity read from its own tokens' tags instead of the attention head);
the third, after the second had shown unified tags finding more terms and the
attention reading polarities more robustly, puts the same default beside unified
tags learned with the attention head, which reads the polarities.

The rule, per tier (the LSTM candidates of a round; the MiniLM ones): those whose mean
validation end-to-end F1 is, on both data sets, within one standard deviation
of the best one's; of them, the best mean validation ARS averaged over both
(the aspect-level behaviour), then the best validation F1. ``--speed`` times
``predict`` of every laptop sentence, the LSTM and MiniLM: the joint model
(torch, also with ``quantize``; its ONNX export), the two-part pipeline, the
extractor alone and the bare encoder on the same encoder, in the same run, on 1
and 2 threads; run it with nothing else running.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import numpy as np

from aspectattn import (
    AspectAttentionClassifier,
    AspectSentimentExtractor,
    AspectSentimentPipeline,
    AspectTermExtractor,
    Teaching,
)
from aspectattn.encoders import PretrainedEncoder
from aspectattn.evaluation import aspect_robustness_score, score_behaviour
from aspectattn.extraction.metrics import span_scores, without_conflict
from benchmarks.behaviour import negated, suite_tests
from benchmarks.common import RESULTS, TEN_PASSES
from benchmarks.distillation import CACHE, cached_model, unlabelled_sentences
from benchmarks.extraction import load
from benchmarks.pretrained import minilm as minilm_path
from benchmarks.runner import Experiment, within_one_std, write_results
from benchmarks.unified_tags import (
    UnifiedTagsAttentionExtractor,
    UnifiedTagsExtractor,
)

DATA = ("laptops", "restaurants")
SEEDS = (0, 1, 2)
#: Candidate -> the joint model's parameters beside its defaults.
CANDIDATES = {
    "joint LSTM: no copies": {"augment": None},
    "joint LSTM: flip+join copies": {"augment": "flip+join"},
    "joint LSTM: flip+join copies, polarity weight 2": {
        "augment": "flip+join",
        "polarity_weight": 2.0,
    },
    "joint MiniLM: defaults": {"encoder": "minilm"},
    "joint MiniLM: no copies": {"encoder": "minilm", "augment": None},
    # and negated copies (a negation before the opinion word next to a term, its
    # polarity reversed), as the classifiers' defaults have them
    "joint MiniLM: flip+join+negate copies": {
        "encoder": "minilm",
        "augment": "flip+join+negate",
    },
    "joint LSTM taught by MiniLM": {"teacher": "minilm"},
    "joint LSTM taught by MiniLM, + unlabelled reviews": {
        "teacher": "minilm",
        "unlabelled": True,
    },
    # the second round (session 45's code, the tags read as the defaults read
    # them): the defaults fitted again beside unified tags
    # (benchmarks/unified_tags.py)
    "joint LSTM: defaults, again": {"decoding": "auto"},
    "joint LSTM: unified tags": {"decoding": "auto", "head": "unified"},
    # the third round (the same code): unified tags learned beside the
    # attention head, which reads the polarities
    "joint LSTM: unified tags beside the attention": {
        "decoding": "auto",
        "head": "unified+attention",
    },
}
#: The LSTM candidates of the second round.
SECOND_ROUND = ["joint LSTM: defaults, again", "joint LSTM: unified tags"]
#: And of the third: the second's default beside unified tags learned with the
#: attention head (made after the second round showed unified tags finding
#: more terms and the attention reading polarities more robustly).
THIRD_ROUND = [
    "joint LSTM: defaults, again",
    "joint LSTM: unified tags beside the attention",
]
#: The candidates the rule chooses among, per tier: the LSTM's and MiniLM's
#: (the taught LSTM's are reported beside them).
TIERS = {
    "LSTM": [
        c
        for c, params in CANDIDATES.items()
        if not {"encoder", "teacher"} & set(params)
        and c not in SECOND_ROUND + THIRD_ROUND
    ],
    "MiniLM": [c for c, params in CANDIDATES.items() if "encoder" in params],
    "LSTM, second round": SECOND_ROUND,
    "LSTM, third round": THIRD_ROUND,
}
#: The teacher's seed: one MiniLM joint model per data set teaches every seed.
TEACHER_SEED = 0


def minilm() -> PretrainedEncoder:
    return PretrainedEncoder(minilm_path())


def teacher(data: str, train) -> AspectSentimentExtractor:
    """The MiniLM joint model (defaults, seed :data:`TEACHER_SEED`) fitted on the
    training side of ``data``, saved in the git-ignored cache and loaded from it
    after."""
    return cached_model(
        CACHE / f"joint-teacher-{data}-{TEACHER_SEED}.aam",
        lambda: AspectSentimentExtractor(
            encoder=minilm(), random_state=TEACHER_SEED
        ).fit(*train),
    )


def given(texts, y):
    """The gold terms with a polarity as ``(text, term, span)`` pairs, and their
    labels."""
    X, labels = [], []
    for text, terms in zip(texts, y, strict=True):
        for start, end, polarity in terms:
            if polarity != "conflict":
                X.append((text, text[start:end], (start, end)))
                labels.append(polarity)
    return X, labels


def end_to_end(model, texts, y, found=None) -> float:
    """End-to-end F1 (gold ``conflict`` terms count neither way), in %."""
    found = model.predict(texts) if found is None else found
    gold, kept = without_conflict(y, found)
    return 100 * span_scores(gold, kept, polarity=True)["f1"]


def scores(model, texts, y, prefix: str) -> dict:
    """End-to-end F1 (without conflict), the spans' F1, and the accuracy, ARS
    and negation probes (``benchmarks.behaviour.negated``) on the gold terms
    given."""
    found = model.predict(texts)
    out = {f"{prefix}_f1": end_to_end(model, texts, y, found)}
    out[f"{prefix}_span_f1"] = 100 * span_scores(y, found)["f1"]
    X, labels = given(texts, y)
    probes = aspect_robustness_score(model.given_terms(), X, labels)
    out[f"{prefix}_term_accuracy"] = 100 * probes["accuracy"]
    out[f"{prefix}_ARS"] = 100 * probes["ARS"]
    return out | negated(model.given_terms(), X, labels, f"{prefix}_")


def run(candidate: str, data: str, seed: int) -> dict:
    train, valid, test = load(data)
    start = time.perf_counter()
    params = dict(CANDIDATES[candidate])
    if params.get("encoder") == "minilm":
        params["encoder"] = minilm()
    taught, unlabelled = params.pop("teacher", None), params.pop("unlabelled", False)
    estimator = {
        None: AspectSentimentExtractor,
        "unified": UnifiedTagsExtractor,
        "unified+attention": UnifiedTagsAttentionExtractor,
    }[params.pop("head", None)]
    # (greedy tags, as the first round's runs read them before decoding="auto"
    # read the LSTM's with Viterbi: benchmarks/decoding.py)
    model = estimator(decoding="greedy", random_state=seed)
    model.set_params(**params)
    if taught is None:
        model.fit(*train)
    else:
        X, y = list(train[0]), list(train[1])
        if unlabelled and data != "restaurants":
            raise ValueError("the unlabelled reviews at hand are restaurants'")
        if unlabelled:  # restaurants: SemEval-2015's and MAMS's sentences
            extra = unlabelled_sentences(train[0] + valid[0] + test[0])
            X, y = X + extra, y + [None] * len(extra)
        tutor = teacher(data, train)
        start = time.perf_counter()  # (the student's fit alone)
        model.fit(X, y, teaching=Teaching(tutor))
    out = {"candidate": candidate, "data": data, "seed": seed}
    if taught is not None:
        out["n_unlabelled"] = len(X) - len(train[0])
        out["teacher_valid_f1"] = end_to_end(tutor, *valid)
        out["teacher_test_f1"] = end_to_end(tutor, *test)
    out["fit_seconds"] = time.perf_counter() - start
    out["best_epoch"] = model.best_epoch_
    out |= scores(model, *valid, "valid")
    out |= scores(model, *test, "test")
    suite = score_behaviour(model.given_terms(), domains=[data])
    out["suite_MFT"] = 100 * suite["MFT"]
    return out | suite_tests(suite)


KEYS = [
    ("valid_f1", "valid end-to-end F1"),
    ("valid_ARS", "valid ARS"),
    ("test_f1", "test end-to-end F1"),
    ("test_span_f1", "test terms F1"),
    ("test_term_accuracy", "test accuracy on gold terms"),
    ("test_ARS", "test ARS"),
    ("valid_negated", "valid negation probes"),
    ("suite_MFT", "suite MFT"),
    ("suite_negation", "suite negated items"),
    ("best_epoch", "epoch kept"),
]


def joint_rule(cell: dict, names: list) -> str:
    """The joint model's rule among ``names`` (``cell[data, name]``: a row of
    ``(mean, std)`` scores on each of :data:`DATA`): of those whose mean
    validation end-to-end F1 is within one standard deviation of the best one's
    on both data sets, the best mean validation ARS, then F1; on a tie the first
    named."""
    eligible = within_one_std(cell, names, DATA, "valid_f1")
    return max(
        eligible,
        key=lambda c: (
            np.mean([cell[d, c]["valid_ARS"][0] for d in DATA]),
            np.mean([cell[d, c]["valid_f1"][0] for d in DATA]),
        ),
    )


def choose(rows: list[dict]) -> None:
    """The rule (stated in the module's docstring and :data:`NOTE`)."""
    cell = {(r["data"], r["candidate"]): r for r in rows}
    for candidates in TIERS.values():
        names = [c for c in candidates if all((d, c) in cell for d in DATA)]
        if not names:
            continue
        chosen = joint_rule(cell, names)
        for data in DATA:
            cell[data, chosen]["chosen"] = True


NOTE = (
    "Mean ± std over seeds; validation: 10% of the training sentences (the same "
    "as benchmarks.extraction's). End-to-end F1: a term counts when its span and "
    "polarity are a gold term's (gold `conflict` terms count neither way); terms "
    "F1: the spans alone, exact; accuracy and ARS on gold terms: the model given "
    "each gold term (`given_terms()`), ARS over the ARTS variants of the "
    "validation or test terms; suite MFT: the behavioural suite on the data "
    "set's domain; negation probes: each gold term with its opinion word "
    'negated ("not", "never", "far from"), its polarity reversed '
    "(benchmarks.behaviour's); suite negated items: the suite's negation test "
    "on the data set's domain. Chosen per tier (LSTM, MiniLM; the LSTM in "
    "three rounds, each among fits of the same code: the second, fitted with "
    "the code of session 45 and read as the defaults read the tags, with "
    "Viterbi, puts unified tags (B-POS, I-NEG, ...: each term's polarity "
    "read from its own tokens' tags, no attention) beside the defaults "
    "fitted again; the third, unified tags learned beside the attention "
    "head, which reads the polarities, beside the same default): of the "
    "candidates whose mean "
    "validation end-to-end F1 is within one standard deviation of the best "
    "one's on both data sets, the best mean validation ARS, then F1. The "
    "two-part pipeline with the LSTM "
    "defaults (benchmarks.extraction, the same split): test end-to-end F1 41.1 ± "
    "1.5 (laptops), 56.9 ± 1.0 (restaurants) with the extractor read greedily, "
    "as the first round's rows were; with the extractor's defaults now (a "
    "CRF) 43.9 ± 0.3 and 57.2 ± 2.1. Published (test, end to end): "
    "laptops Li et al. 2019 57.9, BERT-E2E-ABSA 61.1, RACL 62.6; restaurants Li "
    "et al. 67.1, BERT-E2E-ABSA 74.0, RACL 70.7. The MiniLM rows ran on an H100 "
    "GPU in float32, twelve runs at a time (the joint model trains in float32 "
    "everywhere); seed 0 of the defaults had run on this project's 2-core CPU "
    "before: valid F1 52.5 / 65.1, test F1 58.0 / 68.3 (laptops / restaurants). "
    "The LSTM rows on this project's 2-core CPU, one thread each. The first "
    "round's rows read the tags greedily (each token's likeliest); the LSTM "
    "defaults now read them with Viterbi, 0.5 / 0.3 points of test "
    "end-to-end F1 better (laptops / restaurants; the decoding table). The taught "
    "rows (reported, not among the "
    "rule's candidates): the LSTM defaults taught (`Teaching`, weight 0.5, "
    "temperature 2) by the MiniLM joint model of seed 0 fitted on the same "
    "training side, on its sentences alone or with the 3,221 unlabelled "
    "restaurant sentences of SemEval-2015 and MAMS (those of SemEval-2014 "
    "removed), whose terms the teacher finds; its tag probabilities teach the "
    "words and its polarities the terms; restaurants only (no unlabelled "
    "laptop reviews are at hand)."
)

EXPERIMENT = Experiment(
    "joint",
    DATA,
    CANDIDATES,
    run,
    KEYS,
    NOTE,
    SEEDS,
    None,
    choose,
    vector_passes=TEN_PASSES,
)


#: The tiers ``--speed`` times: tier -> (the joint model's and the pipeline's
#: parts' training settings, how many training sentences they fit on (None:
#: all)). Brief, but enough for the models to find about as many terms as the
#: sentences hold: a two-part pipeline's classifier reads each term its
#: extractor found, so its cost grows with them.
SPEED_TIERS = {
    "LSTM": ({"max_epochs": 10}, None),
    "MiniLM": ({"max_epochs": 3}, 1000),
}


#: Rounds of ``--speed``'s timing per tier (each model once per round).
SPEED_ROUNDS = {"LSTM": 5, "MiniLM": 1}


def speed(tiers=None) -> None:
    """Sentences per second of ``predict`` on every laptop sentence, for the
    LSTM and MiniLM: the joint model (torch, also with ``quantize="bfloat16"``
    and, for MiniLM, ``"int8"``; its ONNX export, float32 and, for MiniLM,
    int8), the two-part pipeline, the extractor alone and the bare encoder
    (the inputs and the encoder's forward pass, nothing decoded: the limit), in
    one run, on 1 and 2 threads, after a first pass that warms up: in
    :data:`SPEED_ROUNDS` rounds, each model reading once per round, the best
    kept. ``tiers``: the tiers to measure (None: all); the record
    keeps the other tiers' rows (each tier's from one run)."""
    import tempfile

    import torch

    from aspectattn.serving import export_onnx, load_onnx

    train, valid, test = load("laptops")
    texts = train[0] + valid[0] + test[0]
    gold = sum(len(terms) for terms in train[1] + valid[1] + test[1])
    out = {"sentences": len(texts), "gold_terms": gold, "rows": []}
    for tier, (settings, n_train) in SPEED_TIERS.items():
        if tiers is not None and tier not in tiers:
            continue
        encoder = {}
        if tier == "MiniLM":
            encoder = {"encoder": minilm()}
        data = train if n_train is None else (train[0][:n_train], train[1][:n_train])
        fitted = {"epochs": settings["max_epochs"], "train_sentences": len(data[0])}
        fast = {**settings, "random_state": 0}
        joint = AspectSentimentExtractor(**encoder, **fast).fit(*data)
        pipeline = AspectSentimentPipeline(
            AspectTermExtractor(**encoder, **fast),
            AspectAttentionClassifier(**encoder, **fast),
        ).fit(*data)
        folder = Path(tempfile.mkdtemp())
        models = {
            "joint model": joint.predict,
            "two-part pipeline": pipeline.predict,
            "extractor alone": pipeline.extractor_.predict,
            "bare encoder": _BareEncoder(joint),
        }
        # torch with quantize= (int8 changes no LSTM: MiniLM only)
        for quantize in ("bfloat16", "int8") if tier == "MiniLM" else ("bfloat16",):
            models[f"joint model, {quantize}"] = (
                copy.deepcopy(joint).set_params(quantize=quantize).predict
            )
        for quantize in (None, "int8") if tier == "MiniLM" else (None,):
            name = f"joint model, ONNX {quantize or 'float32'}"
            models[name] = export_onnx(joint, folder / name, quantize=quantize)
        for threads in (1, 2):
            torch.set_num_threads(threads)
            row = {"tier": tier, "threads": threads, "fitted": fitted}
            runs = {}
            for name, predict in models.items():
                if isinstance(predict, Path):  # an export: served with onnxruntime
                    predict = load_onnx(predict, threads=threads).predict
                runs[name] = predict
                found = predict(texts)  # (a first pass warms up)
                if found is not None:  # the terms it found, all sentences
                    row[f"{name}: terms"] = sum(len(terms) for terms in found)
            # rounds in which every model reads once, the best round kept: a
            # machine that slows down for a while slows every row alike
            seconds = {name: [] for name in runs}
            for _ in range(SPEED_ROUNDS[tier]):
                for name, predict in runs.items():
                    seconds[name].append(_timed(predict, texts))
            row |= {name: len(texts) / min(t) for name, t in seconds.items()}
            print(row, flush=True)
            out["rows"].append(row)
    record = RESULTS / "joint_speed.json"
    if tiers is not None and record.is_file():  # the other tiers' rows kept
        kept = json.loads(record.read_text())["rows"]
        kept = [r for r in kept if r["tier"] not in tiers]
        out["rows"] = sorted(
            kept + out["rows"], key=lambda r: list(SPEED_TIERS).index(r["tier"])
        )
    write_results(RESULTS / "joint_speed", out, speed_table(out))


class _BareEncoder:
    """The joint model's inputs and encoder pass alone, in its batches: what no
    model reading these texts with this encoder can go below."""

    def __init__(self, model):
        self.model = model

    def __call__(self, texts) -> None:
        import torch

        from aspectattn.extraction.inputs import padded_batch
        from aspectattn.extraction.reading import PREDICT_BATCH
        from aspectattn.text.tokens import length_sorted_batches

        module = self.model.module_
        encoded = self.model.inputs_.encode(texts)
        cut = length_sorted_batches(
            encoded.ids.lengths, PREDICT_BATCH, None, module.batch_tokens
        )
        with torch.inference_mode():
            for index in cut:
                batch = (torch.from_numpy(a) for a in padded_batch(encoded, index))
                module.states(*batch)


def speed_table(out: dict) -> str:
    """The ``--speed`` record as a table: rates, the ratios, the terms found."""
    names = list(
        dict.fromkeys(
            k
            for row in sorted(out["rows"], key=len, reverse=True)  # (the most first)
            for k in row
            if k not in ("tier", "threads", "fitted") and not k.endswith(": terms")
        )
    )
    lines = [
        "| tier | threads | "
        + " | ".join(names)
        + " | joint / pipeline | joint / bare encoder |",
        "|---" * (4 + len(names)) + "|",
    ]
    found = {}  # tier -> what each model found (the same on 1 and 2 threads)
    fitted = {}  # tier -> how its models were fitted
    for row in out["rows"]:
        cells = [f"{row[n]:,.0f}" if n in row else "-" for n in names]
        ratios = [
            row["joint model"] / row["two-part pipeline"],
            row["joint model"] / row["bare encoder"],
        ]
        lines.append(
            f"| {row['tier']} | {row['threads']} | "
            + " | ".join(cells)
            + " | "
            + " | ".join(f"{r:.2f}" for r in ratios)
            + " |"
        )
        fitted[row["tier"]] = row["fitted"]
        found[row["tier"]] = ", ".join(
            f"{k.removesuffix(': terms')} {v:,}"
            for k, v in row.items()
            if k.endswith(": terms")
        )
    terms = "; ".join(f"{tier}: {text}" for tier, text in found.items() if text)
    training = "; ".join(
        f"{tier}: {f['epochs']} epochs on {f['train_sentences']:,} training sentences"
        for tier, f in fitted.items()
    )
    return "\n".join(lines) + (
        f"\n\nSentences per second of `predict` on the {out['sentences']:,} "
        "SemEval-2014 laptop sentences (each once), after a first pass that "
        "warms up: the best of 5 rounds (MiniLM: 1) in which each model reads "
        "once, so that a slower spell of the machine slows every row alike; "
        "each tier's rows in one run on this "
        "project's 2-core CPU with nothing else running. Bare encoder: the "
        "model's inputs (tokenizing) and the encoder's forward pass in the "
        "model's batches, nothing decoded -- the limit a model of this encoder "
        "reads sentences at. The models fitted briefly "
        f"({training}), enough to find about as many "
        "terms as the sentences hold: a two-part pipeline's classifier reads "
        "each term its extractor found, so its cost grows with them. Terms found "
        f"(the sentences hold {out['gold_terms']:,}): {terms}."
    )


def _timed(predict, texts) -> float:
    start = time.perf_counter()
    predict(texts)
    return time.perf_counter() - start


def main() -> None:
    parser = EXPERIMENT.parser(__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true", help="time predict")
    parser.add_argument(
        "--tiers", nargs="*", choices=list(SPEED_TIERS), help="--speed: these only"
    )
    args = parser.parse_args()
    if args.speed:
        speed(args.tiers)
        return
    EXPERIMENT.main(args)


if __name__ == "__main__":
    main()
