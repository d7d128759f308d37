"""Serving a fitted model without training code: ONNX export
(:mod:`.export`, needs torch and onnx), the torch-free runtime that serves it with
numpy and onnxruntime (:mod:`.runtime`), and the check that an export holds only
the graphs the exporter makes (:mod:`.graph`).

Names are imported on first use, so ``import aspectattn.serving.runtime`` (or
``from aspectattn.serving import load_onnx``) does not import torch.
"""

from .._lazy import lazy_names

__all__ = [
    "export_onnx",
    "load_onnx",
    "OnnxPairClassifier",
    "OnnxCategoryClassifier",
    "OnnxTermExtractor",
    "OnnxSentimentPipeline",
    "OnnxAspectSentiment",
]

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "export_onnx": ".export",
        "load_onnx": ".runtime",
        "OnnxPairClassifier": ".runtime",
        "OnnxCategoryClassifier": ".runtime",
        "OnnxTermExtractor": ".runtime",
        "OnnxSentimentPipeline": ".runtime",
        "OnnxAspectSentiment": ".runtime",
    },
    globals(),
)
