"""The detector: which aspects a sentence talks about, and how
==============================================================

:class:`~aspectattn.AspectCategoryClassifier` reads every category of a sentence
from one encoder pass: for each, a polarity or "not mentioned". Trained here for a
few epochs on the SemEval-2014 restaurant sentences (one column per category)::

    ASPECTATTN_DATA=../shared/data python examples/plot_detector.py
"""

# %%
from _common import glove_or_download

from aspectattn import AspectCategoryClassifier
from aspectattn.datasets import fetch_category_table
from aspectattn.encoders import LSTMEncoder

texts, Y = fetch_category_table("semeval2014", "train")
detector = AspectCategoryClassifier(
    encoder=LSTMEncoder(embeddings=glove_or_download()), max_epochs=4, random_state=0
).fit(texts, Y)

# %%
# Every sentence on every category: a table of labels.
import pandas as pd  # noqa: E402

sentences = [
    "The pasta was great but the waiter was rude.",
    "Prices are a bit steep, but the view is worth it.",
    "We waited an hour for a cold pizza.",
]
table = pd.DataFrame(
    detector.predict(sentences), columns=detector.categories_, index=sentences
)
print(table.to_string())

# %%
# The probability of "mentioned" (any polarity) per sentence and category.
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

none = list(detector.labels_).index("none")
mentioned = np.stack([1 - p[:, none] for p in detector.predict_proba(sentences)], 1)
fig, ax = plt.subplots(figsize=(7, 2.5))
ax.imshow(mentioned, cmap="Blues", vmin=0, vmax=1)
ax.set_xticks(range(len(detector.categories_)), detector.categories_, rotation=20)
ax.set_yticks(range(len(sentences)), [s[:40] for s in sentences])
ax.set_title("P(mentioned)")
fig.tight_layout()
