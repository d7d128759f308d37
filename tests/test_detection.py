"""AspectCategoryClassifier: detection + sentiment, sklearn's multi-output contract."""

import json
import pickle

import numpy as np
import pytest
import torch
from conftest import FAST, make_table, settings
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from aspectattn import AspectCategoryClassifier, InputError
from aspectattn._mentions import mention_labels
from aspectattn.estimators.categories import mention_f1
from aspectattn.nn.categories import CategoryModel, MultiOutputLoss

PARAMS = {**FAST, "max_epochs": 30}


@pytest.fixture(scope="module")
def data():
    return make_table(300, 0), make_table(80, 1)


@pytest.fixture(scope="module")
def fitted(data):
    (X, Y), _ = data
    return AspectCategoryClassifier(**PARAMS).fit(X, Y)


def test_detects_categories_and_their_polarities(fitted, data):
    _, (X, Y) = data
    predicted = fitted.predict(X)
    assert predicted.shape == Y.shape
    assert (predicted == Y.to_numpy()).mean() >= 0.95
    assert fitted.score(X, Y) >= 0.95
    mentioned = Y.to_numpy() != "none"
    assert ((predicted != "none") == mentioned).mean() >= 0.97
    # the LSTM's mentioned cells weigh twice in the loss (chosen on validation)
    assert fitted.resolved_params_["mention_weight"] == 2.0


def test_disagreeing_aspects_in_one_sentence_beat_bag_of_words(fitted, data):
    # When food and service are both mentioned with opposite polarities, a text
    # classifier per category that sees only which words occur (no word order, no
    # attention) cannot tell which adjective goes with which noun.
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    (X, Y), _ = data
    Xt, Yt = make_table(300, 2)
    both = (Yt["food"] != "none") & (Yt["service"] != "none")
    disagree = (both & (Yt["food"] != Yt["service"])).to_numpy()
    assert disagree.sum() >= 40
    texts = [t for t, d in zip(Xt, disagree, strict=True) if d]
    truth = Yt[disagree].to_numpy()

    def sentences_right(predicted):  # both categories right
        return (predicted == truth).all(1).mean()

    bow = [
        make_pipeline(CountVectorizer(), LogisticRegression(max_iter=1000)).fit(X, Y[c])
        for c in Y.columns
    ]
    ours = sentences_right(fitted.predict(texts))
    theirs = sentences_right(np.stack([m.predict(texts) for m in bow], 1))
    assert ours >= 0.95 and theirs <= 0.6, (ours, theirs)


def test_multi_output_contract(fitted, data):
    _, (X, Y) = data
    assert fitted.categories_.tolist() == ["food", "service"]
    assert isinstance(fitted.classes_, list) and len(fitted.classes_) == 2
    assert fitted.classes_[0].tolist() == ["negative", "none", "positive"]
    proba = fitted.predict_proba(X[:4])
    assert isinstance(proba, list) and [p.shape for p in proba] == [(4, 3), (4, 3)]
    np.testing.assert_allclose(sum(p.sum(1) for p in proba), 2.0)
    predicted = fitted.predict(X[:4])
    for k in range(2):  # mentioned when P(none) <= 0.5, then the likeliest polarity
        labels, p = fitted.classes_[k], proba[k]
        none = labels == "none"
        expected = labels[np.where(none, -1.0, p).argmax(1)]
        expected[p[:, none][:, 0] > 0.5] = "none"
        assert (expected == predicted[:, k]).all()
    assert fitted.n_features_in_ == 1
    fresh = clone(fitted)
    assert not hasattr(fresh, "module_") and settings(fresh) == settings(fitted)


def test_analyze_lists_the_mentioned_categories(fitted):
    (found,) = fitted.analyze(["the pasta was great but the waiter was rude."])
    assert [(f["aspect"], f["label"]) for f in found] == [
        ("food", "positive"),
        ("service", "negative"),
    ]
    food = found[0]
    assert len(food["weights"]) == len(food["tokens"]) == 10
    assert np.isclose(food["weights"].sum(), 1.0)
    assert np.isclose(found[1]["weights"].sum(), 1.0)
    assert not np.allclose(food["weights"], found[1]["weights"])  # its own weights
    assert fitted.analyze(["we went there on friday."]) == [[]]


def test_a_mention_is_read_from_its_own_probability():
    # (negative, none, positive): the likeliest single label of the first cell is
    # "none", but the category is mentioned with probability 0.6
    proba = np.array([[[0.3, 0.4, 0.3], [0.1, 0.6, 0.3], [0.2, 0.5, 0.3]]])
    none = np.array([False, True, False])
    np.testing.assert_array_equal(mention_labels(proba, none), [[0, 1, 2]])
    np.testing.assert_array_equal(mention_labels(proba, none, 0.65), [[1, 1, 1]])


def test_predict_answers_what_analyze_lists(fitted, monkeypatch):
    # (negative, none, positive) per (text, category): cells whose single
    # likeliest label is "none" though the category is more likely mentioned
    # than not (0.35 + 0.25; 0.2 + 0.35), and cells clear either way
    proba = np.array(
        [
            [[0.35, 0.4, 0.25], [0.1, 0.8, 0.1]],
            [[0.05, 0.9, 0.05], [0.45, 0.52, 0.03]],
            [[0.2, 0.45, 0.35], [0.6, 0.3, 0.1]],
        ]
    )
    original = fitted._category_proba

    def fixed(X, encoded=None, attention=False):
        out = original(X, encoded, attention)
        return (proba, out[1]) if attention else proba

    monkeypatch.setattr(fitted, "_category_proba", fixed)
    texts = ["the pasta was great.", "the waiter was rude.", "it was a long day."]
    expected = [["negative", "none"], ["none", "none"], ["positive", "negative"]]
    assert fitted.predict(texts).tolist() == expected
    listed = [[(f["aspect"], f["label"]) for f in row] for row in fitted.analyze(texts)]
    assert listed == [
        [(c, label) for c, label in zip(["food", "service"], row, strict=True)
         if label != "none"]
        for row in expected
    ]  # fmt: skip


def test_sentiment_on_given_categories(fitted):
    labels = fitted.predict_sentiment(
        [("the pasta was great.", "food"), ("the pasta was great.", "service")]
    )
    assert set(labels) <= {"positive", "negative"}  # never "none"
    assert labels[0] == "positive"


def test_pickle_and_safe_file_round_trip(fitted, data, tmp_path):
    _, (X, _) = data
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))
    fitted.save(tmp_path / "m.aam")
    loaded = AspectCategoryClassifier.load(tmp_path / "m.aam")
    np.testing.assert_array_equal(loaded.predict(X), fitted.predict(X))
    for a, b in zip(loaded.predict_proba(X), fitted.predict_proba(X), strict=True):
        np.testing.assert_array_equal(a, b)
    assert [c.tolist() for c in loaded.classes_] == [
        c.tolist() for c in fitted.classes_
    ]


def test_grid_search_uses_the_mention_f1(data):
    (X, Y), _ = data
    search = GridSearchCV(
        AspectCategoryClassifier(**{**PARAMS, "max_epochs": 3}),
        {"sparse_penalty": [0.0, 0.1]},
        cv=2,
    ).fit(X, Y)
    assert 0 <= search.best_score_ <= 1
    assert search.best_estimator_.predict(X[:2]).shape == (2, 2)


def test_array_targets_and_missing_cells(data):
    (X, Y), _ = data
    values = Y.to_numpy().copy()
    values[values == "none"] = None  # missing means not mentioned
    clf = AspectCategoryClassifier(**{**PARAMS, "max_epochs": 1}).fit(X, values)
    assert clf.categories_.tolist() == ["0", "1"]
    assert clf.classes_[0].tolist() == ["negative", "none", "positive"]


def test_sample_weight_weighs_each_text_and_its_copies(data, monkeypatch):
    import conftest

    (X, Y), _ = data
    seen = conftest.spy_on_training_data(monkeypatch, AspectCategoryClassifier)
    weights = np.linspace(0.5, 2.0, len(X))
    params = {**PARAMS, "max_epochs": 1, "augment": "join", "copy_weight": 0.5}
    AspectCategoryClassifier(**params).fit(X, Y, sample_weight=weights)
    (made,) = seen
    n = made.n_given
    np.testing.assert_allclose(made.weights[:n], weights)
    np.testing.assert_allclose(
        made.weights[n:], 0.5 * weights[made.source].mean(axis=1), rtol=1e-6
    )
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\)"):
        AspectCategoryClassifier(**params).fit(X, Y, sample_weight=[1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    ("Y", "message"),
    [
        (None, "Y is required"),
        (np.array(["none"] * 5), "2-dimensional"),
        (np.full((4, 2), "none", dtype=object), "one row per text"),
        (np.full((5, 2), "none", dtype=object), "single label"),
    ],
)
def test_bad_targets(Y, message):
    X = ["the soup was bland."] * 5
    with pytest.raises(InputError, match=message):
        AspectCategoryClassifier(**PARAMS).fit(X, Y)


def test_attention_regularisers_equal_their_formulas():
    alpha = torch.tensor([[[0.5, 0.5, 0.0], [0.0, 0.2, 0.8], [1 / 3, 1 / 3, 1 / 3]]])
    output = (torch.zeros(1, 3, 3), alpha)  # (logits, attention) as the module gives
    target = torch.tensor([[0, 2, 1]])  # class 1 = not mentioned: categories 0, 1
    base = MultiOutputLoss(none_index=1)(output, target)
    sparse = MultiOutputLoss(1, sparse_penalty=1.0)(output, target) - base
    expected_sparse = ((1 - 0.5) + (1 - 0.68)) / 2
    torch.testing.assert_close(sparse, torch.tensor(expected_sparse))
    ortho = MultiOutputLoss(1, orthogonal_penalty=1.0)(output, target) - base
    a = alpha[0, :2]
    expected_ortho = ((a @ a.T - torch.eye(2)) ** 2).sum() / 2
    torch.testing.assert_close(ortho, expected_ortho)


def test_cells_nobody_labelled_are_left_out_of_the_loss():
    """A cell labelled -1 adds nothing to the loss: it is the cross-entropy of
    the labelled cells alone, mention weights and sentence weights as before."""
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 3, 3, generator=generator)  # (B, K, C)
    output = (logits, torch.full((4, 3, 5), 0.2))
    target = torch.tensor([[0, 1, -1], [2, -1, -1], [1, 1, 0], [-1, 2, 1]])
    known = target >= 0
    weight = torch.tensor([2.0, 1.0, 2.0])  # the mentioned cells count twice
    rows = torch.tensor([1.0, 0.5, 2.0, 1.0])
    got = MultiOutputLoss(1, weight=weight)(output, target)
    expected = torch.nn.functional.cross_entropy(
        logits[known], target[known], weight=weight
    )
    torch.testing.assert_close(got, expected)
    got = MultiOutputLoss(1, weight=weight)(output, {"label": target, "weight": rows})
    each = torch.nn.functional.cross_entropy(
        logits[known], target[known], reduction="none"
    )
    scale = rows[:, None].expand(4, 3)[known] * weight[target[known]]
    torch.testing.assert_close(got, (each * scale).sum() / scale.sum())


def test_a_table_of_two_sources_trains_each_on_its_own_categories(data):
    """-1 beside string labels in some cells of a row: nobody labelled that
    category of that text. It is no label (never predicted), the copies keep it
    unknown, score leaves it out, and each source's categories are learned."""
    (X, Y), (X_test, Y_test) = data
    Y = Y.astype(object)
    half = len(X) // 2
    Y.iloc[:half, list(Y.columns).index("service")] = -1  # source A: food only
    Y.iloc[half:, list(Y.columns).index("food")] = -1  # source B: service only
    clf = AspectCategoryClassifier(**PARAMS).fit(X, Y)
    assert clf.labels_.tolist() == ["negative", "none", "positive"]
    predicted = clf.predict(X_test)
    assert set(predicted.ravel()) <= {"negative", "none", "positive"}
    assert (predicted == Y_test.to_numpy()).mean() >= 0.9
    # score leaves the unknown cells out: a prediction agreeing on every known
    # cell scores 1 whatever it answers in the others
    truth = Y_test.astype(object)
    truth.iloc[:10, 0] = -1
    answers = Y_test.to_numpy(dtype=object)
    answers[:10, 0] = "positive"
    assert mention_f1(np.where(truth == -1, "none", truth), answers) < 1.0
    clf.predict = lambda X: answers  # (what score compares with)
    assert clf.score(X_test, truth) == 1.0


def test_the_detector_trains_through_skorchs_get_loss():
    from skorch import NeuralNet

    from aspectattn.engine.training import MultiOutputNet

    assert issubclass(MultiOutputNet, NeuralNet)
    assert "get_loss" in vars(MultiOutputNet)  # the documented extension point
    assert not hasattr(
        CategoryModel(
            encoder="lstm",
            encoder_config={"vocab_size": 30, "embedding_dim": 8, "hidden_size": 6},
            n_classes=3,
            variant="at",
            n_aspects=2,
        ),
        "last_alpha",
    )  # no hidden state


def test_mention_f1():
    truth = np.array([["positive", "none"], ["none", "negative"]], dtype=object)
    assert mention_f1(truth, truth) == 1.0
    wrong_polarity = np.array(
        [["negative", "none"], ["none", "negative"]], dtype=object
    )
    assert mention_f1(truth, wrong_polarity) == 0.5
    assert mention_f1(truth, np.full((2, 2), "none", dtype=object)) == 0.0


def test_score_of_an_int_coded_table(fitted, data):
    # labels coded as integers (1 positive, -1 negative, 0 not mentioned): fit
    # reads them as the strings "1", "-1", "0"; score compares alike, so a perfect
    # prediction scores 1 (it scored 0.5 comparing 0 with "0").
    (X, Y), _ = data
    codes = {"positive": 1, "negative": -1, "none": 0}
    Y_int = Y.apply(lambda column: column.map(codes))
    clf = AspectCategoryClassifier(**{**PARAMS, "not_mentioned": "0"}).fit(X, Y_int)
    predicted = clf.predict(X)
    assert set(predicted.ravel()) <= {"1", "-1", "0"}
    perfect = predicted.astype(int)
    assert mention_f1(perfect, predicted, "0") == 1.0
    assert clf.score(X, Y_int) == pytest.approx(fitted.score(X, Y), abs=0.05)
    assert clf.score(X, Y_int) >= 0.9


def _xml(path, texts, Y):
    """A SemEval-2014-style XML file of the category table."""
    from xml.sax.saxutils import escape, quoteattr

    rows = []
    for i, (text, (_, row)) in enumerate(zip(texts, Y.iterrows(), strict=True)):
        cats = "".join(
            f"<aspectCategory category={quoteattr(c)} polarity={quoteattr(v)}/>"
            for c, v in row.items()
            if v != "none"
        )
        rows.append(
            f'<sentence id="{i}"><text>{escape(text)}</text>'
            f"<aspectCategories>{cats}</aspectCategories></sentence>"
        )
    path.write_text("<sentences>" + "".join(rows) + "</sentences>")
    return path


def test_command_line_trains_predicts_and_evaluates_a_detector(
    data, tmp_path, monkeypatch, capsys
):
    from aspectattn.cli import main

    (X, Y), (Xt, Yt) = data
    monkeypatch.chdir(tmp_path)
    _xml(tmp_path / "train.xml", X, Y)
    _xml(tmp_path / "test.xml", Xt, Yt)
    args = ["--embeddings", "none", "--embedding-dim", "16", "--hidden-size", "24"]
    args += ["--epochs", "25", "--lr", "0.01", "--batch-size", "16", "--dropout", "0"]
    args += ["--embedding-dropout", "0", "--validation-fraction", "0", "--quiet"]
    assert main(["train", "train.xml", "--detector", "--out", "d.aam", *args]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["variant"] == "detector" and summary["sentences"] == len(X)
    assert "pairs" not in summary
    assert main(["evaluate", "d.aam", "test.xml", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sentences"] == len(Xt) and report["end_to_end_micro_f1"] > 0.9
    (tmp_path / "s.txt").write_text("the pasta was great but the waiter was rude.\n")
    assert main(["predict", "d.aam", "s.txt"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "text,food,service",
        "the pasta was great but the waiter was rude.,positive,negative",
    ]
    assert main(["explain", "d.aam", "test.xml"]) == 2
    assert "category detector" in capsys.readouterr().err


def test_web_app_analyzes_with_a_detector(fitted, tmp_path):
    pytest.importorskip("flask")
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "web_app", Path(__file__).resolve().parents[1] / "examples" / "web_app.py"
    )
    web_app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(web_app)
    fitted.save(tmp_path / "d.aam")
    client = web_app.create_app(str(tmp_path / "d.aam")).test_client()
    assert client.get("/health").get_json()["kind"] == "detector"
    text = "the pasta was great but the waiter was rude."
    answer = client.post("/analyze", json={"texts": [text]}).get_json()
    found = [(f["aspect"], f["label"]) for f in answer["results"][0]]
    assert found == [("food", "positive"), ("service", "negative")]
    response = client.post("/predict", json={"pairs": [[text, "food"]]})
    assert response.status_code == 400 and "/analyze" in response.get_json()["error"]
    assert client.post("/analyze", json={"texts": 5}).status_code == 400


def test_score_matches_y_columns_by_name(detector):
    texts, Y = make_table(60, 1)
    right = detector.score(texts, Y)
    assert detector.score(texts, Y[Y.columns[::-1]]) == right  # any column order
    assert detector.score(texts, Y.to_numpy()) == right  # an array: fitted order
    with pytest.raises(InputError, match=r"unknown: \['x'\]; missing: \['food'\]"):
        detector.score(texts, Y.rename(columns={"food": "x"}))
    with pytest.raises(InputError, match=r"unknown: \['extra'\]"):
        detector.score(texts, Y.assign(extra="none"))
    with pytest.raises(InputError, match="Y has 3 columns"):
        detector.score(texts, Y.assign(extra="none").to_numpy())
