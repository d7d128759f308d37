"""The detector's torch side: every sentence on every category in one pass, and
the multi-output loss with CAN's attention regularisers (Hu et al., 2019)."""

from __future__ import annotations

import torch
from torch import nn

from .model import AspectAttentionModel
from .ops import cross_entropy, distillation_loss

__all__ = ["CategoryModel", "MultiOutputLoss"]


class CategoryModel(nn.Module):
    """Every sentence on every category: (tokens, lengths) -> (logits (B, K, C),
    attention (B, K, T) or (B, K, heads, T)).

    Wraps an AT :class:`~aspectattn.nn.model.AspectAttentionModel` whose aspect
    vectors are the K category queries. The attention is returned beside the
    logits (skorch hands both to the net's ``get_loss``, where
    :class:`MultiOutputLoss` adds its regularisers): nothing is kept between
    calls.
    """

    def __init__(self, **config):
        super().__init__()
        self.model = AspectAttentionModel(**config)
        self.register_buffer(
            "categories", torch.arange(config["n_aspects"]), persistent=False
        )

    @property
    def embedding(self) -> nn.Embedding:
        return self.model.embedding

    @property
    def encoder(self) -> nn.Module:
        return self.model.encoder

    def forward(self, tokens, lengths, aspect=None, sentence=None):
        """``(logits, alpha)``; ``aspect`` and ``sentence`` (of the batch) are
        unused."""
        return self.model.forward_many(tokens, lengths, self.categories)


class MultiOutputLoss(nn.Module):
    """Cross-entropy over every (sentence, category) cell, plus CAN's attention
    regularisers over the categories a sentence mentions.

    * sparse: ``sparse_penalty * mean_k (1 - sum_t alpha_kt^2)`` -- each mentioned
      category attends to few words;
    * orthogonal: ``orthogonal_penalty * ||A A^T - I||_F^2`` over the attention rows
      ``A`` of the mentioned categories -- different categories attend to
      different words.

    ``forward((logits, alpha), target)``: the net's ``get_loss`` passes the
    module's two outputs as they are. ``target``: class indices (B, K), or a
    dict of them (``"label"``) with a teacher's probabilities (``"teacher"``
    (B, K, C): the cross-entropy then mixed with them as
    :func:`~aspectattn.nn.ops.distillation_loss` mixes them,
    ``distill_weight``, ``temperature``; a sentence labelled ``-1`` learns from
    the teacher alone; without a teacher a cell labelled ``-1``, which nobody
    labelled, is left out) and/or each sentence's weight (``"weight"`` (B,): every
    cell of a sentence counted that many times).

    Parameters
    ----------
    none_index : int
        The class index of "not mentioned".
    weight : tensor of shape (C,) or None
    """

    def __init__(
        self,
        none_index: int,
        weight=None,
        sparse_penalty: float = 0.0,
        orthogonal_penalty: float = 0.0,
        distill_weight: float = 0.5,
        temperature: float = 2.0,
    ):
        super().__init__()
        self.none_index = none_index
        self.weight = weight
        self.sparse_penalty = sparse_penalty
        self.orthogonal_penalty = orthogonal_penalty
        self.distill_weight = distill_weight
        self.temperature = temperature

    def forward(self, output, target) -> torch.Tensor:
        logits, alpha = output  # (B, K, C), (B, K, T) or (B, K, heads, T)
        C = logits.shape[-1]
        weight = None if self.weight is None else self.weight.to(logits.device)
        soft = rows = None
        if isinstance(target, dict):  # a teacher's probabilities, weights
            soft, rows = target.get("teacher"), target.get("weight")  # (B,K,C), (B,)
            target = target["label"]  # (B, K)
        if rows is not None:  # each sentence's weight on each of its cells
            rows = rows[:, None].expand(target.shape).reshape(-1)  # (B*K,)
        cells, labels = logits.reshape(-1, C), target.reshape(-1)  # (B*K, C), (B*K,)
        if soft is None:
            known = labels >= 0  # (B*K,): a cell nobody labelled is -1
            if not known.all():  # left out of the loss
                mask = known.to(cells.dtype)
                rows = mask if rows is None else rows * mask
            loss = cross_entropy(cells, labels.clamp_min(0), weight, rows)
        else:
            loss = distillation_loss(
                cells,
                labels,
                soft.reshape(-1, C),
                weight,
                self.distill_weight,
                self.temperature,
                rows,
            )
        if not (self.sparse_penalty or self.orthogonal_penalty):
            return loss
        if alpha.dim() == 4:  # heads: regularise their mean
            alpha = alpha.mean(2)
        # (a sentence with no labels, -1, mentions nothing the loss can know)
        mentioned = ((target != self.none_index) & (target >= 0)).to(alpha.dtype)
        n = mentioned.sum().clamp(min=1.0)
        if self.sparse_penalty:
            sparse = ((1 - (alpha**2).sum(-1)) * mentioned).sum() / n
            loss = loss + self.sparse_penalty * sparse
        if self.orthogonal_penalty:
            rows = alpha * mentioned[:, :, None]  # (B, K, T), unmentioned rows 0
            gram = rows @ rows.transpose(1, 2)  # (B, K, K)
            eye = torch.diag_embed(mentioned)  # I on the mentioned categories
            ortho = ((gram - eye) ** 2).sum() / n
            loss = loss + self.orthogonal_penalty * ortho
        return loss
