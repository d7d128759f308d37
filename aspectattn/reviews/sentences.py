"""Reviews into sentences: NLTK's Punkt segmenter with common abbreviations (no
model download), a huge review first cut into bounded pieces."""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterable

import numpy as np

from .._validation import _short
from ..exceptions import AspectAttnWarning, InputError, MissingDependencyError

__all__ = ["split_sentences", "ABBREVIATIONS", "MAX_SEGMENT_CHARS"]

#: Abbreviations Punkt must not end a sentence at (lower case, without the final dot).
ABBREVIATIONS = {
    "dr", "mr", "mrs", "ms", "st", "ave", "vs", "etc", "e.g", "i.e", "approx",
    "min", "max", "no", "jr", "sr", "inc", "ltd", "co", "p.m", "a.m", "oz", "lb",
}  # fmt: skip


@functools.cache
def _segmenter(english: bool = True):
    try:
        from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    except ImportError:
        raise MissingDependencyError(
            "Splitting reviews into sentences needs NLTK: "
            "pip install 'aspectattn[reviews]'"
        ) from None
    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS) if english else set()
    return PunktSentenceTokenizer(params)


def split_sentences(
    texts: Iterable[str], language: str | None = "en"
) -> tuple[np.ndarray, list[str]]:
    """Split each text into sentences: at line breaks and the sentence ends of
    scripts written without a following space (``。！？``, Armenian ``։``, Arabic
    ``؟``, Devanagari ``।``...), then with NLTK's Punkt (Latin punctuation, with
    :data:`ABBREVIATIONS` not ending a sentence when ``language`` is ``"en"``).

    Returns
    -------
    review : ndarray of shape (n_sentences,) int64
        The index of the text each sentence comes from.
    sentences : list of str
        Non-empty, stripped sentences in text order.

    Examples
    --------
    >>> from aspectattn.reviews import split_sentences
    >>> review, sentences = split_sentences(
    ...     ["The pasta was great. The waiter was rude!", "好吃。服务慢。"])
    >>> review.tolist()
    [0, 0, 1, 1]
    >>> sentences
    ['The pasta was great.', 'The waiter was rude!', '好吃。', '服务慢。']
    """
    segmenter = _segmenter(language == "en")
    review, sentences, long_reviews = [], [], 0
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(
                f"Review {i} is a {type(text).__name__} ({_short(text, 60)}); "
                "expected a string."
            )
        pieces = [text]
        if len(text) > MAX_SEGMENT_CHARS:
            long_reviews += 1
            pieces = _pieces(text, MAX_SEGMENT_CHARS)
        pieces = [part for piece in pieces for part in _SCRIPT_ENDS.split(piece)]
        for sentence in (s for piece in pieces for s in segmenter.tokenize(piece)):
            sentence = sentence.strip()
            if sentence:
                review.append(i)
                sentences.append(sentence)
    if long_reviews:
        warnings.warn(
            f"{long_reviews} review(s) longer than {MAX_SEGMENT_CHARS:,} characters "
            "were cut into pieces of at most that size (at a line or sentence end "
            "where there is one) before sentence splitting.",
            AspectAttnWarning,
            stacklevel=2,
        )
    return np.asarray(review, dtype=np.int64), sentences


#: Where a sentence ends whatever the language, before Punkt (which knows the
#: Latin ". ! ?" followed by a space) splits what is left: a line break, and the
#: sentence ends of scripts Punkt does not read -- the ideographic full stop and
#: the full-width marks (Chinese, Japanese; no space follows them), the Armenian
#: full stop, the Arabic question mark and full stop, the Devanagari danda and
#: double danda, the Ethiopic full stop.
_SCRIPT_ENDS = re.compile(r"(?<=[。！？｡։؟۔।॥።])|[\r\n]+")

#: Reviews longer than this are cut into pieces before sentence splitting, so that
#: the time NLTK's Punkt takes (its regular expressions) stays bounded per piece.
MAX_SEGMENT_CHARS = 20_000


def _pieces(text: str, size: int) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, each cut after the last
    line break, else sentence end, else space of its window (a hard cut where
    there is none)."""
    pieces, start = [], 0
    while len(text) - start > size:
        window = text[start : start + size]
        cut = max(window.rfind("\n"), window.rfind(". "), window.rfind("! "))
        if cut < size // 2:
            cut = max(cut, window.rfind(" "))
        end = start + (cut + 1 if cut > 0 else size)
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return pieces
