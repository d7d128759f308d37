"""``aspectattn analyze``: reviews -> sentences -> aspects, an HTML report and a
sentence table."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path

from .._mentions import check_min_probability
from ._common import (
    JSON_LINES_SUFFIXES,
    CLIError,
    add_model_options,
    check_outputs,
    first_line,
    is_detector,
    is_extractor,
    is_pipeline,
    language_code,
    load_model,
    output_path,
)
from ._extraction import pipeline_of

#: Position in ``aspectattn --help``.
ORDER = 5
HELP = "reviews -> sentences -> aspects: an HTML report and a sentence table"


def add_arguments(p) -> None:
    p.add_argument("reviews", help="CSV or JSONL file of reviews, one per row")
    p.add_argument(
        "--model",
        required=True,
        help="category detector or end-to-end pipeline model file; with "
        "--extractor, a pair classifier of aspect terms",
    )
    p.add_argument(
        "--extractor",
        help="aspect term extractor model file: the aspects are the terms it finds "
        "(grouped by case, spacing and the English plural), each classified by "
        "--model",
    )
    p.add_argument("--out", required=True, help="the report (.html)")
    p.add_argument("--table", help="sentence table (.csv or .parquet)")
    p.add_argument("--text-column", default="text", help="column of the review text")
    p.add_argument("--id-column", help="column of the review id (default: row number)")
    p.add_argument("--date-column", help="column of the review date (for trends)")
    p.add_argument(
        "--date-format",
        help="strptime format of every date, e.g. %%d/%%m/%%Y (default: one rule for "
        "the whole file, day or month first as its dates show; ISO dates, offsets "
        "and Unix timestamps are read too)",
    )
    p.add_argument("--group-column", help="column of a business or product id")
    p.add_argument("--freq", default="M", help="trend period (pandas: M, W, Q, Y)")
    p.add_argument(
        "--min-probability",
        type=float,
        default=0.5,
        help="a category is mentioned above this probability (with an extractor: "
        "a term whose span score is above it)",
    )
    p.add_argument("--chunk-size", type=int, default=10_000, help="reviews per chunk")
    p.add_argument("--title", default="Aspect sentiment report", help="report title")
    p.add_argument("--encoding", default="utf-8", help="text encoding of the file")
    p.add_argument(
        "--language",
        default="auto",
        type=language_code,
        help="the reviews' language (an ISO 639 code or none, for sentence "
        "splitting; default: the model's)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress line")
    add_model_options(p)


def _date_rule(path: Path, args):
    """One rule for every date of the file: ``--date-format``, else inferred from
    all of its dates (read alone, chunk by chunk, before the analysis)."""
    from ..reviews import DateRule

    if args.date_column is None:
        return None
    if args.date_format is not None:
        return DateRule(args.date_format)
    values = []
    for chunk in _review_chunks(path, args, columns=[args.date_column]):
        if args.date_column in chunk:
            values += chunk[args.date_column].dropna().astype(str).tolist()
    return DateRule.infer(values)


def _review_chunks(path: Path, args, columns=None):
    """The reviews file as DataFrame chunks (CSV or JSON Lines), read lazily."""
    import pandas as pd

    if not path.is_file():
        raise CLIError(f"{path} is not a file")
    kwargs = dict(chunksize=args.chunk_size, encoding=args.encoding)
    wanted = None if columns is None else set(columns)
    try:
        if path.suffix.lower() in JSON_LINES_SUFFIXES:
            reader = pd.read_json(path, lines=True, dtype=False, **kwargs)
        else:
            reader = pd.read_csv(
                path,
                dtype=str,
                keep_default_na=False,
                usecols=None if wanted is None else wanted.__contains__,
                **kwargs,
            )
        yield from reader
    except LookupError:
        raise CLIError(
            f"unknown text encoding {args.encoding!r} (--encoding)"
        ) from None
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise CLIError(f"{path} could not be read: {first_line(exc)}") from None


class _TableWriter:
    """The sentence table, written chunk by chunk (CSV, or Parquet through
    pyarrow), so that memory does not grow with the reviews."""

    def __init__(self, path: str | None):
        self.path = None if path is None else Path(path)
        self.started = False  # the file holds the header (CSV) or the schema
        self.parquet = None  # the pyarrow writer of a .parquet table
        self.empty = None  # the (Arrow) table of chunks without rows, so far
        self.suffix = None if self.path is None else self.path.suffix.lower()
        if self.path is not None and self.suffix not in (
            ".csv",
            ".parquet",
        ):
            raise CLIError(f"--table must end in .csv or .parquet, got {self.path}")

    def write(self, table) -> None:
        if self.path is None:
            return
        table = table.drop(columns=["tokens", "weights"])
        if self.suffix == ".csv":
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
            if not len(table):  # a chunk without mentions types nothing: wait
                self.empty = arrow
                return
            # a column of the first rows that is all missing (no group yet) is
            # typed by no value: text, which any later value casts to
            schema = pa.schema(
                [
                    f.with_type(pa.string()) if pa.types.is_null(f.type) else f
                    for f in arrow.schema
                ]
            )
            self.parquet = pq.ParquetWriter(self.path, schema)
        self.parquet.write_table(arrow.cast(self.parquet.schema))

    def close(self) -> None:
        if self.parquet is None and self.empty is not None:  # no row at all
            import pyarrow.parquet as pq

            pq.write_table(self.empty, self.path)
        if self.parquet is not None:
            self.parquet.close()


def _analyzer(args):
    """What finds the aspects of the reviews: the detector of ``--model``, or
    the pipeline of ``--model`` (and ``--extractor``); any other model is a
    one-line error."""
    clf = load_model(args.model, args.trust_pickle, args.quantize)
    if is_extractor(clf):
        raise CLIError(
            f"{args.model} is an aspect term extractor: give it as --extractor, "
            "with a classifier of aspect terms as --model"
        )
    if args.extractor or is_pipeline(clf):
        return pipeline_of(clf, args)
    if not is_detector(clf):
        raise CLIError(
            f"{args.model} is a pair classifier; analyze needs a category detector "
            "(aspectattn train ... --detector), or an aspect term extractor beside "
            "it (--extractor)"
        )
    return clf


def run(args) -> int:
    from ..reviews import ReviewSummary, iter_analysis
    from ..reviews.report import write_report

    inputs = [args.reviews, args.model, *([args.extractor] if args.extractor else [])]
    check_outputs(inputs, [args.out, args.table])
    check_min_probability(args.min_probability)
    clf = _analyzer(args)
    out = Path(args.out)
    if out.suffix.lower() not in (".html", ".htm"):
        raise CLIError(f"--out must be an .html file, got {out}")
    date_rule = _date_rule(Path(args.reviews), args)
    summary = ReviewSummary(args.freq)
    writer = _TableWriter(args.table)  # checks the suffix before any work
    show = not args.quiet and sys.stderr.isatty()
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if args.table is not None:  # written beside, renamed when the run succeeds
            writer.path = stack.enter_context(output_path(args.table))
        for table in iter_analysis(
            _review_chunks(Path(args.reviews), args),
            clf,
            text_column=args.text_column,
            id_column=args.id_column,
            date_column=args.date_column,
            group_column=args.group_column,
            min_probability=args.min_probability,
            date_format=date_rule,
            language=args.language,
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
        writer.close()
    if show:
        sys.stderr.write("\n")
    with output_path(out) as tmp:
        write_report(summary, tmp, args.title)
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "reviews": summary.n_reviews,
                "sentences": summary.n_sentences,
                "mentions": int(sum(summary.counts.values())),
                "unparsed_dates": summary.n_unparsed_dates,
                "skipped_sentences": summary.n_skipped_sentences,
                "seconds": round(seconds, 3),
                "sentences_per_second": round(summary.n_sentences / max(seconds, 1e-9)),
                "report": str(out),
                "table": args.table,
            }
        )
    )
    return 0
