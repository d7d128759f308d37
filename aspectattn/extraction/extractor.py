"""The aspect term extractor: which words of a sentence name an aspect.

Sequence tagging (O/B/I per word, :mod:`aspectattn.extraction.words`) with a
bidirectional LSTM over word vectors, trained through skorch; the epoch kept is
the one with the best exact-span F1 on a validation share of the sentences.
"""

from __future__ import annotations

import os
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from skorch import NeuralNet
from skorch.callbacks import Callback
from skorch.utils import to_tensor
from torch.utils.data import Dataset

from .._fields import _is_int
from .._validation import _short, check_texts
from ..engine.batching import BucketLoader, length_sorted_batches
from ..engine.callbacks import BestWeights, FiniteLoss, StopWhenStalled
from ..engine.training import held_out_sentences, private_torch_rng
from ..estimators._base import SPLIT_STREAM, VECTOR_STREAM, resolve_device, resolve_seed
from ..exceptions import InputError
from ..nn.tagger import TermTagger
from ..params._constraints import Matching
from ..persistence import register
from ..text.languages import LANGUAGE_CODE, auto_language
from ..text.tokens import EncodedTexts, Tokenizer, Vocabulary
from ..text.vectors import build_embedding_matrix, resolve_word_vectors
from .metrics import span_f1
from .words import (
    O,
    character_ids,
    character_table,
    decode,
    tag_words,
    words_and_offsets,
)

__all__ = ["AspectTermExtractor"]

#: Words read per text; a term after them is not found (split long reviews into
#: sentences first: :func:`aspectattn.reviews.split_sentences`).
MAX_WORDS = 1000
#: Sentences per prediction batch.
PREDICT_BATCH = 256
_IGNORE = -100  # the loss's index for padding
#: What :attr:`AspectTermExtractor.history_` keeps of skorch's history.
_HISTORY = ("epoch", "train_loss", "valid_loss", "valid_f1")
#: The fitted state a model file holds beside the tensors.
_STATE_KEYS = {"language_", "words", "characters", "best_epoch_", "history_"}


class _TagDataset(Dataset):
    """Sentences as word ids, their words' character ids and their tags,
    batched padded to the batch's longest sentence and word
    (``__getitems__``, which the DataLoader calls with a batch's indices)."""

    def __init__(self, words: EncodedTexts, chars: np.ndarray, tags: EncodedTexts):
        self.words, self.chars, self.tags = words, chars, tags  # chars (n_words, W)
        self.lengths = words.lengths
        self.sentence = np.arange(len(words))  # (BucketLoader's groups)

    def __len__(self) -> int:
        return len(self.lengths)

    def __getitems__(self, index):
        ids, lengths = self.words.pad(index)  # (B, T), (B,)
        tags, _ = self.tags.pad(index)  # (B, T)
        tags[np.arange(ids.shape[1])[None, :] >= lengths[:, None]] = _IGNORE
        X = _inputs(ids, lengths, self.chars[_word_rows(self.words, index)])
        return X, torch.from_numpy(tags)

    def subset(self, index) -> _TagDataset:
        rows = _word_rows(self.words, index)
        return _TagDataset(
            self.words.take(index), self.chars[rows], self.tags.take(index)
        )


def _word_rows(words: EncodedTexts, index) -> np.ndarray:
    """The rows of the words of the texts at ``index`` in the flat word arrays,
    text after text."""
    index = np.asarray(index, dtype=np.int64)
    starts, lengths = words.offsets[index], words.lengths[index]
    cols = np.arange(int(lengths.max(initial=0)))
    return (starts[:, None] + cols)[cols < lengths[:, None]]


def _inputs(ids: np.ndarray, lengths: np.ndarray, chars: np.ndarray) -> dict:
    """The tagger's inputs: word ids (B, T), lengths (B,), and the character ids
    (B, T, W) of the batch's words (``chars``: (n_words, W'), text after text),
    W the batch's longest word."""
    real = np.arange(ids.shape[1])[None, :] < lengths[:, None]  # (B, T)
    width = max(int((chars > 0).sum(1).max(initial=1)), 1)
    padded = np.zeros((*ids.shape, width), dtype=np.int64)  # (B, T, W)
    padded[real] = chars[:, :width]
    return {
        "tokens": torch.from_numpy(ids),
        "lengths": torch.from_numpy(lengths),
        "chars": torch.from_numpy(padded),
    }


class _TaggerNet(NeuralNet):
    """skorch's net with the loss over every word: the module gives (B, T, K)
    logits, the targets (B, T) tags (``-100`` at padding)."""

    def get_loss(self, y_pred, y_true, X=None, training=False):
        y_true = to_tensor(y_true, device=self.device)
        return self.criterion_(y_pred.transpose(1, 2), y_true)  # (B, K, T), (B, T)


class _ValidSpanF1(Callback):
    """Record ``valid_f1``, the exact-span F1 of the validation sentences, after
    every epoch (before :class:`BestWeights` reads it)."""

    def __init__(self, dataset: _TagDataset):
        self.dataset = dataset

    def on_epoch_end(self, net, **kwargs):
        module = net.module_
        module.eval()
        gold, found = set(), set()
        for index in length_sorted_batches(self.dataset.lengths, PREDICT_BATCH):
            X, tags = self.dataset.__getitems__(index)
            with torch.no_grad():
                logits = module(**{k: v.to(net.device) for k, v in X.items()})
            real = tags != _IGNORE  # (B, T)
            lengths = X["lengths"].numpy()
            predicted = logits.argmax(-1).cpu()[real].numpy()
            for key, flat in ((gold, tags[real].numpy()), (found, predicted)):
                row, first, last, _ = decode(flat, np.ones(len(flat)), lengths)
                key.update(zip(index[row], first, last, strict=True))
        correct = len(gold & found)
        f1 = 2 * correct / (len(gold) + len(found)) if correct else 0.0
        net.history.record("valid_f1", f1)


@register
class AspectTermExtractor(BaseEstimator):
    """Find the aspect terms of sentences, as character spans.

    A bidirectional LSTM over word vectors tags each word as the first word of
    a term, a later word of one, or no term's; the tags are decoded into spans
    that always start and end on a word's first and last character in the
    text as given, in any script. Trained through skorch; the epoch kept is the
    one with the best exact-span F1 on ``validation_fraction`` of the
    sentences.

    Parameters
    ----------
    embeddings : str, path-like or None, default="word2vec"
        Word vectors: ``"word2vec"`` or ``"fasttext"`` trains them with gensim
        on the fitting texts; a path loads a vector file (word2vec, GloVe,
        gensim ``.kv``, fastText ``.bin``); ``None`` draws them at random. As
        the classifier's ``embeddings``.
    embedding_dim : int or None, default=None
        Size of trained or random vectors (100 when None); a file's own size.
    characters : bool, default=True
        Read each word's characters as written too (a convolution over them):
        case, digits and suffixes tell product names and words the vectors
        lack apart.
    hidden_size : int, default=100
        LSTM units per direction.
    dropout : float, default=0.5
        On the word vectors and on the LSTM's states.
    lr : float, default=1e-3
        Adam's learning rate.
    batch_size : int, default=32
        Sentences per training batch.
    max_epochs : int, default=50
    patience : int, default=5
        Epochs without a better validation F1 before training stops.
    validation_fraction : float, default=0.1
        Share of the sentences held out to choose the epoch.
    language : str, "auto" or None, default="auto"
        The tokenizer's language (an ISO 639 code; see
        :class:`~aspectattn.text.tokens.Tokenizer`): ``"en"`` splits English
        clitics, any other keeps a word's inner apostrophes; ``None``: no
        language's rules. ``"auto"``: ``"en"`` when the fitting texts look
        English, else ``None`` (see ``language_``).
    lowercase : bool, default=True
        Look words up lower-cased.
    device : str, default="auto"
        ``"auto"``: CUDA when available, else the CPU.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the vectors, the split, the weights and the batch order, without
        touching any global random state.
    verbose : int, default=0

    Attributes
    ----------
    module_ : torch.nn.Module
        The trained tagger (on the CPU; moved to ``device`` to predict).
    language_ : str or None
        The tokenizer's language.
    vocabulary_ : Vocabulary
    characters_ : ndarray of shape (n_characters,) uint32 or None
        The characters seen in fit (code points; None without character
        features).
    best_epoch_ : int
        The epoch whose weights were kept.
    history_ : list of dict
        Per epoch: ``train_loss``, ``valid_loss``, ``valid_f1``.

    Examples
    --------
    >>> from aspectattn import AspectTermExtractor
    >>> texts = ["The pasta was great.", "Our waiter was rude."] * 20
    >>> spans = [[(4, 9)], [(4, 10)]] * 20
    >>> extractor = AspectTermExtractor(max_epochs=30, random_state=0)
    >>> extractor.fit(texts, spans).predict(["The pasta was rude."])
    [[(4, 9)]]
    """

    _parameter_constraints: dict = {
        "embeddings": [None, str, os.PathLike],
        "embedding_dim": [None, Interval(Integral, 1, 100_000, closed="both")],
        "characters": ["boolean"],
        "hidden_size": [Interval(Integral, 1, 100_000, closed="both")],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "lr": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "patience": [Interval(Integral, 1, None, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "language": [
            None,
            StrOptions({"auto"}),
            Matching(LANGUAGE_CODE, ("en",), "an ISO 639 code"),
        ],
        "lowercase": ["boolean"],
        "device": [str],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        embeddings="word2vec",
        embedding_dim=None,
        characters=True,
        hidden_size=100,
        dropout=0.5,
        lr=1e-3,
        batch_size=32,
        max_epochs=50,
        patience=5,
        validation_fraction=0.1,
        language="auto",
        lowercase=True,
        device="auto",
        random_state=None,
        verbose=0,
    ):
        self.embeddings = embeddings
        self.embedding_dim = embedding_dim
        self.characters = characters
        self.hidden_size = hidden_size
        self.dropout = dropout
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.validation_fraction = validation_fraction
        self.language = language
        self.lowercase = lowercase
        self.device = device
        self.random_state = random_state
        self.verbose = verbose

    # -- fit --------------------------------------------------------------------
    def fit(self, X, y):
        """Learn to tag the terms ``y`` in the texts ``X``.

        Parameters
        ----------
        X : sequence of str
            Sentences (a review split into sentences trains best).
        y : sequence of sequences of (start, end) or (start, end, polarity)
            The character spans of each sentence's aspect terms (an empty list
            for a sentence without any); polarities are ignored.

        Returns
        -------
        self
        """
        self._validate_params()
        texts = check_texts(X, "X")
        spans = check_spans(y, texts)
        seed, device = resolve_seed(self.random_state), resolve_device(self.device)
        self.language_ = (
            auto_language(texts) if self.language == "auto" else self.language
        )
        self.tokenizer_ = Tokenizer(lowercase=self.lowercase, language=self.language_)
        words, offsets, cased = self._words(texts)
        if not all(words):
            empty = next(i for i, w in enumerate(words) if not w)
            raise InputError(f"X[{empty}] ({_short(texts[empty])}) has no words.")
        tags = [tag_words(o, s) for o, s in zip(offsets, spans, strict=True)]
        self.vocabulary_ = Vocabulary().fit(words)
        flat = [w for words in cased for w in words]
        self.characters_ = character_table(flat) if self.characters else None
        vectors, dim = resolve_word_vectors(
            self.embeddings, self.embedding_dim, words, seed
        )
        draws = np.random.default_rng([seed, VECTOR_STREAM])
        matrix, _ = build_embedding_matrix(self.vocabulary_.words_, vectors, dim, draws)
        del vectors  # (no gensim object stays in the fitted model)
        data = _TagDataset(
            self.vocabulary_.encode(words),
            self._character_ids(cased),
            EncodedTexts.from_lists(tags),
        )
        rng = np.random.default_rng([seed, SPLIT_STREAM])
        held = np.zeros(len(texts), dtype=bool)
        held[held_out_sentences(len(texts), self.validation_fraction, rng)] = True
        train = data.subset(np.flatnonzero(~held))
        valid = data.subset(np.flatnonzero(held))
        n_characters = 0 if self.characters_ is None else len(self.characters_) + 2
        with private_torch_rng(seed, device):
            module = TermTagger(
                vocab_size=len(matrix),
                embedding_dim=dim,
                n_characters=n_characters,
                hidden_size=self.hidden_size,
                dropout=self.dropout,
            )
            module.embedding.weight.data.copy_(torch.from_numpy(matrix))
            net, tracker = self._net(module, valid, rng, device)
            net.fit(train, y=None)
        self.module_ = net.module_.cpu().eval()
        self.best_epoch_ = tracker.kept_epoch_
        self.history_ = [
            {k: row[k] for k in _HISTORY if k in row} for row in net.history
        ]
        return self

    def _words(self, texts):
        """Per text, its words as looked up, their offsets and as written
        (the first :data:`MAX_WORDS`)."""
        words, offsets = words_and_offsets(texts, self.tokenizer_)
        offsets = [o[:MAX_WORDS] for o in offsets]
        cased = [[t[a:b] for a, b in o] for t, o in zip(texts, offsets, strict=True)]
        return [w[:MAX_WORDS] for w in words], offsets, cased

    def _character_ids(self, cased) -> np.ndarray:
        """(n_words, W) character ids of every word of every text, in order
        (one padding column without character features)."""
        flat = [w for words in cased for w in words]
        if self.characters_ is None:
            return np.zeros((len(flat), 1), dtype=np.int64)
        return character_ids(flat, self.characters_)

    def _net(self, module, valid, rng, device):
        from skorch.helper import predefined_split

        tracker = BestWeights("valid_f1", lower_is_better=False, load_best=True)
        net = _TaggerNet(
            module,
            criterion=torch.nn.CrossEntropyLoss,
            criterion__ignore_index=_IGNORE,
            optimizer=torch.optim.Adam,
            lr=self.lr,
            batch_size=self.batch_size,
            max_epochs=self.max_epochs,
            train_split=predefined_split(valid),
            iterator_train=BucketLoader,
            iterator_train__shuffle=True,
            iterator_train__generator=rng,
            iterator_valid=BucketLoader,
            iterator_valid__batch_size=PREDICT_BATCH,
            callbacks=[
                ("finite_loss", FiniteLoss()),
                ("valid_f1", _ValidSpanF1(valid)),
                ("best_weights", tracker),
                ("early_stopping", StopWhenStalled(tracker, self.patience)),
            ],
            device=device,
            verbose=self.verbose,
        )
        return net, tracker

    # -- predict ----------------------------------------------------------------
    def predict_spans(self, X) -> list[list[dict]]:
        """Each text's terms with their scores.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        list of list of dict
            Per text, in text order: ``{"span": (start, end), "term": str,
            "score": float}``, ``text[start:end] == term``; the score is the
            mean over the term's words of their probability of being in a term.
        """
        check_is_fitted(self, "module_")
        texts = check_texts(X, "X")
        words, offsets, cased = self._words(texts)
        encoded = self.vocabulary_.encode(words)
        lengths = encoded.lengths
        device = resolve_device(self.device)
        module = self.module_.to(device)
        out: list[list[dict]] = [[] for _ in texts]
        has_words = np.flatnonzero(lengths > 0)
        for batch in length_sorted_batches(lengths[has_words], PREDICT_BATCH):
            index = has_words[batch]
            ids, size = encoded.pad(index)  # (B, T), (B,)
            chars = self._character_ids([cased[i] for i in index])
            X = _inputs(ids, size, chars)
            with torch.inference_mode():
                logits = module(**{k: v.to(device) for k, v in X.items()})
                proba = logits.float().softmax(-1).cpu().numpy()  # (B, T, K)
            real = np.arange(ids.shape[1])[None, :] < size[:, None]  # (B, T)
            proba = proba[real]  # (n_words, K)
            row, first, last, score = decode(proba.argmax(-1), 1 - proba[:, O], size)
            for r, a, b, p in zip(index[row], first, last, score, strict=True):
                start, end = offsets[r][a][0], offsets[r][b][1]
                term = texts[r][start:end]
                out[r].append({"span": (start, end), "term": term, "score": float(p)})
        self.module_.cpu()
        return out

    def predict(self, X) -> list[list[tuple[int, int]]]:
        """Each text's terms as ``(start, end)`` character spans, in text order."""
        return [[t["span"] for t in terms] for terms in self.predict_spans(X)]

    def score(self, X, y) -> float:
        """Exact-span micro F1 of :meth:`predict` against ``y`` (SemEval's
        measure; :func:`~aspectattn.extraction.span_scores` gives precision and
        recall too)."""
        texts = check_texts(X, "X")
        return span_f1(check_spans(y, texts), self.predict(texts))

    # -- the model file (aspectattn.persistence.save / load) ---------------------
    def _fitted_state(self) -> dict:
        """The fitted state as JSON-able data (the module's shapes are its
        tensors')."""
        characters = self.characters_
        return {
            "language_": self.language_,
            "words": list(self.vocabulary_.words_),
            "characters": None if characters is None else characters.tolist(),
            "best_epoch_": int(self.best_epoch_),
            "history_": self.history_,
        }

    def _module_tensors(self) -> dict[str, torch.Tensor]:
        return {
            k: v.detach().cpu().contiguous()
            for k, v in self.module_.state_dict().items()
        }

    @classmethod
    def _from_saved(cls, params: dict, state: dict, tensors: dict):
        """Rebuild a fitted extractor from a model file's parameters, state and
        tensors, each checked (``ValueError`` or ``TypeError`` otherwise); the
        module's sizes are read from the tensors, so nothing is built larger
        than the file."""
        from ..persistence import _history

        extractor = cls()
        unknown = set(params) - set(extractor.get_params(deep=False))
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)[:5]}")
        extractor.set_params(**params)
        extractor._validate_params()
        if not isinstance(state, dict) or set(state) != _STATE_KEYS:
            raise ValueError(
                f"the fitted state must have the keys {sorted(_STATE_KEYS)}"
            )
        language = state["language_"]
        if not (
            language is None
            or (isinstance(language, str) and LANGUAGE_CODE.fullmatch(language))
        ):
            raise ValueError("language_ must be an ISO 639 code or null")
        extractor.language_ = language
        extractor.tokenizer_ = Tokenizer(
            lowercase=extractor.lowercase, language=language
        )
        extractor.vocabulary_ = Vocabulary.from_words(state["words"])
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
        extractor.characters_ = characters
        if not _is_int(state["best_epoch_"]):
            raise ValueError("best_epoch_ must be an int >= 0")
        extractor.best_epoch_ = state["best_epoch_"]
        extractor.history_ = _history(state["history_"])
        vocab_size, embedding_dim = tensors["embedding.weight"].shape
        if vocab_size != len(extractor.vocabulary_.words_):
            raise ValueError("the embedding table does not match the vocabulary")
        n_characters = 0 if characters is None else len(characters) + 2
        if characters is not None and (
            tensors["char_embedding.weight"].shape[0] != n_characters
        ):
            raise ValueError("the character table does not match the characters")
        module = TermTagger(
            vocab_size=vocab_size,
            embedding_dim=embedding_dim,
            n_characters=n_characters,
            hidden_size=tensors["lstm.weight_hh_l0"].shape[1],
            dropout=extractor.dropout,
        )
        module.load_state_dict(tensors)  # strict: every name and shape
        extractor.module_ = module.eval()
        return extractor

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags


def check_spans(y, texts: list[str]) -> list[list[tuple]]:
    """``y`` as one list of ``(start, end[, polarity])`` tuples per text, each span
    inside its text; a clear error naming the text otherwise."""
    if isinstance(y, (str, bytes, dict)) or not hasattr(y, "__iter__"):
        raise InputError(
            "y must hold one list of (start, end) spans per text, got "
            f"{type(y).__name__}."
        )
    y = list(y)
    if len(y) != len(texts):
        raise InputError(f"X has {len(texts)} texts but y has {len(y)} span lists.")
    out = []
    for i, (text, spans) in enumerate(zip(texts, y, strict=True)):
        if isinstance(spans, (str, bytes, dict)) or not hasattr(spans, "__iter__"):
            raise InputError(
                f"y[{i}] must be a list of (start, end) spans (empty for none), "
                f"got {_short(spans)}."
            )
        checked = []
        for span in spans:
            if (
                isinstance(span, (str, bytes, dict))
                or not hasattr(span, "__len__")
                or len(span) not in (2, 3)
                or not all(
                    isinstance(v, Integral) and not isinstance(v, bool)
                    for v in span[:2]
                )
                or not 0 <= span[0] < span[1] <= len(text)
            ):
                raise InputError(
                    f"y[{i}] holds {_short(span)}: a span is (start, end) or (start, "
                    f"end, polarity) with 0 <= start < end <= {len(text)}, the "
                    "length of its text."
                )
            checked.append((int(span[0]), int(span[1]), *span[2:]))
        out.append(checked)
    return out
