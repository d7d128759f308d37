"""From sentences to their aspect terms, and on to each term's polarity.

- :class:`AspectTermExtractor` finds the aspect terms of a sentence as
  character spans (sequence tagging);
- :class:`AspectSentimentPipeline` runs an extractor and a classifier end to end:
  sentences in, each term with its polarity out;
- :class:`AspectSentimentExtractor` does both in one model: one encoder pass per
  sentence gives its terms and each one's polarity;
  :class:`DistilledExtractor` trains it on a stronger one's answers too;
- :func:`span_scores` / :func:`span_f1` score spans exactly, as SemEval does.

Names are imported on first use: the torch-free runtime
(:mod:`aspectattn.serving.runtime`) reads texts and tags with
:mod:`.words`, :mod:`.inputs` and :mod:`.reading` without importing torch.
"""

from .._lazy import lazy_names

__all__ = [
    "AspectTermExtractor",
    "AspectSentimentPipeline",
    "AspectSentimentExtractor",
    "DistilledExtractor",
    "span_f1",
    "span_scores",
]

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "AspectTermExtractor": ".extractor",
        "AspectSentimentPipeline": ".pipeline",
        "AspectSentimentExtractor": ".joint",
        "DistilledExtractor": ".distilled",
        "span_f1": ".metrics",
        "span_scores": ".metrics",
    },
    globals(),
)
