"""Int8 ONNX exports of every model kind: do their labels agree with torch's?

    ASPECTATTN_DATA=../shared/data python -m benchmarks int8_export [--device auto]

For each kind of model the export accepts -- pairs on categories and on terms,
the LSTM, the transformer and the pretrained encoder (MiniLM) with the aspect as
the attention's query or as a second segment, and the detector -- fit the
defaults (4 epochs: the agreement is a property of the export, not of
how well the model was trained; seed 0) on SemEval-2014 restaurants, export it
as float32 and as int8 ONNX, and on the test side report the share of labels
(cells for the detector) on which the int8 runtime agrees with torch, the float
runtime's agreement beside it, the largest probability change, and test
accuracy of torch and of the int8 runtime (onnxruntime on the CPU; the models may
be trained on a GPU, as the table says). ``--only NAME`` runs the models whose name
holds NAME and puts them in place of their earlier rows. An LSTM encoder has no weight
products to make int8: its export stays float32 (a warning says so). Writes
``results/int8_export.{json,md}`` (``--table``: the table again, from the record).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np

from aspectattn import AspectAttentionClassifier, AspectCategoryClassifier
from aspectattn.datasets import fetch_category_table, fetch_semeval2014, get_data_home
from aspectattn.serving.export import export_onnx
from aspectattn.serving.runtime import load_onnx
from benchmarks.common import COPIES_ONCE, build, glove
from benchmarks.runner import Measurement


def kinds(minilm: str) -> list[tuple[str, str, type, dict]]:
    """(name, data, estimator, parameters) of every kind of model."""
    lstm = dict(embeddings=glove())
    pretrained = dict(encoder="pretrained", pretrained_model=minilm)
    pair = dict(**pretrained, pretrained_input="pair")
    transformer = dict(encoder="transformer", embeddings=glove())
    pairs = AspectAttentionClassifier
    return [
        ("LSTM, categories", "category", pairs, lstm),
        ("LSTM, terms", "term", pairs, lstm),
        ("transformer, categories", "category", pairs, transformer),
        ("MiniLM, categories", "category", pairs, pretrained),
        ("MiniLM pair input, categories", "category", pairs, pair),
        ("MiniLM, terms", "term", pairs, pretrained),
        ("MiniLM pair input, terms", "term", pairs, pair),
        ("detector, LSTM", "table", AspectCategoryClassifier, lstm),
        ("detector, MiniLM", "table", AspectCategoryClassifier, pretrained),
    ]


def data(kind: str, subset: str):
    if kind == "table":
        texts, Y = fetch_category_table("semeval2014", subset)
        return texts, Y.to_numpy()
    return fetch_semeval2014(subset=subset, aspect=kind)


def labels(model, X, detector: bool) -> tuple[np.ndarray, np.ndarray]:
    """Labels (cells) and probabilities, flattened alike for both estimators."""
    proba = model.predict_proba(X)
    if isinstance(proba, list):  # one (n, C) array per category
        proba = np.stack(proba, axis=1)  # (n, K, C)
    return proba.argmax(-1).ravel(), proba.reshape(-1, proba.shape[-1])


def run(device: str, only: str | None = None, epochs: int = 4) -> list[dict]:
    minilm = str(get_data_home() / "all-MiniLM-L6-v2")
    rows = []
    for name, kind, estimator, params in kinds(minilm):
        if only and only not in name:
            continue
        X, y = data(kind, "train")
        X_test, y_test = data(kind, "test")
        base = build(estimator, **params, **COPIES_ONCE, device=device, random_state=0)
        clf = base.set_params(max_epochs=epochs).fit(X, y)
        detector = estimator is AspectCategoryClassifier
        torch_labels, torch_proba = labels(clf, X_test, detector)
        row = {"model": name, "test_rows": len(torch_labels), "trained_on": _where(clf)}
        with TemporaryDirectory() as tmp:
            for form, quantize in (("float", None), ("int8", "int8")):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    export_onnx(clf, Path(tmp) / form, quantize=quantize)
                served = load_onnx(Path(tmp) / form)
                got, proba = labels(served, X_test, detector)
                row[f"{form}_agreement"] = float(np.mean(got == torch_labels))
                row[f"{form}_max_change"] = float(np.abs(proba - torch_proba).max())
                if form == "int8":
                    row["int8_left_float"] = any(
                        "leaves this export float32" in str(w.message) for w in caught
                    )
                    truth = np.asarray(y_test, dtype=object).ravel().astype(str)
                    classes = (
                        np.asarray(clf.labels_)
                        if detector
                        else np.asarray(clf.classes_)
                    ).astype(str)
                    row["torch_accuracy"] = float(
                        np.mean(classes[torch_labels] == truth)
                    )
                    row["int8_accuracy"] = float(np.mean(classes[got] == truth))
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def _where(clf) -> str:
    import torch

    device = next(clf.module_.parameters()).device
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"


def merged(earlier: list[dict], rows: list[dict]) -> list[dict]:
    """``rows`` in place of the ``earlier`` rows of the same models (a run with
    ``--only`` adds to the results), in the order of :func:`kinds`."""
    by_name = {r["model"]: r for r in [*earlier, *rows]}
    order = [name for name, *_ in kinds("")]
    return [by_name[n] for n in order if n in by_name]


def table(rows: list[dict]) -> str:
    lines = [
        "| model | test labels | int8 agrees with torch | float agrees | largest "
        "probability change (int8) | accuracy torch / int8 | trained on |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        note = " (left float32: no weight products)" if r["int8_left_float"] else ""
        lines.append(
            f"| {r['model']} | {r['test_rows']} | {100 * r['int8_agreement']:.1f}%"
            f"{note} | {100 * r['float_agreement']:.1f}% | {r['int8_max_change']:.3f} "
            f"| {100 * r['torch_accuracy']:.1f} / {100 * r['int8_accuracy']:.1f} "
            f"| {r['trained_on']} |"
        )
    return "\n".join(lines)


def measure(args) -> list[dict]:
    """The rows of the models ``--only`` names (all of them without it)."""
    return run(args.device, args.only, args.epochs)


MEASUREMENT = Measurement(
    "int8_export",
    measure,
    table,
    options=(
        (("--device",), {"default": "auto"}),
        (("--only",), {"help": "the models whose name holds this"}),
        (("--epochs",), {"type": int, "default": 4, "help": "at most (default 4)"}),
    ),
    merge=merged,
)

if __name__ == "__main__":
    MEASUREMENT.main(__doc__.splitlines()[0])
