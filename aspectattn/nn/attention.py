"""Aspect attention: how an aspect vector ``v_a`` weighs the encoder states.

Every form pools the states ``H`` of a sentence into one vector per aspect::

    e = score(keys(H), query(v_a))          # (N, K, T)
    alpha = softmax(e) over real tokens     # padding gets exactly zero weight
    r = alpha @ values(H)                   # (N, K, D_out)

``keys`` and ``values`` are computed once per *sentence*; when several pairs share a
sentence (``sentence=`` in :meth:`AspectAttention.forward`), they are gathered per pair
afterwards, so one encoder pass and one key projection serve every aspect of a
sentence.

A new form is one subclass of :class:`AspectAttention` (``scores``, and ``keys`` /
``values`` where they are not the states themselves) plus one entry in
:data:`ATTENTION_SCORES`.

Shapes: ``B`` sentences, ``N`` rows scored (pairs, or sentences), ``K`` aspects per
row, ``T`` tokens, ``D`` state size, ``A`` aspect-vector size.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .ops import take_rows

__all__ = [
    "AspectAttention",
    "AdditiveAttention",
    "ConcatAttention",
    "ATTENTION_SCORES",
    "make_attention",
]


class AspectAttention(nn.Module):
    """Base class: masking, softmax and pooling shared by every scoring function.

    Parameters
    ----------
    state_size : int
        ``D``, the size of the encoder states.
    aspect_size : int
        ``A``, the size of ``v_a``.
    """

    #: Size of the pooled vector (the states' size unless ``values`` projects them).
    output_size: int

    def __init__(self, state_size: int, aspect_size: int):
        super().__init__()
        self.output_size = state_size

    def keys(self, states: torch.Tensor) -> torch.Tensor:
        """(B, T, D) -> (B, T, D_k); computed once per sentence."""
        return states

    def values(self, states: torch.Tensor) -> torch.Tensor:
        """(B, T, D) -> (B, T, D_out); what the weights mix."""
        return states

    def scores(self, keys: torch.Tensor, aspect: torch.Tensor) -> torch.Tensor:
        """keys (N, T, D_k), aspect (N or 1, K, A) -> scores (N, K, T)."""
        raise NotImplementedError

    def forward(
        self,
        states: torch.Tensor,
        mask: torch.Tensor,
        aspect: torch.Tensor,
        sentence: torch.Tensor | None = None,
        bias: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Pool the states for each aspect.

        Parameters
        ----------
        states : (B, T, D)
        mask : (B, T) bool, True on real tokens
        aspect : (N, K, A), or (1, K, A) for the same K aspects on every row
        sentence : (N,) long or None
            Row ``n`` is scored on sentence ``sentence[n]``; ``None``: row ``n`` is
            sentence ``n`` (``N == B``).
        bias : (N, K, T) or None
            Added to the scores before the softmax: a log prior over the tokens
            (``log w_i`` gives ``alpha_i`` proportional to ``w_i exp(e_i)``).

        Returns
        -------
        pooled : (N, K, D_out)
        alpha : (N, K, T) -- zero on padding, rows sum to 1
        """
        keys, values = self.keys(states), self.values(states)
        if sentence is not None:
            keys, values = take_rows(keys, sentence), take_rows(values, sentence)
            mask = mask.index_select(0, sentence)
        e = self.scores(keys, aspect)  # (N, K, T)
        if bias is not None:
            e = e + bias
        alpha = torch.softmax(e.masked_fill(~mask[:, None, :], float("-inf")), -1)
        return alpha @ values, alpha


class AdditiveAttention(AspectAttention):
    """Bahdanau et al. (2015): ``e_i = w^T tanh(W_h h_i + W_v v_a)``.

    The aspect interacts with every state inside the ``tanh``, so the weights depend
    on the aspect. The default form.
    """

    def __init__(self, state_size: int, aspect_size: int):
        super().__init__(state_size, aspect_size)
        self.W_h = nn.Linear(state_size, state_size, bias=False)
        self.W_v = nn.Linear(aspect_size, state_size, bias=False)
        self.w = nn.Linear(state_size, 1, bias=False)

    def keys(self, states):
        # 2 W_h H: w^T tanh(z) is computed as 2 w^T sigmoid(2z) - sum(w), the same
        # function, but the (N, K, T, D) tensor -- the largest of the model -- goes
        # through sigmoid, which torch runs ~9x faster than tanh on CPU, in place
        # (autograd-safe: the addition's output is not saved). The factor 2 is
        # folded into the (D, D) weights, not applied to the states.
        return F.linear(states, 2 * self.W_h.weight)  # (B, T, D)

    def scores(self, keys, aspect):
        query2 = F.linear(aspect, 2 * self.W_v.weight)  # (N|1, K, D) = 2 W_v v_a
        m = keys[:, None, :, :] + query2[:, :, None, :]  # (N, K, T, D)
        w = self.w.weight[0]  # (D,)
        return 2 * (m.sigmoid_() @ w) - w.sum()  # (N, K, T)


class ConcatAttention(AspectAttention):
    """The formula as printed in Wang et al. (2016, eq. 7-8)::

        M = tanh([W_h H; W_v v_a e_T^T]),  alpha = softmax(w^T M)

    Because the ``tanh`` acts element-wise on the concatenation, ``w^T M`` splits
    into a token part plus an aspect part that is the same for every token, and the
    aspect part cancels in the softmax: the weights do not depend on the aspect (the
    authors' Theano code computes exactly this). Harmless in ATAE, whose states
    already depend on the aspect; AT with this form ignores the aspect.
    """

    def __init__(self, state_size: int, aspect_size: int):
        super().__init__(state_size, aspect_size)
        self.W_h = nn.Linear(state_size, state_size, bias=False)
        self.W_v = nn.Linear(aspect_size, aspect_size, bias=False)
        self.w = nn.Linear(state_size + aspect_size, 1, bias=False)

    def keys(self, states):
        d = states.shape[-1]
        return (torch.tanh(self.W_h(states)) @ self.w.weight[0, :d])[..., None]

    def scores(self, keys, aspect):
        d = self.W_h.weight.shape[0]
        aspect_part = torch.tanh(self.W_v(aspect)) @ self.w.weight[0, d:]  # (N|1, K)
        return keys[:, None, :, 0] + aspect_part[:, :, None]  # (N, K, T)


class DotAttention(AspectAttention):
    """The dot product: ``e_i = <q, h_i>`` with ``q = W_q v_a`` (the identity when
    ``A == D``): the aspect vector itself is the query."""

    def __init__(self, state_size: int, aspect_size: int):
        super().__init__(state_size, aspect_size)
        self.W_q = (
            nn.Identity()
            if aspect_size == state_size
            else nn.Linear(aspect_size, state_size, bias=False)
        )

    def scores(self, keys, aspect):
        q = self.W_q(aspect)  # (N|1, K, D)
        return q @ keys.transpose(1, 2)  # (N, K, T)


class GeneralAttention(AspectAttention):
    """Bilinear, Luong et al. (2015): ``e_i = h_i^T W_a v_a``."""

    def __init__(self, state_size: int, aspect_size: int):
        super().__init__(state_size, aspect_size)
        self.W_a = nn.Linear(aspect_size, state_size, bias=False)

    def scores(self, keys, aspect):
        return self.W_a(aspect) @ keys.transpose(1, 2)  # (N, K, T)


class ScaledDotAttention(AspectAttention):
    """Keys and values: ``softmax(q K^T / sqrt(d)) V`` with ``K = tanh(H W_key)``,
    ``V = tanh(H W_value)`` and ``q = W_q v_a``; the pooled vector is the mix of
    the values, not of the raw states."""

    def __init__(self, state_size: int, aspect_size: int):
        super().__init__(state_size, aspect_size)
        self.W_key = nn.Linear(state_size, state_size, bias=False)
        self.W_value = nn.Linear(state_size, state_size, bias=False)
        self.W_q = nn.Linear(aspect_size, state_size, bias=False)
        self.scale = 1.0 / math.sqrt(state_size)

    def keys(self, states):
        return torch.tanh(self.W_key(states))  # (B, T, D)

    def values(self, states):
        return torch.tanh(self.W_value(states))  # (B, T, D)

    def scores(self, keys, aspect):
        return (self.W_q(aspect) * self.scale) @ keys.transpose(1, 2)  # (N, K, T)


#: Name -> class: the values of ``attention_score``.
ATTENTION_SCORES: dict[str, type[AspectAttention]] = {
    "additive": AdditiveAttention,
    "concat": ConcatAttention,
    "dot": DotAttention,
    "general": GeneralAttention,
    "scaled_dot": ScaledDotAttention,
}


class MultiHeadAspectAttention(nn.Module):
    """``m`` heads of one scoring form: "attention from several points of view".

    The states are projected (``W H``) and cut into ``m`` slices of ``D/m``; each
    head has its own ``D/m``-wide projection of ``v_a`` as query and its own scoring
    function over its slice, and pools on its own. The ``m`` pooled vectors are
    concatenated and projected back to ``D``. Weights are returned per head.
    """

    def __init__(self, score: str, state_size: int, aspect_size: int, heads: int):
        super().__init__()
        if state_size % heads:
            raise ValueError(
                f"attention_heads={heads} must divide the encoder state size "
                f"{state_size}"
            )
        d = state_size // heads
        self.heads = heads
        self.state_proj = nn.Linear(state_size, state_size, bias=False)
        self.query_proj = nn.Linear(aspect_size, d * heads, bias=False)
        self.head_attention = nn.ModuleList(
            ATTENTION_SCORES[score](d, d) for _ in range(heads)
        )
        self.out = nn.Linear(
            sum(h.output_size for h in self.head_attention), state_size, bias=False
        )
        self.output_size = state_size

    def forward(self, states, mask, aspect, sentence=None, bias=None):
        """As :meth:`AspectAttention.forward` (the same ``bias`` for every head);
        alpha is (N, K, m, T)."""
        parts = self.state_proj(states).chunk(self.heads, -1)  # m x (B, T, D/m)
        queries = self.query_proj(aspect).chunk(self.heads, -1)  # m x (N, K, D/m)
        pooled, alphas = zip(
            *(
                att(h, mask, q, sentence, bias)
                for att, h, q in zip(self.head_attention, parts, queries, strict=True)
            ),
            strict=True,
        )
        return self.out(torch.cat(pooled, -1)), torch.stack(alphas, 2)


def make_attention(
    score: str, state_size: int, aspect_size: int, heads: int = 1
) -> nn.Module:
    """The attention layer for ``attention_score=score, attention_heads=heads``."""
    if score not in ATTENTION_SCORES:
        raise ValueError(
            f"attention score must be one of {sorted(ATTENTION_SCORES)}, got {score!r}"
        )
    if heads == 1:
        return ATTENTION_SCORES[score](state_size, aspect_size)
    return MultiHeadAspectAttention(score, state_size, aspect_size, heads)
