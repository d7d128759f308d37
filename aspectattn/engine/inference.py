"""Batched inference: one loop for every way of running a fitted module.

Pairs are put into batches of similar length (and pairs of one sentence next to each
other, so that the sentence is encoded once when the encoder does not see the
aspect); results are written back in input order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import torch

from ..exceptions import NonFiniteError
from ..text.tokens import EncodedTexts
from .batching import PairDataset, length_sorted_batches

__all__ = [
    "INFERENCE_BATCH",
    "batch_tokens",
    "batches",
    "pair_logits",
    "aspect_logits",
    "self_attention_maps",
]

# Pairs per inference batch: 128 measured faster than 64 or 256 on a 2-core CPU (the
# (B, K, T, D) attention tensor stays in cache).
INFERENCE_BATCH = 128


def batch_tokens(module) -> int | None:
    """The padded tokens an inference batch of ``module`` (a pair model, or a
    detector holding one) may hold: its encoder's ``batch_tokens``."""
    model = getattr(module, "model", module)
    return model.encoder.batch_tokens


def batches(
    dataset: PairDataset,
    device: str,
    batch_size: int = INFERENCE_BATCH,
    max_tokens: int | None = None,
) -> Iterator[tuple[np.ndarray, dict[str, torch.Tensor]]]:
    """``(index, module inputs on device)`` over the whole dataset, in
    length-sorted batches of at most ``batch_size`` pairs and ``max_tokens``
    padded tokens; ``index`` says which pairs a batch holds."""
    for index in length_sorted_batches(
        dataset.lengths, batch_size, dataset.sentence, max_tokens
    ):
        yield index, {k: v.to(device) for k, v in dataset.batch(index).items()}


def _collect(
    run: Callable,
    dataset: PairDataset,
    device: str,
    width: int,
    module,
    per_row=None,
    batch_size: int = INFERENCE_BATCH,
):
    """Run ``run(batch) -> (outputs (B, width), extra (B, ...) or None)`` on every
    batch of ``module``'s size (:func:`batch_tokens`); outputs in input order, and
    ``per_row(extra_row, i)`` for each pair when given."""
    out = np.empty((len(dataset), width), dtype=np.float32)
    rows = [None] * len(dataset) if per_row is not None else None
    with torch.inference_mode():
        for index, batch in batches(dataset, device, batch_size, batch_tokens(module)):
            result, extra = run(batch)
            out[index] = result.float().cpu().numpy()
            if per_row is not None:
                extra = extra.float().cpu().numpy()
                for row, i in enumerate(index):
                    rows[i] = per_row(extra[row], i)
    if not np.isfinite(out).all():  # argmax would pick classes_[0] for NaN
        raise NonFiniteError(
            "The model computed non-finite scores (NaN or infinity) for "
            f"{int((~np.isfinite(out)).any(axis=1).sum())} of {len(out)} inputs; "
            "it was trained with a rate too high to converge: refit it."
        )
    return out, rows


def pair_logits(
    module, dataset: PairDataset, device: str, n_classes: int, attention=False
):
    """Logits (P, C) of every pair, and with ``attention`` its weights over its own
    tokens (a list of (T_i,) or (heads, T_i) arrays)."""
    if not attention:
        return _collect(
            lambda b: (module(**b), None), dataset, device, n_classes, module
        )[0]

    def run(batch):
        return module(**batch, return_attention=True)

    return _collect(
        run,
        dataset,
        device,
        n_classes,
        module,
        per_row=lambda alpha, i: alpha[..., : dataset.lengths[i]],
    )


def self_attention_maps(module, dataset: PairDataset, device: str) -> list:
    """Per pair, (layers, heads, T_i, T_i) self-attention of the encoder."""

    def run(batch):
        maps = torch.stack(
            module.self_attention_maps(
                batch["tokens"], batch["lengths"], batch["aspect"], batch.get("span")
            ),
            1,
        )  # (B, layers, heads, T, T)
        return torch.zeros(len(maps), 1), maps

    def crop(maps, i):
        n = dataset.lengths[i]
        return maps[:, :, :n, :n]

    return _collect(run, dataset, device, 1, module, per_row=crop)[1]


def aspect_logits(
    module,
    sentences: EncodedTexts,
    aspects: torch.Tensor,
    device: str,
    n_classes: int,
    attention: bool = False,
    batch_size: int | None = None,
):
    """Logits (B, K, C) of every sentence on each of the K ``aspects`` (category ids
    (K,) or padded term ids (K, L)); one encoder pass per sentence where the encoder
    does not see the aspect.

    With ``attention``, also each sentence's (K, T_i) attention weights (the mean
    over heads), from the same pass: ``(logits, weights)``.
    """
    K = len(aspects)
    dataset = PairDataset(
        sentences, np.arange(len(sentences)), np.zeros(len(sentences), np.int64)
    )
    aspects = aspects.to(device)

    def run(batch):
        logits, alpha = module.forward_many(batch["tokens"], batch["lengths"], aspects)
        if attention and alpha is not None and alpha.dim() == 4:
            alpha = alpha.mean(2)  # (B, K, T): heads averaged
        return logits.reshape(len(logits), -1), alpha  # (B, K * C)

    if batch_size is None:  # about 2 * INFERENCE_BATCH (sentence, aspect) rows
        batch_size = max(1, 2 * INFERENCE_BATCH // K)
    per_row = (lambda a, i: a[:, : dataset.lengths[i]]) if attention else None
    out, rows = _collect(
        run,
        dataset,
        device,
        K * n_classes,
        module,
        per_row=per_row,
        batch_size=batch_size,
    )
    logits = out.reshape(len(sentences), K, n_classes)
    return (logits, rows) if attention else logits
