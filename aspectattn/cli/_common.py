"""What the commands share: reading data sets, tables and models, writing rows,
progress, and the data and model options."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from numbers import Integral
from pathlib import Path

import numpy as np

from .. import params as P
from .._fields import file_lines, open_regular
from .._output import output_path, written_through
from ..exceptions import InputError
from ..params._constraints import Interval, StrOptions
from ..text.languages import LANGUAGE_CODE
from ..text.spans import check_span


class CLIError(Exception):
    """Bad command-line input; reported as one line, exit status 2."""


# ----------------------------------------------------------------------------- data
def check_encoding(name: str) -> None:
    """An unknown ``--encoding`` is bad input, said before any file is read."""
    import codecs

    try:
        codecs.lookup(name)
    except LookupError:
        raise CLIError(
            f"unknown text encoding {name!r} (--encoding: e.g. utf-8, latin-1)"
        ) from None


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its repr when it has none): what
    the command line shows of an error from a library."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else repr(exc)


def _read_text(path: Path, encoding: str) -> str:
    """The file's text; a clear error naming the file and the encoding."""
    try:
        # newline="": line ends as written (a quoted CSV field keeps its \r\n);
        # records are split by file_lines and the csv module
        with open(path, encoding=encoding, newline="") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise CLIError(
            f"{path} is not valid {encoding} text (byte {exc.start}); pass its "
            "encoding with --encoding (e.g. --encoding latin-1)"
        ) from None


#: The column of ``aspectattn analyze``'s sentence table that holds the
#: sentence: ``train --unlabelled`` reads it where a file has no --text-column.
ANALYSIS_TEXT_COLUMN = "sentence"
#: The suffixes of JSON Lines files, read and written one JSON object a line.
JSON_LINES_SUFFIXES = (".jsonl", ".json", ".ndjson")
#: The suffixes of the tables read by column (:func:`_read_table`).
TABLE_SUFFIXES = (".csv", *JSON_LINES_SUFFIXES, ".parquet")


def _read_table(
    path: Path,
    text_col: str | tuple[str, ...],
    aspect_col: str,
    label_col: str,
    need_aspect: bool = True,
    encoding: str = "utf-8-sig",
):
    """Rows of a CSV/JSONL/Parquet file as (texts, aspects or None, labels or
    None, spans or None). ``text_col``: the text's column, or names to try in
    turn (the first the file has is read). ``spans``: where the file has both
    :data:`SPAN_COLUMNS`, each row's term span ``(start, end)`` (None where
    both cells are empty), checked as character offsets."""
    names = (text_col,) if isinstance(text_col, str) else tuple(text_col)
    if path.suffix.lower() == ".parquet":
        rows = _parquet_rows(path)
    else:
        rows = _text_rows(path, names[0], aspect_col, encoding)
    if not rows:
        raise CLIError(f"{path} has no rows")
    text_col = next((c for c in names if c in rows[0]), names[0])
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
    spans = None
    if aspects is not None and set(SPAN_COLUMNS) <= columns:
        rows_texts = zip(rows, texts, aspects, strict=True)
        spans = [
            _row_span(path, n, row, text, aspect)
            for n, (row, text, aspect) in enumerate(rows_texts, 1)
        ]
    return texts, aspects, labels, spans


#: The columns of a table that hold an aspect term's character span, as
#: :func:`aspectattn.datasets.read_semeval2014`'s frames name them.
SPAN_COLUMNS = ("start", "end")


def _row_span(path: Path, n: int, row: dict, text, aspect) -> tuple | None:
    """Row ``n``'s term span from its :data:`SPAN_COLUMNS` (None: both empty),
    checked as the classifier checks it: inside ``text``, holding ``aspect``."""
    cells = [row.get(c) for c in SPAN_COLUMNS]
    if all(c is None or c == "" for c in cells):
        return None
    out = []
    for name, cell in zip(SPAN_COLUMNS, cells, strict=True):
        if isinstance(cell, str) and cell.strip().isascii() and cell.strip().isdigit():
            cell = int(cell.strip())
        elif isinstance(cell, float) and cell.is_integer():
            cell = int(cell)
        if not isinstance(cell, int) or isinstance(cell, bool) or cell < 0:
            raise CLIError(
                f"{path}: row {n} has {name}={cell!r}; a term's {name} must be a "
                "character offset (a whole number >= 0), or both start and end "
                "empty"
            )
        out.append(cell)
    if not (isinstance(text, str) and isinstance(aspect, str)):
        return out[0], out[1]  # (the missing cell is said by the caller)
    try:
        return check_span(f"row {n} of {path}", text, aspect, out)
    except InputError as exc:
        raise CLIError(str(exc)) from None


def _parquet_rows(path: Path) -> list[dict]:
    """The rows of a Parquet file (``aspectattn analyze --table``'s other
    format), as dicts."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CLIError(
            f"{path} is a Parquet file; reading it needs pyarrow: pip install "
            "pyarrow (or give a .csv)"
        ) from None
    try:
        return pq.read_table(path).to_pylist()
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise CLIError(
            f"{path} could not be read as Parquet: {first_line(exc)}"
        ) from None


def _text_rows(path: Path, text_col: str, aspect_col: str, encoding: str) -> list:
    """The rows of a CSV or JSON Lines file, as dicts (``text_col`` and
    ``aspect_col`` name the keys expected, for the message)."""
    text = _read_text(path, encoding)
    if path.suffix.lower() in JSON_LINES_SUFFIXES:
        rows = []
        for n, line in enumerate(file_lines(text), 1):
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
        return rows
    # (the csv module splits records itself: quoted fields keep their breaks)
    return list(csv.DictReader(io.StringIO(text, newline="")))


#: Files in the three-line APC format of PyABSA (``datasets.read_apc``).
APC_SUFFIXES = (".dat", ".apc")


def load_data(
    source: str,
    args,
    need_labels: bool,
    aspect_type: str | None = None,
    text_columns: tuple[str, ...] = (),
):
    """``(X, y)`` from a data-set name or a file; ``y`` may be None.

    ``aspect_type``: the kind of aspect a model expects (its ``aspect_type_``), which
    decides whether terms or categories are read from an XML file.
    ``text_columns``: the columns a table's text may be in where it lacks
    ``args.text_column``, tried in turn.
    """
    from .. import datasets

    if aspect_type is None and args.aspect_type != "auto":
        aspect_type = args.aspect_type
    if source in datasets.DATASETS:
        # aspect terms with their spans, as the API reads them: the probes that
        # reverse a term's opinion need its place
        return datasets.DATASETS[source].load(args.split, spans=True)
    path = Path(source)
    if not path.is_file():
        raise CLIError(
            f"{source!r} is neither a data-set name nor a file "
            f"(data sets: {', '.join(datasets.DATASETS)})"
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
                    path, "target" if aspect == "term" else "category", spans=True
                )
            else:
                X, y = datasets.read_semeval2014(path, aspect, spans=True)
        except ET.ParseError as exc:
            raise CLIError(f"{path} is not well-formed XML ({exc})") from None
        if not X:
            raise CLIError(f"{path} has no aspect {aspect}s with a polarity")
        return X, y
    if path.suffix.lower() in APC_SUFFIXES:  # PyABSA's three-line format
        return datasets.read_apc(path, encoding=args.encoding)
    texts, aspects, labels, spans = _read_table(
        path,
        (args.text_column, *text_columns),
        args.aspect_column,
        args.label_column,
        encoding=args.encoding,
    )
    if need_labels and labels is None:
        raise CLIError(
            f"{path} has no {args.label_column!r} column; labels are "
            "needed here (or set --label-column)"
        )
    if spans is None:
        return list(zip(texts, aspects, strict=True)), labels
    X = [
        (t, a) if s is None else (t, a, s)
        for t, a, s in zip(texts, aspects, spans, strict=True)
    ]
    return X, labels


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
    predict with ``quantize`` (``"int8"``, ``"bfloat16"`` or None)."""
    model = _read_model(path, trust_pickle)
    if quantize is not None:
        # (a pipeline: both its parts, where they have the setting)
        parts = [getattr(model, name, None) for name in ("extractor_", "classifier_")]
        parts = [p for p in parts if p is not None] or [model]
        parts = [p for p in parts if "quantize" in p.get_params(deep=False)]
        if not parts:
            raise CLIError(f"{path} holds a {type(model).__name__}: no --quantize")
        for part in parts:
            part.set_params(quantize=quantize)
    return model


def pair_model(model, path, command: str):
    """The pair classifier ``command`` reads in ``model``: a pipeline's
    classifier; an extractor, which classifies nothing, is a one-line error."""
    if is_extractor(model):
        raise CLIError(
            f"{path} is an aspect term extractor, which gives no polarity: "
            f"{command} reads a pair classifier (or a pipeline's); 'aspectattn "
            "predict' lists the terms it finds"
        )
    if is_joint(model):
        if command == "explain":
            raise CLIError(
                f"{path} is a joint aspect-sentiment model: explain reads a pair "
                "classifier's attention (aspectattn analyze shows the joint "
                "model's terms in their sentences)"
            )
        return model.given_terms()
    return model.classifier_ if is_pipeline(model) else model


#: Model files written with joblib (pickles), whatever the case of the name.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib")


def is_pickle_name(path) -> bool:
    return Path(path).suffix.lower() in PICKLE_SUFFIXES


def _read_model(path: str, trust_pickle: bool):
    from ..persistence import ModelFileError

    if not os.path.lexists(path):
        raise CLIError(f"model file {path!r} not found")
    if not Path(path).is_file():
        raise CLIError(f"model file {path!r} is not a regular file")
    with open_regular(path) as (f, _):
        safe_format = f.read(4) == b"PK\x03\x04"  # the safe format is a zip archive
    if is_pickle_name(path) and not safe_format:
        if not trust_pickle:
            raise CLIError(
                f"{path} is a pickle, which runs code when it is loaded; pass "
                "--trust-pickle if you made it yourself (or save models as .aam)"
            )
        import joblib

        from ..estimators._base import AspectAttentionBase
        from ..extraction import AspectSentimentPipeline, AspectTermExtractor

        model = joblib.load(path)
        kinds = (AspectAttentionBase, AspectTermExtractor, AspectSentimentPipeline)
        if not isinstance(model, kinds):
            raise CLIError(f"{path} holds a {type(model).__name__}, not a model")
        return model
    from ..persistence import load

    try:
        return load(path)  # a pair classifier or a category detector
    except ModelFileError as exc:
        raise CLIError(str(exc)) from exc


def is_detector(model) -> bool:
    from ..estimators.categories import AspectCategoryClassifier

    return isinstance(model, AspectCategoryClassifier)


def is_extractor(model) -> bool:
    from ..extraction import AspectTermExtractor

    return isinstance(model, AspectTermExtractor)


def is_pipeline(model) -> bool:
    """Whether ``model`` gives each sentence's terms with their polarities: a
    two-part pipeline or the joint model."""
    from ..extraction import AspectSentimentExtractor, AspectSentimentPipeline

    return isinstance(model, (AspectSentimentPipeline, AspectSentimentExtractor))


def is_joint(model) -> bool:
    from ..extraction import AspectSentimentExtractor

    return isinstance(model, AspectSentimentExtractor)


def load_table(source: str, args):
    """``(texts, Y)`` for the category detector, from a data-set name or an XML file."""
    from .. import datasets

    tables = [n for n, d in datasets.DATASETS.items() if d.table is not None]
    if source in tables:
        return datasets.DATASETS[source].load_table(args.split)
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
        f"the category detector reads {', '.join(tables)} or a SemEval/MAMS "
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


# ------------------------------------------------------------------------- outputs
def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False  # one of them does not exist (yet)


def check_outputs(inputs, outputs) -> None:
    """Refuse, before any work, an output that is one of the inputs or another
    output: writing it would destroy what is read, or one output would overwrite
    the other. ``None`` entries (options not given) are skipped."""
    inputs = [Path(p) for p in inputs if p is not None]
    outputs = [Path(p) for p in outputs if p is not None]
    for out in outputs:  # before the work, not after it
        if out.is_dir():
            raise CLIError(f"the output {out} is a directory; give a file name")
        # (a link is written where it points, as output_path writes it)
        target = Path(os.path.realpath(out)) if out.is_symlink() else out
        try:
            if written_through(target):  # a pipe or a device: written as it is
                continue
        except OSError as exc:
            raise CLIError(f"the output {out} {exc.strerror}") from None
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.is_dir():
            raise CLIError(f"the output's directory {parent} does not exist")
        try:  # the file is written beside its name, then renamed: try that now
            tempfile.TemporaryFile(dir=parent).close()
        except OSError as exc:
            raise CLIError(
                f"the output {out} cannot be written: its directory {parent} "
                f"takes no new file ({exc.strerror})"
            ) from None
    for k, out in enumerate(outputs):
        for source in inputs:
            if _same_file(out, source):
                raise CLIError(
                    f"the output {out} is the input {source}; refusing to overwrite "
                    "it (choose another output path)"
                )
        for other in outputs[k + 1 :]:
            if _same_file(out, other):
                raise CLIError(f"two outputs are the same file: {out}")


def print_report(report: dict, as_json: bool) -> None:
    """A flat report: indented JSON, or ``name value`` pairs on one line."""
    if as_json:
        print(json.dumps(report, indent=1))
        return
    print(
        "   ".join(
            f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
            for k, v in report.items()
        )
    )


def _write_rows(rows: list[dict], out: str | None) -> None:
    if not rows:
        raise CLIError("nothing to write: the input has no rows")
    if not out:
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        return
    with output_path(out) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        if Path(out).suffix.lower() in JSON_LINES_SUFFIXES:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        else:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def language_code(text: str):
    """``--language``: "auto", "none" (no language's rules) or an ISO 639 code."""
    if text in ("auto", "none"):
        return None if text == "none" else text
    if not LANGUAGE_CODE.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected auto, none or an ISO 639 code (en, fr, tr...), got {text!r}"
        )
    return text


def add_data_options(p, split_default="train", model_options=True):
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
        add_model_options(p)


def add_model_options(p, quantize=True):
    p.add_argument(
        "--trust-pickle",
        action="store_true",
        help="allow a .pkl/.joblib model (pickles run code when loaded)",
    )
    if quantize:
        p.add_argument(
            "--quantize",
            choices=list(P.QUANTIZE_OPTIONS),
            help="predict with int8 linear layers on the CPU, or a bfloat16 "
            "encoder (faster for a pretrained encoder; see the README for the "
            "accuracy change)",
        )


class TableValue:
    """The argparse type of a parameter that takes a word or a number (``"auto"``,
    ``none`` for None where its constraints allow it, or a finite number of their
    type); the number's range is the estimator's to check, in scikit-learn's
    words (shown against the flag)."""

    def __init__(self, constraints: list):
        self.constraints = constraints

    def __call__(self, text: str):
        constraints = self.constraints
        words = {o for c in constraints if type(c) is StrOptions for o in c.options}
        if text in words:
            return text
        if text == "none" and None in constraints:
            return None
        number = next(c.type for c in constraints if isinstance(c, Interval))
        try:
            value = int(text) if number is Integral else float(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            allowed = sorted(words) + (["none"] if None in constraints else [])
            kind = "an integer" if number is Integral else "a number"
            raise argparse.ArgumentTypeError(
                f"expected {', '.join(allowed)} or {kind}, got {text!r}"
            )
        return value


#: The command line's flags of the components' parameters (their dest) ->
#: ``(slot, parameter, one-line help)``: what ``train`` hands each component.
COMPONENT_FLAGS = {
    "pretrained_model": (
        "encoder",
        "path",
        "local Hugging Face checkpoint directory (with encoder pretrained)",
    ),
    "pretrained_input": (
        "encoder",
        "input",
        "aspect as attention query only, or also as a second segment (auto: "
        "pair for terms, vector for categories)",
    ),
    "embeddings": (
        "encoder",
        "embeddings",
        "'word2vec', 'fasttext', a vector file, a gensim-data name, or none for "
        "random vectors",
    ),
    "unseen_words": (
        "encoder",
        "unseen_words",
        "read a word training never saw as the nearest known word by n-grams",
    ),
    "embedding_dim": (
        "encoder",
        "embedding_dim",
        "size of trained or random vectors (default 100)",
    ),
    "embedding_dropout": ("encoder", "embedding_dropout", "dropout on word vectors"),
    "word_dropout": (
        "encoder",
        "word_dropout",
        "in training, read a word as unknown with probability "
        "alpha / (alpha + its count)",
    ),
    "hidden_size": (
        "encoder",
        "hidden_size",
        f"LSTM size (auto: {P.LSTM_SIZE}; the span taggers' {P.TAGGER_LSTM_SIZE})",
    ),
    "bidirectional": ("encoder", "bidirectional", "bidirectional LSTM"),
    "n_layers": ("encoder", "n_layers", "transformer layers"),
    "n_heads": ("encoder", "n_heads", "transformer heads"),
    "d_model": ("encoder", "d_model", "transformer width"),
    "attention_score": (
        "attention",
        "score",
        "how the aspect vector scores the encoder states",
    ),
    "attention_heads": ("attention", "heads", "aspect-attention heads"),
    "final_state": (
        "attention",
        "final_state",
        "what joins the aspect's attention pooling: the encoder's final state, "
        "its summary of the term, or nothing",
    ),
    "position_weighting": (
        "attention",
        "position_weighting",
        "aspect terms: weigh words near the term more in the attention",
    ),
    "position_dropout": (
        "attention",
        "position_dropout",
        "aspect terms, in training: drop words from each pair's copy of its "
        "sentence, the more often the farther from the term",
    ),
    "term_query": (
        "attention",
        "term_query",
        "aspect terms: query with the term's word vectors, its encoder states, or both",
    ),
    "head_lr": (
        "optimizer",
        "head_lr",
        "learning rate outside the encoder (auto: 1e-3 for a pretrained one)",
    ),
    "lr_schedule": (
        "optimizer",
        "lr_schedule",
        "learning-rate schedule (auto: linear for a pretrained encoder)",
    ),
}


def component_class(slot: str, name: str) -> type:
    """The component class of ``slot`` that declares the parameter ``name`` (for
    the encoder: the first registered encoder that has it)."""
    from .._slots import SLOTS

    (classes,) = [s.classes for s in SLOTS if s.name == slot]
    return next(c for c in classes if name in c._get_param_names())


def add_param(p, name: str, flag: str | None = None, **overrides) -> None:
    """A model option: the flag ``--name-with-dashes`` of an estimator's
    parameter (the table of :mod:`aspectattn.params`) or of a component's
    (:data:`COMPONENT_FLAGS`), with its default, type, choices and one-line help;
    ``overrides`` replace any of them. A parameter that takes a word or a number
    (``"auto"`` or a rate) parses with :class:`TableValue`."""
    if name in COMPONENT_FLAGS:
        slot, own, help_ = COMPONENT_FLAGS[name]
        cls = component_class(slot, own)
        constraints = cls._parameter_constraints[own]
        default = cls().get_params()[own]
    else:
        param = P.TABLE[name]
        constraints, default, help_ = param.constraints, param.default, param.help
    kwargs = {"dest": name, "default": default, "help": help_}
    options = [c.options for c in constraints if type(c) is StrOptions]
    numbers = [c.type for c in constraints if isinstance(c, Interval)]
    if "boolean" in constraints:
        kwargs["action"] = "store_true"
        kwargs.pop("default")
    elif options and numbers:
        words = sorted(options[0]) + (["none"] if None in constraints else [])
        kwargs["type"] = TableValue(constraints)
        kwargs["metavar"] = "{" + ",".join(words) + ",N}"
    elif options:
        kwargs["choices"] = sorted(options[0], key=str)
    elif numbers:
        kwargs["type"] = int if numbers[0] is Integral else float
    kwargs.update(overrides)
    p.add_argument(flag or "--" + name.replace("_", "-"), **kwargs)


def fit_taught(meta, student, teacher, args, X, y):
    """``student`` fitted on ``X``, ``y`` with what ``teacher`` answers, through
    the meta-estimator class ``meta`` (``DistilledClassifier`` or
    ``DistilledExtractor``), at ``--distill-weight`` and
    ``--distill-temperature`` (the meta-estimator's defaults where not given):
    the fitted student."""
    given = {"weight": args.distill_weight, "temperature": args.distill_temperature}
    taught = meta(student, teacher, **{k: v for k, v in given.items() if v is not None})
    return taught.fit(X, y).student_
