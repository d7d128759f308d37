"""Checkpoints of other families than BERT as ``pretrained_model``: RoBERTa
(byte-level BPE, one token type), XLM-R (SentencePiece unigram, one token
type), DistilBERT (no token types), ELECTRA (embeddings projected to the
states) and DeBERTa-v3 (relative positions, SentencePiece), tiny random ones
built here with tokenizers trained here -- every input form fits and predicts,
term spans land on the term's own sub-words, and the model survives its file,
pickle and the ONNX runtime."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import make_pairs, make_tiny_checkpoint
from test_runtime import _term_pairs

from aspectattn import AspectAttentionClassifier
from aspectattn.encoders import PretrainedEncoder
from aspectattn.persistence import load

pytest.importorskip("transformers")
FAMILIES = ["roberta", "xlmr", "distilbert", "electra", "deberta"]


@pytest.fixture(scope="module", params=FAMILIES)
def checkpoint(request, tmp_path_factory):
    return make_tiny_checkpoint(tmp_path_factory.mktemp(request.param), request.param)


def _fit(checkpoint, form):
    """``form``: "vector" (the aspect as the attention's query), "pair" (the
    aspect as a second segment: no token type ids for these families) or
    "terms" (term spans)."""
    X, y = _term_pairs(40, 0) if form == "terms" else make_pairs(40, 0)
    params = dict(
        encoder=PretrainedEncoder(
            str(checkpoint), input="pair" if form == "pair" else "vector"
        ),
        max_epochs=1,
        random_state=0,
    )
    return AspectAttentionClassifier(**params).fit(X, y), X


@pytest.mark.parametrize("form", ["vector", "pair", "terms"])
def test_every_input_form_fits_predicts_and_round_trips(checkpoint, form, tmp_path):
    clf, X = _fit(checkpoint, form)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2) and np.isfinite(proba).all()
    clf.save(tmp_path / "m.aam")
    np.testing.assert_array_equal(load(tmp_path / "m.aam").predict_proba(X), proba)
    np.testing.assert_array_equal(
        pickle.loads(pickle.dumps(clf)).predict_proba(X), proba
    )
    pytest.importorskip("onnxruntime")
    from aspectattn.serving.export import export_onnx
    from aspectattn.serving.runtime import load_onnx

    served = load_onnx(export_onnx(clf, tmp_path / "onnx"))
    np.testing.assert_allclose(served.predict_proba(X), proba, atol=1e-5)


def test_term_spans_are_the_terms_own_subwords(checkpoint):
    """A prefix of a byte-level or SentencePiece text ends in a space token that
    the whole text does not have: spans come from the tokenizer's offsets."""
    clf, _ = _fit(checkpoint, "terms")
    pipeline = clf.text_pipeline_
    texts = [
        "the salad was delicious but the host was rude",
        "the manager was lovely.",
        "great cheeseburger",
    ]
    terms, spans = ["host", "manager", "burger"], [(32, 36), (4, 11), (12, 18)]
    found = pipeline.term_spans(texts, terms, spans)
    tokens = pipeline.tokens(pipeline.encode(texts))
    for (start, end), row, term in zip(found, tokens, terms, strict=True):
        text = "".join(row[start:end]).replace("\u0120", "").replace("\u2581", "")
        # the term's sub-words (the whole word where the span cuts one; with a
        # word-level vocabulary, the unknown word's one token)
        assert text in (term, "cheeseburger", "[UNK]"), row[start:end]
        assert text != "[UNK]" or term == "burger"
