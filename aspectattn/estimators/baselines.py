"""Pooling baselines: a sentence vector as a weighted mean of its word vectors.

Two sklearn transformers take the same ``(text, aspect)`` input as
:class:`~aspectattn.AspectAttentionClassifier` and return a dense feature matrix for
any sklearn classifier:

* :class:`TfidfEmbeddingVectorizer` weights words by tf-idf;
* :class:`POSWeightedEmbeddingVectorizer` weights them by part of speech, with one
  scalar hyperparameter per tag class, so ``GridSearchCV`` can tune the weights.

Features per pair: the weighted mean of the sentence's word vectors, then aspect
features -- a one-hot indicator of the category, or for aspect terms the term's vector
and the weighted mean of the ``window`` words either side of its occurrence.

Learned attention (the main estimator) is the step beyond: it learns the weights, per
aspect, instead of fixing them by word statistics or grammar.
"""

from __future__ import annotations

import os
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from .. import params
from .._validation import (
    category_ids,
    check_pairs,
    resolve_aspect_type,
    text_tags,
)
from ..params._constraints import Interval, Matching, StrOptions, validate_params
from ..text import vectors as _emb
from ..text.languages import LANGUAGE_CODE, auto_language
from ..text.pipelines import WordPipeline
from ..text.pos import tag_sentences
from ..text.tokens import OOV_ID, EncodedTexts

__all__ = [
    "TfidfEmbeddingVectorizer",
    "POSWeightedEmbeddingVectorizer",
    "make_baseline",
]

_COMMON_CONSTRAINTS = {
    "embeddings": [
        None,
        str,
        os.PathLike,
    ],
    "embedding_dim": [None, Interval(Integral, 1, None, closed="left")],
    "aspect_type": [StrOptions({"auto", "category", "term"})],
    "window": [Interval(Integral, 0, None, closed="left")],
    "lowercase": ["boolean"],
    "language": [
        None,
        StrOptions({"auto"}),
        Matching(LANGUAGE_CODE, ("en", "fr", "ru", "tr"), "an ISO 639 code"),
    ],
    "text_column": [str],
    "aspect_column": [str],
    "random_state": [None, Interval(Integral, 0, 2**32 - 1, closed="both")],
}


class _PooledEmbeddingVectorizer(TransformerMixin, BaseEstimator):
    """Shared machinery; subclasses define the per-token weights."""

    _parameter_constraints: dict = {}
    #: (what models pickled before the parameter existed tokenized as)
    language = "en"

    def __sklearn_tags__(self):
        tags = text_tags(super().__sklearn_tags__())
        tags.requires_fit = True
        return tags

    # -- hooks --------------------------------------------------------------------
    def _check_language(self, language: str | None) -> None:
        """Refuse a language the estimator cannot read (the default: any)."""

    def _fit_weights(self, encoded: EncodedTexts) -> None:
        """Learn weight statistics from the distinct fitting sentences."""

    def _token_weights(self, encoded: EncodedTexts, cased_tokens) -> np.ndarray:
        """Weight of every token occurrence, aligned with ``encoded.ids``."""
        raise NotImplementedError

    # -- fit / transform ----------------------------------------------------------
    def fit(self, X, y=None):
        """Learn the vocabulary, its word vectors and the weight statistics.

        Parameters
        ----------
        X : sequence of (text, aspect) pairs or DataFrame
        y : ignored

        Returns
        -------
        self
        """
        validate_params(self, self._parameter_constraints)
        texts, aspects, _ = check_pairs(X, self.text_column, self.aspect_column)
        aspect_type = resolve_aspect_type(self.aspect_type, texts, aspects)
        distinct = list(dict.fromkeys(texts))
        language = self.language
        if language == "auto":
            language = auto_language(distinct)
        self._check_language(language)
        pipeline = WordPipeline(lowercase=self.lowercase, language=language)
        terms = list(dict.fromkeys(aspects)) if aspect_type == "term" else []
        pipeline.fit(distinct, terms)
        seed = 0 if self.random_state is None else self.random_state
        matrix, has_vector, vectors, dim = pipeline.word_vectors(
            self.embeddings,
            self.embedding_dim,
            distinct,
            seed,
            np.random.default_rng(seed),
            passes=params.VECTOR_PASSES,
        )
        if vectors is None:
            raise ValueError(
                f"{type(self).__name__} pools pretrained or trained word "
                "vectors; embeddings=None (random vectors) is not useful"
                " here. Use 'word2vec', a file path or a gensim name."
            )
        matrix[~has_vector] = 0.0  # pooled words are the ones with real vectors

        self.text_pipeline_ = pipeline
        self.vocabulary_ = pipeline.vocabulary
        self.embedding_matrix_ = matrix
        self.has_vector_ = has_vector
        self.embedding_coverage_ = _emb.vector_coverage(has_vector)
        self.aspect_type_ = aspect_type
        self.aspects_ = (
            np.array(sorted(set(aspects)), dtype=object)
            if aspect_type == "category"
            else np.array([], dtype=object)
        )
        self._fit_weights(pipeline.encode(distinct))
        self.n_features_in_ = 2
        self._n_features_out = len(self.get_feature_names_out())
        return self

    def transform(self, X) -> np.ndarray:
        """Feature matrix, shape (n_pairs, n_features_out), float32."""
        check_is_fitted(self, "embedding_matrix_")
        texts, aspects, _ = check_pairs(X, self.text_column, self.aspect_column)
        distinct = list(dict.fromkeys(texts))  # each sentence once (and tagged once)
        row_of_text = {t: i for i, t in enumerate(distinct)}
        pair_rows = np.fromiter((row_of_text[t] for t in texts), np.int64, len(texts))
        # Cased tokens for the tagger; the same tokens as in fit for the lookup.
        cased = self.text_pipeline_.tokenize(distinct, cased=True)
        lookup_tokens = self.text_pipeline_.lookup_tokens(cased)
        encoded = self.vocabulary_.encode(lookup_tokens)
        weights = self._token_weights(encoded, cased)  # (n_tokens,)
        token_rows = encoded.token_rows
        sentence = self._pool(encoded.ids, weights, token_rows, len(distinct))
        parts = [sentence[pair_rows]]
        if self.aspect_type_ == "category":
            parts.append(self._category_indicator(aspects))
        else:
            parts.extend(
                self._term_features(aspects, lookup_tokens, encoded, weights, pair_rows)
            )
        return np.hstack(parts).astype(np.float32)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the output columns."""
        check_is_fitted(self, "embedding_matrix_")
        dim = self.embedding_matrix_.shape[1]
        names = [f"sentence_emb{i}" for i in range(dim)]
        if self.aspect_type_ == "category":
            names += [f"aspect={a}" for a in self.aspects_]
        else:
            names += [f"term_emb{i}" for i in range(dim)]
            names += [f"context_emb{i}" for i in range(dim)]
        return np.asarray(names, dtype=object)

    # -- pieces ---------------------------------------------------------------------
    def _pool(self, ids, weights, rows, n_rows) -> np.ndarray:
        """Weighted mean of word vectors per row; words without vectors ignored."""
        w = np.where(self.has_vector_[ids], weights, 0.0)
        W = sp.csr_matrix((w, (rows, ids)), shape=(n_rows, len(self.has_vector_)))
        total = np.asarray(W.sum(axis=1)).ravel()  # (n_rows,)
        pooled = np.asarray(W @ self.embedding_matrix_)  # (n_rows, dim)
        np.divide(pooled, total[:, None], out=pooled, where=total[:, None] > 0)
        return pooled

    def _category_indicator(self, aspects) -> np.ndarray:
        ids = category_ids(aspects, self.aspects_, "this transformer")
        out = np.zeros((len(aspects), len(self.aspects_)), dtype=np.float32)
        out[np.arange(len(aspects)), ids] = 1.0
        return out

    def _term_features(self, aspects, token_lists, encoded, weights, pair_rows):
        terms = self.text_pipeline_.tokenizer.tokenize_many(aspects)
        term_enc = self.text_pipeline_.encode_terms(aspects)
        term_rows = term_enc.token_rows
        term_vec = self._pool(
            term_enc.ids, np.ones(len(term_enc.ids)), term_rows, len(aspects)
        )
        # Context: `window` tokens either side of the term's first occurrence (the
        # whole sentence when the term is not found).
        ctx_ids, ctx_w, ctx_rows = [], [], []
        for i, (row, term) in enumerate(zip(pair_rows, terms, strict=True)):
            tokens = token_lists[row]
            start = _find_sublist(tokens, term)
            lo, hi = encoded.offsets[row], encoded.offsets[row + 1]
            if start < 0:
                positions = np.arange(lo, hi)
            else:
                left = np.arange(max(lo, lo + start - self.window), lo + start)
                end = lo + start + len(term)
                right = np.arange(end, min(hi, end + self.window))
                positions = np.concatenate([left, right])
            ctx_ids.append(encoded.ids[positions])
            ctx_w.append(weights[positions])
            ctx_rows.append(np.full(len(positions), i))
        context = self._pool(
            np.concatenate(ctx_ids),
            np.concatenate(ctx_w),
            np.concatenate(ctx_rows),
            len(aspects),
        )
        return [term_vec, context]


def _find_sublist(tokens: list[str], sub: list[str]) -> int:
    """Index of the first occurrence of ``sub`` in ``tokens``, or -1."""
    if not sub:
        return -1
    sep = "\x00"
    haystack = sep + sep.join(tokens) + sep
    pos = haystack.find(sep + sep.join(sub) + sep)
    return -1 if pos < 0 else haystack[: pos + 1].count(sep) - 1


def _idf(encoded: EncodedTexts, vocab_size: int, smooth: bool) -> np.ndarray:
    """Inverse document frequency over sentences, as sklearn's TfidfTransformer."""
    rows = encoded.token_rows
    pairs = np.unique(rows * vocab_size + encoded.ids)
    df = np.bincount(pairs % vocab_size, minlength=vocab_size).astype(np.float64)
    n = float(len(encoded))
    with np.errstate(divide="ignore"):
        idf = (np.log((1 + n) / (1 + df)) if smooth else np.log(n / df)) + 1.0
    idf[df == 0] = 0.0
    idf[OOV_ID] = 0.0
    return idf


def _occurrence_counts(encoded: EncodedTexts) -> np.ndarray:
    """For each token occurrence, how often its word occurs in its sentence."""
    rows = encoded.token_rows
    keys = rows * (int(encoded.ids.max(initial=0)) + 1) + encoded.ids
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return counts[inverse].astype(np.float64)


class TfidfEmbeddingVectorizer(_PooledEmbeddingVectorizer):
    """Tf-idf-weighted mean of word vectors, plus aspect features.

    The sentence vector is ``sum_w tf(w) idf(w) v_w / sum_w tf(w) idf(w)`` over the
    sentence's words that have a vector; idf is learned in ``fit`` over the distinct
    training sentences, with sklearn's formulas (``smooth_idf``, ``sublinear_tf``).

    Parameters
    ----------
    embeddings : str, path-like or None, default="word2vec"
        Same choices and cache as :class:`~aspectattn.AspectAttentionClassifier`
        (``None`` is not allowed: random vectors pool to noise).
    embedding_dim : int or None, default=None
    aspect_type : {"auto", "category", "term"}, default="auto"
    window : int, default=5
        Context words either side of an aspect term.
    use_idf, smooth_idf, sublinear_tf : bool, default=True, True, False
        As in :class:`sklearn.feature_extraction.text.TfidfVectorizer`.
    lowercase : bool, default=True
    language : str, None or "auto", default="auto"
        The texts' language for the tokenizer (an ISO 639 code; see
        :class:`aspectattn.text.tokens.Tokenizer`); ``"auto"``: English when the
        texts look English, else no language's rules.
    text_column, aspect_column : str
    random_state : int or None, default=None
        Seeds trained word vectors.

    Attributes
    ----------
    vocabulary_ : Vocabulary
    embedding_matrix_ : ndarray of shape (n_words, dim)
        Word vectors of the fitted vocabulary only (zero for words without one).
    idf_ : ndarray of shape (n_words,)
    aspects_ : ndarray of str
    aspect_type_ : str

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.linear_model import LogisticRegression
    >>> pipe = make_pipeline(TfidfEmbeddingVectorizer(embeddings="word2vec"),
    ...                      LogisticRegression(max_iter=1000))
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "use_idf": ["boolean"],
        "smooth_idf": ["boolean"],
        "sublinear_tf": ["boolean"],
    }

    def __init__(
        self,
        *,
        embeddings="word2vec",
        embedding_dim=None,
        aspect_type="auto",
        window=5,
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=False,
        lowercase=True,
        language="auto",
        text_column="text",
        aspect_column="aspect",
        random_state=None,
    ):
        self.embeddings = embeddings
        self.embedding_dim = embedding_dim
        self.aspect_type = aspect_type
        self.window = window
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.sublinear_tf = sublinear_tf
        self.lowercase = lowercase
        self.language = language
        self.text_column = text_column
        self.aspect_column = aspect_column
        self.random_state = random_state

    def _fit_weights(self, encoded):
        self.idf_ = (
            _idf(encoded, len(self.vocabulary_), self.smooth_idf)
            if self.use_idf
            else np.ones(len(self.vocabulary_))
        )

    def _token_weights(self, encoded, cased_tokens):
        # Per occurrence: tf(w)/count(w) * idf(w), so a word's occurrences in a
        # sentence add up to tf(w) * idf(w).
        counts = _occurrence_counts(encoded)
        tf = (
            (1.0 + np.log(counts)) / counts
            if self.sublinear_tf
            else np.ones_like(counts)
        )
        return tf * self.idf_[encoded.ids]


class POSWeightedEmbeddingVectorizer(_PooledEmbeddingVectorizer):
    """Part-of-speech-weighted mean of word vectors, plus aspect features.

    Each token's vector is weighted by its universal POS class: ``adj_weight`` for
    adjectives, ``adv_weight`` adverbs, ``noun_weight`` nouns, ``verb_weight`` verbs
    and ``other_weight`` everything else; optionally times idf. The weights are plain
    scalar hyperparameters, so ``GridSearchCV`` can tune them.

    Tags come from NLTK's averaged-perceptron tagger (fetched by ``nltk.download``
    when missing and the internet is there; otherwise set ``NLTK_DATA``), or from
    ``tagger``: a callable ``tagger(tokens) -> tags`` with one Penn Treebank,
    universal or spaCy tag per token. Pass a top-level function (not a lambda) to
    keep the estimator picklable. Each distinct sentence is tagged once per call to
    ``fit``/``transform``, however many aspects it has.

    Parameters
    ----------
    embeddings, embedding_dim, aspect_type, window, lowercase, text_column,
    aspect_column, random_state
        As in :class:`TfidfEmbeddingVectorizer`.
    language : str, None or "auto", default="en"
        The texts' language (tokenizer, and the tagger's): English by default,
        as the default tagger is English-only.
    tagger : callable or None, default=None
        ``None``: NLTK's English tagger, so ``language`` must be ``"en"`` (or
        ``"auto"`` finding the texts English): another language is an error that
        says to pass a tagger for it.
    noun_weight, adj_weight, verb_weight, adv_weight, other_weight : float
        Defaults 1.0, 2.0, 1.0, 1.5, 0.5: opinions live mostly in adjectives and
        adverbs.
    use_idf : bool, default=False
        Multiply the POS weight by the word's idf.
    smooth_idf : bool, default=True

    Attributes
    ----------
    As :class:`TfidfEmbeddingVectorizer` (``idf_`` only with ``use_idf``).
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "tagger": [None, callable],
        "noun_weight": [Interval(Real, 0, None, closed="left")],
        "adj_weight": [Interval(Real, 0, None, closed="left")],
        "verb_weight": [Interval(Real, 0, None, closed="left")],
        "adv_weight": [Interval(Real, 0, None, closed="left")],
        "other_weight": [Interval(Real, 0, None, closed="left")],
        "use_idf": ["boolean"],
        "smooth_idf": ["boolean"],
    }

    def __init__(
        self,
        *,
        embeddings="word2vec",
        embedding_dim=None,
        aspect_type="auto",
        window=5,
        tagger=None,
        noun_weight=1.0,
        adj_weight=2.0,
        verb_weight=1.0,
        adv_weight=1.5,
        other_weight=0.5,
        use_idf=False,
        smooth_idf=True,
        lowercase=True,
        language="en",
        text_column="text",
        aspect_column="aspect",
        random_state=None,
    ):
        self.embeddings = embeddings
        self.embedding_dim = embedding_dim
        self.aspect_type = aspect_type
        self.window = window
        self.tagger = tagger
        self.noun_weight = noun_weight
        self.adj_weight = adj_weight
        self.verb_weight = verb_weight
        self.adv_weight = adv_weight
        self.other_weight = other_weight
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.lowercase = lowercase
        self.language = language
        self.text_column = text_column
        self.aspect_column = aspect_column
        self.random_state = random_state

    def _fit_weights(self, encoded):
        if self.use_idf:
            self.idf_ = _idf(encoded, len(self.vocabulary_), self.smooth_idf)

    def _check_language(self, language: str | None) -> None:
        if self.tagger is None and language != "en":
            raise ValueError(
                f"{type(self).__name__} tags with NLTK's averaged perceptron, "
                f"which reads English; the texts are language={language!r}. Pass "
                "tagger= (a function tokens -> tags in that language: spaCy, "
                "Stanza...) or use TfidfEmbeddingVectorizer."
            )

    def _tag_weights(self) -> dict[str, float]:
        return {
            "NOUN": self.noun_weight,
            "ADJ": self.adj_weight,
            "VERB": self.verb_weight,
            "ADV": self.adv_weight,
        }

    def _token_weights(self, encoded, cased_tokens):
        tags = tag_sentences(cased_tokens, self.tagger)
        by_tag = self._tag_weights()
        flat = [t for sentence in tags for t in sentence]
        unique, inverse = np.unique(np.asarray(flat, dtype=object), return_inverse=True)
        per_tag = np.array([by_tag.get(t, self.other_weight) for t in unique])
        weights = per_tag[inverse] if len(flat) else np.zeros(0)
        if self.use_idf:
            weights = weights * self.idf_[encoded.ids]
        return weights


def make_baseline(
    kind: str = "tfidf", classifier: str = "logreg", **params
) -> Pipeline:
    """A ready-made baseline: pooled features, standardised, then a linear model.

    Parameters
    ----------
    kind : {"tfidf", "pos"}
    classifier : {"logreg", "svm"}
        ``LogisticRegression(max_iter=2000)`` or ``LinearSVC()``; tune their ``C`` as
        ``clf__C`` in a grid search.
    **params
        Passed to the vectorizer (``embeddings=``, POS weights...).

    Returns
    -------
    Pipeline with steps ``features``, ``scale``, ``clf``.
    """
    # Imported here: only this helper needs them, not every `import aspectattn`.
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    vectorizers = {
        "tfidf": TfidfEmbeddingVectorizer,
        "pos": POSWeightedEmbeddingVectorizer,
    }
    classifiers = {
        "logreg": lambda: LogisticRegression(max_iter=2000),
        "svm": lambda: LinearSVC(),
    }
    if kind not in vectorizers:
        raise ValueError(f"kind must be 'tfidf' or 'pos', got {kind!r}")
    if classifier not in classifiers:
        raise ValueError(f"classifier must be 'logreg' or 'svm', got {classifier!r}")
    return Pipeline(
        [
            ("features", vectorizers[kind](**params)),
            ("scale", StandardScaler()),
            ("clf", classifiers[classifier]()),
        ]
    )
