"""What the word-level encoders share: the token embedding, dropout, and the
aspect vector appended to every word (AE/ATAE)."""

from __future__ import annotations

from numbers import Integral

import torch
from torch import nn

from ...encoders import WORD_CONSTRAINTS
from ...params._constraints import Interval
from ...params.components import value_constraints
from ...text.tokens import OOV_ID

#: Largest vocabulary a model file may declare.
MAX_VOCABULARY = 10**8

#: What every word encoder's saved configuration holds: the keyword arguments it
#: is built with, each with its constraints (the encoder component's where the
#: key is a parameter: one bound per fact). :mod:`aspectattn.nn.schema` checks model
#: files against ``config_schema``.
WORD_SCHEMA = {
    "vocab_size": [Interval(Integral, 2, MAX_VOCABULARY, closed="both")],
    "embedding_dim": value_constraints(WORD_CONSTRAINTS["embedding_dim"]),
    "embedding_dropout": value_constraints(WORD_CONSTRAINTS["embedding_dropout"]),
    "marker_size": [Interval(Integral, 0, 1, closed="both")],
}


class _WordEncoder(nn.Module):
    """Word embeddings (id 0 is padding), the optional aspect vector appended to
    every word, and dropout: the input of the LSTM and transformer encoders."""

    accepts_aspect_input = True
    marker_size = 0  # modules pickled before the term marker existed
    # Inference batches of INFERENCE_BATCH pairs whatever their length: a budget of
    # 1,024-4,096 padded tokens measured no faster for the LSTM (fewer, wider time
    # steps pay) or the default transformer (d_model 128), on 2 cores.
    batch_tokens: int | None = None
    config_schema: dict = WORD_SCHEMA

    @staticmethod
    def check_config(config: dict) -> None:
        """Checks of a saved configuration beyond its keys' constraints."""

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
        # set by the fit (set_word_dropout); only training reads it
        self.register_buffer("word_dropout_rates", None, persistent=False)
        self.aspect_input_size = aspect_input_size
        self.marker_size = marker_size
        return embedding_dim + aspect_input_size + marker_size

    def set_word_dropout(self, rates: torch.Tensor | None) -> None:
        """Word dropout: in training, token id ``i`` is read as the unknown token
        with probability ``rates[i]`` (``rates``: (V,), 0 for padding and the
        unknown token; None: never). A buffer left out of the saved weights:
        prediction never reads it."""
        if rates is not None and rates.shape != (self.embedding.num_embeddings,):
            raise ValueError(
                f"word dropout needs a rate per word ({self.embedding.num_embeddings}),"
                f" got shape {tuple(rates.shape)}"
            )
        weight = self.embedding.weight
        self.word_dropout_rates = (
            None if rates is None else rates.to(weight.device, torch.float32)
        )

    def _inputs(
        self,
        tokens: torch.Tensor,
        aspect_input: torch.Tensor | None,
        marker: torch.Tensor | None = None,
    ) -> torch.Tensor:
        rates = self.word_dropout_rates  # (V,) or None
        if self.training and rates is not None:
            drop = torch.rand(tokens.shape, device=tokens.device) < rates[tokens]
            tokens = tokens.masked_fill(drop, OOV_ID)  # (B, T)
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
