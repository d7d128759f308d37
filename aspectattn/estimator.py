"""The attention estimator: Wang et al. (2016) aspect attention, sklearn-style.

The estimator validates its input and parameters, then hands the work to one module
per concern::

    fit:      (text, aspect) pairs --pipelines--> PairDataset --training--> module_
    predict:  (text, aspect) pairs --pipelines--> PairDataset --inference--> logits

Its fitted state is the list :data:`FITTED_ATTRIBUTES`, used by ``fit``, pickling and
the safe model file alike.
"""

from __future__ import annotations

import copy
import numbers
import os
import re
import warnings

import numpy as np
import torch
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import augment, inference, persistence, training
from ._batching import PairDataset
from ._fields import labels_state
from ._validation import (
    InstanceOf,
    Interval,
    Options,
    category_ids,
    check_labels,
    check_pairs,
    check_texts,
    resolve_aspect_type,
    validate_params,
)
from .attention import ATTENTION_SCORES
from .building import prepare_model
from .embeddings import TRAINABLE
from .encoders import ENCODERS
from .exceptions import AspectAttnWarning, InputError
from .modules import (
    FINAL_STATES,
    POSITION_WEIGHTINGS,
    TERM_QUERIES,
    VARIANTS,
    AspectAttentionModel,
    check_module_config,
    uses_position,
)
from .pipelines import (
    SubwordPipeline,
    distinct_index,
    pipeline_from_state,
)
from .quantization import QUANTIZE_OPTIONS, quantize_module
from .text import EncodedTexts
from .training import train_module

__all__ = ["AspectAttentionClassifier", "ENCODER_PARAMS"]

#: Parameters that only some encoders use. One set to a value other than its default
#: with another encoder gets a warning naming it (as sklearn does).
ENCODER_PARAMS = {
    "embeddings": ("lstm", "transformer"),
    "embedding_dim": ("lstm", "transformer"),
    "embedding_dropout": ("lstm", "transformer"),
    "aspect_size": ("lstm", "transformer"),
    "lowercase": ("lstm", "transformer"),
    "min_count": ("lstm", "transformer"),
    "extra_vocabulary": ("lstm", "transformer"),
    "hidden_size": ("lstm",),
    "bidirectional": ("lstm",),
    "n_layers": ("transformer",),
    "n_heads": ("transformer",),
    "d_model": ("transformer",),
    "ff_size": ("transformer",),
    "norm_first": ("transformer",),
    "positional": ("transformer",),
    "position_merge": ("transformer",),
    "transformer_dropout": ("transformer",),
    "pretrained_model": ("pretrained",),
    "pretrained_input": ("pretrained",),
    "term_marker": ("lstm", "transformer"),
}
#: Parameters of the attention layer, unused by ``variant="ae"``.
ATTENTION_PARAMS = (
    "attention_score",
    "attention_heads",
    "final_state",
    "position_weighting",
)
#: Parameters that use the position of an aspect term, unused for categories.
TERM_PARAMS = ("position_weighting", "term_marker", "term_query", "augment", "antonyms")

#: Values of ``augment``.
AUGMENTATIONS = ("flip", "join", "flip+join")

#: The fitted state: set by ``fit``, kept by pickling and by the safe model file.
FITTED_ATTRIBUTES = (
    "classes_",
    "aspect_type_",
    "aspects_",
    "text_pipeline_",
    "embedding_coverage_",
    "module_config_",
    "module_",
    "device_",
    "history_",
    "best_epoch_",
    "interrupted_",
    "fit_time_",
    "n_features_in_",
    "feature_names_in_",  # only when fitted on a DataFrame
)
_DEVICE_RE = re.compile(r"auto|cpu|mps|cuda(:\d{1,2})?")


def _resolve_seed(random_state) -> int:
    """A seed for this fit, drawn without touching any global RNG."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    return int(random_state.integers(2**31 - 1))  # np.random.Generator


def _resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but CUDA is not available; "
            "use device='auto' or 'cpu'."
        )
    return device


@persistence.register
class AspectAttentionClassifier(ClassifierMixin, BaseEstimator):
    """Aspect-level sentiment classifier: an LSTM or transformer with aspect attention.

    Implements AT-LSTM, AE-LSTM and ATAE-LSTM (Wang et al., 2016). Each aspect gets a
    vector ``v_a``; attention weights ``alpha = softmax(w^T tanh(W_h H + W_v v_a))``
    pool the encoder states ``H`` of the sentence into one vector, which is
    classified. ``encoder="transformer"`` swaps the LSTM for multi-head
    self-attention and keeps everything else. Training runs through a skorch
    ``NeuralNetClassifier`` built inside :meth:`fit`.

    Input: ``X`` is a sequence of ``(text, aspect)`` pairs or a pandas DataFrame with
    a text and an aspect column; ``y`` holds any labels (e.g. ``"positive"``).

    Parameters
    ----------
    variant : {"atae", "at", "ae"}, default="atae"
        ``"at"``: attention with the aspect as query over an aspect-independent
        encoder (one encoder pass serves all aspects of a sentence); ``"ae"``: the
        aspect vector appended to every word, last state classified; ``"atae"``: both.
    aspect_type : {"auto", "category", "term"}, default="auto"
        ``"category"``: aspects form a closed set (``food``, ``service``...); each
        gets a learnable vector, initialised from the word vectors of its name where
        they exist; an unseen category at predict time is an error. ``"term"``:
        aspects are phrases from the text (``"pasta carbonara"``); ``v_a`` is the
        mean of the term's (trainable) word embeddings, so unseen terms work.
        ``"auto"`` picks ``"term"`` when at least 90% of the training aspects occur
        in their text, else ``"category"``; see ``aspect_type_``.
    embeddings : str, path-like or None, default="word2vec"
        Word vectors: ``"word2vec"``/``"fasttext"`` trains them with gensim on the
        fitting texts; a path loads word2vec text/binary, GloVe text or gensim
        ``.kv`` vectors (``.gz`` allowed); a gensim-data name such as
        ``"glove-wiki-gigaword-50"`` downloads them; ``None`` initialises randomly.
        Files are loaded once per process and cached. Only the rows of the fitted
        vocabulary are kept in the fitted model.
    embedding_dim : int or None, default=None
        Word-vector size when vectors are trained or random (default 100); must
        match the file when vectors are loaded (``None`` takes the file's size).
    freeze_embeddings : bool, default=False
        Keep the word vectors fixed during training.
    embedding_lr : float or None, default=None
        Learning rate of the word vectors (``None``: same as ``lr``). Weight decay
        is never applied to them.
    aspect_size : int or None, default=None
        Size of ``v_a``; ``None`` uses the word-vector size, or the encoder
        states' size for the single-head ``"dot"`` form (so that ``v_a`` itself
        is the query).
    hidden_size : int, default=300
        LSTM hidden size.
    bidirectional : bool, default=False
        Use a bidirectional LSTM (exact on padded batches without packing).
    encoder : {"lstm", "transformer", "pretrained"}, default="lstm"
        The sentence encoder under the aspect attention. ``"transformer"``: multi-head
        self-attention with position encodings, residual connections and LayerNorm
        (``n_layers``, ``n_heads``, ``d_model``, ``ff_size``, ``norm_first``,
        ``positional``, ``transformer_dropout``); the mean of its states replaces the
        LSTM's last state. ``hidden_size`` and ``bidirectional`` apply to the LSTM only.
    pretrained_model : str, path-like or None, default=None
        With ``encoder="pretrained"``: a local Hugging Face checkpoint directory
        (e.g. ``all-MiniLM-L6-v2``), fine-tuned end to end with its own sub-word
        tokenizer; ``embeddings`` and the word-level options are then unused. Use a
        small ``lr`` (e.g. 5e-5) and ``dropout`` (0.1). Needs ``transformers``. The
        fitted model does not need the directory to predict.
    pretrained_input : {"vector", "pair"}, default="vector"
        ``"vector"``: the aspect is only the attention query ``v_a`` (one encoder
        pass per sentence); ``"pair"``: the aspect is also fed as a second segment,
        ``[CLS] sentence [SEP] aspect [SEP]``.
    n_layers : int, default=2
    n_heads : int, default=4
        ``d_model`` must be divisible by it.
    d_model : int, default=128
    ff_size : int or None, default=None
        Width of the position-wise feed-forward layer (``None``: ``4 * d_model``).
    norm_first : bool, default=True
        Pre-norm (LayerNorm before each sublayer) or post-norm (after the residual).
    positional : {"sinusoidal", "learned"}, default="sinusoidal"
        Fixed sinusoidal encodings (Vaswani et al., 2017), or learned ones for up to
        ``max_len`` positions (sentences are cut to ``max_len`` tokens first).
    position_merge : {"add", "concat"}, default="add"
        Position vectors added to the word vectors, or concatenated to them
        (``x_i = [W emb(w_i); pos(i)]``, half of ``d_model`` each).
    transformer_dropout : float, default=0.1
    attention_score : {"additive", "dot", "general", "scaled_dot", "concat"}, \
default="additive"
        How ``v_a`` scores the encoder states ``h_i`` (:mod:`aspectattn.attention`):
        ``"additive"`` ``w^T tanh(W_h h_i + W_v v_a)`` (Bahdanau); ``"dot"``
        ``<v_a, h_i>``; ``"general"`` ``h_i^T W_a v_a`` (Luong); ``"scaled_dot"``
        ``softmax(q K^T / sqrt(d)) V`` with keys and values ``tanh(H W)``;
        ``"concat"`` the formula printed in the paper, where the aspect cancels in
        the softmax (AT then ignores the aspect).
    attention_heads : int, default=1
        Several queries per aspect, each its own projection of ``v_a`` over a
        ``1/m`` slice of the projected states; the pooled vectors are
        concatenated and projected back. Must divide the encoder's state size.
        ``explain`` then returns weights per head.
    final_state : {True, False, "term"}, default=True
        Whether the classified vector ``h* = tanh(W_p r + W_x h_N)`` takes the
        encoder's final state ``h_N`` besides the attention pooling ``r`` (Wang
        et al.). With ``variant="at"`` the encoder does not see the aspect, so
        ``h_N`` is the same for every aspect of a sentence and carries its
        overall tone; ``False`` classifies ``h* = tanh(W_p r)``, what the aspect's
        attention picked out, alone. ``"term"`` (aspect terms only) puts the
        encoder's summary of the term in place of ``h_N``: for the LSTM, the
        forward state at the term's last token and, with ``bidirectional=True``,
        the backward state at its first -- TD-LSTM's two readings of the sentence
        up to the term (Tang et al., 2016), taken from the one encoder pass that
        every term of the sentence shares; for the transformer and pretrained
        encoders, the mean of the term's states. Unused by ``variant="ae"``.
    position_weighting : {"none", "linear", "learned"}, default="none"
        Aspect terms only. ``"linear"``: the attention weight of token ``i`` is
        proportional to ``w_i exp(e_i)`` with ``w_i = 1 - d_i / n``, ``d_i`` its
        distance in tokens from the term (0 on the term) and ``n`` the sentence
        length: nearer words weigh more (the location weighting of Tang et al.
        2016 and Chen et al. 2017, as a prior on the attention). ``"learned"``:
        proportional to ``exp(e_i + b_d)`` with one learned bias ``b_d`` per
        distance ``d`` up to 16 (farther tokens share one), started at 0: the
        model learns how fast attention falls off away from the term.
    term_marker : bool, default=False
        Aspect terms only, LSTM and transformer encoders: append a 0/1 flag to
        every input word, 1 on the term's tokens. The encoder then sees the aspect,
        so each pair is its own encoder pass.
    term_query : {"vectors", "states", "both"}, default="vectors"
        Aspect terms only: what queries the encoder states. ``"vectors"``: ``v_a``,
        the mean of the term's word vectors (Wang et al.); ``"states"``: the mean of
        the encoder states over the term's tokens, projected to the size of
        ``v_a``; ``"both"``: their sum. With the pretrained encoder, the states are
        those of the term's sub-words.

        The three term-position options need to know where the term is: give its
        character span as a pair's third item ``(text, term, (start, end))`` or as
        ``start``/``end`` columns of a DataFrame; without one the term is found in
        the text (its first whole-word occurrence, ignoring case). A term that is
        not in its text is then an error.
    augment : {None, "flip", "join", "flip+join"}, default=None
        Aspect terms only: add training pairs made from the training sentences.
        ``"flip"``: for each positive or negative term, a copy of its sentence in
        which the opinion word nearest to the term (and nearer to it than to any
        other term) is replaced by its antonym, with the term's label reversed and
        the other terms' labels kept (:func:`aspectattn.augment.flip_opinions`).
        ``"join"``: each sentence whose terms are all positive (or all negative)
        joined with a random one of the opposite polarity, ``"<one>, but
        <other>"``, every term keeping its label
        (:func:`aspectattn.augment.join_pairs`). Both teach the model to follow
        the words of the term rather than the sentence's overall tone. A copy
        trains only when all its source sentences are on the training side of
        the validation split, and copies are never scored in validation. Needs
        the labels ``"positive"`` and ``"negative"``.
    antonyms : dict or None, default=None
        The opinion words ``augment="flip"`` swaps, lower-case word -> antonym;
        ``None`` uses :data:`aspectattn.augment.OPINION_ANTONYMS`.
    dropout : float, default=0.5
        Dropout on the final sentence representation, as in Wang et al.'s code.
    embedding_dropout : float, default=0.5
        Dropout on the word vectors entering the LSTM. (The authors' code has none;
        with 50-d GloVe it improves validation accuracy on SemEval-2014, see
        ``benchmarks/select_config.py``.)
    lowercase : bool, default=True
        Lower-case text before tokenizing.
    min_count : int, default=1
        Words seen fewer times in the training texts map to the unknown token.
    extra_vocabulary : int, default=0
        With pretrained word vectors (a file or name in ``embeddings``): the words
        among the first ``extra_vocabulary`` of the vectors (their most frequent
        words; only lower-case ones with ``lowercase=True``) that the training
        texts lack join the vocabulary with their pretrained vectors, so that a
        word first met at prediction time is read as its vector instead of as the
        unknown token. Training never updates those rows (no training word uses
        them). The model grows by ``extra_vocabulary x dim`` floats at most (20 MB
        for the 100,000 50-d GloVe words).
    max_len : int, default=100
        Sentences are truncated to their first ``max_len`` tokens.
    optimizer : {"adam", "adamw", "adagrad", "sgd"}, default="adam"
        ``"sgd"`` uses momentum 0.9.
    lr : float, default=1e-3
    weight_decay : float, default=0.0
        L2 penalty on all weights except the word vectors.
    batch_size : int, default=32
        Pairs per training batch.
    batch_by : {"auto", "sentence", "pair"}, default="auto"
        ``"sentence"``: training batches hold whole sentences with all their
        aspects, and the encoder runs once per sentence for all of them (joint
        training over the aspects of a sentence; same loss as per pair).
        ``"pair"``: pairs are shuffled independently. ``"auto"``: ``"sentence"``
        when the encoder does not see the aspect (``variant="at"`` with any
        encoder but ``pretrained_input="pair"``), else ``"pair"``. Prediction
        always encodes each distinct sentence once when the encoder allows it.
    max_epochs : int, default=20
    gradient_clip : float or None, default=None
        Clip the gradient norm to this value.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes in the loss, as in scikit-learn.
    validation_fraction : float or None, default=None
        Share of the training *sentences* held out for validation (all aspects of a
        sentence go to the same side, so validation scores are not inflated by
        sentences seen in training). ``None`` trains on everything. Validation loss,
        accuracy and macro-F1 per epoch are recorded in ``history_``.
    early_stopping : bool, default=False
        Stop when the validation ``scoring`` has not improved for ``patience``
        epochs and restore the weights of the best epoch. (Interrupting training
        with Ctrl-C also keeps the best epoch's weights.) Needs
        ``validation_fraction``.
    scoring : {"loss", "accuracy", "f1_macro"}, default="loss"
        Validation metric that selects the best epoch.
    patience : int, default=5
    checkpoint_dir : str, path-like or None, default=None
        Write a checkpoint after every epoch into this folder (one file per run,
        named by a fingerprint of the hyperparameters and the data). A ``fit`` with
        the same hyperparameters and data resumes from it, continuing exactly where
        the interrupted run stopped (same weights, optimizer state, history and
        random states); after a completed run it returns the finished model at once.
        Delete the file to train afresh.
    text_column, aspect_column : str, default="text", "aspect"
        Column names when ``X`` is a DataFrame.
    random_state : int, RandomState, Generator or None, default=None
        Seeds initialisation, shuffling, dropout, word-vector training and the
        validation split. Global RNGs of the caller are left untouched.
    device : str, default="auto"
        ``"auto"`` uses CUDA when available, else the CPU; or a torch device string.
    quantize : {None, "int8"}, default=None
        ``"int8"`` predicts with int8 weights in the encoder's linear layers
        (dynamic quantisation, on the CPU whatever ``device`` says); training and
        the saved weights stay float32, so it can also be set on a fitted or loaded
        model. Pays with ``encoder="pretrained"`` (1.5x on a 2-core CPU; the README
        gives the accuracy change); the LSTM encoder is left as it is. See
        :mod:`aspectattn.quantization`.
    verbose : int, default=0
        1 prints a line per epoch (loss, validation scores, time).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels, in the column order of :meth:`predict_proba`.
    aspect_type_ : {"category", "term"}
        The aspect kind used.
    aspects_ : ndarray of str
        The aspect categories seen in ``fit`` (empty for terms).
    text_pipeline_ : :class:`aspectattn.pipelines.WordPipeline` or \
:class:`~aspectattn.pipelines.SubwordPipeline`
        Turns text into model input, the same way in fit and predict.
    vocabulary_ : :class:`aspectattn.text.Vocabulary` or None
        Word-to-id mapping (``vocabulary_.index_``); None with a pretrained encoder.
    embedding_coverage_ : float
        Share of vocabulary words that had a pretrained vector.
    module_ : :class:`aspectattn.modules.AspectAttentionModel`
        The trained torch module.
    module_config_ : dict
        The keyword arguments that rebuild ``module_``.
    device_ : str
        The device ``module_`` lives on.
    history_ : list of dict
        Per-epoch training record (``train_loss``, ``valid_loss``, ``valid_acc``,
        ``valid_f1``, ``dur``...).
    best_epoch_ : int
        The epoch whose weights are kept.
    fit_time_ : float
        Seconds spent training.
    interrupted_ : bool
        Training was interrupted (``KeyboardInterrupt``) before ``max_epochs``: the
        weights are those of the best epoch so far (validation metric, or training
        loss without validation), and a warning was issued.
    n_features_in_ : int
        Always 2 (text and aspect).
    feature_names_in_ : ndarray of str
        The text and aspect column names, when fitted on a DataFrame.

    References
    ----------
    Yequan Wang, Minlie Huang, Xiaoyan Zhu and Li Zhao. 2016. Attention-based LSTM
    for Aspect-level Sentiment Classification. In Proceedings of EMNLP, 606-615.

    Examples
    --------
    >>> from aspectattn import AspectAttentionClassifier
    >>> X = [("The pasta was great but the waiter was rude", "food"),
    ...      ("The pasta was great but the waiter was rude", "service")]
    >>> clf = AspectAttentionClassifier(max_epochs=2, random_state=0).fit(
    ...     X, ["positive", "negative"])
    >>> clf.predict(X).shape
    (2,)
    """

    _parameter_constraints = {
        "variant": [Options(set(VARIANTS))],
        "aspect_type": [Options({"auto", "category", "term"})],
        "embeddings": [
            None,
            InstanceOf((str,), "a string"),
            InstanceOf((os.PathLike,), "a path"),
        ],
        "embedding_dim": [None, Interval(int, 1, None)],
        "freeze_embeddings": [Options({True, False})],
        "embedding_lr": [None, Interval(float, 0, None, "neither")],
        "aspect_size": [None, Interval(int, 1, None)],
        "hidden_size": [Interval(int, 1, None)],
        "bidirectional": [Options({True, False})],
        "attention_score": [Options(set(ATTENTION_SCORES))],
        "attention_heads": [Interval(int, 1, None)],
        "final_state": [Options(set(FINAL_STATES))],
        "position_weighting": [Options(set(POSITION_WEIGHTINGS))],
        "term_marker": [Options({True, False})],
        "term_query": [Options(set(TERM_QUERIES))],
        "augment": [None, Options(set(AUGMENTATIONS))],
        "antonyms": [None, InstanceOf((dict,), "a dict")],
        "encoder": [Options(set(ENCODERS))],
        "pretrained_model": [None, InstanceOf((str, os.PathLike), "a path")],
        "pretrained_input": [Options({"vector", "pair"})],
        "n_layers": [Interval(int, 1, None)],
        "n_heads": [Interval(int, 1, None)],
        "d_model": [Interval(int, 1, None)],
        "ff_size": [None, Interval(int, 1, None)],
        "norm_first": [Options({True, False})],
        "positional": [Options({"sinusoidal", "learned"})],
        "position_merge": [Options({"add", "concat"})],
        "transformer_dropout": [Interval(float, 0, 1, "left")],
        "dropout": [Interval(float, 0, 1, "left")],
        "embedding_dropout": [Interval(float, 0, 1, "left")],
        "lowercase": [Options({True, False})],
        "min_count": [Interval(int, 1, None)],
        "extra_vocabulary": [Interval(int, 0, None)],
        "max_len": [Interval(int, 1, None)],
        "optimizer": [Options(set(training.OPTIMIZERS))],
        "lr": [Interval(float, 0, None, "neither")],
        "weight_decay": [Interval(float, 0, None)],
        "batch_size": [Interval(int, 1, None)],
        "batch_by": [Options({"auto", "sentence", "pair"})],
        "max_epochs": [Interval(int, 1, None)],
        "gradient_clip": [None, Interval(float, 0, None, "neither")],
        "class_weight": [None, Options({"balanced"}), InstanceOf((dict,), "a dict")],
        "validation_fraction": [None, Interval(float, 0, 1, "neither")],
        "early_stopping": [Options({True, False})],
        "scoring": [Options({"loss", "accuracy", "f1_macro"})],
        "patience": [Interval(int, 1, None)],
        "checkpoint_dir": [None, InstanceOf((str, os.PathLike), "a path")],
        "text_column": [InstanceOf((str,), "a string")],
        "aspect_column": [InstanceOf((str,), "a string")],
        "random_state": [
            None,
            Interval(int, 0, None),
            InstanceOf(
                (np.random.RandomState, np.random.Generator),
                "a numpy RandomState or Generator",
            ),
        ],
        "device": [
            Options.matching(_DEVICE_RE, "'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'")
        ],
        "quantize": [None, Options(set(QUANTIZE_OPTIONS))],
        "verbose": [Interval(int, 0, None)],
    }

    def __init__(
        self,
        *,
        variant="atae",
        aspect_type="auto",
        embeddings="word2vec",
        embedding_dim=None,
        freeze_embeddings=False,
        embedding_lr=None,
        aspect_size=None,
        hidden_size=300,
        bidirectional=False,
        attention_score="additive",
        attention_heads=1,
        final_state=True,
        position_weighting="none",
        term_marker=False,
        term_query="vectors",
        augment=None,
        antonyms=None,
        encoder="lstm",
        pretrained_model=None,
        pretrained_input="vector",
        n_layers=2,
        n_heads=4,
        d_model=128,
        ff_size=None,
        norm_first=True,
        positional="sinusoidal",
        position_merge="add",
        transformer_dropout=0.1,
        dropout=0.5,
        embedding_dropout=0.5,
        lowercase=True,
        min_count=1,
        extra_vocabulary=0,
        max_len=100,
        optimizer="adam",
        lr=1e-3,
        weight_decay=0.0,
        batch_size=32,
        batch_by="auto",
        max_epochs=20,
        gradient_clip=None,
        class_weight=None,
        validation_fraction=None,
        early_stopping=False,
        scoring="loss",
        patience=5,
        checkpoint_dir=None,
        text_column="text",
        aspect_column="aspect",
        random_state=None,
        device="auto",
        quantize=None,
        verbose=0,
    ):
        self.variant = variant
        self.aspect_type = aspect_type
        self.embeddings = embeddings
        self.embedding_dim = embedding_dim
        self.freeze_embeddings = freeze_embeddings
        self.embedding_lr = embedding_lr
        self.aspect_size = aspect_size
        self.hidden_size = hidden_size
        self.bidirectional = bidirectional
        self.attention_score = attention_score
        self.attention_heads = attention_heads
        self.final_state = final_state
        self.position_weighting = position_weighting
        self.term_marker = term_marker
        self.term_query = term_query
        self.augment = augment
        self.antonyms = antonyms
        self.encoder = encoder
        self.pretrained_model = pretrained_model
        self.pretrained_input = pretrained_input
        self.n_layers = n_layers
        self.n_heads = n_heads
        self.d_model = d_model
        self.ff_size = ff_size
        self.norm_first = norm_first
        self.positional = positional
        self.position_merge = position_merge
        self.transformer_dropout = transformer_dropout
        self.dropout = dropout
        self.embedding_dropout = embedding_dropout
        self.lowercase = lowercase
        self.min_count = min_count
        self.extra_vocabulary = extra_vocabulary
        self.max_len = max_len
        self.optimizer = optimizer
        self.lr = lr
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.batch_by = batch_by
        self.max_epochs = max_epochs
        self.gradient_clip = gradient_clip
        self.class_weight = class_weight
        self.validation_fraction = validation_fraction
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.patience = patience
        self.checkpoint_dir = checkpoint_dir
        self.text_column = text_column
        self.aspect_column = aspect_column
        self.random_state = random_state
        self.device = device
        self.quantize = quantize
        self.verbose = verbose

    # ---------------------------------------------------------------- sklearn plumbing
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.non_deterministic = self.random_state is None
        return tags

    def _check_params(self) -> None:
        validate_params(self, self._parameter_constraints)
        name = type(self).__name__
        if self.encoder == "pretrained":
            if self.pretrained_model is None:
                raise ValueError(
                    f"encoder='pretrained' needs pretrained_model= (a local Hugging "
                    f"Face checkpoint directory) in {name}."
                )
            if self.variant != "at":
                raise ValueError(
                    "encoder='pretrained' supports variant='at' only (the aspect "
                    "reaches the encoder through pretrained_input='pair' instead of "
                    f"being appended to word vectors); got variant={self.variant!r}."
                )
        if self.encoder == "transformer" and self.d_model % self.n_heads:
            raise ValueError(
                f"d_model={self.d_model} must be divisible by n_heads={self.n_heads} "
                f"in {name} (each head gets d_model / n_heads dimensions)."
            )
        if self.early_stopping and self.validation_fraction is None:
            raise ValueError(
                f"early_stopping=True needs a validation split: set validation_fraction"
                f" (e.g. 0.1) on {name}."
            )
        self._warn_unused_params()

    def _warn_unused_params(self) -> None:
        """Warn about parameters set to a non-default value that these settings
        ignore, in sklearn's words."""
        defaults = type(self)().get_params()
        unused = [
            (param, f"encoder={self.encoder!r}")
            for param, encoders in ENCODER_PARAMS.items()
            if self.encoder not in encoders and param in defaults
        ]
        if self.variant == "ae":
            unused += [(param, "variant='ae'") for param in ATTENTION_PARAMS]
            unused.append(("term_query", "variant='ae'"))
        if self.aspect_type == "category":
            unused += [(param, "aspect_type='category'") for param in TERM_PARAMS]
        if self.embeddings is None or self.embeddings in TRAINABLE:
            # nothing to read beyond the training text
            unused.append(("extra_vocabulary", f"embeddings={self.embeddings!r}"))
        self._warn_defaults_differ(unused, defaults)

    def _warn_defaults_differ(self, unused, defaults) -> None:
        for param, setting in unused:
            if param not in defaults:  # not a parameter of this estimator
                continue
            value = getattr(self, param)
            if value is not defaults[param] and value != defaults[param]:
                warnings.warn(
                    f"The parameter {param!r} is not used when {setting}.",
                    AspectAttnWarning,
                    stacklevel=3,
                )

    # ------------------------------------------------------------------------- fitting
    def fit(self, X, y):
        """Train on ``(text, aspect)`` pairs ``X`` with labels ``y``.

        Parameters
        ----------
        X : sequence of (str, str) pairs or DataFrame
        y : array-like of shape (n_pairs,)

        Returns
        -------
        self : AspectAttentionClassifier
        """
        self._check_params()
        texts, aspects, feature_names, char_spans = check_pairs(
            X, self.text_column, self.aspect_column, return_spans=True
        )
        labels = check_labels(y, len(texts))
        classes, y_index = np.unique(labels, return_inverse=True)
        if len(classes) < 2:
            raise InputError(
                f"y has a single class ({classes[0]!r}); a classifier "
                "needs samples of at least 2 classes."
            )
        seed = _resolve_seed(self.random_state)
        rng = np.random.default_rng(seed)
        device = _resolve_device(self.device)
        aspect_type = resolve_aspect_type(self.aspect_type, texts, aspects)
        run_data = (texts, aspects, labels)
        synthetic_source = None
        if self.augment is not None and aspect_type == "term":
            texts, aspects, char_spans, labels, synthetic_source = _augment(
                self, texts, aspects, char_spans, labels, classes, seed
            )
            y_index = np.searchsorted(classes, labels)
        categories = np.array(
            sorted(set(aspects)) if aspect_type == "category" else [], dtype=object
        )
        if aspect_type == "category" and self.aspect_type == "auto":
            self._warn_defaults_differ(
                [(p, "the aspects are categories") for p in TERM_PARAMS],
                type(self)().get_params(),
            )
        plain_rng = None
        if synthetic_source is not None and self.encoder != "pretrained":
            # The copies' new words take random vectors too, which moves the
            # generator; the split is drawn from where a fit without copies stands,
            # so both hold out the same sentences and their validation scores compare.
            plain_rng = copy.deepcopy(rng)
            prepare_model(
                self, *run_data[:2], aspect_type, categories, 0, seed, plain_rng
            )
        pipeline, module_config, init, coverage = prepare_model(
            self, texts, aspects, aspect_type, categories, len(classes), seed, rng
        )
        rng = rng if plain_rng is None else plain_rng
        sentences, sentence_of_pair = pipeline.encode_pairs(texts, aspects)
        aspect_data = self._aspect_input(pipeline, aspect_type, categories, aspects)
        spans = _term_spans(pipeline, module_config, texts, aspects, char_spans)
        dataset = PairDataset(sentences, sentence_of_pair, aspect_data, y_index, spans)
        module, history, best_epoch, interrupted, fit_time = train_module(
            self,
            lambda: AspectAttentionModel(**module_config),
            init,
            dataset,
            run_data[0],
            seed,
            rng,
            device,
            run_data=run_data,
            y_index=y_index,
            classes=classes,
            synthetic_source=synthetic_source,
        )
        # The fitted state; the skorch net (optimizer state, callbacks) is dropped so
        # the fitted model stays small and pickle-safe.
        self._set_fitted(
            classes_=classes,
            aspect_type_=aspect_type,
            aspects_=categories,
            text_pipeline_=pipeline,
            embedding_coverage_=coverage,
            module_config_=module_config,
            module_=module,
            device_=device,
            history_=history,
            best_epoch_=best_epoch,
            interrupted_=interrupted,
            fit_time_=fit_time,
            n_features_in_=2,
            feature_names_in_=feature_names,
        )
        return self

    def _aspect_input(self, pipeline, aspect_type, categories, aspects):
        """Category ids (n,), or the terms' token ids (EncodedTexts)."""
        if aspect_type == "term":
            return pipeline.encode_terms(aspects)
        return category_ids(aspects, categories)

    # ---------------------------------------------------------------------- inference
    def encode(self, X) -> PairDataset:
        """The model input for pairs ``X``: each distinct sentence encoded once, the
        aspects as ids. The first step of every prediction method; a seam for
        benchmarks and custom loops (see :mod:`aspectattn.inference`)."""
        check_is_fitted(self, "module_")
        texts, aspects, _, spans = check_pairs(
            X, self.text_column, self.aspect_column, return_spans=True
        )
        return self._dataset(texts, aspects, spans)

    def _dataset(self, texts, aspects, char_spans=None) -> PairDataset:
        pipeline = self.text_pipeline_
        sentences, index = pipeline.encode_pairs(texts, aspects)
        aspect_data = self._aspect_input(
            pipeline, self.aspect_type_, self.aspects_, aspects
        )
        spans = _term_spans(pipeline, self.module_config_, texts, aspects, char_spans)
        return PairDataset(sentences, index, aspect_data, spans=spans)

    def decision_function(self, X) -> np.ndarray:
        """Unnormalised class scores (logits).

        Returns
        -------
        ndarray of shape (n_pairs, n_classes), or (n_pairs,) with two classes: the
        score of ``classes_[1]`` against ``classes_[0]``, as scikit-learn expects.
        """
        logits = self._logits(self.encode(X))
        if len(self.classes_) == 2:
            return logits[:, 1] - logits[:, 0]
        return logits

    def _logits(self, dataset: PairDataset) -> np.ndarray:
        module, device = self._inference_module()
        return inference.pair_logits(module, dataset, device, len(self.classes_))

    def _inference_module(self) -> tuple[torch.nn.Module, str]:
        """``(module, device)`` that predictions run on: ``module_`` on ``device_``,
        or with ``quantize="int8"`` its int8 copy on the CPU (made on first use and
        kept until the model is refitted)."""
        check_is_fitted(self, "module_")
        if self.quantize is None:
            return self.module_, self.device_
        validate_params(self, {"quantize": self._parameter_constraints["quantize"]})
        source, quantized = self.__dict__.get("_quantized", (None, None))
        if source is not self.module_:
            quantized = quantize_module(self.module_)
            self._quantized = (self.module_, quantized)
        return quantized, "cpu"

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n_pairs, n_classes), columns as ``classes_``."""
        return softmax(self._logits(self.encode(X)).astype(np.float64), axis=1)

    def predict(self, X) -> np.ndarray:
        """Predicted labels (the original labels of ``y``), shape (n_pairs,)."""
        logits = self._logits(self.encode(X))  # checks fitted first
        return self.classes_[np.argmax(logits, axis=1)]

    def explain(self, X) -> list[dict]:
        """Attention weights per token, with the prediction, for each pair.

        Returns
        -------
        list of dict
            One per pair with keys ``text``, ``aspect``, ``tokens`` (as the model saw
            them, after lower-casing and truncation), ``weights`` (ndarray, one per
            token, summing to 1; with several attention heads their mean, which also
            sums to 1), ``head_weights`` (ndarray (heads, tokens), only with
            ``attention_heads > 1``), ``label`` and ``proba`` (ndarray over
            ``classes_``).
        """
        check_is_fitted(self, "module_")
        if not self.module_.uses_attention:
            raise ValueError(
                f"variant={self.variant!r} has no attention layer; "
                "use variant='at' or 'atae' to get attention weights."
            )
        texts, aspects, _, spans = check_pairs(
            X, self.text_column, self.aspect_column, return_spans=True
        )
        dataset = self._dataset(texts, aspects, spans)
        pipeline = self.text_pipeline_
        sentence_tokens = pipeline.tokens(dataset.sentences, distinct_index(texts)[0])
        module, device = self._inference_module()
        logits, alphas = inference.pair_logits(
            module, dataset, device, len(self.classes_), attention=True
        )
        proba = softmax(logits.astype(np.float64), axis=1)
        out = []
        for i, (t, a, w, p) in enumerate(
            zip(texts, aspects, alphas, proba, strict=True)
        ):
            w = w.astype(np.float64)
            entry = {
                "text": t,
                "aspect": a,
                "tokens": sentence_tokens[dataset.sentence[i]],
                "weights": w if w.ndim == 1 else w.mean(0),
                "label": self.classes_[p.argmax()],
                "proba": p,
            }
            if w.ndim == 2:
                entry["head_weights"] = w
            out.append(entry)
        return out

    def self_attention(self, X) -> list[np.ndarray]:
        """Self-attention maps of the transformer (or pretrained) encoder, per pair.

        Returns
        -------
        list of ndarray of shape (n_layers, n_heads, n_tokens, n_tokens)
            Entry ``[l, h, i, j]``: how much token ``i`` attends to token ``j`` in
            head ``h`` of layer ``l``; rows sum to 1. Tokens as in :meth:`explain`.
        """
        # An encoder without self-attention (the LSTM) says so with a ValueError.
        dataset = self.encode(X)
        module, device = self._inference_module()
        return inference.self_attention_maps(module, dataset, device)

    def predict_proba_aspects(self, texts, aspects=None) -> np.ndarray:
        """Probabilities of every sentence for each of several aspects.

        When the encoder does not see the aspect (``variant="at"``), each sentence is
        encoded once and the encoder states are shared by all aspects; otherwise
        each (sentence, aspect) pair is encoded. A model that uses the term's
        position scores each (sentence, term) pair, with the term found in the
        sentence (an error where it is not).

        Parameters
        ----------
        texts : sequence of str
        aspects : sequence of str or None
            Aspects to score every sentence on; ``None`` uses every category seen
            in ``fit`` (``aspects_``).

        Returns
        -------
        proba : ndarray of shape (n_texts, n_aspects, n_classes)
        """
        check_is_fitted(self, "module_")
        texts = check_texts(texts)
        if aspects is None:
            if self.aspect_type_ != "category":
                raise ValueError(
                    "aspects is required for a model of aspect_type 'term'."
                )
            aspects = list(self.aspects_)
        aspects = check_texts(aspects, what="aspects")
        if self.text_pipeline_.aspect_in_tokens or uses_position(self.module_config_):
            # The aspect is part of the input, or its place in the sentence is:
            # every pair is its own sequence.
            pairs = [(t, a) for t in texts for a in aspects]
            proba = self.predict_proba(pairs)
            return proba.reshape(len(texts), len(aspects), -1)
        aspect_data = self._aspect_input(
            self.text_pipeline_, self.aspect_type_, self.aspects_, aspects
        )
        if isinstance(aspect_data, EncodedTexts):
            aspect_data = aspect_data.pad(np.arange(len(aspects)))[0]
        module, device = self._inference_module()
        logits = inference.aspect_logits(
            module,
            self.text_pipeline_.encode(texts),
            torch.from_numpy(aspect_data),
            device,
            len(self.classes_),
        )
        return softmax(logits.astype(np.float64), axis=-1)

    def predict_aspects(self, texts, aspects=None) -> np.ndarray:
        """Labels of every sentence for each aspect, shape (n_texts, n_aspects).

        See :meth:`predict_proba_aspects`.
        """
        proba = self.predict_proba_aspects(texts, aspects)  # checks fitted first
        return self.classes_[proba.argmax(-1)]

    # ------------------------------------------------------------ fitted state
    @property
    def vocabulary_(self):
        """The word vocabulary (:class:`aspectattn.text.Vocabulary`), or None for a
        pretrained encoder."""
        return getattr(self.text_pipeline_, "vocabulary", None)

    @property
    def tokenizer_(self):
        """The tokenizer of the text pipeline."""
        return self.text_pipeline_.tokenizer

    def _set_fitted(self, **state) -> None:
        """Set the fitted state: every name in :data:`FITTED_ATTRIBUTES`."""
        if set(state) != set(FITTED_ATTRIBUTES):
            raise AssertionError(f"fitted state mismatch: {sorted(state)}")
        for name in FITTED_ATTRIBUTES:
            value = state[name]
            if value is None and name == "feature_names_in_":
                self.__dict__.pop(name, None)
            else:
                setattr(self, name, value)
        self.__dict__.pop("_quantized", None)  # the int8 copy of an older module_

    def _fitted_state(self) -> dict:
        """The fitted state as data: JSON-able values, the module as CPU tensors."""
        state = {
            name: getattr(self, name, None)
            for name in FITTED_ATTRIBUTES
            if name != "module_"
        }
        state["text_pipeline_"] = self.text_pipeline_.to_state()
        state["classes_"] = labels_state(self.classes_)
        state["aspects_"] = [str(a) for a in self.aspects_]
        if state["feature_names_in_"] is not None:
            state["feature_names_in_"] = [str(c) for c in self.feature_names_in_]
        return state

    def _module_tensors(self) -> dict[str, torch.Tensor]:
        return {
            k: v.detach().cpu().contiguous()
            for k, v in self.module_.state_dict().items()
        }

    @classmethod
    def _from_saved(cls, params: dict, state: dict, tensors: dict):
        """Rebuild a fitted estimator from :meth:`_fitted_state` data and tensors
        read from a file. Validates every field; raises ``ValueError`` or
        ``TypeError`` on anything unexpected."""
        estimator = cls()
        unknown = set(params) - set(estimator.get_params())
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)[:5]}")
        estimator.set_params(**params)
        validate_params(estimator, cls._parameter_constraints)
        expected = set(FITTED_ATTRIBUTES) - {"module_"}
        if not isinstance(state, dict) or set(state) != expected:
            raise ValueError(f"the fitted state must have the keys {sorted(expected)}")
        fitted = persistence.check_fitted_state(state)
        fitted["text_pipeline_"] = pipeline_from_state(state["text_pipeline_"])
        config = fitted["module_config_"] = check_module_config(state["module_config_"])
        if (
            config["n_classes"] != len(fitted["classes_"])
            or config["aspect_type"] != fitted["aspect_type_"]
            or config["n_aspects"] != max(len(fitted["aspects_"]), 1)
            or (config["encoder"] == "pretrained")
            != isinstance(fitted["text_pipeline_"], SubwordPipeline)
        ):
            raise ValueError(
                "the module configuration does not match the classes, aspects or "
                "text pipeline"
            )
        device = fitted["device_"]
        fitted["device_"] = (
            device
            if not device.startswith("cuda") or torch.cuda.is_available()
            else "cpu"
        )
        fitted["module_"] = _build_module(
            fitted["module_config_"], tensors, fitted["device_"]
        )
        estimator._set_fitted(**fitted)
        if isinstance(estimator.text_pipeline_, SubwordPipeline):
            n_ids = len(estimator.text_pipeline_.tokenizer._get())
            if n_ids > estimator.module_.embedding.num_embeddings:
                raise ValueError("the tokenizer has more ids than the model embeds")
        return estimator

    def __getstate__(self):
        if getattr(self, "module_", None) is None:
            return self.__dict__.copy()  # parameters only
        # The model file's content (JSON text and numpy arrays): no torch or gensim
        # objects, loads on any device, and __setstate__ checks every field, so a
        # skops file of a Pipeline holding the model is as safe as a .aam file.
        payload = persistence.to_payload(self)
        payload["tensors"] = {k: v.numpy() for k, v in payload["tensors"].items()}
        # A RandomState is not JSON data (the file stores None): kept beside it.
        return {"_aspectattn_model": payload, "random_state": self.random_state}

    def __setstate__(self, state):
        if "_aspectattn_model" in state:
            model = persistence.from_payload(state["_aspectattn_model"], "the pickle")
            if type(model) is not type(self):
                raise persistence.ModelFileError(
                    f"the state holds a {type(model).__name__}, not a "
                    f"{type(self).__name__}"
                )
            self.__dict__.update(model.__dict__)
            random_state = state.get("random_state")
            if isinstance(random_state, np.random.RandomState):
                self.random_state = random_state
            return
        # Pickles of aspectattn before the payload state: the estimator's __dict__
        # with the module's weights as numpy arrays.
        module_state = state.pop("_module_state", None)
        if "module_kwargs_" in state:  # pickled by aspectattn 0.1 (format 1)
            state, module_state = persistence.upgrade_v1_pickle(state, module_state)
        self.__dict__.update(state)
        if module_state is not None:
            tensors = {
                k: torch.from_numpy(np.array(v)) for k, v in module_state.items()
            }
            if self.device_.startswith("cuda") and not torch.cuda.is_available():
                self.device_ = "cpu"
            self.module_ = _build_module(self.module_config_, tensors, self.device_)

    def save(self, path) -> None:
        """Write the fitted model to ``path`` in a format that runs no code on load.

        See :func:`aspectattn.persistence.save`.
        """
        persistence.save(self, path)

    @classmethod
    def load(cls, path) -> AspectAttentionClassifier:
        """Read a model written by :meth:`save` (see :mod:`aspectattn.persistence`)."""
        model = persistence.load(path)
        if not isinstance(model, cls):
            raise TypeError(
                f"{path} holds a {type(model).__name__}, not a {cls.__name__}"
            )
        return model


# ------------------------------------------------------------------------ helpers
def _augment(est, texts, aspects, char_spans, labels, classes, seed):
    """The training pairs plus the copies ``est.augment`` makes of them.

    Returns the extended ``texts``, ``aspects``, ``char_spans`` and ``labels``, and
    ``source`` (n_new, 2): the given pairs each new pair was made from (the same
    twice for a flipped copy; one of each sentence for a joined one).
    """
    name = type(est).__name__
    missing = {"positive", "negative"} - set(classes.tolist())
    if missing:
        raise InputError(
            f"augment={est.augment!r} in {name} makes pairs labelled 'positive' "
            f"and 'negative'; y has no {sorted(missing)} among its classes "
            f"{classes.tolist()!r}."
        )
    spans = [None] * len(texts) if char_spans is None else list(char_spans)
    columns = (texts, aspects, spans, labels.tolist(), "positive", "negative")
    X_new, y_new, sources = [], [], []
    if "flip" in est.augment:
        X, y, _, source = augment.flip_pairs(
            *columns, antonyms=_check_antonyms(est.antonyms, name)
        )
        X_new, y_new = X_new + X, y_new + y
        sources.append(np.c_[source, source])
    if "join" in est.augment:
        # its own generator: the fit's draws stay those of a fit without copies
        X, y, source = augment.join_pairs(*columns, random_state=[seed, 1])
        X_new, y_new = X_new + X, y_new + y
        sources.append(source)
    source = np.concatenate(sources).astype(np.intp)
    # A copy identical to a given sentence (possibly on the other side of the
    # validation split, with another label) is dropped.
    given = set(texts)
    kept = [k for k, x in enumerate(X_new) if x[0] not in given]
    X_new, y_new, source = (
        [X_new[k] for k in kept],
        [y_new[k] for k in kept],
        source[kept],
    )
    if not X_new:
        warnings.warn(
            f"augment={est.augment!r} in {name} made no new pair (no opinion word "
            "next to a term to flip, no sentences of opposite polarity to join); "
            "training on the given pairs only.",
            AspectAttnWarning,
            stacklevel=3,
        )
    new_texts, new_terms, new_spans = ([x[k] for x in X_new] for k in range(3))
    return (
        list(texts) + new_texts,
        list(aspects) + new_terms,
        spans + new_spans,
        np.concatenate([labels, np.asarray(y_new, dtype=labels.dtype)]),
        source,
    )


def _check_antonyms(antonyms, name):
    """The ``antonyms`` parameter, validated (sklearn's wording)."""
    if antonyms is not None:
        bad = [
            (k, v)
            for k, v in antonyms.items()
            if not (isinstance(k, str) and isinstance(v, str) and k and v)
            or k != k.lower()
        ]
        if bad:
            raise ValueError(
                f"The 'antonyms' parameter of {name} must map lower-case words to "
                f"words (non-empty strings). Got {bad[0]!r} instead."
            )
    return antonyms


def _term_spans(pipeline, module_config, texts, aspects, char_spans):
    """The terms' token spans when the model reads them, else None."""
    if not uses_position(module_config):
        return None
    return pipeline.term_spans(texts, aspects, char_spans)


def _build_module(config: dict, tensors: dict, device: str) -> AspectAttentionModel:
    """The module of ``config`` with weights ``tensors`` (CPU), on ``device``."""
    with torch.device("meta"):  # no random init: the weights come next
        module = AspectAttentionModel(**config)
    module.load_state_dict(tensors, assign=True)
    if any(t.is_meta for t in module.buffers()):
        # A library module registered buffers outside the state dict (e.g.
        # position ids): build for real, without touching the global RNG.
        with torch.random.fork_rng(devices=[]):
            module = AspectAttentionModel(**config)
        module.load_state_dict(tensors)
    return module.to(device).eval()
