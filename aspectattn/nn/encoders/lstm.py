"""The LSTM encoder (Wang et al., 2016), uni- or bidirectional, exact on padded
batches without packing."""

from __future__ import annotations

import functools

import torch
from torch import nn

from ...encoders import LSTMEncoder as _Component
from ...params.components import value_constraints
from .base import WORD_SCHEMA, _WordEncoder


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

    config_schema = {
        **WORD_SCHEMA,
        **{
            name: value_constraints(_Component._parameter_constraints[name])
            for name in ("hidden_size", "bidirectional")
        },
    }

    @staticmethod
    def config_from(settings) -> dict:
        """This encoder's keyword arguments from its resolved settings (the
        :class:`~aspectattn.encoders.LSTMEncoder` component), besides the
        vocabulary and word-vector sizes."""
        return dict(
            hidden_size=settings.hidden_size, bidirectional=settings.bidirectional
        )

    @staticmethod
    def states_size(settings) -> int:
        """``D``, the size of the states, for the resolved settings."""
        return settings.hidden_size * (2 if settings.bidirectional else 1)

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
        fwd = _run(self.forward_lstm, x).contiguous()  # (B, T, H)
        if not self.bidirectional:
            return fwd, fwd[batch, last_index]
        bwd, bwd_rev = backward_states(self.backward_lstm, x, lengths)  # (B, T, H) x2
        states = torch.cat([fwd, bwd], dim=-1)  # (B, T, 2H)
        last = torch.cat([fwd[batch, last_index], bwd_rev[batch, last_index]], dim=-1)
        return states, last


def backward_states(
    lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The states of ``lstm`` reading each right-padded sentence of ``x`` from its
    last real token back, exact without packing: each sentence is reversed within
    its own length (padding stays at the end, read last).

    x (B, T, I), lengths (B,) -> states (B, T, H) in the sentence's order, and
    (B, T, H) in reading order (position ``lengths - 1`` has read it all).
    """
    rev = LSTMEncoder._reverse_index(lengths, x.shape[1])  # (B, T)
    x_rev = x.gather(1, rev[:, :, None].expand_as(x))  # (B, T, I)
    read = _run(lstm, x_rev)  # (B, T, H), reversed order
    return read.gather(1, rev[:, :, None].expand_as(read)), read


def _run(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    """``lstm(x)``'s states (B, T, H). Under bfloat16 autocast on a CPU whose
    oneDNN has no bfloat16 LSTM (no AVX-512: it cannot even build one), the LSTM
    runs in float32 and the rest of the model in bfloat16."""
    if (
        x.device.type == "cpu"
        and torch.is_autocast_enabled("cpu")
        and not _cpu_lstm_in_bfloat16()
    ):
        with torch.autocast("cpu", enabled=False):
            return lstm(x.float())[0]
    return lstm(x)[0]


@functools.cache
def _cpu_lstm_in_bfloat16() -> bool:
    """Whether this CPU runs an LSTM under bfloat16 autocast (tried once)."""
    probe = nn.LSTM(2, 2, batch_first=True)
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            probe(torch.zeros(1, 1, 2))
    except RuntimeError:
        return False
    return True
