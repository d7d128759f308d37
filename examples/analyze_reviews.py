"""From restaurant reviews to an aspect report
===========================================

From SemEval-2015 restaurant reviews to an aspect report and a sentence table::

    python examples/analyze_reviews.py [--epochs 15] [--limit N] [--out report.html]

Trains the category detector (AT-LSTM, every category at once) on the SemEval-2015
training sentences, puts the test sentences back together into their reviews, and
runs the same analysis as ``aspectattn analyze reviews.csv --model detector.aam
--out report.html --table sentences.csv --id-column review_id``: sentences, the
aspects each mentions, their polarity, aggregates with 95% intervals and the most
confident examples with their attention, in one self-contained HTML file.
"""

import argparse
import time

from _common import glove_or_download

from aspectattn import AspectCategoryClassifier
from aspectattn.datasets import fetch_category_table, fetch_semeval2015
from aspectattn.encoders import LSTMEncoder
from aspectattn.reviews import analyze_reviews
from aspectattn.reviews.report import write_report


def reviews_of(frame):
    """SemEval-2015 sentences (ids "review:n") joined back into their reviews."""
    frame = frame.drop_duplicates("sentence_id")
    parts = frame["sentence_id"].str.split(":", n=1, expand=True)
    frame = frame.assign(review_id=parts[0], n=parts[1].astype(int))
    ordered = frame.sort_values(["review_id", "n"])
    joined = ordered.groupby("review_id", sort=False)["text"].apply(" ".join)
    return joined.reset_index()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--limit", type=int, default=None, help="first N sentences")
    parser.add_argument("--out", default="report.html")
    parser.add_argument("--table", default="sentences.csv")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    texts, Y = fetch_category_table("semeval2015", "train")
    texts, Y = texts[: args.limit], Y[: args.limit]
    detector = AspectCategoryClassifier(
        encoder=LSTMEncoder(embeddings=glove_or_download()),
        max_epochs=args.epochs,
        validation_fraction=0.1,
        early_stopping=True,
        random_state=args.seed,
    ).fit(texts, Y)
    reviews = reviews_of(fetch_semeval2015("test", as_frame=True))
    start = time.perf_counter()
    table, summary = analyze_reviews(reviews, detector, id_column="review_id")
    seconds = time.perf_counter() - start
    table.to_csv(args.table, index=False)
    write_report(summary, args.out, "SemEval-2015 restaurant reviews (test)")
    print(
        f"{summary.n_reviews} reviews, {summary.n_sentences} sentences, "
        f"{len(table)} aspect mentions in {seconds:.1f} s -> {args.out}, {args.table}"
    )
    print(summary.table().round(3).to_string(index=False))


if __name__ == "__main__":
    main()
