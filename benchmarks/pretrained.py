"""The pretrained encoder's defaults, chosen on validation data: what
``encoder="pretrained"`` plus a checkpoint gives, beside candidate changes.

    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 \\
        python -m benchmarks pretrained --worker 0 --workers 2 &
    ASPECTATTN_DATA=../shared/data OMP_NUM_THREADS=1 \\
        python -m benchmarks pretrained --worker 1 --workers 2
    python -m benchmarks pretrained --table
    ASPECTATTN_DATA=../shared/data python -m benchmarks pretrained --speed  # alone
    ASPECTATTN_DATA=../shared/data python -m benchmarks pretrained --serving  # alone
    ASPECTATTN_DATA=../shared/data python -m benchmarks pretrained --analyze  # alone

Every run fine-tunes MiniLM-L6 (``all-MiniLM-L6-v2`` in the data home) on the
training file less a validation split of 10% of its *sentences* (drawn once, seed
0, the same for every candidate and seed), with the estimator's defaults and one
change per candidate. It is scored on that validation split -- accuracy, macro-F1,
the pairs whose sentence has aspects that disagree, and for aspect terms the flip
probes made from the validation sentences (:func:`aspectattn.augment.flip_opinions`:
the target's opinion word swapped for its antonym; does the target's label follow,
do the other terms' labels stay) -- and, for the record only, on the test file.
Candidates are compared on validation; the test columns never choose anything.

Runs are appended to ``benchmarks/results/pretrained.runs.jsonl`` (a rerun skips
finished ones); ``--table`` writes ``pretrained.{json,md}``.

``--speed`` (run it alone on the machine, 2 threads): seconds per fine-tuning
epoch on the restaurant-category training pairs (3,518, no copies; and with the
default joined copies) in float32 and in bfloat16 mixed precision, with the
sub-word table trained or frozen (:data:`SPEED_ROWS`), one after the other in one
run, and prediction pairs/s; writes ``pretrained_speed.{json,md}``.

``--serving`` (alone, 2 threads): one model fine-tuned with the defaults (seed 0) on
the restaurant-category training pairs, then the test pairs (973, repeated 4 times
for the rates) predicted by torch in float32, bfloat16 and int8 and by the ONNX
runtime in float32 and int8: pairs/s (best of 3), accuracy, and the share of labels
equal to float32 torch's; writes ``pretrained_serving.{json,md}``.

``--analyze`` (alone, 2 threads): a MiniLM detector fine-tuned with the defaults
(seed 0) on the SemEval-2014 restaurant-category training sentences: its detection
and end-to-end micro-F1 and disagreeing test pairs, the review analysis rate
(``aspectattn.reviews.iter_analysis`` over the test sentences grouped 3 to a
review, repeated to 3,000 sentences) per prediction form with the peak memory, and
what it says on mixed sentences beside the LSTM detector with the defaults;
writes ``pretrained_analyze.{json,md}``.
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np
import torch

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import get_data_home
from benchmarks import terms
from benchmarks.common import COPIES_ONCE, RESULTS, TEN_PASSES, build, load, pair_scores
from benchmarks.runner import Experiment, write_results


def minilm() -> str:
    return str(get_data_home() / "all-MiniLM-L6-v2")


#: Candidate -> the one change to the defaults (in the order they run).
CANDIDATES = {
    "defaults": {},
    "constant rate": dict(lr_schedule="constant"),
    "constant rate, float32 (the hand-set recipe before)": dict(
        lr_schedule="constant", precision="float32"
    ),
    "6 epochs": dict(max_epochs=6),
    "layer-wise rate decay 0.9": dict(layer_lr_decay=0.9),
    # the sub-word embedding table fixed: no dense gradient or Adam step for its
    # 11.7M weights (of MiniLM's 22M) every batch
    "embedding table frozen": dict(freeze_embeddings=True),
    # aspect terms only: the term's sub-word states in the query; the term as
    # BERT-SPC's second segment (one encoder pass per pair)
    "term states in the query": dict(term_query="both"),
    "term as second segment": dict(pretrained_input="pair"),
    # the term's local context: an attention bias learned per distance from the
    # term (LCF's weighting by distance, its fall-off learned) instead of linear
    "learned distance weighting": dict(position_weighting="learned"),
}
TERMS_ONLY = {
    "term states in the query",
    "term as second segment",
    "learned distance weighting",
}
DATA = (
    "restaurant categories",
    "restaurant terms",
    "laptop terms",
    "MAMS-ACSA",  # its "test" columns: MAMS's val file (its test file is not here)
    "MAMS-ATSA",
)
#: Not in the default plan (11k / 7k pairs: 10-20 min a run on this CPU).
SLOW_DATA = {"MAMS-ACSA", "MAMS-ATSA"}
SEEDS = (0, 1, 2)


def load_data(name: str):
    """((X, y) train, (X, y) test) of data set ``name``."""
    if name == "restaurant categories":
        return (
            load("semeval2014-restaurants-category", "train"),
            load("semeval2014-restaurants-category", "test"),
        )
    if name == "MAMS-ACSA":
        return load("mams-category", "train"), load("mams-category", "val")
    if name == "MAMS-ATSA":
        return terms.load("mams")
    return terms.load(
        {"restaurant terms": "restaurants", "laptop terms": "laptops"}[name]
    )


def validation_split(X, y, fraction=0.1, seed=0):
    """(train, validation) with a share ``fraction`` of the distinct sentences
    (every aspect of a held-out sentence) held out."""
    texts = np.array([x[0] for x in X], dtype=object)
    sentences = np.unique(texts)
    rng = np.random.default_rng(seed)
    held = set(rng.permutation(sentences)[: int(round(fraction * len(sentences)))])
    valid = np.array([t in held for t in texts])
    y = np.asarray(y, dtype=object)

    def take(mask):
        return [X[i] for i in np.flatnonzero(mask)], y[mask].tolist()

    return take(~valid), take(valid)


def scores(clf, X, y, prefix: str, probes: bool) -> dict:
    out = pair_scores(clf.predict(X), X, y, prefix)
    if probes:  # all the antonym pairs, as benchmarks.terms' main probe columns
        out.update(terms.probe_scores(clf, X, y, prefix))
    return out


def run(candidate: str, data: str, seed: int) -> dict:
    (X, y), (X_test, y_test) = load_data(data)
    (X_fit, y_fit), (X_val, y_val) = validation_split(X, y)
    clf = build(
        AspectAttentionClassifier,
        encoder="pretrained",
        pretrained_model=minilm(),
        random_state=seed,
        **CANDIDATES[candidate],
    )
    start = time.perf_counter()
    clf.fit(X_fit, y_fit)
    fit_seconds = time.perf_counter() - start
    is_terms = data.endswith("terms") or data == "MAMS-ATSA"
    result = {
        "candidate": candidate,
        "data": data,
        "seed": seed,
        "resolved": clf.resolved_params_,
        "fit_seconds": fit_seconds,
        "epoch_seconds": float(np.median([row["dur"] for row in clf.history_])),
        "threads": torch.get_num_threads(),
    }
    result.update(scores(clf, X_val, y_val, "val_", is_terms))
    result.update(scores(clf, X_test, y_test, "test_", is_terms))
    return result


def jobs():
    return [
        (c, d, s)
        for c in CANDIDATES
        for d in DATA
        for s in SEEDS
        if (d.endswith("terms") or c not in TERMS_ONLY)
        and (d not in SLOW_DATA or c == "defaults")
    ]


KEYS = [
    ("val_accuracy", "val acc"),
    ("val_macro_f1", "val F1"),
    ("val_disagree_accuracy", "val disagreeing pairs"),
    ("val_flip_target_accuracy", "val flip: target follows"),
    ("val_flip_others_accuracy", "val flip: others stay"),
    ("test_accuracy", "test acc"),
    ("test_macro_f1", "test F1"),
    ("test_disagree_accuracy", "test disagreeing pairs"),
    ("test_disagree_sentences_all_right", "test disagreeing sentences all right"),
    ("test_flip_target_accuracy", "test flip: target follows"),
    ("test_flip_others_accuracy", "test flip: others stay"),
    ("epoch_seconds", "s / epoch (1 thread)"),
]


def note() -> str:
    return (
        "MiniLM-L6 fine-tuned with the estimator's defaults and the one change "
        "named; mean ± std over seeds; validation: 10% of the training sentences "
        "(seed 0), never trained on; the test columns are reported, never used to "
        "choose (for MAMS, its val file: its test file is not at hand). "
        "`python -m benchmarks pretrained` (see its docstring), "
        f"{platform.machine()}, torch {torch.__version__}."
    )


#: --speed's rows: (copies, precision, sub-word table frozen); the last of each
#: copies setting is the defaults.
SPEED_ROWS = [
    (None, "float32", False),
    (None, "bfloat16", False),
    (None, "bfloat16", True),
    ("auto", "float32", False),
    ("auto", "bfloat16", True),
]


def speed(epochs: int = 2) -> dict:
    """s/epoch (the fastest of ``epochs``) by copies, precision and frozen table
    (:data:`SPEED_ROWS`), and predict pairs/s, on the restaurant-category training
    pairs."""
    (X, y), (X_test, _) = load_data("restaurant categories")
    out = {"threads": torch.get_num_threads(), "pairs": len(X), "rows": []}
    for augment, precision, frozen in SPEED_ROWS:
        clf = build(
            AspectAttentionClassifier,
            encoder="pretrained",
            pretrained_model=minilm(),
            random_state=0,
            max_epochs=epochs,
            augment=augment,
            precision=precision,
            freeze_embeddings=frozen,
        ).fit(X, y)
        row = {
            "augment": clf.resolved_params_["augment"],
            "precision": precision,
            "frozen_table": frozen,
            "epoch_seconds": min(r["dur"] for r in clf.history_),
        }
        if augment is None:
            start = time.perf_counter()
            clf.predict_proba(X_test)
            row["predict_pairs_per_second"] = len(X_test) / (
                time.perf_counter() - start
            )
        out["rows"].append(row)
        print(row, flush=True)
    return out


def speed_markdown(r) -> str:
    lines = [
        "| training pairs | precision | sub-word table | s / epoch "
        "| predict pairs / s |",
        "|---|---|---|---|---|",
    ]
    for row in r["rows"]:
        copies = "+ joined copies" if row["augment"] else "no copies"
        table = "frozen" if row["frozen_table"] else "trained"
        rate = row.get("predict_pairs_per_second")
        lines.append(
            f"| {r['pairs']:,} {copies} | {row['precision']} | {table} | "
            f"{row['epoch_seconds']:.1f} | {f'{rate:,.0f}' if rate else '-'} |"
        )
    lines += [
        "",
        f"MiniLM-L6, AT, the estimator's defaults otherwise; {r['threads']} torch "
        "threads, alone on the machine; the fastest of 2 epochs; prediction in "
        f"float32 either way. `python -m benchmarks pretrained --speed`, "
        f"{platform.machine()}, torch {torch.__version__}.",
    ]
    return "\n".join(lines)


def serving(model_path: str | None = None, exclude: tuple = ()) -> dict:
    """Prediction rates and agreement of the serving forms of one fine-tuned model
    (read from ``model_path`` when it exists, else fitted and saved there).
    ``exclude``: parts of the encoder's node names whose products stay float32
    in the int8 graph (default: :data:`aspectattn.serving.export.KEEP_FLOAT`)."""
    import tempfile

    from aspectattn.serving import export
    from aspectattn.serving.export import export_onnx
    from aspectattn.serving.runtime import load_onnx

    if exclude:  # a variant of the library's choice, measured beside it
        export.KEEP_FLOAT = tuple(exclude)

    (X, y), (X_test, y_test) = load_data("restaurant categories")
    if model_path and os.path.exists(model_path):
        clf = AspectAttentionClassifier.load(model_path)
    else:
        clf = build(
            AspectAttentionClassifier,
            encoder="pretrained",
            pretrained_model=minilm(),
            random_state=0,
        ).fit(X, y)
        if model_path:
            clf.save(model_path)
    X_rate = X_test
    reference = clf.predict(X_test)

    def torch_form(quantize):
        def predict(X):
            return clf.set_params(quantize=quantize).predict(X)

        return predict

    forms = {
        f"torch, {q or 'float32'}": torch_form(q) for q in (None, "bfloat16", "int8")
    }
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for quantize in (None, "int8"):
            directory = export_onnx(clf, f"{tmp}/{quantize}", quantize=quantize)
            forms[f"ONNX runtime, {quantize or 'float32'}"] = load_onnx(
                directory, threads=torch.get_num_threads()
            ).predict
        for name, predict in forms.items():
            predicted = predict(X_test)
            seconds = []
            for _ in range(3):
                start = time.perf_counter()
                predict(X_rate)
                seconds.append(time.perf_counter() - start)
            row = {
                "form": name,
                "pairs_per_second": len(X_rate) / min(seconds),
                "accuracy": 100 * float(np.mean(predicted == np.asarray(y_test))),
                "same_label_as_float32_torch": 100
                * float(np.mean(predicted == reference)),
            }
            rows.append(row)
            print(row, flush=True)
    clf.set_params(quantize=None)
    return {
        "threads": torch.get_num_threads(),
        "pairs": len(X_rate),
        "sentences": len({x[0] for x in X_rate}),
        "float32_in_int8_graph": list(export.KEEP_FLOAT),
        "rows": rows,
    }


def serving_markdown(r) -> str:
    base = r["rows"][0]["pairs_per_second"]
    lines = [
        "| form | pairs / s | vs float32 torch | accuracy | labels as float32 torch |",
        "|---|---|---|---|---|",
    ]
    for row in r["rows"]:
        lines.append(
            f"| {row['form']} | {row['pairs_per_second']:,.0f} | "
            f"{row['pairs_per_second'] / base:.2f}x | {row['accuracy']:.2f} | "
            f"{row['same_label_as_float32_torch']:.1f}% |"
        )
    lines += [
        "",
        "MiniLM-L6 fine-tuned with the defaults (seed 0) on the SemEval-2014 "
        f"restaurant-category training pairs; its {r['pairs']} test pairs "
        f"({r['sentences']} sentences, each encoded once for all its aspects; best "
        f"of 3, from text); {r['threads']} threads, alone on the machine. "
        + (
            f"In the int8 graph, {', '.join(r['float32_in_int8_graph'])} kept float32. "
            if r["float32_in_int8_graph"]
            else ""
        )
        + "`python -m benchmarks pretrained --serving`, "
        f"{platform.machine()}, torch {torch.__version__}.",
    ]
    return "\n".join(lines)


MIXED = [
    "The pasta was great but the waiter was rude.",
    "Lovely staff, shame about the cold and overpriced food.",
    "The decor is dated, yet every dish we tried was superb.",
    "Slow service, but worth the wait for the sushi.",
]


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def analyze(sentences: int = 3000) -> dict:
    """The pretrained detector in the review path (see the module docstring)."""
    import pandas as pd

    from aspectattn import AspectCategoryClassifier
    from aspectattn.datasets import DATASETS
    from aspectattn.estimators.categories import detection_f1, mention_f1
    from aspectattn.reviews import iter_analysis
    from aspectattn.reviews.sentences import split_sentences
    from benchmarks.common import glove

    data = DATASETS["semeval2014-restaurants-category"]
    texts, Y = data.load_table("train")
    test_texts, Y_test = data.load_table("test")
    models = {
        "MiniLM": build(
            AspectCategoryClassifier,
            encoder="pretrained",
            pretrained_model=minilm(),
            random_state=0,
        ),
        "LSTM": build(
            AspectCategoryClassifier,
            embeddings=glove(),
            random_state=0,
            **COPIES_ONCE,
        ),
    }
    out = {"threads": torch.get_num_threads(), "models": {}, "mixed": {}}
    X_test, y_test = load("semeval2014-restaurants-category", "test")
    for name, det in models.items():
        start = time.perf_counter()
        det.fit(texts, Y)
        Y_pred = det.predict(test_texts)
        truth = Y_test.reindex(columns=det.categories_, fill_value="none").to_numpy()
        row = {
            "fit_seconds": time.perf_counter() - start,
            "detection_micro_f1": 100 * detection_f1(truth, Y_pred),
            "end_to_end_micro_f1": 100 * mention_f1(truth, Y_pred),
            **pair_scores(det.predict_sentiment(X_test), X_test, y_test, "test_"),
        }
        out["mixed"][name] = [
            [(m["aspect"], m["label"]) for m in found] for found in det.analyze(MIXED)
        ]
        out["models"][name] = row
        print(name, row, out["mixed"][name], flush=True)
    det = models["MiniLM"]
    reviews = [" ".join(test_texts[i : i + 3]) for i in range(0, len(test_texts), 3)]
    reviews = pd.DataFrame({"text": reviews * (-(-sentences // len(test_texts)))})
    n_sentences = len(split_sentences(reviews.text.tolist(), language="en")[1])
    out["rates"] = []
    for quantize in (None, "bfloat16", "int8"):
        det.set_params(quantize=quantize)
        start = time.perf_counter()
        n = sum(len(table) for table in iter_analysis(reviews, det, language="en"))
        seconds = time.perf_counter() - start
        rate = {
            "quantize": quantize or "float32",
            "rows": n,
            "reviews": len(reviews),
            "sentences": n_sentences,
            "sentences_per_second": n_sentences / seconds,
            "peak_rss_mb": _peak_rss_mb(),
        }
        out["rates"].append(rate)
        print(rate, flush=True)
    return out


def analyze_markdown(r) -> str:
    lines = [
        "| detector | detection micro-F1 | end-to-end micro-F1 | test pairs acc "
        "| disagreeing pairs | disagreeing sentences all right | fit s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in r["models"].items():
        lines.append(
            f"| {name}, defaults | {m['detection_micro_f1']:.1f} | "
            f"{m['end_to_end_micro_f1']:.1f} | {m['test_accuracy']:.1f} | "
            f"{m['test_disagree_accuracy']:.1f} | "
            f"{m['test_disagree_sentences_all_right']:.1f} | {m['fit_seconds']:.0f} |"
        )
    lines += ["", "| sentence | " + " | ".join(r["mixed"]) + " |", "|---|---|---|"]
    for i, text in enumerate(MIXED):
        cells = [
            ", ".join(f"{a} {label}" for a, label in r["mixed"][name][i]) or "-"
            for name in r["mixed"]
        ]
        lines.append(f"| {text} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| MiniLM detector, prediction | review sentences / s | peak RSS MB |",
        "|---|---|---|",
    ]
    for rate in r["rates"]:
        lines.append(
            f"| {rate['quantize']} | {rate['sentences_per_second']:,.0f} | "
            f"{rate['peak_rss_mb']:.0f} |"
        )
    lines += [
        "",
        "Seed 0, SemEval-2014 restaurant categories; the LSTM with GloVe 6B 50-d. "
        "Rates: `aspectattn.reviews.iter_analysis` (sentence splitting included) "
        "over the test sentences grouped 3 to a review, repeated; peak RSS of the "
        f"whole process so far; {r['threads']} threads, alone on the machine. "
        "`python -m benchmarks pretrained --analyze`, "
        f"{platform.machine()}, torch {torch.__version__}.",
    ]
    return "\n".join(lines)


def main():
    parser = EXPERIMENT.parser(__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--serving", action="store_true")
    parser.add_argument("--analyze", action="store_true")
    parser.add_argument("--model", help="--serving: the fitted model's file (cache)")
    parser.add_argument(
        "--keep-float", nargs="*", default=(), help="--serving: see serving()"
    )
    args = parser.parse_args()
    if args.analyze:
        r = analyze()
        write_results(RESULTS / "pretrained_analyze", r, analyze_markdown(r))
        return
    if args.serving:
        r = serving(args.model, tuple(args.keep_float))
        write_results(RESULTS / "pretrained_serving", r, serving_markdown(r))
        return
    if args.speed:
        r = speed()
        write_results(RESULTS / "pretrained_speed", r, speed_markdown(r))
        return
    EXPERIMENT.main(args)


EXPERIMENT = Experiment(
    "pretrained",
    tuple(DATA),
    CANDIDATES,
    run,
    KEYS,
    note,
    SEEDS,
    jobs(),
    vector_passes=TEN_PASSES,
)

if __name__ == "__main__":
    main()
