"""Text pipelines: from ``(text, aspect)`` strings to model input, one object per kind.

:class:`WordPipeline`
    the :class:`~aspectattn.text.Tokenizer`, a :class:`~aspectattn.text.Vocabulary`
    learned in ``fit``, and gensim word vectors for the fitted vocabulary.
:class:`SubwordPipeline`
    a pretrained checkpoint's own sub-word tokenizer.

Both have the same methods, used alike by training, prediction, ``explain`` and the
pooling baselines, so text is never processed two ways::

    pipeline.fit(texts, terms)                  # learn the vocabulary (words only)
    sentences, index = pipeline.encode_pairs(texts, aspects)
    # sentences: EncodedTexts, one row per distinct sentence (per pair when the
    #   aspect is part of the token sequence); index[i]: the row of pair i
    terms = pipeline.encode_terms(aspects)      # EncodedTexts of aspect terms
    spans = pipeline.term_spans(texts, terms, char_spans)  # (P, 2) token spans
    pipeline.tokens(sentences)                  # the tokens as the model saw them

``to_state`` / ``from_state`` give the pipeline as JSON-able data for the safe model
file; ``from_state`` validates everything it reads.
"""

from __future__ import annotations

import numpy as np

from .._fields import _is_int
from ..exceptions import InputError
from . import vectors as _emb
from .languages import LANGUAGE_CODE
from .ngrams import NgramTable, SpellingNeighbours, neighbours_from_state
from .spans import char_spans, spans_from_offsets, token_spans
from .tokens import OOV_ID, EncodedTexts, Tokenizer, Vocabulary

__all__ = ["WordPipeline", "SubwordPipeline", "pipeline_from_state"]


def distinct_index(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """(distinct texts in first-seen order, index of each text among them)."""
    position: dict[str, int] = {}
    index = np.fromiter(
        (position.setdefault(t, len(position)) for t in texts), np.int64, len(texts)
    )
    return list(position), index


class _Pipeline:
    #: The aspect is part of the token sequence: every pair is its own row.
    aspect_in_tokens = False

    def encode_pairs(
        self, texts: list[str], aspects: list[str] | None = None
    ) -> tuple[EncodedTexts, np.ndarray]:
        """Each distinct sentence encoded once, and the row of every pair."""
        if self.aspect_in_tokens:
            return self.encode(texts, aspects), np.arange(len(texts), dtype=np.int64)
        distinct, index = distinct_index(texts)
        return self.encode(distinct), index

    def term_spans(self, texts, terms, spans=None) -> np.ndarray:
        """(P, 2) int64 token span ``[start, end)`` of each pair's term in the
        model's token sequence, from character spans (``None`` entries, or
        ``spans=None``: found in the text); see :mod:`aspectattn.text.spans`."""
        return token_spans(texts, terms, spans, self.count_tokens, self.span_offset)


class WordPipeline(_Pipeline):
    """Word tokens, a vocabulary and word vectors.

    ``unseen``, set by :meth:`word_vectors`: how a word the vocabulary lacks is
    read -- as the vocabulary word nearest to it by character n-grams, if any is
    near enough (see :mod:`aspectattn.text.ngrams`), or, when None, as the
    unknown token.

    Parameters
    ----------
    lowercase : bool
    min_count : int
        Words seen fewer times in ``fit`` map to the unknown token.
    max_len : int or None
        Sentences are cut to their first ``max_len`` tokens.
    language : str or None
        The tokenizer's language (:class:`~aspectattn.text.tokens.Tokenizer`).
    """

    kind = "words"
    span_offset = 0

    def __init__(
        self,
        lowercase: bool = True,
        min_count: int = 1,
        max_len: int | None = None,
        language: str | None = "en",
    ):
        self.tokenizer = Tokenizer(lowercase=lowercase, language=language)
        self.vocabulary = Vocabulary(min_count=min_count)
        self.max_len = max_len
        self.unseen: SpellingNeighbours | NgramTable | None = None

    # -- fit ----------------------------------------------------------------------
    def fit(self, texts: list[str], terms: list[str] = ()) -> WordPipeline:
        """Learn the vocabulary from the texts (and aspect terms, if any)."""
        token_lists = self.tokenize(texts)
        self.vocabulary.fit(token_lists + self.tokenizer.tokenize_many(terms))
        self.unseen = None
        return self

    def word_vectors(
        self,
        embeddings,
        embedding_dim: int | None,
        texts: list[str],
        seed: int,
        rng: np.random.Generator,
        extra_words: int = 0,
        unseen_words: str | None = None,
        *,
        passes: int,
    ) -> tuple[np.ndarray, np.ndarray, object, int]:
        """Vectors for the fitted vocabulary (rows as its ids).

        ``extra_words``: the vocabulary first takes in the words among the first
        ``extra_words`` of pretrained vectors loaded from a file or name (their most
        frequent words) that it lacks, so that they are not unknown at prediction.
        ``unseen_words``: how words the vocabulary lacks are read from now on
        (``"spelling"``, ``"vectors"`` -- fastText vectors' n-grams -- or None).
        ``passes``: over ``texts``, where the vectors are trained.

        Returns
        -------
        matrix : (n_words, dim) float32
        found : (n_words,) bool -- rows that hold a pretrained vector
        vectors : the loaded or trained word vectors (do not keep them)
        dim : int
        """
        vectors, dim = _emb.resolve_word_vectors(
            embeddings, embedding_dim, self.tokenize(texts), seed, passes=passes
        )
        n_text_words = len(self.vocabulary)
        if extra_words and vectors is not None and embeddings not in _emb.TRAINABLE:
            words = vectors.index_to_key[:extra_words]
            if self.tokenizer.lowercase:  # its tokens are never upper-case
                words = [w for w in words if w == w.lower()]
            self.vocabulary.extend(words)
        # the added words have vectors: the random draws stay those of the text's
        matrix, found = _emb.build_embedding_matrix(
            self.vocabulary.words_, vectors, dim, rng, n_drawn=n_text_words
        )
        if unseen_words == SpellingNeighbours.kind:
            self.unseen = SpellingNeighbours()
        elif unseen_words == NgramTable.kind:
            self.unseen = NgramTable.from_vectors(vectors, self.vocabulary.words_[2:])
            if self.unseen is None:
                raise ValueError(
                    f"unseen_words='vectors' reads unseen words through fastText's "
                    f"character n-gram vectors; embeddings={embeddings!r} has none. "
                    "Use embeddings='fasttext' or a fastText .bin file, or "
                    "unseen_words='spelling'."
                )
        return matrix, found, vectors, dim

    # -- encode -------------------------------------------------------------------
    def tokenize(self, texts, cased: bool = False) -> list[list[str]]:
        """Token lists (cut to ``max_len``); ``cased=True`` keeps the case (the
        lower-cased tokens are those of the lower-cased text)."""
        tokenizer = self.tokenizer
        if cased:
            tokenizer = Tokenizer(lowercase=False, language=tokenizer.language)
        lists = tokenizer.tokenize_many(texts)
        for i, tokens in enumerate(lists):
            if not tokens:
                raise InputError(
                    f"The text of pair {i} ({texts[i]!r}) has no tokens; "
                    "every text needs at least one word or symbol."
                )
        if self.max_len is not None:
            lists = [t[: self.max_len] for t in lists]
        return lists

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` has (not cut to ``max_len``)."""
        return len(self.tokenizer(text))

    def lookup_tokens(self, cased: list[list[str]]) -> list[list[str]]:
        """Cased token lists as the vocabulary spells them."""
        if not self.tokenizer.lowercase:
            return cased
        return [[w.lower() for w in tokens] for tokens in cased]

    def encode(self, texts, aspects=None) -> EncodedTexts:
        return self._encode_lists(self.tokenize(texts))

    def _encode_lists(self, token_lists: list[list[str]]) -> EncodedTexts:
        """Word ids; the words the vocabulary lacks read through ``unseen``."""
        encoded = self.vocabulary.encode(token_lists)
        unknown = np.flatnonzero(encoded.ids == OOV_ID)
        if self.unseen is None or not len(unknown):
            return encoded
        tokens = [t for tokens in token_lists for t in tokens]
        words, where = distinct_index([tokens[i] for i in unknown])
        ids = self.unseen.nearest(words, self.vocabulary.words_)  # (U,)
        encoded.ids[unknown] = ids[where]
        return encoded

    def encode_terms(self, terms) -> EncodedTexts:
        """Word ids of aspect terms; a term with no token is an error."""
        lists = self.tokenizer.tokenize_many(terms)
        for i, tokens in enumerate(lists):
            if not tokens:
                raise InputError(
                    f"The aspect term of pair {i} ({terms[i]!r}) has no tokens; "
                    "an aspect term needs at least one word."
                )
        return self._encode_lists(lists)

    def tokens(self, encoded: EncodedTexts, texts: list[str]) -> list[list[str]]:
        """The tokens of ``texts`` (the texts ``encoded`` was made from)."""
        return self.tokenize(texts)

    # -- state --------------------------------------------------------------------
    def to_state(self) -> dict:
        return {
            "kind": self.kind,
            "lowercase": self.tokenizer.lowercase,
            "language": self.tokenizer.language,
            "min_count": self.vocabulary.min_count,
            "max_len": self.max_len,
            "words": list(self.vocabulary.words_),
            "unseen": None if self.unseen is None else self.unseen.to_state(),
        }

    def __getstate__(self):
        # Pickles and skops files hold the checked data form, not the objects.
        if not hasattr(self.vocabulary, "words_"):
            return self.__dict__.copy()  # not fitted yet
        return self.to_state()

    def __setstate__(self, state):
        if state.get("kind") == self.kind:  # the data form: checked
            state = WordPipeline.from_state(state).__dict__
        self.__dict__.update(state)

    @classmethod
    def from_state(cls, state: dict) -> WordPipeline:
        keys = {"kind", "lowercase", "min_count", "max_len", "words"}
        # files from before the tokenizer had a language were English; files from
        # before unseen words were read read them as the unknown token
        if isinstance(state, dict):
            state = {"language": "en", "unseen": None, **state}
        _check_keys(state, keys | {"language", "unseen"})
        language = state["language"]
        if language is not None and not (
            isinstance(language, str) and LANGUAGE_CODE.fullmatch(language)
        ):
            raise ValueError("language must be an ISO 639 code or null")
        vocabulary = Vocabulary.from_words(state["words"], state["min_count"])
        if not isinstance(state["lowercase"], bool):
            raise ValueError("lowercase must be true or false")
        if state["max_len"] is not None and not _is_int(state["max_len"], 1):
            raise ValueError("max_len must be an int >= 1 or null")
        pipeline = cls(
            state["lowercase"], state["min_count"], state["max_len"], language
        )
        pipeline.vocabulary = vocabulary
        if state["unseen"] is not None:
            pipeline.unseen = neighbours_from_state(state["unseen"])
        return pipeline


class SubwordPipeline(_Pipeline):
    """The sub-word tokenizer of a pretrained checkpoint.

    Parameters
    ----------
    tokenizer : aspectattn.text.subwords.SubwordTokenizer
    max_len : int
        Sequences (with special tokens) are cut to ``max_len`` sub-words.
    pair_input : bool
        Feed the aspect as a second segment: ``[CLS] text [SEP] aspect [SEP]``.
    """

    kind = "subwords"

    def __init__(self, tokenizer, max_len: int, pair_input: bool = False):
        self.tokenizer = tokenizer
        self.max_len = max_len
        self.aspect_in_tokens = pair_input

    @classmethod
    def from_tokenizer_files(cls, files: dict, max_len: int, pair_input: bool):
        """The pipeline of a checkpoint's tokenizer files (see
        :func:`aspectattn.nn.encoders.pretrained.read_checkpoint_dir`)."""
        from .subwords import SubwordTokenizer

        return cls(SubwordTokenizer(files), max_len, pair_input)

    def fit(self, texts, terms=()) -> SubwordPipeline:
        return self  # the checkpoint's vocabulary is fixed

    def encode(self, texts, aspects=None) -> EncodedTexts:
        return self.tokenizer.encode(
            texts, self.max_len, aspects if self.aspect_in_tokens else None
        )

    def encode_terms(self, terms) -> EncodedTexts:
        return self.tokenizer.encode_terms(terms)

    def count_tokens(self, text: str) -> int:
        return self.tokenizer.count(text)

    def term_spans(self, texts, terms, spans=None) -> np.ndarray:
        """As for words, but located by the sub-words' character offsets (see
        :mod:`aspectattn.text.spans`)."""
        found = char_spans(texts, terms, spans)
        distinct, index = distinct_index(texts)
        offsets = self.tokenizer.offsets(distinct, self.max_len)
        return spans_from_offsets(found, [offsets[k] for k in index])

    @property
    def span_offset(self) -> int:
        return self.tokenizer.leading_specials

    def tokens(self, encoded: EncodedTexts, texts=None) -> list[list[str]]:
        offsets = encoded.offsets
        return [
            self.tokenizer.tokens(encoded.ids[lo:hi])
            for lo, hi in zip(offsets[:-1], offsets[1:], strict=True)
        ]

    def to_state(self) -> dict:
        return {
            "kind": self.kind,
            "max_len": self.max_len,
            "pair_input": self.aspect_in_tokens,
            "files": dict(self.tokenizer.files),
        }

    @classmethod
    def from_state(cls, state: dict) -> SubwordPipeline:
        from .subwords import SubwordTokenizer, check_tokenizer_files

        _check_keys(state, {"kind", "max_len", "pair_input", "files"})
        if not _is_int(state["max_len"], 1):
            raise ValueError("max_len must be an int >= 1")
        if not isinstance(state["pair_input"], bool):
            raise ValueError("pair_input must be true or false")
        files = check_tokenizer_files(state["files"])
        return cls(SubwordTokenizer(files), state["max_len"], state["pair_input"])


def _check_keys(state, keys: set) -> None:
    if not isinstance(state, dict) or set(state) != keys:
        raise ValueError(
            f"the text pipeline must be an object with keys {sorted(keys)}"
        )


def pipeline_from_state(state) -> WordPipeline | SubwordPipeline:
    """Rebuild a pipeline from :meth:`to_state` data read from a file (validated)."""
    kinds = {WordPipeline.kind: WordPipeline, SubwordPipeline.kind: SubwordPipeline}
    if not isinstance(state, dict) or state.get("kind") not in kinds:
        raise ValueError(f"the text pipeline must be one of the kinds {sorted(kinds)}")
    return kinds[state["kind"]].from_state(state)
