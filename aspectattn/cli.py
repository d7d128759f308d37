"""The ``aspectattn`` command line: train, evaluate, predict, explain, analyze, export.

Run ``aspectattn --help`` or ``aspectattn COMMAND --help``. Every command exits with
status 0 on success and 2 with a one-line reason on bad input.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from .exceptions import AspectAttnError

DATASETS = {
    # name -> (fetch function name, kwargs); the split comes from --split
    "semeval2014-restaurants-category": (
        "fetch_semeval2014",
        {"domain": "restaurants", "aspect": "category"},
    ),
    "semeval2014-restaurants-term": (
        "fetch_semeval2014",
        {"domain": "restaurants", "aspect": "term"},
    ),
    "semeval2014-laptops-term": (
        "fetch_semeval2014",
        {"domain": "laptops", "aspect": "term"},
    ),
    "semeval2015-restaurants-category": ("fetch_semeval2015", {"aspect": "category"}),
    "semeval2015-restaurants-target": ("fetch_semeval2015", {"aspect": "target"}),
    "mams-category": ("fetch_mams", {"aspect": "category"}),
    "mams-term": ("fetch_mams", {"aspect": "term"}),
}

DESCRIPTION = """\
Aspect-level sentiment: is the opinion on an aspect of a sentence positive, negative
or neutral?

examples:
  aspectattn train semeval2014-restaurants-category --out model.aam
  aspectattn train reviews.csv --variant at --epochs 20 --out model.aam
  aspectattn evaluate model.aam semeval2014-restaurants-category --split test
  aspectattn predict model.aam reviews.csv --out predictions.csv
  aspectattn predict model.aam sentences.txt --aspects food,service,price
  aspectattn explain model.aam reviews.csv --out attention.html
  aspectattn export model.aam served/   # ONNX, for aspectattn.runtime (no torch)

Data: a data-set name (below) or a file: CSV or JSONL with columns text, aspect and
label (label only needed to train/evaluate), or a SemEval/MAMS XML file. For
'predict --aspects', a plain text file with one sentence per line also works.

data sets: """ + ", ".join(DATASETS)


class CLIError(Exception):
    """Bad command-line input; reported as one line, exit status 2."""


# ----------------------------------------------------------------------------- data
def _read_text(path: Path, encoding: str) -> str:
    """The file's text; a clear error naming the file and the encoding."""
    try:
        return path.read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise CLIError(
            f"{path} is not valid {encoding} text (byte {exc.start}); pass its "
            "encoding with --encoding (e.g. --encoding latin-1)"
        ) from None


def _read_table(
    path: Path,
    text_col: str,
    aspect_col: str,
    label_col: str,
    need_aspect: bool = True,
    encoding: str = "utf-8-sig",
):
    """Rows of a CSV/JSONL file as (texts, aspects or None, labels or None)."""
    text = _read_text(path, encoding)
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CLIError(
                    f"{path}:{n}: not valid JSON ({exc.msg}); expected one JSON "
                    "object per line (JSON Lines)"
                ) from None
            if not isinstance(row, dict):
                raise CLIError(
                    f"{path}:{n}: expected a JSON object per line with keys "
                    f"{text_col!r}, {aspect_col!r}, got a {type(row).__name__}"
                )
            rows.append(row)
    else:
        rows = list(csv.DictReader(text.splitlines()))
    if not rows:
        raise CLIError(f"{path} has no rows")
    needed = [text_col] + ([aspect_col] if need_aspect else [])
    for n, row in enumerate(rows, 1):
        missing = [c for c in needed if row.get(c) is None]
        if missing:
            raise CLIError(
                f"{path}: row {n} has no {missing[0]!r} (it has {sorted(row)[:10]}); "
                "use --text-column/--aspect-column"
            )
    columns = set(rows[0])
    texts = [r[text_col] for r in rows]
    aspects = [r.get(aspect_col) for r in rows] if aspect_col in columns else None
    labels = [r.get(label_col) for r in rows] if label_col in columns else None
    return texts, aspects, labels


def load_data(source: str, args, need_labels: bool, aspect_type: str | None = None):
    """``(X, y)`` from a data-set name or a file; ``y`` may be None.

    ``aspect_type``: the kind of aspect a model expects (its ``aspect_type_``), which
    decides whether terms or categories are read from an XML file.
    """
    from . import datasets

    if aspect_type is None and args.aspect_type != "auto":
        aspect_type = args.aspect_type
    if source in DATASETS:
        name, kwargs = DATASETS[source]
        if name == "fetch_mams" and args.split == "test":
            raise CLIError(
                "MAMS test labels are not distributed with this release; use "
                "--split val"
            )
        return getattr(datasets, name)(subset=args.split, **kwargs)
    path = Path(source)
    if not path.is_file():
        raise CLIError(
            f"{source!r} is neither a data-set name nor a file "
            f"(data sets: {', '.join(DATASETS)})"
        )
    if path.suffix.lower() == ".xml":
        text = _read_text(path, args.encoding)
        aspect = aspect_type or (
            "term"
            if "<aspectTerm " in text and "<aspectCategory " not in text
            else "category"
        )
        try:
            if "<Opinion " in text:
                X, y = datasets.read_semeval2015(
                    path, "target" if aspect == "term" else "category"
                )
            else:
                X, y = datasets.read_semeval2014(path, aspect)
        except ET.ParseError as exc:
            raise CLIError(f"{path} is not well-formed XML ({exc})") from None
        if not X:
            raise CLIError(f"{path} has no aspect {aspect}s with a polarity")
        return X, y
    texts, aspects, labels = _read_table(
        path,
        args.text_column,
        args.aspect_column,
        args.label_column,
        encoding=args.encoding,
    )
    if need_labels and labels is None:
        raise CLIError(
            f"{path} has no {args.label_column!r} column; labels are "
            "needed here (or set --label-column)"
        )
    return list(zip(texts, aspects, strict=True)), labels


def labels_like(y, classes: np.ndarray) -> np.ndarray:
    """Labels read from a file (strings) in the dtype of the model's classes."""
    y = np.asarray(y, dtype=object)
    if classes.dtype.kind in "iufb":
        try:
            return y.astype(classes.dtype)
        except (TypeError, ValueError):
            raise CLIError(
                f"the labels are not {classes.dtype.name} like the model's classes "
                f"{classes.tolist()}"
            ) from None
    return y.astype(str)


def load_model(path: str, trust_pickle: bool = False, quantize: str | None = None):
    """The model in ``path`` (``.aam``, or a pickle with ``trust_pickle``), set to
    predict with ``quantize`` ("int8" or None)."""
    model = _read_model(path, trust_pickle)
    if quantize is not None:
        model.set_params(quantize=quantize)
    return model


def _read_model(path: str, trust_pickle: bool):
    from .estimators.pairs import AspectAttentionClassifier
    from .persistence import ModelFileError

    if not Path(path).is_file():
        raise CLIError(f"model file {path!r} not found")
    if Path(path).suffix.lower() in (".pkl", ".pickle", ".joblib"):
        if not trust_pickle:
            raise CLIError(
                f"{path} is a pickle, which runs code when it is loaded; pass "
                "--trust-pickle if you made it yourself (or save models as .aam)"
            )
        import joblib

        model = joblib.load(path)
        if not isinstance(model, AspectAttentionClassifier):
            raise CLIError(f"{path} holds a {type(model).__name__}, not a model")
        return model
    from .persistence import load

    try:
        return load(path)  # a pair classifier or a category detector
    except ModelFileError as exc:
        raise CLIError(str(exc)) from exc


def is_detector(model) -> bool:
    from .estimators.categories import AspectCategoryClassifier

    return isinstance(model, AspectCategoryClassifier)


CATEGORY_TABLES = {
    "semeval2014-restaurants-category": "semeval2014",
    "semeval2015-restaurants-category": "semeval2015",
    "mams-category": "mams",
}


def load_table(source: str, args):
    """``(texts, Y)`` for the category detector, from a data-set name or an XML file."""
    from . import datasets

    if source in CATEGORY_TABLES:
        return datasets.fetch_category_table(CATEGORY_TABLES[source], args.split)
    path = Path(source)
    if path.is_file() and path.suffix.lower() == ".xml":
        try:
            texts, Y = datasets.read_category_table(path)
        except ET.ParseError as exc:
            raise CLIError(f"{path} is not well-formed XML ({exc})") from None
        if not texts:
            raise CLIError(f"{path} has no sentences")
        return texts, Y
    raise CLIError(
        f"the category detector reads {', '.join(CATEGORY_TABLES)} or a SemEval/MAMS "
        f"XML file; got {source!r}"
    )


class Progress:
    """A minimal progress bar on stderr (silent when stderr is not a terminal unless
    forced)."""

    def __init__(self, total: int, label: str, enabled: bool):
        self.total, self.label = total, label
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.perf_counter()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / max(self.total, 1))
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
            f"{done}/{self.total} ({rate:,.0f}/s)"
        )
        if done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _chunks(n: int, size: int):
    for start in range(0, n, size):
        yield start, min(n, start + size)


# ------------------------------------------------------------------------- commands
#: --final-state choices -> the estimators' ``final_state``.
_FINAL_STATES = {"sentence": True, "term": "term", "none": False}
ENCODER_NAMES = {"lstm": "LSTM", "transformer": "transformer", "pretrained": "MiniLM"}


def cmd_train(args) -> int:
    from .estimators.categories import AspectCategoryClassifier
    from .estimators.pairs import AspectAttentionClassifier

    if args.detector:
        X, y = load_table(args.data, args)
        estimator, extra = AspectCategoryClassifier, {}
    else:
        X, y = load_data(args.data, args, need_labels=True)
        estimator = AspectAttentionClassifier
        extra = dict(
            variant=args.variant,
            aspect_type=args.aspect_type,
            pretrained_input=args.pretrained_input,
            batch_by=args.batch_by,
            position_weighting=args.position_weighting,
            term_marker=args.term_marker,
            term_query=args.term_query,
            scoring="accuracy",
        )
    embeddings = None if args.embeddings.lower() == "none" else args.embeddings
    clf = estimator(
        **extra,
        encoder=args.encoder,
        embeddings=embeddings,
        embedding_dim=args.embedding_dim,
        embedding_dropout=args.embedding_dropout,
        hidden_size=args.hidden_size,
        n_layers=args.n_layers,
        n_heads=args.n_heads,
        d_model=args.d_model,
        pretrained_model=args.pretrained_model,
        attention_score=args.attention_score,
        attention_heads=args.attention_heads,
        final_state=_FINAL_STATES[args.final_state],
        max_epochs=args.epochs,
        lr=args.lr,
        batch_size=args.batch_size,
        dropout=args.dropout,
        bidirectional=args.bidirectional,
        validation_fraction=args.validation_fraction or None,
        early_stopping=bool(args.validation_fraction),
        random_state=args.seed,
        verbose=0 if args.quiet else 1,
    )
    name = f"{args.variant.upper()}-{ENCODER_NAMES[args.encoder]}"
    if args.encoder == "pretrained":
        name = f"{args.variant.upper()} over {args.pretrained_model}"
    if args.detector:
        name = f"a category detector (AT-{ENCODER_NAMES[args.encoder]})"
    if not args.quiet:
        unit = "sentences" if args.detector else "pairs"
        print(f"training {name} on {len(X)} {unit}", file=sys.stderr)
    clf.fit(X, y)
    out = Path(args.out)
    if out.suffix in (".pkl", ".joblib"):
        import joblib

        joblib.dump(clf, out)
    else:
        clf.save(out)
    if args.history_plot:
        from .viz import plot_history

        plot_history(clf.history_, args.history_plot)
    print(
        json.dumps(
            {
                "model": str(out),
                "encoder": args.encoder,
                "variant": "detector" if args.detector else args.variant,
                "pairs": len(X),
                "classes": np.asarray(
                    clf.classes_[0] if args.detector else clf.classes_
                ).tolist(),
                "epochs": len(clf.history_),
                "best_epoch": clf.best_epoch_,
                "seconds": round(clf.fit_time_, 2),
            }
        )
    )
    return 0


def cmd_evaluate(args) -> int:
    from sklearn.metrics import (
        accuracy_score,
        classification_report,
        confusion_matrix,
        f1_score,
    )

    clf = load_model(args.model, args.trust_pickle, args.quantize)
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
    from .estimators.categories import detection_f1, mention_f1

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
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(
            "   ".join(
                f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                for k, v in report.items()
            )
        )
    return 0


def _sentences(source: str, args) -> list[str]:
    path = Path(source)
    if path.suffix.lower() in (".csv", ".jsonl", ".json", ".ndjson"):
        texts, _, _ = _read_table(
            path,
            args.text_column,
            args.aspect_column,
            args.label_column,
            need_aspect=False,
            encoding=args.encoding,
        )
        return list(dict.fromkeys(texts))
    if not path.is_file():
        raise CLIError(f"input file {source!r} not found")
    lines = [ln.strip() for ln in _read_text(path, args.encoding).splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        raise CLIError(f"{path} has no sentences")
    return lines


def _write_rows(rows: list[dict], out: str | None) -> None:
    if not rows:
        raise CLIError("nothing to write: the input has no rows")
    if out and Path(out).suffix.lower() in (".jsonl", ".json", ".ndjson"):
        with open(out, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        return
    handle = open(out, "w", encoding="utf-8", newline="") if out else sys.stdout
    try:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    finally:
        if out:
            handle.close()


def _prediction_row(text: str, aspect: str, proba, classes: list[str]) -> dict:
    """One output row: the pair, the label and one probability column per class."""
    return {
        "text": text,
        "aspect": aspect,
        "label": classes[int(proba.argmax())],
        **{f"p_{c}": round(float(v), 6) for c, v in zip(classes, proba, strict=True)},
    }


def cmd_predict(args) -> int:
    clf = load_model(args.model, args.trust_pickle, args.quantize)
    rows = []
    show = not args.quiet
    if is_detector(clf):  # every sentence on every category: a table
        texts = _sentences(args.data, args)
        labels = clf.predict(texts)
        rows = [
            {
                "text": t,
                **{str(c): str(v) for c, v in zip(clf.categories_, row, strict=True)},
            }
            for t, row in zip(texts, labels, strict=True)
        ]
        _write_rows(rows, args.out)
        return 0
    classes = [str(c) for c in clf.classes_]
    if args.aspects:
        aspects = [a.strip() for a in args.aspects.split(",") if a.strip()]
        texts = _sentences(args.data, args)
        progress = Progress(len(texts), "predicting", show and len(texts) > 1000)
        for start, end in _chunks(len(texts), 1024):
            proba = clf.predict_proba_aspects(texts[start:end], aspects)
            for text, per_aspect in zip(texts[start:end], proba, strict=True):
                for aspect, p in zip(aspects, per_aspect, strict=True):
                    rows.append(_prediction_row(text, aspect, p, classes))
            progress.update(end)
    else:
        X, _ = load_data(
            args.data, args, need_labels=False, aspect_type=clf.aspect_type_
        )
        progress = Progress(len(X), "predicting", show and len(X) > 1000)
        for start, end in _chunks(len(X), 4096):
            proba = clf.predict_proba(X[start:end])
            for (text, aspect), p in zip(X[start:end], proba, strict=True):
                rows.append(_prediction_row(text, aspect, p, classes))
            progress.update(end)
    _write_rows(rows, args.out)
    return 0


def _review_chunks(path: Path, args):
    """The reviews file as DataFrame chunks (CSV or JSON Lines), read lazily."""
    import pandas as pd

    if not path.is_file():
        raise CLIError(f"{path} is not a file")
    kwargs = dict(chunksize=args.chunk_size, encoding=args.encoding)
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        reader = pd.read_json(path, lines=True, dtype=False, **kwargs)
    else:
        reader = pd.read_csv(path, dtype=str, keep_default_na=False, **kwargs)
    try:
        yield from reader
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        raise CLIError(f"{path} could not be read: {message}") from None


class _TableWriter:
    """The sentence table, written chunk by chunk (CSV, or Parquet through
    pyarrow), so that memory does not grow with the reviews."""

    def __init__(self, path: str | None):
        self.path = None if path is None else Path(path)
        self.started = False  # the file holds the header (CSV) or the schema
        self.parquet = None  # the pyarrow writer of a .parquet table
        if self.path is not None and self.path.suffix.lower() not in (
            ".csv",
            ".parquet",
        ):
            raise CLIError(f"--table must end in .csv or .parquet, got {self.path}")

    def write(self, table) -> None:
        if self.path is None:
            return
        table = table.drop(columns=["tokens", "weights"])
        if self.path.suffix.lower() == ".csv":
            mode = "a" if self.started else "w"
            table.to_csv(self.path, mode=mode, header=not self.started, index=False)
        else:
            self._write_parquet(table)
        self.started = True

    def _write_parquet(self, table) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise CLIError(
                "--table .parquet needs pyarrow: pip install pyarrow (or use .csv)"
            ) from None
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        if self.parquet is None:
            self.parquet = pq.ParquetWriter(self.path, arrow.schema)
        self.parquet.write_table(arrow.cast(self.parquet.schema))

    def close(self) -> None:
        if self.parquet is not None:
            self.parquet.close()


def cmd_analyze(args) -> int:
    from .report import write_report
    from .reviews import ReviewSummary, iter_analysis

    clf = load_model(args.model, args.trust_pickle, args.quantize)
    if not is_detector(clf):
        raise CLIError(
            f"{args.model} is a pair classifier; analyze needs a category detector "
            "(aspectattn train ... --detector)"
        )
    out = Path(args.out)
    if out.suffix.lower() not in (".html", ".htm"):
        raise CLIError(f"--out must be an .html file, got {out}")
    summary = ReviewSummary(args.freq)
    writer = _TableWriter(args.table)
    show = not args.quiet and sys.stderr.isatty()
    start = time.perf_counter()
    try:
        for table in iter_analysis(
            _review_chunks(Path(args.reviews), args),
            clf,
            text_column=args.text_column,
            id_column=args.id_column,
            date_column=args.date_column,
            group_column=args.group_column,
            min_probability=args.min_probability,
        ):
            summary.update(table)
            writer.write(table)
            if show:
                rate = summary.n_sentences / max(time.perf_counter() - start, 1e-9)
                sys.stderr.write(
                    f"\ranalysing: {summary.n_reviews:,} reviews, "
                    f"{summary.n_sentences:,} sentences ({rate:,.0f} sentences/s)"
                )
                sys.stderr.flush()
    finally:
        writer.close()
    if show:
        sys.stderr.write("\n")
    write_report(summary, out, args.title)
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "reviews": summary.n_reviews,
                "sentences": summary.n_sentences,
                "mentions": int(sum(summary.counts.values())),
                "seconds": round(seconds, 3),
                "sentences_per_second": round(summary.n_sentences / max(seconds, 1e-9)),
                "report": str(out),
                "table": args.table,
            }
        )
    )
    return 0


def cmd_export(args) -> int:
    from .export import export_onnx

    clf = _read_model(args.model, args.trust_pickle)
    directory = export_onnx(clf, args.out)
    size = sum(f.stat().st_size for f in directory.iterdir() if f.is_file())
    print(
        f"wrote {directory / 'model.onnx'} and {directory / 'model.json'} "
        f"({size / 2**20:.1f} MiB); serve with aspectattn.runtime.load_onnx"
        f"({str(directory)!r})"
    )
    return 0


def cmd_explain(args) -> int:
    clf = load_model(args.model, args.trust_pickle, args.quantize)
    if is_detector(clf):
        raise CLIError(
            "this model is a category detector: 'predict' lists every sentence's "
            "categories (its attention is in AspectCategoryClassifier.analyze)"
        )
    X, _ = load_data(args.data, args, need_labels=False, aspect_type=clf.aspect_type_)
    if args.limit:
        X = X[: args.limit]
    results = clf.explain(X)
    out = Path(args.out) if args.out else None
    if out is None:
        for r in results:
            print(f"{r['aspect']!r} -> {r['label']}: {r['text']}")
            for token, w in zip(r["tokens"], r["weights"], strict=True):
                print(f"  {token:>15s} {w:.3f} {'#' * round(40 * w)}")
        return 0
    if out.suffix.lower() in (".html", ".htm"):
        from .viz import attention_html

        attention_html(results, out)
    elif out.suffix.lower() in (".png", ".svg", ".pdf"):
        from .viz import plot_attention

        plot_attention(results, out)
    elif out.suffix.lower() in (".jsonl", ".json"):
        _write_rows(
            [
                {
                    **r,
                    "weights": [round(float(w), 6) for w in r["weights"]],
                    "proba": [round(float(p), 6) for p in r["proba"]],
                    "label": str(r["label"]),
                }
                for r in results
            ],
            str(out),
        )
    else:
        raise CLIError(
            f"--out must end in .html, .png, .svg, .pdf or .jsonl; got {out.name!r}"
        )
    print(f"wrote {out}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------- parser
def _add_data_options(p, split_default="train", model_options=True):
    p.add_argument(
        "--split",
        default=split_default,
        choices=["train", "test", "val"],
        help="split of a named data set",
    )
    p.add_argument("--text-column", default="text", help="column with the sentence")
    p.add_argument("--aspect-column", default="aspect", help="column with the aspect")
    p.add_argument("--label-column", default="label", help="column with the label")
    p.add_argument(
        "--aspect-type",
        default="auto",
        choices=["auto", "category", "term"],
        help="read categories or terms from XML (auto: as the model was trained)",
    )
    p.add_argument(
        "--encoding",
        default="utf-8-sig",
        help="text encoding of the input file (utf-8, with or without a BOM)",
    )
    if model_options:
        _add_model_options(p)


def _add_model_options(p, quantize=True):
    p.add_argument(
        "--trust-pickle",
        action="store_true",
        help="allow a .pkl/.joblib model (pickles run code when loaded)",
    )
    if quantize:
        p.add_argument(
            "--quantize",
            choices=["int8"],
            help="predict with int8 linear layers on the CPU (faster for a "
            "pretrained encoder; see the README for the accuracy change)",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aspectattn",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    formatter = argparse.ArgumentDefaultsHelpFormatter

    p = sub.add_parser(
        "train",
        help="train a model and write it to a file",
        description="Train an aspect-attention model and write a model file "
        "(safe format; .pkl/.joblib for a pickle).",
        formatter_class=formatter,
    )
    p.add_argument("data", help="data-set name or CSV/JSONL/XML file with labels")
    p.add_argument("--out", required=True, help="model file to write, e.g. model.aam")
    p.add_argument(
        "--variant",
        default="atae",
        choices=["at", "ae", "atae"],
        help="AT: aspect as attention query; AE: aspect with every word; ATAE: both",
    )
    p.add_argument(
        "--encoder",
        default="lstm",
        choices=["lstm", "transformer", "pretrained"],
        help="sentence encoder under the aspect attention",
    )
    p.add_argument(
        "--pretrained-model",
        help="local Hugging Face checkpoint directory (with --encoder pretrained)",
    )
    p.add_argument(
        "--pretrained-input",
        default="vector",
        choices=["vector", "pair"],
        help="aspect as attention query only, or also as a second segment",
    )
    p.add_argument(
        "--embeddings",
        default="word2vec",
        help="'word2vec', 'fasttext', a vector file, a gensim-data name, or 'none' "
        "for random vectors",
    )
    p.add_argument(
        "--embedding-dim",
        type=int,
        default=None,
        help="size of trained or random vectors (default 100)",
    )
    p.add_argument(
        "--embedding-dropout", type=float, default=0.5, help="dropout on word vectors"
    )
    p.add_argument("--hidden-size", type=int, default=300, help="LSTM size")
    p.add_argument("--bidirectional", action="store_true", help="bidirectional LSTM")
    p.add_argument("--n-layers", type=int, default=2, help="transformer layers")
    p.add_argument("--n-heads", type=int, default=4, help="transformer heads")
    p.add_argument("--d-model", type=int, default=128, help="transformer width")
    p.add_argument(
        "--attention-score",
        default="additive",
        choices=["additive", "dot", "general", "scaled_dot", "concat"],
        help="how the aspect vector scores the encoder states",
    )
    p.add_argument(
        "--attention-heads", type=int, default=1, help="aspect-attention heads"
    )
    final = p.add_mutually_exclusive_group()
    final.add_argument(
        "--final-state",
        choices=list(_FINAL_STATES),
        default="sentence",
        help="what joins the aspect's attention pooling: the encoder's final state "
        "(the same for every aspect of a sentence), its summary of the aspect term "
        "(TD-LSTM style), or nothing",
    )
    final.add_argument(
        "--no-final-state",
        dest="final_state",
        action="store_const",
        const="none",
        help="the same as --final-state none",
    )
    p.add_argument(
        "--position-weighting",
        default="none",
        choices=["none", "linear", "learned"],
        help="aspect terms: weigh words near the term more in the attention",
    )
    p.add_argument(
        "--term-marker",
        action="store_true",
        help="aspect terms: flag the term's tokens in the encoder input",
    )
    p.add_argument(
        "--term-query",
        default="vectors",
        choices=["vectors", "states", "both"],
        help="aspect terms: query with the term's word vectors, its encoder "
        "states, or both (terms are found in their text: the first occurrence)",
    )
    p.add_argument("--epochs", type=int, default=20, help="training epochs (most)")
    p.add_argument("--lr", type=float, default=1e-3, help="learning rate")
    p.add_argument("--batch-size", type=int, default=32, help="pairs per batch")
    p.add_argument(
        "--batch-by",
        default="auto",
        choices=["auto", "sentence", "pair"],
        help="train on whole sentences (all aspects at once) or on shuffled pairs",
    )
    p.add_argument("--dropout", type=float, default=0.5, help="final dropout")
    p.add_argument(
        "--validation-fraction",
        type=float,
        default=0.1,
        help="held-out share of sentences for early stopping (0: none)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument(
        "--detector",
        action="store_true",
        help="train a category detector (which aspects, and how) on a category "
        "data set or XML file instead of a pair classifier",
    )
    p.add_argument("--history-plot", help="also write a PNG/SVG of the training curves")
    p.add_argument("--quiet", action="store_true", help="no per-epoch progress")
    _add_data_options(p, model_options=False)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser(
        "evaluate",
        help="accuracy, macro-F1, per-class report, confusion matrix",
        formatter_class=formatter,
    )
    p.add_argument("model", help="model file (.aam)")
    p.add_argument("data", help="data-set name or CSV/JSONL/XML file with labels")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    _add_data_options(p, "test")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser(
        "predict",
        help="labels and probabilities for new pairs",
        formatter_class=formatter,
    )
    p.add_argument("model", help="model file (.aam)")
    p.add_argument(
        "data",
        help="CSV/JSONL/XML of pairs; with --aspects also a text file of sentences",
    )
    p.add_argument(
        "--aspects",
        help="comma-separated aspects to score every sentence on, e.g. food,service",
    )
    p.add_argument("--out", help="CSV or JSONL file (default: CSV on stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_data_options(p, "test")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser(
        "explain", help="attention weight of every token", formatter_class=formatter
    )
    p.add_argument("model", help="model file (.aam)")
    p.add_argument("data", help="data-set name or CSV/JSONL/XML file")
    p.add_argument("--out", help=".html, .png, .svg, .pdf or .jsonl (default: text)")
    p.add_argument("--limit", type=int, default=0, help="only the first N pairs")
    _add_data_options(p, "test")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser(
        "analyze",
        help="reviews -> sentences -> aspects: an HTML report and a sentence table",
        formatter_class=formatter,
    )
    p.add_argument("reviews", help="CSV or JSONL file of reviews, one per row")
    p.add_argument("--model", required=True, help="category detector model file")
    p.add_argument("--out", required=True, help="the report (.html)")
    p.add_argument("--table", help="sentence table (.csv or .parquet)")
    p.add_argument("--text-column", default="text", help="column of the review text")
    p.add_argument("--id-column", help="column of the review id (default: row number)")
    p.add_argument("--date-column", help="column of the review date (for trends)")
    p.add_argument("--group-column", help="column of a business or product id")
    p.add_argument("--freq", default="M", help="trend period (pandas: M, W, Q, Y)")
    p.add_argument(
        "--min-probability",
        type=float,
        default=0.5,
        help="a category is mentioned above this probability",
    )
    p.add_argument("--chunk-size", type=int, default=10_000, help="reviews per chunk")
    p.add_argument("--title", default="Aspect sentiment report", help="report title")
    p.add_argument("--encoding", default="utf-8", help="text encoding of the file")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    _add_model_options(p)
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser(
        "export",
        help="write a model as ONNX for aspectattn.runtime (numpy + onnxruntime)",
        formatter_class=formatter,
    )
    p.add_argument("model", help="model file (.aam): pair classifier or detector")
    p.add_argument("out", help="directory for model.onnx and model.json")
    _add_model_options(p, quantize=False)
    p.set_defaults(func=cmd_export)
    return parser


_PARAMETER_RE = re.compile(r"The '(\w+)' parameter of \w+")


def _in_flag_words(message: str) -> str:
    """'The 'hidden_size' parameter of X ...' -> '--hidden-size ...'."""
    flags = {"max_epochs": "epochs", "random_state": "seed"}
    return _PARAMETER_RE.sub(
        lambda m: "--" + flags.get(m.group(1), m.group(1)).replace("_", "-"), message
    )


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (CLIError, AspectAttnError, ValueError, OSError) as exc:
        if isinstance(exc, BrokenPipeError):
            return _quiet_broken_pipe()
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        print(
            f"aspectattn {args.command}: error: {_in_flag_words(message)}",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(f"aspectattn {args.command}: interrupted", file=sys.stderr)
        return 130


def _quiet_broken_pipe() -> int:
    """The reader went away (``| head``): stop quietly, as Unix tools do."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
