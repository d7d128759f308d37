"""One table of the attention forms from their runs log,
``benchmarks/results/forms.runs.jsonl``.

    python -m benchmarks.forms_table

Each run in the log is a run of ``attention_lstm.py --attention-score S
--attention-heads M --log benchmarks/results/forms.runs.jsonl`` (restaurant
categories or terms; ``--first-seed`` adds seeds to a row: the runs of one data
set, variant, form and head count are pooled by seed). Validation accuracy (10% of
the training sentences, the epoch's own selection split) is the column to choose
by; test accuracy is reported beside it and chooses nothing.
"""

from collections import defaultdict

import numpy as np

from benchmarks.common import RESULTS
from benchmarks.runner import read_runs

LOG = RESULTS / "forms.runs.jsonl"


def pooled_runs() -> dict[tuple, dict[int, dict]]:
    """(data set, variant, form, heads) -> {seed: run}."""
    rows = defaultdict(dict)
    for run in read_runs(LOG):
        key = (
            run["data"],
            run["variant"].upper(),
            run["attention_score"],
            run["attention_heads"],
        )
        if run["seed"] in rows[key]:
            raise ValueError(f"seed {run['seed']} of {key} twice in {LOG.name}")
        rows[key][run["seed"]] = run
    return rows


def mean_std(values) -> str:
    values = np.asarray(values, dtype=float)
    std = values.std(ddof=1) if len(values) > 1 else 0.0
    return f"{values.mean():.2f} ± {std:.2f}"


def main():
    lines = [
        "| data | variant | form | heads | seeds | validation accuracy "
        "| test accuracy | test macro-F1 | disagreeing pairs (seeds) "
        "| s / epoch (1 thread, shared machine) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (dataset, variant, form, heads), by_seed in sorted(pooled_runs().items()):
        runs = [by_seed[s] for s in sorted(by_seed)]
        hard = [r["disagree_accuracy"] for r in runs if "disagree_accuracy" in r]
        hard_cell = f"{mean_std(hard)} ({len(hard)})" if hard else "-"
        lines.append(
            f"| {dataset} | {variant} | {form} | {heads} | {len(runs)} "
            f"| {mean_std([r['valid_accuracy'] for r in runs])} "
            f"| {mean_std([r['test_accuracy'] for r in runs])} "
            f"| {mean_std([r['test_macro_f1'] for r in runs])} | {hard_cell} "
            f"| {np.mean([r['seconds_per_epoch'] for r in runs]):.2f} |"
        )
    table = "\n".join(lines)
    (RESULTS / "forms.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
