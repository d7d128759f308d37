"""quantize="int8" / "bfloat16": predictions with int8 linear layers or a bfloat16
encoder, set on a fitted model."""

import pickle

import numpy as np
import pytest
import torch
from conftest import make_pairs
from sklearn.base import clone

from aspectattn import (
    AspectAttentionClassifier,
    AspectAttnWarning,
    AspectCategoryClassifier,
)
from aspectattn.encoders import LSTMEncoder, PretrainedEncoder, TransformerEncoder
from aspectattn.engine.quantization import quantize_module

#: random 16-d word vectors
WORDS = dict(embeddings=None, embedding_dim=16)
TINY = dict(
    variant="at",
    encoder=LSTMEncoder(**WORDS),
    max_epochs=3,
    batch_size=16,
    random_state=0,
    device="cpu",
)
TRANSFORMER = dict(
    encoder=TransformerEncoder(d_model=32, n_heads=2, n_layers=1, **WORDS)
)


@pytest.fixture(scope="module", params=["transformer", "pretrained"])
def fitted(request, pairs):
    if request.param == "transformer":
        params = TRANSFORMER
    else:
        checkpoint = request.getfixturevalue("tiny_checkpoint")
        params = dict(encoder=PretrainedEncoder(str(checkpoint)), lr=1e-3)
    return AspectAttentionClassifier(**{**TINY, **params}).fit(*pairs)


def _quantized_layers(module):
    return [
        type(m).__name__
        for m in module.modules()
        if type(m).__module__.startswith("torch.ao.nn.quantized")
    ]


def test_int8_copy_quantises_the_encoder_and_leaves_module_untouched(fitted):
    before = {k: v.clone() for k, v in fitted.module_.state_dict().items()}
    quantized = quantize_module(fitted.module_)
    kinds = _quantized_layers(quantized)
    assert "Linear" in kinds, kinds
    assert not _quantized_layers(fitted.module_)
    after = fitted.module_.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_int8_predictions_are_close_to_float_but_not_the_same(fitted, test_pairs):
    X, _ = test_pairs
    model = clone(fitted).set_params(quantize=None)
    model.__setstate__(fitted.__getstate__())
    p_float = model.predict_proba(X)
    model.set_params(quantize="int8")
    p_int8 = model.predict_proba(X)
    # quantisation happened (a no-op would give identical numbers) ...
    assert not np.array_equal(p_float, p_int8)
    # ... and changed little
    assert np.abs(p_float - p_int8).max() < 0.05
    assert np.mean(p_float.argmax(1) == p_int8.argmax(1)) >= 0.95
    np.testing.assert_allclose(p_int8.sum(1), 1.0, atol=1e-6)
    # every prediction method goes through the int8 copy; inputs are quantised
    # per batch, so a pair scored in another batch moves a little (not 1e-7)
    one = model.predict_proba(X[:1])[0]
    assert not np.array_equal(one, p_float[0])
    np.testing.assert_allclose(one, p_int8[0], atol=1e-3)
    np.testing.assert_array_equal(
        model.predict_proba_aspects([X[0][0]], [X[0][1]])[0, 0], one
    )
    (res,) = model.explain(X[:1])
    np.testing.assert_allclose(res["proba"], one, atol=1e-6)
    # setting it back gives the float model's numbers exactly
    model.set_params(quantize=None)
    np.testing.assert_array_equal(model.predict_proba(X), p_float)


def test_int8_survives_save_load_and_pickle(fitted, test_pairs, tmp_path):
    X, _ = test_pairs
    model = pickle.loads(pickle.dumps(fitted)).set_params(quantize="int8")
    expected = model.predict_proba(X)
    model.save(tmp_path / "m.aam")
    loaded = AspectAttentionClassifier.load(tmp_path / "m.aam")
    assert loaded.quantize == "int8"
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), expected)
    assert clone(model).quantize == "int8"


def test_bfloat16_predictions_are_close_to_float_and_switch_back(fitted, test_pairs):
    X, _ = test_pairs
    model = pickle.loads(pickle.dumps(fitted)).set_params(quantize=None)
    p_float = model.predict_proba(X)
    model.set_params(quantize="bfloat16")
    p_bf16 = model.predict_proba(X)
    assert not np.array_equal(p_float, p_bf16)  # it ran in bfloat16 ...
    assert np.abs(p_float - p_bf16).max() < 0.05  # ... and changed little
    assert np.mean(p_float.argmax(1) == p_bf16.argmax(1)) >= 0.95
    np.testing.assert_allclose(p_bf16.sum(1), 1.0, atol=1e-6)
    (res,) = model.explain(X[:1])  # attention and tokens through the copy too
    assert np.isclose(res["weights"].sum(), 1.0, atol=1e-5)
    # the float weights are untouched; int8 and back replace the copy
    assert all(p.dtype == torch.float32 for p in model.module_.parameters())
    model.set_params(quantize="int8")
    assert not np.array_equal(model.predict_proba(X), p_bf16)
    model.set_params(quantize=None)
    np.testing.assert_array_equal(model.predict_proba(X), p_float)
    model.set_params(quantize="bfloat16")
    np.testing.assert_array_equal(model.predict_proba(X), p_bf16)


def test_lstm_model_is_left_unchanged_with_a_warning(pairs, test_pairs):
    X, _ = test_pairs
    model = AspectAttentionClassifier(
        **{**TINY, "encoder": LSTMEncoder(hidden_size=16, **WORDS)}
    ).fit(*pairs)
    expected = model.predict_proba(X)
    model.set_params(quantize="int8")
    with pytest.warns(AspectAttnWarning, match="leaves this model unchanged"):
        np.testing.assert_array_equal(model.predict_proba(X), expected)


def test_refit_replaces_the_int8_copy(pairs, test_pairs):
    X, _ = test_pairs
    model = AspectAttentionClassifier(**{**TINY, **TRANSFORMER}, quantize="int8")
    first = model.fit(*pairs).predict_proba(X)
    X2, y2 = make_pairs(120, seed=5)
    second = model.fit(X2, y2).predict_proba(X)
    fresh = AspectAttentionClassifier(**{**TINY, **TRANSFORMER}, quantize="int8")
    np.testing.assert_array_equal(second, fresh.fit(X2, y2).predict_proba(X))
    assert not np.array_equal(first, second)


def test_bad_quantize_value_is_refused_in_fit_and_in_predict(fitted, pairs):
    msg = r"The 'quantize' parameter of AspectAttentionClassifier must be"
    with pytest.raises(ValueError, match=msg):
        AspectAttentionClassifier(**TINY, quantize="int4").fit(*pairs)
    model = pickle.loads(pickle.dumps(fitted)).set_params(quantize="fp16")
    with pytest.raises(ValueError, match=msg + r".*Got 'fp16' instead"):
        model.predict(pairs[0][:2])


def test_detector_predicts_with_int8():
    texts = ["the pasta was great but the waiter was rude."] * 20 + [
        "the soup was bland."
    ] * 20
    Y = [["positive", "negative"]] * 20 + [["negative", "none"]] * 20
    det = AspectCategoryClassifier(
        **TRANSFORMER,
        max_epochs=2,
        random_state=0,
        device="cpu",
    ).fit(texts, Y)
    p_float = np.stack(det.predict_proba(texts[:2]))
    det.set_params(quantize="int8")
    p_int8 = np.stack(det.predict_proba(texts[:2]))
    assert not np.array_equal(p_float, p_int8)
    np.testing.assert_allclose(p_float, p_int8, atol=0.05)
    assert det.analyze(texts[:1])[0]


# -- the span taggers: the extractor and the joint model ------------------------
@pytest.fixture(scope="module")
def opinions():
    from test_joint import make_opinions

    return make_opinions(40, seed=5)


@pytest.fixture(scope="module")
def pretrained_joint(opinions, tiny_checkpoint):
    from aspectattn import AspectSentimentExtractor

    return AspectSentimentExtractor(
        encoder=PretrainedEncoder(str(tiny_checkpoint)),
        max_epochs=1,
        device="cpu",
        random_state=0,
    ).fit(*opinions)


def _given_terms(texts, y):
    pairs = zip(texts, y, strict=True)
    return [(t, t[a:b], (a, b)) for t, spans in pairs for a, b, _ in spans]


@pytest.mark.parametrize("quantize", ["int8", "bfloat16"])
def test_joint_model_predicts_quantized_and_switches_back(
    pretrained_joint, opinions, quantize
):
    texts, y = opinions
    X = _given_terms(texts, y)
    model = pickle.loads(pickle.dumps(pretrained_joint))
    p_float, found_float = model.predict_polarity_proba(X), model.predict(texts)
    before = {k: v.clone() for k, v in model.module_.state_dict().items()}
    model.set_params(quantize=quantize)  # on the fitted model: no refit
    p_quantized, found = model.predict_polarity_proba(X), model.predict(texts)
    assert not np.array_equal(p_float, p_quantized)  # it ran quantised ...
    assert np.abs(p_float - p_quantized).max() < 0.1  # ... and changed little
    assert len(found) == len(texts)
    assert all(
        t["term"] == text[slice(*t["span"])]
        for text, ts in zip(texts, found, strict=True)
        for t in ts
    )
    # the float module is untouched; the int8 copy is the encoder's linear layers
    after = model.module_.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not _quantized_layers(model.module_)
    if quantize == "int8":
        assert "Linear" in _quantized_layers(model._int8[1].tagger.encoder)
        assert not _quantized_layers(model._int8[1].polarity)
        again = pickle.loads(pickle.dumps(model))  # the copy is not pickled
        assert "_int8" not in again.__dict__ and again.quantize == "int8"
        np.testing.assert_array_equal(again.predict_polarity_proba(X), p_quantized)
    model.set_params(quantize=None)
    np.testing.assert_array_equal(model.predict_polarity_proba(X), p_float)
    assert model.predict(texts) == found_float


def test_lstm_tagger_is_left_unchanged_by_int8_with_a_warning(opinions):
    from test_extraction import FAST_EXTRACTOR

    from aspectattn import AspectTermExtractor

    texts, y = opinions
    model = AspectTermExtractor(**{**FAST_EXTRACTOR, "max_epochs": 2}).fit(texts, y)
    expected = model.predict(texts)
    model.set_params(quantize="int8")
    with pytest.warns(AspectAttnWarning, match="leaves this model unchanged"):
        assert model.predict(texts) == expected
    model.set_params(quantize="bfloat16")  # the LSTM's states in bfloat16
    assert len(model.predict(texts)) == len(texts)


def test_span_taggers_refuse_a_bad_quantize_in_fit_and_in_predict(
    pretrained_joint, opinions
):
    from aspectattn import AspectTermExtractor

    texts, y = opinions
    msg = r"The 'quantize' parameter of AspectTermExtractor must be"
    with pytest.raises(ValueError, match=msg):
        AspectTermExtractor(quantize="int4").fit(texts, y)
    model = pickle.loads(pickle.dumps(pretrained_joint)).set_params(quantize="fp16")
    msg = r"The 'quantize' parameter of AspectSentimentExtractor must be"
    with pytest.raises(ValueError, match=msg + r".*Got 'fp16' instead"):
        model.predict(texts[:2])
