"""From a pile of reviews to aspect-level figures: sentences, aspects, aggregates.

::

    table, summary = analyze_reviews(reviews, detector, id_column="review_id",
                                     date_column="date", group_column="business")
    summary.table()                      # per aspect: mentions, shares, 95% CIs
    summary.table(by="group")            # per business and aspect
    summary.table(by="period")           # per month and aspect
    write_report(summary, "report.html")  # one self-contained HTML file

Reviews are split into sentences by NLTK's Punkt segmenter (with a list of common
abbreviations, no model download), every sentence is run through a category
detector (:class:`~aspectattn.AspectCategoryClassifier`, or anything with
its ``analyze`` method) in batches, and the result is one row per (sentence,
mentioned aspect): review id, sentence, aspect, label, probability and the words the
aspect attended to most.

For corpora larger than memory, :func:`iter_analysis` streams: it takes an iterable
of DataFrame chunks (``pd.read_csv(path, chunksize=...)``) and yields one sentence
table per chunk, while a :class:`ReviewSummary` keeps only counts and the few most
confident examples, so memory stays flat in the number of reviews.
"""

from __future__ import annotations

import heapq
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator

import numpy as np

from ._validation import _short
from .exceptions import AspectAttnWarning, InputError, MissingDependencyError
from .mentions import check_min_probability

__all__ = [
    "split_sentences",
    "iter_analysis",
    "DateRule",
    "analyze_reviews",
    "analyze_sentences",
    "ReviewSummary",
    "wilson_interval",
]

#: Abbreviations Punkt must not end a sentence at (lower case, without the final dot).
ABBREVIATIONS = {
    "dr", "mr", "mrs", "ms", "st", "ave", "vs", "etc", "e.g", "i.e", "approx",
    "min", "max", "no", "jr", "sr", "inc", "ltd", "co", "p.m", "a.m", "oz", "lb",
}  # fmt: skip
EXAMPLES_PER_LABEL = 3
_TOP_WORDS = 3


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise MissingDependencyError(
            "Analysing reviews needs pandas: pip install 'aspectattn[reviews]'"
        ) from None
    return pd


def _segmenter():
    try:
        from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    except ImportError:
        raise MissingDependencyError(
            "Splitting reviews into sentences needs NLTK: "
            "pip install 'aspectattn[reviews]'"
        ) from None
    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


def split_sentences(texts: Iterable[str]) -> tuple[np.ndarray, list[str]]:
    """Split each text into sentences.

    Returns
    -------
    review : ndarray of shape (n_sentences,) int64
        The index of the text each sentence comes from.
    sentences : list of str
        Non-empty, stripped sentences in text order.
    """
    segmenter = _segmenter()
    review, sentences, long_reviews = [], [], 0
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(
                f"Review {i} is a {type(text).__name__} ({_short(text, 60)}); "
                "expected a string."
            )
        pieces = [text]
        if len(text) > MAX_SEGMENT_CHARS:
            long_reviews += 1
            pieces = _pieces(text, MAX_SEGMENT_CHARS)
        for sentence in (s for piece in pieces for s in segmenter.tokenize(piece)):
            sentence = sentence.strip()
            if sentence:
                review.append(i)
                sentences.append(sentence)
    if long_reviews:
        warnings.warn(
            f"{long_reviews} review(s) longer than {MAX_SEGMENT_CHARS:,} characters "
            "were cut into pieces of at most that size (at a line or sentence end "
            "where there is one) before sentence splitting.",
            AspectAttnWarning,
            stacklevel=2,
        )
    return np.asarray(review, dtype=np.int64), sentences


#: Reviews longer than this are cut into pieces before sentence splitting, so that
#: the time NLTK's Punkt takes (its regular expressions) stays bounded per piece.
MAX_SEGMENT_CHARS = 20_000


def _pieces(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, each cut after the last
    line break, else sentence end, else space of its window (a hard cut where
    there is none)."""
    pieces, start = [], 0
    while len(text) - start > size:
        window = text[start : start + size]
        cut = max(window.rfind("\n"), window.rfind(". "), window.rfind("! "))
        if cut < size // 2:
            cut = max(cut, window.rfind(" "))
        end = start + (cut + 1 if cut > 0 else size)
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return pieces


def _check_columns(frame, columns: dict) -> None:
    for role, name in columns.items():
        if name is not None and name not in frame.columns:
            raise InputError(
                f"The reviews have no {role} column {name!r} (they have "
                f"{list(frame.columns)}); set {role}_column= to the right name."
            )


class DateRule:
    """One rule for reading every date of a file, so that ``03/04/2021`` means the
    same day in every chunk (pandas infers a format per call, from its first
    value). All dates come out in UTC, without a time zone (an offset is applied,
    so mixed offsets do not stop the run).

    Parameters
    ----------
    format : str or None
        A ``strptime`` format (``"%d/%m/%Y"``) for every date; anything else is
        unparsed. ``None``: ISO dates and times (with or without an offset), Unix
        timestamps (seconds, or milliseconds with 12-13 digits) and numeric dates
        such as ``05/02/2021``, read day first when ``dayfirst``.
    dayfirst : bool
        See :meth:`infer`, which decides it once from the values.
    """

    _NUMERIC = re.compile(r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}")
    _TIMESTAMP = re.compile(r"\d{9,13}(\.\d+)?")
    _ISO = re.compile(r"\d{4}-\d{2}-\d{2}")

    def __init__(self, format: str | None = None, dayfirst: bool = False):
        self.format, self.dayfirst = format, dayfirst

    @classmethod
    def infer(cls, values) -> DateRule:
        """The rule for ``values`` (all of a file's dates, or a sample): day first
        when a numeric date has a first number above 12 and none has a second
        number above 12; month first otherwise (pandas' default)."""
        day = month = False
        for value in values:
            text = str(value).strip()
            if cls._NUMERIC.fullmatch(text):
                first, second = (int(x) for x in re.split(r"[/.-]", text)[:2])
                day, month = day or first > 12, month or second > 12
        return cls(dayfirst=day and not month)

    def parse(self, values):
        """``(dates, n_unparsed)``: datetime64 values (NaT where missing or
        unreadable) and how many non-empty values could not be read."""
        text = [
            "" if v is None or (isinstance(v, float) and v != v) else str(v).strip()
            for v in (values.tolist() if hasattr(values, "tolist") else list(values))
        ]
        out = np.full(len(text), np.datetime64("NaT"), dtype="datetime64[ns]")
        groups: dict = {"format": [], "stamp": [], "iso": [], "other": []}
        for k, t in enumerate(text):
            if not t or t.lower() in ("nan", "nat", "none"):
                continue
            if self.format is not None:
                groups["format"].append(k)
            elif self._TIMESTAMP.fullmatch(t):
                groups["stamp"].append(k)
            elif self._ISO.match(t):
                groups["iso"].append(k)
            else:
                groups["other"].append(k)
        for kind, rows in groups.items():
            if rows:
                out[rows] = self._parse([text[k] for k in rows], kind)
        n_given = sum(map(len, groups.values()))
        return out, n_given - int((~np.isnat(out)).sum())

    def _parse(self, strings: list[str], kind: str) -> np.ndarray:
        """datetime64[ns] (UTC, no zone) of ``strings`` read as ``kind``; NaT where
        they cannot be read (element by element when pandas gives up on all)."""
        pd = _pandas()
        if kind == "stamp":
            numbers = np.array([float(t) for t in strings])
            millis = np.array([len(t.split(".")[0]) >= 12 for t in strings])
            strings, kwargs = np.where(millis, numbers / 1000, numbers), {"unit": "s"}
        elif kind == "format":
            kwargs = {"format": self.format}
        elif kind == "iso":
            kwargs = {"format": "ISO8601"}
        else:
            kwargs = {"format": "mixed", "dayfirst": self.dayfirst}

        def read(batch):
            parsed = pd.to_datetime(batch, errors="coerce", utc=True, **kwargs)
            return np.asarray(parsed.tz_convert(None), dtype="datetime64[ns]")

        try:
            return read(strings)
        except (ValueError, OverflowError, TypeError):  # e.g. a year out of range
            out = np.full(len(strings), np.datetime64("NaT"), dtype="datetime64[ns]")
            for k, value in enumerate(strings):
                try:
                    out[k] = read([value])[0]
                except (ValueError, OverflowError, TypeError):
                    pass
            return out


def iter_analysis(
    reviews,
    model,
    *,
    text_column: str = "text",
    id_column: str | None = None,
    date_column: str | None = None,
    group_column: str | None = None,
    batch_size: int = 2048,
    min_probability: float = 0.5,
    date_format: str | DateRule | None = None,
) -> Iterator:
    """Yield one sentence table per chunk of reviews.

    Parameters
    ----------
    reviews : DataFrame, iterable of DataFrames, or sequence of str
        The reviews, whole or in chunks (``pd.read_csv(path, chunksize=10_000)``).
    model : fitted AspectCategoryClassifier (or an object with its ``analyze``)
    text_column, id_column, date_column, group_column : str or None
        Columns of the review text, its id (default: the row number over all
        chunks), its date (parsed with ``pd.to_datetime``) and its group
        (business, product...).
    batch_size : int
        Sentences per call of ``model.analyze``.
    min_probability : float
        A category is taken as mentioned above this probability.
    date_format : str, DateRule or None
        How every date is read (:class:`DateRule`): a ``strptime`` format, a rule,
        or ``None``: one rule inferred from the dates of a DataFrame given whole,
        or of the first chunk. The count of dates that could not be read is in
        each table's ``attrs["n_unparsed_dates"]`` and in the summary.

    Yields
    ------
    DataFrame
        Columns ``review_id``, ``sentence_id`` (the sentence's place in its
        review), ``sentence``, ``aspect``, ``label``, ``probability``,
        ``mention_probability``, ``top_words`` and, when given, ``date`` and
        ``group``; one row per (sentence, mentioned aspect).
    """
    pd = _pandas()
    check_min_probability(min_probability)
    if isinstance(reviews, pd.DataFrame):
        chunks = [reviews]
    elif isinstance(reviews, (list, tuple)) and all(
        isinstance(r, str) for r in reviews
    ):
        chunks = [pd.DataFrame({text_column: list(reviews)})]
    else:
        chunks = reviews
    offset = 0
    for chunk in chunks:
        if not isinstance(chunk, pd.DataFrame):
            raise InputError(
                "reviews must be a DataFrame, a list of strings, or an iterable of "
                f"DataFrame chunks; got a chunk of type {type(chunk).__name__}."
            )
        columns = {
            "text": text_column,
            "id": id_column,
            "date": date_column,
            "group": group_column,
        }
        _check_columns(chunk, columns)
        texts = _review_texts(chunk[text_column], offset)
        review, sentences = split_sentences(texts)
        ids = (
            chunk[id_column].to_numpy()
            if id_column is not None
            else np.arange(offset, offset + len(chunk))
        )
        offset += len(chunk)
        rows = []
        first = np.searchsorted(review, review)  # index of each review's first sentence
        n_skipped = 0
        for start in range(0, len(sentences), batch_size):
            found, skipped = analyze_sentences(
                model, sentences[start : start + batch_size], min_probability
            )
            n_skipped += skipped
            for j, aspects in enumerate(found, start):
                for entry in aspects:
                    rows.append(_row(entry, review[j], j - first[j]))
        table = pd.DataFrame(
            rows,
            columns=[
                "review",
                "sentence_id",
                "sentence",
                "aspect",
                "label",
                "probability",
                "mention_probability",
                "top_words",
                "tokens",
                "weights",
            ],
        )
        index = table.pop("review").to_numpy(dtype=np.int64)
        table.insert(0, "review_id", ids[index])
        if date_column is not None:
            if not isinstance(date_format, DateRule):  # decided once, then kept
                date_format = (
                    DateRule(date_format)
                    if date_format is not None
                    else DateRule.infer(chunk[date_column].dropna())
                )
            dates, n_unparsed = date_format.parse(chunk[date_column])
            table["date"] = dates[index]
            table.attrs["n_unparsed_dates"] = n_unparsed
        if group_column is not None:
            table["group"] = _group_ids(chunk[group_column])[index]
        table.attrs.update(
            n_reviews=len(chunk),
            n_sentences=len(sentences),
            n_skipped_sentences=n_skipped,
        )
        yield table


def analyze_sentences(model, sentences: list[str], min_probability: float):
    """``(model.analyze(sentences), 0)`` -- or, when a sentence has no token the
    model reads (a zero-width space, a lone emoji the vocabulary splits to
    nothing...), the others analysed, that one with no aspect, and the number
    skipped: one such sentence never aborts a whole analysis."""
    try:
        return model.analyze(sentences, min_probability=min_probability), 0
    except InputError:
        count = getattr(getattr(model, "text_pipeline_", None), "count_tokens", None)
        if count is None:
            raise
        keep = [k for k, sentence in enumerate(sentences) if count(sentence) > 0]
        if len(keep) == len(sentences):
            raise  # another input error: not one to hide
    found: list = [[] for _ in sentences]
    if keep:
        kept = model.analyze(
            [sentences[k] for k in keep], min_probability=min_probability
        )
        for k, aspects in zip(keep, kept, strict=True):
            found[k] = aspects
    return found, len(sentences) - len(keep)


#: The group of reviews that have none (a missing or empty group id).
NO_GROUP = "(none)"


def _review_texts(values, offset: int) -> list[str]:
    """The review texts: strings (a number as written), missing ones empty; a list
    or an object (JSON Lines) is an error, not its Python repr analysed."""
    out = []
    for k, value in enumerate(values.tolist()):
        if value is None or (isinstance(value, float) and value != value):
            out.append("")
        elif type(value).__name__ == "NAType":  # pandas.NA
            out.append("")
        elif isinstance(value, str):
            out.append(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append(str(value))
        else:
            raise InputError(
                f"Review {offset + k} has a text of type {type(value).__name__} "
                f"({_short(value, 60)}); expected a string."
            )
    return out


def _group_ids(values) -> np.ndarray:
    """Group ids as written: missing ones one group :data:`NO_GROUP` (not one
    "nan" group per review), whole numbers without the ".0" that a column with
    gaps gives them."""
    out = []
    for value in values.tolist():
        if value is None or (isinstance(value, float) and value != value):
            out.append(NO_GROUP)
        elif type(value).__name__ == "NAType" or (
            isinstance(value, str) and not value.strip()
        ):
            out.append(NO_GROUP)
        elif isinstance(value, float) and value.is_integer():
            out.append(str(int(value)))
        else:
            out.append(str(value))
    return np.asarray(out, dtype=object)


def _row(entry: dict, review: int, sentence_id: int) -> tuple:
    weights = np.asarray(entry["weights"], dtype=np.float64)
    top = np.argsort(-weights, kind="stable")[:_TOP_WORDS]
    return (
        review,
        sentence_id,
        entry["text"],
        entry["aspect"],
        entry["label"],
        entry["probability"],
        entry["mention_probability"],
        " ".join(entry["tokens"][k] for k in sorted(top)),
        entry["tokens"],
        weights,
    )


def wilson_interval(k, n, z: float = 1.96):
    """Wilson score interval of a proportion ``k / n`` (arrays work); (0, 1) for
    ``n == 0``."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    safe = np.maximum(n, 1)
    p = k / safe
    denominator = 1 + z**2 / safe
    centre = (p + z**2 / (2 * safe)) / denominator
    half = z * np.sqrt(p * (1 - p) / safe + z**2 / (4 * safe**2)) / denominator
    low = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    high = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    return low, high


class ReviewSummary:
    """Counts per aspect (and group, and period) and the most confident examples.

    Memory is bounded by the number of distinct (group, period, aspect, label)
    cells and :data:`EXAMPLES_PER_LABEL` examples per (aspect, label), whatever
    the number of reviews.

    Parameters
    ----------
    freq : str
        pandas period frequency of the trends (``"M"``: months).
    """

    def __init__(self, freq: str = "M", part: int = 0):
        self.freq = freq
        #: Place of this summary's reviews among others merged with it (a Dask
        #: partition's number): on equal probability, the earlier sentence wins.
        self.part = part
        self.counts: Counter = Counter()  # (aspect, label) -> n
        self.group_counts: Counter = Counter()  # (group, aspect, label) -> n
        self.period_counts: Counter = Counter()  # (period, aspect, label) -> n
        self.examples: dict = {}  # (aspect, label) -> heap of (p, n, example)
        self.n_reviews = 0
        self.n_sentences = 0
        self.n_unparsed_dates = 0  # non-empty dates that could not be read
        self.n_skipped_sentences = 0  # sentences without a token the model reads
        self._seen = 0

    def update(self, table):
        """Add one sentence table (from :func:`iter_analysis`, which records the
        chunk's numbers of reviews and sentences in ``table.attrs``)."""
        self.n_reviews += int(table.attrs.get("n_reviews", 0))
        self.n_sentences += int(table.attrs.get("n_sentences", 0))
        self.n_unparsed_dates += int(table.attrs.get("n_unparsed_dates", 0))
        self.n_skipped_sentences += int(table.attrs.get("n_skipped_sentences", 0))
        keys = list(zip(table["aspect"], table["label"], strict=True))
        self.counts.update(keys)
        if "group" in table:
            self.group_counts.update(
                zip(table["group"], table["aspect"], table["label"], strict=True)
            )
        if "date" in table:
            dated = table[table["date"].notna()]
            periods = dated["date"].dt.to_period(self.freq).astype(str)
            self.period_counts.update(
                zip(periods, dated["aspect"], dated["label"], strict=True)
            )
        for row in table.itertuples(index=False):
            heap = self.examples.setdefault((row.aspect, row.label), [])
            self._seen += 1
            item = (
                row.probability,
                (-self.part, -self._seen),  # ties: the earlier sentence wins
                {
                    "sentence": row.sentence,
                    "review_id": _plain(row.review_id),
                    "probability": float(row.probability),
                    "tokens": list(row.tokens),
                    "weights": [float(w) for w in row.weights],
                },
            )
            _keep(heap, item)
        return self

    def merge(self, other: ReviewSummary) -> ReviewSummary:
        """Add the counts and examples of ``other`` (same ``freq``), e.g. of another
        partition: merging every partition's summary gives the summary of all
        the reviews at once."""
        if other.freq != self.freq:
            raise ValueError(f"cannot merge freq={other.freq!r} into {self.freq!r}")
        self.n_reviews += other.n_reviews
        self.n_sentences += other.n_sentences
        self.n_unparsed_dates += other.n_unparsed_dates
        self.n_skipped_sentences += getattr(other, "n_skipped_sentences", 0)
        self.counts.update(other.counts)
        self.group_counts.update(other.group_counts)
        self.period_counts.update(other.period_counts)
        for key, items in other.examples.items():
            heap = self.examples.setdefault(key, [])
            for item in items:
                _keep(heap, item)
        return self

    @property
    def labels(self) -> list[str]:
        return sorted({label for _, label in self.counts})

    def table(self, by: str | None = None):
        """Per aspect (and ``by="group"`` or ``"period"``): mentions, the share of
        each label and its 95% Wilson interval.

        Returns
        -------
        DataFrame with columns [by,] ``aspect``, ``mentions`` and, per label,
        ``share_<label>``, ``low_<label>``, ``high_<label>``.
        """
        pd = _pandas()
        if by is None:
            source = {(None, a, lab): n for (a, lab), n in self.counts.items()}
        elif by == "group":
            source = self.group_counts
        elif by == "period":
            source = self.period_counts
        else:
            raise ValueError(f"by must be None, 'group' or 'period'; got {by!r}")
        labels = self.labels
        cells: dict = {}
        for (key, aspect, label), n in source.items():
            cells.setdefault((key, aspect), Counter())[label] += n
        rows = []
        for (key, aspect), counter in sorted(cells.items(), key=_sort_key):
            total = sum(counter.values())
            row = {"aspect": aspect, "mentions": total}
            if by is not None:
                row = {by: key, **row}
            for label in labels:
                low, high = wilson_interval(counter[label], total)
                row[f"share_{label}"] = counter[label] / total
                row[f"low_{label}"] = float(low)
                row[f"high_{label}"] = float(high)
            rows.append(row)
        return pd.DataFrame(rows)

    def top_examples(self, aspect: str, label: str) -> list[dict]:
        """The most confident example sentences of ``aspect`` with ``label``."""
        heap = self.examples.get((aspect, label), [])
        out, seen = [], set()
        for item in sorted(heap, key=lambda x: x[:2], reverse=True):
            if item[2]["sentence"] not in seen:  # a repeated sentence shown once
                seen.add(item[2]["sentence"])
                out.append(item[2])
        return out


def _keep(heap: list, item: tuple) -> None:
    """Keep ``item`` in the min-heap of the most confident examples if it is one."""
    if len(heap) < EXAMPLES_PER_LABEL:
        heapq.heappush(heap, item)
    elif item[:2] > heap[0][:2]:
        heapq.heapreplace(heap, item)


def _plain(value):
    """A numpy scalar as the Python value (for JSON and HTML)."""
    return value.item() if isinstance(value, np.generic) else value


def _sort_key(item):
    (key, aspect), counter = item
    return (str(key), -sum(counter.values()), aspect)


def analyze_reviews(reviews, model, *, freq: str = "M", **options):
    """Analyse reviews in memory: the whole sentence table and its summary.

    See :func:`iter_analysis` for the parameters; ``freq`` is the trends' period.

    Returns
    -------
    table : DataFrame
        One row per (sentence, mentioned aspect), without the per-token columns.
    summary : ReviewSummary
    """
    return analyze_into(ReviewSummary(freq), reviews, model, **options)


def analyze_into(summary: ReviewSummary, reviews, model, **options):
    """:func:`analyze_reviews`, counting into ``summary`` (e.g. one with the
    ``part`` of a Dask partition); returns the table and ``summary``."""
    pd = _pandas()
    tables = []
    for table in iter_analysis(reviews, model, **options):
        summary.update(table)
        tables.append(table.drop(columns=["tokens", "weights"]))
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    return table, summary
