"""The sentence encoders of the attention estimators, as components.

An encoder is passed whole as ``encoder=`` to
:class:`~aspectattn.AspectAttentionClassifier` and
:class:`~aspectattn.AspectCategoryClassifier`; each owns its parameters, their
defaults and their checks, and scikit-learn reaches them by prefix, as it reaches
a Pipeline's steps::

    clf = AspectAttentionClassifier(encoder=LSTMEncoder(hidden_size=150))
    GridSearchCV(clf, {"encoder__hidden_size": [150, 300]})

The names ``"lstm"``, ``"transformer"`` and ``"pretrained"`` stand for an encoder
with its defaults (``PretrainedEncoder`` needs its checkpoint, so its name alone is
an error in ``fit``); ``set_params(encoder__hidden_size=...)`` on a named encoder
makes it the component first.

The word-level encoders (:class:`LSTMEncoder`, :class:`TransformerEncoder`) read
word vectors, so the word-vector settings are theirs; :class:`PretrainedEncoder`
reads its checkpoint's sub-words.

This module imports neither torch nor gensim: the command line builds encoders
before it needs either.
"""

from __future__ import annotations

import os
from numbers import Integral, Real

from .params._constraints import Interval, StrOptions
from .params._core import UNSEEN_WORDS
from .params.components import Component

__all__ = [
    "LSTMEncoder",
    "TransformerEncoder",
    "PretrainedEncoder",
    "ENCODER_CLASSES",
    "register",
    "encoder_component",
    "encoder_constraints",
]

#: What the encoders share: the truncation, the embedding table's training.
_MAX_LEN = [Interval(Integral, 1, 1_000_000, closed="both")]
_TRAINING = {
    "freeze_embeddings": ["boolean", StrOptions({"auto"})],
    "embedding_lr": [None, Interval(Real, 0, None, closed="neither")],
}


class _EncoderComponent(Component):
    """What the three encoders share. A subclass writes out its ``__init__`` and
    ``_parameter_constraints`` and sets :attr:`kind` (its name in
    :data:`aspectattn.params.ENCODERS`)."""

    slot = "encoder"
    #: The encoder's name in :data:`aspectattn.params.ENCODERS`.
    kind: str = ""

    def _short(self):
        if self.get_params() == type(self)().get_params():
            return self.kind  # the name stands for the encoder's defaults
        return None


#: Encoder name (the table's ``encoder`` values) -> its component class.
ENCODER_CLASSES: dict[str, type] = {}


def register(cls: type) -> type:
    """Add the encoder ``cls`` (its :attr:`~_EncoderComponent.kind` names it)."""
    ENCODER_CLASSES[cls.kind] = cls
    return cls


class _WordEncoder(_EncoderComponent):
    """An encoder that reads word vectors: its docstring's ``%(words)s`` becomes
    the word-vector parameters' entries, and :data:`WORD_CONSTRAINTS` their
    constraints, the same for every such encoder."""

    _needs = {"extra_vocabulary": ("vector_file",)}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = cls.__doc__.replace("%(words)s", _WORD_PARAMS_DOC)


_WORD_PARAMS_DOC = """\
embeddings : str, path-like or None, default="word2vec"
        Word vectors: ``"word2vec"``/``"fasttext"`` trains them with gensim on
        the fitting texts and the copies ``augment`` makes
        (:data:`~aspectattn.params.VECTOR_PASSES` passes); a path
        loads word2vec text/binary, GloVe text, gensim ``.kv`` vectors (``.gz``
        allowed) or a fastText ``.bin`` (whose character n-grams give every
        word of the fitting texts a vector); a
        gensim-data name such as ``"glove-wiki-gigaword-50"`` downloads them;
        ``None`` initialises them randomly. Files are loaded once per process;
        only the rows of the fitted vocabulary are kept in the fitted model.
        Vectors in memory (gensim ``KeyedVectors``) are saved first
        (``kv.save("vectors.kv")``) and given by path: a parameter is copied
        into every clone and grid-search candidate, a path cheaply.
    embedding_dim : int or None, default=None
        Word-vector size when they are trained or random (``None``: 100); it
        must match a file's vectors (``None`` takes the file's size).
    aspect_size : int or None, default=None
        Size of the aspect vectors ``v_a`` (``None``: the word-vector size, or
        the states' size for the single-head ``"dot"`` score, where ``v_a`` is
        the query itself).
    embedding_dropout : float, default=0.5
        Dropout on the word vectors entering the encoder.
    freeze_embeddings : bool or "auto", default="auto"
        Keep the word vectors fixed during training (``"auto"``: trained).
    embedding_lr : float or None, default=None
        Learning rate of the word vectors (``None``: the estimator's ``lr``).
        Weight decay is never applied to them.
    lowercase : bool, default=True
        Lower-case the text before looking words up.
    min_count : int, default=1
        Words seen fewer times in the fitting texts are unknown words.
    extra_vocabulary : int, default=0
        With vectors read from a file or downloaded: the words among the file's
        first ``extra_vocabulary`` (its most frequent) that the fitting texts
        lack join the vocabulary with their vectors, so that a word first met at
        prediction time is read as its vector, not as the unknown token. The
        model grows by ``extra_vocabulary x dim`` floats at most.
    unseen_words : {"spelling", "vectors"}, None or "auto", default="auto"
        How a word the vocabulary lacks is read at prediction time (in Russian
        or Turkish, most inflections are such words): ``"spelling"`` as the
        vocabulary word of the most similar character n-grams; ``"vectors"`` by
        fastText's n-gram vectors (``embeddings="fasttext"`` or a fastText
        ``.bin``); ``None`` as the unknown token. ``"auto"``: ``"vectors"`` with
        ``embeddings="fasttext"``, else ``"spelling"``.
    word_dropout : float or "auto", default="auto"
        Training only: each word of a training sentence is read as the unknown
        token with probability ``word_dropout / (word_dropout + count)``,
        ``count`` its occurrences in the fitting texts (Kiperwasser and
        Goldberg, 2016), so that the unknown token's embedding is trained and
        the model learns to read a word it does not know from its context, as
        it must at prediction; ``0`` never. ``"auto"``: the encoder's recipe
        (:data:`aspectattn.params.ENCODERS`) for aspect terms or categories
        (the LSTM's: 0 for both, measured against 0.25 by
        ``benchmarks/word_dropout.py``); ``resolved_params_`` says what it
        became. The span taggers do not read it."""

#: The constraints of the word-vector parameters (every word encoder's).
WORD_CONSTRAINTS = {
    "embeddings": [None, str, os.PathLike],
    "embedding_dim": [None, Interval(Integral, 1, 100_000, closed="both")],
    "aspect_size": [None, Interval(Integral, 1, 100_000, closed="both")],
    "embedding_dropout": [Interval(Real, 0, 1, closed="left")],
    **_TRAINING,
    "lowercase": ["boolean"],
    "min_count": [Interval(Integral, 1, None, closed="left")],
    "extra_vocabulary": [Interval(Integral, 0, None, closed="left")],
    "unseen_words": [None, StrOptions({"auto", *UNSEEN_WORDS})],
    "word_dropout": [StrOptions({"auto"}), Interval(Real, 0, None, closed="left")],
}


@register
class LSTMEncoder(_WordEncoder):
    """An LSTM over word vectors: Wang et al.'s (2016) encoder, and the fast tier.

    Its states are padded only to the batch's longest sentence and run without
    packing; with ``bidirectional``, a second LSTM reads each sentence reversed
    within its length.

    Parameters
    ----------
    hidden_size : int or "auto", default="auto"
        Size of the LSTM's states (each direction). ``"auto"``: 300 in the
        attention estimators (Wang et al.'s); 100 in the aspect term extractor,
        whose tagger is as accurate with 100 on validation and 2.7 times
        faster (``benchmarks/extraction.py``). ``resolved_params_`` says which.
    bidirectional : bool or "auto", default="auto"
        Read both directions. ``"auto"``: for aspect terms (the backward state at
        the term's first word is half of the term's reading,
        ``final_state="term"``), one direction for categories; the estimator's
        ``resolved_params_`` says which.
    max_len : int, default=100
        Sentences are truncated to their first ``max_len`` tokens.
    %(words)s

    See Also
    --------
    TransformerEncoder : Self-attention over the same word vectors.
    PretrainedEncoder : A Hugging Face checkpoint fine-tuned end to end.

    Examples
    --------
    >>> from aspectattn import AspectAttentionClassifier
    >>> from aspectattn.encoders import LSTMEncoder
    >>> clf = AspectAttentionClassifier(encoder=LSTMEncoder(hidden_size=150))
    >>> clf.get_params()["encoder__hidden_size"]
    150
    """

    kind = "lstm"
    _parameter_constraints = {
        "hidden_size": [
            StrOptions({"auto"}),
            Interval(Integral, 1, 100_000, closed="both"),
        ],
        "bidirectional": ["boolean", StrOptions({"auto"})],
        "max_len": _MAX_LEN,
        **WORD_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        hidden_size="auto",
        bidirectional="auto",
        max_len=100,
        embeddings="word2vec",
        embedding_dim=None,
        aspect_size=None,
        embedding_dropout=0.5,
        freeze_embeddings="auto",
        embedding_lr=None,
        lowercase=True,
        min_count=1,
        extra_vocabulary=0,
        unseen_words="auto",
        word_dropout="auto",
    ):
        self.hidden_size = hidden_size
        self.bidirectional = bidirectional
        self.max_len = max_len
        self.embeddings = embeddings
        self.embedding_dim = embedding_dim
        self.aspect_size = aspect_size
        self.embedding_dropout = embedding_dropout
        self.freeze_embeddings = freeze_embeddings
        self.embedding_lr = embedding_lr
        self.lowercase = lowercase
        self.min_count = min_count
        self.extra_vocabulary = extra_vocabulary
        self.unseen_words = unseen_words
        self.word_dropout = word_dropout


@register
class TransformerEncoder(_WordEncoder):
    """Multi-head self-attention over word vectors (Vaswani et al., 2017).

    Parameters
    ----------
    n_layers : int, default=2
        Number of layers.
    n_heads : int, default=4
        Attention heads per layer; ``d_model`` must be divisible by it.
    d_model : int, default=128
        Width of the states.
    ff_size : int or None, default=None
        Width of the position-wise feed-forward layer (``None``: ``4 * d_model``).
    norm_first : bool, default=True
        LayerNorm before each sublayer (pre-norm), or after the residual.
    positional : {"sinusoidal", "learned"}, default="sinusoidal"
        Fixed sinusoidal position encodings, or learned ones for up to
        ``max_len`` positions.
    position_merge : {"add", "concat"}, default="add"
        Position encodings added to the word vectors, or concatenated to them
        (half of ``d_model`` each).
    dropout : float, default=0.1
        Dropout inside the layers (attention and feed-forward).
    max_len : int, default=100
        Sentences are truncated to their first ``max_len`` tokens.
    %(words)s

    See Also
    --------
    LSTMEncoder : The recurrent encoder of the same word vectors.
    """

    kind = "transformer"
    _parameter_constraints = {
        "n_layers": [Interval(Integral, 1, 256, closed="both")],
        "n_heads": [Interval(Integral, 1, 1024, closed="both")],
        "d_model": [Interval(Integral, 1, 100_000, closed="both")],
        "ff_size": [None, Interval(Integral, 1, 1_000_000, closed="both")],
        "norm_first": ["boolean"],
        "positional": [StrOptions({"sinusoidal", "learned"})],
        "position_merge": [StrOptions({"add", "concat"})],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "max_len": _MAX_LEN,
        **WORD_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        n_layers=2,
        n_heads=4,
        d_model=128,
        ff_size=None,
        norm_first=True,
        positional="sinusoidal",
        position_merge="add",
        dropout=0.1,
        max_len=100,
        embeddings="word2vec",
        embedding_dim=None,
        aspect_size=None,
        embedding_dropout=0.5,
        freeze_embeddings="auto",
        embedding_lr=None,
        lowercase=True,
        min_count=1,
        extra_vocabulary=0,
        unseen_words="auto",
        word_dropout="auto",
    ):
        self.n_layers = n_layers
        self.n_heads = n_heads
        self.d_model = d_model
        self.ff_size = ff_size
        self.norm_first = norm_first
        self.positional = positional
        self.position_merge = position_merge
        self.dropout = dropout
        self.max_len = max_len
        self.embeddings = embeddings
        self.embedding_dim = embedding_dim
        self.aspect_size = aspect_size
        self.embedding_dropout = embedding_dropout
        self.freeze_embeddings = freeze_embeddings
        self.embedding_lr = embedding_lr
        self.lowercase = lowercase
        self.min_count = min_count
        self.extra_vocabulary = extra_vocabulary
        self.unseen_words = unseen_words
        self.word_dropout = word_dropout

    def check(self, owner: str, reads=None) -> None:
        super().check(owner, reads)
        if self.d_model % self.n_heads:
            raise ValueError(
                f"encoder__d_model={self.d_model} must be divisible by "
                f"encoder__n_heads={self.n_heads} in {owner} (each head gets "
                "d_model / n_heads dimensions)."
            )


@register
class PretrainedEncoder(_EncoderComponent):
    """A Hugging Face encoder checkpoint, fine-tuned end to end with its own
    sub-word tokenizer: the better, slower tier.

    BERT, RoBERTa, XLM-R, DeBERTa-v2/v3, DistilBERT and ELECTRA checkpoints load
    (``transformers`` needed to fit; the fitted model does not need the
    directory to predict). With it, the estimator's ``"auto"`` training settings
    follow BERT's recipe (a small ``lr`` with warm-up and linear decay, a few
    epochs, ``dropout=0.1``, the rest of the model at ``head_lr=1e-3``, bfloat16
    where the device computes it): the encoder's
    :class:`~aspectattn.params.Recipe` in :data:`aspectattn.params.ENCODERS`;
    the estimator's ``resolved_params_`` says what a fit used.

    Parameters
    ----------
    path : str or path-like
        A local checkpoint directory (e.g. ``all-MiniLM-L6-v2``): its
        ``config.json``, tokenizer files and weights.
    input : {"auto", "vector", "pair"}, default="auto"
        ``"vector"``: the aspect is only the attention query ``v_a`` (one
        encoder pass per sentence serves all its aspects); ``"pair"``: the aspect
        is also fed as a second segment, ``[CLS] sentence [SEP] aspect [SEP]``
        (one pass per pair), for the pair classifier only. ``"auto"``: ``"pair"``
        for aspect terms (validation accuracy +1.7 on laptops, +0.3 on
        restaurants with the negated copies, which cost 3.6 points of laptop
        validation accuracy without it; 1.6-1.9 times the encoder passes on
        SemEval's sentences, which hold 1.6-1.9 terms each), ``"vector"`` for
        categories, the detector and the extractors.
    layer_lr_decay : float, default=1.0
        Each layer of the checkpoint trains at ``layer_lr_decay`` times the rate
        of the layer above it (the top layer at ``lr``), so the general lower
        layers move least; 1.0 gives every layer ``lr``.
    freeze_embeddings : bool or "auto", default="auto"
        Keep the checkpoint's sub-word embedding table fixed. ``"auto"``: fixed
        (validation accuracy unchanged on three data sets, ~10% less time per
        epoch for MiniLM).
    embedding_lr : float or None, default=None
        Learning rate of the embedding table when trained (``None``: ``lr``).
    max_len : int, default=100
        Sentences are truncated to their first ``max_len`` tokens (the
        checkpoint's sub-words).

    See Also
    --------
    LSTMEncoder : The fast tier, which can learn from this one
        (:class:`~aspectattn.DistilledClassifier`).

    Examples
    --------
    >>> from aspectattn import AspectAttentionClassifier
    >>> from aspectattn.encoders import PretrainedEncoder
    >>> clf = AspectAttentionClassifier(
    ...     encoder=PretrainedEncoder("all-MiniLM-L6-v2", input="pair"))
    """

    kind = "pretrained"
    _parameter_constraints = {
        "path": [None, str, os.PathLike],
        "input": [StrOptions({"auto", "vector", "pair"})],
        "layer_lr_decay": [Interval(Real, 0, 1, closed="right")],
        **_TRAINING,
        "max_len": _MAX_LEN,
    }

    def __init__(
        self,
        path=None,
        *,
        input="auto",  # noqa: A002 (the checkpoint's input, as users say it)
        layer_lr_decay=1.0,
        freeze_embeddings="auto",
        embedding_lr=None,
        max_len=100,
    ):
        self.path = path
        self.input = input
        self.layer_lr_decay = layer_lr_decay
        self.freeze_embeddings = freeze_embeddings
        self.embedding_lr = embedding_lr
        self.max_len = max_len

    def check(self, owner: str, reads=None) -> None:
        super().check(owner, reads)
        if self.path is None:
            raise ValueError(
                f"PretrainedEncoder needs its checkpoint in {owner}: "
                "PretrainedEncoder(path), path a local Hugging Face checkpoint "
                "directory (encoder='pretrained' alone names none)."
            )
        if not isinstance(self.path, (str, os.PathLike)):  # pragma: no cover
            raise TypeError("path must be a str or path-like")


def encoder_component(encoder):
    """The component that ``encoder`` (a component or an encoder's name) stands
    for: a name gives its encoder with the defaults."""
    if isinstance(encoder, _EncoderComponent):
        return encoder
    if encoder not in ENCODER_CLASSES:
        raise ValueError(
            f"encoder must be an encoder or one of {sorted(ENCODER_CLASSES)}; got "
            f"{str(encoder)[:80]!r}."
        )
    return ENCODER_CLASSES[encoder]()


def encoder_constraints() -> list:
    """The constraints of an estimator's ``encoder``: a name or the component."""
    return [StrOptions(set(ENCODER_CLASSES)), _EncoderComponent]
