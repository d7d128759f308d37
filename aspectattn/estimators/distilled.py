"""Learning from a stronger model, as a meta-estimator: a student attention
estimator trained on a teacher's softened probabilities as well as on the labels,
and on samples nobody labelled (``-1``, as scikit-learn's semi-supervised
estimators take them), which the teacher labels alone.

The student of :class:`DistilledClassifier` is an
:class:`~aspectattn.AspectAttentionClassifier` or an
:class:`~aspectattn.AspectCategoryClassifier`; that of its sibling
:class:`~aspectattn.DistilledExtractor` the joint model. :class:`Distilled` is what
both share: the student's public ``fit(X, y, teaching=...)`` does the work. What
the teacher does for it (fitted on the training side of the student's validation
split, its probabilities read, checked and softened, the loss that mixes them with
the labels) is :mod:`aspectattn.engine.distillation`'s.
"""

from __future__ import annotations

from numbers import Real

from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..engine.distillation import Teaching
from ..params._constraints import Interval, validate_params
from ._base import AspectAttentionBase

__all__ = ["Distilled", "DistilledClassifier"]


def _student_has(name: str):
    """Whether the student (fitted, else as given) has the method ``name``."""

    def check(self) -> bool:
        student = getattr(self, "student_", None) or self._student()
        return hasattr(student, name)

    return check


class Distilled(MetaEstimatorMixin, BaseEstimator):
    """What the distilled meta-estimators share (not an estimator itself): the
    student, the teacher, the teacher's weight and temperature; ``fit`` clones
    the student and fits it with a :class:`~aspectattn.Teaching` of them; the
    fitted student (``student_``) answers, and is what a model file holds.

    A subclass sets ``_parameter_constraints`` (the ``student`` it takes),
    ``_default_student()`` (its ``student=None``) and the methods it passes on.
    """

    #: The teacher, its weight and its temperature (the command line's
    #: --distill-weight and --distill-temperature are checked by them).
    _teaching_constraints = {
        "teacher": [HasMethods(["fit", "predict_proba"])],
        "weight": [Interval(Real, 0, 1, closed="both")],
        # (below 0.1 the softened teacher is one-hot and the loss's T**-1 logits
        # overflow; above 100 its T**2 factor does)
        "temperature": [Interval(Real, 0.1, 100, closed="both")],
    }

    def __init__(self, student=None, teacher=None, *, weight=0.5, temperature=2.0):
        self.student = student
        self.teacher = teacher
        self.weight = weight
        self.temperature = temperature

    def _default_student(self):
        raise NotImplementedError

    def _student(self):
        """The student as given (``None``: the subclass's default)."""
        return self._default_student() if self.student is None else self.student

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        student = self._student().__sklearn_tags__()
        tags.input_tags = student.input_tags
        tags.target_tags = student.target_tags
        tags.non_deterministic = student.non_deterministic
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the student on ``X``, ``y`` with the teacher's answers.

        Parameters
        ----------
        X : what the student's ``fit`` takes
        y : what the student's ``fit`` takes, ``-1`` (or ``None``/NaN) marking the
            samples nobody labelled
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Each sample's weight in the student's loss, for a student whose
            ``fit`` takes them (the attention estimators).

        Returns
        -------
        self
        """
        validate_params(self, self._parameter_constraints)
        student = clone(self._student())
        teaching = Teaching(self.teacher, self.weight, self.temperature)
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.student_ = student.fit(X, y, teaching=teaching, **weighted)
        self.classes_ = self.student_.classes_
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.student_, name):
                setattr(self, name, getattr(self.student_, name))
        return self

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "student_")

    def _saved_estimator(self):
        """What :func:`aspectattn.persistence.save` writes: the fitted student
        (the teacher is never saved)."""
        check_is_fitted(self, "student_")
        return self.student_

    @available_if(_student_has("predict"))
    def predict(self, X):
        """The student's predictions of ``X``."""
        check_is_fitted(self)
        return self.student_.predict(X)

    @available_if(_student_has("score"))
    def score(self, X, y, sample_weight=None):
        """The student's score of ``X`` against ``y``."""
        check_is_fitted(self)
        if sample_weight is None:  # (the extractors' score takes none)
            return self.student_.score(X, y)
        return self.student_.score(X, y, sample_weight=sample_weight)


class DistilledClassifier(ClassifierMixin, Distilled):
    """A student trained on a teacher's probabilities as well as on the labels.

    Knowledge distillation (Hinton et al., 2015): the student, fast (the LSTM's
    ~14k pairs/s), learns from the teacher, strong and slow (a fine-tuned
    pretrained encoder): a labelled sample's loss is ``(1 - weight)`` times the
    cross-entropy with its label plus ``weight * T**2`` times the KL divergence
    from the teacher's probabilities softened at ``T = temperature`` to the
    student's; an unlabelled sample (``y`` = ``-1``, ``None`` or NaN; for the
    detector, a row of ``Y`` that is ``-1`` in every column) learns from the
    second term alone. The copies the student's ``augment`` makes are labelled by
    rule and by the teacher. Validation scores the labels alone.

    The fitted student (``student_``) is the same network as one trained without
    a teacher: the same speed, the same model files. Save and serve it
    (:func:`aspectattn.persistence.save` of the fitted ``DistilledClassifier``
    writes its student); the teacher is never part of its state.

    Parameters
    ----------
    student : AspectAttentionClassifier or AspectCategoryClassifier, default=None
        The estimator to train (cloned). ``None``: an
        ``AspectAttentionClassifier()`` with its defaults.
    teacher : estimator
        A classifier of the same input with ``predict_proba`` and the same
        classes (for the detector, a detector, its outputs matched to the
        student's by category name). A fitted teacher is used as it is
        (``sklearn.frozen.FrozenEstimator`` keeps it fitted through ``clone`` and
        grid searches); an unfitted one is cloned and fitted on the training side
        of the student's validation split, so that the validation scores stay
        those of sentences neither model trained on.
    weight : float, default=0.5
        The share of the teacher's term in a labelled sample's loss.
    temperature : float, default=2.0
        The temperature ``T`` that softens both models' probabilities.

    Attributes
    ----------
    student_ : AspectAttentionClassifier or AspectCategoryClassifier
        The fitted student.
    classes_ : ndarray or list of ndarray
        The student's ``classes_``.
    n_features_in_ : int
        The student's.

    See Also
    --------
    sklearn.semi_supervised.SelfTrainingClassifier : scikit-learn's meta-estimator
        for samples labelled ``-1``.

    References
    ----------
    Geoffrey Hinton, Oriol Vinyals and Jeff Dean. 2015. Distilling the Knowledge
    in a Neural Network. arXiv:1503.02531.

    Examples
    --------
    >>> from aspectattn import AspectAttentionClassifier, DistilledClassifier
    >>> from aspectattn.encoders import LSTMEncoder
    >>> X = [("great pasta", "food"), ("rude waiter", "service")] * 5
    >>> y = ["positive", "negative"] * 5
    >>> small = AspectAttentionClassifier(
    ...     encoder=LSTMEncoder(embeddings=None), max_epochs=1, random_state=0)
    >>> model = DistilledClassifier(small, teacher=small).fit(
    ...     X + [("bland soup", "food")], y + [-1])
    >>> model.predict(X[:2]).shape
    (2,)
    """

    _parameter_constraints = {
        "student": [None, AspectAttentionBase],
        **Distilled._teaching_constraints,
    }

    def _default_student(self):
        from .pairs import AspectAttentionClassifier

        return AspectAttentionClassifier()

    # the student's score, before ClassifierMixin's accuracy (a detector scores
    # its mentions)
    score = Distilled.__dict__["score"]

    @available_if(_student_has("predict_proba"))
    def predict_proba(self, X):
        """The student's probabilities of ``X`` (columns as ``classes_``)."""
        check_is_fitted(self)
        return self.student_.predict_proba(X)

    @available_if(_student_has("decision_function"))
    def decision_function(self, X):
        """The student's decision function of ``X``."""
        check_is_fitted(self)
        return self.student_.decision_function(X)

    @available_if(_student_has("explain"))
    def explain(self, X):
        """The student's attention weights of ``X``."""
        check_is_fitted(self)
        return self.student_.explain(X)

    @available_if(_student_has("predict_proba_aspects"))
    def predict_proba_aspects(self, texts, aspects=None):
        """The student's probabilities of every aspect of each text."""
        check_is_fitted(self)
        return self.student_.predict_proba_aspects(texts, aspects)
