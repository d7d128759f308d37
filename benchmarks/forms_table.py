"""One table of the attention forms from ``benchmarks/results/forms/*.json``.

    python benchmarks/forms_table.py

Each file is a run of ``attention_lstm.py --attention-score S --attention-heads M``
(restaurant categories). Validation accuracy (10% of the training sentences, the
epoch's own selection split) is the column to choose by; test accuracy is reported
beside it and chooses nothing.
"""

import json
from pathlib import Path

FORMS = Path(__file__).resolve().parent / "results" / "forms"


def main():
    rows = []
    for path in sorted(FORMS.glob("*.json")):
        data = json.loads(path.read_text())
        params = data["meta"]["params"]
        for row in data["summary"]:
            rows.append(
                (
                    row["variant"].upper(),
                    params.get("attention_score", "additive"),
                    params.get("attention_heads", 1),
                    row["n_seeds"],
                    row["valid_accuracy"],
                    row["test_accuracy"],
                    row["test_macro_f1"],
                    row["seconds_per_epoch"][0],
                )
            )
    lines = [
        "| variant | form | heads | seeds | validation accuracy | test accuracy "
        "| test macro-F1 | s / epoch (1 thread, shared machine) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for v, form, heads, n, valid, test, f1, sec in sorted(rows):
        lines.append(
            f"| {v} | {form} | {heads} | {n} | {valid[0]:.2f} ± {valid[1]:.2f} "
            f"| {test[0]:.2f} ± {test[1]:.2f} | {f1[0]:.2f} ± {f1[1]:.2f} | {sec:.2f} |"
        )
    table = "\n".join(lines)
    (FORMS / "forms.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
