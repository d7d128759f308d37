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

Adding an encoder is one module in this folder, one entry in :data:`ENCODERS`, and
its parameters in :mod:`aspectattn.params` (a group named after it, and its entry
in :data:`aspectattn.params.ENCODER_GROUPS`); its class builds its own keyword
arguments from the model config (``config_from``).

Shapes in comments: ``B`` batch, ``T`` tokens (the batch's longest sentence), ``E``
word-vector size, ``A`` aspect-vector size, ``H`` LSTM hidden size, ``D`` encoder
output size.
"""

from __future__ import annotations

from torch import nn

from .lstm import LSTMEncoder
from .transformer import TransformerEncoder

__all__ = ["LSTMEncoder", "TransformerEncoder", "ENCODERS", "get_encoder"]


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
