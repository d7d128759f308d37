"""The joint model taught by a stronger one, as a meta-estimator: the sibling of
:class:`~aspectattn.DistilledClassifier` for
:class:`~aspectattn.AspectSentimentExtractor` students."""

from __future__ import annotations

from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..estimators.distilled import Distilled, _student_has
from .joint import AspectSentimentExtractor

__all__ = ["DistilledExtractor"]


class DistilledExtractor(Distilled):
    """A joint model trained on a teacher's answers as well as on the labels.

    The student, fast (the LSTM joint model), learns from the teacher, strong
    and slow (a joint model on a fine-tuned pretrained encoder): on each
    sentence nobody labelled (``y`` = ``None`` or ``-1``) the teacher's terms
    are its terms; each token's tag learns from the teacher's tag probabilities,
    and each training term's polarity from the teacher's polarity probabilities,
    softened at ``T = temperature``, beside the labels, with the share
    ``weight`` (what :class:`~aspectattn.Teaching` gives the student's
    ``fit``). Validation scores the labels alone.

    Where :class:`~aspectattn.DistilledClassifier` is a classifier (its ``y``
    is a label per sample, split stratified by ``GridSearchCV``), this
    meta-estimator's ``y`` is each sentence's terms, as the joint model's: a
    grid search splits it as it splits any target.

    The fitted student (``student_``) is the same network as one trained
    without a teacher: the same speed, the same model files.
    :func:`aspectattn.persistence.save` of the fitted ``DistilledExtractor``
    writes its student; the teacher is never part of its state.

    Parameters
    ----------
    student : AspectSentimentExtractor, default=None
        The joint model to train (cloned). ``None``: an
        ``AspectSentimentExtractor()`` with its defaults.
    teacher : AspectSentimentExtractor or OnnxAspectSentiment
        A joint model of the same polarities (or its ONNX export). A fitted
        teacher is used as it is (``sklearn.frozen.FrozenEstimator`` keeps it
        fitted through ``clone`` and grid searches); an unfitted one is cloned
        and fitted on the labelled training side of the student's validation
        split.
    weight : float, default=0.5
        The share of the teacher's term in a labelled sentence's loss.
    temperature : float, default=2.0
        The temperature ``T`` that softens both models' probabilities.

    Attributes
    ----------
    student_ : AspectSentimentExtractor
        The fitted student.
    classes_ : ndarray
        The student's polarities.

    See Also
    --------
    aspectattn.DistilledClassifier : The same for the classifiers.

    Examples
    --------
    >>> from aspectattn import AspectSentimentExtractor, DistilledExtractor
    >>> from aspectattn.encoders import LSTMEncoder
    >>> X = ["The pasta was great.", "The waiter was rude."] * 5
    >>> y = [[(4, 9, "positive")], [(4, 10, "negative")]] * 5
    >>> small = AspectSentimentExtractor(
    ...     encoder=LSTMEncoder(embeddings=None), max_epochs=1, random_state=0)
    >>> model = DistilledExtractor(small, teacher=small).fit(
    ...     X + ["The soup was bland."], y + [None])
    >>> len(model.predict(X[:2]))
    2
    """

    _parameter_constraints = {
        **Distilled._teaching_constraints,
        "student": [None, AspectSentimentExtractor],
        # (a fitted joint model, or its ONNX export, need not fit)
        "teacher": [HasMethods(["predict", "given_terms"])],
    }

    def _default_student(self):
        return AspectSentimentExtractor()

    @available_if(_student_has("predict_spans"))
    def predict_spans(self, X):
        """The student's terms of ``X`` with their span scores."""
        check_is_fitted(self)
        return self.student_.predict_spans(X)

    @available_if(_student_has("predict_polarity_proba"))
    def predict_polarity_proba(self, X):
        """The student's polarity probabilities of given terms."""
        check_is_fitted(self)
        return self.student_.predict_polarity_proba(X)

    @available_if(_student_has("predict_polarity"))
    def predict_polarity(self, X):
        """The student's polarities of given terms."""
        check_is_fitted(self)
        return self.student_.predict_polarity(X)

    @available_if(_student_has("analyze"))
    def analyze(self, X, min_probability: float = 0.5):
        """The student's :meth:`~aspectattn.AspectSentimentExtractor.analyze`."""
        check_is_fitted(self)
        return self.student_.analyze(X, min_probability)
