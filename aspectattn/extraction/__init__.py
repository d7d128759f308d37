"""From sentences to their aspect terms, and on to each term's polarity.

- :class:`AspectTermExtractor` finds the aspect terms of a sentence as
  character spans (sequence tagging);
- :class:`AspectSentimentPipeline` runs an extractor and a classifier end to end:
  sentences in, each term with its polarity out;
- :func:`span_scores` / :func:`span_f1` score spans exactly, as SemEval does.

Names are imported on first use: the torch-free runtime
(:mod:`aspectattn.serving.runtime`) reads texts and tags with
:mod:`.words`, :mod:`.inputs` and :mod:`.reading` without importing torch.
"""

from importlib import import_module

__all__ = ["AspectTermExtractor", "AspectSentimentPipeline", "span_f1", "span_scores"]

_LAZY = {
    "AspectTermExtractor": ".extractor",
    "AspectSentimentPipeline": ".pipeline",
    "span_f1": ".metrics",
    "span_scores": ".metrics",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
