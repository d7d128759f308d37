"""The CUDA path: with ``device="auto"`` on a machine with a GPU every estimator
trains there, predicts there, and answers as the same model moved to the CPU, its
pickle and its model file do. Skipped without CUDA: the suite's machines have
none; a session lent a GPU runs this module there."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from conftest import FAST, lstm, make_pairs, make_table
from test_extraction import FAST_EXTRACTOR, make_sentences
from test_joint import make_opinions

from aspectattn import (
    AspectAttentionClassifier,
    AspectCategoryClassifier,
    AspectSentimentExtractor,
    AspectTermExtractor,
    Teaching,
)
from aspectattn.encoders import PretrainedEncoder
from aspectattn.persistence import load, save

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")

JOINT = {**FAST_EXTRACTOR, "max_epochs": 10}


def tiny_pretrained(checkpoint) -> dict:
    """Two short epochs of the tests' tiny checkpoint."""
    return dict(
        encoder=PretrainedEncoder(str(checkpoint)),
        max_epochs=2,
        batch_size=16,
        random_state=0,
    )


def same_after_reload(model, answer, tmp_path):
    """``answer(model)`` equals ``answer`` of its pickle and of its model file."""
    expected = answer(model)
    for again in (pickle.loads(pickle.dumps(model)), _reloaded(model, tmp_path)):
        got = answer(again)
        if isinstance(expected, list) and not isinstance(expected[0], np.ndarray):
            assert got == expected  # spans
        else:  # probabilities: an array, or one per category
            np.testing.assert_allclose(np.stack(got), np.stack(expected), atol=1e-5)
    return expected


def _reloaded(model, tmp_path):
    save(model, tmp_path / "model.aam")
    return load(tmp_path / "model.aam")


def test_the_classifier_trains_on_the_gpu_by_default(tmp_path):
    X, y = make_pairs(60, seed=0)
    clf = AspectAttentionClassifier(**FAST).fit(X, y)
    assert clf.device_ == "cuda"
    assert next(clf.module_.parameters()).is_cuda
    proba = same_after_reload(clf, lambda m: m.predict_proba(X), tmp_path)
    np.testing.assert_allclose(proba.sum(axis=1), 1, atol=1e-5)


def test_word_dropout_draws_on_the_gpu(tmp_path):
    # the rates follow the module to the device; prediction reads none of them
    X, y = make_pairs(60, seed=0)
    clf = AspectAttentionClassifier(**{**FAST, "encoder": lstm(word_dropout=0.25)})
    clf.fit(X, y)
    assert clf.module_.encoder.word_dropout_rates.is_cuda
    same_after_reload(clf, lambda m: m.predict_proba(X), tmp_path)


def test_a_pretrained_classifier_trains_in_bfloat16_on_the_gpu(
    tiny_checkpoint, tmp_path
):
    X, y = make_pairs(40, seed=0)
    clf = AspectAttentionClassifier(**tiny_pretrained(tiny_checkpoint)).fit(X, y)
    assert clf.device_ == "cuda"
    proba = same_after_reload(clf, lambda m: m.predict_proba(X), tmp_path)
    assert np.isfinite(proba).all()


def test_the_detector_trains_on_the_gpu(tmp_path):
    X, Y = make_table(80, seed=0)
    detector = AspectCategoryClassifier(**FAST).fit(X, Y)
    assert detector.device_ == "cuda"
    same_after_reload(detector, lambda m: m.predict_proba(X), tmp_path)


def test_the_extractor_answers_on_the_gpu_as_on_the_cpu(tmp_path):
    texts, y = make_sentences(80, seed=0)
    extractor = AspectTermExtractor(**JOINT).fit(texts, y)
    on_gpu = same_after_reload(extractor, lambda m: m.predict(texts), tmp_path)
    assert on_gpu == extractor.set_params(device="cpu").predict(texts)


def test_the_joint_model_answers_on_the_gpu_as_on_the_cpu(tmp_path):
    texts, y = make_opinions(80, seed=0)
    joint = AspectSentimentExtractor(**JOINT).fit(texts, y)
    assert next(joint.module_.parameters()).device.type == "cpu"  # kept there
    spans = same_after_reload(joint, lambda m: m.predict(texts), tmp_path)
    given = [
        (t, t[a:b], (a, b))
        for t, terms in zip(texts, y, strict=True)
        for a, b, _ in terms
    ]
    proba = joint.predict_polarity_proba(given)
    cpu = joint.set_params(device="cpu")
    on_cpu = cpu.predict(texts)
    # the same terms and polarities; probabilities to 2e-3 (cuDNN's LSTM computes
    # in TF32 on the GPU)
    assert _answers(on_cpu) == _answers(spans)
    np.testing.assert_allclose(
        [t["probability"] for ts in on_cpu for t in ts],
        [t["probability"] for ts in spans for t in ts],
        atol=2e-3,
    )
    np.testing.assert_allclose(cpu.predict_polarity_proba(given), proba, atol=2e-3)


def _answers(found):
    return [[(t["span"], t["polarity"]) for t in terms] for terms in found]


def test_a_joint_model_learns_from_a_teacher_on_the_gpu():
    texts, y = make_opinions(60, seed=0)
    teacher = AspectSentimentExtractor(**JOINT).fit(texts, y)
    student = AspectSentimentExtractor(  # (a CRF: its taught loss on the GPU too)
        **{**JOINT, "random_state": 1, "decoding": "crf"}
    ).fit(texts + texts[:20], y + [None] * 20, teaching=Teaching(teacher))
    assert len(student.predict(texts[:5])) == 5


def test_a_pretrained_joint_model_trains_on_the_gpu(tiny_checkpoint):
    texts, y = make_opinions(40, seed=0)
    joint = AspectSentimentExtractor(**tiny_pretrained(tiny_checkpoint))
    joint.fit(texts, y)
    assert len(joint.predict(texts)) == len(texts)
