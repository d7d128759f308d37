"""From laptop reviews to their aspects and polarities
=====================================================

SemEval-2014 laptops name aspect *terms* (``battery life``, ``keyboard``,
``Windows 7``), not categories, as most domains do. This example trains an
aspect term extractor on them, then the end-to-end pipeline (the extractor and
the aspect classifier), and runs it on reviews it has never seen::

    python examples/extract_aspects.py [--epochs N] [--limit N] [--report PATH]
                                       [--model PATH]

It prints the extractor's exact-span F1 on the test sentences and each review's
terms with their polarity, and writes the review report on them
(``extracted_aspects.html``): per aspect -- terms grouped by case, spacing and
the English plural -- its mentions, polarity shares with intervals, and example
sentences with the term highlighted -- and saves the pipeline as one model file
(``laptop_aspects.aam``: ``aspectattn predict laptop_aspects.aam sentences.txt``
writes each sentence's terms with their polarity). Nothing about the models is
set but the seed: what it prints is what the defaults give (for a quick try,
``--epochs`` caps both models' epochs and ``--limit`` trains on the first
sentences only).

The data come from the data home (``$ASPECTATTN_DATA``, downloaded there when
missing); the test sentences only score, they choose nothing.
"""

import argparse

from aspectattn import (
    AspectAttentionClassifier,
    AspectSentimentPipeline,
    AspectTermExtractor,
)
from aspectattn.datasets import fetch_term_spans
from aspectattn.extraction import span_scores
from aspectattn.persistence import load, save
from aspectattn.reviews import analyze_reviews, write_report

REVIEWS = [
    "The battery life is amazing but the keyboard feels cheap.",
    "Windows 8 is a pain, though the screen is gorgeous.",
    "Customer service never called me back. The screens are too dim.",
    "I love how light it is, and the trackpad works perfectly.",
    "The fan is loud and the speakers are tinny. Battery life is short.",
    "Great price for the performance.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--report", default="extracted_aspects.html")
    parser.add_argument("--model", default="laptop_aspects.aam")
    args = parser.parse_args()

    texts, y = fetch_term_spans("semeval2014-laptops", "train")
    texts, y = texts[: args.limit], y[: args.limit]
    test_texts, test_y = fetch_term_spans("semeval2014-laptops", "test")
    n_terms = sum(map(len, y))
    print(f"SemEval-2014 laptops: {len(texts)} train sentences, {n_terms} terms")

    pipeline = AspectSentimentPipeline(
        AspectTermExtractor(random_state=args.seed),
        AspectAttentionClassifier(random_state=args.seed),
    )
    if args.epochs is not None:  # both parts, through the pipeline's routing
        pipeline.set_params(
            extractor__max_epochs=args.epochs, classifier__max_epochs=args.epochs
        )
    pipeline.fit(texts, y)
    extractor = pipeline.extractor_
    scores = span_scores(test_y, extractor.predict(test_texts))
    print(
        f"extraction on the test sentences: precision {scores['precision']:.3f}, "
        f"recall {scores['recall']:.3f}, F1 {scores['f1']:.3f} "
        f"(epoch {extractor.best_epoch_} kept)"
    )

    for review, terms in zip(REVIEWS, pipeline.predict(REVIEWS), strict=True):
        print(review)
        for term in terms:
            start, end = term["span"]
            print(
                f"  [{start}:{end}] {term['term']!r} -> {term['polarity']} "
                f"({term['probability']:.2f}; span score {term['score']:.2f})"
            )
    _, summary = analyze_reviews(REVIEWS, pipeline)
    table = summary.table()
    print("aspects over the reviews:")
    print(table[["aspect", "mentions"]].to_string(index=False) if len(table) else "-")
    print("report:", write_report(summary, args.report))
    save(pipeline, args.model)  # both parts, in the safe format
    assert load(args.model).predict(REVIEWS) == pipeline.predict(REVIEWS)
    print("model:", args.model)


if __name__ == "__main__":
    main()
