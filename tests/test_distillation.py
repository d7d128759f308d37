"""Distillation (``DistilledClassifier``): the loss, the teacher's probabilities,
and the meta-estimator's contract -- an unfitted teacher cloned and fitted on the
training side, a fitted one used as it is, never saved with the student,
unlabelled pairs (``-1``) learned from the teacher alone (without one, ``-1`` is a
class like any other);
and the ``teacher=`` of earlier releases."""

from __future__ import annotations

import pickle

import conftest
import joblib
import numpy as np
import pytest
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import GridSearchCV

from aspectattn import AspectAttentionClassifier, DistilledClassifier
from aspectattn.engine import training
from aspectattn.engine.distillation import soften, teacher_targets
from aspectattn.engine.training import PairLoss
from aspectattn.exceptions import InputError

# the suite's fast settings, two epochs (the plumbing; learning tests say more)
FAST = {**conftest.FAST, "max_epochs": 2}


def taught(teacher, student=None, **settings):
    """``student`` (default: the pair classifier with FAST) taught by ``teacher``."""
    student = AspectAttentionClassifier(**FAST) if student is None else student
    return DistilledClassifier(student, teacher, **settings)


class LexiconTeacher(ClassifierMixin, BaseEstimator):
    """Knows which words are positive or negative, whatever the labels teach:
    a sentence with a word of ``positive`` is positive, of ``negative`` negative.
    Records what it was fitted on."""

    def __init__(self, positive=("great", "zesty"), negative=("awful", "soggy")):
        self.positive = positive
        self.negative = negative

    def fit(self, X, y):
        self.classes_ = np.array(["negative", "positive"], dtype=object)
        self.fitted_on_ = [x[0] for x in X]
        return self

    def predict_proba(self, X):
        proba = []
        for text, *_ in X:
            words = set(text.lower().split())
            p = 0.5 + 0.45 * (
                bool(words & set(self.positive)) - bool(words & set(self.negative))
            )
            proba.append([1 - p, p])
        return np.array(proba)


def _data(n=40):
    """Labelled pairs that use 'great'/'awful' only."""
    rng = np.random.default_rng(0)
    nouns = ["pasta", "soup", "pizza", "salad", "bread", "cake", "fish", "rice"]
    X, y = [], []
    for i in range(n):
        noun = nouns[i % len(nouns)]
        label = "positive" if rng.random() < 0.5 else "negative"
        word = "great" if label == "positive" else "awful"
        X.append((f"the {noun} number {i} was {word}", "food"))
        y.append(label)
    return X, y


def _unlabelled(words, n=40, start=1000):
    nouns = ["pasta", "soup", "pizza", "salad", "bread", "cake", "fish", "rice"]
    return [
        (f"the {nouns[i % len(nouns)]} number {start + i} was {words[i % 2]}", "food")
        for i in range(n)
    ]


# --------------------------------------------------------------------- the loss
def test_loss_without_distillation_weight_is_the_cross_entropy():
    logits = torch.randn(6, 3)
    label = torch.tensor([0, 1, 2, 0, 1, 2])
    soft = torch.softmax(torch.randn(6, 3), -1)
    loss = PairLoss(distill_weight=0.0)(logits, {"label": label, "teacher": soft})
    torch.testing.assert_close(loss, torch.nn.functional.cross_entropy(logits, label))
    # a plain tensor (the validation set's labels) is the cross-entropy too
    torch.testing.assert_close(
        PairLoss(distill_weight=0.7)(logits, label),
        torch.nn.functional.cross_entropy(logits, label),
    )


def test_loss_of_class_weights_matches_the_weighted_cross_entropy():
    logits, label = torch.randn(8, 3), torch.tensor([0, 1, 2, 2, 2, 1, 0, 2])
    weight = torch.tensor([2.0, 1.0, 0.5])
    loss = PairLoss(weight=weight, distill_weight=0.0)(
        logits, {"label": label, "teacher": torch.full((8, 3), 1 / 3)}
    )
    expected = torch.nn.functional.cross_entropy(logits, label, weight=weight)
    torch.testing.assert_close(loss, expected)


def test_unlabelled_pairs_learn_the_teachers_distribution_alone():
    T = 2.0
    soft = torch.tensor([[0.7, 0.2, 0.1]])
    unlabelled = {"label": torch.tensor([-1]), "teacher": soft}
    criterion = PairLoss(distill_weight=0.3, temperature=T)
    # the student that matches the teacher at temperature T has no loss
    matching = torch.log(soft) * T
    assert criterion(matching, unlabelled).item() == pytest.approx(0.0, abs=1e-6)
    # else T^2 KL(teacher || student), whatever distill_weight says
    logits = torch.tensor([[0.0, 1.0, 2.0]])
    student = torch.log_softmax(logits / T, -1)
    kl = (soft * (soft.log() - student)).sum()
    assert criterion(logits, unlabelled).item() == pytest.approx(T * T * kl.item())


def test_soften_is_the_temperature_of_the_logits_behind_probabilities():
    logits = np.array([[1.0, 2.0, -1.0], [0.0, 0.0, 3.0]])
    proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    for T in (1.0, 2.0, 5.0):
        expected = np.exp(logits / T) / np.exp(logits / T).sum(1, keepdims=True)
        np.testing.assert_allclose(soften(proba, T), expected, rtol=1e-6)


def test_teacher_probabilities_follow_the_students_classes():
    teacher = LexiconTeacher().fit([("a", "b")], ["negative"])
    X = [("great food", "food"), ("awful food", "food")]
    got = teacher_targets(teacher, X, np.array(["positive", "negative"]), 1.0, "S")
    np.testing.assert_allclose(got, [[0.95, 0.05], [0.05, 0.95]], rtol=1e-5)
    with pytest.raises(InputError, match="predicts the classes"):
        teacher_targets(teacher, X, np.array(["neutral", "positive"]), 1.0, "S")


@pytest.mark.parametrize(
    "proba, message",
    [
        (np.array([[0.5, 0.5]]), "shape"),  # one row for two pairs
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), "not finite"),
        (np.array([[0.9, 0.9], [0.5, 0.5]]), "sum to 1"),
        (np.array([[-0.5, 1.5], [0.5, 0.5]]), "negative"),
    ],
)
def test_a_teachers_bad_probabilities_are_a_clear_error(proba, message):
    class Broken(LexiconTeacher):
        def predict_proba(self, X):
            return proba

    teacher = Broken().fit([("a", "b")], ["negative"])
    with pytest.raises(InputError, match=message):
        teacher_targets(
            teacher,
            [("a", "b"), ("c", "d")],
            np.array(["negative", "positive"]),
            2.0,
            "S",
        )


# --------------------------------------------------------------- the estimator
def test_minus_one_is_a_class_without_a_teacher_and_none_is_missing():
    """-1 marks a pair unlabelled only for a teacher to label (DistilledClassifier,
    as SelfTrainingClassifier): a plain classifier takes it as any label, as
    scikit-learn's classifiers do; None stays a missing label."""
    X, y = _data()
    y_int = np.array([{"positive": 1, "negative": -1}[v] for v in y])
    clf = AspectAttentionClassifier(**FAST).fit(X, y_int)
    assert clf.classes_.tolist() == [-1, 1]
    assert set(clf.predict(X).tolist()) <= {-1, 1}
    y = list(y)
    y[3] = None
    with pytest.raises(InputError, match=r"Label 3 is missing"):
        AspectAttentionClassifier(**FAST).fit(X, y)


class IntegerTeacher(LexiconTeacher):
    """The lexicon teacher with labels 0 (negative) and 1 (positive); fitted or
    not as the test needs."""

    def fit(self, X, y):
        super().fit(X, y)
        self.classes_ = np.unique([v for v in y if v is not None and v != -1])
        return self


def _integer_labels(y, unlabelled=(3, 7)):
    out = np.array([int(label == "positive") for label in y])
    out[list(unlabelled)] = -1
    return out


def test_a_minus_one_that_may_be_a_class_is_an_error_not_a_mark():
    """-1 beside labels 0 and 1 may be the negative of a -1/0/1 scale: with a
    teacher to fit it is an error, never a class dropped in silence; None
    marks, or a fitted teacher that does not predict -1, settle it."""
    from sklearn.frozen import FrozenEstimator

    X, y = _data()
    y_int = _integer_labels(y)
    with pytest.raises(InputError, match="-1 may be a label of a -1/0/1 scale"):
        taught(IntegerTeacher()).fit(X, y_int)
    fitted = IntegerTeacher().fit(X, y_int)
    student = taught(fitted).fit(X, y_int)
    assert student.classes_.tolist() == [0, 1]
    marked = np.array(y_int, dtype=object)
    marked[[3, 7]] = None
    student = taught(IntegerTeacher()).fit(X, marked)
    assert student.classes_.tolist() == [0, 1]
    # a teacher that predicts -1 says it is a class
    three = IntegerTeacher().fit(X, y_int)
    three.classes_ = np.array([-1, 0, 1])
    with pytest.raises(InputError, match="the teacher predicts -1 as a label"):
        taught(FrozenEstimator(three)).fit(X, y_int)
    # labels that are no -1/0/1 scale: -1 is scikit-learn's mark
    y_three = np.where(y_int == -1, -1, y_int + 1)  # 1, 2 and the marks
    student = taught(IntegerTeacher()).fit(X, y_three)
    assert student.classes_.tolist() == [1, 2]


def test_no_labelled_pair_with_a_teacher_is_a_clear_error():
    X, _ = _data()
    with pytest.raises(InputError, match="labels none of the 40 pairs"):
        taught(LexiconTeacher()).fit(X, [-1] * 40)


def test_an_unfitted_teacher_behind_a_wrapper_is_named():
    from sklearn.frozen import FrozenEstimator

    X, y = _data()
    with pytest.raises(InputError, match="FrozenEstimator around an unfitted"):
        taught(FrozenEstimator(AspectAttentionClassifier(**FAST))).fit(X, y)

    class Pretender(LexiconTeacher):  # says it is fitted, and is not
        classes_ = np.array(["negative", "positive"], dtype=object)

        def __sklearn_is_fitted__(self):
            return True

        def predict_proba(self, X):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("not fitted yet")

    with pytest.raises(InputError, match="teacher of AspectAttentionClassifier is not"):
        taught(Pretender()).fit(X, y)


@pytest.mark.parametrize("temperature", [1e-300, 0.05, 101.0, 1e200])
def test_a_temperature_out_of_its_range_is_refused(temperature):
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _data()
    with pytest.raises(InvalidParameterError, match="'temperature' parameter of Dis"):
        taught(LexiconTeacher(), temperature=temperature).fit(X, y)


def test_teacher_passes_what_the_labels_cannot_teach_through_unlabelled_pairs():
    """The labelled pairs say 'great'/'awful' only; the teacher also knows
    'zesty'/'soggy', and the unlabelled pairs carry them to the student."""
    X, y = _data()
    X_u = _unlabelled(["zesty", "soggy"])
    X_new = _unlabelled(["zesty", "soggy"], start=5000)
    y_new = ["positive", "negative"] * (len(X_new) // 2)
    params = {**FAST, "max_epochs": 15, "lr": 1e-2}
    student = taught(LexiconTeacher(), AspectAttentionClassifier(**params))
    student.fit(X + X_u, y + [-1] * len(X_u))
    assert (student.predict(X_new) == np.array(y_new)).mean() >= 0.95
    # the same student without the unlabelled pairs cannot know the new words
    alone = taught(LexiconTeacher(), AspectAttentionClassifier(**params)).fit(X, y)
    assert (alone.predict(X_new) == np.array(y_new)).mean() <= 0.75
    # the unlabelled texts make the vocabulary (and trained word vectors) too
    assert "zesty" in student.student_.vocabulary_.index_
    assert "zesty" not in alone.student_.vocabulary_.index_
    # None marks unlabelled pairs too (object labels)
    student_none = taught(LexiconTeacher(), AspectAttentionClassifier(**params))
    student_none.fit(X + X_u, y + [None] * len(X_u))
    np.testing.assert_array_equal(student_none.predict(X_new), student.predict(X_new))


def test_an_unfitted_teacher_is_cloned_and_fitted_on_the_training_side(monkeypatch):
    splits = []
    split = training.split_sentences

    def recording(dataset, groups, fraction, rng, synthetic=None, held_out=None):
        train, valid = split(dataset, groups, fraction, rng, synthetic, held_out)
        splits.append((train, valid))
        return train, valid

    monkeypatch.setattr(training, "split_sentences", recording)
    X, y = _data()
    X_u = _unlabelled(["zesty", "soggy"], n=10) + [X[k] for k in range(10)]
    teacher = LexiconTeacher()
    # (no copies, as FAST: the pairs counted below are the given ones)
    student = taught(
        teacher,
        AspectAttentionClassifier(**FAST, validation_fraction=0.25),
    ).fit(X + X_u, y + [-1] * len(X_u))
    assert not hasattr(teacher, "fitted_on_")  # the parameter is left unfitted
    assert student.teacher is teacher
    ((train, valid),) = splits
    # the validation pairs carry labels only, none of them unlabelled
    assert valid.teacher is None and (valid.targets >= 0).all()
    n_valid_sentences = int(round(0.25 * len({x[0] for x in X})))
    assert len(valid) == n_valid_sentences  # one pair per sentence here
    # every labelled pair trains or validates; unlabelled pairs train, except
    # those of a validation sentence
    assert len(train) + len(valid) == len(X) + 10 + (
        10 - sum(1 for k in range(10) if _validated(student, X[k][0], splits))
    )


def _validated(student, text, splits):
    """Whether ``text`` is a validation sentence of the recorded split."""
    ((_, valid),) = splits
    tokens = student.student_.text_pipeline_.encode([text])
    rows = valid.sentences.pad(np.unique(valid.sentence))[0]
    row = tokens.pad(np.arange(1))[0][0]
    return any(
        np.array_equal(r[: len(row)], row) and (r[len(row) :] == 0).all() for r in rows
    )


def test_the_teacher_is_fitted_on_training_sentences_only(monkeypatch):
    fitted_on = []

    class Recording(LexiconTeacher):
        def fit(self, X, y):
            fitted_on.extend(x[0] for x in X)
            return super().fit(X, y)

    X, y = _data()
    taught(
        Recording(), AspectAttentionClassifier(**FAST, validation_fraction=0.25)
    ).fit(X, y)
    sentences = {x[0] for x in X}
    n_valid = int(round(0.25 * len(sentences)))
    assert len(set(fitted_on)) == len(sentences) - n_valid
    # the student without a teacher holds out the same sentences: its split and
    # batches are those of the seed, teacher or not
    plain = AspectAttentionClassifier(**FAST, validation_fraction=0.25).fit(X, y)
    held = sentences - set(fitted_on)
    assert plain.predict([x for x in X if x[0] in held]).shape == (n_valid,)


def test_a_fitted_teacher_is_used_as_it_is():
    X, y = _data()
    teacher = LexiconTeacher().fit([("x", "y")], ["positive"])
    taught(teacher).fit(X, y)
    assert teacher.fitted_on_ == ["x"]  # not refitted


def test_the_teacher_is_never_saved_with_the_student(tmp_path):
    X, y = _data()
    teacher = AspectAttentionClassifier(**FAST)
    model = taught(teacher).fit(X, y)
    student = model.student_
    expected = model.predict_proba(X)
    blob = pickle.dumps(student)
    assert len(blob) < 1.5 * len(
        pickle.dumps(AspectAttentionClassifier(**FAST).fit(X, y))
    )
    for loaded in (
        pickle.loads(blob),
        _joblib_round_trip(student, tmp_path),
        _file_round_trip(student, tmp_path),
        _file_round_trip(model, tmp_path),  # the meta-estimator saves its student
    ):
        assert "teacher" not in loaded.get_params()
        np.testing.assert_allclose(loaded.predict_proba(X), expected, rtol=1e-6)
    assert model.teacher is teacher  # the meta-estimator keeps its parameter
    assert not hasattr(teacher, "classes_")  # a clone was fitted


def _joblib_round_trip(model, tmp_path):
    joblib.dump(model, tmp_path / "m.joblib")
    return joblib.load(tmp_path / "m.joblib")


def _file_round_trip(model, tmp_path):
    from aspectattn.persistence import load, save

    save(model, tmp_path / "m.aam")
    loaded = load(tmp_path / "m.aam")
    assert type(loaded) is AspectAttentionClassifier
    return loaded


def test_teacher_parameters_are_reachable_in_grid_search():
    X, y = _data()
    student = taught(AspectAttentionClassifier(**FAST))
    assert student.get_params()["teacher__max_epochs"] == 2
    assert student.get_params()["student__encoder__hidden_size"] == 24
    search = GridSearchCV(
        student,
        {"teacher__max_epochs": [1, 2], "weight": [0.5], "student__lr": [0.01]},
        cv=2,
    ).fit(X, y)
    assert search.best_params_["teacher__max_epochs"] in (1, 2)
    assert search.best_estimator_.teacher is not student.teacher  # cloned


def test_a_meta_estimator_needs_its_teacher_and_an_attention_student():
    X, y = _data()
    with pytest.raises(ValueError, match="'teacher' parameter of DistilledClassifier"):
        DistilledClassifier(AspectAttentionClassifier(**FAST)).fit(X, y)
    with pytest.raises(ValueError, match="'student' parameter of DistilledClassifier"):
        DistilledClassifier(LexiconTeacher(), LexiconTeacher()).fit(X, y)
    # None: the pair classifier's defaults (clone-safe: the parameter stays None)
    model = DistilledClassifier(teacher=LexiconTeacher())
    assert model.student is None and clone(model).student is None


def test_a_teacher_of_other_classes_is_a_clear_error():
    X, y = _data()
    teacher = LexiconTeacher().fit([("x", "y")], ["positive"])
    teacher.classes_ = np.array(["bad", "good"], dtype=object)
    with pytest.raises(InputError, match="predicts the classes"):
        taught(teacher).fit(X, y)


# ------------------------------------------------------------------ the detector
class TableTeacher(ClassifierMixin, BaseEstimator):
    """A detector teacher: 'food' positive when a text says 'zesty', 'service'
    negative when it says 'slow'; outputs in the order (service, food)."""

    def fit(self, X, Y):
        self.categories_ = np.array(["service", "food"], dtype=object)
        self.classes_ = [np.array(["none", "negative", "positive"], dtype=object)] * 2
        return self

    def predict_proba(self, X):
        service = [[0.1, 0.8, 0.1] if "slow" in t else [0.8, 0.1, 0.1] for t in X]
        food = [[0.1, 0.1, 0.8] if "zesty" in t else [0.8, 0.1, 0.1] for t in X]
        return [np.array(service), np.array(food)]


def _table():
    pd = pytest.importorskip("pandas")
    texts = [f"the soup number {i} was great" for i in range(20)]
    texts += [f"the waiter number {i} was rude" for i in range(20)]
    Y = pd.DataFrame(
        {
            "food": ["positive"] * 20 + ["none"] * 20,
            "service": ["none"] * 20 + ["negative"] * 20,
        }
    )
    return texts, Y


def test_detector_teacher_probabilities_follow_the_students_categories():
    from aspectattn.engine.distillation import table_teacher_targets

    teacher = TableTeacher().fit(None, None)
    got = table_teacher_targets(
        teacher, ["zesty and slow"], ["food", "service"],
        ["negative", "none", "positive"], 1.0, "S",
    )  # fmt: skip
    np.testing.assert_allclose(got[0], [[0.1, 0.1, 0.8], [0.8, 0.1, 0.1]], rtol=1e-5)
    with pytest.raises(InputError, match="predicts the categories"):
        table_teacher_targets(teacher, ["x"], ["food", "price"], ["none"], 1.0, "S")


def test_detector_minus_one_rows_beside_a_0_1_table_are_an_error():
    from aspectattn import AspectCategoryClassifier

    texts, _ = _table()
    Y = np.array([[1], [0]] * 20, dtype=object)
    Y[::5] = -1  # unlabelled texts, or the negatives of a -1/0/1 table?
    with pytest.raises(InputError, match="-1 may be a label"):
        DistilledClassifier(
            AspectCategoryClassifier(**FAST), AspectCategoryClassifier(**FAST)
        ).fit(texts, Y)
    # without a teacher -1 is a label like 0 and 1
    detector = AspectCategoryClassifier(**FAST).fit(texts, Y)
    assert "-1" in detector.classes_[0].tolist()  # (the table's cells as text)


def test_detector_cells_nobody_labelled_learn_from_the_teacher():
    """A table joined from two sources: a teacher fitted on it reads the -1
    cells as nobody's (no label "-1"), and the student learns them from it."""
    from aspectattn import AspectCategoryClassifier

    texts, Y = _table()
    Y = Y.astype(object)
    Y.loc[:19, "service"] = -1  # the food source labelled no service
    Y.loc[20:, "food"] = -1
    seen = []

    class Teacher(AspectCategoryClassifier):  # records the table it fits on
        def fit(self, X, Y, sample_weight=None, teaching=None):
            seen.append(np.asarray(Y, dtype=object))
            return super().fit(X, Y, sample_weight, teaching)

    model = DistilledClassifier(AspectCategoryClassifier(**FAST), Teacher(**FAST)).fit(
        texts, Y
    )
    (table,) = seen
    assert (table == -1).sum() == 40  # the same cells, as Y marks them
    assert model.student_.labels_.tolist() == ["negative", "none", "positive"]


def test_detector_learns_unlabelled_texts_from_its_teacher():
    from aspectattn import AspectCategoryClassifier

    pd = pytest.importorskip("pandas")
    texts, Y = _table()
    new = [f"the pasta number {i} was zesty" for i in range(10)]
    new += [f"the bartender number {i} was slow" for i in range(10)]
    Y_all = pd.concat([Y, pd.DataFrame(-1, index=range(20), columns=Y.columns)])
    params = {**FAST, "max_epochs": 15, "lr": 1e-2}
    with pytest.raises(InputError, match=r"unlabelled \(first: row 40;"):
        AspectCategoryClassifier(**params).fit(texts + new, Y_all)
    detector = DistilledClassifier(AspectCategoryClassifier(**params), TableTeacher())
    detector.fit(texts + new, Y_all.reset_index(drop=True))
    probe = ["the pizza number 99 was zesty", "the host number 99 was slow"]
    predicted = detector.predict(probe)
    food, service = (
        list(detector.student_.categories_).index("food"),
        1 - list(detector.student_.categories_).index("food"),
    )
    assert predicted[0, food] == "positive" and predicted[1, service] == "negative"
    # the labelled texts alone never say 'zesty' or 'slow'
    alone = DistilledClassifier(AspectCategoryClassifier(**params), TableTeacher())
    assert (alone.fit(texts, Y).predict(probe) == "none").all()
    assert "teacher" not in pickle.loads(pickle.dumps(detector.student_)).get_params()
    # -1 also used as a label elsewhere (integer polarities): the all -1 rows
    # are ambiguous (beside string labels a -1 cell is one nobody labelled)
    coded = Y.replace({"negative": -1, "positive": 1}).astype(object)
    coded = pd.concat([coded, pd.DataFrame(-1, index=[0], columns=Y.columns)])
    with pytest.raises(InputError, match="also uses -1 as a label"):
        DistilledClassifier(AspectCategoryClassifier(**params), TableTeacher()).fit(
            texts + ["x y"], coded.reset_index(drop=True)
        )


# ------------------------------------------------------- counterfactual copies
def test_negated_copies_put_a_negation_before_the_opinion_word():
    from aspectattn.augment import flip_pairs

    text = "Great pasta but the waiter was awful."
    X, y, target, source = flip_pairs(
        [text, text], ["pasta", "waiter"], None, ["positive", "negative"],
        "positive", "negative", negate=True,
    )  # fmt: skip
    # the negations in turn, over the copies
    assert [x[0] for x in X] == [
        "Not great pasta but the waiter was awful.",
        "Not great pasta but the waiter was awful.",
        "Great pasta but the waiter was never awful.",
        "Great pasta but the waiter was never awful.",
    ]
    assert y == ["negative", "negative", "positive", "positive"]
    assert target.tolist() == [True, False, False, True]
    for (text_, term, span), _ in zip(X, y, strict=True):
        assert text_[span[0] : span[1]] == term  # spans follow the insertion


@pytest.mark.parametrize(
    "text",
    ["The pasta wasn't great.", "The pasta was not great.",
     "The pasta was never so great.", "No great pasta."],
)  # fmt: skip
def test_an_opinion_already_negated_is_not_negated_again(text):
    from aspectattn.augment import flip_pairs

    X, y, _, _ = flip_pairs(
        [text], ["pasta"], None, ["negative"], "positive", "negative", negate=True
    )
    assert X == [] and y == []


def test_negated_copies_train_with_the_annotators_labels(monkeypatch):
    seen = conftest.spy_on_training_data(monkeypatch, AspectAttentionClassifier)
    X = [("the pasta was great", "pasta"), ("the soup was awful", "soup")] * 10
    X = [(f"{t} number {k}", a) for k, (t, a) in enumerate(X)]
    y = ["positive", "negative"] * 10
    params = {**FAST, "aspect_type": "term", "augment": "negate"}
    AspectAttentionClassifier(**params).fit(X, y)
    (data,) = seen
    copies = slice(data.n_given, None)
    made = dict(
        zip(data.texts[copies], data.classes[data.targets[copies]], strict=True)
    )
    assert len(made) == 20 and made["the pasta was not great number 0"] == "negative"
    assert made["the soup was never awful number 1"] == "positive"
    assert made["the pasta was far from great number 2"] == "negative"


def test_a_taught_model_works_in_a_pipeline_and_pickles():
    from sklearn.pipeline import Pipeline

    X, y = _data()
    # (a student of its own: set_params changes its encoder in place)
    student = AspectAttentionClassifier(**{**FAST, "encoder": conftest.lstm()})
    pipe = Pipeline([("model", taught(LexiconTeacher(), student))])
    pipe.set_params(model__student__encoder__hidden_size=8, model__weight=0.3)
    assert conftest.FAST["encoder"].hidden_size == 24
    assert pipe.named_steps["model"].student.encoder.hidden_size == 8
    pipe.fit(X, y)
    again = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(again.predict_proba(X), pipe.predict_proba(X))
    assert pipe.score(X, y) == pipe.named_steps["model"].student_.score(X, y)


def test_the_students_fit_takes_a_teaching_as_the_meta_estimator_gives_it():
    """DistilledClassifier calls nothing private: the student's public fit with
    teaching= gives the same student, and anything but a Teaching is refused."""
    from aspectattn import Teaching

    X, y = _data(40)
    y = list(y[:30]) + [-1] * 10
    student = AspectAttentionClassifier(**FAST)
    teacher = LexiconTeacher()
    meta = DistilledClassifier(student, teacher, weight=0.3).fit(X, y)
    direct = clone(student).fit(X, y, teaching=Teaching(teacher, 0.3, 2.0))
    assert np.array_equal(direct.predict_proba(X), meta.predict_proba(X))
    with pytest.raises(TypeError, match="teaching must be None or an aspectattn"):
        clone(student).fit(X, y, teaching=teacher)


def test_the_meta_estimator_hands_the_sample_weights_to_its_student():
    from aspectattn import Teaching

    X, y = _data(40)
    y = list(y[:30]) + [-1] * 10
    weights = np.r_[np.full(20, 3.0), np.ones(20)]
    student, teacher = AspectAttentionClassifier(**FAST), LexiconTeacher()
    meta = DistilledClassifier(student, teacher, weight=0.3)
    meta.fit(X, y, sample_weight=weights)
    direct = clone(student).fit(
        X, y, sample_weight=weights, teaching=Teaching(teacher, 0.3, 2.0)
    )
    assert np.array_equal(direct.predict_proba(X), meta.predict_proba(X))
    unweighted = clone(student).fit(X, y, teaching=Teaching(teacher, 0.3, 2.0))
    assert not np.array_equal(unweighted.predict_proba(X), meta.predict_proba(X))
