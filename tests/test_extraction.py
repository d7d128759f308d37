"""Aspect term extraction: words with offsets, tags and back, the extractor and
the end-to-end pipeline on small synthetic data (and their contracts)."""

from __future__ import annotations

import itertools
import pickle
import unicodedata

import numpy as np
import pytest
from conftest import BAD, FOOD, GOOD, SERVICE, lstm, spy_on_batches
from sklearn.base import BaseEstimator, clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

from aspectattn import (
    AspectAttentionClassifier,
    AspectSentimentPipeline,
    AspectTermExtractor,
    InputError,
    Tokenizer,
)
from aspectattn.encoders import LSTMEncoder, PretrainedEncoder, TransformerEncoder
from aspectattn.extraction import span_f1, span_scores
from aspectattn.extraction.words import (
    B,
    I,
    O,
    best_tags,
    character_ids,
    character_table,
    decode,
    tag_marginals,
    tag_words,
    word_offsets,
    words_and_offsets,
)
from aspectattn.params import ENCODERS, TAGGER_LSTM_SIZE
from aspectattn.persistence import (
    ModelFileError,
    _digest,
    from_payload,
    load,
    save,
    to_payload,
)
from aspectattn.training import EarlyStopping

FAST_EXTRACTOR = dict(
    encoder=LSTMEncoder(embeddings=None, embedding_dim=16, hidden_size=16),
    max_epochs=15,
    early_stopping=EarlyStopping(patience=15),
    lr=0.02,
    batch_size=16,
    dropout=0.0,
    random_state=0,
)


def settings(extractor) -> dict:
    """Every parameter's value, the encoder's by prefix (components, which
    compare by identity, left out)."""
    return {
        k: v
        for k, v in extractor.get_params().items()
        if not isinstance(v, BaseEstimator)
    }


NOT_TERMS = ["day", "evening", "visit", "night", "time", "week"]
#: Sentences no model here was fitted on.
NEW_TEXTS = ["The sushi was awful.", "The waitress was lovely but the soup was bland."]


def make_sentences(n: int, seed: int = 0):
    """Sentences whose aspect terms are food and staff words (one or two per
    sentence, sometimes none), with their spans and polarities."""
    rng = np.random.default_rng(seed)
    texts, y = [], []
    for _ in range(n):
        kind = rng.integers(3)
        if kind == 0:  # no term
            texts.append(f"What a {rng.choice(GOOD)} {rng.choice(NOT_TERMS)}.")
            y.append([])
            continue
        food, staff = rng.choice(FOOD), rng.choice(SERVICE)
        good, bad = rng.choice(GOOD), rng.choice(BAD)
        if kind == 1:
            text = f"The {food} was {good}."
            y.append([(4, 4 + len(food), "positive")])
        else:
            text = f"The {food} was {good} but the {staff} was {bad}."
            at = text.index(staff, 4 + len(food))
            y.append(
                [(4, 4 + len(food), "positive"), (at, at + len(staff), "negative")]
            )
        texts.append(text)
    return texts, y


def term_pairs(texts, y):
    """The ``(text, term, (start, end))`` pairs of :func:`make_sentences`'s
    spans and their polarities: what a term classifier trains on."""
    pairs = [
        (t, t[a:b], (a, b))
        for t, spans in zip(texts, y, strict=True)
        for a, b, _ in spans
    ]
    return pairs, [p for spans in y for *_, p in spans]


@pytest.fixture(scope="module")
def sentences():
    return make_sentences(160, seed=0)


@pytest.fixture(scope="module")
def fitted(sentences):
    return AspectTermExtractor(**FAST_EXTRACTOR).fit(*sentences)


# -- words, tags and spans ---------------------------------------------------------
@pytest.mark.parametrize(
    "text, language",
    [
        ("The pasta wasn't great, but the café's tiramisù was!", "en"),
        ("L'addition était salée, aujourd'hui.", "fr"),
        ("Официант был груб, а борщ — прекрасен.", "ru"),
        ("这家餐厅的 pasta 很好吃。", "zh"),
        ("Das Schnitzel\u200b war „großartig“ – wirklich!", "de"),
        ("The “pasta” was great… really ‘great’ — and Ｔｈｅ ﬁsh too.", "en"),
    ],
)
def test_words_are_the_tokenizers_found_in_the_text_itself(text, language):
    tokenizer = Tokenizer(language=language)
    [words], [offsets] = words_and_offsets([text], tokenizer)
    for start, end in offsets:
        piece = text[start:end]
        assert piece and piece == piece.strip()
    assert all(a[1] <= b[0] for a, b in zip(offsets, offsets[1:], strict=False))
    # the words looked up are the tokenizer's tokens of the text (but where NFKC
    # splits a character apart: "…" is one word, the tokenizer's "...")
    if unicodedata.normalize("NFKC", text) == text:
        assert words == tokenizer(text)
    else:
        assert "".join(words) == "".join(tokenizer(text))


def test_formatting_characters_are_no_words():
    text = "pasta \u200b\u200e good"
    assert [text[a:b] for a, b in word_offsets(text)] == ["pasta", "good"]


def test_terms_tagged_and_decoded_give_their_spans_back(sentences):
    texts, y = sentences
    _, offsets = words_and_offsets(texts, Tokenizer())
    tags = [tag_words(o, s) for o, s in zip(offsets, y, strict=True)]
    flat = np.concatenate(tags)
    lengths = np.array([len(t) for t in tags])
    row, first, last, score = decode(flat, np.ones(len(flat)), lengths)
    got = [[] for _ in texts]
    for r, a, b in zip(row, first, last, strict=True):
        got[r].append((offsets[r][a][0], offsets[r][b][1]))
    assert got == [[s[:2] for s in spans] for spans in y]
    assert np.all(score == 1)


def test_decoding_never_gives_an_invalid_span():
    # an I after an O or at a sentence's start begins a term; a sentence's end
    # ends one, even when the next sentence starts with I
    tags = np.array([I, I, O, B, I, O, I, I, O])
    row, first, last, score = decode(tags, np.linspace(0.1, 0.9, 9), np.array([7, 2]))
    assert list(zip(row, first, last, strict=True)) == [
        (0, 0, 1),
        (0, 3, 4),
        (0, 6, 6),
        (1, 0, 0),
    ]
    assert score[0] == pytest.approx(0.15) and score[3] == pytest.approx(0.8)
    assert len(decode(np.array([], int), np.array([]), np.array([], int))[0]) == 0


def _best_valid_sequence(proba: np.ndarray, transitions=None) -> list[int]:
    """The most likely tags of one sentence in which no I opens a term, by
    trying every sequence (scored with ``transitions``' start and pair scores
    too, if given)."""
    best, best_score = None, -np.inf
    for tags in itertools.product((O, B, I), repeat=len(proba)):
        if any(t == I and (k == 0 or tags[k - 1] == O) for k, t in enumerate(tags)):
            continue
        score = np.log(proba[np.arange(len(proba)), list(tags)]).sum()
        if transitions is not None:
            start, pairs = transitions
            score += start[tags[0]] + sum(
                pairs[a, b] for a, b in itertools.pairwise(tags)
            )
        if score > best_score:
            best, best_score = list(tags), score
    return best


def test_viterbi_decoding_finds_each_sentences_best_valid_tags():
    rng = np.random.default_rng(0)
    for _ in range(100):
        lengths = rng.integers(0, 6, size=rng.integers(1, 5))
        proba = rng.dirichlet(np.ones(3), size=lengths.sum())  # (n_tokens, 3)
        expected = [
            tag
            for sentence in np.split(proba, np.cumsum(lengths)[:-1])
            for tag in (_best_valid_sequence(sentence) if len(sentence) else [])
        ]
        assert best_tags(proba, lengths, "viterbi").tolist() == expected
        np.testing.assert_array_equal(
            best_tags(proba, lengths, "greedy"), proba.argmax(-1)
        )


def test_crf_decoding_finds_each_sentences_best_valid_tags_under_the_transitions():
    rng = np.random.default_rng(1)
    for _ in range(100):
        lengths = rng.integers(0, 6, size=rng.integers(1, 5))
        proba = rng.dirichlet(np.ones(3), size=lengths.sum())  # (n_tokens, 3)
        transitions = (rng.normal(0, 2, 3), rng.normal(0, 2, (3, 3)))
        expected = [
            tag
            for sentence in np.split(proba, np.cumsum(lengths)[:-1])
            for tag in (
                _best_valid_sequence(sentence, transitions) if len(sentence) else []
            )
        ]
        assert best_tags(proba, lengths, "crf", transitions).tolist() == expected
    # (scores that favour O -> B -> B change the answer Viterbi gives alone)
    proba = np.array([[0.4, 0.35, 0.25], [0.2, 0.35, 0.45]])
    assert best_tags(proba, np.array([2]), "viterbi").tolist() == [B, I]
    favour = (np.zeros(3), np.array([[0, 0, 0], [0, 2, -2], [0, 0, 0]]))
    assert best_tags(proba, np.array([2]), "crf", favour).tolist() == [B, B]
    with pytest.raises(ValueError, match="transitions"):
        best_tags(proba, np.array([2]), "crf")


def test_crf_marginals_are_each_tokens_share_of_the_valid_sequences():
    """tag_marginals against every valid sequence of each sentence, weighted
    by its probability under the tags' scores and the transitions."""
    rng = np.random.default_rng(2)
    for _ in range(30):
        lengths = rng.integers(0, 5, size=rng.integers(1, 4))
        proba = rng.dirichlet(np.ones(3), size=lengths.sum())  # (n_tokens, 3)
        start, pairs = rng.normal(0, 2, 3), rng.normal(0, 2, (3, 3))
        expected = []
        for sentence in np.split(proba, np.cumsum(lengths)[:-1]):
            if not len(sentence):
                continue
            marginal = np.zeros((len(sentence), 3))
            for tags in itertools.product((O, B, I), repeat=len(sentence)):
                if any(
                    t == I and (k == 0 or tags[k - 1] == O) for k, t in enumerate(tags)
                ):
                    continue
                weight = np.prod(sentence[np.arange(len(tags)), list(tags)])
                weight *= np.exp(
                    start[tags[0]]
                    + sum(pairs[a, b] for a, b in itertools.pairwise(tags))
                )
                marginal[np.arange(len(tags)), list(tags)] += weight
            expected.append(
                marginal / max(marginal.sum(1, keepdims=True).max(), 1e-300)
            )
        got = tag_marginals(proba, lengths, (start, pairs))
        expected = np.concatenate(expected) if expected else np.zeros((0, 3))
        np.testing.assert_allclose(got, expected, atol=1e-9)
        np.testing.assert_allclose(got.sum(1), 1.0)
        assert (got[:, I][np.r_[0, np.cumsum(lengths)[:-1]][lengths > 0]] == 0).all()


def test_viterbi_decoding_starts_a_term_where_greedy_reads_an_i_after_an_o():
    # greedy: O I I (a term starting with I); the best valid path: O B I
    proba = np.array([[0.8, 0.1, 0.1], [0.1, 0.4, 0.5], [0.1, 0.1, 0.8]])
    assert best_tags(proba, np.array([3]), "greedy").tolist() == [O, I, I]
    assert best_tags(proba, np.array([3]), "viterbi").tolist() == [O, B, I]
    # a sentence of one token whose I is likeliest: B or O, never I
    one = np.array([[0.3, 0.2, 0.5]])
    assert best_tags(one, np.array([1]), "viterbi").tolist() == [O]
    assert best_tags(np.zeros((0, 3)), np.array([0]), "viterbi").tolist() == []


def test_decoding_is_read_when_predicting_and_checked(fitted, sentences):
    texts = sentences[0][:40]
    extractor = pickle.loads(pickle.dumps(fitted))  # (the module's fixture kept)
    found = {}
    for decoding in ("auto", "greedy", "viterbi", "crf"):
        found[decoding] = extractor.set_params(decoding=decoding).predict(texts)
        for spans, text in zip(found[decoding], texts, strict=True):
            assert all(0 <= a < b <= len(text) for a, b in spans)
    assert (
        found["auto"]
        == found[ENCODERS["lstm"].recipe.extractor_decoding]
        == found["crf"]
    )
    assert extractor.module_.transitions is not None  # (fitted as a CRF)
    extractor.set_params(decoding="beam")
    with pytest.raises(InvalidParameterError, match="decoding"):
        extractor.predict(texts)


def test_a_span_inside_a_word_tags_the_word():
    offsets = word_offsets("The cheeseburger rocks")
    assert list(tag_words(offsets, [(10, 16)])) == [O, B, O]


def test_character_ids_pad_cut_and_mark_unknown_characters():
    table = character_table(["Pasta", "été"])
    ids = character_ids(["Pasta", "x", "é" * 30], table)
    assert ids.shape == (3, 20)
    assert list(ids[0, :6]) == [2, 3, 4, 5, 3, 0]  # P a s t a, padding
    assert ids[1, 0] == 1 and not ids[1, 1:].any()  # unknown, then padding
    assert (ids[2] == ids[2, 0]).all() and ids[2, 0] > 1  # cut at 20


# -- metrics -----------------------------------------------------------------------
def test_span_scores_are_exact_and_micro_averaged():
    gold = [[(0, 5, "positive")], [(2, 4, "negative"), (6, 9, "neutral")], []]
    pred = [[(0, 5)], [(2, 5), (6, 9)], [(1, 2)]]
    scores = span_scores(gold, pred)
    assert scores["correct"] == 2 and scores["predicted"] == 4 and scores["true"] == 3
    assert scores["f1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    with_polarity = [
        [{"span": (0, 5), "polarity": "negative"}],
        [{"span": (6, 9), "polarity": "neutral"}],
        [],
    ]
    assert span_scores(gold, with_polarity, polarity=True)["correct"] == 1
    assert span_f1([[]], [[]]) == 0.0
    with pytest.raises(ValueError, match="sentences"):
        span_scores(gold, pred[:2])


# -- the extractor -------------------------------------------------------------------
def test_the_extractor_learns_to_find_terms(fitted):
    texts, y = make_sentences(80, seed=1)
    assert fitted.score(texts, y) > 0.95
    assert fitted.best_epoch_ >= 1 and "valid_f1" in fitted.history_[-1]


def test_spans_are_slices_of_the_text_with_scores(fitted):
    texts = ["The steak was superb but the host was slow.", "What a lovely day."]
    found = fitted.predict_spans(texts)
    assert [t["term"] for t in found[0]] == ["steak", "host"]
    for text, terms in zip(texts, found, strict=True):
        for term in terms:
            start, end = term["span"]
            assert text[start:end] == term["term"]
            assert 0.5 < term["score"] <= 1
    assert found[1] == []
    assert fitted.predict(texts)[0] == [t["span"] for t in found[0]]


def test_a_text_without_words_gives_no_terms_and_cannot_train(fitted):
    assert fitted.predict(["\u200b", "The soup was bland."])[0] == []
    texts = ["\u200b"] + ["The soup was bland."] * 19
    with pytest.raises(InputError, match=r"X\[0\] .* has no words"):
        clone(fitted).fit(texts, [[]] + [[(4, 8)]] * 19)


def test_the_same_seed_gives_the_same_model_and_leaves_global_rngs(sentences):
    import torch

    texts, y = sentences[0][:80], sentences[1][:80]
    settings = {**FAST_EXTRACTOR, "max_epochs": 3}
    np_state = np.random.get_state()[1].copy()  # noqa: NPY002 - the global RNG
    torch_state = torch.get_rng_state()
    first = AspectTermExtractor(**settings).fit(texts, y)
    second = AspectTermExtractor(**settings).fit(texts, y)
    assert np.array_equal(np.random.get_state()[1], np_state)  # noqa: NPY002
    assert torch.equal(torch.get_rng_state(), torch_state)
    for a, b in zip(
        first.module_.state_dict().values(),
        second.module_.state_dict().values(),
        strict=True,
    ):
        assert torch.equal(a, b)


def test_pickle_and_clone_keep_the_contract(fitted):
    texts = ["The sushi was awful.", "The waitress was lovely but the soup was bland."]
    again = pickle.loads(pickle.dumps(fitted))
    assert again.predict_spans(texts) == fitted.predict_spans(texts)
    fresh = clone(fitted)
    assert settings(fresh) == settings(fitted)
    assert not hasattr(fresh, "module_")


def test_grid_search_tunes_the_extractor(sentences):
    texts, y = sentences[0][:90], sentences[1][:90]
    search = GridSearchCV(
        AspectTermExtractor(**{**FAST_EXTRACTOR, "max_epochs": 2}),
        {"characters": [True, False]},
        cv=2,
    ).fit(texts, y)
    assert set(search.cv_results_["param_characters"]) == {True, False}
    assert search.best_estimator_.predict(texts[:2])


@pytest.mark.parametrize(
    "y, message",
    [
        ([[(0, 99)]], "0 <= start < end <= 20"),
        ([[(5, 5)]], "start < end"),
        ([[("0", 3)]], "a span is"),
        ([[(True, 3)]], "a span is"),
        (["pasta"], "list of"),
        ([[(4, 9)], []], "1 texts but y has 2"),
        ("pasta", "one list"),
    ],
)
def test_bad_spans_are_clear_errors(y, message):
    with pytest.raises(InputError, match=message):
        AspectTermExtractor(**FAST_EXTRACTOR).fit(["The pasta was great."], y)


def test_parameters_are_validated_in_fit(sentences):
    with pytest.raises(ValueError, match="hidden_size"):
        AspectTermExtractor(encoder=LSTMEncoder(hidden_size=0)).fit(*sentences)
    with pytest.raises(ValueError, match="patience"):
        AspectTermExtractor(early_stopping=EarlyStopping(patience=0)).fit(*sentences)
    with pytest.raises(ValueError, match="scoring"):  # (it stops on span F1)
        stopping = EarlyStopping(scoring="accuracy")
        AspectTermExtractor(early_stopping=stopping).fit(*sentences)


@pytest.mark.parametrize(
    "encoder, message",
    [
        ("transformer", "must be a str among"),
        (TransformerEncoder(), "an instance of 'aspectattn.encoders.LSTMEncoder'"),
        (LSTMEncoder(min_count=2), r"min_count=2\) does not apply"),
        (LSTMEncoder(aspect_size=8), "aspect_size"),
        (PretrainedEncoder("x", input="pair"), r"input='pair'\) does not apply"),
        (PretrainedEncoder("x", layer_lr_decay=0.9), "layer_lr_decay"),
        ("pretrained", "needs its checkpoint"),
        ("gru", "encoder"),
    ],
)
def test_an_encoder_setting_the_tagger_does_not_read_is_an_error(
    encoder, message, sentences
):
    # (each before any data work: nothing is read, nothing trained)
    with pytest.raises(ValueError, match=message):
        AspectTermExtractor(encoder=encoder).fit(*sentences)


def test_the_encoder_is_a_component_reached_by_prefix():
    extractor = AspectTermExtractor()
    extractor.set_params(encoder__hidden_size=50)  # the name becomes the component
    assert isinstance(extractor.encoder, LSTMEncoder)
    assert extractor.get_params()["encoder__hidden_size"] == 50
    # what a grid search does with each candidate: clone, then set by prefix
    candidate = clone(extractor).set_params(encoder__embedding_dim=8, characters=False)
    assert candidate.get_params()["encoder__hidden_size"] == 50
    assert candidate.encoder.embedding_dim == 8
    assert extractor.encoder.embedding_dim is None  # (the clone's own encoder)


def test_the_tagger_lstm_size_is_its_own_unless_set(sentences):
    texts, y = sentences[0][:30], sentences[1][:30]
    quick = dict(max_epochs=1, random_state=0)
    auto = AspectTermExtractor(encoder=LSTMEncoder(embeddings=None), **quick)
    resolved = auto.fit(texts, y).resolved_params_
    assert resolved["encoder__hidden_size"] == TAGGER_LSTM_SIZE
    assert auto.module_.forward_lstm.hidden_size == TAGGER_LSTM_SIZE
    wide = AspectTermExtractor(encoder=LSTMEncoder(embeddings=None, hidden_size=24))
    assert wide.set_params(**quick).fit(texts, y).module_.forward_lstm.hidden_size == 24


# -- the pipeline -------------------------------------------------------------------
@pytest.fixture(scope="module")
def pipeline(sentences, fitted):
    classifier = AspectAttentionClassifier(
        encoder=lstm(),
        max_epochs=15,
        lr=0.01,
        random_state=0,
    )
    return AspectSentimentPipeline(FrozenEstimator(fitted), classifier).fit(*sentences)


def test_the_pipeline_gives_each_found_term_its_polarity(pipeline, fitted):
    texts = ["The steak was superb but the host was slow."]
    [terms] = pipeline.predict(texts)
    assert [(t["term"], t["polarity"]) for t in terms] == [
        ("steak", "positive"),
        ("host", "negative"),
    ]
    assert all(0 < t["probability"] <= 1 for t in terms)
    assert pipeline.extractor_.estimator is fitted  # frozen: not refitted
    assert pipeline.score(*make_sentences(60, seed=2)) > 0.8


def test_the_pipeline_routes_parameters_and_needs_polarities(sentences):
    pipeline = AspectSentimentPipeline(AspectTermExtractor(), None)
    pipeline.set_params(extractor__encoder__hidden_size=8)
    assert pipeline.get_params()["extractor__encoder__hidden_size"] == 8
    with pytest.raises(InputError, match="polarity"):
        pipeline.fit(sentences[0][:5], [[s[:2] for s in t] for t in sentences[1][:5]])


def test_the_model_file_keeps_predictions_and_checks_what_it_reads(fitted, tmp_path):
    import torch

    texts = NEW_TEXTS
    save(fitted, tmp_path / "extractor.aam")
    again = load(tmp_path / "extractor.aam")
    assert again.predict_spans(texts) == fitted.predict_spans(texts)
    assert settings(again) == settings(fitted)

    def broken(change):
        payload = to_payload(fitted)
        change(payload)
        payload["sha256"] = _digest(payload["metadata"], payload["tensors"])
        with pytest.raises(ModelFileError):
            from_payload(payload)

    def edit(*where, **fields):
        """A change of the metadata's object at the keys ``where``."""
        import json

        def change(payload):
            meta = json.loads(payload["metadata"])
            target = meta
            for key in where:
                target = target[key]
            target.update(fields)
            payload["metadata"] = json.dumps(meta)

        return change

    broken(edit("fitted", "inputs", words=["<pad>", "<pad>"]))
    broken(edit("fitted", "inputs", characters=[120, 97]))  # not sorted
    broken(edit("fitted", "inputs", characters=[-1]))
    broken(edit("fitted", "inputs", kind="subwords"))
    broken(edit("fitted", best_epoch_=-1))
    broken(edit("fitted", language_="../x"))
    broken(edit("fitted", extra=1))
    broken(edit("params", hidden_size=-1))
    broken(edit("params", min_count=5))  # a setting the tagger does not read
    broken(edit("params", encoder="pretrained"))  # the inputs are words
    broken(edit("params", encoder="transformer"))
    broken(edit("params", encoder={"kind": "lstm"}))
    broken(edit("params", n_layers=2))  # not an encoder setting it takes

    def bigger_table(payload):
        table = payload["tensors"]["embedding.weight"]
        payload["tensors"]["embedding.weight"] = torch.zeros(len(table) + 1, 16)

    broken(bigger_table)
    # loaded, then failing at predict (or get_params lying) before
    broken(edit("params", device="meta"))
    broken(edit("params", hidden_size=99999))  # over a 16-wide module

    def float64_weight(payload):
        tensors = payload["tensors"]
        tensors["embedding.weight"] = tensors["embedding.weight"].double()

    broken(float64_weight)


def test_a_bad_device_is_refused_and_never_moves_the_fitted_module(fitted):
    """`device="meta"` moved the parameters to meta for good (every later predict
    failed); any device is checked as the classifiers check it."""
    from sklearn.base import clone

    extractor = clone(fitted).set_params(device="cpu")
    extractor.__dict__.update({k: v for k, v in vars(fitted).items() if k[-1] == "_"})
    expected = fitted.predict(NEW_TEXTS)
    for device in ("meta", "garbage", "cuda:x"):
        with pytest.raises(ValueError, match="'device' parameter of AspectTermExt"):
            extractor.set_params(device=device).predict(NEW_TEXTS)
        assert extractor.set_params(device="cpu").predict(NEW_TEXTS) == expected
    with pytest.raises(ValueError, match="'device' parameter"):
        AspectTermExtractor(device="meta").fit(*make_sentences(10))
    with pytest.raises(ValueError, match="'lr' parameter"):
        AspectTermExtractor(lr=float("inf")).fit(*make_sentences(10))


def test_the_language_is_read_from_the_texts_unless_set():
    texts = ["L'addition était salée.", "Le serveur était aimable."] * 10
    y = [[(2, 10)], [(3, 10)]] * 10
    settings = {**FAST_EXTRACTOR, "max_epochs": 1}
    assert AspectTermExtractor(**settings).fit(texts, y).language_ is None
    french = AspectTermExtractor(**settings, language="fr").fit(texts, y)
    assert french.language_ == "fr"
    assert french.inputs_.vocabulary.index_.get("l'addition")  # one French word
    # the record of what the settings became says it, as the classifiers' does
    assert french.resolved_params_["language"] == "fr"
    assert pickle.loads(pickle.dumps(french)).resolved_params_["language"] == "fr"
    with pytest.raises(ValueError, match="language"):
        AspectTermExtractor(language="French!").fit(texts, y)


# -- a pretrained checkpoint as the encoder -----------------------------------------
@pytest.mark.parametrize(
    "family", ["bert", "roberta", "xlmr", "distilbert", "electra", "deberta"]
)
def test_a_pretrained_encoder_tags_sub_words_into_whole_word_spans(
    family, sentences, tmp_path, monkeypatch
):
    pytest.importorskip("transformers")
    from conftest import make_tiny_checkpoint

    checkpoint = make_tiny_checkpoint(tmp_path / family, family)
    texts, y = sentences[0][:120], sentences[1][:120]
    extractor = AspectTermExtractor(
        encoder=PretrainedEncoder(checkpoint),
        lr=3e-3,
        max_epochs=6 if family == "bert" else 2,
        early_stopping=EarlyStopping(patience=6),
        random_state=0,
    ).fit(texts, y)
    assert extractor.resolved_params_["batch_size"] == 16  # the checkpoint's recipe
    new = make_sentences(40, seed=3)
    found = extractor.predict_spans(new[0])
    for text, terms in zip(new[0], found, strict=True):
        starts = {a for a, _ in word_offsets(text)}
        ends = {b for _, b in word_offsets(text)}
        for term in terms:
            start, end = term["span"]
            assert text[start:end] == term["term"]
            assert start in starts and end in ends  # whole words
    if family == "bert":  # its words are its tokens: it learns them
        assert extractor.score(*new) > 0.8
        # batches keep to the encoder's token budget, with the same terms
        from aspectattn.extraction import reading
        from aspectattn.nn.encoders.pretrained import PretrainedEncoder as Module

        assert extractor.module_.batch_tokens == Module.batch_tokens == 2048
        seen = spy_on_batches(monkeypatch, reading)
        monkeypatch.setattr(Module, "batch_tokens", 64)
        budgeted = extractor.predict_spans(new[0])
        assert [[t["span"] for t in ts] for ts in budgeted] == [
            [t["span"] for t in ts] for ts in found
        ]
        assert len(seen) > 1 and all(budget == 64 for *_, budget in seen)
        assert all(rows * longest <= 64 or rows == 1 for rows, longest, _ in seen)
        monkeypatch.undo()
    save(extractor, tmp_path / "extractor.aam")
    assert load(tmp_path / "extractor.aam").predict_spans(new[0]) == found
    assert pickle.loads(pickle.dumps(extractor)).predict_spans(new[0]) == found
    # the ONNX export and the torch-free runtime: the same words, the same terms
    pytest.importorskip("onnxruntime")
    from aspectattn.serving import export_onnx, load_onnx

    served = load_onnx(export_onnx(extractor, tmp_path / "onnx"))
    assert served.predict(new[0]) == extractor.predict(new[0])


# -- the review analysis on extracted aspects ----------------------------------------
def test_terms_that_name_one_aspect_are_grouped():
    from aspectattn.extraction.aspects import AspectNames, aspect_key

    assert aspect_key("Screens") == aspect_key("screen") == "screen"
    assert aspect_key("Battery  Life") == "battery life"
    assert aspect_key("batteries") == "battery" and aspect_key("dishes") == "dish"
    assert aspect_key("glass") == "glass" and aspect_key("menus") == "menus"
    assert aspect_key("écrans", None) == "écrans"  # English plurals only
    assert aspect_key("IŞIK", "tr") == "ışık"
    names = AspectNames({"Battery": "battery life"}, "en")
    assert names("batteries") == "battery life" and names("Keyboards") == "keyboard"
    # a name keeps its s where its capital says so: not where the sentence opens
    assert aspect_key("Windows", "en", opens_sentence=False) == "windows"
    assert aspect_key("Windows", "en", opens_sentence=True) == "window"
    assert aspect_key("Microsoft Windows", "en", opens_sentence=True) == (
        "microsoft windows"
    )
    assert aspect_key("windows", "en", opens_sentence=False) == "window"
    assert aspect_key("DVDs", "en", opens_sentence=False) == "dvd"  # an acronym's
    assert aspect_key("KEYS", "en", opens_sentence=False) == "key"
    names = AspectNames({"Windows": "operating system"}, "en")
    assert names("Windows", opens_sentence=False) == "operating system"
    assert names("windows", opens_sentence=False) == "operating system"


def test_spellings_of_one_aspect_are_grouped_over_an_analysis():
    from aspectattn.extraction.aspects import group_aspects, variant_key

    assert variant_key("track pad") == variant_key("track-pads") == "trackpad"
    assert variant_key("os x") == "osx" and variant_key("windows") == "window"
    assert variant_key("écran tactile", "fr") == "écrantactile"  # no plural rule
    assert variant_key("wi-fi", None) == "wifi" and variant_key(":)") == ":)"
    counts = {
        "os x": 1,
        "osx": 3,
        "windows": 5,
        "window": 2,
        "set up": 1,
        "setup": 1,
        "os": 9,  # an acronym is not joined by its letters
        "operating system": 4,
        "screen": 6,
    }
    groups = group_aspects(counts)
    assert groups["osx"] == ["osx", "os x"]
    assert groups["windows"] == ["windows", "window"]
    assert groups["setup"] == ["setup", "set up"]  # a tie: the shorter names it
    assert groups["os"] == ["os"] and groups["operating system"] == ["operating system"]
    assert sorted(k for keys in groups.values() for k in keys) == sorted(counts)
    # the user's names: each names its group and no two of them are joined
    named = group_aspects({"o s": 1, "os": 5, "o.s.": 1}, named={"o s", "os"})
    assert named == {"o s": ["o s"], "os": ["os", "o.s."]}
    # another language: spaces and punctuation, never an English plural
    assert group_aspects({"pantallas": 2, "pantalla": 1}, "es") == {
        "pantalla": ["pantalla"],
        "pantallas": ["pantallas"],
    }
    assert group_aspects({"wi-fi": 1, "wifi": 2}, "es") == {"wifi": ["wifi", "wi-fi"]}


def test_the_pipeline_feeds_the_review_report(pipeline, tmp_path):
    from aspectattn.reviews import analyze_reviews, write_report

    reviews = [
        "The steak was superb. But the host was slow!",
        "The steaks were superb but the waitress was rude.",
        "What a lovely day.",
    ]
    [found] = pipeline.analyze(reviews[:1])
    assert [(e["aspect"], e["label"]) for e in found] == [
        ("steak", "positive"),
        ("host", "negative"),
    ]
    assert found[0]["tokens"][int(np.argmax(found[0]["weights"]))] == "steak"
    sentences, summary = analyze_reviews(reviews, pipeline)
    assert summary.n_sentences == 4
    table = summary.table().set_index("aspect")
    assert {"steak", "host", "waitress"} <= set(table.index)
    assert table.loc["steak", "mentions"] == 2  # "steak" and "steaks": one aspect
    path = write_report(summary, tmp_path / "report.html")
    assert "steak" in path.read_text()


def test_the_pipeline_is_one_model_file(pipeline, fitted, sentences, tmp_path):
    """Both parts in one file (each checked by its own class), loaded as
    from_fitted makes them; a file whose parts are swapped, stray or of another
    kind is refused."""
    import json

    texts = NEW_TEXTS
    save(pipeline, tmp_path / "pipeline.aam")
    again = load(tmp_path / "pipeline.aam")
    assert isinstance(again, AspectSentimentPipeline)
    assert again.predict(texts) == pipeline.predict(texts)
    assert again.analyze(texts) and again.score(*sentences) == pipeline.score(
        *sentences
    )
    # parts fitted on their own (frozen), and a user's aspect names, kept
    frozen = AspectSentimentPipeline(
        FrozenEstimator(fitted),
        FrozenEstimator(pipeline.classifier_),
        aspect_names={"soup": "dishes"},
    ).fit(*sentences)
    save(frozen, tmp_path / "frozen.aam")
    loaded = load(tmp_path / "frozen.aam")
    assert loaded.aspect_names == {"soup": "dishes"}
    assert loaded.predict(texts) == frozen.predict(texts)

    def broken(change, match):
        payload = to_payload(pipeline)
        meta = json.loads(payload["metadata"])
        change(meta, payload["tensors"])
        payload["metadata"] = json.dumps(meta)
        payload["sha256"] = _digest(payload["metadata"], payload["tensors"])
        with pytest.raises(ModelFileError, match=match):
            from_payload(payload)

    def swap(meta, tensors):
        fitted = meta["fitted"]
        fitted["extractor"], fitted["classifier"] = (
            fitted["classifier"],
            fitted["extractor"],
        )

    broken(swap, "unknown estimator")
    broken(lambda m, t: t.update(stray=t["extractor.embedding.weight"]), "belongs")
    broken(lambda m, t: m["params"].update(aspect_names={"a": 1}), "aspect_names")
    broken(lambda m, t: m["params"].update(aspect_names=["a"]), "aspect_names")
    broken(lambda m, t: m["fitted"].pop("classifier"), "extractor and classifier")
    broken(lambda m, t: m["fitted"]["extractor"]["fitted"].update(x=1), "keys")
    with pytest.raises(TypeError, match="own estimators"):
        from sklearn.dummy import DummyClassifier

        odd = AspectSentimentPipeline.from_fitted(
            fitted, DummyClassifier().fit([[0]], ["positive"])
        )
        save(odd, tmp_path / "odd.aam")


def test_bad_aspect_names_are_refused_before_a_file_is_written(pipeline, tmp_path):
    """`{"pasta": 5}` analysed and saved, and the file then failed to load (a good
    file replaced by an unloadable one); a list failed with an AttributeError."""
    save(pipeline, tmp_path / "good.aam")
    before = (tmp_path / "good.aam").read_bytes()
    for names in ({"soup": 5}, ["soup"], {"": "dishes"}):
        with pytest.raises(InputError, match="aspect_names"):
            AspectSentimentPipeline.from_fitted(
                pipeline.extractor_, pipeline.classifier_, aspect_names=names
            )
        odd = clone(pipeline).set_params(aspect_names=names)
        vars(odd).update({k: v for k, v in vars(pipeline).items() if k[-1] == "_"})
        with pytest.raises(InputError, match="aspect_names"):
            odd.analyze(NEW_TEXTS)
        with pytest.raises(InputError, match="aspect_names"):
            save(odd, tmp_path / "good.aam")
        with pytest.raises(ValueError, match="aspect_names"):  # sklearn's, in fit
            odd.fit(["The soup was fine."], [[(4, 8, "positive")]])
    assert (tmp_path / "good.aam").read_bytes() == before


def test_a_terms_top_words_are_its_own(pipeline):
    """The analysis's top words of an extracted term: the term's words, not the
    text's first words at weight 0 ("The soup was" for "soup")."""
    from aspectattn.reviews import iter_analysis

    pytest.importorskip("pandas")
    [table] = iter_analysis(["The soup was bland. The waiter was kind."], pipeline)
    assert len(table) and (table["top_words"] == table["aspect"]).all()


def test_a_lone_surrogate_is_refused_with_a_clear_error(pipeline):
    """`"bad \\ud800 text"` is valid JSON and a valid Python str, but no text:
    it failed deep in the extractor with UnicodeEncodeError ('utf-32-le')."""
    text = "The soup \ud800 was bland."
    for predict in (
        pipeline.predict,
        pipeline.extractor_.predict,
        lambda X: pipeline.classifier_.predict([(X[0], "soup")]),
    ):
        with pytest.raises(InputError, match=r"lone surrogate \(U\+D800 at char"):
            predict([text])


def test_overlapping_gold_terms_are_said_not_merged_in_silence():
    from aspectattn.exceptions import AspectAttnWarning

    texts = ["The pasta sauce was great."] * 4 + ["Our waiter was rude."] * 4
    y = [[(4, 9), (4, 15)]] * 4 + [[(4, 10)]] * 4
    settings = {**FAST_EXTRACTOR, "max_epochs": 1}
    with pytest.warns(AspectAttnWarning, match=r"4 pair\(s\) of overlapping terms"):
        AspectTermExtractor(**settings).fit(texts, y)


def test_own_vectors_make_the_word_encoders_passes(sentences, monkeypatch):
    # the span taggers' own vectors make as many passes as the classifiers'
    # (chosen on validation, benchmarks/decoding.py's third round)
    from gensim.models import Word2Vec

    from aspectattn.params import VECTOR_PASSES

    passes = []

    class Spy(Word2Vec):
        def __init__(self, **kwargs):
            passes.append(kwargs["epochs"])
            super().__init__(**kwargs)

    monkeypatch.setattr("gensim.models.Word2Vec", Spy)
    encoder = LSTMEncoder(embeddings="word2vec", embedding_dim=8, hidden_size=8)
    settings = {**FAST_EXTRACTOR, "max_epochs": 1, "encoder": encoder}
    AspectTermExtractor(**settings).fit(*sentences)
    assert passes == [VECTOR_PASSES] == [30]
