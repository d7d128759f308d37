"""``aspectattn evaluate``: score a model on a labelled data set (accuracy,
macro-F1, per-class report, confusion matrix; a detector: detection and end-to-end
F1; an extractor: exact-span precision, recall and F1)."""

from __future__ import annotations

import json
import sys

import numpy as np

from ._common import (
    add_data_options,
    is_detector,
    labels_like,
    load_data,
    load_model,
    load_table,
    print_report,
)
from ._extraction import (
    evaluate_extractor,
    evaluate_pipeline,
    is_extractor,
    is_pipeline,
)

#: Position in ``aspectattn --help``.
ORDER = 2
HELP = "accuracy, macro-F1, per-class report, confusion matrix"


def add_arguments(p) -> None:
    p.add_argument("model", help="model file (.aam)")
    p.add_argument(
        "data", help="data-set name or CSV/JSONL/XML/APC (.dat) file with labels"
    )
    p.add_argument(
        "--extractor",
        help="an aspect term extractor model file: score it and the pair classifier "
        "MODEL end to end on DATA's term spans (a hit needs the span and the "
        "polarity)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_data_options(p, "test")


def run(args) -> int:
    from sklearn.metrics import (
        accuracy_score,
        classification_report,
        confusion_matrix,
        f1_score,
    )

    clf = load_model(args.model, args.trust_pickle, args.quantize)
    if args.extractor or is_pipeline(clf):
        return evaluate_pipeline(clf, args)
    if is_extractor(clf):
        return evaluate_extractor(clf, args)
    if is_detector(clf):
        return _evaluate_detector(clf, args)
    X, y = load_data(args.data, args, need_labels=True, aspect_type=clf.aspect_type_)
    predicted = clf.predict(X)
    y = labels_like(y, clf.classes_)
    known = set(clf.classes_.tolist())
    unknown = sorted({v for v in y.tolist() if v not in known}, key=str)
    if unknown:
        print(
            f"aspectattn evaluate: warning: labels {unknown[:5]} are not classes of "
            f"the model {clf.classes_.tolist()}; those pairs count as wrong",
            file=sys.stderr,
        )
    # The report's rows: the model's classes, then the labels it cannot predict.
    labels = np.asarray(clf.classes_.tolist() + unknown, dtype=object)
    report = {
        "pairs": len(X),
        "accuracy": float(accuracy_score(y, predicted)),
        "macro_f1": float(f1_score(y, predicted, average="macro")),
        "per_class": classification_report(
            y, predicted, labels=labels, output_dict=True, zero_division=0
        ),
        "confusion_matrix": {
            "labels": labels.tolist(),
            "matrix": confusion_matrix(y, predicted, labels=labels).tolist(),
        },
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(
        f"pairs {len(X)}   accuracy {report['accuracy']:.4f}   "
        f"macro-F1 {report['macro_f1']:.4f}\n"
    )
    print(classification_report(y, predicted, labels=labels, digits=3, zero_division=0))
    width = max(len(str(c)) for c in labels) + 2
    print("confusion matrix (rows: true, columns: predicted)")
    print(" " * width + "".join(f"{str(c):>{width}}" for c in labels))
    for c, row in zip(labels, report["confusion_matrix"]["matrix"], strict=True):
        print(f"{str(c):>{width}}" + "".join(f"{v:>{width}}" for v in row))
    return 0


def _evaluate_detector(clf, args) -> int:
    from ..estimators.categories import detection_f1, mention_f1

    texts, Y = load_table(args.data, args)
    Y = Y.reindex(columns=list(clf.categories_), fill_value=clf.not_mentioned)
    truth, predicted = Y.to_numpy(dtype=object), clf.predict(texts)
    none = clf.not_mentioned
    both = (predicted != none) & (truth != none)  # found and mentioned
    report = {
        "sentences": len(texts),
        "detection_micro_f1": detection_f1(truth, predicted, none),
        "end_to_end_micro_f1": mention_f1(truth, predicted, none),
        "sentiment_accuracy_on_found": float(
            (predicted[both] == truth[both]).mean() if both.any() else 0.0
        ),
    }
    print_report(report, args.json)
    return 0
