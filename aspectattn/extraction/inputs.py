"""What each encoder reads of a text: token ids, the tokens' character spans in
the text, and (for words) their characters.

- :class:`WordInputs` (the LSTM): words found in the text itself
  (:func:`~aspectattn.extraction.words.word_offsets`), a vocabulary, and each
  word's characters as written;
- :class:`SubwordInputs` (a pretrained checkpoint): its own sub-word tokenizer,
  whose tokens carry their character spans; special tokens span ``(0, 0)`` and
  are never tagged.

Both give :class:`Encoded`; the extractor tags the tokens with a span
(``end > start``) and reads every term back from their character spans. Both
are written to a model file or an ONNX export as plain data (``to_state`` /
:func:`inputs_from_state`, every field checked). numpy only: the torch-free
runtime reads texts with them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._fields import _is_int
from ..text.tokens import EncodedTexts, Tokenizer, Vocabulary
from .words import MAX_WORD_CHARS, character_ids, character_table, words_and_offsets

__all__ = [
    "Encoded",
    "WordInputs",
    "SubwordInputs",
    "MAX_TOKENS",
    "inputs_from_state",
    "token_rows",
    "batch_characters",
    "padded_batch",
]

#: Tokens read per text; a term after them is not found (split long reviews into
#: sentences first: :func:`aspectattn.reviews.split_sentences`).
MAX_TOKENS = 512


@dataclass
class Encoded:
    """Texts as an encoder reads them.

    Attributes
    ----------
    ids : EncodedTexts
        Token ids, text after text.
    forms : ndarray of shape (n_tokens,) int64
        Each token's written form: its row in ``chars`` (0: no characters read).
    chars : ndarray of shape (n_forms, W) int64
        The character ids of each distinct written form (row 0: none, all 0):
        a word's characters are read once however often it occurs.
    offsets : list of ndarray of shape (n_tokens_i, 2) int64
        Each text's tokens' character spans; ``(0, 0)`` for special tokens.
    """

    ids: EncodedTexts
    forms: np.ndarray
    chars: np.ndarray
    offsets: list

    def taggable(self) -> np.ndarray:
        """(n_tokens,) bool, text after text: the tokens that hold text."""
        if not self.offsets:
            return np.zeros(0, dtype=bool)
        spans = np.concatenate([o.reshape(-1, 2) for o in self.offsets])
        return spans[:, 1] > spans[:, 0]


def token_rows(words: EncodedTexts, index) -> np.ndarray:
    """The rows of the tokens of the texts at ``index`` in the flat token arrays,
    text after text."""
    index = np.asarray(index, dtype=np.int64)
    starts, lengths = words.offsets[index], words.lengths[index]
    cols = np.arange(int(lengths.max(initial=0)))
    return (starts[:, None] + cols)[cols < lengths[:, None]]


def batch_characters(
    lengths: np.ndarray, forms: np.ndarray, chars: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A batch's characters, each written form once: ``chars`` (U, W) int64, the
    character ids of the batch's distinct forms (row 0 all 0 where the batch has
    padding), and ``index`` (B, T) int64, each token's row in it. ``forms``
    (n_tokens,): the rows in ``chars`` (an :class:`Encoded`'s table) of the
    batch's texts' tokens, text after text; ``lengths`` (B,) their tokens; T the
    longest text, W the longest form (at least 1)."""
    real = np.arange(int(lengths.max(initial=0)))[None, :] < lengths[:, None]
    padded = np.zeros(real.shape, dtype=np.int64)  # (B, T): 0 is no characters
    padded[real] = forms
    used, index = np.unique(padded, return_inverse=True)
    table = chars[used]  # (U, W')
    width = max(int((table > 0).sum(1).max(initial=1)), 1)
    return table[:, :width], index.reshape(real.shape)


def padded_batch(encoded: Encoded, index) -> tuple[np.ndarray, ...]:
    """The texts at ``index`` of ``encoded`` as a model reads them: token ids
    (B, T) padded to the longest, lengths (B,), and the batch's characters
    (:func:`batch_characters`: (U, W) and (B, T))."""
    ids, lengths = encoded.ids.pad(index)
    forms = encoded.forms[token_rows(encoded.ids, index)]
    chars, char_index = batch_characters(lengths, forms, encoded.chars)
    return ids, lengths, chars, char_index


def _without_characters(ids: EncodedTexts, offsets: list) -> Encoded:
    forms = np.zeros(len(ids.ids), dtype=np.int64)
    return Encoded(ids, forms, np.zeros((1, 1), dtype=np.int64), offsets)


def _as_array(spans) -> np.ndarray:
    return np.asarray(spans, dtype=np.int64).reshape(-1, 2)


class WordInputs:
    """Words, their vocabulary ids and their characters (the LSTM's inputs).

    Parameters
    ----------
    tokenizer : Tokenizer
    vocabulary : Vocabulary
        Fitted.
    characters : ndarray of code points or None
        :func:`~aspectattn.extraction.words.character_table` of the fitting
        words; None reads no characters.
    """

    def __init__(self, tokenizer: Tokenizer, vocabulary, characters):
        self.tokenizer = tokenizer
        self.vocabulary = vocabulary
        self.characters = characters

    @classmethod
    def fit(cls, texts, tokenizer: Tokenizer, characters: bool):
        """The inputs of ``texts``, and their words as looked up (for word
        vectors)."""
        words, offsets = words_and_offsets(texts, tokenizer)
        words = [w[:MAX_TOKENS] for w in words]
        cased = [
            text[s:e]
            for text, spans in zip(texts, offsets, strict=True)
            for s, e in spans[:MAX_TOKENS]
        ]
        table = character_table(cased) if characters else None
        return cls(tokenizer, Vocabulary().fit(words), table), words

    def encode(self, texts) -> Encoded:
        words, spans = words_and_offsets(texts, self.tokenizer)
        spans = [o[:MAX_TOKENS] for o in spans]  # (lists of tuples: fast to read)
        offsets = [_as_array(o) for o in spans]
        ids = self.vocabulary.encode([w[:MAX_TOKENS] for w in words])
        if self.characters is None:
            return _without_characters(ids, offsets)
        cut = MAX_WORD_CHARS  # (what is read of a word: its forms' key too)
        cased = [
            text[s:e][:cut] for text, o in zip(texts, spans, strict=True) for s, e in o
        ]
        written, forms = np.unique(
            np.array(cased, dtype=f"<U{cut}"), return_inverse=True
        )
        chars = character_ids(["", *written.tolist()], self.characters)
        chars = chars if chars.shape[1] else np.zeros((len(chars), 1), np.int64)
        return Encoded(ids, forms.reshape(-1).astype(np.int64) + 1, chars, offsets)

    def to_state(self) -> dict:
        """The vocabulary and character table as JSON-able data (the tokenizer's
        settings are the estimator's)."""
        table = self.characters
        return {
            "kind": "words",
            "words": list(self.vocabulary.words_),
            "characters": None if table is None else table.tolist(),
        }

    @classmethod
    def from_state(cls, state: dict, tokenizer: Tokenizer) -> WordInputs:
        """:meth:`to_state`'s data read back, each field checked (``ValueError``
        otherwise)."""
        if set(state) != {"kind", "words", "characters"}:
            raise ValueError("the words' inputs are kind, words and characters")
        vocabulary = Vocabulary.from_words(state["words"])
        characters = state["characters"]
        if characters is not None:
            if not (
                isinstance(characters, list)
                and len(characters) <= 1_114_112
                and all(_is_int(c, 0, 0x10FFFF) for c in characters)
            ):
                raise ValueError("characters must be a list of code points")
            characters = np.array(characters, dtype=np.uint32)
            if np.any(np.diff(characters.astype(np.int64)) <= 0):
                raise ValueError("characters must be sorted code points, each once")
        return cls(tokenizer, vocabulary, characters)

    @property
    def n_characters(self) -> int:
        """Character ids the tagger embeds (0 pads, 1 is any other character;
        0 when no characters are read)."""
        return 0 if self.characters is None else len(self.characters) + 2


class SubwordInputs:
    """A pretrained checkpoint's sub-words and their character spans.

    Parameters
    ----------
    tokenizer : SubwordTokenizer
    """

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def encode(self, texts) -> Encoded:
        texts = list(texts)
        ids = self.tokenizer.encode(texts, MAX_TOKENS)
        offsets = [_as_array(o) for o in self.tokenizer.offsets(texts, MAX_TOKENS)]
        return _without_characters(ids, offsets)

    n_characters = 0

    def to_state(self) -> dict:
        """The tokenizer's files as JSON-able data."""
        return {"kind": "subwords", "tokenizer_files": self.tokenizer.files}

    @classmethod
    def from_state(cls, state: dict) -> SubwordInputs:
        """:meth:`to_state`'s data read back, the files checked."""
        from ..text.subwords import SubwordTokenizer, check_tokenizer_files

        if set(state) != {"kind", "tokenizer_files"}:
            raise ValueError("the sub-words' inputs are kind and tokenizer_files")
        return cls(SubwordTokenizer(check_tokenizer_files(state["tokenizer_files"])))


def inputs_from_state(state, *, lowercase: bool, language: str | None):
    """:class:`WordInputs` or :class:`SubwordInputs` from their ``to_state``
    data (a model file's, an export's), with the tokenizer settings of words
    (``lowercase``, ``language``); ``ValueError`` for anything else."""
    if not isinstance(state, dict) or state.get("kind") not in ("words", "subwords"):
        raise ValueError("inputs must be the words' or the sub-words'")
    if state["kind"] == "subwords":
        return SubwordInputs.from_state(state)
    tokenizer = Tokenizer(lowercase=lowercase, language=language)
    return WordInputs.from_state(state, tokenizer)
