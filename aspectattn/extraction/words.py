"""Words with their character offsets, term spans as word tags, and tags back
to spans.

An extractor tags words, so every span it gives starts and ends on a word's
first and last character in the text as given (not a normalised copy): the
words are found in the text itself with the tokenizer's own pattern, after a
folding of typographic apostrophes and dashes that keeps every offset.

Tags are ``O`` (0, outside any term), ``B`` (1, a term's first word) and ``I``
(2, a term's later word). Decoding never gives an invalid span: an ``I`` that
follows an ``O`` (or starts the sentence) begins a term, as a ``B`` would.
"""

from __future__ import annotations

import numpy as np

from ..text.tokens import (
    _FOLD,
    _INVISIBLE_RE,
    _LOW_MARKS,
    _TOKEN_PATTERN,
    _TOKEN_RE,
    _UNIVERSAL_PATTERN,
    _UNIVERSAL_RE,
    CLITIC_LANGUAGES,
    MAX_TOKEN_CHARS,
    Tokenizer,
    _unicode_patterns,
)

__all__ = [
    "O",
    "B",
    "I",
    "TAGS",
    "word_offsets",
    "words_and_offsets",
    "tag_words",
    "decode",
    "DECODINGS",
    "best_tags",
    "tag_marginals",
    "read_proba",
    "character_table",
    "character_ids",
]

O, B, I = 0, 1, 2  # noqa: E741 (the tags' names)
#: The tags' names, by index.
TAGS = ("O", "B", "I")
#: Length-keeping folds (the tokenizer's, and the grave accent as an apostrophe).
_KEEP_LENGTH = {**_FOLD, ord("`"): "'"}


def word_offsets(text: str, language: str | None = "en") -> list[tuple[int, int]]:
    """The ``(start, end)`` character offsets of the words of ``text``, as the
    tokenizer of ``language`` splits them (:class:`~aspectattn.text.tokens.Tokenizer`),
    found in ``text`` itself. Formatting characters (zero-width spaces, direction
    marks) are no words; a script written without spaces gives a word per
    character, as the tokenizer does."""
    folded = text.translate(_KEEP_LENGTH)
    clitics = language in CLITIC_LANGUAGES
    if folded.isascii() or (max(folded) < "\u0590" and not _LOW_MARKS.search(folded)):
        spans = [
            m.span() for m in (_TOKEN_RE if clitics else _UNIVERSAL_RE).finditer(folded)
        ]
    else:
        words, no_space = _unicode_patterns(
            _TOKEN_PATTERN if clitics else _UNIVERSAL_PATTERN
        )
        spans = []
        for match in words.finditer(folded):
            start, end = match.span()
            for piece in no_space.finditer(folded, start, end):
                if piece.start() > start:
                    spans.append((start, piece.start()))
                spans.append(piece.span())
                start = piece.end()
            if start < end:
                spans.append((start, end))
    if not folded.isascii():
        spans = [s for s in spans if _INVISIBLE_RE.sub("", text[s[0] : s[1]])]
    return spans


def words_and_offsets(texts, tokenizer: Tokenizer):
    """Per text, its words as the vocabulary spells them (normalised, cut to
    :data:`~aspectattn.text.tokens.MAX_TOKEN_CHARS`) and their offsets
    (:func:`word_offsets`)."""
    words, offsets = [], []
    for text in texts:
        spans = word_offsets(text, tokenizer.language)
        offsets.append(spans)
        if text.isascii():  # normalising keeps every offset: once for the text
            norm = tokenizer.normalize(text)
            words.append([norm[s:e][:MAX_TOKEN_CHARS] for s, e in spans])
            continue
        words.append(
            [
                tokenizer.normalize(text[s:e])[:MAX_TOKEN_CHARS] or "<unk>"
                for s, e in spans
            ]
        )
    return words, offsets


def tag_words(offsets, spans) -> np.ndarray:
    """(n_tokens,) int64 tags of one sentence's tokens (``offsets``: their
    ``(start, end)`` character spans, a list or an (n, 2) array) for its term
    ``spans`` (``(start, end, ...)``): a token a term overlaps is in it."""
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    tags = np.zeros(len(offsets), dtype=np.int64)
    if not len(offsets):
        return tags
    starts, ends = offsets[:, 0], offsets[:, 1]
    for span in spans:
        inside = np.flatnonzero((starts < span[1]) & (ends > span[0]))
        if len(inside):
            tags[inside] = I
            tags[inside[0]] = B
    return tags


#: How tags are read from their probabilities: ``"greedy"``, each token's most
#: likely tag (an I after an O starts a term); ``"viterbi"``, each sentence's
#: most likely sequence of tags in which every term starts with a B; ``"crf"``,
#: that sequence scored with the tagger's learned tag transitions too (a
#: linear-chain CRF, :class:`~aspectattn.nn.crf.TagTransitions`, which only a
#: tagger trained with them has).
DECODINGS = ("greedy", "viterbi", "crf")

#: Viterbi's steps without learned scores: the start scores (K,) and the pair
#: scores (K, K) (row: the previous tag), -inf for the banned ones (an I first,
#: an I after an O).
CONSTRAINED = (
    np.array([0.0, 0.0, -np.inf]),
    np.array([[0.0, 0.0, -np.inf], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
)


def best_tags(
    proba: np.ndarray, lengths: np.ndarray, decoding: str, transitions=None
) -> np.ndarray:
    """The tags of a batch of sentences, read from their probabilities.

    Parameters
    ----------
    proba : ndarray of shape (n_tokens, 3)
        The tags' probabilities of every sentence's tokens, one sentence after
        the other, in the order of :data:`TAGS`.
    lengths : ndarray of shape (n_sentences,) int
        Tokens per sentence.
    decoding : {"greedy", "viterbi", "crf"}
        See :data:`DECODINGS`. Viterbi's search runs over the batch's
        sentences at once, one step per token position.
    transitions : (ndarray (3,), ndarray (3, 3)), default=None
        With ``"crf"``: the learned start and pair scores
        (:meth:`~aspectattn.nn.crf.TagTransitions.scores`), added to the
        tokens' log-probabilities; the banned steps stay banned whatever they
        score. (A token's log-probability differs from its
        CRF score by a constant per token, which moves no sequence's rank.)

    Returns
    -------
    ndarray of shape (n_tokens,) int64
    """
    if decoding == "greedy":
        return proba.argmax(-1)
    if not len(proba):
        return np.zeros(0, dtype=np.int64)
    if decoding == "crf":
        start, pairs = _crf_scores(transitions)
    else:
        start, pairs = CONSTRAINED
    logp, real = _padded_log_proba(proba, lengths)  # (S, T, 3), (S, T)
    n_rows, width = real.shape
    rows = np.arange(n_rows)
    score = logp[:, 0] + start  # (S, 3): the best path's score to each tag
    back = np.zeros((n_rows, width, 3), dtype=np.int64)  # each step's best previous
    for t in range(1, width):
        paths = score[:, :, None] + pairs  # (S, 3, 3): previous tag, this tag
        previous = paths.argmax(1)  # (S, 3) (ties: the first tag, O before B)
        new = np.take_along_axis(paths, previous[:, None, :], 1)[:, 0] + logp[:, t]
        back[:, t] = previous
        score = np.where(real[:, t, None], new, score)  # ended sentences keep theirs
    tags = np.zeros((n_rows, width), dtype=np.int64)
    tag = score.argmax(1)  # (S,)
    for t in range(width - 1, -1, -1):
        live = real[:, t]
        tags[live, t] = tag[live]
        if t:
            tag = np.where(live, back[rows, t, tag], tag)
    return tags[real]


def _padded_log_proba(proba: np.ndarray, lengths) -> tuple[np.ndarray, np.ndarray]:
    """The tokens' log-probabilities (n_tokens, 3) laid out by sentence,
    (S, T, 3) padded with 0, and which places are tokens (S, T)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    width = int(lengths.max())
    real = np.arange(width)[None, :] < lengths[:, None]  # (S, T)
    logp = np.zeros((len(lengths), width, 3))
    logp[real] = np.log(np.clip(proba, 1e-12, 1.0))
    return logp, real


def read_proba(proba: np.ndarray, lengths, decoding: str, transitions) -> np.ndarray:
    """The tokens' tag probabilities (n_tokens, 3) as ``decoding`` reads them:
    read as a CRF, their marginals under its transitions
    (:func:`tag_marginals`); else ``proba`` itself."""
    if decoding == "crf":
        return tag_marginals(proba, lengths, transitions)
    return proba


def _crf_scores(transitions) -> tuple[np.ndarray, np.ndarray]:
    """A CRF's learned start (3,) and pair (3, 3) scores with the banned steps
    banned (-inf)."""
    if transitions is None:
        raise ValueError("decoding='crf' needs the tagger's learned transitions")
    learned = (np.asarray(a, dtype=np.float64) for a in transitions)
    return tuple(a + b for a, b in zip(learned, CONSTRAINED, strict=True))


def logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    """``log(sum(exp(x)))`` along ``axis``, without overflow; -inf where every
    term is (numpy alone: the ONNX runtime reads tags without scipy)."""
    top = x.max(axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - top).sum(axis=axis)) + np.squeeze(top, axis)


def tag_marginals(proba: np.ndarray, lengths: np.ndarray, transitions) -> np.ndarray:
    """Each token's tag probabilities under a CRF: the share of the sentence's
    tag sequences, weighted by their probability, that give the token each tag
    (the forward-backward algorithm, over the batch's sentences at once, one
    step per token position). What a CRF's span scores read: its tag scores
    alone do not say how likely a token is to be in a term.

    Parameters
    ----------
    proba : ndarray of shape (n_tokens, 3)
        The tags' probabilities from the tagger's scores alone, sentence after
        sentence (as :func:`best_tags` reads them).
    lengths : ndarray of shape (n_sentences,) int
    transitions : (ndarray (3,), ndarray (3, 3))
        The learned start and pair scores (see :func:`best_tags`).

    Returns
    -------
    ndarray of shape (n_tokens, 3)
        Rows that sum to 1; 0 for a tag no valid sequence gives the token.
    """
    start, pairs = _crf_scores(transitions)
    if not len(proba):
        return np.zeros((0, 3))
    logp, real = _padded_log_proba(proba, lengths)  # (S, T, 3), (S, T)
    n_rows, width = real.shape
    lengths = real.sum(1)  # (S,)
    forward = np.zeros((n_rows, width, 3))  # log-scores of the sequences to here
    forward[:, 0] = start + logp[:, 0]
    for t in range(1, width):
        forward[:, t] = logsumexp(forward[:, t - 1, :, None] + pairs, axis=1)
        forward[:, t] += logp[:, t]
    backward = np.zeros((n_rows, width, 3))  # ... and from here to the end
    for t in range(width - 2, -1, -1):
        after = logsumexp(
            pairs + (logp[:, t + 1] + backward[:, t + 1])[:, None], axis=2
        )
        backward[:, t] = np.where(real[:, t + 1, None], after, 0.0)
    last = forward[np.arange(n_rows), np.maximum(lengths - 1, 0)]  # (S, 3)
    total = logsumexp(last, axis=1)  # (S,)
    return np.exp(forward + backward - total[:, None, None])[real]


def decode(tags: np.ndarray, inside: np.ndarray, lengths: np.ndarray):
    """Word spans of a batch of tagged sentences, without a loop over words.

    Parameters
    ----------
    tags : ndarray of shape (n_words,) int
        The tags of every sentence's words, one after the other.
    inside : ndarray of shape (n_words,) float
        Each word's probability of being in a term (``1 - P(O)``).
    lengths : ndarray of shape (n_sentences,) int
        Words per sentence.

    Returns
    -------
    sentence : (n_spans,) int -- the sentence of each span
    first, last : (n_spans,) int -- its first and last word, within the sentence
    score : (n_spans,) float -- the mean of ``inside`` over its words
    """
    n = len(tags)
    begins = np.zeros(n, dtype=bool)  # a sentence's first word
    begins[np.cumsum(lengths)[:-1]] = True
    if n:
        begins[0] = True
    term = tags != O
    previous_out = np.r_[True, ~term[:-1]] | begins
    start = term & ((tags == B) | previous_out)
    next_continues = np.r_[tags[1:] == I, False] & ~np.r_[begins[1:], True]
    end = term & ~next_continues
    first, last = np.flatnonzero(start), np.flatnonzero(end)
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    total = np.r_[0.0, np.cumsum(inside, dtype=np.float64)]
    score = (total[last + 1] - total[first]) / (last - first + 1)
    offset = np.r_[0, np.cumsum(lengths)[:-1]]
    row = sentence[first]
    return row, first - offset[row], last - offset[row], score


#: Characters read per word (its first ones) by the tagger's character features.
MAX_WORD_CHARS = 20


def _codes(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The code points of the words' first :data:`MAX_WORD_CHARS` characters,
    one after the other, and how many each word has."""
    cut = [w[:MAX_WORD_CHARS] for w in words]
    lengths = np.fromiter(map(len, cut), np.int64, len(cut))
    codes = np.frombuffer("".join(cut).encode("utf-32-le"), dtype=np.uint32)
    return codes, lengths


def character_table(words: list[str]) -> np.ndarray:
    """The sorted distinct code points of the words' characters: character
    ``table[k]`` has id ``k + 2`` (0 pads, 1 is any character not in it)."""
    return np.unique(_codes(words)[0])


def character_ids(words: list[str], table: np.ndarray) -> np.ndarray:
    """(n_words, W) int64 character ids of each word (:func:`character_table`),
    W the longest word's characters (at most :data:`MAX_WORD_CHARS`), padded
    with 0."""
    codes, lengths = _codes(words)
    where = np.searchsorted(table, codes)
    known = where < len(table)
    known[known] = table[where[known]] == codes[known]
    ids = np.where(known, where + 2, 1)
    width = int(lengths.max()) if len(lengths) else 0
    out = np.zeros((len(words), width), dtype=np.int64)
    mask = np.arange(width)[None, :] < lengths[:, None]  # (n, W)
    out[mask] = ids
    return out
