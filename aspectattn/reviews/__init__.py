"""From a pile of reviews to aspect-level figures: sentences, aspects, aggregates.

::

    table, summary = analyze_reviews(reviews, detector, id_column="review_id",
                                     date_column="date", group_column="business")
    summary.table()                      # per aspect: mentions, shares, 95% CIs
    summary.table(by="group")            # per business and aspect
    summary.table(by="period")           # per month and aspect
    write_report(summary, "report.html")  # one self-contained HTML file

Reviews are split into sentences by NLTK's Punkt segmenter (with a list of common
abbreviations, no model download), every sentence is run through a category
detector (:class:`~aspectattn.AspectCategoryClassifier`, or anything with
its ``analyze`` method) in batches, and the result is one row per (sentence,
mentioned aspect): review id, sentence, aspect, label, probability and the words the
aspect attended to most.

For corpora larger than memory, :func:`iter_analysis` streams: it takes an iterable
of DataFrame chunks (``pd.read_csv(path, chunksize=...)``) and yields one sentence
table per chunk, while a :class:`ReviewSummary` keeps only counts and the few most
confident examples, so memory stays flat in the number of reviews.

The review path, one module per step: :mod:`.sentences` (splitting),
:mod:`.dates` (one rule for a file's dates), :mod:`.analysis` (the sentence table),
:mod:`.summary` (the figures), :func:`mentioned_aspects` (a detector's output as
mentions, shared with the detector and the runtime),
:mod:`.report` (the HTML report).
"""

from .._mentions import check_min_probability, mentioned_aspects
from .analysis import analyze_into, analyze_reviews, analyze_sentences, iter_analysis
from .dates import DateRule
from .report import render_report, write_report
from .sentences import ABBREVIATIONS, MAX_SEGMENT_CHARS, split_sentences
from .summary import EXAMPLES_PER_LABEL, ReviewSummary, wilson_interval

__all__ = [
    "split_sentences",
    "iter_analysis",
    "DateRule",
    "analyze_reviews",
    "analyze_into",
    "analyze_sentences",
    "ReviewSummary",
    "wilson_interval",
    "write_report",
    "render_report",
    "mentioned_aspects",
    "check_min_probability",
    "ABBREVIATIONS",
    "EXAMPLES_PER_LABEL",
    "MAX_SEGMENT_CHARS",
]
