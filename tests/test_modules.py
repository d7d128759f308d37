import pytest
import torch
from conftest import random_batch

from aspectattn.nn.model import AspectAttentionModel
from aspectattn.nn.schema import check_module_config

VOCAB, EMB = 30, 8


def _model(
    variant="atae",
    bidirectional=False,
    aspect_type="category",
    score="additive",
    aspect_size=6,
    encoder="lstm",
    heads=1,
    final_state=True,
):
    torch.manual_seed(0)
    encoder_config = {"vocab_size": VOCAB, "embedding_dim": EMB}
    if encoder == "lstm":
        encoder_config.update(hidden_size=10, bidirectional=bidirectional)
    else:
        encoder_config.update(d_model=12, n_layers=1, n_heads=2, ff_size=16)
    return AspectAttentionModel(
        encoder=encoder,
        encoder_config=encoder_config,
        n_classes=3,
        aspect_type=aspect_type,
        n_aspects=4,
        aspect_size=aspect_size,
        variant=variant,
        dropout=0.0,
        attention_score=score,
        attention_heads=heads,
        final_state=final_state,
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


@pytest.mark.parametrize("final_state", [True, False])
def test_the_head_follows_its_formula(final_state):
    # h* = tanh(W_p r + W_x h_N), or tanh(W_p r) without the final state h_N
    model = _model("at", final_state=final_state)
    tokens, lengths = _batch([5, 3])
    aspect = torch.tensor([1, 2])
    states, summary = model.encoder(tokens, lengths, None)
    mask = torch.arange(tokens.shape[1])[None, :] < lengths[:, None]
    v_a = model.aspect_vectors(aspect)[:, None, :]  # (B, 1, A)
    r, _ = model.attention(states, mask, v_a)
    pooled = model.W_p(r[:, 0])
    if final_state:
        pooled = pooled + model.W_x(summary)
    expected = model.classifier(torch.tanh(pooled))
    torch.testing.assert_close(model(tokens, lengths, aspect), expected)
    assert hasattr(model, "W_x") == final_state


def test_invalid_variant():
    with pytest.raises(ValueError, match="variant"):
        _model("xyz")


@pytest.mark.parametrize("encoder", ["lstm", "transformer"])
@pytest.mark.parametrize("variant", ["at", "ae", "atae"])
@pytest.mark.parametrize("heads", [1, 2])
def test_grouped_pairs_give_the_per_pair_logits_and_gradients(encoder, variant, heads):
    # Joint training: pairs that share a sentence are scored from one encoder pass
    # (``sentence=``); the loss and its gradients equal those of per-pair encoding.
    model = _model(variant, encoder=encoder, heads=heads, aspect_size=6)
    tokens, lengths = _batch([5, 5, 3, 6, 6, 6])
    tokens[1], tokens[4], tokens[5] = tokens[0], tokens[3], tokens[3]
    sentence = torch.tensor([0, 0, 1, 2, 2, 2])
    aspect = torch.tensor([0, 1, 2, 0, 3, 1])
    target = torch.tensor([0, 1, 2, 1, 0, 2])

    def run(**kw):
        model.zero_grad()
        logits = model(tokens, lengths, aspect, **kw)
        torch.nn.functional.cross_entropy(logits, target).backward()
        return logits.detach(), {
            n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None
        }

    joint, joint_grads = run(sentence=sentence)
    pairs, pair_grads = run()
    torch.testing.assert_close(joint, pairs, atol=1e-5, rtol=1e-5)
    assert joint_grads.keys() == pair_grads.keys()
    for name in pair_grads:
        torch.testing.assert_close(
            joint_grads[name], pair_grads[name], atol=1e-5, rtol=1e-4, msg=name
        )


def test_grouped_pairs_encode_each_sentence_once():
    model, seen = _model("at"), []
    model.encoder.register_forward_hook(lambda m, args, out: seen.append(args[0].shape))
    tokens, lengths = _batch([4, 4, 4])
    tokens[1] = tokens[2] = tokens[0]
    model(tokens, lengths, torch.tensor([0, 1, 2]), sentence=torch.tensor([0, 0, 0]))
    assert [s[0] for s in seen] == [1]


def test_module_configuration_from_a_file_is_validated():
    config = {
        "encoder": "lstm",
        "encoder_config": {
            "vocab_size": 30,
            "embedding_dim": 8,
            "hidden_size": 10,
            "bidirectional": False,
            "embedding_dropout": 0.0,
        },
        "n_classes": 3,
        "aspect_type": "category",
        "n_aspects": 4,
        "aspect_size": 6,
        "variant": "at",
        "attention_score": "additive",
        "attention_heads": 1,
        "dropout": 0.0,
    }
    assert check_module_config(config) is config
    bad = [
        ("hidden_size", "abc"),
        ("hidden_size", -3),
        ("hidden_size", True),
        ("bidirectional", "yes"),
        ("vocab_size", 10**12),
    ]
    for key, value in bad:
        broken = {**config, "encoder_config": {**config["encoder_config"], key: value}}
        with pytest.raises(ValueError, match=key):
            check_module_config(broken)
    assert check_module_config({**config, "final_state": False})
    for key, value in [
        ("encoder", "rnn"),
        ("n_classes", 1),
        ("dropout", 1.5),
        ("final_state", "no"),
    ]:
        with pytest.raises(ValueError, match=key):
            check_module_config({**config, key: value})
    with pytest.raises(ValueError, match="unknown"):
        check_module_config({**config, "extra": 1})


def test_the_crf_loss_is_each_sentences_negative_log_likelihood_of_its_tags():
    """TagTransitions.nll against every tag sequence of each sentence's tagged
    tokens (those not -100, wherever they stand), banned steps scored as
    BANNED."""
    import itertools

    from aspectattn.nn.crf import TagTransitions

    torch.manual_seed(0)
    crf = TagTransitions()
    with torch.no_grad():
        crf.start.normal_()
        crf.pairs.normal_()
    start, pairs = crf.scores()
    emissions = torch.randn(4, 5, 3)
    tags = torch.tensor(
        [
            [0, 1, 2, 0, 1],
            [1, -100, 2, 2, -100],  # a sub-word hole: the sequence is B I I
            [-100, -100, -100, -100, -100],  # nothing tagged
            [2, 0, -100, -100, -100],  # a banned start: still finite
        ]
    )
    nll = crf.nll(emissions, tags, -100)
    for row in range(4):
        tagged = (tags[row] != -100).nonzero()[:, 0]
        if not len(tagged):
            assert nll[row] == 0
            continue
        em = emissions[row, tagged]  # (n, 3)

        def score(seq, em=em):
            out = start[seq[0]] + em[range(len(seq)), list(seq)].sum()
            return out + sum(pairs[a, b] for a, b in itertools.pairwise(seq))

        every = torch.logsumexp(
            torch.stack(
                [score(s) for s in itertools.product(range(3), repeat=len(em))]
            ),
            0,
        )
        gold = score(tags[row, tagged].tolist())
        torch.testing.assert_close(nll[row], every - gold)
    assert torch.isfinite(nll).all() and nll[3] > 1e3
    nll.sum().backward()
    assert crf.pairs.grad.abs().sum() > 0
