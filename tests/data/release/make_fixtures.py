"""Write the release fixtures: model files, pickles, joblib and skops files of small
fitted models, with the probabilities they give, written by the release before the
package's layout changed (commit 'Release fixtures ...'). tests/test_compat.py loads
them with today's code and checks the predictions are the same. Do not regenerate
them with a newer release: they are what users of that release have on disk.

    python tests/data/release/make_fixtures.py
"""

import pickle
import sys
from pathlib import Path

import joblib
import numpy as np
from sklearn.pipeline import Pipeline

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from conftest import make_pairs  # noqa: E402

from aspectattn import AspectAttentionClassifier, AspectCategoryClassifier  # noqa: E402

SMALL = dict(
    embeddings=None,
    embedding_dim=8,
    hidden_size=8,
    max_epochs=3,
    lr=0.01,
    batch_size=16,
    random_state=0,
    device="cpu",
)


def main():
    X, y = make_pairs(60, seed=0, single_share=0.3)
    X_test, _ = make_pairs(12, seed=1)
    # the term pairs: the first food word / service word of the sentence
    from conftest import FOOD, SERVICE

    def term_of(text, aspect):
        words = text.rstrip(".").split()
        pool = FOOD if aspect == "food" else SERVICE
        return next(w for w in words if w in pool)

    terms = [(t, term_of(t, a)) for t, a in X]
    terms_test = [(t, term_of(t, a)) for t, a in X_test]
    models = {
        "pairs_atae": (AspectAttentionClassifier(**SMALL).fit(X, y), X_test),
        "terms_at": (
            AspectAttentionClassifier(
                variant="at",
                bidirectional=True,
                final_state="term",
                position_weighting="linear",
                **SMALL,
            ).fit(terms, y),
            terms_test,
        ),
    }
    texts = sorted({t for t, _ in X})
    label = {(t, a): v for (t, a), v in zip(X, y, strict=True)}
    Y = np.array(
        [[label.get((t, a), "none") for a in ("food", "service")] for t in texts],
        dtype=object,
    )
    det = AspectCategoryClassifier(**SMALL).fit(texts, Y)
    texts_test = sorted({t for t, _ in X_test})
    expected = {}
    for name, (model, data) in models.items():
        model.save(HERE / f"{name}.aam")
        (HERE / f"{name}.pkl").write_bytes(pickle.dumps(model))
        joblib.dump(model, HERE / f"{name}.joblib")
        expected[f"{name}_proba"] = model.predict_proba(data)
    det.save(HERE / "detector.aam")
    (HERE / "detector.pkl").write_bytes(pickle.dumps(det))
    joblib.dump(det, HERE / "detector.joblib")
    expected["detector_proba"] = np.stack(det.predict_proba(texts_test), 1)
    import skops.io as sio

    pipe = Pipeline([("clf", models["pairs_atae"][0])])
    sio.dump(pipe, HERE / "pairs_pipeline.skops")
    np.savez(HERE / "expected.npz", **expected)
    print(sorted(p.name for p in HERE.iterdir()))


if __name__ == "__main__":
    main()
