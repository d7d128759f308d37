"""Sentence encoders behind one contract, in a registry.

Every encoder maps token ids to states::

    states, summary = encoder(tokens, lengths, aspect_input=None)
    # tokens (B, T) long, 0 = padding; lengths (B,) long >= 1
    # aspect_input (B, A) or None: a vector appended to every input token (AE/ATAE)
    # marker (B, T) or None (keyword, word encoders): 1 on the aspect term's tokens
    # states (B, T, D) -- meaningless at padding; summary (B, D) -- the sentence as one
    # vector (the LSTM's last state, the transformer's mean state, [CLS])

and exposes ``embedding`` (its token-embedding table, also used for aspect-term
vectors), ``output_size`` (``D``) and ``accepts_aspect_input``. Encoders with
self-attention also have ``self_attention_maps``.

Adding an encoder is one class here (or in its own module, loaded lazily) plus one
entry in :data:`ENCODERS` and one row of the estimator's parameter table
(:data:`aspectattn.estimator.ENCODER_PARAMS`).

Shapes in comments: ``B`` batch, ``T`` tokens (the batch's longest sentence), ``E``
word-vector size, ``A`` aspect-vector size, ``H`` LSTM hidden size, ``D`` encoder
output size.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "LSTMEncoder",
    "TransformerEncoder",
    "ENCODERS",
    "get_encoder",
    "length_mask",
    "masked_mean_embedding",
]


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


class _WordEncoder(nn.Module):
    """Word embeddings (id 0 is padding), the optional aspect vector appended to
    every word, and dropout: the input of the LSTM and transformer encoders."""

    accepts_aspect_input = True
    marker_size = 0  # modules pickled before the term marker existed

    @staticmethod
    def embedding_size(config: dict) -> int:
        """Size of the token embeddings an encoder built from ``config`` has."""
        return config["embedding_dim"]

    @staticmethod
    def make_embedding(config: dict) -> nn.Embedding:
        """The token-embedding table of ``config``, for the ``embedding=`` argument
        (the model creates it first, so seeded initialisation follows the order
        weights were always drawn in)."""
        return nn.Embedding(
            config["vocab_size"], config["embedding_dim"], padding_idx=0
        )

    def _init_words(
        self,
        vocab_size: int,
        embedding_dim: int,
        aspect_input_size: int,
        embedding_dropout: float,
        embedding: nn.Embedding | None,
        marker_size: int = 0,
    ) -> int:
        if embedding is None:
            embedding = self.make_embedding(
                {"vocab_size": vocab_size, "embedding_dim": embedding_dim}
            )
        self.embedding = embedding
        self.embedding_dropout = nn.Dropout(embedding_dropout)
        self.aspect_input_size = aspect_input_size
        self.marker_size = marker_size
        return embedding_dim + aspect_input_size + marker_size

    def _inputs(
        self,
        tokens: torch.Tensor,
        aspect_input: torch.Tensor | None,
        marker: torch.Tensor | None = None,
    ) -> torch.Tensor:
        x = self.embedding(tokens)  # (B, T, E)
        if self.aspect_input_size:
            if aspect_input is None:
                raise ValueError("this encoder was built to take an aspect input")
            x = torch.cat([x, aspect_input[:, None, :].expand(-1, x.shape[1], -1)], -1)
        x = self.embedding_dropout(x)  # (B, T, E [+ A])
        if self.marker_size:
            # The term indicator joins after dropout: a 0/1 flag is not noised.
            if marker is None:
                raise ValueError("this encoder was built to take a term marker")
            x = torch.cat([x, marker[:, :, None].to(x.dtype)], -1)  # (B, T, I)
        return x

    def self_attention_maps(self, tokens, lengths, aspect_input=None, marker=None):
        raise ValueError(
            f"self_attention needs encoder='transformer' or 'pretrained'; the "
            f"{type(self).__name__} has no self-attention (use explain for the "
            "aspect attention)."
        )


class LSTMEncoder(_WordEncoder):
    """Word embeddings into a (bi)LSTM over right-padded batches, exact without
    packing.

    The forward direction reads each sentence left to right; padding sits after the
    last real token, so it cannot change any real state. The backward direction
    reads every sentence reversed *within its own length* (padding stays at the end),
    so it is exact as well. This avoids ``pack_padded_sequence`` and its sorting
    overhead while keeping the fused LSTM kernels. The summary is the state after the
    last real token (for the backward direction, after the first).

    Parameters
    ----------
    vocab_size, embedding_dim : int
    aspect_input_size : int
        Size of the vector appended to every word (0: none).
    marker_size : int
        1: a 0/1 flag appended to every word, 1 on the aspect term's tokens
        (``marker=`` in :meth:`forward`); 0: none.
    hidden_size : int
    bidirectional : bool
    embedding_dropout : float
    embedding : nn.Embedding or None
        The token-embedding table, when made by the caller.
    """

    def __init__(
        self,
        *,
        vocab_size: int,
        embedding_dim: int,
        aspect_input_size: int = 0,
        hidden_size: int = 300,
        bidirectional: bool = False,
        embedding_dropout: float = 0.0,
        embedding: nn.Embedding | None = None,
        marker_size: int = 0,
    ):
        super().__init__()
        input_size = self._init_words(
            vocab_size,
            embedding_dim,
            aspect_input_size,
            embedding_dropout,
            embedding,
            marker_size,
        )
        self.bidirectional = bidirectional
        self.forward_lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        if bidirectional:
            self.backward_lstm = nn.LSTM(input_size, hidden_size, batch_first=True)
        self.output_size = hidden_size * (2 if bidirectional else 1)

    def term_summary(
        self, states: torch.Tensor, span: torch.Tensor, row: torch.Tensor
    ) -> torch.Tensor:
        """TD-LSTM's view of each pair's term (Tang et al., 2016), from the one pass.

        The forward state at the term's last token has read the sentence from its
        start through the term; the backward state at the term's first token, from
        its end back through the term.

        states (B, T, D), span (P, 2) token spans ``[start, end)``, row (P,) the
        ``states`` row of each pair -> (P, D)
        """
        at_end = states[row, span[:, 1] - 1]  # (P, D)
        if not self.bidirectional:
            return at_end
        at_start = states[row, span[:, 0]]  # (P, D)
        half = states.shape[-1] // 2
        return torch.cat([at_end[:, :half], at_start[:, half:]], dim=-1)

    @staticmethod
    def _reverse_index(lengths: torch.Tensor, width: int) -> torch.Tensor:
        # (B, T): position t -> L-1-t for real tokens, t for padding. An involution.
        pos = torch.arange(width, device=lengths.device)[None, :]  # (1, T)
        rev = lengths[:, None] - 1 - pos  # (B, T)
        return torch.where(rev >= 0, rev, pos)

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        aspect_input: torch.Tensor | None = None,
        marker: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """tokens (B, T), lengths (B,), aspect_input (B, A), marker (B, T) ->
        states (B, T, D), summary (B, D)."""
        x = self._inputs(tokens, aspect_input, marker)  # (B, T, I)
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


class TransformerEncoder(_WordEncoder):
    """Word embeddings into a stack of :class:`TransformerBlock`, with position
    encodings (sinusoidal, or learned up to ``max_len``), added to the projected and
    normalised word vectors (``position_merge="add"``) or concatenated to them
    (``"concat"``: ``x_i = [W emb(w_i); pos(i)]``, each half ``d_model / 2`` wide).

    The summary is the mean of the states over real tokens. Sentences are never
    longer than ``max_len`` tokens here: the estimator truncates them to
    ``max_len`` first, so learned positions always exist.
    """

    def __init__(
        self,
        *,
        vocab_size: int,
        embedding_dim: int,
        aspect_input_size: int = 0,
        embedding_dropout: float = 0.0,
        d_model: int = 128,
        n_layers: int = 2,
        n_heads: int = 4,
        ff_size: int = 512,
        dropout: float = 0.1,
        norm_first: bool = True,
        positional: str = "sinusoidal",
        position_merge: str = "add",
        max_len: int = 512,
        embedding: nn.Embedding | None = None,
        marker_size: int = 0,
    ):
        super().__init__()
        input_size = self._init_words(
            vocab_size,
            embedding_dim,
            aspect_input_size,
            embedding_dropout,
            embedding,
            marker_size,
        )
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        if position_merge not in ("add", "concat"):
            raise ValueError(
                f"position_merge must be 'add' or 'concat', got {position_merge!r}"
            )
        if position_merge == "concat" and d_model % 2:
            raise ValueError(f"position_merge='concat' needs an even d_model={d_model}")
        self.position_merge = position_merge
        d_pos = d_model if position_merge == "add" else d_model // 2
        d_word = d_model if position_merge == "add" else d_model - d_pos
        # Word vectors come at any scale (GloVe ~0.4, random 0.1): normalise them
        # before the unit-scale position encodings so neither swamps the other.
        self.input = nn.Sequential(
            nn.Identity() if input_size == d_word else nn.Linear(input_size, d_word),
            nn.LayerNorm(d_word),
        )
        self.max_len = max_len
        if positional == "sinusoidal":
            self.positions = SinusoidalPositions(d_pos, max_len)
        elif positional == "learned":
            self.position_table = nn.Embedding(max_len, d_pos)
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
        if width > self.max_len:
            raise ValueError(
                f"a sentence of {width} tokens is longer than the {self.max_len} "
                "learned positions; truncate it to max_len tokens"
            )
        return self.position_table(torch.arange(width, device=device))  # (T, d_pos)

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        aspect_input: torch.Tensor | None = None,
        marker: torch.Tensor | None = None,
        return_maps: bool = False,
    ):
        """tokens (B, T), lengths (B,), aspect_input (B, A), marker (B, T) ->
        states (B, T, d), summary (B, d) [, maps: list of (B, H, T, T) per layer]."""
        x = self._inputs(tokens, aspect_input, marker)  # (B, T, I)
        mask = length_mask(lengths, x.shape[1])  # (B, T)
        words, pos = self.input(x), self._position(x.shape[1], x.device)
        if self.position_merge == "add":
            h = words + pos  # (B, T, d)
        else:
            h = torch.cat([words, pos.expand(x.shape[0], -1, -1)], -1)  # (B, T, d)
        h = self.drop(h)
        maps = []
        for layer in self.layers:
            h, m = layer(h, mask, return_maps)
            maps.append(m)
        h = self.final_norm(h)
        real = mask[:, :, None].to(h.dtype)  # (B, T, 1)
        summary = (h * real).sum(1) / real.sum(1)  # (B, d)
        return (h, summary, maps) if return_maps else (h, summary)

    def self_attention_maps(self, tokens, lengths, aspect_input=None, marker=None):
        """Per layer, (B, heads, T, T): how token ``i`` attends to token ``j``."""
        return self.forward(tokens, lengths, aspect_input, marker, return_maps=True)[2]


def _pretrained_encoder():
    from .pretrained import PretrainedEncoder

    return PretrainedEncoder


#: Name -> encoder class (or a function returning it, for optional dependencies).
ENCODERS = {
    "lstm": LSTMEncoder,
    "transformer": TransformerEncoder,
    "pretrained": _pretrained_encoder,
}


def get_encoder(name: str) -> type[nn.Module]:
    """The encoder class registered as ``name``."""
    if name not in ENCODERS:
        raise ValueError(f"encoder must be one of {sorted(ENCODERS)}, got {name!r}")
    entry = ENCODERS[name]
    return entry if isinstance(entry, type) else entry()
