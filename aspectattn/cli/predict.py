"""``aspectattn predict``: labels and probabilities for new pairs, or every
sentence on every aspect."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ._common import (
    APC_SUFFIXES,
    TABLE_SUFFIXES,
    CLIError,
    Progress,
    _chunks,
    _read_table,
    _read_text,
    _write_rows,
    add_data_options,
    check_outputs,
    file_lines,
    is_detector,
    is_extractor,
    is_pipeline,
    load_data,
    load_model,
)
from ._extraction import extraction_rows

#: Position in ``aspectattn --help``.
ORDER = 3
HELP = "labels and probabilities for new pairs"


def add_arguments(p) -> None:
    p.add_argument("model", help="model file (.aam)")
    p.add_argument(
        "data",
        help="CSV/JSONL/Parquet/XML of pairs; with --aspects or a detector also "
        "a text file of sentences",
    )
    p.add_argument(
        "--aspects",
        help="comma-separated aspects to score every sentence on, e.g. food,service",
    )
    p.add_argument("--out", help="CSV or JSONL file (default: CSV on stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_data_options(p, "test")


def _sentences(
    source: str, args, refuse_aspects: bool = False, text_columns: tuple = ()
) -> list[str]:
    """The distinct sentences of whatever ``train`` reads -- a data-set name, a
    SemEval/MAMS XML file, a three-line APC file, a CSV/JSONL/Parquet file -- or
    of a text file (one a line). ``refuse_aspects``: a table of pairs (an aspect
    column) is an error, not read as sentences with the aspects silently
    dropped. ``text_columns``: the columns a table's text may be in where it
    lacks ``args.text_column``, tried in turn."""
    from .. import datasets
    from ..datasets.apc import PLACEHOLDER

    if source in datasets.DATASETS:  # every sentence, those without aspects too
        data = datasets.DATASETS[source]
        try:
            if data.table is not None:
                texts = data.load_table(args.split)[0]
            else:
                texts = [pair[0] for pair in data.load(args.split)[0]]
        except ValueError as exc:  # a split the data set does not have
            raise CLIError(str(exc)) from None
        return list(dict.fromkeys(texts))
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix in TABLE_SUFFIXES:
        texts, aspects, _, _ = _read_table(
            path,
            (args.text_column, *text_columns),
            args.aspect_column,
            args.label_column,
            need_aspect=False,
            encoding=args.encoding,
        )
        if refuse_aspects and aspects is not None:
            raise CLIError(
                f"{path} has an {args.aspect_column!r} column (pairs), but the model "
                "is a category detector: it finds every sentence's categories itself."
                " Give it sentences, or score the pairs with a pair classifier"
            )
        return list(dict.fromkeys(texts))
    if not path.is_file():
        raise CLIError(
            f"{source!r} is neither a data-set name nor a file "
            f"(data sets: {', '.join(datasets.DATASETS)})"
        )
    if suffix in APC_SUFFIXES:  # the pairs' sentences, the term put back
        X, _ = datasets.read_apc(path, missing_term="keep", encoding=args.encoding)
        return list(dict.fromkeys(pair[0] for pair in X))
    text = _read_text(path, args.encoding)
    if suffix == ".xml":
        return _xml_sentences(path, text)
    lines = [ln.strip() for ln in file_lines(text)]
    lines = [ln for ln in lines if ln]
    if not lines:
        raise CLIError(f"{path} has no sentences")
    if lines[0].startswith(("<?xml", "<sentences", "<Reviews")):
        raise CLIError(f"{path} holds XML: name it .xml to read its sentences")
    if any(PLACEHOLDER in ln for ln in lines):
        raise CLIError(
            f"{path} holds {PLACEHOLDER} lines (PyABSA's three-line format): name "
            f"it {' or '.join(APC_SUFFIXES)} to read its sentences"
        )
    return lines


def _xml_sentences(path: Path, text: str) -> list[str]:
    """The distinct ``<sentence><text>`` of a SemEval/MAMS XML file."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise CLIError(f"{path} is not well-formed XML ({exc})") from None
    texts = [(s.findtext("text") or "").strip() for s in root.iter("sentence")]
    texts = [t for t in texts if t]
    if not texts:
        raise CLIError(f"{path} has no <sentence> with a <text>")
    return list(dict.fromkeys(texts))


def _prediction_row(text: str, aspect: str, proba, classes: list[str]) -> dict:
    """One output row: the pair, the label and one probability column per class."""
    return {
        "text": text,
        "aspect": aspect,
        "label": classes[int(proba.argmax())],
        **{f"p_{c}": round(float(v), 6) for c, v in zip(classes, proba, strict=True)},
    }


def run(args) -> int:
    check_outputs([args.data, args.model], [args.out])
    clf = load_model(args.model, args.trust_pickle, args.quantize)
    rows = []
    show = not args.quiet
    if is_extractor(clf) or is_pipeline(clf):  # every sentence's terms, as spans
        if args.aspects:
            raise CLIError(
                f"--aspects names the aspects of a pair classifier or a detector; "
                f"{args.model} finds each sentence's aspect terms itself"
            )
        _write_rows(extraction_rows(clf, _sentences(args.data, args)), args.out)
        return 0
    if is_detector(clf):  # every sentence on every category: a table
        categories = [str(c) for c in clf.categories_]
        columns = categories
        if args.aspects:  # only these categories (each one the model knows)
            columns = [a.strip() for a in args.aspects.split(",") if a.strip()]
            unknown = [a for a in columns if a not in categories]
            if unknown:
                raise CLIError(
                    f"--aspects {unknown} are not categories of the detector "
                    f"{categories}"
                )
        texts = _sentences(args.data, args, refuse_aspects=True)
        labels = clf.predict(texts)
        keep = [categories.index(c) for c in columns]
        rows = [
            {"text": t, **{c: str(row[k]) for c, k in zip(columns, keep, strict=True)}}
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
            for (text, aspect, *_), p in zip(X[start:end], proba, strict=True):
                rows.append(_prediction_row(text, aspect, p, classes))
            progress.update(end)
    _write_rows(rows, args.out)
    return 0
