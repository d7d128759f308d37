import gzip

import numpy as np
import pytest
from conftest import FAST, GLOVE, lstm, requires_shared_data

from aspectattn import AspectAttentionClassifier
from aspectattn.encoders import LSTMEncoder
from aspectattn.exceptions import AspectAttnWarning
from aspectattn.text import vectors as emb

WORDS = ["the", "pasta", "was", "great", "waiter", "rude"]


@pytest.fixture
def vectors():
    rng = np.random.default_rng(0)
    return {w: rng.normal(size=4).astype(np.float32) for w in WORDS}


@pytest.fixture(autouse=True)
def _fresh_cache():
    emb.clear_vector_cache()
    yield
    emb.clear_vector_cache()


def _lines(vectors):
    return "".join(
        f"{w} " + " ".join(repr(float(x)) for x in v) + "\n" for w, v in vectors.items()
    )


def _write(kind, path, vectors):
    from gensim.models import KeyedVectors

    if kind == "glove":
        path.write_text(_lines(vectors))
    elif kind == "glove.gz":
        with gzip.open(path, "wt") as f:
            f.write(_lines(vectors))
    elif kind == "word2vec":
        path.write_text(f"{len(vectors)} 4\n" + _lines(vectors))
    else:
        kv = KeyedVectors(4)
        kv.add_vectors(list(vectors), np.stack(list(vectors.values())))
        if kind == "bin":
            kv.save_word2vec_format(str(path), binary=True)
        else:
            kv.save(str(path))


@pytest.mark.parametrize(
    "kind, name",
    [
        ("glove", "v.txt"),
        ("glove.gz", "v.txt.gz"),
        ("word2vec", "v.vec"),
        ("bin", "v.bin"),
        ("kv", "v.kv"),
    ],
)
def test_every_file_format_loads_the_same_vectors(kind, name, tmp_path, vectors):
    path = tmp_path / name
    _write(kind, path, vectors)
    kv = emb.load_word_vectors(path)
    assert kv.vector_size == 4 and len(kv) == len(WORDS)
    for w, v in vectors.items():
        np.testing.assert_allclose(kv[w], v, rtol=1e-6)


def test_files_are_cached_per_path_and_reloaded_when_changed(tmp_path, vectors):
    path = tmp_path / "v.txt"
    _write("glove", path, vectors)
    first = emb.load_word_vectors(str(path))
    assert emb.load_word_vectors(path) is first  # same object: not re-read
    import os
    import time

    time.sleep(0.01)
    _write("glove", path, {**vectors, "extra": np.ones(4, np.float32)})
    os.utime(path)
    assert len(emb.load_word_vectors(path)) == len(WORDS) + 1


def test_grid_search_candidates_share_one_load(tmp_path, vectors, monkeypatch, pairs):
    path = tmp_path / "v.txt"
    _write("glove", path, vectors)
    calls = []
    original = emb._load_file
    monkeypatch.setattr(emb, "_load_file", lambda p: calls.append(p) or original(p))
    for hidden in (4, 8, 12):
        encoder = lstm(embeddings=str(path), embedding_dim=None, hidden_size=hidden)
        AspectAttentionClassifier(**{**FAST, "max_epochs": 1, "encoder": encoder}).fit(
            *pairs
        )
    assert len(calls) == 1


def test_gensim_data_names_go_through_the_downloader(monkeypatch, vectors, tmp_path):
    import gensim.downloader

    monkeypatch.setenv("ASPECTATTN_DATA", str(tmp_path))  # no local copy there
    from gensim.models import KeyedVectors

    kv = KeyedVectors(4)
    kv.add_vectors(list(vectors), np.stack(list(vectors.values())))
    asked = []
    monkeypatch.setattr(
        gensim.downloader, "load", lambda name: asked.append(name) or kv
    )
    assert emb.load_word_vectors("glove-wiki-gigaword-50") is kv
    assert emb.load_word_vectors("glove-wiki-gigaword-50") is kv
    assert asked == ["glove-wiki-gigaword-50"]


def test_unknown_name_and_missing_file(monkeypatch):
    import gensim.downloader

    def refuse(name):
        raise ValueError(f"Incorrect model/corpus name: {name}")

    monkeypatch.setattr(gensim.downloader, "load", refuse)
    with pytest.raises(ValueError, match="neither an existing file nor a gensim-data"):
        emb.load_word_vectors("no-such-vectors")
    with pytest.raises(FileNotFoundError, match="not found"):
        emb.load_word_vectors("/nowhere/vectors.txt.gz")


def test_offline_download_error_says_what_to_do(monkeypatch, tmp_path):
    import gensim.downloader

    def offline(name):
        raise OSError("Network is unreachable")

    monkeypatch.setenv("ASPECTATTN_DATA", str(tmp_path))
    monkeypatch.setattr(gensim.downloader, "load", offline)
    with pytest.raises(OSError, match="glove/glove.6B.50d.txt.gz"):
        emb.load_word_vectors("glove-wiki-gigaword-50")

    def unconfirmed(name):  # what gensim says when it cannot fetch its name list
        raise ValueError("Incorrect model/corpus name")

    monkeypatch.setattr(gensim.downloader, "load", unconfirmed)
    with pytest.raises(ValueError, match="needs the internet"):
        emb.load_word_vectors("glove-wiki-gigaword-50")


def test_gensim_name_is_read_from_the_data_home(monkeypatch, tmp_path, vectors):
    import gensim.downloader

    (tmp_path / "glove").mkdir()
    lines = [" ".join([w, *map(str, v)]) for w, v in vectors.items()]
    (tmp_path / "glove" / "glove.6B.50d.txt").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("ASPECTATTN_DATA", str(tmp_path))
    monkeypatch.setattr(gensim.downloader, "load", lambda name: 1 / 0)
    kv = emb.load_word_vectors("glove-wiki-gigaword-50")
    assert set(kv.key_to_index) == set(vectors)


def test_embedding_matrix_keeps_only_the_vocabulary(vectors):
    from gensim.models import KeyedVectors

    kv = KeyedVectors(4)
    kv.add_vectors(list(vectors), np.stack(list(vectors.values())))
    words = ["<pad>", "<unk>", "pasta", "Rude", "zzz"]
    matrix, found = emb.build_embedding_matrix(words, kv, 4, np.random.default_rng(0))
    assert matrix.shape == (5, 4) and matrix.dtype == np.float32
    assert np.all(matrix[0] == 0)
    np.testing.assert_array_equal(matrix[2], vectors["pasta"])
    np.testing.assert_array_equal(matrix[3], vectors["rude"])  # lower-case fallback
    assert not np.allclose(matrix[4], 0)
    assert found.tolist() == [False, False, True, True, False]
    assert emb.vector_coverage(found) == pytest.approx(2 / 3)


def test_words_added_from_the_vectors_draw_nothing(vectors):
    # the rows of the first words, and the generator after, are those of a
    # vocabulary without the added words (so the validation split is too)
    from gensim.models import KeyedVectors

    kv = KeyedVectors(4)
    kv.add_vectors(list(vectors), np.stack(list(vectors.values())))
    words = ["<pad>", "<unk>", "pasta", "zzz"]
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    plain, _ = emb.build_embedding_matrix(words, kv, 4, rng_a)
    more, found = emb.build_embedding_matrix(
        [*words, "rude", "the"], kv, 4, rng_b, n_drawn=len(words)
    )
    np.testing.assert_array_equal(more[: len(words)], plain)
    np.testing.assert_array_equal(more[4], vectors["rude"])
    assert found.tolist() == [False, False, True, False, True, True]
    assert rng_a.random() == rng_b.random()
    with pytest.raises(ValueError, match="must have a pretrained vector"):
        emb.build_embedding_matrix([*words, "qqq"], kv, 4, rng_b, n_drawn=len(words))


def test_trained_word2vec_is_reproducible_across_processes(pairs):
    # gensim seeds vectors with Python's salted str hash unless told otherwise.
    import subprocess
    import sys

    script = (
        "from aspectattn.text.vectors import train_word_vectors as t;"
        "print(t('word2vec', [['a','b','c']]*20, 8, seed=3)['a'].tolist())"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": str(h), "PATH": ""},
        ).stdout
        for h in (1, 2)
    }
    assert len(outs) == 1 and outs != {""}


@pytest.mark.parametrize("kind", ["word2vec", "fasttext"])
def test_estimator_trains_its_own_vectors(kind, pairs):
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 1, "encoder": lstm(embeddings=kind, embedding_dim=12)}
    ).fit(*pairs)
    assert clf.module_.embedding.weight.shape[1] == 12
    assert clf.embedding_coverage_ == 1.0


def test_embedding_dim_must_match_the_file(tmp_path, vectors, pairs):
    path = tmp_path / "v.txt"
    _write("glove", path, vectors)
    with pytest.raises(ValueError, match="does not match the 4-d vectors"):
        AspectAttentionClassifier(
            **{**FAST, "encoder": lstm(embeddings=str(path), embedding_dim=16)}
        ).fit(*pairs)


def test_category_vectors_start_from_their_names(tmp_path, vectors, pairs):
    path = tmp_path / "v.txt"
    vectors = {**vectors, "food": np.full(4, 0.5, np.float32)}
    _write("glove", path, vectors)
    clf = AspectAttentionClassifier(
        **{
            **FAST,
            "max_epochs": 1,
            "lr": 1e-12,
            "encoder": lstm(embeddings=str(path), embedding_dim=None),
        }
    ).fit(*pairs)
    food = clf.module_.aspect_embedding.weight[list(clf.aspects_).index("food")]
    np.testing.assert_allclose(food.detach().numpy(), 0.5, atol=1e-6)


@requires_shared_data("glove/glove.6B.50d.100k.txt.gz")
def test_real_glove_file_reads_as_gensim_reads_it():
    from gensim.models import KeyedVectors

    kv = emb.load_word_vectors(GLOVE)
    assert kv.vector_size == 50 and len(kv) == 100_000
    np.testing.assert_allclose(kv["the"][:3], [0.418, 0.24968, -0.41242], rtol=1e-5)
    # gensim's own reader, on the first 3,000 words (all 100,000: 18 s)
    theirs = KeyedVectors.load_word2vec_format(GLOVE, no_header=True, limit=3000)
    assert kv.index_to_key[:3000] == theirs.index_to_key
    np.testing.assert_array_equal(kv.vectors[:3000], theirs.vectors)


def test_text_vectors_are_read_in_chunks_as_gensim_reads_them(tmp_path, monkeypatch):
    from gensim.models import KeyedVectors

    lines = ["4 3", "the 0.1 0.2 0.3", "pasta -1 2e-3 4.5 ", "été 1 2 3"]
    lines += ["great 0.5 0.25 0.125"]
    path, ours = tmp_path / "v.vec", tmp_path / "ours.vec"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # a blank line (gensim refuses it) is skipped; a word met again keeps its
    # first vector (gensim leaves an empty slot where the header counts it)
    more = ["5 3", lines[1], "", lines[2], "the 9 9 9", *lines[3:]]
    ours.write_text("\n".join(more) + "\n", encoding="utf-8")
    monkeypatch.setattr(emb, "TEXT_CHUNK_LINES", 2)  # chunk ends inside the data
    kv = emb.load_word_vectors(ours)
    theirs = KeyedVectors.load_word2vec_format(path)
    assert kv.index_to_key == theirs.index_to_key == ["the", "pasta", "été", "great"]
    np.testing.assert_array_equal(kv.vectors, theirs.vectors)


def test_a_word_with_spaces_takes_all_but_the_last_dim_fields(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("the 1 2\n. . . 3 4\nat&t 5 6\n")  # as in GloVe 840B
    kv = emb.load_word_vectors(path)
    assert kv.index_to_key == ["the", ". . .", "at&t"]
    np.testing.assert_array_equal(kv[". . ."], [3, 4])


@pytest.mark.parametrize(
    "bad, line",
    [
        ("pasta 1 two 3", 2),  # not a number
        ("pasta 1 2", 2),  # too few
        ("pasta nan 2 3", 2),
        ("pasta 1 inf 3", 2),
    ],
)
def test_a_bad_line_of_a_text_vector_file_is_named(tmp_path, bad, line):
    path = tmp_path / "v.txt"
    path.write_text(f"the 0.1 0.2 0.3\n{bad}\ngreat 1 2 3\n")
    with pytest.raises(ValueError, match=f"v.txt, line {line}: expected a word and 3"):
        emb.load_word_vectors(path)


@pytest.mark.parametrize(
    "text, message",
    [("\n\n", "holds no word vectors"), ("the\n", "line 1: no vector"),
     ("3 0\nthe\n", "line 2: no vector")],
)  # fmt: skip
def test_a_vector_file_without_vectors_is_an_error(tmp_path, text, message):
    path = tmp_path / "v.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        emb.load_word_vectors(path)


def test_extra_vocabulary_reads_words_the_training_text_lacks(tmp_path, vectors):
    path = tmp_path / "v.txt"
    vectors = {
        **vectors,
        "Awful": -vectors["the"],  # never a lower-cased token: skipped
        "awful": np.full(4, 0.5, np.float32),
        "soup": -vectors["was"],  # beyond the first 8
    }
    _write("glove", path, vectors)  # file order = frequency order
    X = [("the pasta was great", "pasta"), ("the waiter was rude", "waiter")] * 10
    y = ["positive", "negative"] * 10
    words = dict(embeddings=str(path), embedding_dim=None)
    params = {**FAST, "max_epochs": 3, "encoder": lstm(**words)}
    plain = AspectAttentionClassifier(**params).fit(X, y)
    extended = AspectAttentionClassifier(
        **{**params, "encoder": lstm(**words, extra_vocabulary=8)}
    ).fit(X, y)
    words = extended.text_pipeline_.vocabulary.words_
    # the lower-case words among the first 8 of the file; "soup" stays unknown
    assert words[: len(plain.vocabulary_.words_)] == plain.vocabulary_.words_
    assert words[len(plain.vocabulary_.words_) :] == ["awful"]
    assert extended.embedding_coverage_ == plain.embedding_coverage_
    # trained rows move, the extra row keeps its vector: no training word uses it
    table = extended.module_.embedding.weight.detach().numpy()
    np.testing.assert_array_equal(table[words.index("awful")], 0.5)
    assert not np.allclose(table[words.index("great")], vectors["great"])
    # and prediction reads it: "awful" is no longer the unknown token
    probe = [("the pasta was awful", "pasta")]
    unknown = [("the pasta was qqq", "pasta")]
    assert not np.allclose(
        extended.predict_proba(probe), extended.predict_proba(unknown)
    )
    np.testing.assert_allclose(plain.predict_proba(probe), plain.predict_proba(unknown))


def test_extra_vocabulary_without_a_vector_file_warns(pairs):
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 1, "encoder": lstm(extra_vocabulary=10)}
    )
    with pytest.warns(
        AspectAttnWarning, match="'encoder__extra_vocabulary' is not used"
    ):
        clf.fit(*pairs)


def test_a_fasttext_bin_gives_every_word_a_vector_from_its_ngrams(tmp_path):
    # a user's fastText .bin (Facebook's format, with its character n-grams): the
    # words of the text that it does not hold (inflections, above all) get the
    # vector its n-grams make, instead of a random one
    from gensim.models import FastText
    from gensim.models.fasttext import load_facebook_vectors, save_facebook_model

    sentences = [["хороший", "ресторан", "вкусный", "суп"],
                 ["плохой", "официант", "холодный", "суп"]] * 20  # fmt: skip
    model = FastText(sentences=sentences, vector_size=8, min_count=1, epochs=5,
                     bucket=2000, seed=0, workers=1)  # fmt: skip
    path = tmp_path / "ru.bin"
    save_facebook_model(model, str(path))
    X = [("хорошие рестораны и вкусный суп", "ресторан"),
         ("плохие официанты и холодный суп", "официант")] * 10  # fmt: skip
    clf = AspectAttentionClassifier(
        encoder=LSTMEncoder(embeddings=str(path)),
        max_epochs=1,
        random_state=0,
        aspect_type="term",
    ).fit(X, ["positive", "negative"] * 10)
    assert clf.embedding_coverage_ == 1.0  # "рестораны", "официанты"... included
    kv = load_facebook_vectors(str(path))
    row = clf.vocabulary_.index_["вкусный"]
    # (a trainable table: compare the vector the fit started from)
    from aspectattn.text.vectors import lookup_vector

    np.testing.assert_allclose(lookup_vector(kv, "вкусный"), kv["вкусный"])
    assert lookup_vector(kv, "рестораны") is not None
    assert "рестораны" not in kv.key_to_index and row > 1
    # the fitted model keeps the file's n-gram rows that its vocabulary uses: the
    # vector they build for a word the file lacks is the file's own
    clf.set_params(encoder__unseen_words="vectors")
    clf.fit(X, ["positive", "negative"] * 10)
    table = clf.text_pipeline_.unseen
    assert table.buckets == kv.bucket and len(table.rows) < kv.bucket
    np.testing.assert_allclose(
        table.word_vectors(["рестораны"])[0], kv["рестораны"], rtol=1e-2, atol=1e-3
    )


def test_vectors_in_memory_are_refused_with_how_to_pass_them():
    """The docs allowed gensim KeyedVectors for `embeddings`; a parameter is
    copied into every clone, so they are given by path, and the error says how."""
    from gensim.models import KeyedVectors

    from aspectattn import AspectAttentionClassifier
    from aspectattn.encoders import LSTMEncoder

    kv = KeyedVectors(4)
    kv.add_vectors(["good", "bad"], np.ones((2, 4), dtype=np.float32))
    X, y = [("good food", "food"), ("bad food", "food")] * 3, ["pos", "neg"] * 3
    clf = AspectAttentionClassifier(encoder=LSTMEncoder(embeddings=kv))
    with pytest.raises(TypeError, match=r"kv.save\('vectors.kv'\)"):
        clf.fit(X, y)


def test_vectors_fitted_on_unlabelled_reviews_start_the_encoder(pairs, tmp_path):
    """fit_word_vectors: the reviews (here the training texts and more) as the
    word encoders split them, in a file the encoder reads without pickle; every
    training word has its vector, and the same seed gives the same file."""
    X, y = pairs
    texts = [t for t, _ in X]
    more = ["The soup was lovely but the bill was steep."] * 20
    path = emb.fit_word_vectors(texts + more, tmp_path / "reviews.bin", dim=16)
    again = emb.fit_word_vectors(texts + more, tmp_path / "again.bin", dim=16)
    assert path.read_bytes() == again.read_bytes()
    assert not path.read_bytes().startswith(b"\x80")  # no pickle
    vectors = emb.load_word_vectors(path)
    assert {"soup", "bill", "steep"} <= set(vectors.index_to_key)
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 1, "encoder": lstm(embeddings=str(path))}
    ).fit(X, y)
    assert clf.embedding_coverage_ == 1.0
    with pytest.raises(ValueError, match="needs texts"):
        emb.fit_word_vectors([], tmp_path / "none.bin")
    assert not (tmp_path / "none.bin").exists()


def test_own_vectors_make_their_passes_over_every_row_copies_included(monkeypatch):
    # chosen on validation (benchmarks/own_vectors.py): 30 passes over the given
    # sentences and the copies augment makes, not 10, not the sentences alone
    from gensim.models import Word2Vec

    from aspectattn.params import VECTOR_PASSES

    read = []

    class Spy(Word2Vec):
        def __init__(self, **kwargs):
            read.append((kwargs["sentences"], kwargs["epochs"]))
            super().__init__(**kwargs)

    monkeypatch.setattr("gensim.models.Word2Vec", Spy)
    X = [
        ("The pasta was great .", "pasta"),
        ("The waiter was rude .", "waiter"),
        ("The wine was great but the music was rude .", "wine"),
    ] * 4
    y = ["positive", "negative", "positive"] * 4
    clf = AspectAttentionClassifier(
        **{
            **FAST,
            "max_epochs": 1,
            "augment": "flip",
            "encoder": lstm(embeddings="word2vec", embedding_dim=8),
        }
    ).fit(X, y)
    ((sentences, passes),) = read
    assert passes == VECTOR_PASSES == 30
    given = [text.lower().split() for text, _ in X]
    assert sentences[: len(X)] == given and len(sentences) > len(X)  # the copies
    assert {w for t in sentences for w in t} == set(
        clf.text_pipeline_.vocabulary.words_[2:]
    )


def test_word_dropout_fits_reproducibly_and_saves_nothing_of_it(pairs, tmp_path):
    # word_dropout=alpha: rare training words read as the unknown token, so that
    # its embedding is trained; seeded from the fit's generator, the caller's
    # left alone; prediction and the model file as without it
    import pickle

    import torch
    from sklearn.base import clone

    from aspectattn.persistence import load
    from aspectattn.text.tokens import OOV_ID

    X, y = pairs
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 2, "encoder": lstm(word_dropout=0.25)}
    )
    state = torch.random.get_rng_state()
    first = clf.fit(X, y).predict_proba(X)
    assert torch.equal(torch.random.get_rng_state(), state)
    np.testing.assert_array_equal(clone(clf).fit(X, y).predict_proba(X), first)
    assert clf.resolved_params_["encoder__word_dropout"] == 0.25
    plain = clone(clf).set_params(encoder__word_dropout=0.0).fit(X, y)
    assert not np.allclose(plain.predict_proba(X), first)

    # the unknown token's embedding is trained with it; without it no training
    # word reads it (every one is in the vocabulary), so it stays as it started
    def unknown_row(model):
        return model.module_.embedding.weight[OOV_ID].detach()

    one_epoch = clone(plain).set_params(max_epochs=1).fit(X, y)
    assert torch.equal(unknown_row(plain), unknown_row(one_epoch))
    assert not torch.equal(unknown_row(clf), unknown_row(plain))
    np.testing.assert_allclose(
        pickle.loads(pickle.dumps(clf)).predict_proba(X), first, atol=1e-6
    )
    clf.save(tmp_path / "m.aam")
    np.testing.assert_allclose(
        load(tmp_path / "m.aam").predict_proba(X), first, atol=1e-6
    )
    # "auto" is the LSTM recipe's
    from aspectattn.params import ENCODERS

    auto = clone(clf).set_params(encoder__word_dropout="auto").fit(X, y)
    assert (
        auto.resolved_params_["encoder__word_dropout"]
        == ENCODERS["lstm"].recipe.category_word_dropout
    )
