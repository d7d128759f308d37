"""SemEval-2016 restaurants in Dutch, French, Russian, Spanish and Turkish:
aspect-term polarity with the defaults, word vectors learned from the training
text itself, beside the majority class and a pooled-vector baseline.

    ASPECTATTN_DATA=../shared/data python -m benchmarks.languages [--seeds 3]
        [--languages nl fr ru es tr] [--models NAME ...]

For every language, model and seed: train on the training file minus 10% of its
sentences (held out to choose the epoch: early stopping on validation accuracy),
with the terms' spans from the file, then score once on the gold test file:
accuracy, macro-F1, the pairs whose sentence has terms of different polarities.
Examples without ``$T$`` (their term is not in the sentence as written: 125 Dutch
training and 71 Dutch test sentences, 1 Turkish test sentence) are left out, as
``read_apc`` does by default. Nothing is chosen on a test set.

Rows: "majority" (the training majority label); "defaults, fasttext"
(``embeddings="fasttext"``: FastText trained on the training sentences);
"defaults, random vectors" (``embeddings=None``); "defaults, fasttext,
language='en'" (the English clitic rules, which ``language="auto"`` does not apply
to these texts: its validation column is the comparison); "tf-idf fasttext + LR"
(the pooled baseline, one deterministic run). Runs are appended to
``results/languages.runs.jsonl`` (resumable); the summary goes to
``results/languages.{json,md}``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from aspectattn import AspectAttentionClassifier, TfidfEmbeddingVectorizer
from benchmarks.common import BASE, load, pair_scores
from benchmarks.runlog import append_run, read_runs, write_results

RESULTS = Path(__file__).resolve().parent / "results"
LANGUAGES = {"nl": "Dutch", "fr": "French", "ru": "Russian", "es": "Spanish",
             "tr": "Turkish"}  # fmt: skip
PARAMS = {**BASE, "scoring": "accuracy", "aspect_type": "term"}
MODELS = {
    "majority": None,
    "defaults, fasttext": dict(embeddings="fasttext"),
    "defaults, random vectors": dict(embeddings=None, embedding_dim=100),
    # what language="auto" chose against: the English tokenizer rules
    "defaults, fasttext, language='en'": dict(embeddings="fasttext", language="en"),
    "tf-idf fasttext + LR": "baseline",
}


def run(model: str, code: str, seed: int) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the examples without $T$, counted above
        X, y = load(f"semeval2016-{code}", "train")
        X_test, y_test = load(f"semeval2016-{code}", "test")
    spec = MODELS[model]
    out = {"language": code, "model": model, "seed": seed}
    if spec is None:
        majority = Counter(y).most_common(1)[0][0]
        predicted = np.array([majority] * len(y_test), dtype=object)
    elif spec == "baseline":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        clf = make_pipeline(
            TfidfEmbeddingVectorizer(embeddings="fasttext", random_state=seed),
            LogisticRegression(max_iter=2000, class_weight="balanced"),
        )
        predicted = clf.fit([x[:2] for x in X], y).predict([x[:2] for x in X_test])
    else:
        clf = AspectAttentionClassifier(**PARAMS, **spec, random_state=seed)
        clf.fit(X, y)
        predicted = clf.predict(X_test)
        out.update(
            valid_accuracy=100 * max(h.get("valid_acc", 0) for h in clf.history_),
            best_epoch=clf.best_epoch_,
            resolved=clf.resolved_params_,
        )
    out.update(pair_scores(np.asarray(predicted), X_test, y_test, "test_"))
    return out


def summarize(runs: list[dict]) -> list[dict]:
    rows = []
    for code in LANGUAGES:
        for model in MODELS:
            mine = [r for r in runs if r["language"] == code and r["model"] == model]
            if not mine:
                continue
            row = {"language": code, "model": model, "n": len(mine)}
            for key in ("test_accuracy", "test_macro_f1", "test_disagree_accuracy",
                        "valid_accuracy"):  # fmt: skip
                values = [r[key] for r in mine if key in r]
                if values:
                    row[key] = float(np.mean(values))
                    row[key + "_std"] = (
                        float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
                    )
            rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [
        "| language | model | n | test accuracy | test macro-F1 | disagreeing pairs "
        "| validation accuracy |",
        "|---|---|---|---|---|---|---|",
    ]

    def cell(row, key):
        if key not in row:
            return "—"
        return f"{row[key]:.2f} ± {row[key + '_std']:.2f}"

    for row in rows:
        lines.append(
            f"| {LANGUAGES[row['language']]} | {row['model']} | {row['n']} | "
            f"{cell(row, 'test_accuracy')} | {cell(row, 'test_macro_f1')} | "
            f"{cell(row, 'test_disagree_accuracy')} | "
            f"{cell(row, 'valid_accuracy')} |"
        )
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--languages", nargs="+", default=list(LANGUAGES))
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--out", default=str(RESULTS / "languages"))
    args = parser.parse_args()
    out = Path(args.out)
    log = out.with_suffix(".runs.jsonl")
    runs = read_runs(log)
    done = {(r["language"], r["model"], r["seed"]) for r in runs}
    for code in args.languages:
        for model in args.models:
            seeds = 1 if MODELS[model] in (None, "baseline") else args.seeds
            for seed in range(seeds):
                if (code, model, seed) in done:
                    continue
                start = time.perf_counter()
                result = run(model, code, seed)
                result["seconds"] = time.perf_counter() - start
                print(result, flush=True)
                runs.append(result)
                append_run(log, result)
    rows = summarize(runs)
    meta = {"params": PARAMS, "cpu_threads": torch.get_num_threads()}
    write_results(out, {"meta": meta, "summary": rows, "runs": runs}, markdown(rows))


if __name__ == "__main__":
    main()
