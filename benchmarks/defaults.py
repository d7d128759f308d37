"""What a user gets without setting anything: the library's defaults beside the
defaults before them and the best hand-set row, per data set.

    ASPECTATTN_DATA=../shared/data python -m benchmarks defaults

Reads the run logs of :mod:`benchmarks.aspect_level` (categories, MAMS-ACSA,
SemEval-2015, the detector) and :mod:`benchmarks.terms` (restaurant and laptop
terms, MAMS-ATSA); trains nothing. The runs themselves::

    python -m benchmarks aspect_level --log defaults_categories \\
        --candidates "Defaults" "Defaults, MAMS-ACSA" "Detector, defaults" \\
        "Defaults, SemEval-15" "ATAE-LSTM, per pair, SemEval-15"
    python -m benchmarks aspect_level --log defaults_minilm \\
        --candidates "MiniLM, defaults, MAMS-ACSA" "MiniLM, defaults" \\
        "MiniLM, head_lr=None, MAMS-ACSA" "MiniLM, pair input, defaults, MAMS-ACSA"
    python -m benchmarks aspect_level --log candidates --seeds 0 1 \\
        --candidates "Defaults, bidirectional" \\
        "Detector, defaults, bidirectional" \\
        "Detector, defaults + CAN regularisers (0.01, 0.01)" \\
        "Detector, defaults + CAN regularisers (0.03, 0.03)"

For aspect terms the defaults resolve to the model of the terms row
"AT-BiLSTM + linear + term final state" but for their copies and their learned
position prior (checked below with :func:`aspectattn.params.resolve_auto`);
its runs are shown, so labelled.

Every row: GloVe 6B 50-d, Wang et al.'s training settings (``common.BASE``), the
epoch chosen on 10% of the training sentences. The "best hand-set" row is chosen
by validation score (accuracy; the detector's loss) among the other rows of the
same training data with at least 3 seeds, never by a test score; rows whose
validation split holds synthetic sentences or other training data ("+joined",
"+MAMS") or another encoder family (MiniLM) are not candidates. Writes
``benchmarks/results/defaults.md``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from aspectattn import AspectAttentionClassifier
from aspectattn import params as P
from benchmarks import terms
from benchmarks.common import PREVIOUS_DEFAULTS, RESULTS, build, flat_default
from benchmarks.runner import read_runs

#: The run logs read, and the row names that hold the library's defaults.
CATEGORY_LOGS = (
    "aspect_level",
    "augment_join_pairs",
    "augment_join_detector",
    "defaults_categories",
    "defaults_minilm",
    "candidates",
)
TERM_ROW = "AT-BiLSTM + linear + term final state"
PREVIOUS = {
    "SemEval-14 restaurant categories": "ATAE-LSTM, per pair",
    "SemEval-14 detector": "Detector (AT-LSTM, all categories)",
    "MAMS-ACSA (val)": "ATAE-LSTM, per pair, MAMS-ACSA",
    "SemEval-15 restaurant categories": "ATAE-LSTM, per pair, SemEval-15",
    "SemEval-14 restaurant terms": "ATAE-LSTM (today)",
    "SemEval-14 laptop terms": "ATAE-LSTM (today)",
    "MAMS-ATSA (val)": "ATAE-LSTM (today)",
}
DEFAULTS = {
    "SemEval-14 restaurant categories": "Defaults",
    "SemEval-14 detector": "Detector, defaults",
    "MAMS-ACSA (val)": "Defaults, MAMS-ACSA",
    "SemEval-15 restaurant categories": "Defaults, SemEval-15",
    "SemEval-14 restaurant terms": TERM_ROW,
    "SemEval-14 laptop terms": TERM_ROW,
    "MAMS-ATSA (val)": TERM_ROW,
}
#: Settings measured beside the defaults as candidates for the next ones (the
#: defaults with one change: shown, never picked as the best hand-set row).
CANDIDATES = {
    "SemEval-14 restaurant categories": ["Defaults, bidirectional"],
    "MAMS-ACSA (val)": ["Defaults, bidirectional, MAMS-ACSA"],
    "SemEval-15 restaurant categories": ["Defaults, bidirectional, SemEval-15"],
    "SemEval-14 detector": [
        "Detector, defaults, bidirectional",
        "Detector, defaults + CAN regularisers (0.01, 0.01)",
        "Detector, defaults + CAN regularisers (0.03, 0.03)",
    ],
}
TERM_DATA = {
    "restaurants": "SemEval-14 restaurant terms",
    "laptops": "SemEval-14 laptop terms",
    "mams": "MAMS-ATSA (val)",
}
COLUMNS = [
    ("accuracy", "accuracy"),
    ("macro_f1", "macro-F1"),
    ("disagree_accuracy", "disagreeing pairs"),
    ("disagree_sentences_all_right", "disagreeing sentences all right"),
    ("flip_target_accuracy", "flip probes: target follows"),
    ("flip_others_accuracy", "flip probes: others stay"),
    ("detection_micro_f1", "detection micro-F1"),
    ("end_to_end_micro_f1", "end-to-end micro-F1"),
    ("valid", "validation"),
    ("seconds_per_epoch", "s / epoch"),
]


def check_term_row() -> None:
    """The defaults, resolved for aspect terms, are the model of TERM_ROW but for
    the copies of English terms (``augment="auto"``: flipped, joined and negated
    copies) and the position prior (``position_weighting="auto"``: learned per
    distance, where TERM_ROW's is linear), both chosen later on validation by
    :mod:`benchmarks.behaviour`, where the defaults themselves are measured."""
    defaults = {k: flat_default(k) for k in PREVIOUS_DEFAULTS}
    defaults["augment"] = None
    defaults["position_weighting"] = "linear"
    row = build(AspectAttentionClassifier, **{**terms.PARAMS, **terms.MODELS[TERM_ROW]})
    mine = build(AspectAttentionClassifier, **{**terms.PARAMS, **defaults})
    if _resolved_for_terms(row) != _resolved_for_terms(mine):
        raise AssertionError(f"the defaults for terms are no longer {TERM_ROW!r}")


def _resolved_for_terms(model) -> dict:
    """The settings of ``model`` with every ``"auto"`` resolved for aspect terms,
    as data (each component with its own parameters)."""
    from aspectattn.params.components import component_data

    values = model._values()
    values = {**values, **P.resolve_auto(values, "term")}
    return {name: component_data(value) for name, value in values.items()}


def category_run(run: dict) -> tuple[str, dict]:
    """``(data set, scores without their prefix)`` of an aspect_level run."""
    if "detection_micro_f1" in run:
        data, prefix = "SemEval-14 detector", "test_"
    elif "mams_val_accuracy" in run:
        data, prefix = "MAMS-ACSA (val)", "mams_val_"
    elif "sem15_test_accuracy" in run:
        data, prefix = "SemEval-15 restaurant categories", "sem15_test_"
    else:
        data, prefix = "SemEval-14 restaurant categories", "test_"
    out = {k.removeprefix(prefix): v for k, v in run.items()}
    out["valid"] = run.get("valid_accuracy", run.get("valid_loss"))
    return data, out


def collect() -> dict:
    """data set -> model -> list of runs (seed order, one run per seed)."""
    table = defaultdict(lambda: defaultdict(dict))
    for name in CATEGORY_LOGS:
        for run in read_runs(RESULTS / f"{name}.runs.jsonl"):
            data, scores = category_run(run)
            table[data][run["candidate"]].setdefault(run["seed"], scores)
    for run in read_runs(RESULTS / "terms.runs.jsonl"):
        scores = dict(run, valid=run.get("valid_accuracy"))
        table[TERM_DATA[run["data"]]][run["candidate"]].setdefault(run["seed"], scores)
    return {
        data: {m: [s[k] for k in sorted(s)] for m, s in models.items()}
        for data, models in table.items()
    }


def summary(runs: list[dict]) -> dict:
    out = {"n_seeds": len(runs)}
    for key, _ in COLUMNS:
        values = [r[key] for r in runs if r.get(key) is not None]
        if len(values) == len(runs):
            std = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
            out[key] = (float(np.mean(values)), std)
    return out


def hand_set(data: str, models: dict) -> str | None:
    """The row chosen by validation among the hand-set candidates of ``data``."""
    skip = {DEFAULTS[data], PREVIOUS[data], *CANDIDATES.get(data, [])}
    candidates = {
        m: summary(r)
        for m, r in models.items()
        if m not in skip
        and len(r) >= 3
        and not any(s in m for s in ("+joined", "+MAMS", "MiniLM"))
        and all(x.get("valid") is not None for x in r)
    }
    if not candidates:
        return None
    lower_better = data == "SemEval-14 detector"  # validation loss
    pick = min if lower_better else max
    return pick(candidates, key=lambda m: candidates[m]["valid"][0])


def rows() -> list[dict]:
    check_term_row()
    table = collect()
    out = []
    for data in DEFAULTS:
        models = table.get(data, {})
        chosen = hand_set(data, models)
        shown = [
            ("defaults", DEFAULTS[data]),
            ("previous defaults", PREVIOUS[data]),
            ("best hand-set", chosen),
            *(("candidate", m) for m in CANDIDATES.get(data, [])),
            *(
                ("pretrained encoder", m)
                for m in sorted(models)
                if m.startswith("MiniLM")
            ),
        ]
        for role, name in shown:
            if name is None or name not in models:
                continue
            if role == "defaults" and name == TERM_ROW:
                role = "defaults without the copies, linear prior"
            out.append(
                {"data": data, "role": role, "model": name, **summary(models[name])}
            )
    return out


def markdown(rows: list[dict]) -> str:
    def cell(row, key):
        if key not in row:
            return "—"
        mean, std = row[key]
        return (
            f"{mean:.2f}" if key == "seconds_per_epoch" else f"{mean:.2f} ± {std:.2f}"
        )

    head = " | ".join(label for _, label in COLUMNS)
    lines = [
        f"| data | row | model | n | {head} |",
        "|" + "---|" * (4 + len(COLUMNS)),
    ]
    for r in rows:
        cells = " | ".join(cell(r, key) for key, _ in COLUMNS)
        lines.append(
            f"| {r['data']} | {r['role']} | {r['model']} | {r['n_seeds']} | {cells} |"
        )
    lines += [
        "",
        "Mean ± std over the seeds in the n column (seeds 0..n-1); GloVe 6B 50-d; "
        "the epoch chosen on 10% of the training sentences; validation: accuracy "
        "(the detector: loss). Defaults: nothing set but the training settings. "
        "Previous defaults: ATAE, per pair, no copies, h_N (the detector: h_N, no "
        "copies). Best hand-set: chosen by validation among the other rows with "
        f"n >= 3. The terms' defaults are the row {TERM_ROW!r} (the same model) "
        "with a position prior learned per distance in place of the linear one, "
        "plus flipped, joined and negated copies of English terms, both chosen "
        "later on validation by accuracy, then robustness: the defaults "
        "themselves are in behaviour.md. "
        "MAMS rows are scored on MAMS validation (its test labels are not "
        "distributed here). Pretrained encoder: MiniLM fine-tuned end to end "
        "with benchmarks.common.PRETRAINED (lr 5e-5, batch 24, at most 4 epochs), "
        "as many seeds as the CPU allowed. s / epoch: runs of one CPU thread, two "
        "at once, so compare within a data set only.",
    ]
    return "\n".join(lines)


def main():
    text = markdown(rows())
    Path(RESULTS / "defaults.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
