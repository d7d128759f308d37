"""Sentences in, each aspect term with its polarity out: an extractor and a
classifier, end to end."""

from __future__ import annotations

from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted

from .. import persistence
from .._validation import check_texts, text_tags
from ..exceptions import InputError
from .aspects import AspectNames, check_aspect_names
from .extractor import AspectTermExtractor
from .metrics import check_spans
from .reading import TermsEndToEnd, classify_terms

__all__ = ["AspectSentimentPipeline"]


@persistence.register
class AspectSentimentPipeline(TermsEndToEnd, MetaEstimatorMixin, BaseEstimator):
    """Find the aspect terms of sentences and tell each one's polarity.

    The extractor finds each sentence's terms; the classifier then reads every
    (sentence, term, span) pair -- all the terms of a sentence from one encoder
    pass where the classifier allows (the attention LSTM's and the pretrained
    encoder's defaults do).

    Parameters
    ----------
    extractor : estimator or None, default=None
        An aspect term extractor (``fit(texts, spans)``, ``predict_spans``);
        None: :class:`AspectTermExtractor` with its defaults. Its parameters are
        set as ``extractor__<name>``.
    classifier : estimator or None, default=None
        A classifier of ``(text, term, (start, end))`` pairs; None:
        :class:`~aspectattn.AspectAttentionClassifier` with its defaults. Its
        parameters are set as ``classifier__<name>``.
    aspect_names : dict of str to str or None, default=None
        For :meth:`analyze` (the review report): a term's aspect where the
        grouping of :mod:`aspectattn.extraction.aspects` (case, spaces, the
        English plural) does not group it, e.g. ``{"battery": "battery
        life"}``.

    Parts trained on their own data are used as they are when wrapped in
    :class:`sklearn.frozen.FrozenEstimator` (``fit`` then leaves them alone).
    A fitted pipeline is one model file (:func:`aspectattn.persistence.save`):
    both parts, loaded as :meth:`from_fitted` makes them.

    Attributes
    ----------
    extractor_, classifier_ : estimator
        The fitted parts.
    classes_ : ndarray
        The classifier's polarities.

    Examples
    --------
    >>> from aspectattn import (
    ...     AspectAttentionClassifier, AspectSentimentPipeline, AspectTermExtractor)
    >>> texts = ["The pasta was great.", "Our waiter was rude.", "What a day!"] * 10
    >>> y = [[(4, 9, "positive")], [(4, 10, "negative")], []] * 10
    >>> pipeline = AspectSentimentPipeline(
    ...     AspectTermExtractor(lr=0.01, max_epochs=20, random_state=0),
    ...     AspectAttentionClassifier(max_epochs=20, random_state=0),
    ... ).fit(texts, y)
    >>> [found] = pipeline.predict(["The pasta was great."])
    >>> [(t["term"], t["polarity"]) for t in found]
    [('pasta', 'positive')]
    """

    _parameter_constraints: dict = {
        "extractor": [None, HasMethods(["fit", "predict_spans"])],
        "classifier": [None, HasMethods(["fit", "predict_proba"])],
        "aspect_names": [None, dict],
    }

    def __init__(self, extractor=None, classifier=None, aspect_names=None):
        self.extractor = extractor
        self.classifier = classifier
        self.aspect_names = aspect_names

    def __sklearn_tags__(self):
        tags = text_tags(super().__sklearn_tags__())
        tags.target_tags.required = True
        tags.non_deterministic = True
        return tags

    @classmethod
    def from_fitted(cls, extractor, classifier, aspect_names=None):
        """A fitted pipeline of two parts fitted on their own (for instance
        loaded from model files): each wrapped in
        :class:`~sklearn.frozen.FrozenEstimator`, so that ``fit`` keeps them."""
        from sklearn.frozen import FrozenEstimator

        check_is_fitted(extractor)
        check_is_fitted(classifier)
        check_aspect_names(aspect_names)
        pipeline = cls(
            FrozenEstimator(extractor), FrozenEstimator(classifier), aspect_names
        )
        pipeline.extractor_, pipeline.classifier_ = extractor, classifier
        pipeline.classes_ = classifier.classes_
        return pipeline

    def fit(self, X, y):
        """Fit the extractor on the terms' spans and the classifier on their
        polarities.

        Parameters
        ----------
        X : sequence of str
            Sentences.
        y : sequence of sequences of (start, end, polarity)
            Each sentence's terms (an empty list for none). Terms labelled
            ``"conflict"`` train the extractor only.

        Returns
        -------
        self
        """
        self._validate_params()
        check_aspect_names(self.aspect_names)
        texts = check_texts(X, "X")
        spans = check_spans(y, texts)
        if any(len(s) != 3 for terms in spans for s in terms):
            raise InputError(
                "y must give each term's polarity: (start, end, polarity) triples "
                "(fit the extractor alone on (start, end) spans)."
            )
        self.extractor_ = clone(
            AspectTermExtractor() if self.extractor is None else self.extractor
        ).fit(texts, spans)
        pairs, labels = [], []
        for text, terms in zip(texts, spans, strict=True):
            for start, end, polarity in terms:
                if polarity != "conflict":
                    pairs.append((text, text[start:end], (start, end)))
                    labels.append(polarity)
        if not pairs:
            raise InputError("y has no term with a polarity to train the classifier.")
        self.classifier_ = clone(self._classifier()).fit(pairs, labels)
        self.classes_ = self.classifier_.classes_
        return self

    def _classifier(self):
        if self.classifier is not None:
            return self.classifier
        from ..estimators.pairs import AspectAttentionClassifier

        return AspectAttentionClassifier()

    def predict(self, X) -> list[list[dict]]:
        """Each sentence's terms with their polarities.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        list of list of dict
            Per sentence, in text order: ``{"span": (start, end), "term": str,
            "polarity": str, "probability": float, "score": float}`` --
            ``probability`` the classifier's for the polarity, ``score`` the
            extractor's for the span.
        """
        check_is_fitted(self, "classifier_")
        texts = check_texts(X, "X")
        return classify_terms(
            texts, self.extractor_.predict_spans(texts), self.classifier_
        )

    def _aspect_names(self) -> AspectNames:
        check_aspect_names(self.aspect_names)
        check_is_fitted(self, "classifier_")
        return AspectNames(
            self.aspect_names, getattr(self.extractor_, "language_", None)
        )

    # -- the model file (aspectattn.persistence.save / load) ---------------------
    _PARTS = ("extractor", "classifier")

    def _parts(self) -> dict:
        from sklearn.frozen import FrozenEstimator

        check_is_fitted(self, "classifier_")
        parts = {"extractor": self.extractor_, "classifier": self.classifier_}
        for name, part in parts.items():
            if isinstance(part, FrozenEstimator):  # (a part fitted on its own)
                parts[name] = part = part.estimator
            if not hasattr(part, "_fitted_state"):
                raise TypeError(
                    f"the model file holds aspectattn's own estimators; this "
                    f"pipeline's {name} is a {type(part).__name__} (pickle it, or "
                    "save it with skops)"
                )
        return parts

    def _fitted_state(self) -> dict:
        """Each part's description (:func:`aspectattn.persistence.describe`)."""
        check_aspect_names(self.aspect_names)  # (a file load would refuse)
        return {
            name: persistence.describe(part) for name, part in self._parts().items()
        }

    def _module_tensors(self) -> dict:
        """Each part's tensors, under ``<part>.``."""
        return {
            f"{name}.{key}": tensor
            for name, part in self._parts().items()
            for key, tensor in part._module_tensors().items()
        }

    @classmethod
    def _from_saved(cls, params: dict, state: dict, tensors: dict):
        """Rebuild the fitted parts from their descriptions and tensors, each
        checked by its own class."""
        from ..estimators.pairs import AspectAttentionClassifier

        if set(params) != {"extractor", "classifier", "aspect_names"} or any(
            params[name] is not None for name in cls._PARTS
        ):
            raise ValueError("a pipeline's parameters are its parts and aspect_names")
        names = check_aspect_names(params["aspect_names"])
        if not isinstance(state, dict) or set(state) != set(cls._PARTS):
            raise ValueError(
                "a pipeline's fitted state is its extractor and classifier"
            )
        if any(
            "." not in key or key.split(".")[0] not in cls._PARTS for key in tensors
        ):
            raise ValueError("every tensor of a pipeline belongs to one of its parts")
        kinds = {
            "extractor": AspectTermExtractor,
            "classifier": AspectAttentionClassifier,
        }
        parts = {
            name: persistence.from_description(
                state[name],
                {
                    key.split(".", 1)[1]: tensor
                    for key, tensor in tensors.items()
                    if key.split(".", 1)[0] == name
                },
                kinds[name],
            )
            for name in cls._PARTS
        }
        return cls.from_fitted(parts["extractor"], parts["classifier"], names)
