"""The transformer encoder: multi-head self-attention (fused
``scaled_dot_product_attention``), position encodings, residual connections and
LayerNorm, nanoGPT-style."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ...encoders import TransformerEncoder as _Component
from ...params.components import value_constraints
from ..ops import length_mask
from .base import WORD_SCHEMA, _WordEncoder


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

    config_schema = {
        **WORD_SCHEMA,
        **{
            name: value_constraints(_Component._parameter_constraints[name])
            for name in (
                "d_model",
                "n_layers",
                "n_heads",
                "ff_size",
                "norm_first",
                "positional",
                "position_merge",
                "max_len",
                "dropout",
            )
        },
    }

    @staticmethod
    def config_from(settings) -> dict:
        """This encoder's keyword arguments from its resolved settings (the
        :class:`~aspectattn.encoders.TransformerEncoder` component), besides the
        vocabulary and word-vector sizes."""
        return dict(
            d_model=settings.d_model,
            n_layers=settings.n_layers,
            n_heads=settings.n_heads,
            ff_size=settings.ff_size or 4 * settings.d_model,
            dropout=settings.dropout,
            norm_first=settings.norm_first,
            positional=settings.positional,
            position_merge=settings.position_merge,
            max_len=settings.max_len,
        )

    @staticmethod
    def states_size(settings) -> int:
        """``D``, the size of the states, for the resolved settings."""
        return settings.d_model

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
