"""Where the aspect term is: spans, position weights, the marker, term-state queries."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import FAST, lstm, settings
from sklearn.base import clone

from aspectattn import AspectAttentionClassifier
from aspectattn._validation import check_pairs
from aspectattn.attention import AspectAttention
from aspectattn.encoders import PretrainedEncoder
from aspectattn.exceptions import InputError
from aspectattn.nn.model import MAX_DISTANCE, AspectAttentionModel
from aspectattn.nn.ops import distance_weights, span_mask, span_mean, token_distances
from aspectattn.text.pipelines import WordPipeline
from aspectattn.text.spans import find_term

GOOD = ["great", "tasty", "lovely", "superb"]
BAD = ["awful", "rude", "soggy", "bland"]
THINGS = ["fries", "burger", "waiter", "pasta", "view", "wine", "soup", "staff"]


def two_term_pairs(n_sentences, seed=0):
    """ "the fries was soggy but the burger was great": two terms of opposite
    polarity; which opinion word belongs to which term is only in the positions."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n_sentences):
        a, b = rng.choice(THINGS, 2, replace=False)
        a_good = bool(rng.integers(2))
        wa = rng.choice(GOOD if a_good else BAD)
        wb = rng.choice(BAD if a_good else GOOD)
        text = f"the {a} was {wa} but the {b} was {wb}"
        X += [(text, a), (text, b)]
        y += ["positive", "negative"] if a_good else ["negative", "positive"]
    return X, y


def word_spans(texts, terms, spans=None):
    pipeline = WordPipeline()
    return pipeline.term_spans(texts, terms, spans)


# -- finding and converting spans ----------------------------------------------------
def test_find_term_prefers_a_whole_word_and_ignores_case():
    assert find_term("Barely fits at the BAR", "bar") == (19, 22)
    assert find_term("the barista", "bar") == (4, 7)  # only inside a word
    assert find_term("the pasta", "pizza") is None


def test_token_spans_of_given_found_and_repeated_terms():
    text = "The pasta was cold, but the second pasta was great."
    # found: the first occurrence; given: the second one
    found = word_spans([text], ["pasta"])
    given = word_spans([text], ["pasta"], [(35, 40)])
    assert found.tolist() == [[1, 2]]
    assert given.tolist() == [[8, 9]]
    assert WordPipeline().tokenize([text])[0][8] == "pasta"
    multi = word_spans(["I loved the pasta carbonara here"], ["pasta carbonara"])
    assert multi.tolist() == [[3, 5]]


def test_token_spans_with_unicode_before_the_term():
    # NFKC turns the ligature into two letters and the tokenizer folds the curly
    # apostrophe: character offsets are in the original text, tokens after
    # normalisation -- counting the tokens of the prefix keeps them aligned.
    text = "Le ﬁlet du café’s chef was perfect, the crème brûlée too"
    start = text.index("crème brûlée")
    spans = word_spans([text], ["crème brûlée"], [(start, start + 12)])
    tokens = WordPipeline().tokenize([text])[0]
    assert tokens[spans[0, 0] : spans[0, 1]] == ["crème", "brûlée"]
    assert word_spans([text], ["Crème Brûlée"]).tolist() == spans.tolist()


@pytest.mark.parametrize(
    "text, term, word",
    [
        ("two pastas please", "pasta", "pastas"),  # the span ends inside the word
        ("the cheeseburger was good", "burger", "cheeseburger"),  # starts inside
        ("it cost 10.50 dollars", "50", None),
        # a prefix that tokenizes apart ("10." is two tokens) where the text joins
        ("it cost 10.50", "10.", "10.50"),
        ("服务很好但是菜很差", "服务", None),  # a script written without spaces
        ("菜很差但是服务很好", "服务", None),
    ],
)
def test_a_span_inside_a_word_covers_the_word(text, term, word):
    ((start, end),) = word_spans([text], [term]).tolist()
    tokens = WordPipeline().tokenize([text])[0]
    covered = tokens[start:end]
    # the word that holds the term (a script without spaces: its characters),
    # never the next word
    assert (len(covered) == 1 and term in covered[0]) or "".join(covered) == term
    if word is not None:
        assert covered == [word]
    given = word_spans([text], [term], [find_term(text, term)]).tolist()
    assert given == [[start, end]]


@pytest.mark.parametrize(
    "terms, spans, match",
    [
        (["pizza"], None, "does not occur in its text"),
        (["pasta"], [(0, 3)], "holds 'the', not the term 'pasta'"),
        (["pasta"], [(4, 90)], "not inside its text"),
        (["pasta"], [(5, 4)], "not inside its text"),
        (["pasta"], [("4", "9")], "two integers"),
    ],
)
def test_bad_spans_are_clear_errors(terms, spans, match):
    with pytest.raises(InputError, match=match):
        word_spans(["the pasta was great"], terms, spans)


def test_pairs_and_frames_carry_spans():
    X = [("the pasta was great", "pasta", (4, 9)), ("the soup", "soup")]
    texts, aspects, _, spans = check_pairs(X, return_spans=True)
    assert aspects == ["pasta", "soup"] and spans == [(4, 9), None]
    assert check_pairs(X[1:], return_spans=True)[3] is None
    frame = pd.DataFrame(
        {"text": ["the pasta", "a soup"], "aspect": ["pasta", "soup"]}
        | {"start": [4, np.nan], "end": [9, np.nan]}
    )
    assert check_pairs(frame, return_spans=True)[3] == [(4, 9), None]
    with pytest.raises(InputError, match="third item of pair 0"):
        check_pairs([("the food", "food", "extra")])
    with pytest.raises(InputError, match="3 with the term's span"):
        check_pairs([("the food", "food", (0, 1), "x")])


# -- the model's position features ---------------------------------------------------
def test_distance_weights_follow_the_formula():
    # 6 tokens, term at tokens 2..3: distances 2 1 0 0 1 2 -> w = 1 - d / 6
    w = distance_weights(torch.tensor([[2, 4]]), torch.tensor([6]), 8)
    expected = 1 - torch.tensor([2, 1, 0, 0, 1, 2]) / 6
    torch.testing.assert_close(w[0, :6], expected)
    # a far term: distances are capped at n - 1, weights stay >= 1/n
    w = distance_weights(torch.tensor([[9, 10]]), torch.tensor([4]), 4)
    assert (w[0] >= 1 / 4 - 1e-7).all()
    assert span_mask(torch.tensor([[1, 3]]), 5).tolist() == [[0, 1, 1, 0, 0]]


def tiny_model(encoder="lstm", bidirectional=False, **options):
    torch.manual_seed(0)
    if encoder == "lstm":
        config = dict(hidden_size=8, bidirectional=bidirectional, embedding_dim=6)
    else:
        config = dict(d_model=8, n_layers=1, n_heads=2, embedding_dim=8)
    return AspectAttentionModel(
        encoder=encoder,
        encoder_config=dict(vocab_size=20, **config),
        n_classes=3,
        aspect_type="term",
        variant="at",
        dropout=0.0,
        **options,
    ).eval()


def test_linear_weighting_multiplies_the_attention_by_w_and_renormalises():
    tokens = torch.tensor([[3, 4, 5, 6, 7, 0], [8, 9, 10, 0, 0, 0]])
    lengths = torch.tensor([5, 3])
    aspect = torch.tensor([[5, 0], [9, 10]])
    span = torch.tensor([[2, 3], [1, 3]])
    plain, weighted = tiny_model(), tiny_model(position_weighting="linear")
    weighted.load_state_dict(plain.state_dict())
    _, alpha = plain(tokens, lengths, aspect, span=span, return_attention=True)
    _, alpha_w = weighted(tokens, lengths, aspect, span=span, return_attention=True)
    w = distance_weights(span, lengths, 6) * (torch.arange(6) < lengths[:, None])
    expected = alpha * w / (alpha * w).sum(1, keepdim=True)
    torch.testing.assert_close(alpha_w, expected)
    assert (alpha_w[1, 3:] == 0).all()  # padding stays exactly zero


def test_learned_weighting_adds_a_bias_per_distance_and_renormalises():
    tokens = torch.tensor([[3, 4, 5, 6, 7, 8, 9] + [10] * 18, [8, 9, 10] + [0] * 22])
    lengths = torch.tensor([25, 3])
    aspect = torch.tensor([[5, 0], [9, 10]])
    span = torch.tensor([[2, 3], [1, 3]])
    plain, learned = tiny_model(), tiny_model(position_weighting="learned")
    learned.load_state_dict(plain.state_dict(), strict=False)
    _, alpha = plain(tokens, lengths, aspect, span=span, return_attention=True)
    _, alpha_0 = learned(tokens, lengths, aspect, span=span, return_attention=True)
    torch.testing.assert_close(alpha_0, alpha)  # started at 0: no prior
    bias = torch.linspace(1.0, -2.0, MAX_DISTANCE + 1)
    with torch.no_grad():
        learned.distance_bias.copy_(bias)
    _, alpha_b = learned(tokens, lengths, aspect, span=span, return_attention=True)
    # distances 2 1 0 1 2 ... 22: the 6 tokens beyond MAX_DISTANCE share its bias
    d = token_distances(span, 25)
    assert d[0].tolist() == [2, 1, *range(23)]
    prior = torch.exp(bias[d.clamp(max=MAX_DISTANCE)]) * (
        torch.arange(25) < lengths[:, None]
    )
    expected = alpha * prior / (alpha * prior).sum(1, keepdim=True)
    torch.testing.assert_close(alpha_b, expected)
    assert (alpha_b[1, 3:] == 0).all()  # padding stays exactly zero
    # the bias is trained like any weight
    learned(tokens, lengths, aspect, span=span).sum().backward()
    assert learned.distance_bias.grad.abs().sum() > 0


def test_position_dropout_drops_far_words_from_each_pairs_copy_in_training():
    # two terms of one sentence: each pair reads its own copy, words dropped the
    # more often the farther they are from its term, the term's never
    tokens = torch.arange(3, 13)[None].repeat(2, 1)  # (2, 10): one sentence
    lengths, sentence = torch.tensor([10, 10]), torch.tensor([0, 0])
    aspect, span = torch.tensor([[3], [12]]), torch.tensor([[0, 1], [9, 10]])
    plain, dropping = tiny_model(), tiny_model(position_dropout=1.0)
    dropping.load_state_dict(plain.state_dict())
    seen = []
    encode = dropping.encoder.forward
    dropping.encoder.forward = lambda t, *a, **k: seen.append(t) or encode(t, *a, **k)
    torch.manual_seed(0)
    dropping.train()
    for _ in range(400):
        dropping(tokens, lengths, aspect, sentence=sentence, span=span)
    read = torch.stack(seen)  # (400, 2, 10): what the encoder read, per pair
    dropped = (read == 0).float().mean(0)  # (2, 10)
    assert (dropped[0, 0] == 0).all() and (dropped[1, 9] == 0).all()  # the terms
    # P(drop) = d / n: 0.1, 0.2, ..., 0.9 away from the term (binomial, n=400)
    expected = torch.arange(10) / 10
    torch.testing.assert_close(dropped[0], expected, atol=0.08, rtol=0)
    torch.testing.assert_close(dropped[1], expected.flip(0), atol=0.08, rtol=0)
    # in evaluation nothing is dropped, and one pass serves the sentence
    seen.clear()
    dropping.eval()
    out = dropping(tokens, lengths, aspect, sentence=sentence, span=span)
    assert len(seen) == 1 and seen[0].shape == (1, 10) and (seen[0] > 0).all()
    torch.testing.assert_close(
        out, plain(tokens, lengths, aspect, sentence=sentence, span=span)
    )
    with pytest.raises(ValueError, match="position_dropout must be in"):
        tiny_model(position_dropout=1.5)


def test_position_dropout_fits_reproducibly_and_predicts_as_usual():
    X, y = two_term_pairs(40)
    attention = AspectAttention(position_weighting="none", position_dropout=1.0)
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 2}, aspect_type="term", attention=attention
    )
    state = torch.random.get_rng_state()
    first = clf.fit(X, y).predict_proba(X)
    assert torch.equal(torch.random.get_rng_state(), state)  # the caller's RNG
    np.testing.assert_array_equal(clone(clf).fit(X, y).predict_proba(X), first)
    assert clf.module_config_["position_dropout"] == 1.0
    # the dropout is on: without it the same seed fits another model
    plain = clone(clf).set_params(attention__position_dropout=0.0).fit(X, y)
    assert not np.allclose(plain.predict_proba(X), first)
    # pickled, it predicts alike (the one pass per sentence at prediction is
    # checked on the module above)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_allclose(again.predict_proba(X), first, atol=1e-6)


def test_term_states_query_and_marker_reach_the_loss():
    tokens = torch.tensor([[3, 4, 5, 6, 7]])
    lengths, aspect, span = (
        torch.tensor([5]),
        torch.tensor([[5]]),
        torch.tensor([[2, 3]]),
    )
    model = tiny_model(term_query="states", term_marker=True)
    assert model.encoder_sees_aspect
    model(tokens, lengths, aspect, span=span).sum().backward()
    assert model.term_state_projection.weight.grad.abs().sum() > 0
    lstm = model.encoder.forward_lstm
    assert lstm.weight_ih_l0.shape[1] == 6 + 1  # word vector + marker flag
    assert lstm.weight_ih_l0.grad[:, -1].abs().sum() > 0
    with pytest.raises(ValueError, match="pass span="):
        model(tokens, lengths, aspect)


def head_with(model, tokens, lengths, aspect, h_term):
    """An AT model's logits written out: ``W_s tanh(W_p r + W_x h_term) + b_s``,
    with ``r`` the attention pooling of the encoder states."""
    states, _ = model.encoder(tokens, lengths)
    mask = torch.arange(tokens.shape[1])[None, :] < lengths[:, None]
    r, _ = model.attention(states, mask, model.aspect_vectors(aspect)[:, None, :])
    return model.classifier(torch.tanh(model.W_p(r[:, 0]) + model.W_x(h_term)))


@pytest.mark.parametrize("bidirectional", [False, True])
def test_the_term_final_state_is_td_lstms_two_readings(bidirectional):
    # h* = tanh(W_p r + W_x h_term): h_term is the state of an LSTM that read the
    # sentence from its start through the term and (bidirectional) one that read it
    # from its end back through the term -- what TD-LSTM's two LSTMs compute
    tokens = torch.tensor([[3, 4, 5, 6, 7, 8], [8, 9, 10, 11, 0, 0]])
    lengths = torch.tensor([6, 4])
    aspect = torch.tensor([[5, 6], [9, 0]])
    span = torch.tensor([[2, 4], [1, 2]])
    model = tiny_model(bidirectional=bidirectional, final_state="term")
    assert model.uses_position
    encoder = model.encoder
    readings = []
    for row in range(2):
        (start, end), n = span[row].tolist(), int(lengths[row])
        words = encoder.embedding(tokens[row : row + 1, :n])  # (1, n, E)
        left = encoder.forward_lstm(words[:, :end])[0][0, -1]  # read up to the end
        if bidirectional:
            right = encoder.backward_lstm(words[:, start:].flip(1))[0][0, -1]
            left = torch.cat([left, right])
        readings.append(left)
    h_term = torch.stack(readings)  # (2, D)
    expected = head_with(model, tokens, lengths, aspect, h_term)
    torch.testing.assert_close(model(tokens, lengths, aspect, span=span), expected)
    # two terms of one sentence share its encoder pass and keep their own h_term
    both = model(
        tokens[[0, 0]],
        lengths[[0, 0]],
        torch.tensor([[5, 6], [8, 0]]),
        sentence=torch.tensor([0, 0]),
        span=torch.tensor([[2, 4], [5, 6]]),
    )
    apart = model(
        tokens[[0, 0]],
        lengths[[0, 0]],
        torch.tensor([[5, 6], [8, 0]]),
        span=torch.tensor([[2, 4], [5, 6]]),
    )
    torch.testing.assert_close(both, apart)
    assert not torch.allclose(both[0], both[1])
    # a term cut off by max_len (its span beyond the sentence, even beyond the
    # batch's width) is read at the sentence's last token
    cut = model(
        tokens[[1, 1]],
        lengths[[1, 1]],
        aspect[[1, 1]],
        span=span.new_tensor([[5, 6], [7, 9]]),
    )
    at_last = model(
        tokens[[1]], lengths[[1]], aspect[[1]], span=span.new_tensor([[3, 4]])
    )
    torch.testing.assert_close(cut, at_last.expand(2, -1))


def test_the_term_final_state_of_a_transformer_is_the_terms_mean_state():
    model = tiny_model("transformer", final_state="term")
    tokens, lengths = torch.tensor([[3, 4, 5, 6, 0]]), torch.tensor([4])
    aspect, span = torch.tensor([[4, 5]]), torch.tensor([[1, 3]])
    states, _ = model.encoder(tokens, lengths)
    h_term = states[:, 1:3].mean(1)
    expected = head_with(model, tokens, lengths, aspect, h_term)
    torch.testing.assert_close(model(tokens, lengths, aspect, span=span), expected)
    assert span_mean(states, span, torch.tensor([0])).shape == (1, 8)


# -- the estimator -------------------------------------------------------------------
def same_term_pairs(n_sentences, seed=0):
    """ "the soup was great but the soup was awful": the same term twice, with
    opposite opinions. The two pairs of a sentence have the same text and term and
    differ only in the term's span, so a model blind to the position cannot be
    right on more than one of them."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n_sentences):
        thing = rng.choice(THINGS)
        first_good = bool(rng.integers(2))
        wa = rng.choice(GOOD if first_good else BAD)
        wb = rng.choice(BAD if first_good else GOOD)
        text = f"the {thing} was {wa} but the {thing} was {wb}"
        second = text.rindex(thing)
        X += [
            (text, thing, (4, 4 + len(thing))),
            (text, thing, (second, second + len(thing))),
        ]
        y += ["positive", "negative"] if first_good else ["negative", "positive"]
    return X, y


@pytest.mark.parametrize(
    "options",
    [
        dict(attention=AspectAttention(position_weighting="linear")),
        dict(attention=AspectAttention(position_weighting="learned")),
        dict(term_marker=True),
        dict(attention=AspectAttention(term_query="states"), bidirectional=True),
        dict(attention=AspectAttention(final_state="term"), bidirectional=True),
    ],
    ids=["linear", "learned", "marker", "states", "term-state"],
)
def test_a_tiny_model_learns_which_opinion_belongs_to_which_term(options):
    options = dict(options)
    encoder_options = {"bidirectional": options.pop("bidirectional", "auto")}
    X, y = same_term_pairs(220)
    clf = AspectAttentionClassifier(
        **{**FAST, "encoder": lstm(embedding_dropout=0.0, **encoder_options)},
        variant="at",
        aspect_type="term",
        **options,
    ).fit(X[:360], y[:360])
    assert clf.score(X[360:], y[360:]) >= 0.95


def test_without_the_position_the_same_term_rule_cannot_be_learned():
    # the control: identical inputs, opposite labels -- at most half right
    X, y = same_term_pairs(220)
    clf = AspectAttentionClassifier(
        **{**FAST, "encoder": lstm(embedding_dropout=0.0)},
        variant="at",
        aspect_type="term",
        attention=AspectAttention(position_weighting="none", final_state=True),
    ).fit(X[:360], y[:360])
    assert clf.score(X[360:], y[360:]) <= 0.5


@pytest.fixture(scope="module")
def positional():
    X, y = two_term_pairs(60)
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 3},
        variant="atae",
        aspect_type="term",
        attention=AspectAttention(
            position_weighting="learned", term_query="both", final_state="term"
        ),
        term_marker=True,
    )
    return clf.fit(X, y), X, y


def test_given_and_found_spans_give_the_same_answer(positional):
    clf, X, _ = positional
    text, term = X[0]
    start = text.index(term)
    found = clf.predict_proba([(text, term)])
    given = clf.predict_proba([(text, term, (start, start + len(term)))])
    frame = clf.predict_proba(
        pd.DataFrame({"text": [text], "aspect": [term], "start": [start]}).assign(
            end=start + len(term)
        )
    )
    np.testing.assert_array_equal(found, given)
    np.testing.assert_array_equal(found, frame)
    aspects = clf.predict_proba_aspects([text], [term])
    np.testing.assert_allclose(aspects[:, 0], found, atol=1e-6)
    with pytest.raises(InputError, match="does not occur in its text"):
        clf.predict([("the soup was great", "pasta")])
    assert clf.explain([X[0]])[0]["weights"].sum() == pytest.approx(1)


def test_position_models_round_trip(positional, tmp_path):
    clf, X, _ = positional
    path = tmp_path / "m.aam"
    clf.save(path)
    loaded = AspectAttentionClassifier.load(path)
    again = pickle.loads(pickle.dumps(clf))
    for other in (loaded, again):
        np.testing.assert_array_equal(other.predict_proba(X), clf.predict_proba(X))
    assert settings(loaded) == settings(clf)
    assert clone(clf).get_params()["attention__term_query"] == "both"


def test_position_options_warn_where_they_are_not_used():
    X = [("the pasta was great", "food"), ("rude waiter", "service")] * 4
    y = ["positive", "negative"] * 4
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 1}, aspect_type="category", term_marker=True
    )
    with pytest.warns(UserWarning, match="'term_marker' is not used when"):
        clf.fit(X, y)
    assert "term_marker" not in clf.module_config_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, y)


def test_pretrained_term_states_are_its_sub_words(tiny_checkpoint):
    X, y = two_term_pairs(30)
    clf = AspectAttentionClassifier(
        encoder=PretrainedEncoder(str(tiny_checkpoint)),
        variant="at",
        aspect_type="term",
        attention=AspectAttention(
            term_query="states",
            position_weighting="linear",
            final_state="term",  # the mean of the term's sub-word states
        ),
        max_epochs=1,
        random_state=0,
    )
    texts = ["the soup was great but the staff was rude"]
    clf.fit(X, y)
    pipeline = clf.text_pipeline_
    pipeline_spans = pipeline.term_spans(texts, ["staff"])
    ids = pipeline.encode(texts).ids
    assert pipeline.tokenizer.tokens(ids)[pipeline_spans[0, 0]] == "staff"
    assert clf.predict_proba([(texts[0], "staff")]).shape == (1, 2)
