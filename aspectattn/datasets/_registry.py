"""The data-set registry: name -> :class:`Dataset`, read by the command line and the
benchmarks. A reader module registers its data sets next to its fetchers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Dataset", "DATASETS", "register"]


@dataclass(frozen=True)
class Dataset:
    """A named benchmark: how to load a split as ``(X, y)`` pairs, and, for
    aspect-category data, its table for the detector.

    Parameters
    ----------
    name : str
        What the command line and the benchmarks call it.
    fetch : callable
        ``fetch(subset=split, **kwargs) -> (X, y)``.
    kwargs : dict
    splits : tuple of str
        The splits with labels.
    aspects : {"category", "term"}
    table : str or None
        The name of its category table for the detector
        (:func:`~aspectattn.datasets.fetch_category_table`); None for terms.
    description : str
    always_spans : bool
        Its items carry their terms' spans whatever ``load`` is asked (APC
        files); otherwise ``fetch`` takes ``spans=``.
    """

    name: str
    fetch: Callable
    kwargs: dict = field(default_factory=dict)
    splits: tuple = ("train", "test")
    aspects: str = "category"
    table: str | None = None
    description: str = ""
    always_spans: bool = False

    def _check_split(self, split: str) -> None:
        if split not in self.splits:
            raise ValueError(
                f"{self.name} has no {split!r} split with labels (it has "
                f"{', '.join(self.splits)}); use --split {self.splits[-1]}"
            )

    def load(self, split: str = "train", spans: bool = False):
        """``(X, y)`` of ``split``: ``(text, aspect)`` pairs and their labels;
        with ``spans``, each aspect term as ``(text, term, (start, end))``."""
        self._check_split(split)
        if spans and self.aspects == "term" and not self.always_spans:
            return self.fetch(subset=split, spans=True, **self.kwargs)
        return self.fetch(subset=split, **self.kwargs)

    def load_table(self, split: str = "train"):
        """``(texts, Y)`` of ``split`` for the category detector."""
        if self.table is None:
            raise ValueError(f"{self.name} has aspect terms, not a category table")
        self._check_split(split)
        from .categories import fetch_category_table

        return fetch_category_table(self.table, split)


#: Name -> :class:`Dataset`, in the order of registration.
DATASETS: dict[str, Dataset] = {}


def register(dataset: Dataset) -> Dataset:
    """Add ``dataset`` to :data:`DATASETS`."""
    DATASETS[dataset.name] = dataset
    return dataset
