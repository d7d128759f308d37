"""AspectAttentionClassifier: learning, the input contract and the sklearn contract.

sklearn's ``check_estimator`` skips estimators that take text, so the contract is
tested here by hand. One model is fitted per module (``fitted``) and reused.
"""

import math
import pickle
import subprocess
import sys
import textwrap

import conftest
import joblib
import numpy as np
import pytest
import torch
from conftest import FAST, FOOD, LEARN, SERVICE, lstm, make_pairs
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from aspectattn import (
    AspectAttentionClassifier,
    AspectCategoryClassifier,
    InputError,
    UnknownAspectError,
)
from aspectattn import params as P
from aspectattn.attention import AspectAttention
from aspectattn.encoders import LSTMEncoder
from aspectattn.training import EarlyStopping, Optimizer


@pytest.fixture(scope="module")
def fitted(pairs):
    X, y = pairs
    return AspectAttentionClassifier(variant="atae", **FAST).fit(X, y)


# ------------------------------------------------------------------------ learning
@pytest.mark.parametrize("variant", ["at", "ae", "atae"])
def test_learns_an_aspect_dependent_rule(variant, pairs, test_pairs):
    # Every test sentence has one aspect praised and the other criticised: ignoring
    # the aspect caps accuracy at 50%. (Checked on random_state 0-4 for all variants.)
    clf = AspectAttentionClassifier(variant=variant, **LEARN).fit(*pairs)
    assert clf.score(*test_pairs) >= 0.9


def test_without_the_final_state_the_attention_alone_is_classified(
    pairs, test_pairs, tmp_path
):
    clf = AspectAttentionClassifier(
        variant="at", attention=AspectAttention(final_state=False), **LEARN
    )
    clf.fit(*pairs)
    assert clf.score(*test_pairs) >= 0.9
    assert clf.module_config_["final_state"] is False
    assert not hasattr(clf.module_, "W_x")
    clf.save(tmp_path / "m.aam")
    loaded = AspectAttentionClassifier.load(tmp_path / "m.aam")
    np.testing.assert_array_equal(
        loaded.predict_proba(test_pairs[0]), clf.predict_proba(test_pairs[0])
    )
    with pytest.raises(
        ValueError,
        match=r"'final_state' parameter of AspectAttention \(attention of "
        r"AspectAttentionClassifier\)",
    ):
        AspectAttentionClassifier(
            **FAST, attention=AspectAttention(final_state="no")
        ).fit(*pairs)
    # the term's own summary needs a term
    with pytest.raises(ValueError, match="final_state='term' needs aspect terms"):
        AspectAttentionClassifier(
            **FAST, attention=AspectAttention(final_state="term")
        ).fit(*pairs)


def test_at_with_paper_concat_score_cannot_use_the_aspect(pairs, test_pairs):
    clf = AspectAttentionClassifier(variant="at", attention="concat", **FAST)
    clf.fit(*pairs)
    proba = clf.predict_proba(test_pairs[0][:20])
    # Same sentence, two aspects -> identical outputs (the aspect cancels).
    np.testing.assert_allclose(proba[0::2], proba[1::2], atol=1e-6)


def test_predict_returns_original_labels_and_proba_follows_classes(pairs):
    X, y = pairs
    y_int = np.where(np.asarray(y) == "positive", 7, -3)
    clf = AspectAttentionClassifier(**FAST).fit(X, y_int)
    assert clf.classes_.tolist() == [-3, 7]
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    assert np.array_equal(clf.predict(X), clf.classes_[proba.argmax(1)])
    assert set(clf.predict(X)) <= {-3, 7}


def test_fit_returns_self_and_sets_fitted_attributes(pairs):
    clf = AspectAttentionClassifier(**FAST)
    assert clf.fit(*pairs) is clf
    assert clf.aspect_type_ == "category"
    assert clf.aspects_.tolist() == ["food", "service"]
    assert clf.n_features_in_ == 2
    assert len(clf.history_) == FAST["max_epochs"] and "train_loss" in clf.history_[0]
    assert clf.best_epoch_ == FAST["max_epochs"]
    assert not hasattr(clf, "feature_names_in_")


# --------------------------------------------------------------- the input contract
def _bad_inputs():
    good = ("the food was good", "food")
    return [
        ("the food was good", ["pos"], "bare string"),
        ([("the food", "food", "extra")], ["pos"], "third item of pair 0"),
        ([("   ", "food")], ["pos"], "text of pair 0 is empty"),
        ([("", "food")], ["pos"], "text of pair 0 is empty"),
        ([(good[0], None)], ["pos"], "aspect of pair 0 is missing"),
        ([(good[0], float("nan"))], ["pos"], "aspect of pair 0 is missing"),
        ([(good[0], "")], ["pos"], "aspect of pair 0 is empty"),
        ([(42, "food")], ["pos"], "expected a string"),
        ([good, good], ["pos"], "2 pairs but 1 labels"),
        ([good, good], ["pos", float("nan")], r"Label 1 is missing \(nan\)"),
        ([good, good], ["pos", None], r"Label 1 is missing \(None\)"),
        ([good, good], ["pos", ""], "Label 1 is missing"),
        ([good, good], ["pos", "pos"], "single class"),
        ([], [], "no pairs"),
        (np.array([["a", "b", "c"]]), ["pos"], r"shape \(n_pairs, 2\)"),
        ([good, "not a pair"], ["pos", "neg"], "element 1"),
        ([("...", "food"), ("\u200b", "food")], ["a", "b"], "pair 1"),
    ]


@pytest.mark.parametrize("X, y, message", _bad_inputs())
def test_bad_input_raises_a_clear_value_error(X, y, message):
    with pytest.raises(ValueError, match=message):
        AspectAttentionClassifier(**FAST).fit(X, y)


def test_bad_input_at_predict(fitted):
    with pytest.raises(InputError, match="bare string"):
        fitted.predict("the pasta was great")
    with pytest.raises(UnknownAspectError, match=r"\['price'\] was not seen in fit"):
        fitted.predict([("the price was fair", "price")])
    with pytest.raises(ValueError, match="empty"):
        fitted.predict([("", "food")])
    with pytest.raises(ValueError, match="bare string"):
        fitted.predict_aspects("the pasta")


def test_dataframe_input_with_custom_columns(pairs):
    pd = pytest.importorskip("pandas")
    X, y = pairs
    frame = pd.DataFrame(X, columns=["review", "topic"])
    clf = AspectAttentionClassifier(text_column="review", aspect_column="topic", **FAST)
    clf.fit(frame, pd.Series(y))
    assert clf.feature_names_in_.tolist() == ["review", "topic"]
    ref = AspectAttentionClassifier(**FAST).fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(frame), ref.predict_proba(X))
    with pytest.raises(ValueError, match=r"no column\(s\) \['review'\]"):
        clf.predict(frame.rename(columns={"review": "body"}))


def test_numpy_object_array_input(fitted, pairs):
    X = pairs[0][:10]
    np.testing.assert_array_equal(
        fitted.predict(np.array(X, dtype=object)), fitted.predict(X)
    )


# ------------------------------------------------------------ hyperparameter checks
@pytest.mark.parametrize(
    "params, message",
    [
        (
            {"encoder": lstm(hidden_size=-3)},
            r"The 'hidden_size' parameter of LSTMEncoder \(encoder of "
            r"AspectAttentionClassifier\) must be a str among {'auto'} or an int in "
            r"the range \[1, 100000\]. Got -3 instead.",
        ),
        (
            {"encoder": lstm(hidden_size=2.5)},
            "'hidden_size' parameter .* or an int in the",
        ),
        (
            {"variant": "lstm"},
            "'variant' parameter .* must be a str among .*'at'",
        ),
        (
            {"dropout": 1.0},
            r"'dropout' parameter .* must be a str among {'auto'} or a float in the "
            r"range \[0.0, 1.0\)",
        ),
        (
            {"lr": 0},
            "'lr' parameter .* must be a str among {'auto'} or a float in the "
            "range \\(0.0, inf\\). Got 0 ",
        ),
        ({"validation_fraction": 1.5}, "'validation_fraction'"),
        (
            {"encoder": lstm(embeddings=3)},
            "'embeddings' parameter .* must be None, an instance of 'str'",
        ),
        ({"random_state": -1}, "'random_state'"),
        # 1 == True, but a number is not a boolean
        (
            {"encoder": lstm(bidirectional=1)},
            "'bidirectional' parameter .* must be an instance of 'bool'",
        ),
        (
            {"attention": AspectAttention(final_state=0)},
            "'final_state' parameter .* must be an instance of 'bool'",
        ),
        # non-finite rates and penalties would train to NaN without a word
        ({"lr": float("inf")}, "'lr' parameter .* Got inf instead"),
        (
            {"optimizer": Optimizer(head_lr=float("inf"))},
            r"'head_lr' parameter of Optimizer \(optimizer of .* Got inf instead",
        ),
        (
            {"encoder": lstm(embedding_lr=float("inf"))},
            "'embedding_lr' parameter .* Got inf",
        ),
        (
            {"optimizer": Optimizer(weight_decay=float("inf"))},
            "'weight_decay' parameter .* Got inf",
        ),
        ({"lr": float("nan")}, "'lr' parameter .* Got nan instead"),
        (
            {"optimizer": Optimizer(gradient_clip=float("inf"))},
            "'gradient_clip' parameter .* Got inf",
        ),
        ({"class_weight": "auto"}, "'class_weight'"),
        ({"copy_weight": 0}, "'copy_weight' parameter .* range \\(0.0, inf\\)"),
        ({"copy_weight": float("inf")}, "'copy_weight' parameter .* Got inf"),
        ({"early_stopping": True}, "early_stopping=True needs a validation split"),
        (
            {"encoder": lstm(embedding_dim=20, embeddings="missing/vectors.txt")},
            "not found",
        ),
        ({"encoder": "gru"}, "'encoder' parameter .* must be a str among"),
        ({"encoder": LSTMEncoder}, "'encoder' parameter .* must be a str among"),
    ],
)
def test_invalid_hyperparameters_are_reported_in_fit(params, message, pairs):
    clf = AspectAttentionClassifier(**{**FAST, **params})  # __init__ never raises
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        clf.fit(*pairs)


def test_init_stores_parameters_verbatim_and_clone_round_trips():
    clf = AspectAttentionClassifier(
        encoder=LSTMEncoder(hidden_size=-3), variant="nonsense", lr="x"
    )
    assert clf.get_params()["encoder__hidden_size"] == -3  # validated in fit
    params = AspectAttentionClassifier(**FAST).get_params(deep=False)
    again = AspectAttentionClassifier(**params)
    assert again.get_params() == AspectAttentionClassifier(**FAST).get_params()
    cloned = clone(again)
    assert cloned.get_params(deep=False).keys() == params.keys()
    assert cloned.encoder is not again.encoder  # the encoder is cloned too
    assert cloned.encoder.get_params() == again.encoder.get_params()
    again = clone(again).set_params(encoder__hidden_size=7)  # (FAST's stays)
    assert clone(again).encoder.hidden_size == 7
    assert FAST["encoder"].hidden_size == 24


def test_clone_of_fitted_is_unfitted(fitted):
    fresh = clone(fitted)
    assert not hasattr(fresh, "module_")
    with pytest.raises(NotFittedError):
        fresh.predict([("the pasta", "food")])


@pytest.mark.parametrize(
    "method", ["predict", "predict_proba", "decision_function", "explain"]
)
def test_unfitted_raises_not_fitted_error(method):
    with pytest.raises(NotFittedError):
        getattr(AspectAttentionClassifier(), method)([("the pasta", "food")])
    with pytest.raises(NotFittedError):
        AspectAttentionClassifier().predict_aspects(["the pasta"], ["food"])


def test_sklearn_tags_declare_text_input():
    tags = AspectAttentionClassifier().__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array
    assert tags.estimator_type == "classifier"


def test_data_free_sklearn_checks():
    from sklearn.utils.estimator_checks import (
        check_get_params_invariance,
        check_no_attributes_set_in_init,
        check_parameters_default_constructible,
        check_set_params,
    )

    name, est = "AspectAttentionClassifier", AspectAttentionClassifier()
    check_no_attributes_set_in_init(name, est)
    check_parameters_default_constructible(name, est)
    check_get_params_invariance(name, est)
    check_set_params(name, est)


# --------------------------------------------------------------- sklearn integration
def _strip(X):
    return [(t.strip(), a) for t, a in X]


def test_pipeline(pairs, test_pairs):
    pipe = Pipeline(
        [
            ("clean", FunctionTransformer(_strip)),
            ("clf", AspectAttentionClassifier(**LEARN)),
        ]
    )
    pipe.fit(*pairs)
    assert pipe.score(*test_pairs) >= 0.9


def test_grid_search_in_worker_processes(pairs):
    # (in this process: every other grid search of the suite)
    X, y = pairs
    grid = GridSearchCV(
        AspectAttentionClassifier(**{**FAST, "max_epochs": 4}),
        {"encoder__hidden_size": [8, 16], "variant": ["at", "atae"]},
        cv=2,
        n_jobs=2,
    )
    grid.fit(X, y)
    assert len(grid.cv_results_["params"]) == 4
    assert grid.best_params_["encoder__hidden_size"] in (8, 16)
    assert grid.best_estimator_.encoder.hidden_size in (8, 16)
    assert grid.predict(X[:5]).shape == (5,)


def test_numpy_scalars_are_parameters_like_python_ones(pairs, tmp_path):
    # what GridSearchCV passes from np.array grids: np.int64, np.float64, np.bool_
    X, y = pairs
    grid = GridSearchCV(
        AspectAttentionClassifier(**{**FAST, "max_epochs": 1}),
        {"encoder__hidden_size": np.array([8, 16]), "lr": np.array([1e-3])},
        cv=2,
    ).fit(X, y)
    assert grid.best_params_["encoder__hidden_size"] in (8, 16)
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).set_params(
        random_state=np.int64(3), encoder=lstm(freeze_embeddings=np.bool_(False))
    )
    clf.fit(X, y)
    path = tmp_path / "m.aam"
    clf.save(path)
    loaded = AspectAttentionClassifier.load(path)
    assert loaded.random_state == 3 and type(loaded.random_state) is int
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))


def test_a_device_this_machine_lacks_is_a_clear_error(pairs):
    import torch

    if torch.backends.mps.is_available():
        pytest.skip("this machine has MPS")
    with pytest.raises(ValueError, match="device='mps' was requested but"):
        AspectAttentionClassifier(**{**FAST, "device": "mps"}).fit(*pairs)


def test_cross_val_score(pairs):
    scores = cross_val_score(AspectAttentionClassifier(**LEARN), *pairs, cv=3)
    assert scores.shape == (3,) and scores.mean() >= 0.8


# ------------------------------------------------------------------ reproducibility
def test_same_random_state_gives_identical_results(pairs):
    X, y = pairs
    params = {
        **FAST,
        "dropout": 0.3,
        "max_epochs": 3,
        "encoder": lstm(embeddings="word2vec"),
    }
    a = AspectAttentionClassifier(**params).fit(X, y).predict_proba(X)
    b = AspectAttentionClassifier(**params).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    c = AspectAttentionClassifier(**{**params, "random_state": 1}).fit(X, y)
    assert not np.array_equal(a, c.predict_proba(X))


def test_fit_leaves_global_rngs_untouched(pairs):
    torch.manual_seed(123)
    np.random.seed(123)  # noqa: NPY002 - the legacy global RNG is what must not move
    torch_state, np_state = torch.get_rng_state(), np.random.get_state()  # noqa: NPY002
    AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(*pairs)
    AspectAttentionClassifier(**{**FAST, "max_epochs": 1, "random_state": None}).fit(
        *pairs
    )
    assert torch.equal(torch.get_rng_state(), torch_state)
    assert np.array_equal(np.random.get_state()[1], np_state[1])  # noqa: NPY002


# -------------------------------------------------------------------- persistence
_RELOAD = textwrap.dedent("""
    import sys, pickle, joblib, numpy as np
    sys.modules["gensim"] = None  # (a model must not need it to predict)
    X = pickle.load(open(sys.argv[1], "rb"))
    for path in sys.argv[2:]:
        if path.endswith(".joblib"):
            model = joblib.load(path)
        else:
            with open(path, "rb") as f:
                model = pickle.load(f)
        np.save(path + ".npy", model.predict_proba(X))
    print("gensim loaded:", sys.modules.get("gensim") is not None)
""")


def _reload_in_fresh_process(tmp_path, written, X):
    """Each ``(model, loader)`` of ``written`` saved by the loader's library,
    then all read and asked for ``X``'s probabilities in one fresh process
    without gensim (a torch import is seconds): the probabilities of each, and
    the process's output."""
    x_path = tmp_path / "x.pkl"
    x_path.write_bytes(pickle.dumps(X))
    paths = []
    for i, (model, loader) in enumerate(written):
        if loader == "joblib.load":
            paths.append(tmp_path / f"m{i}.joblib")
            joblib.dump(model, paths[-1])
        else:
            paths.append(tmp_path / f"m{i}.pkl")
            paths[-1].write_bytes(pickle.dumps(model))
    run = subprocess.run(
        [sys.executable, "-c", _RELOAD, str(x_path), *paths],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return [np.load(f"{path}.npy") for path in paths], run.stdout


def test_fresh_process_reads_identical_proba_without_gensim_or_vector_file(
    fitted, pairs, test_pairs, tmp_path
):
    # the fitted defaults (word2vec trained in fit), pickled and joblib'd, and a
    # model of a word-vector file that is gone, in one fresh process
    X, y = pairs
    words = sorted({w for t, _ in X for w in t.replace(".", " ").split()})
    rng = np.random.default_rng(0)
    vec_file = tmp_path / "vectors.txt"
    vec_file.write_text(
        "".join(
            f"{w} " + " ".join(f"{v:.4f}" for v in rng.normal(size=8)) + "\n"
            for w in words
        )
    )
    clf = AspectAttentionClassifier(
        **{**FAST, "encoder": lstm(embeddings=str(vec_file), embedding_dim=None)}
    ).fit(X, y)
    vec_file.unlink()
    written = [(fitted, "pickle.load"), (fitted, "joblib.load"), (clf, "pickle.load")]
    loaded, stdout = _reload_in_fresh_process(tmp_path, written, test_pairs[0])
    for (model, _), proba in zip(written, loaded, strict=True):
        np.testing.assert_array_equal(proba, model.predict_proba(test_pairs[0]))
    assert "gensim loaded: False" in stdout


def test_pickle_holds_weights_once_and_no_skorch_net(fitted):
    blob = pickle.dumps(fitted)
    n_bytes = sum(p.numel() * 4 for p in fitted.module_.parameters())
    assert len(blob) < 1.1 * n_bytes + 200_000  # weights + vocabulary, no duplicates
    state = fitted.__getstate__()
    assert not any("skorch" in type(v).__module__ for v in state.values())
    assert "module_" not in state


# --------------------------------------------------------------- attention outputs
def test_explain_returns_tokens_and_weights(fitted):
    X = [("The pasta was great but the waiter was rude.", "service")]
    (result,) = fitted.explain(X)
    assert result["tokens"] == [
        "the",
        "pasta",
        "was",
        "great",
        "but",
        "the",
        "waiter",
        "was",
        "rude",
        ".",
    ]
    assert result["weights"].shape == (10,)
    assert math.isclose(result["weights"].sum(), 1.0, rel_tol=1e-6)
    assert result["label"] == fitted.predict(X)[0]
    np.testing.assert_allclose(result["proba"], fitted.predict_proba(X)[0], atol=1e-6)


def test_explain_refuses_the_ae_variant(pairs):
    clf = AspectAttentionClassifier(variant="ae", **{**FAST, "max_epochs": 1})
    with pytest.raises(ValueError, match="has no attention"):
        clf.fit(*pairs).explain(pairs[0][:1])


@pytest.mark.parametrize("variant", ["at", "atae"])
def test_many_aspects_at_once_equals_pairwise(variant, pairs, test_pairs):
    clf = AspectAttentionClassifier(variant=variant, **LEARN).fit(*pairs)
    texts = [t for t, _ in test_pairs[0][::2]]
    proba = clf.predict_proba_aspects(texts)  # all categories seen in fit
    assert proba.shape == (len(texts), 2, 2)
    pairwise = clf.predict_proba([(t, a) for t in texts for a in ["food", "service"]])
    np.testing.assert_allclose(proba.reshape(-1, 2), pairwise, atol=1e-5)
    labels = clf.predict_aspects(texts, ["service"])
    assert labels.shape == (len(texts), 1)
    with pytest.raises(UnknownAspectError):
        clf.predict_aspects(texts, ["ambience"])


def test_term_aspects(pairs):
    # Aspect terms: the aspect is a phrase of the sentence ("pasta", "waiter").
    X, y = pairs
    words = {"food": set(FOOD), "service": set(SERVICE)}
    X_terms = [
        (t, next(w for w in t.rstrip(".").split() if w in words[a])) for t, a in X
    ]
    # (no copies, as LEARN: they are the augmentation tests'; the terms learn
    # without them)
    clf = AspectAttentionClassifier(**LEARN).fit(X_terms, y)
    assert clf.aspect_type_ == "term"
    assert clf.aspects_.size == 0
    assert clf.score(X_terms, y) >= 0.9
    # unseen terms are built from their words: no error
    assert clf.predict([("the lasagna was bland", "lasagna")]).shape == (1,)
    with pytest.raises(ValueError, match="aspects is required"):
        clf.predict_aspects(["the soup was bland"])
    assert clf.predict_aspects(["the soup was bland"], ["soup"]).shape == (1, 1)


# ----------------------------------------------------------- validation and options
def test_validation_split_early_stopping_and_history(pairs):
    X, y = make_pairs(200, seed=5)
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 30},
        validation_fraction=0.2,
        early_stopping=EarlyStopping(scoring="accuracy", patience=3),
    ).fit(X, y)
    row = clf.history_[-1]
    assert {"valid_loss", "valid_acc", "valid_f1", "dur"} <= set(row)
    accs = [r["valid_acc"] for r in clf.history_]
    assert clf.best_epoch_ == 1 + int(np.argmax(accs))
    # it stopped early: exactly `patience` epochs after the best one
    assert len(clf.history_) == clf.best_epoch_ + 3 < 30
    assert not clf.interrupted_


def test_verbose_prints_progress(pairs, capsys):
    AspectAttentionClassifier(
        **{**FAST, "max_epochs": 2}, verbose=1, validation_fraction=0.2
    ).fit(*pairs)
    captured = capsys.readouterr()
    err = captured.err
    assert "train_loss" in err and "valid_acc" in err and "dur" in err
    assert captured.out == ""  # stdout is for results
    assert "\x1b[" not in err  # no colour codes when stderr is not a terminal


def test_silent_by_default(pairs, capsys):
    AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(*pairs)
    assert capsys.readouterr() == ("", "")


def test_class_weight_shifts_predictions_towards_the_weighted_class(pairs):
    X, y = pairs
    params = {**FAST, "max_epochs": 2}
    plain = AspectAttentionClassifier(**params).fit(X, y).predict(X)
    weighted = AspectAttentionClassifier(**params, class_weight={"negative": 20.0}).fit(
        X, y
    )
    shifted = weighted.predict(X)
    assert (shifted == "negative").mean() > (plain == "negative").mean() + 0.1
    balanced = AspectAttentionClassifier(**params, class_weight="balanced").fit(X, y)
    assert balanced.predict(X).shape == (len(X),)


def test_sample_weight_shifts_predictions_towards_the_weighted_pairs(pairs):
    X, y = pairs
    params = {**FAST, "max_epochs": 2}
    plain = AspectAttentionClassifier(**params).fit(X, y).predict(X)
    weights = np.where(np.asarray(y) == "negative", 20.0, 1.0)
    weighted = AspectAttentionClassifier(**params).fit(X, y, sample_weight=weights)
    shifted = weighted.predict(X)
    assert (shifted == "negative").mean() > (plain == "negative").mean() + 0.1
    # a weight of 1 each is the unweighted fit (up to float rounding)
    ones = AspectAttentionClassifier(**params).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_allclose(
        ones.predict_proba(X),
        AspectAttentionClassifier(**params).fit(X, y).predict_proba(X),
        atol=1e-4,
    )


def test_sample_weight_reaches_the_classifier_through_a_pipeline_and_a_search(
    pairs,
):
    X, y = pairs
    weights = np.where(np.asarray(y) == "negative", 20.0, 1.0)
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 2})
    pipe = Pipeline([("clean", FunctionTransformer(_strip)), ("clf", clf)])
    direct = clone(clf).fit(_strip(X), y, sample_weight=weights)
    pipe.fit(X, y, clf__sample_weight=weights)
    np.testing.assert_array_equal(pipe.predict_proba(X), direct.predict_proba(X))
    search = GridSearchCV(
        AspectAttentionClassifier(**{**FAST, "max_epochs": 1}),
        {"dropout": [0.0]},
        cv=2,
    ).fit(X, y, sample_weight=weights)
    assert search.best_estimator_.predict(X).shape == (len(X),)


def test_sample_weight_is_routed_as_scikit_learn_routes_metadata(pairs):
    import sklearn
    from sklearn.model_selection import cross_validate

    X, y = pairs
    weights = np.where(np.asarray(y) == "negative", 20.0, 1.0)
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1})
    with sklearn.config_context(enable_metadata_routing=True):
        routed = clf.set_fit_request(sample_weight=True).set_score_request(
            sample_weight=False
        )
        scores = cross_validate(routed, X, y, cv=2, params={"sample_weight": weights})
    assert scores["test_score"].shape == (2,)


@pytest.mark.parametrize(
    "weights, message",
    [
        (lambda n: np.ones(n - 1), r"sample_weight.shape == \(\d+,\), expected"),
        (lambda n: -np.ones(n), "Negative values in data passed to `sample_weight`"),
        (lambda n: np.r_[np.nan, np.ones(n - 1)], "sample_weight contains NaN"),
        (lambda n: np.zeros(n), "at least one non-zero|pairs the weight 0"),
    ],
)
def test_bad_sample_weight_is_a_clear_error(weights, message, pairs):
    X, y = pairs
    with pytest.raises(ValueError, match=message):
        AspectAttentionClassifier(**FAST).fit(X, y, sample_weight=weights(len(y)))


def test_each_copy_weighs_copy_weight_times_its_sources(monkeypatch):
    seen = conftest.spy_on_training_data(monkeypatch, AspectAttentionClassifier)
    X = [("the pasta was great", "pasta"), ("the soup was awful", "soup")] * 6
    X = [(f"{t} number {k}", a) for k, (t, a) in enumerate(X)]
    y = ["positive", "negative"] * 6
    weights = np.arange(1.0, 13.0)
    params = {**FAST, "aspect_type": "term", "augment": "flip+join", "max_epochs": 1}
    AspectAttentionClassifier(**params, copy_weight=0.5).fit(
        X, y, sample_weight=weights
    )
    AspectAttentionClassifier(**params, copy_weight=0.5).fit(X, y)
    AspectAttentionClassifier(**params).fit(X, y)
    weighted, halved, plain = seen
    n = weighted.n_given
    np.testing.assert_array_equal(weighted.weights[:n], weights)
    expected = 0.5 * weights[weighted.source].mean(axis=1)
    np.testing.assert_allclose(weighted.weights[n:], expected)
    assert weighted.source.shape[1] == 2 and len(weighted.texts) > n
    np.testing.assert_array_equal(halved.weights[:n], 1.0)
    np.testing.assert_array_equal(halved.weights[n:], 0.5)
    assert plain.weights is None  # (the default: every row counts once)


def test_class_weight_with_unknown_label(pairs):
    with pytest.raises(ValueError, match="not in y"):
        AspectAttentionClassifier(**FAST, class_weight={"great": 2.0}).fit(*pairs)


def test_freeze_embeddings_keeps_word_vectors(pairs):
    params = {**FAST, "max_epochs": 2}
    params_frozen = {**params, "encoder": lstm(freeze_embeddings=True)}
    frozen = AspectAttentionClassifier(**params_frozen).fit(*pairs)
    init = AspectAttentionClassifier(
        **{**params_frozen, "max_epochs": 1, "lr": 1e-12}
    ).fit(*pairs)
    np.testing.assert_array_equal(
        frozen.module_.embedding.weight.detach(), init.module_.embedding.weight.detach()
    )
    trained = AspectAttentionClassifier(**params).fit(*pairs)
    assert not torch.equal(
        trained.module_.embedding.weight, frozen.module_.embedding.weight
    )


@pytest.mark.parametrize("optimizer", ["adam", "adamw", "adagrad", "sgd"])
def test_optimizers_change_the_weights(optimizer, pairs):
    params = {**FAST, "max_epochs": 1, "lr": 0.01}
    before = AspectAttentionClassifier(**{**params, "lr": 1e-12}).fit(*pairs)
    clf = AspectAttentionClassifier(
        **params,
        optimizer=Optimizer(optimizer, gradient_clip=1.0, weight_decay=1e-4),
    ).fit(*pairs)
    assert not torch.allclose(
        clf.module_.classifier.weight, before.module_.classifier.weight
    )


def test_bidirectional_and_max_len(pairs):
    clf = AspectAttentionClassifier(
        **{**FAST, "encoder": lstm(bidirectional=True, max_len=4)}
    ).fit(*pairs)
    (res,) = clf.explain([("the pasta was great but the waiter was rude", "food")])
    assert len(res["tokens"]) == 4


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_training_and_cpu_reload(pairs):  # pragma: no cover
    clf = AspectAttentionClassifier(**FAST, device="cuda").fit(*pairs)
    assert next(clf.module_.parameters()).is_cuda
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_allclose(
        again.predict_proba(pairs[0]), clf.predict_proba(pairs[0]), atol=1e-5
    )


def test_explicit_cuda_without_cuda_is_an_error(pairs):
    if torch.cuda.is_available():
        pytest.skip("CUDA is available")
    with pytest.raises(ValueError, match="CUDA is not available"):
        AspectAttentionClassifier(**FAST, device="cuda").fit(*pairs)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"variant": "ae", "attention": "dot"}, "'attention__score' is not used when"),
        (
            {"variant": "ae", "attention": AspectAttention(final_state=False)},
            "'attention__final_state' is not used when",
        ),
    ],
)
def test_parameters_the_settings_ignore_get_a_warning(params, message, pairs):
    from aspectattn import AspectAttnWarning

    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1, **params})
    with pytest.warns(AspectAttnWarning, match=message):
        clf.fit(*pairs)


def test_defaults_give_no_unused_parameter_warning(pairs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = {**FAST, "max_epochs": 1, "augment": "auto"}
        AspectAttentionClassifier(**auto).fit(*pairs)


def test_binary_decision_function_is_one_dimensional(fitted, pairs):
    from sklearn.model_selection import cross_val_score

    X, y = pairs
    scores = fitted.decision_function(X[:5])
    assert scores.shape == (5,)
    proba = fitted.predict_proba(X[:5])
    assert np.all((scores > 0) == (proba[:, 1] > 0.5))
    auc = cross_val_score(
        AspectAttentionClassifier(**{**FAST, "max_epochs": 2}),
        X,
        y,
        cv=2,
        scoring="roc_auc",
    )
    assert np.all(np.isfinite(auc))


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_empty_labels_are_missing(blank, pairs):
    X, y = pairs
    y = list(y)
    y[3] = blank
    with pytest.raises(InputError, match="Label 3 is missing"):
        AspectAttentionClassifier(**FAST).fit(X, y)


@pytest.mark.parametrize("term", ["\u200b", "\u200b\ufeff"])
def test_a_term_without_tokens_is_an_error(term, pairs):
    X, y = pairs
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}, aspect_type="term")
    with pytest.raises(InputError, match="aspect term of pair 0"):
        clf.fit([(X[0][0], term), *X[1:]], y)


def test_pairs_as_a_1d_object_array_and_bad_elements(fitted, pairs):
    X, _ = pairs
    as_objects = np.empty(3, dtype=object)
    for i in range(3):
        as_objects[i] = X[i]
    np.testing.assert_array_equal(fitted.predict(as_objects), fitted.predict(X[:3]))
    for element in ({"text": "a", "aspect": "food"}, {"a", "food"}):
        with pytest.raises(InputError, match="element 1 is"):
            fitted.predict([X[0], element])


def test_unknown_device_is_a_parameter_error(pairs):
    with pytest.raises(ValueError, match="The 'device' parameter .* must be 'auto'"):
        AspectAttentionClassifier(**FAST, device="tpu").fit(*pairs)


def test_at_prediction_encodes_each_distinct_sentence_once(pairs):
    X, y = pairs
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}, variant="at").fit(X, y)
    rows = []
    clf.module_.encoder.register_forward_hook(
        lambda module, args, out: rows.append(args[0].shape[0])
    )
    clf.predict_proba(X)
    assert sum(rows) == len({t for t, _ in X}) < len(X)
    atae = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}, variant="atae").fit(
        X, y
    )
    rows.clear()
    atae.module_.encoder.register_forward_hook(
        lambda module, args, out: rows.append(args[0].shape[0])
    )
    atae.predict_proba(X)
    assert sum(rows) == len(X)  # the aspect is an encoder input: every pair


def test_joint_training_batches_whole_sentences(pairs, monkeypatch):
    from aspectattn.nn.model import AspectAttentionModel

    X, y = pairs
    seen = []
    original = AspectAttentionModel.forward

    def spy(module, tokens, lengths, aspect, sentence=None, **kw):
        if module.training:
            seen.append(sentence.tolist())
        return original(module, tokens, lengths, aspect, sentence, **kw)

    monkeypatch.setattr(AspectAttentionModel, "forward", spy)
    AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, y)
    text_of = {}
    for text, _ in X:
        text_of.setdefault(text, len(text_of))
    pairs_per_sentence = np.bincount([text_of[t] for t, _ in X])
    # every batch holds whole sentences: as many pairs per sentence as in X
    n_in_batches = sorted(n for batch in seen for n in np.bincount(batch))
    assert n_in_batches == sorted(pairs_per_sentence.tolist())


def test_pandas_na_label_is_missing(pairs):
    pd = pytest.importorskip("pandas")
    X, y = pairs
    labels = pd.Series(list(y), dtype="string")
    labels[4] = pd.NA
    with pytest.raises(InputError, match=r"Label 4 is missing \(<NA>\)"):
        AspectAttentionClassifier(**FAST).fit(X, labels)


def test_labels_of_str_and_np_str_are_one_kind(pairs):
    X, y = pairs
    mixed = [np.str_(label) if i % 2 else label for i, label in enumerate(y)]
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, mixed)
    assert sorted(clf.classes_) == sorted(set(y))
    with pytest.raises(InputError, match="mixes label types"):
        AspectAttentionClassifier(**FAST).fit(X, [1] + list(y[1:]))


def test_resolved_settings_are_recorded_and_refitted_alike(pairs):
    X, y = pairs
    auto = {**FAST, "max_epochs": 1, "augment": "auto"}
    clf = AspectAttentionClassifier(**auto).fit(X, y)
    # the estimator's settings and its components' (scikit-learn's names)
    components = {
        "encoder__bidirectional": False,
        "encoder__hidden_size": FAST["encoder"].hidden_size,  # as set
        "encoder__freeze_embeddings": False,
        "encoder__unseen_words": "spelling",
        "encoder__word_dropout": P.ENCODERS["lstm"].recipe.category_word_dropout,
        "attention__final_state": False,
        "attention__position_weighting": "none",
        "optimizer__head_lr": None,
        "optimizer__lr_schedule": "constant",
    }
    assert clf.resolved_params_ == {
        "language": "en",
        "aspect_type": "category",
        "batch_by": "sentence",
        "augment": "flip+join",
        "copy_weight": 1.0,  # the pair classifier's copies count once
        # FAST's training settings, as set; the LSTM's arithmetic
        **{k: FAST[k] for k in ("lr", "batch_size", "dropout")},
        "max_epochs": 1,
        "precision": "float32",
        **components,
    }
    assert clf.module_config_["final_state"] is False
    # the parameters keep "auto": a clone resolves them again, the same way
    assert clf.get_params()["augment"] == "auto"
    again = clone(clf).fit(X, y)
    assert again.resolved_params_ == clf.resolved_params_
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    detector = AspectCategoryClassifier(**auto)
    texts = [t for t, _ in X[::2]]
    table = {"food": y[::2], "service": ["none"] * len(texts)}
    detector.fit(texts, pytest.importorskip("pandas").DataFrame(table))
    # every sentence mentions food alone: no two share no aspect, so none is
    # joined, but the detector's flipped and negated copies are made
    assert detector.resolved_params_ == {
        "language": "en",
        "augment": "flip+join+negate",
        **{k: FAST[k] for k in ("lr", "batch_size", "dropout")},
        "max_epochs": 1,
        "precision": "float32",
        "mention_weight": 2.0,  # the LSTM detector's
        "copy_weight": 2.0,  # its English copies count twice
        **components,
    }
    # scikit-learn's names: set on an estimator, the record trains as the fit did
    pinned = clone(clf).set_params(**clf.resolved_params_)
    assert "auto" not in [v for k, v in pinned.get_params().items() if "__" in k]
    np.testing.assert_array_equal(
        pinned.fit(X, y).predict_proba(X), clf.predict_proba(X)
    )


def test_defaults_tell_apart_the_aspects_of_a_sentence_the_old_defaults_did_not():
    """Trained on sentences that each mention one aspect (as most review sentences
    do), the defaults get both aspects of "the pasta was great but the waiter was
    rude" right; the defaults before them (ATAE with h_N, no copies) give both the
    sentence's tone."""
    X, y = make_pairs(200, seed=0, single_share=1.0)
    X_test, y_test = make_pairs(30, seed=1)  # every sentence: aspects that disagree

    def sentences_right(clf):
        right = clf.predict(X_test) == np.asarray(y_test)
        return right.reshape(-1, 2).all(axis=1).mean()

    defaults = AspectAttentionClassifier(**{**LEARN, "augment": "auto"}).fit(X, y)
    before = AspectAttentionClassifier(  # (no copies, as LEARN)
        **{**LEARN, "encoder": lstm(bidirectional=False)},
        variant="atae",
        attention=AspectAttention(final_state=True),
    ).fit(X, y)
    assert sentences_right(defaults) >= 0.9
    assert sentences_right(before) <= 0.2


def test_language_auto_is_resolved_from_the_texts_and_kept(tmp_path):
    french = [
        ("le plat était bon mais le service était lent", "food"),
        ("le service était rapide mais le plat était froid", "service"),
    ] * 10
    y = ["positive", "negative"] * 10
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(french, y)
    assert clf.resolved_params_["language"] is None
    assert clf.text_pipeline_.tokenizer.language is None
    clf.save(tmp_path / "m.aam")
    loaded = AspectAttentionClassifier.load(tmp_path / "m.aam")
    assert loaded.text_pipeline_.tokenizer.language is None
    assert loaded.resolved_params_ == clf.resolved_params_
    turkish = AspectAttentionClassifier(**{**FAST, "max_epochs": 1, "language": "tr"})
    assert turkish.fit(french, y).text_pipeline_.tokenizer.language == "tr"
