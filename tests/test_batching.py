"""Length-bucketed batches: every pair exactly once, little padding, reproducible."""

import numpy as np

from aspectattn._batching import BucketBatchSampler, PairDataset, length_sorted_batches
from aspectattn.text import EncodedTexts

LENGTHS = np.random.default_rng(0).integers(1, 60, size=203)


def test_length_sorted_batches_cover_every_index_once_longest_first():
    batches = length_sorted_batches(LENGTHS, 16)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(LENGTHS)))
    assert max(len(b) for b in batches) == 16
    longest = [LENGTHS[b].max() for b in batches]
    assert longest == sorted(longest, reverse=True)  # largest tensors first


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
    texts = EncodedTexts.from_lists([[2, 3, 4], [5], [6, 7]])
    dataset = PairDataset(texts, np.array([0, 1, 0]), np.array([2, 0, 1]))
    X, y = dataset.__getitems__([1, 2])
    assert X["tokens"].tolist() == [[5, 0], [6, 7]]
    assert X["lengths"].tolist() == [1, 2]
    assert X["aspect"].tolist() == [1, 0] and y.tolist() == [0, 1]
