"""The training module: sentence split, class weights, optimizer groups, resuming."""

import numpy as np
import pytest
import torch
from conftest import FAST, make_pairs

from aspectattn import AspectAttentionClassifier
from aspectattn.engine.batching import PairDataset
from aspectattn.engine.training import (
    TrainingConfig,
    build_net,
    class_weight_tensor,
    embedding_parameter_name,
    fingerprint,
    head_parameter_names,
    split_sentences,
)
from aspectattn.nn.categories import CategoryModel
from aspectattn.nn.model import AspectAttentionModel
from aspectattn.text.tokens import EncodedTexts

TINY_BERT = {
    "model_type": "bert",
    "vocab_size": 60,
    "hidden_size": 16,
    "num_hidden_layers": 1,
    "num_attention_heads": 2,
    "intermediate_size": 32,
    "max_position_embeddings": 64,
}


def _model(encoder, detector=False):
    if encoder == "pretrained":
        pytest.importorskip("transformers")
        config = {"pretrained_config": TINY_BERT}
        variant = "at"
    else:
        config = {"vocab_size": 30, "embedding_dim": 8}
        config.update(
            {"hidden_size": 6}
            if encoder == "lstm"
            else {"d_model": 8, "n_heads": 2, "n_layers": 1, "ff_size": 8}
        )
        variant = "at" if detector else "atae"
    model = CategoryModel if detector else AspectAttentionModel
    return model(
        encoder=encoder,
        encoder_config=config,
        n_classes=3,
        variant=variant,
        n_aspects=2,
    )


def test_split_keeps_every_sentence_on_one_side():
    groups = np.array([0, 0, 1, 2, 2, 2, 3, 4, 4, 5])
    dataset = PairDataset(
        EncodedTexts.from_lists([[2]] * 6), groups, np.zeros(10, np.int64)
    )
    train, valid = split_sentences(dataset, groups, 0.34, np.random.default_rng(0))
    assert len(train) + len(valid) == 10
    assert not set(train.sentence) & set(valid.sentence)
    assert len(set(valid.sentence)) == 2  # round(0.34 * 6)
    assert split_sentences(dataset, groups, None, None) == (dataset, None)


def test_augmented_pairs_follow_their_sentence_and_are_never_validated():
    # pairs 10-13 are copies (sentences 6-9) made from the sentences 0, 2, 4 and 5
    groups = np.array([0, 0, 1, 2, 2, 2, 3, 4, 4, 5, 0, 2, 4, 5])
    dataset = PairDataset(
        EncodedTexts.from_lists([[2]] * 10),
        np.r_[groups[:10], [6, 7, 8, 9]],
        np.zeros(14, np.int64),
    )
    plain = PairDataset(
        EncodedTexts.from_lists([[2]] * 6), groups[:10], np.zeros(10, np.int64)
    )
    synthetic = np.arange(14) >= 10
    for seed in range(5):
        train, valid = split_sentences(
            dataset, groups, 0.5, np.random.default_rng(seed), synthetic
        )
        held_out = set(valid.sentence.tolist())
        assert max(held_out) < 6  # no copy is validated
        copies_trained = sorted(s for s in train.sentence.tolist() if s >= 6)
        assert (
            copies_trained
            == [  # exactly the copies of training sentences
                6 + k for k, g in enumerate(groups[10:]) if g not in held_out
            ]
        )
        # the copies change nothing about which sentences are held out
        _, plain_valid = split_sentences(
            plain, groups[:10], 0.5, np.random.default_rng(seed)
        )
        assert set(plain_valid.sentence.tolist()) == held_out


def test_class_weight_tensor():
    classes = np.array(["neg", "neu", "pos"])
    y = np.array([0, 2, 2, 2, 1, 2])
    balanced = class_weight_tensor("balanced", y, classes)
    torch.testing.assert_close(balanced, torch.tensor([2.0, 2.0, 0.5]))
    given = class_weight_tensor({"neg": 3.0}, y, classes)
    torch.testing.assert_close(given, torch.tensor([3.0, 1.0, 1.0]))
    assert class_weight_tensor(None, y, classes) is None


@pytest.mark.parametrize("encoder", ["lstm", "transformer", "pretrained"])
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_embedding_group_has_its_lr_and_no_weight_decay(encoder, optimizer):
    # Whatever the encoder calls its embedding table, embedding_lr and "no weight
    # decay on word vectors" reach it.
    module = _model(encoder)
    config = TrainingConfig(
        optimizer=optimizer, lr=0.01, embedding_lr=0.5, weight_decay=0.1, head_lr=None
    )
    net, _ = build_net(
        module, config, None, np.array([0, 1, 2]), np.arange(3), None, "cpu"
    )
    net.initialize()
    groups = net.optimizer_.param_groups
    table = net.module_.embedding.weight
    (embedding_group,) = [g for g in groups if any(p is table for p in g["params"])]
    assert embedding_group["lr"] == 0.5 and embedding_group["weight_decay"] == 0.0
    assert len(embedding_group["params"]) == 1
    others = [g for g in groups if g is not embedding_group]
    assert others and all(g["lr"] == 0.01 and g["weight_decay"] == 0.1 for g in others)
    assert type(net.optimizer_).__name__ == {"adam": "Adam", "sgd": "SGD"}[optimizer]
    name = embedding_parameter_name(module)
    assert dict(module.named_parameters())[name] is module.embedding.weight


@pytest.mark.parametrize("encoder", ["lstm", "transformer", "pretrained"])
@pytest.mark.parametrize("detector", [False, True])
def test_head_group_has_head_lr(encoder, detector):
    # Everything outside the encoder (aspect vectors, attention, classifier) and
    # nothing inside it trains at head_lr; the word vectors keep their own group.
    module = _model(encoder, detector)
    config = TrainingConfig(lr=0.01, embedding_lr=0.5, head_lr=0.3)
    net, _ = build_net(
        module, config, None, np.array([0, 1, 2]), np.arange(3), None, "cpu"
    )
    net.initialize()
    lr_of = {id(p): g["lr"] for g in net.optimizer_.param_groups for p in g["params"]}
    inside = {id(p) for p in net.module_.encoder.parameters()}
    table = net.module_.embedding.weight
    for name, p in net.module_.named_parameters():
        expected = 0.5 if p is table else 0.01 if id(p) in inside else 0.3
        assert lr_of[id(p)] == expected, name
    with pytest.raises(ValueError, match="must be resolved"):
        build_net(module, TrainingConfig(), None, [0], np.arange(3), None, "cpu")
    heads = head_parameter_names(net.module_)
    assert any("classifier" in n for n in heads)
    assert any("aspect_embedding" in n for n in heads)


def test_fingerprint_of_a_random_state_object_is_stable():
    # A RandomState object used to be fingerprinted by its repr (a memory address):
    # the same run never found its checkpoint. The seed drawn from it is used now.
    params = AspectAttentionClassifier(
        random_state=np.random.RandomState(0)
    ).get_params()
    again = AspectAttentionClassifier(
        random_state=np.random.RandomState(0)
    ).get_params()
    assert fingerprint(params, 7, ["a"], ["b"], ["c"]) == fingerprint(
        again, 7, ["a"], ["b"], ["c"]
    )
    assert fingerprint(params, 7, ["a"], ["b"], ["c"]) != fingerprint(
        params, 8, ["a"], ["b"], ["c"]
    )


def test_checkpoint_with_a_random_state_object_resumes(tmp_path):
    X, y = make_pairs(40, seed=0)
    params = {**FAST, "max_epochs": 2, "checkpoint_dir": tmp_path}
    first = AspectAttentionClassifier(
        **{**params, "random_state": np.random.RandomState(0)}
    ).fit(X, y)
    second = AspectAttentionClassifier(
        **{**params, "random_state": np.random.RandomState(0)}
    ).fit(X, y)
    assert len(list(tmp_path.iterdir())) == 1  # found the same checkpoint
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))


# ------------------------------------------------------------ non-finite training
def test_a_loss_that_turns_nan_stops_training_with_a_clear_error(pairs):
    from aspectattn.exceptions import NonFiniteError

    params = {**FAST, "optimizer": "sgd", "lr": 1e38, "embedding_lr": 1e38}
    with pytest.raises(NonFiniteError, match="Lower lr"):
        AspectAttentionClassifier(**params).fit(*pairs)


def test_non_finite_scores_are_an_error_not_classes_0(pairs):
    from aspectattn.exceptions import NonFiniteError

    X, y = pairs
    clf = AspectAttentionClassifier(**FAST).fit(X, y)
    with torch.no_grad():  # finite weights whose scores overflow (lr=1e30 does this)
        for p in clf.module_.parameters():
            p.fill_(1e38)
    with pytest.raises(NonFiniteError, match="non-finite scores"):
        clf.predict(X[:3])


@pytest.mark.parametrize("weight", [float("nan"), -1.0, float("inf"), "x", True])
def test_class_weights_must_be_finite_and_non_negative(pairs, weight):
    clf = AspectAttentionClassifier(**{**FAST, "class_weight": {"positive": weight}})
    with pytest.raises(ValueError, match="class_weight must map labels to finite"):
        clf.fit(*pairs)
