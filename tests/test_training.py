"""The training module: sentence split, class weights, optimizer groups, resuming."""

import numpy as np
import pytest
import torch
from conftest import FAST, lstm, make_pairs

from aspectattn import AspectAttentionClassifier
from aspectattn import params as P
from aspectattn.encoders import PretrainedEncoder
from aspectattn.engine.batching import PairDataset
from aspectattn.engine.training import (
    PairLoss,
    TrainingConfig,
    build_net,
    class_weight_tensor,
    classifier_task,
    embedding_parameter_name,
    fingerprint,
    head_parameter_names,
    split_sentences,
)
from aspectattn.nn.categories import CategoryModel
from aspectattn.nn.model import AspectAttentionModel
from aspectattn.text.tokens import EncodedTexts
from aspectattn.training import Optimizer

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


def _config(
    *,
    optimizer="adam",
    weight_decay=0.0,
    head_lr=None,
    embedding_lr=None,
    layer_lr_decay=1.0,
    **values,
) -> TrainingConfig:
    """A training config with every "auto" resolved as for a scratch encoder (the
    components as ``fit`` hands them down: resolved), and ``layer_lr_decay``
    that of a pretrained encoder."""
    own = ("lr", "batch_size", "max_epochs")
    resolved = {k: P.SCRATCH_TRAINING[k] for k in own} | {"precision": "float32"}
    encoder = PretrainedEncoder(
        "checkpoint",
        freeze_embeddings=False,
        embedding_lr=embedding_lr,
        layer_lr_decay=layer_lr_decay,
    )
    return TrainingConfig(
        **TrainingConfig.pick({**resolved, **values}),
        optimizer=Optimizer(
            optimizer,
            weight_decay=weight_decay,
            head_lr=head_lr,
            lr_schedule="constant",
        ),
        early_stopping=None,
        encoder=encoder,
    )


def _build(module, config):
    """The pair classifier's net for ``module`` under ``config``, no validation."""
    task = classifier_task(config, np.array([0, 1, 2]), np.arange(3))
    return build_net(module, config, task, None, None, "cpu")


@pytest.mark.parametrize("encoder", ["lstm", "transformer", "pretrained"])
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_embedding_group_has_its_lr_and_no_weight_decay(encoder, optimizer):
    # Whatever the encoder calls its embedding table, embedding_lr and "no weight
    # decay on word vectors" reach it.
    module = _model(encoder)
    config = _config(
        optimizer=optimizer, lr=0.01, embedding_lr=0.5, weight_decay=0.1, head_lr=None
    )
    net, _ = _build(module, config)
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
    config = _config(lr=0.01, embedding_lr=0.5, head_lr=0.3)
    net, _ = _build(module, config)
    net.initialize()
    lr_of = {id(p): g["lr"] for g in net.optimizer_.param_groups for p in g["params"]}
    inside = {id(p) for p in net.module_.encoder.parameters()}
    table = net.module_.embedding.weight
    for name, p in net.module_.named_parameters():
        expected = 0.5 if p is table else 0.01 if id(p) in inside else 0.3
        assert lr_of[id(p)] == expected, name
    with pytest.raises(ValueError, match="must be resolved"):
        _build(module, _config(head_lr="auto"))
    heads = head_parameter_names(net.module_)
    assert any("classifier" in n for n in heads)
    assert any("aspect_embedding" in n for n in heads)


def test_layer_lr_decay_gives_each_pretrained_layer_its_rate():
    pytest.importorskip("transformers")
    module = AspectAttentionModel(
        encoder="pretrained",
        encoder_config={"pretrained_config": {**TINY_BERT, "num_hidden_layers": 3}},
        n_classes=3,
        variant="at",
        n_aspects=2,
    )
    config = _config(lr=0.01, head_lr=0.3, layer_lr_decay=0.5)
    net, _ = _build(module, config)
    net.initialize()
    lr_of = {id(p): g["lr"] for g in net.optimizer_.param_groups for p in g["params"]}
    inside = {id(p) for p in net.module_.encoder.parameters()}
    seen = set()
    for name, p in net.module_.named_parameters():
        if id(p) not in inside:
            assert lr_of[id(p)] == 0.3, name  # the head keeps head_lr
        elif "embeddings" in name:  # three layers below the top
            assert lr_of[id(p)] == pytest.approx(0.01 * 0.5**3), name
        elif ".layer." in name:
            layer = int(name.split(".layer.")[1].split(".")[0])
            assert lr_of[id(p)] == pytest.approx(0.01 * 0.5 ** (2 - layer)), name
            seen.add(layer)
    assert seen == {0, 1, 2}
    # the embedding table keeps no weight decay; embedding_lr still wins
    config = _config(lr=0.01, layer_lr_decay=0.5, embedding_lr=0.2, weight_decay=0.1)
    net, _ = _build(module, config)
    net.initialize()
    table = net.module_.embedding.weight
    (group,) = [
        g for g in net.optimizer_.param_groups if any(p is table for p in g["params"])
    ]
    assert group["lr"] == 0.2 and group["weight_decay"] == 0.0
    # an encoder without layers to decay: every encoder weight at lr
    lstm = _model("lstm")
    net, _ = _build(lstm, _config(lr=0.01, layer_lr_decay=0.5))
    net.initialize()
    assert {g["lr"] for g in net.optimizer_.param_groups} == {0.01}


def test_warmup_linear_decay_rises_then_falls_to_zero_per_batch(monkeypatch):
    from aspectattn.engine.callbacks import WarmupLinearDecay

    schedule = WarmupLinearDecay(warmup=0.1)
    assert schedule.factor(0.0) == 0.0 and schedule.factor(0.05) == pytest.approx(0.5)
    assert schedule.factor(0.1) == pytest.approx(1.0)
    assert schedule.factor(0.55) == pytest.approx(0.5) and schedule.factor(1.0) == 0
    # in a fit: every training batch's rate follows the schedule, head and
    # encoder groups alike, and the weights still learn
    X, y = make_pairs(60)
    seen = []

    class Spy(WarmupLinearDecay):
        def on_batch_begin(self, net, training=False, **kwargs):
            super().on_batch_begin(net, training=training, **kwargs)
            if training:
                seen.append(
                    [g["lr"] / g["initial_lr"] for g in net.optimizer_.param_groups]
                )

    monkeypatch.setattr("aspectattn.engine.training.WarmupLinearDecay", Spy)
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 3, "batch_size": 8},
        optimizer=Optimizer(lr_schedule="linear", head_lr=0.01),
    ).fit(X, y)
    factors = np.array(seen)  # (batches, groups)
    assert np.allclose(factors, factors[:, :1])  # one factor for every group
    peak = int(np.argmax(factors[:, 0]))
    assert 0 < peak < len(factors) - 1
    assert np.all(np.diff(factors[: peak + 1, 0]) > 0)
    assert np.all(np.diff(factors[peak:, 0]) < 0)
    assert factors[0, 0] < 0.5 and factors[-1, 0] < 0.1
    assert clf.resolved_params_["optimizer__lr_schedule"] == "linear"


def test_bfloat16_training_learns_and_keeps_float32_weights(pairs, test_pairs):
    # mixed precision changes the arithmetic, not the model: an aspect-dependent
    # rule is learnt as in float32 (test_estimator's), the weights stay float32
    from test_estimator import LEARN

    clf = AspectAttentionClassifier(variant="at", **LEARN, precision="bfloat16")
    clf.fit(*pairs)
    assert clf.score(*test_pairs) >= 0.9
    assert clf.resolved_params_["precision"] == "bfloat16"
    assert all(p.dtype == torch.float32 for p in clf.module_.parameters())


def test_mixed_precision_net_returns_float32_close_to_float32():
    from aspectattn.engine.training import ClassifierNet

    module = _model("transformer")
    batch = {
        "tokens": torch.randint(1, 30, (4, 7)),
        "lengths": torch.tensor([7, 5, 3, 7]),
        "aspect": torch.randint(0, 2, (4,)),
        "sentence": torch.arange(4),
    }
    out = {}
    for precision in ("float32", "bfloat16"):
        net = ClassifierNet(
            module, criterion=torch.nn.CrossEntropyLoss, precision=precision
        )
        net.initialize()
        net.module_.eval()
        with torch.no_grad():
            out[precision] = net.infer(batch)
    assert out["bfloat16"].dtype == torch.float32
    torch.testing.assert_close(out["bfloat16"], out["float32"], atol=0.05, rtol=0.05)
    assert not torch.equal(out["bfloat16"], out["float32"])  # it did run in bf16


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

    params = {
        **FAST,
        "optimizer": "sgd",
        "lr": 1e38,
        "encoder": lstm(embedding_lr=1e38),
    }
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


# ------------------------------------------------------------------ sample weights
def test_a_pairs_weight_counts_it_that_many_times_in_the_loss():
    """Weight 2 is the pair given twice, weight 0 the pair left out, with the
    class weights weighing as torch's cross-entropy weighs them."""
    logits, label = torch.randn(5, 3), torch.tensor([0, 1, 2, 2, 1])
    classes = torch.tensor([2.0, 1.0, 0.5])
    rows = torch.tensor([2.0, 1.0, 0.0, 1.0, 1.0])
    twice = [0, 0, 1, 3, 4]  # the first pair given twice, the third left out
    for weight in (None, classes):
        loss = PairLoss(weight=weight)(logits, {"label": label, "weight": rows})
        expected = torch.nn.functional.cross_entropy(
            logits[twice], label[twice], weight=weight
        )
        torch.testing.assert_close(loss, expected)
    # with a teacher, the mixed loss of each pair is weighed the same way
    soft = torch.softmax(torch.randn(5, 3), -1)
    taught = PairLoss(weight=classes, distill_weight=0.3)
    loss = taught(logits, {"label": label, "teacher": soft, "weight": rows})
    expected = taught(logits[twice], {"label": label[twice], "teacher": soft[twice]})
    torch.testing.assert_close(loss, expected)


def test_the_detectors_sentence_weight_weighs_each_of_its_cells():
    from aspectattn.nn.categories import MultiOutputLoss

    logits, alpha = torch.randn(3, 2, 4), torch.softmax(torch.randn(3, 2, 5), -1)
    label = torch.tensor([[0, 1], [2, 3], [1, 1]])
    rows = torch.tensor([2.0, 0.0, 1.0])
    twice = [0, 0, 2]  # the first sentence given twice, the second left out
    plain = MultiOutputLoss(none_index=3)
    loss = plain((logits, alpha), {"label": label, "weight": rows})
    torch.testing.assert_close(loss, plain((logits[twice], alpha[twice]), label[twice]))
    # the attention penalties are the sentences' as they are, unweighted
    penalised = MultiOutputLoss(none_index=3, sparse_penalty=0.1)
    penalty = penalised((logits, alpha), label) - plain((logits, alpha), label)
    torch.testing.assert_close(
        penalised((logits, alpha), {"label": label, "weight": rows}), loss + penalty
    )


def test_the_weights_identify_a_run_to_resume():
    data = (["a b", "c d"], ["x", "y"], ["positive", "negative"])
    plain = fingerprint({}, 0, *data)
    assert fingerprint({}, 0, *data, None) == plain
    weighted = fingerprint({}, 0, *data, np.array([1.0, 2.0]))
    assert weighted != plain
    assert weighted != fingerprint({}, 0, *data, np.array([2.0, 1.0]))
