"""The transformer encoder option: exact masks, padding invariance, the sklearn API."""

import pickle

import numpy as np
import pytest
import torch
from conftest import BAD, FAST, GOOD, random_batch, transformer
from sklearn.model_selection import GridSearchCV

from aspectattn import AspectAttentionClassifier
from aspectattn.nn.encoders.transformer import MultiHeadSelfAttention
from aspectattn.nn.model import AspectAttentionModel

#: d_model 32, four heads, two layers
TF = {**FAST, "encoder": transformer(d_model=32, n_heads=4, n_layers=2), "lr": 1e-3}


def _model(variant="atae", **kw):
    torch.manual_seed(0)
    encoder_config = dict(
        vocab_size=30, embedding_dim=8, d_model=16, n_heads=4, ff_size=32, dropout=0.0
    )
    return AspectAttentionModel(
        encoder="transformer",
        encoder_config={**encoder_config, **kw},
        n_classes=3,
        n_aspects=4,
        aspect_size=6,
        variant=variant,
        dropout=0.0,
    ).eval()


def _batch(lengths, seed=0):
    return random_batch(lengths, seed, vocab_size=30)


@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_padding_gets_zero_attention_in_every_layer(norm_first, positional):
    model = _model(norm_first=norm_first, positional=positional, n_layers=3)
    tokens, lengths = _batch([6, 2, 4])
    maps = model.self_attention_maps(tokens, lengths, torch.tensor([0, 1, 2]))
    assert len(maps) == 3
    pad = torch.arange(6)[None, :] >= lengths[:, None]  # (B, T)
    for layer in maps:
        assert layer.shape == (3, 4, 6, 6)
        assert torch.all(layer[pad[:, None, None, :].expand_as(layer)] == 0)
        real_rows = ~pad[:, None, :, None].expand_as(layer)
        sums = layer.sum(-1)[real_rows[..., 0]]
        assert torch.allclose(sums, torch.ones_like(sums), atol=1e-6)
    _, alpha = model(tokens, lengths, torch.tensor([0, 1, 2]), return_attention=True)
    assert torch.all(alpha[pad] == 0)


def test_fused_and_explicit_attention_agree():
    torch.manual_seed(0)
    att = MultiHeadSelfAttention(16, 4, dropout=0.0).eval()
    x, mask = (
        torch.randn(3, 5, 16),
        torch.tensor([[1] * 5, [1, 1, 0, 0, 0], [1, 1, 1, 1, 0]]).bool(),
    )
    fused, _ = att(x, mask)
    explicit, maps = att(x, mask, return_maps=True)
    assert torch.allclose(fused[mask], explicit[mask], atol=1e-5)


@pytest.mark.parametrize("variant", ["at", "ae", "atae"])
def test_output_does_not_change_with_extra_padding(variant):
    model = _model(variant)
    tokens, lengths = _batch([4, 3])
    aspect = torch.tensor([1, 2])
    alone = model(tokens, lengths, aspect)
    padded = torch.cat([tokens, torch.zeros(2, 7, dtype=torch.long)], 1)
    assert torch.allclose(model(padded, lengths, aspect), alone, atol=1e-5)


def test_d_model_must_be_divisible_by_heads(pairs):
    with pytest.raises(
        ValueError, match="encoder__d_model=30 must be divisible by encoder__n_heads=4"
    ):
        AspectAttentionClassifier(
            **{**TF, "encoder": transformer(d_model=30, n_heads=4)}
        ).fit(*pairs)


def _order_data(n, seed):
    # The label is the polarity of the *first* adjective: a bag of words cannot
    # tell "great and awful" from "awful and great".
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n):
        g, b = rng.choice(GOOD), rng.choice(BAD)
        first_good = bool(rng.integers(2))
        text = f"it was {g} and {b}" if first_good else f"it was {b} and {g}"
        X.append((text, "food"))
        y.append("positive" if first_good else "negative")
    return X, y


def _bag_of_words_accuracy(train, test, with_aspect):
    """Test accuracy of word counts (plus an aspect token) + logistic regression."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    def texts(X):
        return [f"{t} ASPECT_{a}" if with_aspect else t for t, a in X]

    bow = make_pipeline(CountVectorizer(), LogisticRegression(max_iter=1000))
    return bow.fit(texts(train[0]), train[1]).score(texts(test[0]), test[1])


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_learns_a_word_order_rule_that_bag_of_words_cannot(positional):
    X, y = _order_data(400, 0)
    X_test, y_test = _order_data(100, 1)
    clf = AspectAttentionClassifier(
        **{
            **TF,
            "max_epochs": 30,
            "encoder": transformer(
                d_model=32, n_heads=4, n_layers=2, positional=positional
            ),
        },
        variant="ae",
    )
    assert clf.fit(X, y).score(X_test, y_test) >= 0.95
    assert _bag_of_words_accuracy((X, y), (X_test, y_test), with_aspect=False) <= 0.65


@pytest.mark.parametrize("variant", ["at", "atae"])
def test_learns_an_aspect_dependent_rule_that_bag_of_words_cannot(
    variant, pairs, test_pairs
):
    # Every test sentence praises one aspect and criticises the other ("the pasta
    # was great but the waiter was rude"): the label depends on which aspect is
    # asked, so text features alone -- or text plus aspect, added linearly -- stay
    # near 50%. One layer, no dropout: the small model must tie each adjective to
    # its noun through self-attention, with the defaults' joined copies. Its
    # optimisation is slow on some seeds: the tests' seed 0 has learned it by epoch
    # 25 (1.0 at 25, 35 and 60 epochs, AT and ATAE), seed 1 not by epoch 60 (0.79
    # and 0.94), seed 2 by epoch 25.
    clf = AspectAttentionClassifier(
        **{
            **TF,
            "augment": "auto",  # the joined copies
            "lr": 3e-3,
            "max_epochs": 40,
            "encoder": transformer(
                d_model=32, n_heads=4, embedding_dropout=0.0, dropout=0.0
            ),
        },
        variant=variant,
    )
    assert clf.fit(*pairs).score(*test_pairs) >= 0.9
    assert _bag_of_words_accuracy(pairs, test_pairs, with_aspect=True) <= 0.6


def test_api_pickle_and_self_attention(pairs, test_pairs):
    clf = AspectAttentionClassifier(**{**TF, "max_epochs": 3}).fit(*pairs)
    X = test_pairs[0][:10]
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    maps = clf.self_attention(X[:2])
    n_tokens = len(clf.explain(X[:1])[0]["tokens"])
    assert maps[0].shape == (2, 4, n_tokens, n_tokens)
    np.testing.assert_allclose(maps[0].sum(-1), 1.0, atol=1e-5)
    many = clf.predict_proba_aspects([t for t, _ in X])
    assert many.shape == (10, 2, 2)
    with pytest.raises(ValueError, match="needs encoder='transformer'"):
        AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(
            *pairs
        ).self_attention(X)


def test_grid_search_over_layers_and_heads(pairs):
    grid = GridSearchCV(
        AspectAttentionClassifier(**{**TF, "max_epochs": 2}),
        {"encoder__n_layers": [1, 2], "encoder__n_heads": [2, 4]},
        cv=2,
    )
    grid.fit(*pairs)
    assert len(grid.cv_results_["params"]) == 4
    assert grid.best_estimator_.module_.encoder.output_size == 32
