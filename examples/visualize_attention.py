"""Draw the attention: HTML page, heatmap and training curves
==========================================================

Draw the attention of a trained model: HTML page, heatmap and training curves::

    ASPECTATTN_DATA=../shared/data python examples/visualize_attention.py --out att/

Writes attention.html (open it in a browser), attention.png and history.png.
"""

import argparse
from pathlib import Path

from _common import glove_or_download

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_semeval2014
from aspectattn.encoders import LSTMEncoder
from aspectattn.viz import attention_html, plot_attention, plot_history

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=12)
parser.add_argument("--limit", type=int, default=None, help="first N training pairs")
parser.add_argument("--out", default="attention")
args = parser.parse_args()
out = Path(args.out)
out.mkdir(parents=True, exist_ok=True)

X_train, y_train = fetch_semeval2014(subset="train")
X_train, y_train = X_train[: args.limit], y_train[: args.limit]
clf = AspectAttentionClassifier(
    variant="atae",
    encoder=LSTMEncoder(embeddings=glove_or_download()),
    max_epochs=args.epochs,
    validation_fraction=0.1,
    early_stopping=True,
    random_state=0,
)
clf.fit(X_train, y_train)

sentence = "The food was delicious but the prices were outrageous."
results = clf.explain([(sentence, aspect) for aspect in ("food", "price", "service")])
results += clf.explain(
    [
        ("Our waiter was friendly and the decor is charming.", a)
        for a in ("service", "ambience")
    ]
)
attention_html(results, out / "attention.html", title="What the model looks at")
plot_attention(results, out / "attention.png")
plot_history(clf.history_, out / "history.png")
for name in ("attention.html", "attention.png", "history.png"):
    print("wrote", out / name)
