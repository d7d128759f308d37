"""PyTorch modules: LSTM encoder, aspect attention, and the Wang et al. (2016) models.

Shapes in comments: ``B`` batch, ``T`` tokens (the batch's longest sentence), ``E``
word-vector size, ``A`` aspect-vector size, ``H`` LSTM hidden size, ``D`` encoder output
size (``H``, or ``2H`` when bidirectional), ``K`` aspects scored per sentence, ``C``
classes, ``L`` tokens of an aspect term.

References
----------
Yequan Wang, Minlie Huang, Xiaoyan Zhu and Li Zhao. 2016. Attention-based LSTM for
Aspect-level Sentiment Classification. EMNLP, 606-615.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["LSTMEncoder", "AspectAttention", "AspectAttentionLSTM", "VARIANTS"]

VARIANTS = ("at", "ae", "atae")


def length_mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """(B,) lengths -> (B, T) bool mask, True on real tokens."""
    return torch.arange(width, device=lengths.device)[None, :] < lengths[:, None]


class LSTMEncoder(nn.Module):
    """A (bi)LSTM over right-padded batches, exact without packing.

    The forward direction reads each sentence left to right; padding sits after the
    last real token, so it cannot change any real state. The backward direction
    reads every sentence reversed *within its own length* (padding stays at the end),
    so it is exact as well. This avoids ``pack_padded_sequence`` and its sorting
    overhead while keeping the fused LSTM kernels.

    Parameters
    ----------
    input_size : int
    hidden_size : int
    bidirectional : bool
    """

    def __init__(self, input_size: int, hidden_size: int, bidirectional: bool = False):
        super().__init__()
        self.bidirectional = bidirectional
        self.forward_lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        if bidirectional:
            self.backward_lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        self.output_size = hidden_size * (2 if bidirectional else 1)

    @staticmethod
    def _reverse_index(lengths: torch.Tensor, width: int) -> torch.Tensor:
        # (B, T): position t -> L-1-t for real tokens, t for padding. An involution.
        pos = torch.arange(width, device=lengths.device)[None, :]  # (1, T)
        rev = lengths[:, None] - 1 - pos  # (B, T)
        return torch.where(rev >= 0, rev, pos)

    def forward(
        self, x: torch.Tensor, lengths: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Encode a batch.

        Parameters
        ----------
        x : (B, T, I) float tensor
        lengths : (B,) long tensor, each >= 1

        Returns
        -------
        states : (B, T, D) -- states at padding positions are meaningless.
        last : (B, D) -- the state after each sentence's last real token (for the
            backward direction, after its first token).
        """
        batch = torch.arange(x.shape[0], device=x.device)
        last_index = lengths - 1  # (B,)
        fwd, _ = self.forward_lstm(x)  # (B, T, H)
        if not self.bidirectional:
            return fwd, fwd[batch, last_index]
        rev = self._reverse_index(lengths, x.shape[1])  # (B, T)
        x_rev = x.gather(1, rev[:, :, None].expand_as(x))  # (B, T, I)
        bwd_rev, _ = self.backward_lstm(x_rev)  # (B, T, H), reversed order
        bwd = bwd_rev.gather(1, rev[:, :, None].expand_as(bwd_rev))  # (B, T, H)
        states = torch.cat([fwd, bwd], dim=-1)  # (B, T, 2H)
        last = torch.cat([fwd[batch, last_index], bwd_rev[batch, last_index]], dim=-1)
        return states, last


class AspectAttention(nn.Module):
    """Attention over encoder states with an aspect vector as the query.

    ``score="additive"`` (default)::

        M = tanh(W_h H + W_v v_a e_T^T),  alpha = softmax(w^T M)

    ``score="concat"`` -- the formula as printed in Wang et al. (2016, eq. 7-8)::

        M = tanh([W_h H; W_v v_a e_T^T]),  alpha = softmax(w^T M)

    With the concatenation, ``w^T M = w_h^T tanh(W_h h_t) + w_v^T tanh(W_v v_a)``: the
    aspect term is the same for every token and cancels in the softmax, so the
    weights do not depend on the aspect. (The authors' Theano code computes exactly
    this.) That is harmless in ATAE-LSTM, whose states already depend on the aspect,
    but it makes AT-LSTM blind to the aspect. The additive form lets the aspect
    interact with each state through the ``tanh``; it is the default.

    Padding positions get exactly zero weight; the weights of a sentence sum to 1.
    """

    def __init__(self, state_size: int, aspect_size: int, score: str = "additive"):
        super().__init__()
        if score not in ("additive", "concat"):
            raise ValueError(f"score must be 'additive' or 'concat', got {score!r}")
        self.score = score
        self.W_h = nn.Linear(state_size, state_size, bias=False)
        if score == "additive":
            self.W_v = nn.Linear(aspect_size, state_size, bias=False)
            self.w = nn.Linear(state_size, 1, bias=False)
        else:
            self.W_v = nn.Linear(aspect_size, aspect_size, bias=False)
            self.w = nn.Linear(state_size + aspect_size, 1, bias=False)

    def forward(
        self, states: torch.Tensor, mask: torch.Tensor, aspect: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Pool the states of each sentence for each of its aspects.

        Parameters
        ----------
        states : (B, T, D)
        mask : (B, T) bool, True on real tokens
        aspect : (B, K, A) -- K aspect vectors per sentence

        Returns
        -------
        pooled : (B, K, D) -- r = H alpha^T
        alpha : (B, K, T) -- zero on padding, rows sum to 1
        """
        keys = self.W_h(states)  # (B, T, D)
        query = self.W_v(aspect)  # (B, K, D) additive, (B, K, A) concat
        if self.score == "additive":
            m = torch.tanh(keys[:, None, :, :] + query[:, :, None, :])  # (B, K, T, D)
            scores = self.w(m).squeeze(-1)  # (B, K, T)
        else:
            d = keys.shape[-1]
            w_h, w_v = self.w.weight[0, :d], self.w.weight[0, d:]
            token_part = torch.tanh(keys) @ w_h  # (B, T)
            aspect_part = torch.tanh(query) @ w_v  # (B, K)
            scores = token_part[:, None, :] + aspect_part[:, :, None]  # (B, K, T)
        scores = scores.masked_fill(~mask[:, None, :], float("-inf"))
        alpha = torch.softmax(scores, dim=-1)  # (B, K, T)
        pooled = alpha @ states  # (B, K, D)
        return pooled, alpha


class AspectAttentionLSTM(nn.Module):
    """AT-LSTM, AE-LSTM and ATAE-LSTM of Wang et al. (2016).

    * ``"at"``: ``H = LSTM(x)``; attention pooling ``r`` with ``v_a`` as query;
      ``h* = tanh(W_p r + W_x h_N)``; ``y = softmax(W_s h* + b_s)``. The encoder does
      not see the aspect, so one encoder pass serves every aspect of a sentence
      (:meth:`forward_many`).
    * ``"ae"``: ``v_a`` appended to every input word; the last state ``h_N`` is
      classified.
    * ``"atae"``: both.

    Aspects are either *categories* (``aspect_type="category"``: a learnable vector per
    category, ``aspect`` holds category ids) or *terms* (``aspect_type="term"``: the
    mean of the term's word embeddings, through a linear map when ``aspect_size``
    differs from ``embedding_dim``; ``aspect`` holds the term's padded word ids).

    Parameters
    ----------
    vocab_size, embedding_dim : int
        Word embedding table shape; id 0 is padding.
    n_classes : int
    aspect_type : {"category", "term"}
    n_aspects : int
        Number of aspect categories (ignored for terms).
    aspect_size : int
        Size ``A`` of ``v_a``.
    hidden_size : int
    variant : {"at", "ae", "atae"}
    bidirectional : bool
    dropout : float
        Applied to the final representation (as in Wang et al.'s code).
    embedding_dropout : float
        Applied to the word embeddings.
    attention_score : {"additive", "concat"}
        See :class:`AspectAttention`.
    """

    def __init__(
        self,
        *,
        vocab_size: int,
        embedding_dim: int,
        n_classes: int,
        aspect_type: str = "category",
        n_aspects: int = 1,
        aspect_size: int = 100,
        hidden_size: int = 300,
        variant: str = "atae",
        bidirectional: bool = False,
        dropout: float = 0.5,
        embedding_dropout: float = 0.0,
        attention_score: str = "additive",
    ):
        super().__init__()
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        self.variant = variant
        self.aspect_type = aspect_type
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        if aspect_type == "category":
            self.aspect_embedding = nn.Embedding(n_aspects, aspect_size)
        elif aspect_type == "term":
            self.aspect_projection = (
                nn.Identity()
                if aspect_size == embedding_dim
                else nn.Linear(embedding_dim, aspect_size)
            )
        else:
            raise ValueError(
                f"aspect_type must be 'category' or 'term', got {aspect_type!r}"
            )
        self.uses_attention = variant in ("at", "atae")
        self.aspect_in_input = variant in ("ae", "atae")
        input_size = embedding_dim + (aspect_size if self.aspect_in_input else 0)
        self.encoder = LSTMEncoder(input_size, hidden_size, bidirectional)
        d = self.encoder.output_size
        if self.uses_attention:
            self.attention = AspectAttention(d, aspect_size, attention_score)
            self.W_p = nn.Linear(d, d, bias=False)
            self.W_x = nn.Linear(d, d, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.embedding_dropout = nn.Dropout(embedding_dropout)
        self.classifier = nn.Linear(d, n_classes)

    # -- pieces -----------------------------------------------------------------------
    def aspect_vectors(self, aspect: torch.Tensor) -> torch.Tensor:
        """Aspect ids (N,) or term word ids (N, L) -> aspect vectors (N, A)."""
        if self.aspect_type == "category":
            return self.aspect_embedding(aspect)
        words = self.embedding(aspect)  # (N, L, E)
        real = (aspect != 0).to(words.dtype)[:, :, None]  # (N, L, 1)
        mean = (words * real).sum(1) / real.sum(1).clamp(min=1.0)  # (N, E)
        return self.aspect_projection(mean)

    def _encode(
        self, tokens: torch.Tensor, lengths: torch.Tensor, v_a: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.embedding(tokens)  # (B, T, E)
        if self.aspect_in_input:
            x = torch.cat([x, v_a[:, None, :].expand(-1, x.shape[1], -1)], -1)
        return self.encoder(self.embedding_dropout(x), lengths)  # (B, T, D), (B, D)

    def _head(self, states, last, mask, v_a):
        # states (B, T, D), last (B, D), mask (B, T), v_a (B, K, A)
        # -> logits (B, K, C), alpha (B, K, T) or None
        if not self.uses_attention:
            h = last[:, None, :].expand(-1, v_a.shape[1], -1)  # (B, K, D)
            return self.classifier(self.dropout(h)), None
        r, alpha = self.attention(states, mask, v_a)  # (B, K, D), (B, K, T)
        h_star = torch.tanh(self.W_p(r) + self.W_x(last)[:, None, :])  # (B, K, D)
        return self.classifier(self.dropout(h_star)), alpha

    # -- entry points -----------------------------------------------------------------
    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        aspect: torch.Tensor,
        return_attention: bool = False,
    ):
        """Score one aspect per sentence.

        Parameters
        ----------
        tokens : (B, T) long -- word ids, 0 is padding
        lengths : (B,) long -- real tokens per sentence, >= 1
        aspect : (B,) long category ids, or (B, L) long term word ids
        return_attention : bool

        Returns
        -------
        logits : (B, C)
        alpha : (B, T), only if ``return_attention`` (zeros for the AE variant)
        """
        v_a = self.aspect_vectors(aspect)  # (B, A)
        states, last = self._encode(tokens, lengths, v_a)
        mask = length_mask(lengths, tokens.shape[1])  # (B, T)
        logits, alpha = self._head(states, last, mask, v_a[:, None, :])
        logits = logits[:, 0]  # (B, C)
        if not return_attention:
            return logits
        if alpha is None:
            alpha = torch.zeros(tokens.shape, dtype=logits.dtype, device=tokens.device)
        else:
            alpha = alpha[:, 0]
        return logits, alpha

    def forward_many(
        self, tokens: torch.Tensor, lengths: torch.Tensor, aspects: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Score every sentence on each of K aspects.

        For the AT variant the encoder runs once per sentence; AE and ATAE feed the
        aspect into the encoder, so each (sentence, aspect) pair is encoded.

        Parameters
        ----------
        tokens : (B, T) long
        lengths : (B,) long
        aspects : (K,) long category ids, or (K, L) long term word ids

        Returns
        -------
        logits : (B, K, C)
        alpha : (B, K, T), or None for the AE variant
        """
        v = self.aspect_vectors(aspects)  # (K, A)
        B, K = tokens.shape[0], v.shape[0]
        mask = length_mask(lengths, tokens.shape[1])  # (B, T)
        if not self.aspect_in_input:
            states, last = self._encode(tokens, lengths, None)  # once per sentence
            return self._head(states, last, mask, v[None].expand(B, -1, -1))
        # Encode each (sentence, aspect) pair: repeat sentences K times.
        tokens_k = tokens.repeat_interleave(K, 0)  # (B*K, T)
        lengths_k = lengths.repeat_interleave(K, 0)  # (B*K,)
        v_k = v.repeat(B, 1)  # (B*K, A)
        states, last = self._encode(tokens_k, lengths_k, v_k)
        logits, alpha = self._head(
            states, last, mask.repeat_interleave(K, 0), v_k[:, None, :]
        )
        logits = logits.reshape(B, K, -1)
        alpha = None if alpha is None else alpha.reshape(B, K, -1)
        return logits, alpha
