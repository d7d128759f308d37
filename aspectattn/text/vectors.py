"""Word vectors through gensim: loading, caching, training, and the fitted matrix.

Estimators take an ``embeddings=`` hyperparameter that is cheap to clone (a string or a
path, never a vector object). This module turns it into vectors:

``None``
    random initialisation (nothing loaded).
``"word2vec"`` / ``"fasttext"``
    trained with gensim on the fitting texts (no download needed), as many
    passes as the caller says (the estimators:
    :data:`aspectattn.params.VECTOR_PASSES`).
a path
    word2vec text or binary (``.bin``), Facebook fastText binary (``.bin``, with its
    character n-grams: every word of the text gets a vector), GloVe text (no header
    line), or gensim ``KeyedVectors`` (``.kv``); ``.gz``/``.bz2`` compressed text is
    read transparently.
a gensim-data name such as ``"glove-wiki-gigaword-50"``
    read from the data home (``$ASPECTATTN_DATA``, see :data:`LOCAL_FILES`) when the
    file is there, else downloaded once by :mod:`gensim.downloader` (needs the
    internet).

Loaded vectors are cached in memory per file (keyed by path, size and modification
time), so a grid search loads a file once per process rather than once per candidate.
Fitted estimators keep only the rows for their own vocabulary
(:func:`build_embedding_matrix`), never a gensim object, so they pickle small and load
without gensim.
"""

from __future__ import annotations

import bz2
import gzip
import os
import re
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import _short
from ..exceptions import MissingDependencyError

__all__ = [
    "load_word_vectors",
    "train_word_vectors",
    "fit_word_vectors",
    "build_embedding_matrix",
    "vector_coverage",
    "resolve_word_vectors",
    "clear_vector_cache",
    "TRAINABLE",
]

TRAINABLE = ("word2vec", "fasttext")
_CACHE_SIZE = 2
_cache: OrderedDict[tuple, Any] = OrderedDict()
_cache_lock = threading.Lock()


def _import_gensim():
    try:
        import gensim  # noqa: F401
    except ImportError as exc:  # pragma: no cover - gensim is a core dependency
        raise MissingDependencyError(
            "Word vectors need gensim: pip install 'gensim>=4.3'"
        ) from exc
    return gensim


def clear_vector_cache() -> None:
    """Forget every loaded word-vector file."""
    with _cache_lock:
        _cache.clear()


def _open_text(path: Path):
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    if name.endswith(".bz2"):
        return bz2.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _is_header(line: str) -> bool:
    """Whether ``line`` is a word2vec text file's first line: "count dim"."""
    parts = line.split()
    return len(parts) == 2 and all(part.isdigit() for part in parts)


#: Lines of a text vector file parsed at a time (bounds the memory of a read).
TEXT_CHUNK_LINES = 50_000


def _read_text_vectors(path: Path):
    """The vectors of a word2vec (``count dim`` first) or GloVe text file, as
    gensim ``KeyedVectors``.

    numpy parses the numbers a chunk of lines at a time (gensim's own reader
    makes a Python float of each: about 5 times slower, 18 s for GloVe's
    100,000 50-d words on one core). A word met twice keeps its first vector, as
    with gensim. A line that is not a word and ``dim`` numbers, or a number that
    is not finite, is an error naming the line; a word may hold spaces (GloVe
    840B has some): the last ``dim`` fields are the vector."""
    import itertools
    import warnings

    from gensim.models import KeyedVectors

    words, blocks, index = [], [], {}
    dim = None
    with _open_text(path) as f:
        first = f.readline()
        number = 1 if _is_header(first) else 0  # lines read before the chunk
        if number:
            dim = int(first.split()[1])
        pending = [] if number else [first]
        while chunk := pending + list(itertools.islice(f, TEXT_CHUNK_LINES)):
            pending = []
            lines = [(number + k + 1, line.rstrip()) for k, line in enumerate(chunk)]
            number += len(chunk)
            lines = [(n, line) for n, line in lines if line]
            if not lines:
                continue
            if dim is None:
                dim = len(lines[0][1].split(" ")) - 1
            if dim < 1:
                raise ValueError(f"{path.name}, line {lines[0][0]}: no vector")
            pairs = (line.partition(" ")[::2] for _, line in lines)
            names, rests = zip(*pairs, strict=True)
            try:  # a field that is no number: a ValueError (numpy >= 2.4) or
                # a warning and the numbers before it (earlier numpy)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    values = np.fromstring(" ".join(rests), sep=" ", dtype=np.float32)
            except ValueError:
                values = np.empty(0, np.float32)
            if values.size != len(names) * dim or not np.isfinite(values).all():
                names, values = _read_lines_one_by_one(path, lines, dim)
            keep = []
            for k, word in enumerate(names):
                if word not in index:
                    index[word] = len(words)
                    words.append(word)
                    keep.append(k)
            values = values.reshape(len(names), dim)
            blocks.append(values if len(keep) == len(names) else values[keep])
    if not words:
        raise ValueError(f"{path.name} holds no word vectors")
    vectors = KeyedVectors(dim, count=0, dtype=np.float32)
    vectors.add_vectors(words, np.concatenate(blocks))
    return vectors


def _read_lines_one_by_one(path: Path, lines, dim: int):
    """``(words, values)`` of numbered ``lines`` read one at a time: a word may
    hold spaces; a line without ``dim`` finite numbers is a ``ValueError``."""
    words, values = [], np.empty((len(lines), dim), dtype=np.float32)
    for k, (number, line) in enumerate(lines):
        parts = line.rsplit(" ", dim)
        try:
            if len(parts) != dim + 1:
                raise ValueError
            values[k] = parts[1:]
            if not np.isfinite(values[k]).all():
                raise ValueError
        except ValueError:
            raise ValueError(
                f"{path.name}, line {number}: expected a word and {dim} finite "
                f"numbers, got {_short(line)}"
            ) from None
        words.append(parts[0])
    return words, values.ravel()


#: The first four bytes of a Facebook fastText ``.bin`` (int32 793712314).
FASTTEXT_MAGIC = (793712314).to_bytes(4, "little")


def _is_fasttext_binary(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == FASTTEXT_MAGIC


def _load_file(path: Path):
    _import_gensim()
    from gensim.models import KeyedVectors

    name = path.name.lower()
    if name.endswith((".kv", ".model", ".kv.gz")):
        return KeyedVectors.load(str(path))
    if name.endswith(".bin") and _is_fasttext_binary(path):
        # Facebook's fastText format: the vectors and the character n-grams that
        # build one for any word, so every word of the text gets a vector
        from gensim.models.fasttext import load_facebook_vectors

        return load_facebook_vectors(str(path))
    if name.endswith((".bin", ".bin.gz")):
        return KeyedVectors.load_word2vec_format(
            str(path), binary=True, unicode_errors="replace"
        )
    return _read_text_vectors(path)


#: Files that hold a gensim-data model's vectors, looked for in the data home
#: (``$ASPECTATTN_DATA`` or ``~/aspectattn_data``) before anything is downloaded.
LOCAL_FILES = {
    "glove-wiki-gigaword-50": (
        "glove/glove.6B.50d.txt.gz",
        "glove/glove.6B.50d.txt",
        "glove/glove.6B.50d.100k.txt.gz",  # its 100,000 most frequent words
    ),
    "glove-wiki-gigaword-100": (
        "glove/glove.6B.100d.txt.gz",
        "glove/glove.6B.100d.txt",
    ),
    "glove-wiki-gigaword-300": (
        "glove/glove.6B.300d.txt.gz",
        "glove/glove.6B.300d.txt",
    ),
    "word2vec-google-news-300": ("GoogleNews-vectors-negative300.bin.gz",),
}


def local_vectors_file(name: str) -> Path | None:
    """A file in the data home holding the vectors of gensim-data model ``name``."""
    from ..datasets import get_data_home

    home = get_data_home()
    for relative in LOCAL_FILES.get(name, ()):
        if (home / relative).is_file():
            return home / relative
    return None


def _load_named(name: str):
    _import_gensim()
    import gensim.downloader

    hint = (
        "Without internet access, download the vectors elsewhere and pass their path "
        "as embeddings=, or put them into $ASPECTATTN_DATA"
        + (f" as {LOCAL_FILES[name][0]}" if name in LOCAL_FILES else "")
        + "."
    )
    try:
        return gensim.downloader.load(name)
    except ValueError as exc:
        raise ValueError(
            f"embeddings={name!r} is neither an existing file nor a gensim-data model "
            "name that could be confirmed (gensim-data needs the internet to look "
            "names up; see gensim.downloader.info()['models']). Pass a path to "
            f"word2vec, GloVe or .kv vectors, 'word2vec'/'fasttext' to train them, or "
            f"None. {hint}"
        ) from exc
    except OSError as exc:
        raise OSError(
            f"Could not download the gensim-data model {name!r} ({exc}). {hint}"
        ) from exc


def load_word_vectors(source: str | os.PathLike):
    """Load word vectors from a file path or a gensim-data name, with caching.

    Parameters
    ----------
    source : str or path-like
        A file in word2vec text/binary, GloVe text or gensim ``.kv`` format (``.gz``
        allowed), or a gensim-data model name such as ``"glove-wiki-gigaword-50"``.

    Returns
    -------
    gensim.models.KeyedVectors
        Shared between callers: treat it as read-only.
    """
    path = Path(os.fspath(source)).expanduser()
    if path.is_file():
        stat = path.stat()
        key = ("file", str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        loader = _load_file
        arg: Any = path
    else:
        text = os.fspath(source)
        looks_like_path = os.sep in text or text.endswith(
            (".txt", ".gz", ".bin", ".kv", ".vec", ".bz2")
        )
        if looks_like_path:
            raise FileNotFoundError(f"Word-vector file not found: {text!r}.")
        local = local_vectors_file(text)
        if local is not None:
            return load_word_vectors(local)
        key = ("gensim-data", text)
        loader = _load_named
        arg = text
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    vectors = loader(arg)  # slow: outside the lock
    with _cache_lock:
        _cache[key] = vectors
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return vectors


def _stable_hash(text: str) -> int:
    # gensim seeds each word's initial vector with hash(word + seed); Python's str
    # hash is salted per process, which would make trained vectors differ between
    # processes for the same random_state. CRC32 is stable.
    return zlib.crc32(text.encode("utf-8"))


def train_word_vectors(
    kind: str,
    token_lists: Sequence[Sequence[str]],
    dim: int,
    seed: int,
    epochs: int = 10,
):
    """Train word2vec (skip-gram) or fastText vectors on tokenized texts.

    Single-threaded and seeded, so the same ``seed`` gives the same vectors in any
    process.
    """
    _import_gensim()
    from gensim.models import FastText, Word2Vec

    sentences = [list(t) for t in token_lists]
    extra = {}
    if kind == "fasttext":
        # gensim's 2,000,000 buckets x dim floats is 800 MB at 100-d, mostly rows
        # no n-gram of the text hashes to: 32 per distinct word leaves most of a
        # text's n-grams (about ten new ones per word) a bucket of their own
        n_words = len({w for t in sentences for w in t})
        extra["bucket"] = int(min(2_000_000, max(2**16, 32 * n_words)))
    model = {"word2vec": Word2Vec, "fasttext": FastText}[kind](
        sentences=sentences,
        vector_size=dim,
        window=5,
        min_count=1,
        sg=1,
        workers=1,
        seed=seed,
        epochs=epochs,
        hashfxn=_stable_hash,
        **extra,
    )
    return model.wv


def fit_word_vectors(
    texts: Sequence[str],
    path,
    *,
    dim: int = 100,
    lowercase: bool = True,
    language: str | None = "auto",
    epochs: int = 10,
    random_state: int = 0,
) -> Path:
    """Train word2vec vectors on ``texts`` -- your domain's reviews, labelled or
    not -- and write them to ``path``, for a word encoder to start from:
    ``LSTMEncoder(embeddings=path)``.

    The texts are split into words as the word encoders split them (the same
    ``lowercase`` and ``language``; ``"auto"``: English's rules when they look
    English), so every word of a training text that the vectors saw has its
    vector. The file is word2vec's binary format (no pickle: it runs no code
    when read), written whole or not at all. Single-threaded and seeded: the
    same ``random_state`` gives the same vectors in any process.

    Parameters
    ----------
    texts : sequence of str
        Sentences or reviews; more text gives better vectors (a few thousand
        sentences train the estimators' own, ``embeddings="word2vec"``).
    path : str or path-like
        The file to write (``.bin``, by convention).
    dim : int, default=100
        The vectors' size.
    lowercase, language
        As the encoder's tokenizer takes them (``LSTMEncoder(lowercase=...)``,
        the estimator's ``language``).
    epochs : int, default=10
        Passes over the texts.
    random_state : int, default=0
        The seed.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> from aspectattn.text.vectors import fit_word_vectors  # doctest: +SKIP
    >>> fit_word_vectors(my_reviews + train_texts, "reviews.bin")  # doctest: +SKIP
    >>> clf = AspectAttentionClassifier(
    ...     encoder=LSTMEncoder(embeddings="reviews.bin"))  # doctest: +SKIP
    """
    from .._output import output_path
    from .languages import auto_language
    from .tokens import Tokenizer

    texts = [str(t) for t in texts]
    if not texts:
        raise ValueError("fit_word_vectors needs texts; got none.")
    if language == "auto":
        language = auto_language(texts)
    tokens = Tokenizer(lowercase=lowercase, language=language).tokenize_many(texts)
    vectors = train_word_vectors("word2vec", tokens, dim, random_state, epochs)
    path = Path(path)
    with output_path(path) as tmp:
        vectors.save_word2vec_format(os.fspath(tmp), binary=True)
    return path


def resolve_word_vectors(
    embeddings,
    embedding_dim: int | None,
    token_lists: Sequence[Sequence[str]],
    seed: int,
    default_dim: int = 100,
    *,
    passes: int,
):
    """Turn an ``embeddings=`` hyperparameter into ``(vectors or None, dimension)``.

    Shared by every estimator, so all accept the same choices (see module docstring).
    ``token_lists`` are the fitting texts, used when vectors are trained, for
    ``passes`` passes.
    """
    if embeddings is None:
        return None, embedding_dim or default_dim
    if isinstance(embeddings, str) and embeddings in TRAINABLE:
        dim = embedding_dim or default_dim
        return train_word_vectors(embeddings, token_lists, dim, seed, passes), dim
    vectors = load_word_vectors(embeddings)
    if embedding_dim is not None and embedding_dim != vectors.vector_size:
        raise ValueError(
            f"embedding_dim={embedding_dim} does not match the "
            f"{vectors.vector_size}-d vectors in {embeddings!r}; leave "
            "embedding_dim=None."
        )
    return vectors, vectors.vector_size


def _name_words(name: str) -> list[str]:
    """Split an aspect or word into lookup words: 'FOOD#QUALITY' -> ['food', ...]."""
    return [w for w in re.split(r"[^\w]+|_", name.lower()) if w]


def lookup_vector(vectors, word: str) -> np.ndarray | None:
    """The vector of ``word`` (trying its lower-case form), or None. FastText
    vectors (a fastText ``.bin``) build one from the word's character n-grams when
    the word is not in their vocabulary."""
    for candidate in (word, word.lower()):
        if candidate in vectors.key_to_index:
            return np.asarray(vectors[candidate], dtype=np.float32)
    if (
        getattr(vectors, "bucket", 0)
        and getattr(vectors, "vectors_ngrams", None) is not None
    ):
        try:
            vector = np.asarray(vectors[word], dtype=np.float32)
        except KeyError:  # no n-gram of the word is known
            return None
        return vector if np.any(vector) else None
    return None


def phrase_vector(vectors, phrase: str) -> np.ndarray | None:
    """Mean vector of the words of ``phrase`` found in ``vectors``, or None."""
    found = [
        v
        for v in (lookup_vector(vectors, w) for w in _name_words(phrase))
        if v is not None
    ]
    return np.mean(found, axis=0).astype(np.float32) if found else None


def build_embedding_matrix(
    words: Sequence[str],
    vectors,
    dim: int,
    rng: np.random.Generator,
    skip: int = 2,
    n_drawn: int | None = None,
) -> tuple[np.ndarray, float]:
    """Embedding matrix for a vocabulary.

    Parameters
    ----------
    words : sequence of str
        The vocabulary, ``words[i]`` has id ``i``. The first ``skip`` entries are
        special tokens (padding, OOV).
    vectors : KeyedVectors or None
        Pretrained vectors; ``None`` means random initialisation.
    dim : int
        Vector size (must match ``vectors`` when given).
    rng : numpy Generator
        Draws the vectors of words without a pretrained vector.
    skip : int
        How many special tokens lead the vocabulary.
    n_drawn : int or None
        Draw random rows for the first ``n_drawn`` words only (all of them by
        default): the words after them must have a pretrained vector. Words added
        from the vectors themselves then leave the generator where it would be
        without them.

    Returns
    -------
    matrix : ndarray of shape (len(words), dim), float32
        Row 0 (padding) is zero. Words without a pretrained vector, and the OOV
        row, are drawn from N(0, s^2) with s the standard deviation of the
        pretrained vectors (0.1 without any).
    found : ndarray of shape (len(words),), bool
        Which rows hold a pretrained vector (never the first ``skip``); see
        :func:`vector_coverage`.
    """
    n = len(words)
    found_rows, found_vecs = [], []
    if vectors is not None:
        for i in range(skip, n):
            vec = lookup_vector(vectors, words[i])
            if vec is not None:
                found_rows.append(i)
                found_vecs.append(vec)
    n_drawn = n if n_drawn is None else n_drawn
    drawn_found = [
        v for i, v in zip(found_rows, found_vecs, strict=True) if i < n_drawn
    ]
    scale = float(np.std(drawn_found)) if drawn_found else 0.1
    matrix = np.zeros((n, dim), dtype=np.float32)
    matrix[:n_drawn] = rng.normal(0.0, scale, size=(n_drawn, dim))
    matrix[0] = 0.0
    if found_rows:
        matrix[np.asarray(found_rows)] = np.stack(found_vecs)
    found = np.zeros(n, dtype=bool)
    found[found_rows] = True
    if not found[n_drawn:].all():
        raise ValueError("the words after n_drawn must have a pretrained vector")
    return matrix, found


def vector_coverage(found: np.ndarray, skip: int = 2) -> float:
    """Share of the real words (after ``skip`` special tokens) with a pretrained
    vector, from the mask returned by :func:`build_embedding_matrix`."""
    return float(found[skip:].sum()) / max(len(found) - skip, 1)
