"""Unseen words read through their character n-grams (aspectattn.text.ngrams): the
hashing is fastText's, the neighbours are the right words, the fitted state is
bounded, checked on load and free of gensim objects."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import FAST, lstm

from aspectattn import AspectAttentionClassifier
from aspectattn.persistence import ModelFileError, load, save, to_payload
from aspectattn.text.ngrams import (
    MIN_SPELLING,
    NgramTable,
    SpellingNeighbours,
    char_ngrams,
    neighbours_from_state,
    ngram_buckets,
)
from aspectattn.text.pipelines import WordPipeline, pipeline_from_state
from aspectattn.text.tokens import OOV_ID

WORDS = ["привет", "ресторанах", "İstanbul", "ışık", "日本語", "a", "😀x", "café",
         "naïve", "खाना", "שָׁלוֹם", "ab"]  # fmt: skip
VOCABULARY = ["<pad>", "<unk>", "ресторан", "креветки", "вкусно", "harika", "pasta"]


def test_ngrams_and_hashes_are_fasttexts():
    from gensim.models.fasttext import compute_ngrams_bytes, ft_ngram_hashes

    bucket, owner = ngram_buckets(WORDS, 3, 6, 2_000_000)
    for i, word in enumerate(WORDS):
        grams = [g.decode("utf-8") for g in compute_ngrams_bytes(word, 3, 6)]
        assert sorted(char_ngrams(word, 3, 6)) == sorted(grams), word
        assert sorted(bucket[owner == i]) == sorted(
            ft_ngram_hashes(word, 3, 6, 2_000_000)
        )


def test_spelling_reads_an_inflection_as_its_stem_and_a_stranger_as_unknown():
    ids = SpellingNeighbours().nearest(
        ["креветкой", "ресторанах", "harikadır", "pastas", "xyzzy", "pa"], VOCABULARY
    )
    assert [VOCABULARY[i] for i in ids[:4]] == [
        "креветки",
        "ресторан",
        "harika",
        "pasta",
    ]
    assert ids[4] == ids[5] == OOV_ID  # nothing alike; too short to share enough
    # many words at once: read in chunks, alike
    many = ["креветкой", "xyzzy"] * 1500
    assert list(SpellingNeighbours().nearest(many, VOCABULARY)) == [3, OOV_ID] * 1500
    # never the padding or unknown entries, even for their own spelling
    assert SpellingNeighbours().nearest(["<pad>"], ["<pad>", "<unk>"])[0] == OOV_ID


def test_a_guard_keeps_a_word_from_its_negation_and_its_rhymes():
    """Without a guard the n-grams read "inconvenient" as "convenient", and
    "безвкусный" (tasteless) as "вкусный" (tasty): a prefix. "sailed" shares its
    ending with "failed": a rhyme. A guard reads the next nearest word it
    allows ("inconvenience"), else the unknown token; "креветкой" stays
    "креветки"."""
    vocabulary = ["<pad>", "<unk>", "convenient", "inconvenience", "вкусный",
                  "failed", "креветки"]  # fmt: skip
    words = ["inconvenient", "безвкусный", "sailed", "креветкой"]

    def read(guard, vocabulary=vocabulary):
        ids = SpellingNeighbours(guard=guard).nearest(words, vocabulary)
        return [vocabulary[i] for i in ids]

    assert read(None) == ["convenient", "вкусный", "failed", "креветки"]
    assert read("prefix") == ["inconvenience", "<unk>", "failed", "креветки"]
    assert read("initial") == ["inconvenience", "<unk>", "<unk>", "креветки"]
    # "prefix" bars the word itself with letters before it, not its other
    # forms: "conveniently" is allowed; "initial" bars it too
    other = [w if w != "inconvenience" else "conveniently" for w in vocabulary]
    assert read("prefix", other)[0] == "conveniently"
    assert read("initial", other)[0] == "<unk>"
    for guard in (None, "prefix", "initial"):  # the guard is kept in the state
        state = SpellingNeighbours(guard=guard).to_state()
        assert neighbours_from_state(state).guard == guard
    # a model file of earlier versions has no guard: it reads as it did
    old = {"kind": "spelling", "min_n": 3, "max_n": 6}
    assert neighbours_from_state(old).guard is None
    state = SpellingNeighbours(guard="initial").__getstate__()  # and a pickle's
    del state["guard"]
    unpickled = SpellingNeighbours.__new__(SpellingNeighbours)
    unpickled.__dict__.update(state)
    assert unpickled.guard is None and read(None) == [
        vocabulary[i] for i in unpickled.nearest(words, vocabulary)
    ]


@pytest.fixture(scope="module")
def fasttext():
    from aspectattn.text.vectors import train_word_vectors

    texts = [["the", "pasta", "was", "great"], ["the", "waiter", "was", "rude"]] * 20
    return train_word_vectors("fasttext", texts, 16, seed=0)


def test_table_builds_gensims_vector_for_an_unseen_word(fasttext):
    table = NgramTable.from_vectors(fasttext, ["pastas", "waiter"])
    mine = table.word_vectors(["pastas"])[0]
    np.testing.assert_allclose(mine, fasttext["pastas"], rtol=1e-2, atol=1e-3)
    # an n-gram outside the table does not count; no n-gram kept gives zeros
    assert not table.word_vectors(["zzzz"]).any()


def test_table_is_bounded_keeping_the_ngrams_most_words_use(fasttext):
    words = ["pasta", "pastas", "pastry", "waiter"]
    full = NgramTable.from_vectors(fasttext, words)
    small = NgramTable.from_vectors(fasttext, words, max_bytes=2 * 16 * 5)
    assert len(small.rows) == 5 < len(full.rows)
    assert small.vectors.dtype == np.float16
    bucket, owner = ngram_buckets(words, 3, 6, fasttext.bucket)
    users = {b: len(set(owner[bucket == b])) for b in set(bucket)}
    dropped = set(full.rows) - set(small.rows)
    assert min(users[b] for b in small.rows) >= max(users[b] for b in dropped) == 3


def test_table_is_none_without_ngrams_and_vectors_mode_says_so():
    from aspectattn.text.vectors import train_word_vectors

    w2v = train_word_vectors("word2vec", [["a", "b"]] * 3, 8, seed=0)
    assert NgramTable.from_vectors(w2v, ["a"]) is None
    X, y = [("great pasta", "food"), ("rude waiter", "service")] * 4, ["p", "n"] * 4
    with pytest.raises(
        ValueError, match="unseen_words='vectors'.*embeddings='word2vec'"
    ):
        AspectAttentionClassifier(
            **{**FAST, "encoder": lstm(embeddings="word2vec", unseen_words="vectors")}
        ).fit(X, y)


def _table_state(fasttext):
    return NgramTable.from_vectors(fasttext, ["pasta", "waiter"]).to_state()


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(kind="other"), "one of"),
        (dict(extra=1), "keys"),
        (dict(min_n=0), "min_n"),
        (dict(min_n=5, max_n=4), "min_n"),
        (dict(max_n=10**6), "max_n"),
        (dict(buckets=0), "buckets"),
        (dict(buckets=True), "buckets"),
        (dict(dim=0), "dim"),
        (dict(vectors="not base64!"), "base64"),
        (dict(vectors="A" * (2**26)), "at most"),
        (dict(vectors=""), "match"),
        (dict(rows="AAAAAA=="), "match"),
        # the message names the field that is wrong
        (dict(vectors=123), "'vectors' must be a base64 string"),
        (dict(rows=[1, 2]), "'rows' must be a base64 string"),
        (dict(dim=2**23), "'rows' holds at most 4 bytes"),
        (dict(dim=2**23 + 1), "'dim' must be an integer"),
        (dict(buckets=2**40), "'buckets' must be an integer"),
        (dict(guard="suffix"), "'guard' must be one of"),
    ],
)
def test_table_state_from_a_file_is_checked(fasttext, change, message):
    state = {**_table_state(fasttext), **change}
    with pytest.raises(ValueError, match=message):
        neighbours_from_state(state)


def test_table_rows_and_values_are_checked(fasttext):
    import base64

    state = _table_state(fasttext)
    rows = np.frombuffer(base64.b64decode(state["rows"]), "<i4")
    for bad in (rows[::-1], np.full_like(rows, -1), rows + fasttext.bucket):
        with pytest.raises(ValueError, match="rows"):
            neighbours_from_state(
                {**state, "rows": base64.b64encode(bad.tobytes()).decode()}
            )
    vectors = np.frombuffer(base64.b64decode(state["vectors"]), "<f2").copy()
    vectors[3] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        neighbours_from_state(
            {**state, "vectors": base64.b64encode(vectors.tobytes()).decode()}
        )
    table = neighbours_from_state(state)  # and the state itself round-trips
    assert table.to_state() == state


def test_pipeline_encodes_unseen_words_as_neighbours_and_round_trips():
    texts = ["the креветки were great", "ресторан was fine"]
    pipeline = WordPipeline(language=None).fit(texts)
    pipeline.word_vectors(
        None, 8, texts, 0, np.random.default_rng(0), 0, "spelling", passes=1
    )
    words = pipeline.vocabulary.words_
    encoded = pipeline.encode(["креветкой в ресторанах"])
    assert [words[i] for i in encoded.ids] == ["креветки", "<unk>", "ресторан"]
    terms = pipeline.encode_terms(["креветкой"])
    assert words[terms.ids[0]] == "креветки"
    state = json.loads(json.dumps(pipeline.to_state()))
    again = pipeline_from_state(state)
    assert (again.encode(["креветкой в ресторанах"]).ids == encoded.ids).all()
    # a state from before unseen words were read: the unknown token, as then
    del state["unseen"]
    old = pipeline_from_state(state)
    assert old.unseen is None
    assert list(old.encode(["креветкой"]).ids) == [OOV_ID]


@pytest.mark.parametrize("unseen_words", ["spelling", "vectors", None])
def test_estimator_reads_unseen_inflections_and_keeps_it_through_files(
    unseen_words, tmp_path
):
    X = [("the pastas were delicious", "food"), ("the waiter was rude", "service")]
    X, y = X * 10, ["positive", "negative"] * 10
    clf = AspectAttentionClassifier(
        **{**FAST, "encoder": lstm(embeddings="fasttext", unseen_words=unseen_words)}
    ).fit(X, y)
    pipeline = clf.text_pipeline_
    ids = pipeline.encode(["the pasta was delicious"]).ids
    pastas = pipeline.vocabulary.index_["pastas"]
    if unseen_words is None:
        assert ids[1] == OOV_ID
    else:  # the nearest word (vectors from 40 words are no judge of how near)
        words = pipeline.vocabulary.words_
        assert pipeline.unseen.nearest(["pasta"], words, threshold=0.0) == [pastas]
    if unseen_words == "spelling":
        assert ids[1] == pastas
    if unseen_words == "vectors":
        assert type(pipeline.unseen.vectors) is np.ndarray
        # seeded: the same fit gives the same table
        again = AspectAttentionClassifier(**clf.get_params(deep=False)).fit(X, y)
        assert again.text_pipeline_.unseen.to_state() == pipeline.unseen.to_state()
    new = [("the pasta was delicious", "food"), ("a ruder waiter", "service")]
    proba = clf.predict_proba(new)
    assert (pickle.loads(pickle.dumps(clf)).predict_proba(new) == proba).all()
    save(clf, tmp_path / "m.aam")
    assert (load(tmp_path / "m.aam").predict_proba(new) == proba).all()
    if unseen_words != "vectors":
        return  # (the others keep no table of gensim's making)
    # a fresh process that cannot import gensim predicts the same
    with open(tmp_path / "m.pkl", "wb") as f:
        pickle.dump(clf, f)
    code = textwrap.dedent(f"""
        import pickle, sys
        sys.modules["gensim"] = None  # any import of gensim fails
        with open({str(tmp_path / "m.pkl")!r}, "rb") as f:
            clf = pickle.load(f)
        print(clf.predict_proba({new!r}).tolist())
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    np.testing.assert_array_equal(json.loads(out.stdout), proba)


def test_a_model_file_with_a_bad_table_is_refused(tmp_path):
    X = [("the pastas were delicious", "pasta"), ("the waiter was rude", "waiter")]
    clf = AspectAttentionClassifier(
        **{
            **FAST,
            "encoder": lstm(embeddings="fasttext", unseen_words="vectors"),
            "max_epochs": 1,
        }
    ).fit(X * 4, ["positive", "negative"] * 4)
    payload = to_payload(clf)
    meta = json.loads(payload["metadata"])
    meta["fitted"]["text_pipeline_"]["unseen"]["buckets"] = -1
    payload["metadata"] = json.dumps(meta)
    from aspectattn.persistence import _digest, from_payload

    payload["sha256"] = _digest(payload["metadata"], payload["tensors"])
    with pytest.raises(ModelFileError, match="buckets"):
        from_payload(payload)


def test_the_detector_reads_unseen_words_too():
    from aspectattn import AspectCategoryClassifier

    texts = ["the pastas were delicious", "the waiter was rude"] * 5
    Y = [["positive", "not mentioned"], ["not mentioned", "negative"]] * 5
    clf = AspectCategoryClassifier(**{**FAST, "max_epochs": 1}).fit(texts, Y)
    words = clf.text_pipeline_.vocabulary.words_
    ids = clf.text_pipeline_.encode(["the pasta was delicious"]).ids
    assert words[ids[1]] == "pastas"


def test_words_read_are_remembered_within_a_bound(monkeypatch):
    import aspectattn.text.ngrams as ngrams

    neighbours = SpellingNeighbours(guard=None)  # (any word is near at 0.0)
    first = neighbours.nearest(["креветкой", "xyzzy"], VOCABULARY)
    memo = neighbours._known[3]
    assert memo == {"креветкой": 3, "xyzzy": OOV_ID}
    assert (
        list(neighbours.nearest(["xyzzy", "креветкой"], VOCABULARY))
        == [
            OOV_ID,
            3,
        ]
        == list(first[::-1])
    )
    # another threshold is searched afresh, and not remembered
    assert neighbours.nearest(["xyzzy"], VOCABULARY, threshold=0.0)[0] != OOV_ID
    assert memo["xyzzy"] == OOV_ID
    # a reader pickles without what it made on first use, and reads alike after
    again = pickle.loads(pickle.dumps(neighbours))
    assert again._known is None
    assert list(again.nearest(["креветкой"], VOCABULARY)) == [3]
    monkeypatch.setattr(ngrams, "MEMO_SIZE", 3)
    neighbours.nearest(["ресторанах", "harikadır"], VOCABULARY)
    assert set(memo) == {"ресторанах", "harikadır"}  # started afresh
    # one request of more new words than the bound keeps no more than it
    many = [f"слово{k}" for k in range(10)]
    assert len(neighbours.nearest(many, VOCABULARY)) == 10
    assert set(memo) == set(many[-3:])


def test_the_search_holds_bounded_memory_whatever_the_vocabulary(monkeypatch):
    """A request of a thousand made-up words against a vocabulary of 60,000
    (``extra_vocabulary`` makes such) compares them a block at a time."""
    import tracemalloc

    import aspectattn.text.ngrams as ngrams

    rng = np.random.default_rng(0)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))

    def words(n):
        grid, size = rng.choice(letters, (n, 10)), rng.integers(4, 11, n)
        return ["".join(row[:k]) for row, k in zip(grid, size, strict=True)]

    vocabulary = [*VOCABULARY, *words(40_000)]
    unseen = [vocabulary[1000] + "s", *words(1000), vocabulary[30_000] + "e"]
    neighbours = SpellingNeighbours()
    neighbours.nearest(["x"], vocabulary)  # the vocabulary's side, made once
    tracemalloc.start()
    ids = neighbours.nearest(unseen, vocabulary)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 80 * 2**20  # the dense block alone was 330 MB
    assert ids[0] == 1000 and ids[-1] == 30_000
    # the block's size changes nothing but the memory
    monkeypatch.setattr(ngrams, "MAX_BLOCK", 100 * len(vocabulary))
    again = neighbours.nearest(unseen, vocabulary, threshold=MIN_SPELLING)
    np.testing.assert_array_equal(again, ids)


def test_a_crafted_vocabulary_word_of_any_length_costs_little():
    import tracemalloc

    vocabulary = [*VOCABULARY, "x" * 5_000_000]  # a model file may hold anything
    state = {"kind": "spelling", "min_n": 1, "max_n": 20}
    tracemalloc.start()
    ids = neighbours_from_state(state).nearest(["креветкой"], vocabulary)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert vocabulary[ids[0]] == "креветки" and peak < 50 * 2**20


def test_the_parameters_values_are_the_kinds_of_reading():
    from aspectattn.params import UNSEEN_WORDS

    assert {SpellingNeighbours.kind, NgramTable.kind} == set(UNSEEN_WORDS)
