"""Serving a fitted model without training code: ONNX export
(:mod:`.export`, needs torch and onnx), the torch-free runtime that serves it with
numpy and onnxruntime (:mod:`.runtime`), and the check that an export holds only
the graphs the exporter makes (:mod:`.graph`).

Names are imported on first use, so ``import aspectattn.serving.runtime`` (or
``from aspectattn.serving import load_onnx``) does not import torch.
"""

from importlib import import_module

__all__ = [
    "export_onnx",
    "load_onnx",
    "OnnxPairClassifier",
    "OnnxCategoryClassifier",
    "OnnxTermExtractor",
    "OnnxSentimentPipeline",
]

_LAZY = {
    "export_onnx": ".export",
    "load_onnx": ".runtime",
    "OnnxPairClassifier": ".runtime",
    "OnnxCategoryClassifier": ".runtime",
    "OnnxTermExtractor": ".runtime",
    "OnnxSentimentPipeline": ".runtime",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
