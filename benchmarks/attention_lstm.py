"""AT-LSTM / AE-LSTM / ATAE-LSTM on SemEval-2014 aspect-level sentiment.

    ASPECTATTN_DATA=../shared/data python -m benchmarks.attention_lstm [--seeds 5]
    ASPECTATTN_DATA=../shared/data python -m benchmarks.attention_lstm \
        --dataset "restaurant terms" --variants atae

For each variant and seed: train on the training pairs minus 10% of the training
*sentences*, held out for validation; keep the epoch with the best validation accuracy
(early stopping, patience 5); then, once, score the test pairs. The test set plays no
part in any choice. Reports mean ± std over seeds of test accuracy and macro-F1,
seconds per training epoch and test pairs per second (``predict_proba`` on raw pairs,
tokenization included), beside published 3-way accuracy: Wang et al. (2016) for
restaurant categories, and ATAE-LSTM on terms as reported by Ma et al. (2017, IAN).

Writes ``benchmarks/results/attention_lstm[_<dataset>].json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014, get_data_home
from benchmarks.common import (
    BASE,
    PRETRAINED,
    PREVIOUS_DEFAULTS,
    TRANSFORMER,
    build,
    disagreeing,
    glove,
)
from benchmarks.runner import append_run, write_results

DATASETS = {  # name -> (domain, aspect, published 3-way accuracy per variant)
    # Wang et al. 2016, Table 2 (3-way)
    "restaurant categories": (
        "restaurants",
        "category",
        {"at": 83.1, "ae": 82.5, "atae": 84.0},
    ),
    # ATAE-LSTM on aspect terms as reported by Ma et al. 2017 (IAN), Table 2
    "restaurant terms": ("restaurants", "term", {"ae": 76.6, "atae": 77.2}),
    "laptop terms": ("laptops", "term", {"ae": 68.9, "atae": 68.7}),
}
RESULTS = Path(__file__).resolve().parent / "results"

# Wang et al.'s settings (benchmarks.common), the epoch chosen on validation accuracy.
# The estimators' defaults of the time are stated (each run names its variant).
PARAMS = dict(
    BASE,
    optimizer="adam",
    scoring="accuracy",
    **{k: v for k, v in PREVIOUS_DEFAULTS.items() if k != "variant"},
)


# Published targets for the pretrained option: BERT-pair (Sun et al. 2019, 110M
# parameters) on restaurant categories, BERT-SPC (Song et al. 2019) on restaurant terms.
# BERT-SPC on laptop terms: 78.99 (Song et al. 2019, Table 3).
PUBLISHED_PRETRAINED = {
    "restaurant categories": 89.9,
    "restaurant terms": 84.46,
    "laptop terms": 78.99,
}
# The terms and laptop rows in results/ were measured with lr 3e-5 and 3 epochs
# (see their meta.params); PRETRAINED is in benchmarks.common.


def effective_params(encoder: str, attention: dict | None = None) -> dict:
    """The settings a run of ``encoder`` trains with (as recorded in the results)."""
    extra = {"pretrained": PRETRAINED, "transformer": TRANSFORMER}.get(encoder, {})
    return {**PARAMS, **extra, **(attention or {})}


def run_one(
    variant,
    seed,
    embeddings,
    data,
    aspect_type,
    encoder="lstm",
    pretrained_input="vector",
    attention=None,
):
    if encoder == "pretrained":
        clf = build(
            AspectAttentionClassifier,
            variant="at",
            encoder="pretrained",
            random_state=seed,
            pretrained_model=str(get_data_home() / "all-MiniLM-L6-v2"),
            pretrained_input=pretrained_input,
            aspect_type=aspect_type,
            **effective_params("pretrained", attention),
        )
    else:
        clf = _word_model(variant, seed, embeddings, aspect_type, encoder, attention)
    return _evaluate(clf, variant, seed, data)


def _word_model(variant, seed, embeddings, aspect_type, encoder, attention=None):
    return build(
        AspectAttentionClassifier,
        variant=variant,
        embeddings=embeddings,
        random_state=seed,
        aspect_type=aspect_type,
        encoder=encoder,
        **effective_params(encoder, attention),
    )


def _evaluate(clf, variant, seed, data):
    (X_train, y_train), (X_test, y_test) = data
    clf.fit(X_train, y_train)
    start = time.perf_counter()
    proba = clf.predict_proba(X_test)
    infer = time.perf_counter() - start
    predicted = clf.classes_[proba.argmax(1)]
    epochs = [row["dur"] for row in clf.history_]
    hard = disagreeing(X_test, y_test)
    return {
        "variant": variant,
        "seed": seed,
        "test_accuracy": 100 * accuracy_score(y_test, predicted),
        "test_macro_f1": 100 * f1_score(y_test, predicted, average="macro"),
        # pairs whose sentence has aspects of different polarities
        "disagree_pairs": int(hard.sum()),
        "disagree_accuracy": 100
        * accuracy_score(np.asarray(y_test)[hard], predicted[hard]),
        "best_epoch": clf.best_epoch_,
        "valid_accuracy": 100 * clf.history_[clf.best_epoch_ - 1]["valid_acc"],
        "epochs_run": len(epochs),
        "seconds_per_epoch": float(np.mean(epochs)),
        "test_pairs_per_second": len(X_test) / infer,
    }


def summarize(runs, published):
    rows = []
    for variant in dict.fromkeys(r["variant"] for r in runs):
        mine = [r for r in runs if r["variant"] == variant]

        def stat(key, mine=mine):
            values = np.array([r[key] for r in mine])
            return float(values.mean()), float(
                values.std(ddof=1) if len(values) > 1 else 0.0
            )

        rows.append(
            {
                "variant": variant,
                "n_seeds": len(mine),
                **{
                    key: stat(key)
                    for key in [
                        "test_accuracy",
                        "test_macro_f1",
                        "valid_accuracy",
                        "best_epoch",
                        "seconds_per_epoch",
                        "test_pairs_per_second",
                        "disagree_accuracy",
                    ]
                },
                "disagree_pairs": mine[0]["disagree_pairs"],
                "published_accuracy": published.get(variant),
            }
        )
    return rows


def markdown(rows, meta):
    encoder = {"lstm": "LSTM", "transformer": "transformer", "pretrained": "MiniLM"}[
        meta.get("encoder", "lstm")
    ]
    params = meta.get("params", {})
    form = f", {params.get('attention_score', 'additive')}"
    if params.get("attention_heads", 1) > 1:
        form += f" x{params['attention_heads']} heads"
    lines = [
        "| model | test accuracy | test macro-F1 | published accuracy | s / epoch "
        "| test pairs / s | disagreeing pairs |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        acc, f1 = r["test_accuracy"], r["test_macro_f1"]
        lines.append(
            f"| {r['variant'].upper()}-{encoder}{form} | {acc[0]:.2f} ± {acc[1]:.2f} | "
            f"{f1[0]:.2f} ± {f1[1]:.2f} | {r['published_accuracy'] or '-'} | "
            f"{r['seconds_per_epoch'][0]:.2f} | "
            f"{r['test_pairs_per_second'][0]:,.0f} | "
            f"{r['disagree_accuracy'][0]:.2f} ± {r['disagree_accuracy'][1]:.2f} "
            f"(n = {r['disagree_pairs']}) |"
        )
    if meta.get("encoder") == "pretrained":
        aspect = {"pair": "as a second segment", "vector": "as the query only"}
        inputs = (
            f"input: MiniLM's own sub-words, aspect {aspect[meta['pretrained_input']]}"
        )
    else:
        inputs = (
            f"word vectors: {meta['embeddings_name']} (Wang et al. used GloVe 840B "
            "300-d)"
        )
    lines.append("")
    lines.append(
        f"SemEval-2014 {meta['dataset']}, 3-way, {meta['train_pairs']} train / "
        f"{meta['test_pairs']} test pairs; mean ± std over {rows[0]['n_seeds']} seeds; "
        f"epoch selected on 10% of the training sentences; {inputs}; "
        f"{meta['cpu_threads']} CPU threads."
    )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="seeds run: first-seed .. first-seed + seeds - 1 (to add seeds to a "
        "result; forms_table.py pools the files)",
    )
    parser.add_argument("--variants", nargs="+", default=["at", "ae", "atae"])
    parser.add_argument(
        "--embeddings", default=None, help="default: GloVe 6B 50-d from the data home"
    )
    parser.add_argument(
        "--dataset", default="restaurant categories", choices=list(DATASETS)
    )
    parser.add_argument(
        "--encoder", default="lstm", choices=["lstm", "transformer", "pretrained"]
    )
    parser.add_argument(
        "--pretrained-input", default="vector", choices=["vector", "pair"]
    )
    parser.add_argument(
        "--attention-score",
        default="additive",
        choices=["additive", "dot", "general", "scaled_dot", "concat"],
    )
    parser.add_argument("--attention-heads", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--log",
        default=None,
        help="append each run to this runs log (one JSON object per line, with "
        "the data set, encoder and attention form) instead of writing --out",
    )
    args = parser.parse_args()
    attention = {
        "attention_score": args.attention_score,
        "attention_heads": args.attention_heads,
    }
    domain, aspect, published = DATASETS[args.dataset]
    if args.encoder == "pretrained":
        published = {"at": PUBLISHED_PRETRAINED.get(args.dataset)}
    suffix = (
        ""
        if args.dataset == "restaurant categories"
        else ("_" + args.dataset.replace(" ", "_"))
    )
    if args.encoder != "lstm":
        suffix += f"_{args.encoder}"
    if args.encoder == "pretrained":
        suffix += f"_{args.pretrained_input}"
    if attention != {"attention_score": "additive", "attention_heads": 1}:
        suffix += f"_{args.attention_score}_h{args.attention_heads}"
    out = Path(args.out or RESULTS / f"attention_lstm{suffix}")

    embeddings = args.embeddings or glove()
    params = effective_params(args.encoder, attention)
    data = (
        fetch_semeval2014(domain, "train", aspect),
        fetch_semeval2014(domain, "test", aspect),
    )
    runs = []
    for variant in args.variants:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            run = run_one(
                variant,
                seed,
                embeddings,
                data,
                aspect,
                args.encoder,
                args.pretrained_input,
                attention,
            )
            runs.append(run)
            if args.log:  # one record per run, the form's table reads them
                append_run(
                    Path(args.log),
                    {
                        "data": args.dataset,
                        "encoder": args.encoder,
                        **attention,
                        **run,
                        "params": params,
                        "cpu_threads": torch.get_num_threads(),
                        "torch": torch.__version__,
                        "machine": platform.machine(),
                    },
                )
                continue
            print(
                json.dumps(
                    {
                        k: round(v, 3) if isinstance(v, float) else v
                        for k, v in run.items()
                    }
                ),
                flush=True,
            )
    if args.log:
        return
    meta = {
        "dataset": args.dataset,
        "encoder": args.encoder,
        "pretrained_input": args.pretrained_input,
        "train_pairs": len(data[0][0]),
        "test_pairs": len(data[1][0]),
        "embeddings_name": Path(embeddings).name,
        "params": params,
        "cpu_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "machine": platform.machine(),
    }
    rows = summarize(runs, published)
    write_results(
        out, {"meta": meta, "summary": rows, "runs": runs}, markdown(rows, meta)
    )


if __name__ == "__main__":
    main()
