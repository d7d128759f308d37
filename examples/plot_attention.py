"""Where the model looks: the attention heatmap and the training curves
=====================================================================

Train the default model (AT-LSTM over GloVe 6B 50-d, joint over each sentence's
aspects) on SemEval-2014 restaurant categories for a few epochs, then draw which
words each aspect attends to in sentences whose aspects disagree, and the training
curves from ``history_``. Runs in about half a minute on two CPU cores::

    ASPECTATTN_DATA=../shared/data python examples/plot_attention.py
"""

# %%
# Train on the restaurant categories, holding out 10% of the sentences to watch
# the validation scores per epoch.
from _common import glove_or_download

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014
from aspectattn.encoders import LSTMEncoder
from aspectattn.viz import plot_attention, plot_history

X, y = fetch_semeval2014(subset="train")
clf = AspectAttentionClassifier(
    encoder=LSTMEncoder(embeddings=glove_or_download()),
    max_epochs=4,
    validation_fraction=0.1,
    random_state=0,
).fit(X, y)
print(clf.resolved_params_)

# %%
# One panel per sentence, one row per aspect: the weights pool the encoder's
# states into the vector that is classified, so each aspect should look at its
# own opinion words.
sentences = [
    "The pasta was great but the waiter was rude.",
    "Prices are a bit steep, but the view is worth it.",
]
pairs = [(s, a) for s in sentences[:1] for a in ("food", "service")]
pairs += [(sentences[1], a) for a in ("price", "ambience")]
results = clf.explain(pairs)
for r in results:
    print(f"{r['aspect']:>9} -> {r['label']}")
fig = plot_attention(results)

# %%
# The training curves: loss, and validation accuracy and macro-F1 per epoch.
fig = plot_history(clf.history_)
