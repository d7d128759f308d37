"""Text processing: tokenization, vocabulary and id encoding.

The pipeline from raw strings to model input is::

    texts --Tokenizer--> token lists --Vocabulary.encode--> EncodedTexts (CSR ids)
          --EncodedTexts.pad(index)--> (B, T) id matrix padded to the batch's longest

Token lists are stored once per corpus in a flat "compressed sparse row" layout (one
id array and an offsets array), so a padded batch is cut out with a few vectorised numpy
operations and no sentence is ever padded to the longest sentence of the whole data set.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

__all__ = [
    "PAD",
    "OOV",
    "Tokenizer",
    "Vocabulary",
    "EncodedTexts",
    "length_sorted_batches",
]

PAD = "<pad>"
OOV = "<unk>"
PAD_ID = 0
OOV_ID = 1

# Apostrophe-like and dash-like characters folded to their ASCII forms before matching.
_FOLD = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "`": "'",
        "\u00b4": "'",
        "\u2013": "-",
        "\u2014": "-",
        "\u00a0": " ",
    }
)

# Alternatives are tried left to right at each position:
#   1. the stem of a negated contraction ("do" in "don't"; "ca" in "can't"),
#   2. the clitic "n't",
#   3. other clitics: 's 're 've 'll 'd 'm,
#   4. numbers with inner separators: 10.50  1,000  10:30,
#   5. words, with inner hyphens or apostrophes kept ("well-done", "o'clock") unless
#      the apostrophe starts a clitic ("chef's" -> "chef", "'s"),
#   6. any other single non-space character (punctuation, symbols, emoji).
# This follows the Penn Treebank conventions that GloVe and word2vec vocabularies use.
_TOKEN_PATTERN = (
    r"[^\W_]+(?=n't\b)"
    r"|n't\b"
    r"|'(?:s|re|ve|ll|d|m)\b"
    r"|\d+(?:[.,:]\d+)+"
    r"|[^\W_]+(?:-[^\W_]+|'(?!(?:s|re|ve|ll|d|m)\b)[^\W_]+)*"
    r"|\S"
)
# Any other language: numbers, words (inner hyphens and apostrophes kept: French
# "aujourd'hui", "l'addition", Italian "dell'acqua"), any other single character.
_UNIVERSAL_PATTERN = r"\d+(?:[.,:]\d+)+|[^\W_]+(?:[-'][^\W_]+)*|\S"
#: Languages whose contractions split off as English clitics (Penn Treebank).
CLITIC_LANGUAGES = frozenset({"en"})
#: Languages with the Turkic dotted and dotless i (I -> ı, İ -> i in lower case).
TURKIC_LANGUAGES = frozenset({"tr", "az"})
# Case-insensitive, so that tokenizing cased text and lower-casing the tokens gives
# the tokens of the lower-cased text ("IT'S" -> "IT", "'S").
_TOKEN_RE = re.compile(_TOKEN_PATTERN, re.IGNORECASE)
_UNIVERSAL_RE = re.compile(_UNIVERSAL_PATTERN, re.IGNORECASE)
#: Tokens longer than this (URLs, base64 blobs, runs of symbols) are cut to this many
#: characters; they are unknown words either way.
MAX_TOKEN_CHARS = 100
#: Characters that format text without being part of a word: zero-width spaces and
#: joiners, direction marks and bidi embeddings/isolates (an RTL review is full of
#: them), the soft hyphen, the Arabic letter mark, variation selectors (emoji or
#: text style), skin-tone modifiers and tag characters. Removed before splitting.
_INVISIBLE_RE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"
    "\ufe00-\ufe0f\ufeff\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f"
    "\U000e0100-\U000e01ef]"
)
#: Scripts written without spaces between words: Chinese (and Japanese kanji),
#: kana, Thai, Lao, Khmer, Myanmar. Without a word segmenter for each, every
#: character (with the marks that follow it) is one token -- the documented
#: fallback; word vectors or a sub-word encoder learn from there.
_NO_SPACE = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0002fa1f"
)


#: The combining marks below U+0590 (where the scripts that need the full pattern
#: begin): the generic combining diacritics and the Cyrillic ones.
_LOW_MARKS = re.compile("[\u0300-\u036f\u0483-\u0489]")


@functools.cache
def _unicode_patterns(pattern: str) -> tuple[re.Pattern, re.Pattern]:
    """The token pattern for text beyond ASCII, in which combining marks (the
    vowel signs of Devanagari, Arabic harakat, Hebrew niqqud, Thai tone marks...)
    belong to the word they mark, and the pattern that isolates each character of
    a script without spaces. Made on first use (reading Unicode's categories)."""
    marks, start, previous = [], None, None
    for code in range(0x300, sys.maxunicode + 1):
        if unicodedata.category(chr(code)).startswith("M"):
            if start is None:
                start = code
            elif code != previous + 1:
                marks.append((start, previous))
                start = code
            previous = code
    marks.append((start, previous))
    mark_class = "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in marks)
    letter = rf"(?:[^\W_]|[{mark_class}])"
    pattern = pattern.replace("[^\\W_]+", letter + "+")
    return (
        re.compile(pattern, re.IGNORECASE),
        re.compile(rf"[{_NO_SPACE}][{mark_class}]*"),
    )


class Tokenizer:
    """Split text into word tokens, Penn-Treebank style.

    Handles punctuation (split off as separate tokens), English contractions
    (``"don't" -> ["do", "n't"]``, ``"it's" -> ["it", "'s"]``, in any case), case
    (optional lower-casing) and unicode (NFKC normalisation, typographic apostrophes and
    dashes folded, zero-width characters removed; letters of any script are word
    characters). Tokens longer than :data:`MAX_TOKEN_CHARS` characters are cut to
    that length, so memory stays linear in the input.

    Parameters
    ----------
    lowercase : bool, default=True
        Lower-case the text before splitting.
    language : str or None, default="en"
        An ISO 639 code. English (``"en"``) splits contractions into Penn Treebank
        clitics, as the English word-vector vocabularies have them; any other
        language keeps a word's inner apostrophes (``"l'addition"``). Turkish and
        Azerbaijani lower-case ``I`` to ``ı`` and ``İ`` to ``i``. ``None``: no
        language's rules.

    Examples
    --------
    >>> Tokenizer()("The pasta wasn't great, but the café's tiramisù was!")
    ['the', 'pasta', 'was', "n't", 'great', ',', 'but', 'the', 'café', "'s", \
'tiramisù', 'was', '!']
    """

    def __init__(self, lowercase: bool = True, language: str | None = "en"):
        self.lowercase = lowercase
        self.language = language

    @property
    def _pattern(self) -> str:
        # (getattr: tokenizers pickled before the language existed are English)
        clitics = getattr(self, "language", "en") in CLITIC_LANGUAGES
        return _TOKEN_PATTERN if clitics else _UNIVERSAL_PATTERN

    def _lower(self, text: str) -> str:
        if getattr(self, "language", "en") in TURKIC_LANGUAGES:
            text = text.replace("I", "ı").replace("İ", "i")
        return text.lower()

    def normalize(self, text: str) -> str:
        """Return ``text`` NFKC-normalised, folded and optionally lower-cased."""
        if text.isascii():  # most text: NFKC and the invisible characters are no-ops
            text = text.replace("`", "'")
            return self._lower(text) if self.lowercase else text
        text = unicodedata.normalize("NFKC", text).translate(_FOLD)
        text = _INVISIBLE_RE.sub("", text)
        if self.lowercase:
            # the dotted capital I lowers to i + a combining dot: to the i it is
            text = self._lower(text).replace("i\u0307", "i")
        return text

    def __call__(self, text: str) -> list[str]:
        text = self.normalize(text)
        pattern = self._pattern
        if text.isascii() or (max(text) < "\u0590" and not _LOW_MARKS.search(text)):
            # ASCII, or Latin, Greek, Cyrillic... without combining marks (the most
            # text beyond ASCII, after NFKC): the plain pattern gives the same
            # tokens as the one below, several times faster
            plain_re = _TOKEN_RE if pattern is _TOKEN_PATTERN else _UNIVERSAL_RE
            tokens = plain_re.findall(text)
        else:
            words, no_space = _unicode_patterns(pattern)
            tokens = words.findall(no_space.sub(r" \g<0> ", text))
        if len(text) > MAX_TOKEN_CHARS and max(map(len, tokens), default=0) > (
            MAX_TOKEN_CHARS
        ):
            tokens = [t[:MAX_TOKEN_CHARS] for t in tokens]
        return tokens

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Tokenize every text, each distinct string only once."""
        cache: dict[str, list[str]] = {}
        out = []
        for text in texts:
            tokens = cache.get(text)
            if tokens is None:
                tokens = cache[text] = self(text)
            out.append(tokens)
        return out

    def __repr__(self) -> str:
        return f"Tokenizer(lowercase={self.lowercase}, language={self.language!r})"


@dataclass
class EncodedTexts:
    """Token ids of many texts in a flat CSR layout.

    Attributes
    ----------
    ids : ndarray of shape (n_tokens_total,), int64
        The ids of all texts, concatenated.
    offsets : ndarray of shape (n_texts + 1,), int64
        Text ``i`` is ``ids[offsets[i]:offsets[i + 1]]``.
    """

    ids: np.ndarray
    offsets: np.ndarray

    @staticmethod
    def offsets_from_lengths(lengths: np.ndarray) -> np.ndarray:
        """(n,) lengths -> (n + 1,) offsets, starting at 0."""
        return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)

    @classmethod
    def from_lists(cls, id_lists: Sequence[Sequence[int]]) -> EncodedTexts:
        """Build from one list of ids per text."""
        lengths = np.fromiter((len(r) for r in id_lists), np.int64, len(id_lists))
        ids = np.fromiter(chain.from_iterable(id_lists), np.int64, int(lengths.sum()))
        return cls(ids, cls.offsets_from_lengths(lengths))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        """Number of tokens per text, shape (n_texts,)."""
        return np.diff(self.offsets)

    @property
    def token_rows(self) -> np.ndarray:
        """The text each id belongs to, shape (n_tokens_total,)."""
        return np.repeat(np.arange(len(self)), self.lengths)

    def pad(self, index: np.ndarray | Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Cut out a batch padded to its own longest text.

        Parameters
        ----------
        index : array-like of int, shape (B,)
            Which texts to take.

        Returns
        -------
        ids : ndarray of shape (B, T), int64
            ``T`` is the longest length in the batch; padding is :data:`PAD_ID`.
        lengths : ndarray of shape (B,), int64
        """
        index = np.asarray(index, dtype=np.int64)
        starts = self.offsets[index]  # (B,)
        lengths = self.offsets[index + 1] - starts  # (B,)
        width = int(lengths.max()) if len(index) else 0
        cols = np.arange(width)  # (T,)
        mask = cols < lengths[:, None]  # (B, T)
        out = np.full((len(index), width), PAD_ID, dtype=np.int64)
        out[mask] = self.ids[(starts[:, None] + cols)[mask]]
        return out, lengths

    def take(self, index: np.ndarray | Sequence[int]) -> EncodedTexts:
        """Return the texts at ``index`` as a new :class:`EncodedTexts`."""
        index = np.asarray(index, dtype=np.int64)
        padded, lengths = self.pad(index)
        mask = np.arange(padded.shape[1]) < lengths[:, None]
        return EncodedTexts(padded[mask], self.offsets_from_lengths(lengths))


def length_sorted_batches(
    lengths: np.ndarray,
    batch_size: int,
    groups: np.ndarray | None = None,
    max_tokens: int | None = None,
) -> list[np.ndarray]:
    """Deterministic batches of similar length (for inference and validation).

    Parameters
    ----------
    lengths : ndarray of shape (n,)
        The length of each row (pair or text).
    batch_size : int
        Rows per batch, at most.
    groups : ndarray of shape (n,), default=None
        The sentence of each pair: pairs of one sentence are adjacent, so they
        mostly share a batch and the sentence is encoded once.
    max_tokens : int, default=None
        Padded tokens per batch, at most (rows times the batch's longest; a row
        longer than this is a batch of its own). A transformer's activations
        grow with them -- (B, T, 4d) in its feed-forward layers -- and stay in
        the cache below a few thousand; None: ``batch_size`` rows whatever their
        length (an LSTM steps through the time axis, and fewer, wider steps pay).

    Returns
    -------
    list of ndarray of int
        Row indices of each batch, longest batch first. The first tensors
        allocated are then the largest, and the allocator (glibc raises its mmap
        threshold to the size of a freed block) serves every later, smaller batch
        from memory it already holds. Shortest first allocates a fresh, larger
        block for almost every batch and pays a page fault per 4 KiB of it -- 10x
        more page faults in ``predict_proba`` (measured).
    """
    lengths = np.asarray(lengths)
    if groups is None:
        order = np.argsort(lengths, kind="stable")
    else:
        order = np.lexsort((groups, lengths))
    if max_tokens is None:
        batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
        return batches[::-1]
    batches, start = [], 0
    sorted_lengths = lengths[order]  # ascending: a batch's longest is its last
    while start < len(order):
        window = sorted_lengths[start : start + batch_size]
        padded = np.arange(1, len(window) + 1) * window  # (w,) increasing
        size = max(1, int(np.searchsorted(padded, max_tokens, side="right")))
        batches.append(order[start : start + size])
        start += size
    return batches[::-1]


class Vocabulary:
    """A word-to-id mapping learned from token lists.

    Id 0 is the padding token :data:`PAD` and id 1 the out-of-vocabulary token
    :data:`OOV`; words follow by decreasing frequency (ties alphabetical), so the
    mapping is deterministic.

    Parameters
    ----------
    min_count : int, default=1
        Words seen fewer times than this map to :data:`OOV`.

    Attributes
    ----------
    words_ : list of str
        ``words_[i]`` is the word of id ``i``.
    index_ : dict of str to int
        The inverse mapping.
    """

    def __init__(self, min_count: int = 1):
        self.min_count = min_count

    def fit(self, token_lists: Iterable[Sequence[str]]) -> Vocabulary:
        counts = Counter(chain.from_iterable(token_lists))
        kept = sorted(
            (
                w
                for w, c in counts.items()
                if c >= self.min_count and w not in (PAD, OOV)
            ),
            key=lambda w: (-counts[w], w),
        )
        self.words_ = [PAD, OOV, *kept]
        self.index_ = {w: i for i, w in enumerate(self.words_)}
        return self

    @classmethod
    def from_words(cls, words, min_count: int = 1) -> Vocabulary:
        """A fitted vocabulary of ``words`` (id = position), e.g. read from a file:
        checked to be distinct strings starting with the padding token."""
        if not (
            isinstance(words, list)
            and 2 <= len(words) <= 10_000_000
            and all(isinstance(w, str) for w in words)
            and words[0] == PAD
            and len(set(words)) == len(words)
        ):
            raise ValueError(
                "the vocabulary must be a list of distinct strings starting with "
                f"{PAD!r}"
            )
        if not (
            isinstance(min_count, int)
            and not isinstance(min_count, bool)
            and min_count >= 1
        ):
            raise ValueError("min_count must be an int >= 1")
        vocabulary = cls(min_count)
        vocabulary.words_ = words
        vocabulary.index_ = {w: i for i, w in enumerate(words)}
        return vocabulary

    def __getstate__(self):
        # Pickles and skops files hold the words, checked again when loaded.
        if not hasattr(self, "words_"):
            return self.__dict__.copy()  # not fitted yet
        return {"min_count": self.min_count, "words": list(self.words_)}

    def __setstate__(self, state):
        if "words" in state:
            state = Vocabulary.from_words(state["words"], state["min_count"]).__dict__
        self.__dict__.update(state)

    def __len__(self) -> int:
        return len(self.words_)

    def extend(self, words: Iterable[str]) -> int:
        """Give ids, after the existing ones, to the ``words`` not yet in the
        vocabulary (in their order); returns how many were added."""
        added = 0
        for word in words:
            if word not in self.index_ and word not in (PAD, OOV):
                self.index_[word] = len(self.words_)
                self.words_.append(word)
                added += 1
        return added

    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        """Map tokens to ids (OOV for unknown words), shape (len(tokens),).

        A hash lookup per token (run in C by ``map``): memory is linear in the
        tokens' total length, whatever the length of the longest token.
        """
        return np.fromiter(
            map(self.index_.get, tokens, repeat(OOV_ID)), np.int64, len(tokens)
        )

    def encode(
        self, token_lists: Sequence[Sequence[str]], max_len: int | None = None
    ) -> EncodedTexts:
        """Encode token lists as :class:`EncodedTexts`, truncated to ``max_len``."""
        if max_len is not None:
            token_lists = [t[:max_len] for t in token_lists]
        lengths = np.fromiter(
            (len(t) for t in token_lists), dtype=np.int64, count=len(token_lists)
        )
        ids = self.lookup(list(chain.from_iterable(token_lists)))
        return EncodedTexts(ids, EncodedTexts.offsets_from_lengths(lengths))

    def __repr__(self) -> str:
        size = len(self.words_) if hasattr(self, "words_") else "unfitted"
        return f"Vocabulary(min_count={self.min_count}, size={size})"
