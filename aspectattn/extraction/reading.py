"""From the tagger's probabilities to each text's terms (:func:`read_terms`),
the terms with their polarities (:func:`classify_terms`) and as the review
analysis reads them (:func:`analyzed_terms`, :class:`TermsEndToEnd`).

One code path for the estimators (in torch) and the torch-free runtime (ONNX
graphs): :func:`read_terms` takes a function from a padded batch to tag
probabilities, :func:`classify_terms` any classifier of ``(text, term, span)``
pairs with ``predict_proba`` and ``classes_``. numpy only.

Shapes: ``B`` texts in a batch, ``T`` tokens (its longest text), ``U`` its
distinct written forms, ``W`` characters (its longest form), ``K`` tags.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validation import check_pairs, check_texts
from ..exceptions import InputError
from ..text.spans import char_spans, term_tokens
from ..text.tokens import length_sorted_batches
from .aspects import opens_sentence
from .inputs import Encoded, batch_characters, token_rows
from .metrics import check_spans, span_f1
from .words import O, best_tags, decode, read_proba, word_offsets

__all__ = [
    "TermsEndToEnd",
    "read_terms",
    "tag_batches",
    "with_polarities",
    "given_terms_proba",
    "GivenTerms",
    "classify_terms",
    "analyzed_terms",
    "batch_terms",
    "PREDICT_BATCH",
    "CONTEXT_WORDS",
]

#: Texts per prediction (or validation) batch.
PREDICT_BATCH = 256

#: Words of context either side of a term in :func:`analyzed_terms`'s ``tokens``.
CONTEXT_WORDS = 12

#: ``tag_proba(tokens (B, T), lengths (B,), chars (U, W), char_index (B, T)) ->
#: (B, T, K)`` float probabilities of the tags (O, B, I) of every token.
TagProba = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: ``term_proba(terms (n, 3)) -> (n, C)``: the polarities' probabilities of the
#: terms found in the batch ``tag_proba`` read last, each given as its row in
#: that batch and its first and last token's column.
TermProba = Callable[[np.ndarray], np.ndarray]


def read_terms(
    texts: list[str],
    encoded: Encoded,
    tag_proba: TagProba,
    *,
    whole_words: bool,
    language: str | None,
    max_tokens: int | None = None,
    term_proba: TermProba | None = None,
    decoding: str,
    transitions: tuple | None = None,
) -> list[list[dict]]:
    """Each text's terms, found by ``tag_proba`` in ``encoded`` (the texts as the
    encoder reads them), in length-sorted batches of :data:`PREDICT_BATCH` texts
    and at most ``max_tokens`` padded tokens.

    Parameters
    ----------
    texts : list of str
    encoded : Encoded
        ``texts`` as the inputs encode them.
    tag_proba : callable
        A padded batch -> its tokens' tag probabilities (:data:`TagProba`).
    whole_words : bool
        Widen each term to the words it touches (sub-word tokens), found in the
        text with the tokenizer of ``language``.
    language : str or None
    max_tokens : int, default=None
        Padded tokens per batch, at most: the encoder's ``batch_tokens``
        (:func:`~aspectattn.text.tokens.length_sorted_batches`).
    term_proba : callable, default=None
        The batch's terms -> their polarities' probabilities
        (:data:`TermProba`), called after ``tag_proba`` on the same batch (a
        joint model reads the states that call computed).
    decoding : {"greedy", "viterbi", "crf"}
        How the tags are read from their probabilities
        (:data:`~aspectattn.extraction.words.DECODINGS`).
    transitions : tuple, default=None
        The tagger's learned tag transitions, which ``"crf"`` reads
        (:func:`~aspectattn.extraction.words.best_tags`).

    Returns
    -------
    list of list of dict
        Per text, in text order: ``{"span": (start, end), "term": str,
        "score": float}``, ``text[start:end] == term``; the score is the mean
        over the term's tokens of their probability of being in a term (read
        as a CRF, its marginal under the transitions). With
        ``term_proba``, ``"proba"`` too: the term's row of it (C,).
    """
    taggable = np.split(encoded.taggable(), np.cumsum(encoded.ids.lengths)[:-1])
    out: list[list[dict]] = [[] for _ in texts]
    words: dict[int, np.ndarray] = {}  # a text's words, found once
    for index, keep, proba in tag_batches(encoded, tag_proba, max_tokens):
        lengths = keep.sum(1)  # (B,)
        tags = best_tags(proba, lengths, decoding, transitions)  # (n_tokens,)
        proba = read_proba(proba, lengths, decoding, transitions)  # (n_tokens, 3)
        row, first, last, score = decode(tags, 1 - proba[:, O], lengths)
        polar = [None] * len(row)
        if term_proba is not None and len(row):
            polar = term_proba(batch_terms(keep, row, first, last))  # (n, C)
        for r, a, b, p, q in zip(index[row], first, last, score, polar, strict=True):
            spans = encoded.offsets[r][taggable[r]]
            span = (int(spans[a, 0]), int(spans[b, 1]))
            if whole_words:
                span = _whole_words(texts[r], span, words, r, language)
                if span is None:
                    continue
            _add(out[r], texts[r], span, float(p), q)
    return out


def tag_batches(encoded: Encoded, tag_proba: TagProba, max_tokens: int | None = None):
    """The texts of ``encoded`` that have tokens, read by ``tag_proba`` in
    length-sorted batches of :data:`PREDICT_BATCH` texts (the longest first)
    and at most ``max_tokens`` padded tokens.

    Yields
    ------
    index : ndarray of shape (B,)
        The batch's texts.
    keep : ndarray of shape (B, T) bool
        The tokens that hold text (no padding, no special token).
    proba : ndarray of shape (n_tokens, K)
        Their tag probabilities, text after text.
    """
    flat = encoded.taggable()  # (n_tokens,)
    lengths = encoded.ids.lengths
    has_tokens = np.flatnonzero(lengths > 0)
    cut = length_sorted_batches(lengths[has_tokens], PREDICT_BATCH, None, max_tokens)
    for index in (has_tokens[rows] for rows in cut):
        ids, size = encoded.ids.pad(index)  # (B, T), (B,)
        rows = token_rows(encoded.ids, index)
        chars, char_index = batch_characters(size, encoded.forms[rows], encoded.chars)
        proba = tag_proba(ids, size, chars, char_index)  # (B, T, K)
        keep = np.zeros(ids.shape, dtype=bool)
        keep[np.arange(ids.shape[1])[None, :] < size[:, None]] = flat[rows]
        yield index, keep, proba[keep]


def batch_terms(keep: np.ndarray, row, first, last) -> np.ndarray:
    """(n, 3) int64: each decoded term's row in the batch and its first and last
    token's column, from ``decode``'s places among the row's ``keep`` (B, T)
    tokens."""
    _, cols = np.nonzero(keep)  # (n_tokens,), row after row
    start = np.r_[0, np.cumsum(keep.sum(1))[:-1]]  # (B,)
    return np.stack([row, cols[start[row] + first], cols[start[row] + last]], 1)


def _whole_words(text: str, span, memo: dict, key, language) -> tuple | None:
    """A sub-word span as the words it touches, whole; ``memo[key]`` keeps
    ``text``'s words for its other spans. None: it touches no word (only spaces
    or formatting characters)."""
    found = memo.get(key)
    if found is None:
        found = np.asarray(word_offsets(text, language), dtype=np.int64)
        found = memo[key] = found.reshape(-1, 2)
    start, end = span
    touched = found[(found[:, 0] < end) & (found[:, 1] > start)]
    if not len(touched):
        return None
    # (a SentencePiece token carries the space before it)
    return int(touched[0, 0]), int(touched[-1, 1])


def _add(found: list[dict], text: str, span, score: float, proba=None) -> None:
    """Append a term to its text's, merged with the previous one when both
    were widened to the same word (pieces of one word tagged as two terms: their
    scores, and polarities' probabilities, averaged)."""
    start, end = span
    if found and start < found[-1]["span"][1]:
        previous = found.pop()
        start, score = previous["span"][0], (previous["score"] + score) / 2
        if proba is not None:
            proba = (previous["proba"] + proba) / 2
    term = {"span": (start, end), "term": text[start:end], "score": score}
    if proba is not None:
        term["proba"] = proba
    found.append(term)


def with_polarities(found: list[list[dict]], classes) -> list[list[dict]]:
    """The terms :func:`read_terms` found with ``term_proba``, each one's
    ``"proba"`` made ``"polarity"`` (its most probable class of ``classes``,
    a plain Python value) and ``"probability"``: the pipeline's dictionaries."""
    classes = np.asarray(classes).tolist()
    out = []
    for terms in found:
        row = []
        for term in terms:
            best = int(term["proba"].argmax())
            row.append(
                {
                    "span": term["span"],
                    "term": term["term"],
                    "polarity": classes[best],
                    "probability": float(term["proba"][best]),
                    "score": term["score"],
                }
            )
        out.append(row)
    return out


def _given_tokens(offsets: np.ndarray, start: int, end: int, i: int) -> tuple:
    """A given term's first and last token; a term after the last token read
    (a text cut at :data:`~aspectattn.extraction.inputs.MAX_TOKENS`) is read at
    that token, the nearest the model has, as the classifiers read it."""
    places = term_tokens(offsets, start, end)
    if places is not None:
        return places
    words = np.flatnonzero(offsets[:, 1] > offsets[:, 0])
    if len(words) and start >= offsets[words[-1], 1]:
        return int(words[-1]), int(words[-1])
    raise InputError(f"The term span ({start}, {end}) of pair {i} holds no word.")


#: ``run(encoded, index (B,), terms (P, 3)) -> (P, C)``: the polarities'
#: probabilities of ``terms`` (each one's row in the batch of the texts ``index``
#: of ``encoded``, its first and last token) from one pass over those texts.
GivenRun = Callable[[Encoded, np.ndarray, np.ndarray], np.ndarray]


def given_terms_proba(X, inputs, n_classes: int, run: GivenRun, max_tokens=None):
    """The polarities' probabilities (P, C) of given terms: ``X``, ``(text,
    term)`` pairs or ``(text, term, (start, end))`` triples, as the classifiers
    read terms (a term without its span where it first occurs); each distinct
    text encoded by ``inputs`` and read once, in length-sorted batches of
    :data:`PREDICT_BATCH` texts and at most ``max_tokens`` padded tokens, however
    many of its terms ``X`` holds."""
    texts, terms, _, spans = check_pairs(X, return_spans=True)
    spans = char_spans(texts, terms, spans)
    unique = list(dict.fromkeys(texts))
    row = {text: i for i, text in enumerate(unique)}
    encoded = inputs.encode(unique)
    places = np.asarray(
        [
            _given_tokens(encoded.offsets[row[t]], *span, i)
            for i, (t, span) in enumerate(zip(texts, spans, strict=True))
        ],
        dtype=np.int64,
    ).reshape(-1, 2)  # (P, 2): each pair's first and last token
    sentence = np.asarray([row[t] for t in texts], dtype=np.int64)  # (P,)
    out = np.zeros((len(texts), n_classes), dtype=np.float64)
    cut = length_sorted_batches(encoded.ids.lengths, PREDICT_BATCH, None, max_tokens)
    for index in cut:
        position = np.full(len(unique), -1)
        position[index] = np.arange(len(index))
        pairs = np.flatnonzero(position[sentence] >= 0)
        if len(pairs):
            terms = np.column_stack([position[sentence[pairs]], places[pairs]])
            out[pairs] = run(encoded, index, terms)
    return out


class GivenTerms:
    """A joint aspect-sentiment model (the estimator, or its ONNX export) as a
    classifier of given terms: ``predict`` and ``predict_proba`` of ``(text,
    term[, span])`` pairs, ``classes_``, ``aspect_type_ = "term"`` -- what the
    behavioural suite and the robustness probes read."""

    aspect_type_ = "term"

    def __init__(self, model):
        self.model = model

    @property
    def classes_(self) -> np.ndarray:
        return self.model.classes_

    def predict_proba(self, X) -> np.ndarray:
        return self.model.predict_polarity_proba(X)

    def predict(self, X) -> np.ndarray:
        return self.model.predict_polarity(X)


def classify_terms(texts: list[str], found: list[list[dict]], classifier):
    """Each found term with its polarity: ``found`` (per text, the extractor's
    ``{"span", "term", "score"}``) classified as ``(text, term, span)`` pairs,
    all in one ``classifier.predict_proba`` call.

    Returns
    -------
    list of list of dict
        Per text, in text order: ``{"span", "term", "polarity", "probability",
        "score"}`` -- ``probability`` the classifier's for the polarity,
        ``score`` the extractor's for the span.
    """
    pairs = [
        (text, term["term"], term["span"])
        for text, terms in zip(texts, found, strict=True)
        for term in terms
    ]
    if not pairs:
        return [[] for _ in texts]
    proba = iter(classifier.predict_proba(pairs))  # (P, C)
    found = [[{**term, "proba": next(proba)} for term in terms] for terms in found]
    return with_polarities(found, classifier.classes_)


def analyzed_terms(
    texts: list[str], predicted: list[list[dict]], names, min_probability: float
) -> list[list[dict]]:
    """Per text, its terms (:func:`classify_terms`'s) as the review analysis
    reads them (:func:`aspectattn.reviews.analyze_reviews`): ``aspect`` (the
    term's group, ``names(term)``: :class:`~aspectattn.extraction.aspects.AspectNames`),
    ``label``, ``probability``, ``mention_probability`` (the extractor's span
    score; terms below ``min_probability`` are left out), and ``tokens`` and
    ``weights`` -- the term's words with up to :data:`CONTEXT_WORDS` words of
    the text on either side, weight ``1 / n`` on the term's ``n`` words and 0
    on the others (the report highlights them). Each term's answer is bounded
    by its own length, not by its text's: a text of 40,000 words with 256
    terms answers 256 short windows, not 256 copies of the text."""
    from .._mentions import check_min_probability

    check_min_probability(min_probability)
    out = []
    for text, terms in zip(texts, predicted, strict=True):
        if not terms:
            out.append([])
            continue
        words = np.asarray(word_offsets(text, names.language), dtype=np.int64)
        words = words.reshape(-1, 2)  # (n_words, 2) character spans
        entries = []
        for term in terms:
            if term["score"] < min_probability:
                continue
            start, end = term["span"]
            hit = np.flatnonzero((words[:, 0] < end) & (words[:, 1] > start))
            first = max(int(hit[0]) - CONTEXT_WORDS, 0) if len(hit) else 0
            last = int(hit[-1]) + 1 + CONTEXT_WORDS if len(hit) else 0
            window = words[first:last]  # (n_window, 2)
            inside = np.zeros(len(window), dtype=bool)  # the term's own words
            inside[hit - first] = True
            entries.append(
                {
                    "text": text,
                    "aspect": names(term["term"], opens_sentence(text, start)),
                    "term": term["term"],
                    "span": term["span"],
                    "label": term["polarity"],
                    "probability": term["probability"],
                    "mention_probability": term["score"],
                    "tokens": [text[a:b] for a, b in window],
                    "weights": inside / max(int(inside.sum()), 1),
                }
            )
        out.append(entries)
    return out


class TermsEndToEnd:
    """``analyze`` and ``score`` of a model whose ``predict`` gives each text's
    terms with their polarities: the two-part pipeline, the joint model and
    their ONNX exports. Each gives :meth:`_aspect_names`, the
    :class:`~aspectattn.extraction.aspects.AspectNames` its terms are keyed by
    (having checked that it is fitted)."""

    def _aspect_names(self):
        raise NotImplementedError

    def analyze(self, X, min_probability: float = 0.5) -> list[list[dict]]:
        """Per text, its terms as the review analysis reads them
        (:func:`aspectattn.reviews.analyze_reviews`): ``aspect`` (the term's
        key, :mod:`aspectattn.extraction.aspects`), ``label``,
        ``probability``, ``mention_probability`` (the span's score; terms below
        ``min_probability`` are left out), and ``tokens`` and ``weights`` --
        the term's words and a few around them, weight on the term's
        (:func:`analyzed_terms`; the report highlights them)."""
        from .._mentions import check_min_probability

        check_min_probability(min_probability)  # (before any prediction)
        names = self._aspect_names()
        texts = check_texts(X, "X")
        return analyzed_terms(texts, self.predict(texts), names, min_probability)

    def score(self, X, y) -> float:
        """End-to-end micro F1: a predicted term counts when its span and its
        polarity are both a gold term's (``y``: each text's ``(start, end,
        polarity)``)."""
        texts = check_texts(X, "X")
        return span_f1(check_spans(y, texts), self.predict(texts), polarity=True)
