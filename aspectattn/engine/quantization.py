"""Int8 dynamic quantisation of a fitted model, for prediction on the CPU, and a
bfloat16 encoder for prediction on a device that computes it natively.

``AspectAttentionClassifier(quantize="int8")`` (or ``model.set_params(quantize=
"int8")`` on a fitted or loaded model) predicts with a copy of ``module_`` whose
``nn.Linear`` layers hold int8 weights; their inputs are quantised to int8 on the
fly, per batch ("dynamic" quantisation, Jacob et al. 2018, as PyTorch implements
it). Training is unchanged (float32); the float weights stay in ``module_``, so the
model file and pickles hold them and a loaded model quantises the same way again.

Where it pays: the pretrained encoder (MiniLM), whose time goes to its linear
layers (``benchmarks/results/quantize.md``). The LSTM encoder has no linear layers
and is left as it is (a warning says so). Predictions run on the CPU whatever
``device`` says: the int8 kernels (fbgemm / oneDNN) are CPU-only. Inputs are
quantised per batch, so a pair's probabilities move slightly (about 1e-4) with the
other pairs of its batch.

``quantize="bfloat16"`` predicts with a copy of ``module_`` whose encoder runs
under ``torch.autocast`` in bfloat16 (matrix products in bfloat16, its outputs
returned in float32 to the attention and classifier), on ``device``: the
arithmetic of ``precision="bfloat16"`` training. It pays where the device computes
bfloat16 natively (:func:`aspectattn.params.fast_bfloat16`); elsewhere it is
slower than float32 and a warning says so.

Int8 uses ``torch.ao.quantization.quantize_dynamic``, which PyTorch has deprecated in
favour of the separate ``torchao`` package but still ships (torch 2.13); a torch
without it gets an error saying so.
"""

from __future__ import annotations

import copy
import warnings

import torch
from torch import nn

from ..exceptions import AspectAttnWarning
from ..nn.ops import in_bfloat16
from ..params import QUANTIZE_OPTIONS, fast_bfloat16

__all__ = [
    "QUANTIZE_OPTIONS",
    "quantize_module",
    "bfloat16_module",
    "check_bfloat16",
]
#: The layer types of the encoder that get int8 weights. Not nn.LSTM: its int8
#: form measured no faster here (batch 128 x 16 steps, 50 -> 300, one thread:
#: 49-61 ms against 46-50 ms float), so it would change predictions for nothing.
QUANTIZED_LAYERS = {nn.Linear}


def quantize_module(
    module: nn.Module, encoder: str = "encoder", stacklevel: int = 3
) -> nn.Module:
    """An int8 copy of ``module`` for CPU inference (``module`` itself is untouched).

    Parameters
    ----------
    module : torch.nn.Module
        A trained model, on any device.
    encoder : str, default="encoder"
        The encoder's name in ``module`` (dotted: ``"tagger.encoder"`` in a
        joint aspect-sentiment model); a module without one (an LSTM tagger's
        LSTMs are its own) is copied unchanged, with a warning.
    stacklevel : int, default=3
        Where that warning points: this many frames above the caller's.

    Returns
    -------
    torch.nn.Module
        On the CPU, in eval mode, every ``nn.Linear`` of the encoder replaced by a
        dynamically quantised int8 linear layer (a weight scale per output row).
        Other layers (embeddings, LSTM, LayerNorm, the attention and the
        classifier) keep their float32 weights.
    """
    try:
        from torch.ao.quantization import (
            per_channel_dynamic_qconfig,
            quantize_dynamic,
        )
    except ImportError as exc:  # removed from a future torch
        raise RuntimeError(
            "quantize='int8' needs torch.ao.quantization.quantize_dynamic, which "
            "this torch no longer ships; use quantize=None, or torch 2.13 as "
            "aspectattn pins it."
        ) from exc
    quantized = copy.deepcopy(module).cpu().eval()
    with warnings.catch_warnings():
        # torch warns that torch.ao.quantization is deprecated (see module doc).
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)
        # The encoder only: the attention forms read their layers' weight matrices
        # directly (which a quantised layer does not have), and cost little.
        # One weight scale per output row: on a fine-tuned MiniLM this changed the
        # float model's label on 3.4% of the test pairs, against 5.1% with one
        # scale per matrix (the default), at the same speed.
        spec = dict.fromkeys(QUANTIZED_LAYERS, per_channel_dynamic_qconfig)
        parent, _, name = encoder.rpartition(".")
        owner = quantized.get_submodule(parent)
        layers = getattr(owner, name, None)
        if isinstance(layers, nn.Module):
            layers = quantize_dynamic(layers, spec, dtype=torch.qint8)
            setattr(owner, name, layers)
    if not isinstance(layers, nn.Module) or not any(
        type(m).__module__.startswith("torch.ao.nn.quantized") for m in layers.modules()
    ):
        warnings.warn(
            "quantize='int8' leaves this model unchanged: its encoder has no linear "
            "layers (int8 pays with encoder='pretrained').",
            AspectAttnWarning,
            stacklevel=stacklevel + 1,
        )
    return quantized


class AutocastEncoder(nn.Module):
    """An encoder run under bfloat16 autocast, its floating outputs in float32;
    every other attribute (``output_size``, ``embedding``, ``term_summary``, ...)
    is the wrapped encoder's."""

    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.inner = encoder

    def forward(self, *args, **kwargs):
        device_type = next(self.inner.parameters()).device.type
        return in_bfloat16(self.inner, device_type, *args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["inner"], name)


def check_bfloat16(device: str, stacklevel: int = 2) -> None:
    """Warn that ``quantize="bfloat16"`` is slower than float32 on ``device``
    where it does not compute bfloat16 natively (the warning points
    ``stacklevel`` frames above the caller's)."""
    if not fast_bfloat16(device):
        warnings.warn(
            f"quantize='bfloat16' on {device!r}, which does not compute bfloat16 "
            "natively: predictions will be slower than in float32.",
            AspectAttnWarning,
            stacklevel=stacklevel + 1,
        )


def bfloat16_module(module: nn.Module, device: str) -> nn.Module:
    """A copy of ``module`` (eval mode, on ``device``) whose encoder runs under
    bfloat16 autocast (:class:`AutocastEncoder`); ``module`` is untouched."""
    check_bfloat16(device, stacklevel=4)
    copied = copy.deepcopy(module).eval()
    copied.encoder = AutocastEncoder(copied.encoder)
    return copied
