"""Tensor helpers shared by the torch modules: padding masks, term spans and
distances, means over spans and embeddings.

Shapes in comments: ``B`` sentences, ``P`` (sentence, aspect) pairs, ``T`` tokens,
``D`` state size, ``L`` tokens of an aspect term.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def in_bfloat16(fn, device_type: str, *args, **kwargs):
    """``fn(*args, **kwargs)`` under bfloat16 autocast on ``device_type``, with the
    floating tensors of its output (a tensor or a tuple of them) back in float32:
    mixed precision inside, float32 for whatever reads the output (the loss, the
    attention and classifier)."""
    with torch.autocast(device_type, dtype=torch.bfloat16):
        out = fn(*args, **kwargs)
    return _float32(out)


def _float32(out):
    if isinstance(out, tuple):
        return tuple(_float32(o) for o in out)
    if isinstance(out, torch.Tensor) and out.is_floating_point():
        return out.float()
    return out


def take_rows(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``x[index]`` for a (N,) long ``index`` into ``x``'s first dimension.

    Without a gradient to carry it is ``index_select`` (a row copy each, about
    twice as fast as indexing on CPU); with one it is indexing, whose backward
    sums the rows' gradients deterministically on CUDA too (``index_select``'s
    adds them with atomics there)."""
    if x.requires_grad and torch.is_grad_enabled():
        return x[index]
    return x.index_select(0, index)


def masked_mean_embedding(embedding: nn.Module, ids: torch.Tensor) -> torch.Tensor:
    """Mean of the embeddings of the non-padding ids of each row: (N, L) -> (N, E).

    How an aspect term (several words or sub-words) becomes one vector.
    """
    words = embedding(ids)  # (N, L, E)
    real = (ids != 0).to(words.dtype)[:, :, None]  # (N, L, 1)
    return (words * real).sum(1) / real.sum(1).clamp(min=1.0)  # (N, E)


def length_mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """(B,) lengths -> (B, T) bool mask, True on real tokens."""
    return torch.arange(width, device=lengths.device)[None, :] < lengths[:, None]


def span_mask(span: torch.Tensor, width: int) -> torch.Tensor:
    """(P, 2) token spans -> (P, T) bool, True on the term's tokens."""
    pos = torch.arange(width, device=span.device)[None, :]  # (1, T)
    return (pos >= span[:, :1]) & (pos < span[:, 1:])


def token_distances(span: torch.Tensor, width: int) -> torch.Tensor:
    """(P, 2) token spans -> (P, T) long: each token's distance in tokens from the
    term, 0 on the term's tokens."""
    pos = torch.arange(width, device=span.device)[None, :]  # (1, T)
    before = (span[:, :1] - pos).clamp(min=0)  # (P, T)
    after = (pos - (span[:, 1:] - 1)).clamp(min=0)  # (P, T)
    return before + after


def clip_spans(span: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """(P, 2) token spans, (P,) lengths -> (P, 2) spans inside the sentence.

    A term cut off by truncation (``max_len``) lies beyond its sentence's last
    token; it is read at that token, the nearest the model has.
    """
    n = lengths[:, None]  # (P, 1)
    start = torch.minimum(span[:, :1], n - 1)  # (P, 1)
    end = torch.maximum(torch.minimum(span[:, 1:], n), start + 1)  # (P, 1)
    return torch.cat([start, end], dim=1)


def span_mean(states: torch.Tensor, span: torch.Tensor, row: torch.Tensor):
    """The mean of each pair's states over its term.

    states (B, T, D), span (P, 2) token spans ``[start, end)``, row (P,) the
    ``states`` row of each pair -> (P, D). Two gathers from running sums: no
    (P, T, D) copy of the states.
    """
    running = F.pad(states.cumsum(1), (0, 0, 1, 0))  # (B, T+1, D), [:, t]: first t
    total = running[row, span[:, 1]] - running[row, span[:, 0]]  # (P, D)
    count = (span[:, 1:] - span[:, :1]).clamp(min=1).to(states.dtype)  # (P, 1)
    return total / count


def distance_weights(span: torch.Tensor, lengths: torch.Tensor, width: int):
    """Linear position weights ``w_i = 1 - d_i / n`` (Tang et al. 2016; Chen et al.
    2017): ``d_i`` is token ``i``'s distance from the term (0 on the term's tokens),
    ``n`` the sentence length; ``w_i`` lies in ``[1/n, 1]``.

    span (P, 2), lengths (P,) -> (P, T) float weights (meaningless on padding).
    """
    n = lengths[:, None]  # (P, 1)
    d = torch.minimum(token_distances(span, width), n - 1)  # (P, T)
    return 1.0 - d.float() / n.float()


def uses_position(config: dict) -> bool:
    """Whether a model of this configuration (keyword arguments of
    :class:`AspectAttentionModel`; missing keys take their defaults) reads the
    terms' token spans."""
    return (
        config.get("position_weighting", "none") != "none"
        or config.get("position_dropout", 0.0) > 0
        or bool(config.get("term_marker", False))
        or config.get("term_query", "vectors") != "vectors"
        or is_term_state(config.get("final_state", True))
    )


def is_term_state(final_state) -> bool:
    """Whether ``final_state`` is ``"term"`` (the term's summary in ``h*``)."""
    return isinstance(final_state, str) and final_state == "term"


def first_of_group(sentence: torch.Tensor) -> torch.Tensor:
    """(P,) group ids 0..B-1 -> (B,) index of the first row of each group."""
    n_groups = int(sentence.max()) + 1
    rows = torch.arange(len(sentence), device=sentence.device)
    first = torch.full((n_groups,), len(sentence), device=sentence.device)
    return first.scatter_reduce(0, sentence, rows, "amin")


#: Probabilities below this are raised to it in the KL divergence (log 0).
_DISTILL_FLOOR = 1e-8


def weighted_mean(losses, row_weight=None):
    """The mean of ``losses`` (N,), each row counted ``row_weight`` (N,) times
    (None: once each): a sample weight, as scikit-learn's estimators read it."""
    if row_weight is None:
        return losses.mean()
    return (losses * row_weight).sum() / row_weight.sum().clamp_min(_DISTILL_FLOOR)


def cross_entropy(logits, label, weight=None, row_weight=None):
    """:func:`torch.nn.functional.cross_entropy` of ``logits`` (N, C) and
    ``label`` (N,), its class ``weight`` (C,) weighing as it does (the
    weighted mean ``sum(w_y * CE) / sum(w_y)``), each row also counted
    ``row_weight`` (N,) times: ``sum(r * w_y * CE) / sum(r * w_y)``. Without
    ``row_weight``, torch's own."""
    if row_weight is None:
        return F.cross_entropy(logits, label, weight=weight)
    scale = row_weight if weight is None else row_weight * weight[label]  # (N,)
    return weighted_mean(F.cross_entropy(logits, label, reduction="none"), scale)


def distillation_loss(
    logits, label, soft, weight, distill_weight, temperature, row_weight=None
):
    """The mean over rows of ``(1 - w) * CE + w * T**2 * KL`` for a labelled row,
    ``T**2 * KL`` for a row labelled ``-1``: ``logits`` (N, C), ``label`` (N,),
    ``soft`` (N, C) the teacher's probabilities softened at ``T``; the
    cross-entropy weighted by ``weight`` (C,) as :func:`torch.nn.functional.
    cross_entropy` weighs it (its weighted mean over the labelled rows); each
    row counted ``row_weight`` (N,) times (None: once)."""
    T, w = temperature, distill_weight
    log_student = nn.functional.log_softmax(logits / T, dim=-1)  # (N, C)
    log_soft = torch.log(soft.clamp_min(_DISTILL_FLOOR))  # (N, C)
    kl = (soft * (log_soft - log_student)).sum(-1)  # (N,)
    labelled = label >= 0  # (N,)
    ce = nn.functional.cross_entropy(
        logits, label.clamp_min(0), weight=weight, reduction="none"
    )  # (N,)
    if weight is not None:  # as cross_entropy's mean: over the weights
        scale = weight[label.clamp_min(0)]
        if row_weight is None:
            ce = ce * labelled.sum() / scale[labelled].sum().clamp_min(_DISTILL_FLOOR)
        else:
            ce = ce * (
                row_weight[labelled].sum()
                / (row_weight * scale)[labelled].sum().clamp_min(_DISTILL_FLOOR)
            )
    mix = torch.where(labelled, (1 - w) * ce + w * T * T * kl, T * T * kl)
    return weighted_mean(mix, row_weight)
