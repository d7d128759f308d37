import math
import pickle

import numpy as np
import pytest
from conftest import BAD, FOOD, GOOD, SERVICE, SHARED_DATA
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from aspectattn import InputError, UnknownAspectError
from aspectattn.estimators.baselines import (
    POSWeightedEmbeddingVectorizer,
    TfidfEmbeddingVectorizer,
    make_baseline,
)
from aspectattn.text.vectors import clear_vector_cache

VECTORS = {
    "good": [1.0, 0.0],
    "bad": [0.0, 1.0],
    "food": [1.0, 1.0],
    "service": [2.0, 0.0],
}
TAGS = {"good": "JJ", "bad": "JJ", "great": "JJ", "quickly": "RB", "was": "VBD"}


def tiny_tagger(tokens):
    """A picklable stand-in tagger: adjectives from a list, nouns otherwise."""
    return [TAGS.get(t.lower(), "NN") for t in tokens]


@pytest.fixture
def vec_file(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text("".join(f"{w} {v[0]} {v[1]}\n" for w, v in VECTORS.items()))
    yield str(path)
    clear_vector_cache()


FIT = [("good food", "food"), ("bad food", "food"), ("good service", "service")]


def test_tfidf_features_by_hand(vec_file):
    vec = TfidfEmbeddingVectorizer(embeddings=vec_file, aspect_type="category")
    vec.fit(FIT)
    out = vec.transform([("good good bad meh", "food")])
    # 3 distinct sentences; df(good) = 2, df(bad) = 1; smooth idf = ln(4/(1+df)) + 1
    idf_good, idf_bad = math.log(4 / 3) + 1, math.log(4 / 2) + 1
    # "meh" is unknown and has no vector: it is left out of the mean.
    w_good, w_bad = 2 * idf_good, 1 * idf_bad
    expected = [w_good / (w_good + w_bad), w_bad / (w_good + w_bad), 1.0, 0.0]
    np.testing.assert_allclose(out[0], expected, rtol=1e-6)
    assert vec.get_feature_names_out().tolist() == [
        "sentence_emb0",
        "sentence_emb1",
        "aspect=food",
        "aspect=service",
    ]


def test_tfidf_sublinear_and_no_idf(vec_file):
    vec = TfidfEmbeddingVectorizer(
        embeddings=vec_file, use_idf=False, sublinear_tf=True
    ).fit(FIT)
    out = vec.transform([("good good bad", "food")])
    tf_good, tf_bad = 1 + math.log(2), 1.0
    np.testing.assert_allclose(
        out[0, :2],
        [tf_good / (tf_good + tf_bad), tf_bad / (tf_good + tf_bad)],
        rtol=1e-6,
    )


def test_pos_features_by_hand(vec_file):
    vec = POSWeightedEmbeddingVectorizer(
        embeddings=vec_file, tagger=tiny_tagger, adj_weight=2.0, noun_weight=1.0
    ).fit(FIT)
    out = vec.transform([("Good food", "food")])
    # good: ADJ weight 2 * [1, 0]; food: NOUN weight 1 * [1, 1]
    np.testing.assert_allclose(out[0, :2], [(2 + 1) / 3, 1 / 3], rtol=1e-6)


def test_term_features_by_hand(vec_file):
    fit = [
        ("the food was good but service bad", "food"),
        ("the food was good but service bad", "service"),
    ]
    vec = TfidfEmbeddingVectorizer(embeddings=vec_file, window=1, use_idf=False).fit(
        fit
    )
    assert vec.aspect_type_ == "term"
    out = vec.transform([fit[1]])
    dim = 2
    np.testing.assert_allclose(out[0, dim : 2 * dim], VECTORS["service"])  # term
    # context: one word either side of "service": "but" (no vector) and "bad"
    np.testing.assert_allclose(out[0, 2 * dim :], VECTORS["bad"])
    assert len(vec.get_feature_names_out()) == 3 * dim


def test_each_distinct_sentence_is_tagged_once(vec_file):
    calls = []

    def counting(tokens):
        calls.append(tuple(tokens))
        return tiny_tagger(tokens)

    vec = POSWeightedEmbeddingVectorizer(embeddings=vec_file, tagger=counting)
    X = [("good food", "food"), ("good food", "service"), ("bad food", "food")] * 3
    vec.fit(X)
    assert calls == []  # fitting needs no tags
    vec.transform(X)
    assert sorted(calls) == [("bad", "food"), ("good", "food")]


def _synthetic(n, seed):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n):
        good = bool(rng.integers(2))
        aspect = rng.choice(["food", "service"])
        noun = rng.choice(FOOD if aspect == "food" else SERVICE)
        adj = rng.choice(GOOD if good else BAD)
        X.append((f"the {noun} was {adj}", aspect))
        y.append("positive" if good else "negative")
    return X, y


def test_pipeline_and_grid_search_over_pos_weights(tmp_path):
    X, y = _synthetic(120, 0)
    # Random but distinct word vectors: the adjective identifies the sentiment only
    # if its weight is non-zero.
    rng = np.random.default_rng(0)
    words = {w for t, _ in X for w in t.split()}
    path = tmp_path / "random.txt"
    path.write_text(
        "".join(
            f"{w} " + " ".join(map(str, rng.normal(size=16))) + "\n"
            for w in sorted(words)
        )
    )
    pipe = make_pipeline(
        POSWeightedEmbeddingVectorizer(embeddings=str(path), tagger=tiny_tagger),
        LogisticRegression(max_iter=1000),
    )
    grid = GridSearchCV(
        pipe,
        {
            "posweightedembeddingvectorizer__adj_weight": [0.0, 3.0],
            "posweightedembeddingvectorizer__noun_weight": [0.0, 1.0],
        },
        cv=3,
    )
    grid.fit(X, y)
    assert len(grid.cv_results_["params"]) == 4
    # Sentiment lives in the adjective: the grid must not pick adj_weight=0.
    assert grid.best_params_["posweightedembeddingvectorizer__adj_weight"] == 3.0
    assert grid.score(*_synthetic(60, 1)) > 0.8


@pytest.mark.parametrize("kind", ["tfidf", "pos"])
@pytest.mark.parametrize("classifier", ["logreg", "svm"])
def test_make_baseline(kind, classifier, vec_file):
    params = {"tagger": tiny_tagger} if kind == "pos" else {}
    pipe = make_baseline(kind, classifier, embeddings=vec_file, **params)
    pipe.fit(FIT * 4, ["pos", "neg", "pos"] * 4)
    assert pipe.predict(FIT).shape == (3,)


@pytest.mark.parametrize(
    "cls", [TfidfEmbeddingVectorizer, POSWeightedEmbeddingVectorizer]
)
def test_pickle_round_trip_and_clone(cls, vec_file):
    params = {"tagger": tiny_tagger} if cls is POSWeightedEmbeddingVectorizer else {}
    vec = cls(embeddings=vec_file, **params).fit(FIT)
    again = pickle.loads(pickle.dumps(vec))
    np.testing.assert_array_equal(again.transform(FIT), vec.transform(FIT))
    state = vec.__dict__
    assert not any(
        type(v).__module__.startswith(("gensim", "nltk")) for v in state.values()
    )
    assert clone(vec).get_params() == vec.get_params()


@pytest.mark.skipif(not (SHARED_DATA / "nltk_data").exists(), reason="no NLTK data")
def test_default_nltk_tagger_and_pickle(vec_file, monkeypatch):
    pytest.importorskip("nltk")
    monkeypatch.setenv("NLTK_DATA", str(SHARED_DATA / "nltk_data"))
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(SHARED_DATA / "nltk_data")])
    from aspectattn.text import pos

    pos._reset_nltk_tagger()
    vec = POSWeightedEmbeddingVectorizer(embeddings=vec_file).fit(FIT)
    out = vec.transform(FIT)
    again = pickle.loads(pickle.dumps(vec))
    np.testing.assert_array_equal(again.transform(FIT), out)


def test_bad_input(vec_file):
    vec = TfidfEmbeddingVectorizer(embeddings=vec_file, aspect_type="category")
    with pytest.raises(InputError, match="bare string"):
        vec.fit("good food")
    vec.fit(FIT)
    with pytest.raises(UnknownAspectError, match="not seen in fit"):
        vec.transform([("good food", "price")])
    with pytest.raises(ValueError, match="embeddings=None"):
        TfidfEmbeddingVectorizer(embeddings=None).fit(FIT)
    with pytest.raises(ValueError, match="'window' parameter"):
        TfidfEmbeddingVectorizer(embeddings=vec_file, window=-1).fit(FIT)
    with pytest.raises(
        ValueError, match="'tagger' parameter .* must be None or a callable"
    ):
        POSWeightedEmbeddingVectorizer(embeddings=vec_file, tagger="spacy").fit(FIT)
    with pytest.raises(ValueError, match="one per token"):
        POSWeightedEmbeddingVectorizer(
            embeddings=vec_file, tagger=lambda toks: ["NN"]
        ).fit(FIT).transform([("good food", "food")])


def test_unfitted(vec_file):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        TfidfEmbeddingVectorizer(embeddings=vec_file).transform(FIT)


def test_the_default_tagger_refuses_a_language_it_cannot_read(vec_file):
    with pytest.raises(ValueError, match="reads English.*Pass tagger="):
        POSWeightedEmbeddingVectorizer(embeddings=vec_file, language="fr").fit(FIT)
    vec = POSWeightedEmbeddingVectorizer(
        embeddings=vec_file, language="fr", tagger=_noun_tagger
    ).fit(FIT)
    assert vec.text_pipeline_.tokenizer.language == "fr"


def _noun_tagger(tokens):
    return ["NOUN"] * len(tokens)


def test_own_vectors_make_the_word_encoders_passes(monkeypatch):
    # chosen on cross-validation (benchmarks/baselines.py --own-vectors)
    from gensim.models import Word2Vec

    from aspectattn.params import VECTOR_PASSES

    passes = []

    class Spy(Word2Vec):
        def __init__(self, **kwargs):
            passes.append((len(kwargs["sentences"]), kwargs["epochs"]))
            super().__init__(**kwargs)

    monkeypatch.setattr("gensim.models.Word2Vec", Spy)
    vec = TfidfEmbeddingVectorizer(
        embeddings="word2vec", embedding_dim=4, aspect_type="category"
    )
    vec.fit(FIT + FIT)  # each distinct sentence once
    assert passes == [(len(FIT), VECTOR_PASSES)] and VECTOR_PASSES == 30
