"""Every attention form: masking, normalisation, its formula by hand, gradients."""

import math

import pytest
import torch

from aspectattn.nn.attention import (
    ATTENTION_SCORES,
    MultiHeadAspectAttention,
    make_attention,
)

D, A = 6, 4
FORMS = sorted(ATTENTION_SCORES)


def _inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    states = torch.randn(3, 5, D, generator=g)
    aspect = torch.randn(3, 2, A, generator=g, requires_grad=True)
    mask = torch.arange(5)[None, :] < torch.tensor([5, 3, 1])[:, None]
    return states, mask, aspect


def _by_hand(att, form, h, v):
    """The score e_i of one state h (D,) for one aspect vector v (A,), as written."""
    if form == "additive":
        return att.w.weight[0] @ torch.tanh(att.W_h.weight @ h + att.W_v.weight @ v)
    if form == "concat":
        m = torch.cat([torch.tanh(att.W_h.weight @ h), torch.tanh(att.W_v.weight @ v)])
        return att.w.weight[0] @ m
    if form == "dot":
        return (att.W_q.weight @ v) @ h  # A != D: v_a projected to the state size
    if form == "general":
        return h @ (att.W_a.weight @ v)
    if form == "scaled_dot":
        k = torch.tanh(att.W_key.weight @ h)
        return (att.W_q.weight @ v) @ k / math.sqrt(D)
    raise AssertionError(form)


def _value_by_hand(att, form, h):
    return torch.tanh(att.W_value.weight @ h) if form == "scaled_dot" else h


@pytest.mark.parametrize("form", FORMS)
def test_padding_gets_zero_weight_and_rows_sum_to_one(form):
    torch.manual_seed(0)
    att = make_attention(form, D, A)
    states, mask, aspect = _inputs()
    _, alpha = att(states, mask, aspect)
    assert alpha.shape == (3, 2, 5)
    assert torch.all(alpha.transpose(1, 2)[~mask] == 0)
    torch.testing.assert_close(alpha.sum(-1), torch.ones(3, 2))


@pytest.mark.parametrize("form", FORMS)
def test_weights_and_pooling_equal_the_formula(form):
    torch.manual_seed(0)
    att = make_attention(form, D, A)
    states, mask, aspect = _inputs(1)
    pooled, alpha = att(states, mask, aspect)
    with torch.no_grad():
        for b in range(3):
            n = int(mask[b].sum())
            for k in range(2):
                e = torch.stack(
                    [_by_hand(att, form, states[b, i], aspect[b, k]) for i in range(n)]
                )
                weights = torch.softmax(e, 0)
                torch.testing.assert_close(
                    alpha[b, k, :n], weights, atol=1e-5, rtol=1e-4
                )
                values = torch.stack(
                    [_value_by_hand(att, form, states[b, i]) for i in range(n)]
                )
                torch.testing.assert_close(
                    pooled[b, k], weights @ values, atol=1e-5, rtol=1e-4
                )


@pytest.mark.parametrize("form", [f for f in FORMS if f != "concat"])
@pytest.mark.parametrize("heads", [1, 2])
def test_gradient_reaches_the_aspect_vector(form, heads):
    torch.manual_seed(0)
    att = make_attention(form, D, A, heads)
    states, mask, aspect = _inputs(2)
    _, alpha = att(states, mask, aspect)
    (alpha * torch.randn_like(alpha)).sum().backward()
    assert aspect.grad is not None and aspect.grad.abs().sum() > 0


def test_concat_score_makes_attention_independent_of_the_aspect():
    # As printed in Wang et al. (2016): the aspect term cancels in the softmax.
    torch.manual_seed(0)
    att = make_attention("concat", D, A)
    states, mask, _ = _inputs()
    _, a1 = att(states, mask, torch.randn(3, 1, A))
    _, a2 = att(states, mask, torch.randn(3, 1, A))
    torch.testing.assert_close(a1, a2)
    additive = make_attention("additive", D, A)
    _, b1 = additive(states, mask, torch.randn(3, 1, A))
    _, b2 = additive(states, mask, torch.randn(3, 1, A))
    assert not torch.allclose(b1, b2, atol=1e-3)


@pytest.mark.parametrize("form", FORMS)
def test_multi_head_weights_per_head(form):
    torch.manual_seed(0)
    att = make_attention(form, D, A, heads=3)
    assert isinstance(att, MultiHeadAspectAttention)
    states, mask, aspect = _inputs()
    pooled, alpha = att(states, mask, aspect)
    assert pooled.shape == (3, 2, D) and alpha.shape == (3, 2, 3, 5)
    torch.testing.assert_close(alpha.sum(-1), torch.ones(3, 2, 3))
    assert torch.all(alpha.permute(0, 3, 1, 2)[~mask] == 0)
    # each head is its own point of view: different weights
    assert not torch.allclose(alpha[:, :, 0], alpha[:, :, 1], atol=1e-4)


def test_one_head_is_the_single_form():
    assert type(make_attention("general", D, A, heads=1)) is ATTENTION_SCORES["general"]
    with pytest.raises(ValueError, match="must divide"):
        make_attention("dot", D, A, heads=4)


@pytest.mark.parametrize("form", FORMS)
def test_sentence_index_scores_pairs_on_shared_sentences(form):
    torch.manual_seed(0)
    att = make_attention(form, D, A)
    states, mask, aspect = _inputs()
    sentence = torch.tensor([2, 0, 0, 1])
    pair_aspect = torch.randn(4, 1, A)
    pooled, alpha = att(states, mask, pair_aspect, sentence)
    ref_pooled, ref_alpha = att(states[sentence], mask[sentence], pair_aspect)
    torch.testing.assert_close(alpha, ref_alpha)
    torch.testing.assert_close(pooled, ref_pooled)


# --------------------------------------------------------- through the estimator
@pytest.mark.parametrize("encoder", ["lstm", "transformer"])
@pytest.mark.parametrize("form", FORMS)
def test_every_form_with_every_encoder_round_trips(encoder, form, pairs, tmp_path):
    import numpy as np
    from conftest import FAST, transformer

    from aspectattn import AspectAttentionClassifier

    X, y = pairs
    from aspectattn.attention import AspectAttention

    params = {**FAST, "max_epochs": 1, "variant": "at"}
    if encoder == "transformer":
        params["encoder"] = transformer()  # d_model 24, two heads, one layer
    heads = 2 if form != "concat" else 1
    attention = AspectAttention(score=form, heads=heads)
    clf = AspectAttentionClassifier(**params, attention=attention).fit(X[:60], y[:60])
    (result,) = clf.explain(X[:1])
    assert np.isclose(result["weights"].sum(), 1.0)
    if heads > 1:
        assert result["head_weights"].shape == (2, len(result["tokens"]))
        np.testing.assert_allclose(result["head_weights"].sum(1), 1.0, rtol=1e-5)
    many = clf.predict_proba_aspects([X[0][0]], ["food", "service"])
    np.testing.assert_allclose(
        many[0],
        clf.predict_proba([(X[0][0], "food"), (X[0][0], "service")]),
        atol=1e-6,
    )
    clf.save(tmp_path / "m.aam")
    loaded = AspectAttentionClassifier.load(tmp_path / "m.aam")
    np.testing.assert_array_equal(loaded.predict_proba(X[:5]), clf.predict_proba(X[:5]))


def test_grid_search_over_forms_and_heads(pairs):
    from conftest import FAST
    from sklearn.model_selection import GridSearchCV

    from aspectattn import AspectAttentionClassifier

    X, y = pairs
    search = GridSearchCV(
        AspectAttentionClassifier(**{**FAST, "max_epochs": 2}, variant="at"),
        {
            "attention__score": ["dot", "general", "scaled_dot"],
            "attention__heads": [1, 2],
        },
        cv=2,
    ).fit(X[:120], y[:120])
    assert len(search.cv_results_["params"]) == 6
    assert search.best_params_["attention__score"] in ("dot", "general", "scaled_dot")
    assert (
        search.best_estimator_.attention.score
        == search.best_params_["attention__score"]
    )


@pytest.mark.parametrize(
    "params, state_size",
    [
        ("lstm", 24),
        ("bidirectional", 48),
        ("transformer", 24),
    ],
)
def test_dot_form_queries_with_v_a_itself(params, state_size, pairs):
    """Single-head dot: v_a has the states' size, no projection (which would make it
    the general form); an explicit other aspect_size needs the projection."""
    from conftest import FAST, lstm, transformer

    from aspectattn import AspectAttentionClassifier

    X, y = pairs
    encoder = {
        "lstm": lstm(),
        "bidirectional": lstm(bidirectional=True),
        "transformer": transformer(),
    }[params]
    base = {**FAST, "max_epochs": 1, "variant": "at", "attention": "dot"}
    clf = AspectAttentionClassifier(**{**base, "encoder": encoder}).fit(X[:40], y[:40])
    module = clf.module_
    assert module.aspect_embedding.weight.shape[1] == state_size
    assert isinstance(module.attention.W_q, torch.nn.Identity)
    if params != "transformer":  # another size: projected, i.e. the general form
        clf.set_params(encoder=lstm(aspect_size=8)).fit(X[:40], y[:40])
        assert isinstance(clf.module_.attention.W_q, torch.nn.Linear)
