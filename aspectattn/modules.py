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

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "LSTMEncoder",
    "TransformerEncoder",
    "AspectAttention",
    "AspectAttentionModel",
    "VARIANTS",
    "ENCODERS",
]

VARIANTS = ("at", "ae", "atae")
ENCODERS = ("lstm", "transformer")


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
        # nn.LSTM returns a (B, T, H) view of time-major memory; made contiguous once
        # here, so that every later matmul over the states folds into a single GEMM.
        fwd = self.forward_lstm(x)[0].contiguous()  # (B, T, H)
        if not self.bidirectional:
            return fwd, fwd[batch, last_index]
        rev = self._reverse_index(lengths, x.shape[1])  # (B, T)
        x_rev = x.gather(1, rev[:, :, None].expand_as(x))  # (B, T, I)
        bwd_rev, _ = self.backward_lstm(x_rev)  # (B, T, H), reversed order
        bwd = bwd_rev.gather(1, rev[:, :, None].expand_as(bwd_rev))  # (B, T, H)
        states = torch.cat([fwd, bwd], dim=-1)  # (B, T, 2H)
        last = torch.cat([fwd[batch, last_index], bwd_rev[batch, last_index]], dim=-1)
        return states, last


class SinusoidalPositions(nn.Module):
    """Fixed sinusoidal position encodings of Vaswani et al. (2017).

    Computed on the fly (a few sin/cos per batch), so they hold no state: nothing to
    save, and nothing to rebuild when a model is loaded.
    """

    def __init__(self, d_model: int, max_len: int):
        super().__init__()
        self.d_model, self.max_len = d_model, max_len

    def forward(self, width: int, device=None) -> torch.Tensor:
        position = torch.arange(width, dtype=torch.float32, device=device)[:, None]
        rate = torch.exp(
            torch.arange(0, self.d_model, 2, dtype=torch.float32, device=device)
            * (-math.log(10000.0) / self.d_model)
        )  # (d/2,)
        table = torch.zeros(width, self.d_model, device=device)  # (T, d)
        table[:, 0::2] = torch.sin(position * rate)
        table[:, 1::2] = torch.cos(position * rate[: self.d_model // 2])
        return table


class MultiHeadSelfAttention(nn.Module):
    """``softmax(Q K^T / sqrt(d_k)) V`` over real tokens only, in several heads.

    Uses PyTorch's fused ``scaled_dot_product_attention``; when the attention maps
    are requested, an explicit masked softmax computes the same thing and returns
    them. Padding keys get exactly zero weight in both paths.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.dropout = dropout

    def forward(self, x: torch.Tensor, mask: torch.Tensor, return_maps: bool = False):
        # x (B, T, d), mask (B, T) True on real tokens
        B, T, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (
            t.view(B, T, self.n_heads, self.d_head).transpose(1, 2) for t in (q, k, v)
        )  # (B, H, T, d_head)
        key_mask = mask[:, None, None, :]  # (B, 1, 1, T)
        p = self.dropout if self.training else 0.0
        if not return_maps:
            y = F.scaled_dot_product_attention(
                q, k, v, attn_mask=key_mask, dropout_p=p
            )  # (B, H, T, d_head)
            maps = None
        else:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)  # (B,H,T,T)
            maps = torch.softmax(scores.masked_fill(~key_mask, float("-inf")), -1)
            y = F.dropout(maps, p, self.training) @ v  # (B, H, T, d_head)
        y = y.transpose(1, 2).reshape(B, T, d)  # (B, T, d)
        return self.out(y), maps


class TransformerBlock(nn.Module):
    """Self-attention and a position-wise feed-forward network, each with a residual
    connection and LayerNorm (before the sublayer if ``norm_first``, else after)."""

    def __init__(
        self, d_model: int, n_heads: int, ff_size: int, dropout: float, norm_first: bool
    ):
        super().__init__()
        self.norm_first = norm_first
        self.attention = MultiHeadSelfAttention(d_model, n_heads, dropout)
        self.feed_forward = nn.Sequential(
            nn.Linear(d_model, ff_size),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(ff_size, d_model),
        )
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask, return_maps=False):
        if self.norm_first:
            a, maps = self.attention(self.norm1(x), mask, return_maps)
            x = x + self.drop(a)
            x = x + self.drop(self.feed_forward(self.norm2(x)))
        else:
            a, maps = self.attention(x, mask, return_maps)
            x = self.norm1(x + self.drop(a))
            x = self.norm2(x + self.drop(self.feed_forward(x)))
        return x, maps


class TransformerEncoder(nn.Module):
    """A stack of :class:`TransformerBlock` over projected, normalised word vectors
    plus position encodings (sinusoidal, or learned up to ``max_len``).

    ``forward`` returns the states and, in place of an LSTM's last state, the mean of
    the states over real tokens.
    """

    def __init__(
        self,
        input_size: int,
        d_model: int,
        n_layers: int,
        n_heads: int,
        ff_size: int,
        dropout: float,
        norm_first: bool,
        positional: str,
        max_len: int,
    ):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        # Word vectors come at any scale (GloVe ~0.4, random 0.1): normalise them
        # before adding the unit-scale position encodings so neither swamps the other.
        self.input = nn.Sequential(
            nn.Identity() if input_size == d_model else nn.Linear(input_size, d_model),
            nn.LayerNorm(d_model),
        )
        if positional == "sinusoidal":
            self.positions = SinusoidalPositions(d_model, max_len)
        elif positional == "learned":
            self.position_table = nn.Embedding(max_len, d_model)
            self.positions = None
        else:
            raise ValueError(
                f"positional must be 'sinusoidal' or 'learned', got {positional!r}"
            )
        self.layers = nn.ModuleList(
            TransformerBlock(d_model, n_heads, ff_size, dropout, norm_first)
            for _ in range(n_layers)
        )
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.drop = nn.Dropout(dropout)
        self.output_size = d_model

    def _position(self, width: int, device) -> torch.Tensor:
        if self.positions is not None:
            return self.positions(width, device)
        return self.position_table(torch.arange(width, device=device))  # (T, d)

    def forward(
        self, x: torch.Tensor, lengths: torch.Tensor, return_maps: bool = False
    ):
        """x (B, T, I), lengths (B,) -> states (B, T, d), summary (B, d)
        [, maps: list of (B, H, T, T) per layer]."""
        mask = length_mask(lengths, x.shape[1])  # (B, T)
        h = self.drop(self.input(x) + self._position(x.shape[1], x.device))
        maps = []
        for layer in self.layers:
            h, m = layer(h, mask, return_maps)
            maps.append(m)
        h = self.final_norm(h)
        real = mask[:, :, None].to(h.dtype)  # (B, T, 1)
        summary = (h * real).sum(1) / real.sum(1)  # (B, d)
        return (h, summary, maps) if return_maps else (h, summary)


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
        aspect : (B, K, A) -- K aspect vectors per sentence ((1, K, A): the same
            K for every sentence)

        Returns
        -------
        pooled : (B, K, D) -- r = H alpha^T
        alpha : (B, K, T) -- zero on padding, rows sum to 1
        """
        if self.score == "additive":
            # w^T tanh(z) computed as 2 w^T sigmoid(2z) - sum(w): the same function,
            # but the (B, K, T, D) tensor -- the largest of the model, K times the
            # states -- goes through sigmoid, which torch runs ~9x faster than tanh
            # on CPU, in place (autograd-safe: the addition's output is not saved). The
            # factor 2 is folded into the (D, D) weights, not applied to the states.
            keys2 = F.linear(states, 2 * self.W_h.weight)  # (B, T, D) = 2 W_h H
            query2 = F.linear(aspect, 2 * self.W_v.weight)  # (B, K, D) = 2 W_v v_a
            m = keys2[:, None, :, :] + query2[:, :, None, :]  # (B, K, T, D)
            w = self.w.weight[0]  # (D,)
            scores = 2 * (m.sigmoid_() @ w) - w.sum()  # (B, K, T)
        else:
            keys = self.W_h(states)  # (B, T, D)
            query = self.W_v(aspect)  # (B, K, A)
            d = keys.shape[-1]
            w_h, w_v = self.w.weight[0, :d], self.w.weight[0, d:]
            token_part = torch.tanh(keys) @ w_h  # (B, T)
            aspect_part = torch.tanh(query) @ w_v  # (B, K)
            scores = token_part[:, None, :] + aspect_part[:, :, None]  # (B, K, T)
        scores = scores.masked_fill(~mask[:, None, :], float("-inf"))
        alpha = torch.softmax(scores, dim=-1)  # (B, K, T)
        pooled = alpha @ states  # (B, K, D)
        return pooled, alpha


def aspect_head(model: nn.Module, states, last, mask, v_a):
    """The classifier on top of any encoder (shared by every model).

    ``h* = tanh(W_p r + W_x h_N)`` with ``r`` the aspect-attention pooling of the
    states, then ``W_s h* + b_s``; without attention (AE), ``h_N`` is classified.

    states (B, T, D), last (B, D), mask (B, T), v_a (B, K, A)
    -> logits (B, K, C), alpha (B, K, T) or None
    """
    if not model.uses_attention:
        h = last[:, None, :].expand(-1, v_a.shape[1], -1)  # (B, K, D)
        return model.classifier(model.dropout(h)), None
    r, alpha = model.attention(states, mask, v_a)  # (B, K, D), (B, K, T)
    h_star = torch.tanh(model.W_p(r) + model.W_x(last)[:, None, :])  # (B, K, D)
    return model.classifier(model.dropout(h_star)), alpha


class AspectAttentionModel(nn.Module):
    """AT-, AE- and ATAE- models of Wang et al. (2016), over an LSTM or a transformer.

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
    encoder : {"lstm", "transformer"}
        With ``"transformer"``, :class:`TransformerEncoder` replaces the LSTM
        (``hidden_size`` and ``bidirectional`` are then unused), and the mean of its
        states plays the role of the LSTM's last state ``h_N``.
    n_layers, n_heads, d_model, ff_size, norm_first, positional, max_len
        Transformer shape; see :class:`TransformerEncoder`.
    transformer_dropout : float
        Dropout inside the transformer (attention, feed-forward, residuals).
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
        encoder: str = "lstm",
        n_layers: int = 2,
        n_heads: int = 4,
        d_model: int = 128,
        ff_size: int = 256,
        norm_first: bool = True,
        positional: str = "sinusoidal",
        max_len: int = 512,
        transformer_dropout: float = 0.1,
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
        if encoder == "lstm":
            self.encoder = LSTMEncoder(input_size, hidden_size, bidirectional)
        elif encoder == "transformer":
            self.encoder = TransformerEncoder(
                input_size,
                d_model,
                n_layers,
                n_heads,
                ff_size,
                transformer_dropout,
                norm_first,
                positional,
                max_len,
            )
        else:
            raise ValueError(f"encoder must be one of {ENCODERS}, got {encoder!r}")
        self.encoder_kind = encoder
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
        return self.aspect_projection(masked_mean_embedding(self.embedding, aspect))

    def _inputs(self, tokens: torch.Tensor, v_a: torch.Tensor | None) -> torch.Tensor:
        x = self.embedding(tokens)  # (B, T, E)
        if self.aspect_in_input:
            x = torch.cat([x, v_a[:, None, :].expand(-1, x.shape[1], -1)], -1)
        return self.embedding_dropout(x)  # (B, T, E [+ A])

    def _encode(
        self, tokens: torch.Tensor, lengths: torch.Tensor, v_a: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return self.encoder(self._inputs(tokens, v_a), lengths)  # (B, T, D), (B, D)

    def self_attention_maps(
        self, tokens: torch.Tensor, lengths: torch.Tensor, aspect: torch.Tensor
    ) -> list[torch.Tensor]:
        """Self-attention weights of every transformer layer.

        Returns
        -------
        list of (B, H, T, T) tensors, one per layer: row ``i`` of head ``h`` is how
        token ``i`` attends to every token; padding columns are exactly zero.
        """
        if self.encoder_kind != "transformer":
            raise ValueError(
                "self-attention maps exist only with encoder='transformer'"
            )
        v_a = self.aspect_vectors(aspect)
        _, _, maps = self.encoder(self._inputs(tokens, v_a), lengths, return_maps=True)
        return maps

    def _head(self, states, last, mask, v_a):
        return aspect_head(self, states, last, mask, v_a)

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
            # (1, K, A): the aspect projections are computed once, then broadcast.
            return self._head(states, last, mask, v[None])
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
