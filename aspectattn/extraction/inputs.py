"""What each encoder reads of a text: token ids, the tokens' character spans in
the text, and (for words) their characters.

- :class:`WordInputs` (the LSTM): words found in the text itself
  (:func:`~aspectattn.extraction.words.word_offsets`), a vocabulary, and each
  word's characters as written;
- :class:`SubwordInputs` (a pretrained checkpoint): its own sub-word tokenizer,
  whose tokens carry their character spans; special tokens span ``(0, 0)`` and
  are never tagged.

Both give :class:`Encoded`; the extractor tags the tokens with a span
(``end > start``) and reads every term back from their character spans.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..text.tokens import EncodedTexts, Tokenizer, Vocabulary
from .words import character_ids, character_table, words_and_offsets

__all__ = ["Encoded", "WordInputs", "SubwordInputs", "MAX_TOKENS"]

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
    chars : ndarray of shape (n_tokens, W) int64
        Each token's character ids (one zero column where none are read).
    offsets : list of ndarray of shape (n_tokens_i, 2) int64
        Each text's tokens' character spans; ``(0, 0)`` for special tokens.
    """

    ids: EncodedTexts
    chars: np.ndarray
    offsets: list

    def taggable(self) -> np.ndarray:
        """(n_tokens,) bool, text after text: the tokens that hold text."""
        if not self.offsets:
            return np.zeros(0, dtype=bool)
        spans = np.concatenate([o.reshape(-1, 2) for o in self.offsets])
        return spans[:, 1] > spans[:, 0]


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
        words, offsets = words_and_offsets(texts, self.tokenizer)
        offsets = [_as_array(o[:MAX_TOKENS]) for o in offsets]
        ids = self.vocabulary.encode([w[:MAX_TOKENS] for w in words])
        cased = [
            text[s:e] for text, o in zip(texts, offsets, strict=True) for s, e in o
        ]
        if self.characters is None:
            chars = np.zeros((len(cased), 1), dtype=np.int64)
        else:
            chars = character_ids(cased, self.characters)
        return Encoded(ids, chars, offsets)


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
        chars = np.zeros((len(ids.ids), 1), dtype=np.int64)
        return Encoded(ids, chars, offsets)
