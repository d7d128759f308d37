"""Where an aspect term is: from character spans to token spans (text side, numpy
only: the torch-free runtime uses it too; the position features the model computes
from token spans are in :mod:`aspectattn.nn.ops`).

A term has a place in its sentence. Pairs may carry the term's character span
(``(text, term, (start, end))``, or ``start``/``end`` columns of a DataFrame, as the
SemEval and MAMS readers give them); without one, the term is looked up in the text
(its first occurrence as a whole word, else as a substring, case-insensitively).

Character spans become token spans by counting the tokens of the text before the
span's start and end with the pipeline's own tokenizer, so every word tokenizer,
every normalisation (NFKC, folded apostrophes) and every script gives the tokens
the model sees; a checkpoint's sub-words are located by the character offsets its
fast tokenizer reports (a prefix of a byte-level BPE or SentencePiece text ends in
a space token the whole text does not have). Either way a span that cuts a word
covers the whole word (at either end).

Shapes: ``P`` pairs, ``T`` tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..exceptions import InputError

__all__ = [
    "find_term",
    "check_span",
    "char_spans",
    "spans_from_offsets",
    "term_tokens",
    "token_spans",
]


def find_term(text: str, term: str) -> tuple[int, int] | None:
    """Character span of the first occurrence of ``term`` in ``text``, or None.

    A whole-word occurrence (not inside a longer word) is preferred, so that
    ``"bar"`` is found in ``"barely fits at the bar"`` at the end; case is ignored.
    """
    needle = re.escape(term.strip())
    for pattern in (rf"(?<!\w){needle}(?!\w)", needle):
        found = re.search(pattern, text, re.IGNORECASE)
        if found:
            return found.span()
    return None


def check_span(where, text: str, term: str, span) -> tuple[int, int]:
    """A given character span, validated against its text and term; ``where``
    names it in the error (a pair's index, or a file's row as a string)."""
    if not isinstance(where, str):
        where = f"pair {where}"
    ok = (
        isinstance(span, (tuple, list, np.ndarray))
        and len(span) == 2
        and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in span
        )
    )
    if not ok:
        raise InputError(
            f"The term span of {where} must be two integers (start, end) of "
            f"character offsets; got {span!r}."
        )
    start, end = int(span[0]), int(span[1])
    if not 0 <= start < end <= len(text):
        raise InputError(
            f"The term span ({start}, {end}) of {where} is not inside its text of "
            f"{len(text)} characters."
        )
    if text[start:end].strip().casefold() != term.strip().casefold():
        raise InputError(
            f"The term span ({start}, {end}) of {where} holds "
            f"{text[start:end]!r}, not the term {term!r}."
        )
    return start, end


def char_spans(texts: list[str], terms: list[str], spans: list | None) -> list:
    """The character span ``(start, end)`` of each pair's term: the given one,
    checked, or found in the text (:func:`find_term`).

    Raises
    ------
    InputError
        A term not in its text, or a given span that is malformed or does not hold
        the term.
    """
    out = []
    for i, (text, term) in enumerate(zip(texts, terms, strict=True)):
        span = None if spans is None else spans[i]
        if span is None:
            span = find_term(text, term)
            if span is None:
                raise InputError(
                    f"The aspect term {term!r} of pair {i} does not occur in its "
                    f"text ({text[:80]!r}); the term-position options need the "
                    "term in the text, or its (start, end) character span."
                )
        else:
            span = check_span(i, text, term, span)
        out.append(span)
    return out


def spans_from_offsets(spans: list, offsets: list) -> np.ndarray:
    """Token spans ``[start, end)`` from the character ``offsets`` of each text's
    tokens (a fast tokenizer's ``offset_mapping``; special tokens ``(0, 0)``):
    the tokens that overlap the character span, so a span that cuts a word
    covers the whole word. A span that no token holds (the text truncated
    before it) points past the text's last token.

    Returns
    -------
    ndarray of shape (P, 2) int64
    """
    out = np.empty((len(spans), 2), dtype=np.int64)
    for i, ((start, end), tokens) in enumerate(zip(spans, offsets, strict=True)):
        bounds = np.asarray(tokens, dtype=np.int64).reshape(-1, 2)  # (T, 2)
        places = term_tokens(bounds, start, end)
        if places is not None:
            out[i] = (places[0], places[1] + 1)
        else:
            real = np.flatnonzero(bounds[:, 1] > bounds[:, 0])  # not special tokens
            last = int(real[-1]) + 1 if len(real) else 0
            out[i] = (last, last + 1)
    return out


def term_tokens(offsets: np.ndarray, start: int, end: int) -> tuple | None:
    """The first and last token (``offsets`` (n, 2), their character spans;
    special tokens ``(0, 0)``, never one) that a term's characters ``[start,
    end)`` overlap; None: none does."""
    inside = np.flatnonzero(
        (offsets[:, 1] > offsets[:, 0])
        & (offsets[:, 0] < end)
        & (offsets[:, 1] > start)
    )
    return (int(inside[0]), int(inside[-1])) if len(inside) else None


def token_spans(
    texts: list[str],
    terms: list[str],
    spans: list | None,
    count_tokens: Callable[[str], int],
    offset: int = 0,
) -> np.ndarray:
    """Token span ``[start, end)`` of each pair's term.

    Parameters
    ----------
    texts, terms : list of str
    spans : list of (start, end) or None per pair, or None
        Character spans; a missing one is found with :func:`find_term`.
    count_tokens : callable
        ``count_tokens(prefix)`` -> how many tokens the pipeline makes of a text
        prefix (without special tokens).
    offset : int
        Tokens the pipeline puts before the text (1 for a ``[CLS]`` token).

    Returns
    -------
    ndarray of shape (P, 2) int64
        Token positions; they may lie beyond a truncated sentence's last token.

    Raises
    ------
    InputError
        A term not in its text, or a given span that is malformed or does not hold
        the term.
    """
    out = np.empty((len(texts), 2), dtype=np.int64)
    cache: dict[tuple[str, int], int] = {}

    def count(text: str, stop: int) -> int:
        key = (text, stop)
        if key not in cache:
            cache[key] = count_tokens(text[:stop])
        return cache[key]

    for i, (text, span) in enumerate(
        zip(texts, char_spans(texts, terms, spans), strict=True)
    ):
        # A prefix may tokenize apart where the whole text joins ("0000." is two
        # tokens, "0000.0" one): the span stays within the text's own tokens.
        last = max(count(text, len(text)) - 1, 0)
        start = min(_first_token(text, span, count, count_tokens), last)
        # A span that ends inside a word covers that word.
        end = min(max(count(text, span[1]), start + 1), last + 1)
        out[i] = (start + offset, end + offset)
    return out


def _first_token(text: str, span, count, count_tokens) -> int:
    """The index of the token that holds the span's first (non-space) character:
    the token after the prefix when that character starts one, the prefix's last
    token when it continues it ("burger" in "cheeseburger", "50" in "10.50", a
    word of a script written without spaces)."""
    first = span[0]
    while first < span[1] - 1 and text[first].isspace():
        first += 1
    before, through = count(text, first), count(text, first + 1)
    if through > before:
        return through - 1  # the character starts a token
    # The prefix's last token took the character in (and may have merged with
    # what came before it: "10." is two tokens, "10.5" one) -- or the tokenizer
    # dropped the character: a space before it tells them apart.
    split = count_tokens(text[:first] + " " + text[first])
    return through - 1 if split > through else before
