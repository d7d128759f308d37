"""Bad input never corrupts and never crashes; threads and processes agree.

Property-based tests (hypothesis) throw arbitrary text at a fitted model: every call
either returns valid probabilities or raises the documented ``InputError``.
"""

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import FAST, lstm
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from aspectattn import AspectAttentionClassifier, InputError

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def model(pairs):
    return AspectAttentionClassifier(**{**FAST, "max_epochs": 5}).fit(*pairs)


@pytest.fixture(scope="module")
def term_model(pairs):
    X, y = pairs
    X_terms = [(t, t.split()[1]) for t, _ in X]
    return AspectAttentionClassifier(**{**FAST, "max_epochs": 2}).fit(X_terms, y)


def _valid_proba(proba, n):
    assert proba.shape == (n, 2)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(1), 1.0, rtol=1e-9)


@SETTINGS
@given(text=st.text(max_size=300), aspect=st.sampled_from(["food", "service"]))
def test_arbitrary_unicode_text(model, text, aspect):
    try:
        proba = model.predict_proba([(text, aspect)])
    except InputError as exc:
        # Only texts without a single token may be refused.
        assert not model.tokenizer_(text) if text.strip() else True, exc
        return
    _valid_proba(proba, 1)


@SETTINGS
@given(text=st.text(min_size=1, max_size=200), data=st.data())
def test_arbitrary_terms_at_arbitrary_places(term_model, text, data):
    # a term cut from anywhere in the text, given with its span (the model reads
    # the term's place): it predicts whenever the text and the term have a token
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, min(len(text), start + 30)))
    term = text[start:end]
    count = term_model.text_pipeline_.count_tokens
    readable = bool(term.strip()) and count(term) > 0 and count(text) > 0
    if not readable:
        with pytest.raises(InputError):
            term_model.predict_proba([(text, term, (start, end))])
        return
    _valid_proba(term_model.predict_proba([(text, term, (start, end))]), 1)
    (span,) = term_model.text_pipeline_.term_spans([text], [term], [(start, end)])
    assert 0 <= span[0] < span[1] <= count(text)  # inside the sentence's tokens


@SETTINGS
@given(text=st.text(min_size=1, max_size=200), term=st.text(min_size=1, max_size=30))
def test_a_term_absent_from_its_text_is_a_clear_error(term_model, text, term):
    count = term_model.text_pipeline_.count_tokens
    assume(text.strip() and count(text) > 0 and term.strip())
    assume(term.strip().casefold() not in text.casefold())  # present: see above
    with pytest.raises(InputError, match="does not occur in its text"):
        term_model.predict_proba([(text, term)])


@SETTINGS
@given(
    bad=st.one_of(
        st.none(),
        st.just(float("nan")),
        st.integers(),
        st.binary(),
        st.floats(),
        st.lists(st.text(), max_size=2),
    )
)
def test_wrong_types_in_X_raise_input_error(model, bad):
    with pytest.raises(InputError):
        model.predict([("the pasta was great", "food"), (bad, "food")])
    with pytest.raises(InputError):
        model.predict([("the pasta was great", bad)])


@SETTINGS
@given(
    bad=st.one_of(st.none(), st.just(float("nan"))),
    position=st.integers(min_value=0, max_value=9),
)
def test_missing_labels_raise_input_error(pairs, bad, position):
    X, y = pairs[0][:10], list(pairs[1][:10])
    y[position] = bad
    # None and NaN mark unlabelled pairs (scikit-learn's semi-supervised
    # convention): without a teacher, a clear error that names the first one
    with pytest.raises(InputError, match=rf"Label {position} is missing.*Distilled"):
        AspectAttentionClassifier(**FAST).fit(X, y)


def test_very_long_and_unknown_word_texts(model):
    long_text = ("the pasta was great but " * 5000)[:100_000]
    unknown = "zzyzx qwrtp vbnmq plokij"
    proba = model.predict_proba([(long_text, "food"), (unknown, "service")])
    _valid_proba(proba, 2)
    (res,) = model.explain([(long_text, "food")])
    assert len(res["tokens"]) == model.encoder.max_len


def test_more_classes_at_predict_than_at_fit(model, pairs):
    X, y = pairs
    y_new = ["neutral"] * 5 + list(y[5:40])  # a label the model never saw
    score = model.score(X[:40], y_new)  # works: those 5 are simply wrong
    right = (model.predict(X[5:40]) == np.asarray(y[5:40])).sum()
    assert score == right / 40
    assert set(model.predict(X[:40])) <= set(model.classes_)


def test_failed_fit_leaves_a_fitted_estimator_unchanged(model, pairs, monkeypatch):
    X = pairs[0][:30]
    before = model.predict_proba(X)
    state = {k: v for k, v in model.__dict__.items()}
    with pytest.raises(InputError):
        model.fit([("", "food")], ["positive"])
    with pytest.raises(ValueError):
        model.set_params(encoder=lstm(hidden_size=-1)).fit(*pairs)
    model.set_params(encoder=FAST["encoder"])

    from aspectattn.nn.model import AspectAttentionModel

    def broken(*args, **kwargs):
        raise RuntimeError("out of memory (simulated)")

    monkeypatch.setattr(AspectAttentionModel, "forward", broken)
    with pytest.raises(RuntimeError, match="simulated"):
        model.fit(*pairs)
    monkeypatch.undo()
    assert model.__dict__.keys() == state.keys()
    assert all(model.__dict__[k] is v for k, v in state.items())
    np.testing.assert_array_equal(model.predict_proba(X), before)


def test_eight_threads_give_the_single_threaded_results(model, test_pairs):
    X = test_pairs[0] * 3
    expected = model.predict_proba(X)
    expected_many = model.predict_proba_aspects([t for t, _ in X[:30]])
    results, errors = [None] * 8, []

    def work(i):
        try:
            for _ in range(5):
                proba = model.predict_proba(X)
                many = model.predict_proba_aspects([t for t, _ in X[:30]])
                assert np.array_equal(many, expected_many)
            results[i] = proba
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for proba in results:
        np.testing.assert_array_equal(proba, expected)


def _fit_and_predict():
    from conftest import make_pairs

    X, y = make_pairs(80, seed=3, single_share=0.4)
    params = {**FAST, "max_epochs": 3, "dropout": 0.3, "validation_fraction": 0.2}
    params["encoder"] = lstm(embeddings="word2vec")
    return AspectAttentionClassifier(**params).fit(X, y).predict_proba(X)


_FIT_AND_PREDICT = textwrap.dedent("""
    import sys, numpy as np
    sys.path.insert(0, sys.argv[2])
    from test_robustness import _fit_and_predict
    np.save(sys.argv[1], _fit_and_predict())
""")


def test_same_random_state_is_bit_identical_across_processes(
    tmp_path, one_torch_thread
):
    # a fresh process with another string hashing beside this one (whatever it
    # ran before), one torch thread each
    other_hashing = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    out = tmp_path / "p.npy"
    fresh = subprocess.Popen(
        [sys.executable, "-c", _FIT_AND_PREDICT, str(out), str(Path(__file__).parent)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": other_hashing, "OMP_NUM_THREADS": "1"},
    )
    here = _fit_and_predict()
    _, stderr = fresh.communicate(timeout=300)
    assert fresh.returncode == 0, stderr
    np.testing.assert_array_equal(np.load(out), here)
