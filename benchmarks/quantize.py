"""Int8 dynamic quantisation (``quantize="int8"``): accuracy change and speed-up.

    ASPECTATTN_DATA=../shared/data python -m benchmarks.quantize [--seeds 3] \
        [--models MiniLM AT-transformer]

For each model and seed: train as ``attention_lstm.py`` does (SemEval-2014 restaurant
categories, epoch chosen on 10% of the training sentences, the test set chooses
nothing), then score the test pairs twice, float32 and with ``quantize="int8"`` set
on the fitted model: accuracy, macro-F1, accuracy on the pairs whose sentence has
aspects that disagree, the share of test pairs whose label changes, the largest
probability change, and test pairs per second of ``predict_proba`` end to end
(tokenising included; best of 3; float and int8 timed alternately in the same
process). Each run is appended to ``results/quantize.runs.jsonl`` as it finishes
and skipped when the command is run again (delete the file to start afresh); the
summary of every run there goes to ``results/quantize.{json,md}``. No LSTM row:
``quantize`` leaves the LSTM encoder as it is (see
:mod:`aspectattn.engine.quantization`).
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014, get_data_home
from benchmarks.attention_lstm import PARAMS, PRETRAINED, TRANSFORMER
from benchmarks.common import build, disagreeing, glove
from benchmarks.runlog import append_run, read_runs, write_results

RESULTS = Path(__file__).resolve().parent / "results"


def models(data_home: Path) -> dict[str, dict]:
    vectors = glove()
    return {
        "MiniLM": dict(
            variant="at",
            encoder="pretrained",
            pretrained_model=str(data_home / "all-MiniLM-L6-v2"),
            **{**PARAMS, **PRETRAINED},
        ),
        "AT-transformer": dict(
            variant="at",
            encoder="transformer",
            embeddings=vectors,
            **{**PARAMS, **TRANSFORMER},
        ),
    }


def rate(clf, X) -> float:
    """Pairs per second of one ``predict_proba`` over ``X``."""
    start = time.perf_counter()
    clf.predict_proba(X)
    return len(X) / (time.perf_counter() - start)


def run_one(name, params, seed, data) -> dict:
    (X, y), (X_test, y_test) = data
    clf = build(
        AspectAttentionClassifier,
        aspect_type="category",
        random_state=seed,
        device="cpu",
        **params,
    ).fit(X, y)
    y_test = np.asarray(y_test)
    hard = disagreeing(X_test, y_test)
    row = {"model": name, "seed": seed, "best_epoch": clf.best_epoch_}
    probas = {}
    for quantize in (None, "int8"):
        clf.set_params(quantize=quantize)
        proba = probas[quantize] = clf.predict_proba(X_test)
        predicted = clf.classes_[proba.argmax(1)]
        key = quantize or "float"
        row[f"{key}_accuracy"] = 100 * accuracy_score(y_test, predicted)
        row[f"{key}_macro_f1"] = 100 * f1_score(y_test, predicted, average="macro")
        row[f"{key}_disagree_accuracy"] = 100 * accuracy_score(
            y_test[hard], predicted[hard]
        )
    rates = {None: [], "int8": []}
    for _ in range(3):  # alternate, so that both see the same machine load
        for quantize in rates:
            clf.set_params(quantize=quantize)
            rates[quantize].append(rate(clf, X_test))
    row["float_pairs_per_second"] = max(rates[None])
    row["int8_pairs_per_second"] = max(rates["int8"])
    row["labels_changed"] = 100 * float(
        np.mean(probas[None].argmax(1) != probas["int8"].argmax(1))
    )
    row["max_proba_change"] = float(np.abs(probas[None] - probas["int8"]).max())
    row["disagree_pairs"] = int(hard.sum())
    return row


def summarize(runs) -> list[dict]:
    keys = [k for k in runs[0] if k not in ("model", "seed", "disagree_pairs")]
    rows = []
    for name in dict.fromkeys(r["model"] for r in runs):
        mine = [r for r in runs if r["model"] == name]
        row = {"model": name, "n_seeds": len(mine)}
        for key in keys:
            values = np.array([r[key] for r in mine], dtype=float)
            row[key] = (
                float(values.mean()),
                float(values.std(ddof=1)) if len(values) > 1 else 0.0,
            )
        speedups = [
            r["int8_pairs_per_second"] / r["float_pairs_per_second"] for r in mine
        ]
        row["speedup"] = (float(np.mean(speedups)), float(np.min(speedups)))
        row["disagree_pairs"] = mine[0]["disagree_pairs"]
        rows.append(row)
    return rows


def markdown(rows, meta) -> str:
    def ms(v):
        return f"{v[0]:.2f} ± {v[1]:.2f}"

    lines = [
        "| model | seeds | accuracy float → int8 | macro-F1 float → int8 "
        "| disagreeing pairs float → int8 | labels changed % | max Δp "
        "| pairs / s float → int8 | speed-up (mean, min) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['n_seeds']} "
            f"| {ms(r['float_accuracy'])} → {ms(r['int8_accuracy'])} "
            f"| {ms(r['float_macro_f1'])} → {ms(r['int8_macro_f1'])} "
            f"| {ms(r['float_disagree_accuracy'])} → {ms(r['int8_disagree_accuracy'])} "
            f"| {ms(r['labels_changed'])} | {r['max_proba_change'][0]:.3f} "
            f"| {r['float_pairs_per_second'][0]:,.0f} → "
            f"{r['int8_pairs_per_second'][0]:,.0f} "
            f"| {r['speedup'][0]:.2f}x, {r['speedup'][1]:.2f}x |"
        )
    lines += [
        "",
        f"SemEval-2014 restaurant categories, {meta['train_pairs']} train / "
        f"{meta['test_pairs']} test pairs ({rows[0]['disagree_pairs']} in sentences "
        "whose aspects disagree); epoch chosen on 10% of the training sentences; "
        f"{meta['cpu_threads']} CPU thread(s); torch {meta['torch']}, quantised "
        f"engine {meta['engine']}. Command: `python -m benchmarks.quantize`.",
    ]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--models", nargs="+", default=["MiniLM", "AT-transformer"])
    parser.add_argument("--out", default=str(RESULTS / "quantize"))
    args = parser.parse_args()
    data_home = get_data_home()
    data = (
        fetch_semeval2014("restaurants", "train", "category"),
        fetch_semeval2014("restaurants", "test", "category"),
    )
    specs = models(data_home)
    out = Path(args.out)
    log = out.with_suffix(".runs.jsonl")
    runs = read_runs(log)
    done = {(r["model"], r["seed"]) for r in runs}
    for name in args.models:
        for seed in range(args.seeds):
            if (name, seed) in done:
                continue
            run = run_one(name, specs[name], seed, data)
            runs.append(run)
            append_run(log, run)
    meta = {
        "train_pairs": len(data[0][0]),
        "test_pairs": len(data[1][0]),
        "cpu_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "engine": torch.backends.quantized.engine,
        "machine": platform.machine(),
        "params": {
            name: specs[name] for name in dict.fromkeys(r["model"] for r in runs)
        },
    }
    rows = summarize(runs)
    results = {"meta": meta, "summary": rows, "runs": runs}
    write_results(out, results, markdown(rows, meta))


if __name__ == "__main__":
    main()
