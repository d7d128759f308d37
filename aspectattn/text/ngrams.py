"""Words no training text had, read through their character n-grams (torch- and
gensim-free).

A word first met at prediction -- in Russian or Turkish most inflections are --
would be the unknown token. With ``unseen_words`` set, the text pipeline reads it
as the vocabulary word nearest to it by character n-grams (``"<word>"``'s 3- to
6-grams, as fastText cuts them), when one is near enough, so it gets that word's
fine-tuned embedding (the model, its ONNX export and the torch-free runtime all
see ids): Russian ``креветкой`` -> ``креветки``, Turkish ``harikadır`` ->
``harika``. Two ways to compare words:

:class:`SpellingNeighbours` (``"spelling"``)
    the words' n-gram sets, each n-gram weighted by its rarity among the
    vocabulary's words (tf-idf, cosine >= :data:`MIN_SPELLING`); needs nothing but
    the vocabulary, so it works with any word vectors.
:class:`NgramTable` (``"vectors"``)
    fastText's own: the mean of a word's n-gram vectors (Bojanowski et al. 2017),
    from vectors trained with ``embeddings="fasttext"`` or a fastText ``.bin``,
    compared by cosine after the vocabulary's mean vector is taken away (>=
    :data:`MIN_VECTORS`). The fitted model keeps the n-gram rows its vocabulary
    uses, at most :data:`MAX_TABLE_BYTES` as float16 -- a numpy array, no gensim
    object.

The hashing is fastText's (FNV-1a over UTF-8 bytes read as signed chars,
vectorised with numpy), so a table read from a fastText ``.bin`` matches the
file's n-grams.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import unicodedata

import numpy as np

from .._fields import _is_int
from .tokens import MAX_TOKEN_CHARS, OOV_ID

__all__ = [
    "SpellingNeighbours",
    "NgramTable",
    "neighbours_from_state",
    "char_ngrams",
    "ngram_buckets",
    "distinct_buckets",
]

#: The most bytes a table's vectors take (float16): 2**24 bytes, 83,886 rows of
#: 100 dimensions. A vocabulary with more n-grams keeps those most of its words use.
MAX_TABLE_BYTES = 2**24
#: The least similarity for an unseen word to be read as a vocabulary word: the
#: tf-idf cosine of their n-gram sets, and of their centred n-gram vectors (each
#: the best of those tried on the languages benchmark's validation split).
MIN_SPELLING = 0.45
MIN_VECTORS = 0.5
#: fastText's n-gram lengths, and the buckets the spelling's n-grams hash into
#: (so many that two n-grams of a vocabulary seldom share one).
MIN_N, MAX_N = 3, 6
SPELLING_BUCKETS = 2**24
#: The most word-to-vocabulary similarities one step of the search holds (32 MiB
#: as float64): the words of a request are compared this many at a time.
MAX_BLOCK = 2**22
#: How many unseen words a model remembers having read (then it starts afresh).
MEMO_SIZE = 2**16
#: Which vocabulary words an unseen word is never read as, whatever their
#: n-grams share (``guard``): ``"prefix"``, a word it holds after two or more
#: letters put in front, or that holds it so; ``"initial"``, a word that does
#: not begin with its letter (compared without case and accents); None, none.
#: A prefix mostly negates (``inconvenient``, ``безвкусный``, ``ontevreden``)
#: or makes another word (``accompany``), and a neighbour of another initial is
#: mostly a rhyme (``sailed`` -> ``failed``), where an inflection -- what the
#: fallback is for -- changes the ending. The next nearest word is taken instead
#: (of the :data:`GUARD_TRIES` nearest), else the unknown token. ``GUARD``: what
#: new models read by spelling with, chosen on the languages benchmark's
#: validation split (``benchmarks/languages.py``; the n-gram vectors were not
#: measured with one and keep none); a model file of earlier versions reads as
#: it did.
GUARDS = (None, "prefix", "initial")
GUARD = "initial"
GUARD_TRIES = 3
MIN_PREFIX = 2
#: Bounds on what a model file may declare.
LONGEST_NGRAM = 20
MAX_BUCKETS = 2**31 - 1
_FNV_OFFSET, _FNV_PRIME, _MASK = 2166136261, 16777619, 0xFFFFFFFF


def char_ngrams(word: str, min_n: int, max_n: int) -> list[str]:
    """The character n-grams of ``"<word>"`` that fastText uses (``min_n`` to
    ``max_n`` code points; the single ``<`` and ``>`` left out)."""
    marked = f"<{word}>"
    size = len(marked)
    return [
        marked[i : i + n]
        for n in range(min_n, max_n + 1)
        for i in range(size - n + 1)
        if not (n == 1 and (i == 0 or i == size - 1))
    ]


def ngram_buckets(
    words: list[str], min_n: int, max_n: int, buckets: int
) -> tuple[np.ndarray, np.ndarray]:
    """The bucket of every n-gram of every word, and the index of its word.

    Words are read up to their first :data:`~aspectattn.text.tokens.MAX_TOKEN_CHARS`
    characters (the longest token the tokenizer makes), so a word from a file of
    any length costs at most a few thousand n-grams.

    Returns
    -------
    bucket : (G,) int64 -- fastText's hash of each n-gram modulo ``buckets``
    owner : (G,) int64 -- the index in ``words`` of the word each n-gram is from
    """
    grams, counts = [], np.zeros(len(words), dtype=np.int64)
    for i, word in enumerate(words):
        own = char_ngrams(word[:MAX_TOKEN_CHARS], min_n, max_n)
        grams.extend(own)
        counts[i] = len(own)
    owner = np.repeat(np.arange(len(words), dtype=np.int64), counts)
    if not grams:
        return np.zeros(0, dtype=np.int64), owner
    encoded = [g.encode("utf-8", "surrogatepass") for g in grams]
    sizes = np.fromiter(map(len, encoded), np.int64, len(encoded))  # (G,)
    data = np.frombuffer(b"".join(encoded), dtype=np.int8)  # signed, as fastText
    starts = np.cumsum(sizes) - sizes  # (G,)
    h = np.full(len(encoded), _FNV_OFFSET, dtype=np.uint64)  # (G,)
    for k in range(int(sizes.max())):  # one step per byte position, all n-grams
        live = sizes > k
        byte = data[starts[live] + k].astype(np.int64) & _MASK  # sign-extended
        h[live] = ((h[live] ^ byte.astype(np.uint64)) * _FNV_PRIME) & _MASK
    return (h % np.uint64(buckets)).astype(np.int64), owner


def distinct_buckets(bucket, owner, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ngram_buckets`' pairs with each bucket once per word (a word's
    repeated n-grams, or two that share a bucket, count once), by word then
    bucket."""
    pairs = np.unique(owner * buckets + bucket)  # (G',) sorted
    return pairs % buckets, pairs // buckets


def _lookup(table: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of ``values`` is in the sorted ``table``, and whether it is
    there at all (``where`` is only meaningful where ``found``)."""
    where = np.searchsorted(table, values)
    found = where < len(table)
    found[found] = table[where[found]] == values[found]
    return where, found


class _Neighbours:
    """Reads unseen words as their nearest vocabulary word (see the module)."""

    kind: str
    threshold: float
    guard = None  # (what a pickle of earlier versions, which has none, reads by)

    def __init__(self, min_n: int = MIN_N, max_n: int = MAX_N, guard=None):
        self.min_n, self.max_n = min_n, max_n
        self.guard = guard  # one of GUARDS
        self._known = None  # what nearest() compares with, made on first use

    def _fit_known(self, vocabulary: list[str]):
        """(V, F) unit rows of the vocabulary's words, and the transform of
        other words into the same space."""
        raise NotImplementedError

    def nearest(
        self, unseen: list[str], vocabulary: list[str], threshold: float | None = None
    ) -> np.ndarray:
        """The id (position in ``vocabulary``) of the word nearest to each of
        ``unseen``, or the unknown id where none is at least ``threshold`` alike
        (default: the kind's own). The first two vocabulary entries (padding,
        unknown) are never chosen."""
        if self._known is None or self._known[0] != len(vocabulary):
            words = list(vocabulary)
            known, transform = self._fit_known(words)  # (V, F)
            # (F, V), laid out once for the products of every search
            known = known.T.tocsr() if hasattr(known, "tocsr") else known.T.copy()
            self._known = (len(words), known, transform, {}, words)
        _, known, transform, memo, words = self._known
        unseen = list(unseen)
        if threshold is not None:  # not the kind's own: nothing remembered
            return _search(unseen, known, transform, threshold, words, self.guard)
        # the words already read are remembered (a service meets the same new
        # words again and again), at most MEMO_SIZE of them
        found = [memo.get(word) for word in unseen]
        todo = [word for word, id_ in zip(unseen, found, strict=True) if id_ is None]
        if todo:
            ids = _search(
                todo, known, transform, self.threshold, words, self.guard
            ).tolist()
            new = dict(zip(todo, ids, strict=True))
            if len(memo) + len(new) > MEMO_SIZE:
                memo.clear()
            # (a request of more new words than the bound keeps its last ones)
            memo.update(
                itertools.islice(new.items(), max(len(new) - MEMO_SIZE, 0), None)
            )
            found = [
                new[w] if i is None else i for w, i in zip(unseen, found, strict=True)
            ]
        return np.asarray(found, dtype=np.int64)

    def __getstate__(self):
        # what nearest() made on first use is remade, not pickled (it holds
        # functions)
        return {**self.__dict__, "_known": None}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(min_n={self.min_n}, max_n={self.max_n})"


class SpellingNeighbours(_Neighbours):
    """Words compared by their character n-grams, each weighted by its inverse
    frequency among the vocabulary's words (so a shared stem counts for more
    than a shared ending). Its state is two numbers and the guard: the
    vocabulary is the rest.

    Parameters
    ----------
    min_n, max_n : int
        The n-gram lengths, in code points.
    guard : {"initial", "prefix"} or None, default=:data:`GUARD`
        The vocabulary words a word is never read as (:data:`GUARDS`).

    Examples
    --------
    >>> from aspectattn.text.ngrams import SpellingNeighbours
    >>> vocabulary = ["<pad>", "<unk>", "ресторан", "креветки", "harika"]
    >>> unseen = ["креветкой", "harikadır", "xyz"]
    >>> [vocabulary[i] for i in SpellingNeighbours().nearest(unseen, vocabulary)]
    ['креветки', 'harika', '<unk>']
    """

    kind = "spelling"
    threshold = MIN_SPELLING

    def __init__(self, min_n: int = MIN_N, max_n: int = MAX_N, guard=GUARD):
        super().__init__(min_n, max_n, guard)

    def _fit_known(self, vocabulary):
        from scipy import sparse

        def grams(words):  # each word's distinct n-gram buckets
            return distinct_buckets(
                *ngram_buckets(words, self.min_n, self.max_n, SPELLING_BUCKETS),
                SPELLING_BUCKETS,
            )

        bucket, owner = grams(vocabulary[2:])  # padding, unknown: never chosen
        owner += 2
        columns, column, df = np.unique(bucket, return_inverse=True, return_counts=True)
        idf = np.log((1.0 + len(vocabulary)) / (1.0 + df)) + 1.0  # (C,)
        unseen_idf = np.log(1.0 + len(vocabulary)) + 1.0  # an n-gram no word has

        def matrix(rows, cols, weights, norms):  # (W, C) rows of unit length
            values = weights / np.maximum(norms[rows], 1e-12)
            shape = (len(norms), len(columns))
            return sparse.csr_matrix((values, (rows, cols)), shape=shape)

        def norms(rows, weights, n):
            return np.sqrt(np.bincount(rows, weights**2, minlength=n))

        known = matrix(
            owner, column, idf[column], norms(owner, idf[column], len(vocabulary))
        )

        def transform(other):
            bucket, owner = grams(other)
            where, hit = _lookup(columns, bucket)
            weights = np.full(len(bucket), unseen_idf)
            weights[hit] = idf[where[hit]]
            size = norms(owner, weights, len(other))
            return matrix(owner[hit], where[hit], weights[hit], size)

        return known, transform

    def to_state(self) -> dict:
        return {
            "kind": self.kind,
            "min_n": self.min_n,
            "max_n": self.max_n,
            "guard": self.guard,
        }

    @classmethod
    def from_state(cls, state) -> SpellingNeighbours:
        _check_state(state, {"kind", "min_n", "max_n"})
        return cls(state["min_n"], state["max_n"], state.get("guard"))


class NgramTable(_Neighbours):
    """fastText's character n-gram vectors, for the n-grams a vocabulary uses.

    Parameters
    ----------
    min_n, max_n : int
        The n-gram lengths, in code points.
    buckets : int
        How many buckets the n-grams were hashed into.
    rows : (K,) int64, strictly increasing
        The buckets kept.
    vectors : (K, D) float16
        Their vectors.
    guard : {"initial", "prefix"} or None, default=None
        The vocabulary words a word is never read as (:data:`GUARDS`).
    """

    kind = "vectors"
    threshold = MIN_VECTORS

    def __init__(self, min_n: int, max_n: int, buckets: int, rows, vectors, guard=None):
        super().__init__(min_n, max_n, guard)
        self.buckets = buckets
        self.rows = np.asarray(rows, dtype=np.int64)
        self.vectors = np.asarray(vectors, dtype=np.float16)

    @classmethod
    def from_vectors(cls, vectors, words: list[str], max_bytes: int = MAX_TABLE_BYTES):
        """The table of gensim fastText vectors for the n-grams of ``words``, or
        None when ``vectors`` have no n-grams (word2vec, GloVe).

        When the n-grams of ``words`` need more than ``max_bytes``, those used by
        the most words are kept.
        """
        ngrams = getattr(vectors, "vectors_ngrams", None)
        buckets = int(getattr(vectors, "bucket", 0) or 0)
        if ngrams is None or not buckets or not len(ngrams):
            return None
        min_n, max_n = int(vectors.min_n), int(vectors.max_n)
        bucket, _ = distinct_buckets(
            *ngram_buckets(list(words), min_n, max_n, buckets), buckets
        )
        # the buckets the words use, then those most words use
        used, n_words = np.unique(bucket, return_counts=True)
        limit = max(max_bytes // (2 * ngrams.shape[1]), 1)
        if len(used) > limit:
            order = np.lexsort((used, -n_words))[:limit]
            used = np.sort(used[order])
        # float16's range: a fastText file's larger values are clipped, not inf
        return cls(min_n, max_n, buckets, used, np.clip(ngrams[used], -65504, 65504))

    def word_vectors(self, words: list[str]) -> np.ndarray:
        """(len(words), D) float32: each word's mean n-gram vector over the kept
        rows (zeros for a word none of whose n-grams is kept)."""
        out = np.zeros((len(words), self.vectors.shape[1]), dtype=np.float32)
        bucket, owner = ngram_buckets(words, self.min_n, self.max_n, self.buckets)
        where, kept = _lookup(self.rows, bucket)  # (G,) each
        owner, where = owner[kept], where[kept]
        np.add.at(out, owner, self.vectors[where].astype(np.float32))
        counts = np.bincount(owner, minlength=len(words))[:, None]  # (W, 1)
        return out / np.maximum(counts, 1)

    def _fit_known(self, vocabulary):
        known = self.word_vectors(vocabulary[2:])  # (V - 2, D)
        # vectors trained on little text share one direction (cosines of 0.97
        # or more between any two words): compare what is left without it
        mean = known.mean(axis=0) if len(known) else 0.0
        known = np.concatenate([np.zeros((2, known.shape[1]), known.dtype), known])

        def centred(vectors):  # unit rows less the mean; a zero row stays zero
            return _unit_rows(np.where(vectors.any(axis=1)[:, None], vectors - mean, 0))

        return centred(known), lambda other: centred(self.word_vectors(other))

    def to_state(self) -> dict:
        """JSON-able data: the rows as little-endian int32, the vectors as
        little-endian float16, both base64."""
        return {
            "kind": self.kind,
            "min_n": self.min_n,
            "max_n": self.max_n,
            "buckets": self.buckets,
            "dim": int(self.vectors.shape[1]),
            "rows": _encode(self.rows.astype("<i4")),
            "vectors": _encode(self.vectors.astype("<f2")),
            "guard": self.guard,
        }

    @classmethod
    def from_state(cls, state) -> NgramTable:
        """The table of :meth:`to_state` data read from a file, every field
        checked (``ValueError`` otherwise)."""
        _check_state(
            state, {"kind", "min_n", "max_n", "buckets", "dim", "rows", "vectors"}
        )
        buckets, dim = state["buckets"], state["dim"]
        if not _is_int(buckets, 1, MAX_BUCKETS):
            raise ValueError(
                f"the n-gram table's 'buckets' must be an integer from 1 to "
                f"{MAX_BUCKETS}"
            )
        if not _is_int(dim, 1, MAX_TABLE_BYTES // 2):
            raise ValueError(
                "the n-gram table's 'dim' must be an integer from 1 to "
                f"{MAX_TABLE_BYTES // 2:,}"
            )
        vectors = _decode(state["vectors"], "<f2", MAX_TABLE_BYTES, "vectors")
        n_rows = len(vectors) // dim
        # one int32 per row of vectors
        rows = _decode(state["rows"], "<i4", 4 * (MAX_TABLE_BYTES // 2 // dim), "rows")
        if len(vectors) != n_rows * dim or len(rows) != n_rows or not n_rows:
            raise ValueError("the n-gram table's rows and vectors do not match")
        if rows[0] < 0 or rows[-1] >= buckets or not (np.diff(rows) > 0).all():
            raise ValueError(
                "the n-gram table's rows must be distinct increasing buckets"
            )
        if not np.isfinite(vectors).all():
            raise ValueError("the n-gram table has non-finite values")
        return cls(
            state["min_n"], state["max_n"], buckets, rows, vectors.reshape(n_rows, dim)
        )

    def __repr__(self) -> str:
        return (
            f"NgramTable(min_n={self.min_n}, max_n={self.max_n}, "
            f"rows={len(self.rows)}, dim={self.vectors.shape[1]})"
        )


def neighbours_from_state(state) -> SpellingNeighbours | NgramTable:
    """Rebuild what ``to_state`` of either kind wrote (validated)."""
    kinds = {c.kind: c for c in (SpellingNeighbours, NgramTable)}
    if not isinstance(state, dict) or state.get("kind") not in kinds:
        raise ValueError(f"unseen words are read by one of {sorted(kinds)}")
    return kinds[state["kind"]].from_state(state)


def _check_state(state, keys: set) -> None:
    """``state`` has ``keys`` and perhaps ``"guard"`` (earlier versions wrote
    none: they read with none), each valid."""
    if not isinstance(state, dict) or set(state) - {"guard"} != keys:
        raise ValueError(
            f"the unseen-word state must have the keys {sorted(keys)} (and "
            "perhaps 'guard')"
        )
    if state.get("guard") not in GUARDS:
        raise ValueError(f"the unseen-word state's 'guard' must be one of {GUARDS}")
    min_n, max_n = state["min_n"], state["max_n"]
    if not (_is_int(min_n, 1, LONGEST_NGRAM) and _is_int(max_n, 1, LONGEST_NGRAM)) or (
        min_n > max_n
    ):
        raise ValueError(f"the n-grams need 1 <= min_n <= max_n <= {LONGEST_NGRAM}")


def _search(
    unseen: list[str], known, transform, threshold: float, vocabulary, guard=None
) -> np.ndarray:
    """The vocabulary word (column of ``known``, (F, V); its words
    ``vocabulary``) nearest to each of ``unseen`` (through ``transform``) that
    ``guard`` allows (:data:`GUARDS`), or the unknown id where none is
    ``threshold`` alike.

    Words are compared a block at a time, the block's similarities at most
    :data:`MAX_BLOCK` values whatever the vocabulary's size (V), so a request
    of many new words against a large vocabulary costs bounded memory."""
    ids = np.full(len(unseen), OOV_ID, dtype=np.int64)
    step = int(min(1024, max(1, MAX_BLOCK // max(known.shape[1], 1))))
    for lo in range(0, len(unseen), step):
        block = unseen[lo : lo + step]
        queries = transform(block)  # (b, F)
        sims = queries @ known  # (b, V), sparse for the spelling
        best = np.asarray(sims.argmax(axis=1)).ravel()  # (b,)
        value = np.asarray(sims[np.arange(len(best)), best]).ravel()  # (b,)
        barred = _barred(block, vocabulary, best, guard)  # (b,) bool
        if barred.any():  # the next nearest, for those words alone
            rows = np.flatnonzero(barred)  # (r,)
            some = sims[rows]  # (r, V), dense (r <= b: bounded as the block)
            some = some.toarray() if hasattr(some, "toarray") else np.array(some)
            for _ in range(GUARD_TRIES):
                left = np.flatnonzero(barred[rows])  # positions in rows still barred
                if not len(left):
                    break
                words = rows[left]
                some[left, best[words]] = -np.inf
                best[words] = some[left].argmax(axis=1)
                value[words] = some[left, best[words]]
                barred[words] = _barred(
                    [block[k] for k in words], vocabulary, best[words], guard
                )
            value[barred] = -np.inf  # still barred: the unknown token
        good = value >= threshold
        ids[lo : lo + step][good] = best[good]
    return ids


def _barred(words: list[str], vocabulary, ids: np.ndarray, guard) -> np.ndarray:
    """(n,) bool: whether ``guard`` bars reading each word as the vocabulary
    word of its id (:data:`GUARDS`)."""
    if guard is None:
        return np.zeros(len(words), dtype=bool)
    rule = _prefixed if guard == "prefix" else _other_initial
    pairs = zip(words, ids.tolist(), strict=True)
    return np.array([rule(word, vocabulary[i]) for word, i in pairs], dtype=bool)


def _prefixed(word: str, other: str) -> bool:
    """One word is the other with :data:`MIN_PREFIX` or more letters in front."""
    short, long = sorted((word, other), key=len)
    return len(long) - len(short) >= MIN_PREFIX and long.endswith(short)


def _other_initial(word: str, other: str) -> bool:
    """The words begin with other letters (case and accents aside)."""
    return _initial(word) != _initial(other)


def _initial(word: str) -> str:
    return unicodedata.normalize("NFD", word[:1].casefold())[:1]


def _unit_rows(matrix):
    """Rows scaled to unit length (zero rows stay zero); dense or sparse."""
    if hasattr(matrix, "multiply"):
        from scipy import sparse

        norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1))).ravel()
        return sparse.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ matrix
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def _encode(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def _decode(text, dtype: str, max_bytes: int, field: str) -> np.ndarray:
    """The base64 string ``text`` of the table's ``field`` (at most ``max_bytes``
    decoded bytes), as ``dtype``."""
    what = f"the n-gram table's {field!r}"
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a base64 string, got {type(text).__name__}")
    if len(text) > 4 * (max_bytes // 3 + 1):
        raise ValueError(f"{what} holds at most {max_bytes:,} bytes")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"{what} is not valid base64") from None
    size = np.dtype(dtype).itemsize
    if len(raw) % size:
        raise ValueError(f"{what} has a partial value")
    return np.frombuffer(raw, dtype=dtype).astype(dtype[1:])
