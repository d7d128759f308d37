"""From sentences to their aspect terms, and on to each term's polarity.

- :class:`AspectTermExtractor` finds the aspect terms of a sentence as
  character spans (sequence tagging);
- :class:`AspectSentimentPipeline` runs an extractor and a classifier end to end:
  sentences in, each term with its polarity out;
- :func:`span_scores` / :func:`span_f1` score spans exactly, as SemEval does.
"""

from .extractor import AspectTermExtractor
from .metrics import span_f1, span_scores
from .pipeline import AspectSentimentPipeline

__all__ = ["AspectTermExtractor", "AspectSentimentPipeline", "span_f1", "span_scores"]
