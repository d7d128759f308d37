"""Datasets and length-bucketed batch iteration for training (through skorch) and
inference.

A batch is padded only to its own longest sentence, and batches are formed from
sentences of similar length, so almost no compute is spent on padding. A whole batch is
built with vectorised numpy in :meth:`PairDataset.__getitems__` (which
``torch.utils.data.DataLoader`` calls with the list of batch indices), not item by item.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from ..text.tokens import EncodedTexts, length_sorted_batches

__all__ = ["PairDataset", "BucketBatchSampler", "BucketLoader", "length_sorted_batches"]


class PairDataset(Dataset):
    """(sentence, aspect, label) triples, batched as the module's keyword arguments.

    Sentences are stored once (``sentences``), pairs point at them (``sentence``).
    A batch holds one token row per pair plus ``sentence``, the pair's sentence
    numbered within the batch, so the model can encode each distinct sentence once.

    Parameters
    ----------
    sentences : EncodedTexts
        One row per distinct sentence (or per pair, when the aspect is part of the
        token sequence).
    sentence : ndarray of shape (n,) int64
        The row of ``sentences`` of each pair.
    aspects : ndarray of shape (n,) int64, or EncodedTexts
        Category ids, or the token ids of aspect terms.
    y : ndarray of shape (n,) int64, or None
        Class indices.
    spans : ndarray of shape (n, 2) int64, or None
        Token span of each pair's term; batches then carry ``span``.
    teacher : ndarray of shape (n, n_classes) float32, or None
        A teacher's softened probabilities of each pair (distillation); the
        batches' targets are then ``{"label": (B,), "teacher": (B, C)}``, with
        the label ``-1`` for a pair that has none.
    weight : ndarray of shape (n,) float32, or None
        Each pair's weight in the loss (``sample_weight``, and the copies'
        share of it); the batches' targets then also hold ``"weight"`` (B,).
    """

    def __init__(
        self,
        sentences: EncodedTexts,
        sentence: np.ndarray,
        aspects,
        y: np.ndarray | None = None,
        spans: np.ndarray | None = None,
        teacher: np.ndarray | None = None,
        weight: np.ndarray | None = None,
    ):
        self.sentences = sentences
        self.sentence = np.asarray(sentence, dtype=np.int64)
        self.aspects = aspects
        self.targets = None if y is None else np.asarray(y, dtype=np.int64)
        self.spans = None if spans is None else np.asarray(spans, dtype=np.int64)
        self.teacher = teacher
        self.weight = None if weight is None else np.asarray(weight, np.float32)
        self.lengths = sentences.lengths[self.sentence]  # per pair

    def __len__(self) -> int:
        return len(self.sentence)

    def batch(self, index) -> dict[str, torch.Tensor]:
        """Module inputs for the pairs at ``index``."""
        index = np.asarray(index, dtype=np.int64)
        rows = self.sentence[index]
        tokens, lengths = self.sentences.pad(rows)  # (B, T), (B,)
        local = np.unique(rows, return_inverse=True)[1].reshape(-1)  # (B,)
        if isinstance(self.aspects, EncodedTexts):
            aspect, _ = self.aspects.pad(index)  # (B, L)
        else:
            aspect = self.aspects[index]  # (B,)
        batch = {
            "tokens": torch.from_numpy(tokens),
            "lengths": torch.from_numpy(lengths),
            "aspect": torch.from_numpy(np.ascontiguousarray(aspect)),
            "sentence": torch.from_numpy(local.astype(np.int64)),
        }
        if self.spans is not None:
            batch["span"] = torch.from_numpy(self.spans[index])  # (B, 2)
        return batch

    def __getitems__(self, index):
        X = self.batch(index)
        if self.targets is None:
            return X, torch.zeros(len(index), dtype=torch.int64)
        index = np.asarray(index)
        label = torch.from_numpy(self.targets[index])
        if self.teacher is None and self.weight is None:
            return X, label
        y = {"label": label}
        if self.teacher is not None:
            y["teacher"] = torch.from_numpy(self.teacher[index])
        if self.weight is not None:
            y["weight"] = torch.from_numpy(self.weight[index])
        return X, y

    def __getitem__(self, i):
        X, y = self.__getitems__([i])
        y = {k: v[0] for k, v in y.items()} if isinstance(y, dict) else y[0]
        return {k: v[0] for k, v in X.items()}, y

    def subset(self, index: np.ndarray, labels_only: bool = False) -> PairDataset:
        """A new dataset of the pairs at ``index`` (sharing the sentences);
        ``labels_only=True`` leaves the teacher's probabilities and the weights
        out (what validation scores)."""
        aspects = (
            self.aspects.take(index)
            if isinstance(self.aspects, EncodedTexts)
            else self.aspects[index]
        )
        y = None if self.targets is None else self.targets[index]
        spans = None if self.spans is None else self.spans[index]
        soft = None if self.teacher is None or labels_only else self.teacher[index]
        weight = None if self.weight is None or labels_only else self.weight[index]
        return PairDataset(
            self.sentences, self.sentence[index], aspects, y, spans, soft, weight
        )


def _group_members(groups: np.ndarray) -> list[np.ndarray]:
    """The pairs of each group (sentence), groups numbered 0..n-1 in any order."""
    order = np.argsort(groups, kind="stable")
    _, starts = np.unique(groups[order], return_index=True)
    return np.split(order, starts[1:])


class BucketBatchSampler(Sampler):
    """Shuffled batches of similar-length sentences.

    Each epoch: shuffle the units (pairs, or with ``groups`` whole sentences with
    all their pairs), cut them into pools of ``pool_factor`` batches, sort each pool
    by length, cut it into batches of about ``batch_size`` pairs (a sentence is never
    split), and shuffle the batch order. The randomness comes from ``generator``
    alone, which advances from epoch to epoch.
    """

    def __init__(
        self,
        lengths: np.ndarray,
        batch_size: int,
        shuffle: bool,
        generator: np.random.Generator | None = None,
        pool_factor: int = 50,
        groups: np.ndarray | None = None,
        keep_groups: bool = False,
    ):
        self.lengths = lengths
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.generator = (
            generator if generator is not None else np.random.default_rng(0)
        )
        self.pool_factor = pool_factor
        self.groups = groups
        self.keep_groups = keep_groups and groups is not None

    def __len__(self) -> int:
        # Exact without groups; with them a lower bound (whole sentences may leave
        # batches a little short), computed without drawing from the generator.
        return -(-len(self.lengths) // self.batch_size)

    def _batches(self) -> list[np.ndarray]:
        if not self.shuffle:
            return length_sorted_batches(self.lengths, self.batch_size, self.groups)
        if not self.keep_groups:
            perm = self.generator.permutation(len(self.lengths))
            pool = self.batch_size * self.pool_factor
            batches = []
            for start in range(0, len(perm), pool):
                chunk = perm[start : start + pool]
                chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
                batches.extend(
                    chunk[i : i + self.batch_size]
                    for i in range(0, len(chunk), self.batch_size)
                )
            return batches
        members = _group_members(self.groups)
        unit_len = np.array([self.lengths[m[0]] for m in members])
        perm = self.generator.permutation(len(members))
        per_unit = len(self.lengths) / len(members)  # pairs per sentence
        pool = max(1, int(self.batch_size * self.pool_factor / per_unit))
        batches = []
        for start in range(0, len(perm), pool):
            chunk = perm[start : start + pool]
            chunk = chunk[np.argsort(unit_len[chunk], kind="stable")]
            current, size = [], 0
            for unit in chunk:
                if current and size + len(members[unit]) > self.batch_size:
                    batches.append(np.concatenate(current))
                    current, size = [], 0
                current.append(members[unit])
                size += len(members[unit])
            if current:
                batches.append(np.concatenate(current))
        return batches

    def __iter__(self):
        batches = self._batches()
        if not self.shuffle:
            yield from (b.tolist() for b in batches)
            return
        for b in self.generator.permutation(len(batches)):
            yield batches[b].tolist()


def _collate_batch(batch):
    # PairDataset.__getitems__ already returns a collated batch.
    return batch


class BucketLoader(DataLoader):
    """The skorch iterator: a DataLoader over :class:`BucketBatchSampler` batches.

    skorch builds a new iterator every epoch with ``batch_size`` and ``shuffle``; the
    ``generator`` object is shared between epochs so that each epoch gets a new,
    reproducible order. ``keep_sentences`` puts all pairs of a sentence into one
    training batch.
    """

    def __init__(
        self,
        dataset: PairDataset,
        batch_size: int = 32,
        shuffle: bool = False,
        generator: np.random.Generator | None = None,
        keep_sentences: bool = False,
        **kwargs,
    ):
        sampler = BucketBatchSampler(
            dataset.lengths,
            batch_size,
            shuffle,
            generator,
            groups=dataset.sentence,
            keep_groups=keep_sentences,
        )
        super().__init__(
            dataset, batch_sampler=sampler, collate_fn=_collate_batch, **kwargs
        )
