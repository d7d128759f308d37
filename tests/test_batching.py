"""Length-bucketed batches: every pair exactly once, little padding, reproducible."""

import numpy as np
import pytest

from aspectattn.engine.batching import (
    BucketBatchSampler,
    PairDataset,
    length_sorted_batches,
)
from aspectattn.text.tokens import EncodedTexts

LENGTHS = np.random.default_rng(0).integers(1, 60, size=203)


def test_length_sorted_batches_cover_every_index_once_longest_first():
    batches = length_sorted_batches(LENGTHS, 16)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(LENGTHS)))
    assert max(len(b) for b in batches) == 16
    longest = [LENGTHS[b].max() for b in batches]
    assert longest == sorted(longest, reverse=True)  # largest tensors first


@pytest.mark.parametrize("max_tokens", [1, 40, 200, 10**6])
def test_a_token_budget_caps_each_batch_padded_tokens(max_tokens):
    groups = np.random.default_rng(1).integers(0, 150, size=len(LENGTHS))
    batches = length_sorted_batches(LENGTHS, 16, groups, max_tokens)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(LENGTHS)))
    for b in batches:
        assert len(b) <= 16
        # within the budget, or one row longer than it
        assert len(b) * LENGTHS[b].max() <= max_tokens or len(b) == 1
    longest = [LENGTHS[b].max() for b in batches]
    assert longest == sorted(longest, reverse=True)
    # each batch as full as the budget allows: one more row would break it
    ordered = np.concatenate(batches[::-1])
    ends = np.cumsum([len(b) for b in batches[::-1]])[:-1]
    for end, b in zip(ends, batches[::-1], strict=False):
        grown = (len(b) + 1) * LENGTHS[ordered[end]]
        assert len(b) == 16 or grown > max_tokens
    if max_tokens == 10**6:  # no budget bites: the same as without one
        unlimited = length_sorted_batches(LENGTHS, 16, groups)
        assert [b.tolist() for b in batches] == [b.tolist() for b in unlimited]


def test_bucket_sampler_shuffles_reproducibly_with_little_padding():
    def epoch(seed):
        sampler = BucketBatchSampler(LENGTHS, 16, True, np.random.default_rng(seed))
        return list(sampler)

    first = epoch(1)
    assert first == epoch(1) and first != epoch(2)
    flat = sorted(i for b in first for i in b)
    assert flat == list(range(len(LENGTHS)))
    padded = sum(len(b) * LENGTHS[b].max() for b in first)
    global_pad = len(LENGTHS) * LENGTHS.max()
    assert padded < 1.15 * LENGTHS.sum() < global_pad


def test_pair_dataset_batch_pads_to_the_batch_longest():
    sentences = EncodedTexts.from_lists([[2, 3, 4], [5], [6, 7]])
    # pairs 0-3 on sentences 2, 1, 2, 0
    dataset = PairDataset(
        sentences,
        np.array([2, 1, 2, 0]),
        np.array([0, 1, 2, 0]),
        np.array([1, 0, 1, 2]),
    )
    X, y = dataset.__getitems__([1, 2, 0])
    assert X["tokens"].tolist() == [[5, 0], [6, 7], [6, 7]]
    assert X["lengths"].tolist() == [1, 2, 2]
    assert X["aspect"].tolist() == [1, 2, 0] and y.tolist() == [0, 1, 1]
    # pairs of one sentence share its number within the batch
    assert X["sentence"].tolist() == [0, 1, 1]
    assert dataset.lengths.tolist() == [2, 1, 2, 3]


def test_subset_shares_the_sentences():
    sentences = EncodedTexts.from_lists([[2, 3, 4], [5]])
    dataset = PairDataset(sentences, np.array([0, 1, 0]), np.array([0, 1, 2]))
    part = dataset.subset(np.array([2, 1]))
    assert part.sentences is sentences and part.sentence.tolist() == [0, 1]
    assert part.aspects.tolist() == [2, 1]


def test_sentence_batches_keep_every_sentence_whole():
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(80), rng.integers(1, 5, size=80))
    rng.shuffle(groups)
    lengths = rng.integers(1, 30, size=80)[groups]
    sampler = BucketBatchSampler(
        lengths, 16, True, np.random.default_rng(1), groups=groups, keep_groups=True
    )
    batches = list(sampler)
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(len(groups)))
    for batch in batches:
        inside = set(groups[batch])
        assert all(
            set(np.flatnonzero(np.isin(groups, list(inside)))) <= set(batch)
            for _ in [0]
        )
        assert len(batch) <= 16 or len(inside) == 1
    assert batches != list(
        BucketBatchSampler(
            lengths, 16, True, np.random.default_rng(2), groups=groups, keep_groups=True
        )
    )
