"""Reviews -> sentences -> aspects: the sentence table, chunk by chunk."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .._mentions import check_min_probability
from .._validation import _short
from ..exceptions import InputError
from ..extraction.reading import TermsEndToEnd
from ._pandas import pandas_module as _pandas
from .dates import DateRule
from .sentences import split_sentences
from .summary import ReviewSummary

__all__ = ["iter_analysis", "analyze_reviews", "analyze_into", "analyze_sentences"]

_TOP_WORDS = 3


def _check_columns(frame, columns: dict) -> None:
    for role, name in columns.items():
        if name is not None and name not in frame.columns:
            raise InputError(
                f"The reviews have no {role} column {name!r} (they have "
                f"{list(frame.columns)}); set {role}_column= to the right name."
            )


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
    language: str | None = "auto",
) -> Iterator:
    """Yield one sentence table per chunk of reviews.

    Parameters
    ----------
    reviews : DataFrame, iterable of DataFrames, or sequence of str
        The reviews, whole or in chunks (``pd.read_csv(path, chunksize=10_000)``).
    model : fitted AspectCategoryClassifier or AspectSentimentPipeline
        (or an object with their ``analyze``): the detector's categories, or the
        pipeline's extracted terms grouped into aspects.
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
    language : str, None or "auto"
        The reviews' language, for sentence splitting (English abbreviations such
        as "Dr." end no sentence only in English; every script's sentence ends
        apply whatever the language). ``"auto"``: the model's (its tokenizer's).

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
    if language == "auto":  # the model's: its tokenizer's language
        language = _model_language(model)
    terms = _term_aspects(model)
    offset = 0
    for chunk in _review_chunks(reviews, text_column):
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
        review, sentences = split_sentences(texts, language)
        ids = (
            chunk[id_column].to_numpy()
            if id_column is not None
            else np.arange(offset, offset + len(chunk))
        )
        offset += len(chunk)
        table, n_skipped = _sentence_rows(
            model, review, sentences, batch_size, min_probability
        )
        index = table.pop("review").to_numpy(dtype=np.int64)
        table.insert(0, "review_id", ids[index])
        if date_column is not None:  # (the rule decided once, then kept)
            date_format = _add_dates(table, chunk[date_column], date_format, index)
        if group_column is not None:
            table["group"] = _group_ids(chunk[group_column])[index]
        table.attrs.update(
            n_reviews=len(chunk),
            n_sentences=len(sentences),
            n_skipped_sentences=n_skipped,
            terms=terms,
        )
        yield table


def _review_chunks(reviews, text_column: str):
    """The chunks (DataFrames) of ``reviews``: a DataFrame whole, a list of
    strings as one, or the iterable of chunks as it is."""
    pd = _pandas()
    if isinstance(reviews, pd.DataFrame):
        return [reviews]
    if isinstance(reviews, (list, tuple)) and all(isinstance(r, str) for r in reviews):
        return [pd.DataFrame({text_column: list(reviews)})]
    return reviews


def _add_dates(table, dates, rule, index) -> DateRule:
    """Put the ``dates`` of a chunk's reviews on ``table``'s rows (``index``:
    each row's review), read by ``rule`` (a :class:`DateRule`, or what makes
    one: a format, or None to infer it from these dates); the rule."""
    if not isinstance(rule, DateRule):
        rule = DateRule(rule) if rule is not None else DateRule.infer(dates.dropna())
    parsed, n_unparsed = rule.parse(dates)
    table["date"] = parsed[index]
    table.attrs["n_unparsed_dates"] = n_unparsed
    return rule


def _model_language(model) -> str | None:
    """The language a model's tokenizer reads: the detector's, a pipeline's
    extractor's, or the joint model's own."""
    extractor = getattr(model, "extractor_", None)
    if extractor is None and hasattr(model, "inputs_"):  # the joint model
        extractor = model
    if extractor is not None:
        return getattr(extractor, "language_", "en")
    tokenizer = getattr(getattr(model, "text_pipeline_", None), "tokenizer", None)
    return getattr(tokenizer, "language", "en")


def _term_aspects(model) -> dict | None:
    """What the summary needs to group a term model's aspects -- the language
    and the user's aspect names of the keys it gives (its ``_aspect_names``:
    :class:`~aspectattn.extraction.reading.TermsEndToEnd`) -- or None for a
    category detector, whose aspects are its categories."""
    if not isinstance(model, TermsEndToEnd):
        return None
    names = model._aspect_names()
    return {"language": names.language, "named": set(names.table.values())}


#: The sentence table's columns, before the review ids, dates and groups join.
_COLUMNS = [
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
]


def _sentence_rows(model, review, sentences, batch_size: int, min_probability):
    """``(table, n_skipped)``: one row per (sentence, mentioned aspect) of a chunk's
    sentences (``review``: the review of each), analysed ``batch_size`` at a time."""
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
    return _pandas().DataFrame(rows, columns=_COLUMNS), n_skipped


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
    # the most weighted words, none of weight 0 (a term's context words)
    top = np.argsort(-weights, kind="stable")[:_TOP_WORDS]
    top = top[weights[top] > 0] if (weights > 0).any() else top
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


def analyze_reviews(reviews, model, *, freq: str = "M", **options):
    """Analyse reviews in memory: the whole sentence table and its summary.

    See :func:`iter_analysis` for the parameters; ``freq`` is the trends' period.

    Returns
    -------
    table : DataFrame
        One row per (sentence, mentioned aspect), without the per-token columns.
    summary : ReviewSummary

    Examples
    --------
    >>> import pandas as pd
    >>> from aspectattn import AspectCategoryClassifier
    >>> from aspectattn.reviews import analyze_reviews
    >>> texts = ["Great pasta.", "Rude waiter.", "Great pasta, rude waiter."] * 5
    >>> Y = pd.DataFrame({"food": ["positive", "none", "positive"] * 5,
    ...                   "service": ["none", "negative", "negative"] * 5})
    >>> from aspectattn.encoders import LSTMEncoder
    >>> detector = AspectCategoryClassifier(encoder=LSTMEncoder(embeddings=None),
    ...                                     max_epochs=2, random_state=0).fit(texts, Y)
    >>> table, summary = analyze_reviews(["Great pasta. Rude waiter!"], detector)
    >>> table.columns.tolist()[:4]
    ['review_id', 'sentence_id', 'sentence', 'aspect']
    >>> summary.n_reviews, summary.n_sentences
    (1, 2)
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
