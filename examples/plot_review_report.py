"""From reviews to a report: aspects, polarity and intervals
===========================================================

The analysis behind ``aspectattn analyze``: reviews split into sentences, the
aspects each sentence mentions found by a detector, their polarity, and per aspect
the share of positive and negative mentions with 95% Wilson intervals. The same
summary is what :func:`~aspectattn.reviews.write_report` renders as one
self-contained HTML page::

    ASPECTATTN_DATA=../shared/data python examples/plot_review_report.py
"""

# %%
import tempfile
from pathlib import Path

from _common import glove_or_download

from aspectattn import AspectCategoryClassifier
from aspectattn.datasets import fetch_category_table
from aspectattn.encoders import LSTMEncoder
from aspectattn.reviews import analyze_reviews, write_report

texts, Y = fetch_category_table("semeval2014", "train")
detector = AspectCategoryClassifier(
    encoder=LSTMEncoder(embeddings=glove_or_download()), max_epochs=4, random_state=0
).fit(texts, Y)

reviews = [
    "The pasta was great. The waiter was rude and slow, though.",
    "Lovely view and a warm welcome! Prices are a bit steep.",
    "Cold pizza, long wait. Never again.",
    "The staff were friendly and the sushi was fresh.",
]
table, summary = analyze_reviews(reviews, detector)
print(table[["review_id", "sentence", "aspect", "label", "probability"]].to_string())

# %%
# The per-aspect summary, and the HTML report written from it.
print(summary.table().round(2).to_string(index=False))
path = write_report(summary, Path(tempfile.mkdtemp()) / "report.html")
print(f"report: {path.stat().st_size:,} bytes of self-contained HTML")

# %%
# The shares as a chart: per aspect, the share of each polarity among its
# mentions, with the 95% interval.
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

shares = summary.table()
labels = [c[len("share_") :] for c in shares.columns if c.startswith("share_")]
fig, ax = plt.subplots(figsize=(7, 3))
width = 0.8 / len(labels)
for k, label in enumerate(labels):
    x = np.arange(len(shares)) + k * width
    share = shares[f"share_{label}"].to_numpy()
    error = [share - shares[f"low_{label}"], shares[f"high_{label}"] - share]
    ax.bar(x, share, width, yerr=error, capsize=3, label=label)
ax.set_xticks(np.arange(len(shares)) + 0.4 - width / 2, shares["aspect"], rotation=15)
ax.set_ylabel("share of mentions")
ax.legend()
fig.tight_layout()
