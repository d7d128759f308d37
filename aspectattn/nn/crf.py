"""A linear-chain CRF over a tagger's tag scores (Lample et al., 2016): a
learned score for each tag starting a sentence and for each pair of
neighbouring tags, so that a sentence's tags are learned and read as one
sequence. The constraint the tags' Viterbi reading keeps holds here too: no
term starts with an I (no I first, none after an O).

Shapes: ``B`` sentences, ``T`` tokens (the batch's longest), ``K`` tags.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["TagTransitions", "BANNED"]

#: The score of a banned step (finite, so that a sequence that holds one still
#: has a finite loss).
BANNED = -1e4


class TagTransitions(nn.Module):
    """Learned tag-transition scores, and the sequence loss they give.

    The tags are :data:`~aspectattn.extraction.words.TAGS`' three, in their
    order: ``O, B, I``.
    """

    def __init__(self):
        super().__init__()
        self.start = nn.Parameter(torch.zeros(3))  # (K,)
        self.pairs = nn.Parameter(torch.zeros(3, 3))  # (K, K): from, to

    def scores(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The start scores (K,) and the pair scores (K, K) (row: the previous
        tag), the banned steps' (an I first, an I after an O) :data:`BANNED`."""
        banned_start = self.start.new_tensor([0.0, 0.0, BANNED])
        banned_pairs = self.pairs.new_tensor(
            [[0.0, 0.0, BANNED], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        )
        return self.start + banned_start, self.pairs + banned_pairs

    def nll(self, emissions: torch.Tensor, tags: torch.Tensor, ignore: int):
        """Each sentence's negative log-likelihood of its tags.

        Parameters
        ----------
        emissions : Tensor of shape (B, T, K)
            The tagger's scores of each token's tags.
        tags : Tensor of shape (B, T) long
            The tags; ``ignore`` where a token is not tagged (padding, a
            special token or a sub-word after a word's first): the sequence is
            the tagged tokens in order.
        ignore : int

        Returns
        -------
        Tensor of shape (B,)
            0 for a sentence without a tagged token.
        """
        start, pairs = self.scores()  # (K,), (K, K)
        tagged = tags != ignore  # (B, T)
        # each sentence's tagged tokens moved to its front, in order (indexing,
        # not gather: its backward is deterministic on CUDA too)
        order = torch.argsort((~tagged).to(torch.int8), dim=1, stable=True)  # (B, T)
        rows = torch.arange(len(tags), device=tags.device)[:, None]  # (B, 1)
        emissions = emissions.float()[rows, order]  # (B, T, K)
        tags = tags[rows, order].clamp(min=0)  # (B, T)
        lengths = tagged.sum(1)  # (B,)
        positions = torch.arange(tags.shape[1], device=tags.device)  # (T,)
        real = positions < lengths[:, None]  # (B, T)
        # the gold sequence's score
        own = emissions[rows, positions, tags]  # (B, T)
        steps = pairs[tags[:, :-1], tags[:, 1:]]  # (B, T - 1)
        gold = (
            start[tags[:, 0]] + (own * real).sum(1) + (steps * real[:, 1:]).sum(1)
        )  # (B,)
        # every sequence's (the forward algorithm, one step per token position)
        alpha = start + emissions[:, 0]  # (B, K)
        for t in range(1, tags.shape[1]):
            step = torch.logsumexp(alpha[:, :, None] + pairs, dim=1) + emissions[:, t]
            alpha = torch.where(real[:, t, None], step, alpha)  # (B, K)
        every = torch.logsumexp(alpha, dim=1)  # (B,)
        return (every - gold) * (lengths > 0)
