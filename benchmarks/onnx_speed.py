"""Serving without torch: the ONNX runtime beside the torch model.

    ASPECTATTN_DATA=../shared/data python -m benchmarks onnx_speed

For each model (trained briefly on SemEval-2014 restaurant categories: the speed and
the agreement do not depend on how well it was trained): export it, load it with
:func:`aspectattn.serving.runtime.load_onnx`, and on the test pairs repeated 4 times
measure,
end to end from (text, aspect) pairs (tokenising included), pairs (or sentences) per
second with 1 and 2 threads for torch and onnxruntime (best of 3), and the largest
difference between their probabilities. Writes ``results/onnx_speed.{json,md}``
(``--table``: the table again, from the record).
Run it alone on the machine: it is a timing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
import torch

from aspectattn import AspectAttentionClassifier, AspectCategoryClassifier
from aspectattn.datasets import fetch_category_table, fetch_semeval2014
from aspectattn.serving.export import export_onnx
from aspectattn.serving.runtime import load_onnx
from benchmarks.common import COPIES_ONCE, build, glove
from benchmarks.runner import Measurement

BASE = dict(hidden_size=300, max_epochs=2, batch_size=25, random_state=0)
MODELS = {
    "AT-LSTM (pairs)": dict(variant="at"),
    "ATAE-LSTM (pairs)": dict(variant="atae"),
    "AT-transformer (pairs)": dict(
        variant="at", encoder="transformer", d_model=128, n_heads=4, n_layers=2
    ),
}


def best_rate(predict, X, repeats=3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        predict(X)
        times.append(time.perf_counter() - start)
    return len(X) / min(times)


def row(name, clf, X, proba) -> dict:
    with TemporaryDirectory() as tmp:
        export_onnx(clf, tmp)
        size = sum(f.stat().st_size for f in Path(tmp).iterdir())
        row = {"model": name, "rows": len(X), "export_mib": size / 2**20}
        for threads in (1, 2):
            torch.set_num_threads(threads)
            model = load_onnx(tmp, threads=threads)
            row[f"torch_{threads}"] = best_rate(proba(clf), X)
            row[f"onnx_{threads}"] = best_rate(proba(model), X)
        ours, theirs = proba(model)(X), proba(clf)(X)
        if isinstance(ours, list):  # the detector: one array per category
            ours, theirs = np.stack(ours), np.stack(theirs)
        row["max_abs_diff"] = float(np.abs(ours - theirs).max())
    print(json.dumps(row), flush=True)
    return row


def measure(args) -> dict:
    """Every model's row, and the torch version."""
    vectors = glove()
    X, y = fetch_semeval2014("restaurants", "train", "category")
    X_test, _ = fetch_semeval2014("restaurants", "test", "category")
    X_test = list(X_test) * 4
    rows = []
    for name, extra in MODELS.items():
        params = {**BASE, **extra}
        if "encoder" in extra:
            params.pop("hidden_size")
        clf = build(AspectAttentionClassifier, embeddings=vectors, **params).fit(X, y)
        rows.append(row(name, clf, X_test, lambda m: m.predict_proba))
    texts, table = fetch_category_table("semeval2014", "train")
    detector = build(
        AspectCategoryClassifier, embeddings=vectors, **BASE, **COPIES_ONCE
    ).fit(texts, table)
    sentences = list(dict.fromkeys(t for t, _ in X_test))
    rows.append(
        row(
            "AT-LSTM detector (sentences, 5 categories)",
            detector,
            sentences * 4,
            lambda m: m.predict_proba,
        )
    )
    return {"torch": torch.__version__, "rows": rows}


def markdown(results: dict) -> str:
    lines = [
        "| model | rows | torch, 1 thread | onnxruntime, 1 thread | torch, 2 threads "
        "| onnxruntime, 2 threads | max abs. difference | export size |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results["rows"]:
        lines.append(
            f"| {r['model']} | {r['rows']:,} "
            f"| {r['torch_1']:,.0f} | {r['onnx_1']:,.0f} "
            f"| {r['torch_2']:,.0f} | {r['onnx_2']:,.0f} | {r['max_abs_diff']:.1e} "
            f"| {r['export_mib']:.1f} MiB |"
        )
    lines += [
        "",
        "Rows per second, end to end from text (best of 3), SemEval-2014 restaurant "
        "test pairs repeated 4 times; GloVe 6B 50-d, hidden size 300. torch "
        f"{results['torch']}; for AT both encode each distinct sentence of a "
        "batch once (ATAE: once per pair). Run alone on the 2-core machine.",
    ]
    return "\n".join(lines)


MEASUREMENT = Measurement("onnx_speed", measure, markdown)

if __name__ == "__main__":
    MEASUREMENT.main(__doc__.splitlines()[0])
