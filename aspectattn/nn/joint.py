"""The joint aspect-sentiment model: one encoder pass over a sentence gives its
aspect terms (a tag per token) and each term's polarity (the design's aspect
attention, the term as its query, over the same states).

Shapes: ``B`` sentences, ``T`` tokens (the batch's longest), ``D`` state size,
``K`` tags, ``P`` terms (of any sentence of the batch), ``C`` polarities.
"""

from __future__ import annotations

import torch
from torch import nn

from .attention import AdditiveAttention
from .ops import length_mask, span_mean, take_rows, token_distances

__all__ = ["TermPolarity", "JointTagger", "MAX_DISTANCE"]

#: Distances (in tokens) from a term with a bias of their own; farther tokens
#: share the last one's.
MAX_DISTANCE = 16


class TermPolarity(nn.Module):
    """Each term's polarity from its sentence's states.

    The term -- the mean of its tokens' states -- is the query ``v_a`` of the
    additive aspect attention (:class:`~aspectattn.nn.attention.AdditiveAttention`)
    over its sentence's states, with a learned bias for each token's distance from
    the term (a prior that an opinion sits near its target, which the attention
    overrides where the words say otherwise); the pooled states and the term go
    through ``h* = tanh(W_p r + W_x q)`` (Wang et al., 2016) to the polarity
    scores.

    Parameters
    ----------
    state_size : int
    n_classes : int
    dropout : float
        On ``h*``.
    """

    def __init__(self, state_size: int, n_classes: int, dropout: float):
        super().__init__()
        self.attention = AdditiveAttention(state_size, state_size)
        self.distance = nn.Embedding(MAX_DISTANCE + 1, 1)
        nn.init.zeros_(self.distance.weight)
        self.W_p = nn.Linear(state_size, state_size, bias=False)
        self.W_x = nn.Linear(state_size, state_size)
        self.dropout = nn.Dropout(dropout)
        self.classes = nn.Linear(state_size, n_classes)

    def forward(
        self, states: torch.Tensor, lengths: torch.Tensor, terms: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """states (B, T, D), lengths (B,), terms (P, 3): each term's sentence
        (its row in ``states``) and its first and last token -> polarity logits
        (P, C) and the attention weights (P, T)."""
        # only the S sentences that hold a term are read (a batch's others need
        # no keys): row is each term's among them
        sentences, row = torch.unique(terms[:, 0], return_inverse=True)  # (S,), (P,)
        states, lengths = take_rows(states, sentences), lengths[sentences]  # (S, T, D)
        span = terms[:, 1:].clone()  # (P, 2)
        span[:, 1] += 1  # [first, last] -> [start, end)
        width = states.shape[1]
        query = span_mean(states, span, row)  # (P, D)
        distance = token_distances(span, width).clamp(max=MAX_DISTANCE)  # (P, T)
        bias = self.distance(distance)[..., 0]  # (P, T)
        mask = length_mask(lengths, width)  # (S, T)
        pooled, alpha = self.attention(
            states, mask, query[:, None, :], sentence=row, bias=bias[:, None, :]
        )  # (P, 1, D), (P, 1, T)
        h = torch.tanh(self.W_p(pooled[:, 0]) + self.W_x(query))  # (P, D)
        return self.classes(self.dropout(h)), alpha[:, 0]  # (P, C), (P, T)


class JointTagger(nn.Module):
    """A tagger (:class:`~aspectattn.nn.tagger.TermTagger` or
    :class:`~aspectattn.nn.tagger.PretrainedTagger`) whose states also give each
    term's polarity (:class:`TermPolarity`).

    Parameters
    ----------
    tagger : nn.Module
        Has ``states(tokens, lengths, chars, char_index)``, ``tag_logits``,
        ``dropout`` and ``output_size``.
    n_classes : int
    dropout : float
        On the polarity head's ``h*``.
    """

    def __init__(self, *, tagger: nn.Module, n_classes: int, dropout: float):
        super().__init__()
        self.tagger = tagger
        self.polarity = TermPolarity(tagger.output_size, n_classes, dropout)

    @property
    def embedding(self) -> nn.Embedding:
        return self.tagger.embedding

    @property
    def encoder(self) -> nn.Module:
        return self.tagger.encoder

    @property
    def batch_tokens(self) -> int | None:
        """Padded tokens per prediction batch, at most: the tagger's."""
        return self.tagger.batch_tokens

    @property
    def transitions(self) -> nn.Module | None:
        """The tagger's learned tag transitions, if it has them."""
        return self.tagger.transitions

    def states(self, tokens, lengths, chars, char_index) -> torch.Tensor:
        """The tagger's states (B, T, D)."""
        return self.tagger.states(tokens, lengths, chars, char_index)

    def tag_logits(self, states: torch.Tensor) -> torch.Tensor:
        """states (B, T, D) -> tag logits (B, T, K)."""
        return self.tagger.tag_logits(states)

    def polarity_logits(self, states, lengths, terms) -> torch.Tensor:
        """states (B, T, D), lengths (B,), terms (P, 3) -> logits (P, C)."""
        return self.polarity(self.tagger.dropout(states), lengths, terms)[0]

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        chars: torch.Tensor,
        char_index: torch.Tensor,
        terms: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """tokens (B, T), lengths (B,), chars (U, W), char_index (B, T), terms
        (P, 3) -> tag logits (B, T, K) and the terms' polarity logits (P, C)."""
        states = self.states(tokens, lengths, chars, char_index)  # (B, T, D)
        return self.tag_logits(states), self.polarity_logits(states, lengths, terms)
