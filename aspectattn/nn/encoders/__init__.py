"""Sentence encoders behind one contract, in a registry.

Every encoder maps token ids to states::

    states, summary = encoder(tokens, lengths, aspect_input=None)
    # tokens (B, T) long, 0 = padding; lengths (B,) long >= 1
    # aspect_input (B, A) or None: a vector appended to every input token (AE/ATAE)
    # marker (B, T) or None (keyword, word encoders): 1 on the aspect term's tokens
    # states (B, T, D) -- meaningless at padding; summary (B, D) -- the sentence as one
    # vector (the LSTM's last state, the transformer's mean state, [CLS])

and exposes ``embedding`` (its token-embedding table, also used for aspect-term
vectors), ``output_size`` (``D``), ``accepts_aspect_input`` and ``batch_tokens`` (the
padded tokens of one inference batch, at most; None: no limit). Encoders with
self-attention also have ``self_attention_maps``.

Adding an encoder is one module in this folder, its entry in
:data:`~aspectattn.params.ENCODERS` (the class's path, the setting groups it reads
and its recipe: :mod:`aspectattn.params.recipes`) and its component, which
declares its parameters (:mod:`aspectattn.encoders`). A word encoder builds its
keyword arguments from the resolved component (``config_from``) and says the size
of its states (``states_size``).

Shapes in comments: ``B`` batch, ``T`` tokens (the batch's longest sentence), ``E``
word-vector size, ``A`` aspect-vector size, ``H`` LSTM hidden size, ``D`` encoder
output size.
"""

from __future__ import annotations

from importlib import import_module

from torch import nn

from ...params import ENCODERS
from .lstm import LSTMEncoder
from .transformer import TransformerEncoder

__all__ = ["LSTMEncoder", "TransformerEncoder", "ENCODERS", "get_encoder"]


def get_encoder(name: str) -> type[nn.Module]:
    """The encoder class registered as ``name`` in :data:`aspectattn.params.ENCODERS`
    (its module imported on first use, so optional dependencies load lazily)."""
    if name not in ENCODERS:
        raise ValueError(f"encoder must be one of {sorted(ENCODERS)}, got {name!r}")
    module, _, cls = ENCODERS[name].path.partition(":")
    return getattr(import_module(module), cls)
