import pytest
import torch
from conftest import random_batch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from aspectattn.modules import AspectAttention, AspectAttentionModel, LSTMEncoder

VOCAB, EMB = 30, 8


def _model(
    variant="atae",
    bidirectional=False,
    aspect_type="category",
    score="additive",
    aspect_size=6,
):
    torch.manual_seed(0)
    return AspectAttentionModel(
        vocab_size=VOCAB,
        embedding_dim=EMB,
        n_classes=3,
        aspect_type=aspect_type,
        n_aspects=4,
        aspect_size=aspect_size,
        hidden_size=10,
        variant=variant,
        bidirectional=bidirectional,
        dropout=0.0,
        attention_score=score,
    ).eval()


def _batch(lengths, seed=0):
    return random_batch(lengths, seed, VOCAB)


@pytest.mark.parametrize("variant", ["at", "atae"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_padding_gets_exactly_zero_attention(variant, bidirectional):
    model = _model(variant, bidirectional)
    tokens, lengths = _batch([5, 2, 7, 1])
    _, alpha = model(tokens, lengths, torch.tensor([0, 1, 2, 3]), return_attention=True)
    pad = torch.arange(tokens.shape[1])[None, :] >= lengths[:, None]
    assert torch.all(alpha[pad] == 0)
    assert torch.allclose(alpha.sum(1), torch.ones(4))
    assert torch.all(alpha[~pad] > 0)


@pytest.mark.parametrize("variant", ["at", "ae", "atae"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_output_does_not_change_with_extra_padding(variant, bidirectional):
    model = _model(variant, bidirectional)
    tokens, lengths = _batch([4, 3])
    aspect = torch.tensor([1, 2])
    alone = model(tokens, lengths, aspect)
    padded = torch.cat([tokens, torch.zeros(2, 9, dtype=torch.long)], 1)
    assert torch.allclose(model(padded, lengths, aspect), alone, atol=1e-6)
    # ... and does not depend on the other sentences of the batch
    other, other_len = _batch([12], seed=3)
    big = torch.zeros(3, 12, dtype=torch.long)
    big[:2, :4], big[2] = tokens, other[0]
    both = model(big, torch.cat([lengths, other_len]), torch.tensor([1, 2, 0]))
    assert torch.allclose(both[:2], alone, atol=1e-6)


def test_bidirectional_encoder_matches_packed_reference():
    torch.manual_seed(1)
    encoder = LSTMEncoder(5, 7, bidirectional=True)
    reference = nn.LSTM(5, 7, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]:
            getattr(reference, name).copy_(getattr(encoder.forward_lstm, name))
            getattr(reference, name + "_reverse").copy_(
                getattr(encoder.backward_lstm, name)
            )
    lengths = torch.tensor([6, 2, 4])
    x = torch.randn(3, 6, 5)
    states, last = encoder(x, lengths)
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    ref_out, (h_n, _) = reference(packed)
    ref_states, _ = pad_packed_sequence(ref_out, batch_first=True)
    real = torch.arange(6)[None, :] < lengths[:, None]
    assert torch.allclose(states[real], ref_states[real], atol=1e-6)
    assert torch.allclose(last, torch.cat([h_n[0], h_n[1]], -1), atol=1e-6)


@pytest.mark.parametrize("variant", ["at", "ae", "atae"])
def test_forward_many_equals_pairwise_forward(variant):
    model = _model(variant)
    tokens, lengths = _batch([5, 3, 6])
    aspects = torch.tensor([0, 2, 3])
    logits, alpha = model.forward_many(tokens, lengths, aspects)
    assert logits.shape == (3, 3, 3)
    for k, a in enumerate(aspects):
        single = model(tokens, lengths, a.repeat(3))
        assert torch.allclose(logits[:, k], single, atol=1e-5)
    if variant == "ae":
        assert alpha is None
    else:
        assert alpha.shape == (3, 3, 6)


def test_at_variant_encodes_each_sentence_once_for_many_aspects():
    model = _model("at")
    seen = []
    model.encoder.register_forward_hook(lambda m, args, out: seen.append(args[0].shape))
    tokens, lengths = _batch([5, 3])
    model.forward_many(tokens, lengths, torch.arange(4))
    assert [s[0] for s in seen] == [2]  # one pass over 2 sentences, not 2 x 4 pairs
    atae, seen = _model("atae"), []
    atae.encoder.register_forward_hook(lambda m, args, out: seen.append(args[0].shape))
    atae.forward_many(tokens, lengths, torch.arange(4))
    assert [s[0] for s in seen] == [8]  # the aspect is an encoder input: 2 x 4 rows


def test_concat_score_makes_attention_independent_of_the_aspect():
    # As printed in Wang et al. (2016): the aspect term cancels in the softmax.
    att = AspectAttention(state_size=6, aspect_size=4, score="concat")
    states, mask = torch.randn(2, 5, 6), torch.ones(2, 5, dtype=torch.bool)
    _, a1 = att(states, mask, torch.randn(2, 1, 4))
    _, a2 = att(states, mask, torch.randn(2, 1, 4))
    assert torch.allclose(a1, a2, atol=1e-6)
    additive = AspectAttention(state_size=6, aspect_size=4, score="additive")
    _, b1 = additive(states, mask, torch.randn(2, 1, 4))
    _, b2 = additive(states, mask, torch.randn(2, 1, 4))
    assert not torch.allclose(b1, b2, atol=1e-3)


def test_term_aspect_vector_is_mean_of_word_embeddings():
    model = _model("at", aspect_type="term", aspect_size=EMB)
    term = torch.tensor([[3, 5, 0], [7, 0, 0]])
    expected = torch.stack(
        [model.embedding.weight[[3, 5]].mean(0), model.embedding.weight[7]]
    )
    assert torch.allclose(model.aspect_vectors(term), expected)
    projected = _model("at", aspect_type="term", aspect_size=4)
    assert projected.aspect_vectors(term).shape == (2, 4)


def test_gradients_reach_every_parameter():
    model = _model("atae", bidirectional=True).train()
    tokens, lengths = _batch([4, 6])
    model(tokens, lengths, torch.tensor([0, 1])).sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_invalid_variant():
    with pytest.raises(ValueError, match="variant"):
        _model("xyz")


def test_additive_scores_equal_the_tanh_formula():
    # The module computes w^T tanh(z) as 2 w^T sigmoid(2z) - sum(w) for speed; the
    # attention weights must be those of the formula as written.
    torch.manual_seed(0)
    attention = AspectAttention(state_size=12, aspect_size=5)
    states, aspect = torch.randn(3, 7, 12), torch.randn(3, 4, 5)
    mask = torch.arange(7)[None, :] < torch.tensor([7, 4, 1])[:, None]
    pooled, alpha = attention(states, mask, aspect)
    m = torch.tanh(attention.W_h(states)[:, None] + attention.W_v(aspect)[:, :, None])
    scores = attention.w(m).squeeze(-1).masked_fill(~mask[:, None], float("-inf"))
    expected = torch.softmax(scores, -1)
    torch.testing.assert_close(alpha, expected, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(pooled, expected @ states, atol=1e-6, rtol=1e-5)


def test_lstm_states_are_contiguous():
    # Later matmuls over the states must fold into one GEMM (speed), which needs a
    # contiguous (B, T, D) tensor; nn.LSTM itself returns a transposed view.
    encoder = LSTMEncoder(4, 6)
    states, _ = encoder(torch.randn(3, 5, 4), torch.tensor([5, 2, 1]))
    assert states.is_contiguous()
