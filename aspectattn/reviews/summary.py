"""What a review analysis adds up to: counts per aspect, group and period with
confidence intervals, and the few most confident examples (memory flat in the
number of reviews)."""

from __future__ import annotations

import heapq
from collections import Counter

import numpy as np

from ..extraction.aspects import group_aspects
from ._pandas import pandas_module as _pandas

__all__ = ["ReviewSummary", "wilson_interval", "EXAMPLES_PER_LABEL"]

EXAMPLES_PER_LABEL = 3


def wilson_interval(k, n, z: float = 1.96):
    """Wilson score interval of a proportion ``k / n`` (arrays work); (0, 1) for
    ``n == 0``.

    Examples
    --------
    >>> from aspectattn.reviews import wilson_interval
    >>> low, high = wilson_interval([8, 0], [10, 0])
    >>> low.round(3).tolist(), high.round(3).tolist()
    ([0.49, 0.0], [0.943, 1.0])
    """
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
        #: A term model's language and user's aspect names (None for categories):
        #: its keys are grouped into aspects when the figures are read
        self.terms: dict | None = None
        self._seen = 0

    def update(self, table):
        """Add one sentence table (from :func:`iter_analysis`, which records the
        chunk's numbers of reviews and sentences in ``table.attrs``)."""
        self.n_reviews += int(table.attrs.get("n_reviews", 0))
        self.n_sentences += int(table.attrs.get("n_sentences", 0))
        self.n_unparsed_dates += int(table.attrs.get("n_unparsed_dates", 0))
        self.n_skipped_sentences += int(table.attrs.get("n_skipped_sentences", 0))
        self._take_terms(table.attrs.get("terms"))
        self._aspects = None  # (grouped again from the new counts when read)
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
                # ranked to 6 decimals: a sentence's probability moves in its last
                # bits with the batch it was read in (a partition's other
                # sentences), which must not reorder equally confident examples
                round(float(row.probability), _RANK_DECIMALS),
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
        self._take_terms(getattr(other, "terms", None))
        self._aspects = None
        self.counts.update(other.counts)
        self.group_counts.update(other.group_counts)
        self.period_counts.update(other.period_counts)
        for key, items in other.examples.items():
            heap = self.examples.setdefault(key, [])
            for item in items:
                _keep(heap, item)
        return self

    def _take_terms(self, terms: dict | None) -> None:
        if terms is None:
            return
        if self.terms is None:
            self.terms = {"language": terms["language"], "named": set()}
        self.terms["named"] |= set(terms["named"])

    def aspects(self) -> dict[str, list[str]]:
        """Each aspect and the keys it holds, most mentioned first: a term
        model's keys grouped by
        :func:`~aspectattn.extraction.aspects.group_aspects` (``trackpad`` with
        ``track pad``, ``windows`` with ``window``), a detector's
        categories each itself. Read from all the counts at once, so a summary
        merged from partitions groups as the whole would."""
        cached = self.__dict__.get("_aspects")  # (update and merge clear it)
        if cached is not None:
            return cached
        mentions = Counter()
        for (aspect, _), n in self.counts.items():
            mentions[aspect] += n
        if self.terms is None:
            groups = {aspect: [aspect] for aspect in sorted(mentions)}
        else:
            groups = group_aspects(
                mentions, self.terms["language"], self.terms["named"]
            )
        self._aspects = groups  # (the report reads it once per aspect)
        return groups

    @property
    def labels(self) -> list[str]:
        return sorted({label for _, label in self.counts})

    def table(self, by: str | None = None):
        """Per aspect (and ``by="group"`` or ``"period"``): mentions, the share of
        each label and its 95% Wilson interval.

        Returns
        -------
        DataFrame with columns [by,] ``aspect``, ``mentions``, ``terms`` (the
        keys the aspect holds: :meth:`aspects`) and, per label,
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
        groups = self.aspects()
        aspect_of = {key: name for name, keys in groups.items() for key in keys}
        cells: dict = {}
        for (key, aspect, label), n in source.items():
            cells.setdefault((key, aspect_of[aspect]), Counter())[label] += n
        rows = []
        for (key, aspect), counter in sorted(cells.items(), key=_sort_key):
            total = sum(counter.values())
            row = {"aspect": aspect, "mentions": total, "terms": groups[aspect]}
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
        """The most confident example sentences of ``aspect`` (one of
        :meth:`aspects`, or one of its keys) with ``label``."""
        keys = self.aspects().get(aspect, [aspect])
        heap = [item for key in keys for item in self.examples.get((key, label), [])]
        out, seen = [], set()
        for item in sorted(heap, key=lambda x: x[:2], reverse=True):
            if len(out) == EXAMPLES_PER_LABEL:
                break
            if item[2]["sentence"] not in seen:  # a repeated sentence shown once
                seen.add(item[2]["sentence"])
                out.append(item[2])
        return out


#: Decimals of the probability that rank the examples.
_RANK_DECIMALS = 6


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
