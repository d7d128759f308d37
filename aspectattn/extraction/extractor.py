"""The aspect term extractor: which words of a sentence name an aspect.

Sequence tagging (O/B/I per token, :mod:`aspectattn.extraction.words`) with a
bidirectional LSTM over word vectors and characters, or a pretrained checkpoint
fine-tuned end to end, trained through skorch (:mod:`._nets`); the epoch
kept is the one with the best exact-span F1 on a validation share of the
sentences. ``fit`` reads top to bottom: the inputs, the tags, the module, the
training.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import params as P
from .. import persistence
from .._fields import _is_int
from .._validation import _short, check_texts, text_tags
from ..encoders import LSTMEncoder, PretrainedEncoder, encoder_component
from ..engine.quantization import check_bfloat16, quantize_module
from ..engine.training import Task, build_net, held_out_sentences, private_torch_rng
from ..estimators._base import SPLIT_STREAM, VECTOR_STREAM, resolve_device, resolve_seed
from ..exceptions import AspectAttnWarning, InputError
from ..nn.ops import in_bfloat16
from ..nn.tagger import PretrainedTagger, TermTagger
from ..params._constraints import Interval, JSONObject, Matching, validate_params
from ..params._core import DEVICE_DESCRIPTION, DEVICE_RE, QUANTIZE_OPTIONS
from ..params.components import component_for_prefix, component_from_data
from ..persistence import register
from ..text.languages import LANGUAGE_CODE, auto_language
from ..text.tokens import EncodedTexts, Tokenizer
from ..text.vectors import build_embedding_matrix, resolve_word_vectors
from ..training import EarlyStopping, Optimizer, early_stopping_component
from ._nets import (
    IGNORE,
    PREDICT_BATCH,
    TagDataset,
    TaggerNet,
    ValidSpanF1,
    transition_scores,
)
from .inputs import SubwordInputs, WordInputs, inputs_from_state
from .metrics import check_spans, span_f1
from .reading import read_terms
from .words import DECODINGS, tag_words

__all__ = ["AspectTermExtractor"]

#: The span taggers' components by parameter: what stands for one -> it.
_SLOTS = {"encoder": encoder_component, "early_stopping": early_stopping_component}
#: What :attr:`AspectTermExtractor.history_` keeps of skorch's history.
_HISTORY = ("epoch", "train_loss", "valid_loss", "valid_f1", "valid_score")
#: Each encoder the tagger takes -> the parameters it reads; the encoder's
#: others, which only the classifiers read, must keep their defaults.
_READS = {
    "lstm": {"hidden_size", "embeddings", "embedding_dim", "lowercase"},
    "pretrained": {"path"},
}
#: The fitted state a model file holds beside the tensors.
_STATE_KEYS = {"language_", "inputs", "best_epoch_", "history_"}


def _auto(constraint) -> list:
    return [StrOptions({"auto"}), constraint]


class SpanTagger(BaseEstimator):
    """What the span taggers share -- :class:`AspectTermExtractor` and the joint
    :class:`~aspectattn.extraction.joint.AspectSentimentExtractor`: the encoder
    component and its recipe, the inputs, training through skorch with the epoch
    chosen on validation, and the model file. A subclass says what ``y`` is
    (``_check_y``), what the net learns from (``_dataset``, ``_module``,
    ``_NET``, ``_SCORING``) and what its fitted state adds (``_STATE_KEYS``).
    """

    _parameter_constraints: dict = {
        "encoder": [StrOptions({"lstm", "pretrained"}), LSTMEncoder, PretrainedEncoder],
        "characters": ["boolean"],
        "dropout": _auto(Interval(Real, 0, 1, closed="left")),
        "lr": _auto(Interval(Real, 0, None, closed="neither")),
        "batch_size": _auto(Interval(Integral, 1, None, closed="left")),
        "max_epochs": _auto(Interval(Integral, 1, None, closed="left")),
        "early_stopping": ["boolean", EarlyStopping],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "decoding": [StrOptions({"auto", *DECODINGS})],
        "language": [
            None,
            StrOptions({"auto"}),
            Matching(LANGUAGE_CODE, ("en",), "an ISO 639 code"),
        ],
        "device": [
            Matching(DEVICE_RE, ("auto", "cpu", "cuda", "mps"), DEVICE_DESCRIPTION)
        ],
        "quantize": [None, StrOptions(set(QUANTIZE_OPTIONS))],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    #: The skorch net and the callback that scores the validation sentences.
    _NET = TaggerNet
    _SCORING = ValidSpanF1
    #: What :attr:`history_` keeps of skorch's history.
    _HISTORY = _HISTORY
    #: The fitted state a model file holds beside the tensors.
    _STATE_KEYS = _STATE_KEYS
    #: The prefix of the tagger's tensors in the module's.
    _TAGGER = ""
    #: The tags the epoch is chosen on: ``"greedy"``, or None for the tags
    #: read as ``decoding`` says. Each model's by ``benchmarks/decoding.py``:
    #: the extractor's validation F1 was best with the epoch on the greedy
    #: tags, the joint model's with it on the tags it reads.
    _EPOCH_ON: str | None = "greedy"
    #: The recipe's field that ``decoding="auto"`` reads.
    _AUTO_DECODING = "extractor_decoding"

    def _decoding(self) -> str:
        """How the tags are read (``decoding``, ``"auto"`` resolved); read at
        each prediction, so ``set_params(decoding=...)`` needs no refit (but
        to ``"crf"``, which reads what a tagger fitted with it learned)."""
        validate_params(self, {"decoding": self._parameter_constraints["decoding"]})
        if self.decoding != "auto":
            return self.decoding
        kind = encoder_component(self.encoder).kind
        return getattr(P.ENCODERS[kind].recipe, self._AUTO_DECODING)

    def _reading(self) -> dict:
        """How a prediction reads the fitted tagger's tags:
        :func:`~aspectattn.extraction.reading.read_terms`' ``decoding`` and
        ``transitions``."""
        decoding = self._decoding()
        transitions = transition_scores(self.module_)
        if decoding == "crf" and transitions is None:
            raise ValueError(
                "decoding='crf' reads the tag transitions a tagger learns when it "
                "is fitted with decoding='crf'; this one was not: fit it again, or "
                "set decoding='viterbi'"
            )
        return {"decoding": decoding, "transitions": transitions}

    def set_params(self, **params):
        """Set the parameters (scikit-learn's ``set_params``); a component's
        parameter (``encoder__hidden_size``, ``early_stopping__patience``) on a
        component given by what stands for it (a name, ``True``) makes it the
        component first."""
        for slot, component in _SLOTS.items():
            value = params.pop(slot, getattr(self, slot))
            setattr(self, slot, component_for_prefix(slot, value, params, component))
        return super().set_params(**params)

    def _encoder(self):
        """The encoder component (its name gives its defaults), checked: the
        settings the tagger does not read keep their defaults (``encoder`` itself
        is one the tagger takes: ``_validate_params``)."""
        encoder = encoder_component(self.encoder)
        encoder.check(type(self).__name__, _READS[encoder.kind])
        return encoder

    def _early_stopping(self):
        """The early-stopping component (``True``: its defaults; None:
        ``False``), checked: its ``scoring`` keeps its default (the tagger's
        epoch is chosen on its validation F1)."""
        stopping = early_stopping_component(self.early_stopping)
        if stopping is not None:
            stopping.check(type(self).__name__, {"patience"})
        return stopping

    # -- fit --------------------------------------------------------------------
    def _fit(self, X, y, teaching=None):
        """Learn from the texts ``X`` and their terms ``y`` (a subclass says
        what ``y`` holds: ``_check_y``), and from a teacher (``teaching``:
        a subclass's ``_taught``).

        Returns
        -------
        self
        """
        self._validate_params()
        encoder = self._encoder()
        texts = check_texts(X, "X")
        spans, labelled = self._check_y(y, texts, teaching)
        _warn_overlaps(spans)
        seed, device = resolve_seed(self.random_state), resolve_device(self.device)
        self.language_ = (
            auto_language(texts) if self.language == "auto" else self.language
        )
        self.resolved_params_ = self._recipe(encoder)
        # the validation sentences (labelled ones); the teacher's answers; copies
        # of the labelled training sentences (a subclass's)
        rng = np.random.default_rng([seed, SPLIT_STREAM])
        rows = np.flatnonzero(labelled)
        held = np.zeros(len(texts), dtype=bool)
        held[rows[held_out_sentences(len(rows), self.validation_fraction, rng)]] = True
        soft = None
        if teaching is not None:
            spans, soft = self._taught(texts, spans, labelled, held, teaching)
        made, made_spans = self._copies(texts, spans, labelled & ~held, seed)
        # the encoder's tokens (the copies' words in its vocabulary too), and
        # what the net learns of them
        everything = texts + made
        build, init = self._encoder_inputs(encoder, everything, seed)
        encoded = self.inputs_.encode(everything)
        if soft is not None:
            soft = soft + [None] * len(made)
        data = self._dataset(everything, encoded, spans + made_spans, soft)
        copies = len(texts) + np.arange(len(made))
        train = data.subset(np.r_[np.flatnonzero(~held), copies])
        valid = data.subset(np.flatnonzero(held))
        with private_torch_rng(seed, device):
            module = self._module(build)()
            init(module)
            net, tracker = self._net(encoder, module, valid, rng, device, teaching)
            net.fit(train, y=None)
        self.module_ = net.module_.cpu().eval()
        self.best_epoch_ = tracker.kept_epoch_
        self.history_ = [
            {k: row[k] for k in self._HISTORY if k in row} for row in net.history
        ]
        return self

    def _copies(self, texts, spans, train, seed: int) -> tuple[list, list]:
        """Sentences made from the training ones (``train``: a mask) to train
        on beside them, and their terms; none here."""
        return [], []

    def _check_y(self, y, texts: list[str], teaching) -> tuple[list, np.ndarray]:
        """``y`` checked against ``texts``: each text's terms, and which texts
        are labelled (all of them here)."""
        return check_spans(y, texts), np.ones(len(texts), dtype=bool)

    def _taught(self, texts, spans, labelled, held, teaching) -> tuple[list, list]:
        """``(spans, soft)``: every text's terms (the unlabelled ones' a
        teacher's) and what the teacher says of them (a subclass's)."""
        raise NotImplementedError

    def _dataset(self, texts, encoded, spans, soft=None) -> TagDataset:
        """The sentences as the net learns from them: each token's tag (-100: a
        special token)."""
        tags = token_tags(texts, encoded, spans)
        return TagDataset(encoded, EncodedTexts.from_lists(tags))

    def _module(self, build):
        """The constructor of the module trained: the tagger's."""
        return build

    def _recipe(self, encoder) -> dict:
        """``resolved_params_``: the training settings, the ``encoder``'s recipe
        where ``"auto"`` (:func:`aspectattn.params.resolve_tagger_auto`); the
        LSTM's size; the patience; the language (``language_``, set before)."""
        values = {
            **self.get_params(deep=False),
            "language": self.language_,
            "early_stopping": self._early_stopping(),
        }
        return P.resolve_tagger_auto(values, encoder)

    def _encoder_inputs(self, encoder, texts, seed):
        """Set ``inputs_``; return the module's constructor and its
        initialisation (word vectors, or the checkpoint's weights)."""
        if encoder.kind == "pretrained":
            from ..nn.encoders.pretrained import read_checkpoint_dir
            from ..text.subwords import SubwordTokenizer

            config, files, weights = read_checkpoint_dir(encoder.path)
            config = json.loads(json.dumps(config))  # JSON-clean, as a file holds it
            self.inputs_ = SubwordInputs(SubwordTokenizer(files))
            self.pretrained_config_ = config
            dropout = self.resolved_params_["dropout"]
            return (
                _Build(
                    PretrainedTagger,
                    pretrained_config=config,
                    dropout=dropout,
                    transitions=self._decoding() == "crf",
                ),
                _LoadEncoder(weights),
            )
        tokenizer = Tokenizer(lowercase=encoder.lowercase, language=self.language_)
        self.inputs_, words = WordInputs.fit(texts, tokenizer, self.characters)
        vectors, dim = resolve_word_vectors(
            encoder.embeddings,
            encoder.embedding_dim,
            words,
            seed,
            passes=P.VECTOR_PASSES,
        )
        draws = np.random.default_rng([seed, VECTOR_STREAM])
        matrix, _ = build_embedding_matrix(
            self.inputs_.vocabulary.words_, vectors, dim, draws
        )
        del vectors  # (no gensim object stays in the fitted model)
        table = self.inputs_.characters
        return (
            _Build(
                TermTagger,
                vocab_size=len(matrix),
                embedding_dim=dim,
                n_characters=0 if table is None else len(table) + 2,
                hidden_size=self.resolved_params_["encoder__hidden_size"],
                dropout=self.resolved_params_["dropout"],
                transitions=self._decoding() == "crf",
            ),
            _CopyEmbeddings(matrix),
        )

    def _net(self, encoder, module, valid, rng, device, teaching=None):
        """The skorch net that trains ``module`` (:func:`build_net`, the
        classifiers' own): the tags' cross-entropy (a subclass's net adds to
        it: ``_loss_settings``), the epoch chosen on the validation F1
        (``_SCORING``), the optimizer and schedule of the ``encoder``'s
        recipe."""
        recipe = self.resolved_params_
        rules = P.ENCODERS[encoder.kind].recipe.tagger
        stops = "early_stopping__patience" in recipe  # (early_stopping=False: not)
        config = P.TrainingConfig(
            optimizer=Optimizer(
                rules["optimizer"],
                weight_decay=rules["weight_decay"],
                head_lr=None,
                lr_schedule=rules["lr_schedule"],
            ),
            lr=recipe["lr"],
            batch_size=recipe["batch_size"],
            max_epochs=recipe["max_epochs"],
            precision="float32",
            early_stopping=(
                EarlyStopping(patience=recipe["early_stopping__patience"])
                if stops
                else None
            ),
            verbose=self.verbose,
            encoder=encoder,
        )
        # (a CRF's epoch is chosen on the tags read with what it learns)
        decoding = self._decoding()
        if decoding != "crf":
            decoding = self._EPOCH_ON or decoding
        task = Task(
            self._NET,
            {
                "criterion": torch.nn.CrossEntropyLoss,
                "criterion__ignore_index": IGNORE,
                **self._loss_settings(teaching),
            },
            (("valid_f1", self._SCORING(valid, decoding)),),
            ("valid_score", False),
            PREDICT_BATCH,
        )
        return build_net(module, config, task, valid, rng, device)

    def _loss_settings(self, teaching) -> dict:
        """What the net's loss reads besides the tags' criterion (a
        subclass's: none here)."""
        return {}

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
            mean over the term's tokens of their probability of being in a term.
        """
        check_is_fitted(self, "module_")
        texts = check_texts(X, "X")
        with self._predicting(_TagProba) as proba:
            return read_terms(
                texts,
                self.inputs_.encode(texts),
                proba,
                whole_words=isinstance(self.inputs_, SubwordInputs),
                language=self.language_,
                max_tokens=self.module_.batch_tokens,
                **self._reading(),
            )

    @contextlib.contextmanager
    def _predicting(self, proba_class):
        """``proba_class`` (:class:`_TagProba` or a subclass) around the fitted
        module as predictions run it: on ``device``; with ``quantize="int8"``
        its int8 copy on the CPU (made on first use, kept until the model is
        refitted), with ``"bfloat16"`` its states computed under bfloat16
        autocast. ``module_`` is back on the CPU after (its callers check
        that the model is fitted, before their input)."""
        # (set_params after fit is not validated: a bad device never moves the
        # fitted module)
        validate_params(
            self, {k: self._parameter_constraints[k] for k in ("device", "quantize")}
        )
        device, module = resolve_device(self.device), self.module_
        if self.quantize == "int8":
            device, module = "cpu", self._int8_module()
        elif self.quantize == "bfloat16":
            check_bfloat16(device, stacklevel=5)  # (the user's)
        try:
            yield proba_class(module.to(device), device, self.quantize == "bfloat16")
        finally:
            self.module_.cpu()

    def _int8_module(self) -> torch.nn.Module:
        """The int8 copy of ``module_`` (its encoder's linear layers; made on
        first use, kept until ``module_`` changes)."""
        source, int8 = self.__dict__.get("_int8", (None, None))
        if source is not self.module_:
            encoder = f"{self._TAGGER}encoder"  # (the user's frame: 6 up)
            int8 = quantize_module(self.module_, encoder, stacklevel=6)
            self._int8 = (self.module_, int8)
        return int8

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_int8", None)  # (made again on first use)
        return state

    # -- the model file (aspectattn.persistence.save / load) ---------------------
    def _fitted_state(self) -> dict:
        """The fitted state as JSON-able data (the module's sizes are its
        tensors')."""
        inputs = self.inputs_.to_state()
        if isinstance(self.inputs_, SubwordInputs):
            inputs["pretrained_config"] = self.pretrained_config_
        return {
            "language_": self.language_,
            "inputs": inputs,
            "best_epoch_": int(self.best_epoch_),
            "history_": self.history_,
        }

    def _module_tensors(self) -> dict[str, torch.Tensor]:
        return persistence.module_tensors(self.module_)

    @classmethod
    def _from_saved(cls, params: dict, state: dict, tensors: dict):
        """Rebuild a fitted extractor from a model file's parameters, state and
        tensors, each checked (``ValueError`` or ``TypeError`` otherwise); the
        module's sizes are read from the tensors, so nothing is built larger
        than the file."""
        from ..persistence import _history

        unknown = set(params) - set(cls._get_param_names())
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)[:5]}")
        extractor = cls()
        extractor.set_params(**params)
        # (the encoder as its class and its own parameters, each checked)
        extractor.encoder = component_from_data(
            extractor.encoder, (LSTMEncoder, PretrainedEncoder), "the encoder"
        )
        extractor.early_stopping = component_from_data(
            extractor.early_stopping, (EarlyStopping,), "early_stopping"
        )
        extractor._validate_params()
        encoder = extractor._encoder()
        extractor.encoder = encoder.short()
        if not isinstance(state, dict) or set(state) != cls._STATE_KEYS:
            raise ValueError(
                f"the fitted state must have the keys {sorted(cls._STATE_KEYS)}"
            )
        language = state["language_"]
        if not (
            language is None
            or (isinstance(language, str) and LANGUAGE_CODE.fullmatch(language))
        ):
            raise ValueError("language_ must be an ISO 639 code or null")
        extractor.language_ = language
        if not _is_int(state["best_epoch_"]):
            raise ValueError("best_epoch_ must be an int >= 0")
        extractor.best_epoch_ = state["best_epoch_"]
        extractor.history_ = _history(state["history_"])
        extractor.resolved_params_ = extractor._recipe(encoder)
        inputs = state["inputs"]
        if isinstance(inputs, dict) and inputs.get("kind") == "subwords":
            inputs = dict(inputs)
            config = inputs.pop("pretrained_config", None)
        extractor.inputs_ = inputs_from_state(
            inputs, lowercase=getattr(encoder, "lowercase", True), language=language
        )
        subwords = isinstance(extractor.inputs_, SubwordInputs)
        if subwords != (encoder.kind == "pretrained"):
            raise ValueError(f"the inputs do not match the encoder {encoder.kind!r}")
        if subwords:
            build = extractor._saved_pretrained(config, tensors)
        else:
            build = extractor._saved_words(tensors, encoder)
        build = extractor._saved_module(build, state, tensors)
        extractor.module_ = persistence.module_from_tensors(build, tensors).eval()
        return extractor

    def _saved_module(self, build, state: dict, tensors: dict):
        """The constructor of the module a file's tensors fill, its tagger's
        ``build`` (a subclass reads what its state adds)."""
        return build

    def _saved_words(self, tensors: dict, encoder) -> _Build:
        """The LSTM tagger the tensors fill, its sizes theirs (and the
        ``encoder`` component's, checked)."""
        tagger = self._TAGGER
        vocab_size, embedding_dim = _shape(tensors, f"{tagger}embedding.weight", 2)
        if vocab_size != len(self.inputs_.vocabulary.words_):
            raise ValueError("the embedding table does not match the vocabulary")
        n_characters = self.inputs_.n_characters
        chars = f"{tagger}char_embedding.weight"
        if n_characters and _shape(tensors, chars, 2)[0] != n_characters:
            raise ValueError("the character table does not match the characters")
        hidden_size = _shape(tensors, f"{tagger}forward_lstm.weight_hh_l0", 2)[1]
        # the parameters say what the tensors are: get_params never lies
        if self.resolved_params_["encoder__hidden_size"] != hidden_size:
            raise ValueError(
                f"the encoder's hidden_size ({encoder.hidden_size!r}) does not "
                f"match its tensors ({hidden_size} units)"
            )
        if encoder.embedding_dim not in (None, embedding_dim):
            raise ValueError(
                f"the encoder's embedding_dim ({encoder.embedding_dim!r}) does not "
                f"match its tensors ({embedding_dim})"
            )
        return _Build(
            TermTagger,
            vocab_size=vocab_size,
            embedding_dim=embedding_dim,
            n_characters=n_characters,
            hidden_size=hidden_size,
            dropout=self.resolved_params_["dropout"],
            transitions=self._saved_transitions(tensors),
        )

    def _saved_transitions(self, tensors: dict) -> bool:
        """Whether the file's tagger learned tag transitions (its tensors hold
        them; ``decoding="crf"`` needs them)."""
        learned = f"{self._TAGGER}transitions.start" in tensors
        if self._decoding() == "crf" and not learned:
            raise ValueError("decoding is 'crf' but the tagger has no transitions")
        return learned

    def _saved_pretrained(self, config, tensors: dict) -> _Build:
        """The pretrained tagger of the checkpoint ``config`` (checked)."""
        from ..nn.encoders.pretrained import PretrainedEncoder

        if not JSONObject().is_satisfied_by(config):
            raise ValueError("pretrained_config must be a bounded JSON object")
        PretrainedEncoder.check_config({"pretrained_config": config})
        self.pretrained_config_ = config
        return _Build(
            PretrainedTagger,
            pretrained_config=config,
            dropout=self.resolved_params_["dropout"],
            transitions=self._saved_transitions(tensors),
        )

    def __sklearn_tags__(self):
        tags = text_tags(super().__sklearn_tags__())
        tags.target_tags.required = True
        tags.non_deterministic = True
        return tags


@register
class AspectTermExtractor(SpanTagger):
    """Find the aspect terms of sentences, as character spans.

    An encoder tags each token as the first of a term, a later one, or no
    term's: a bidirectional LSTM over word vectors and each word's characters
    (fast), or a pretrained checkpoint fine-tuned end to end (better, slower).
    The tags are decoded into spans that always start and end on a word's
    first and last character in the text as given, in any script. Trained
    through skorch; the epoch kept is the one with the best exact-span F1 on
    ``validation_fraction`` of the sentences.

    Parameters
    ----------
    encoder : LSTMEncoder, PretrainedEncoder or {"lstm", "pretrained"}, \
            default="lstm"
        The encoder component (:mod:`aspectattn.encoders`), as the classifiers
        take it: :class:`~aspectattn.encoders.LSTMEncoder` reads its word vectors
        (``embeddings``, ``embedding_dim``, ``lowercase``) with a bidirectional
        LSTM of ``hidden_size`` units per direction (``"auto"``: 100, as
        accurate as the classifiers' 300 on validation and 2.7 times faster);
        :class:`~aspectattn.encoders.PretrainedEncoder` fine-tunes its checkpoint
        (its sub-words are tagged; a term's span is then widened to whole words).
        ``"lstm"`` stands for ``LSTMEncoder()``; ``"pretrained"`` alone is an
        error (the checkpoint is needed). The encoders' other settings, which
        only the classifiers read, must keep their defaults; the extractor reads
        up to 512 tokens per text whatever ``max_len`` says. Grid searches reach
        ``encoder__hidden_size``.
    characters : bool, default=True
        With the LSTM: read each word's characters as written too (a
        convolution over them): case, digits and suffixes tell product names
        and words the vectors lack apart.
    dropout : float or "auto", default="auto"
        On the encoder's inputs and states. The ``"auto"`` settings are the
        encoder's recipe (its ``tagger`` in :data:`aspectattn.params.ENCODERS`):
        for the LSTM, dropout 0.5, Adam at
        ``lr`` 1e-3, batches of 32 sentences, at most 50 epochs with a patience
        of 5; for a pretrained encoder, dropout 0.1, AdamW at 5e-5 with a
        linear warm-up and decay, batches of 16, at most 8 epochs, patience 3.
    lr : float or "auto", default="auto"
    batch_size : int or "auto", default="auto"
        Sentences per training batch.
    max_epochs : int or "auto", default="auto"
    early_stopping : bool or EarlyStopping, default=True
        Stop after ``patience`` epochs without a better validation F1 and keep
        the best epoch's weights (:class:`~aspectattn.training.EarlyStopping`,
        as the classifiers take it; ``True``: its defaults, a ``patience`` of
        ``"auto"``, the encoder's recipe; its ``scoring`` keeps its default: the
        epoch is chosen on the validation F1). ``False``: every epoch trains and
        the last one's weights are kept. Grid searches reach
        ``early_stopping__patience``.
    validation_fraction : float, default=0.1
        Share of the sentences held out to choose the epoch.
    decoding : {"auto", "greedy", "viterbi", "crf"}, default="auto"
        How the tags are read: ``"greedy"``, each token's most likely tag (a
        token tagged inside a term after one outside starts a term);
        ``"viterbi"``, each sentence's most likely sequence of tags in which
        every term starts with its first tag; ``"crf"``, a linear-chain CRF:
        the tagger also learns a score for each tag following another (its
        loss the likelihood of each sentence's whole tag sequence), and
        Viterbi reads the tags with those scores. ``"auto"``: ``"crf"`` with
        the LSTM (chosen on validation: 1.8 points of exact-span F1 above
        Viterbi alone, averaged over laptops and restaurants), ``"greedy"``
        with a pretrained encoder, where neither is measured (the recipe's
        ``extractor_decoding``). Read when predicting, so changing it needs
        no refit, except to ``"crf"``: only a tagger fitted with it has
        transitions to read. The epoch is chosen on the greedy tags (on the
        Viterbi ones, it was 0.2 points below on validation), a CRF's on the
        tags it reads.
    language : str, "auto" or None, default="auto"
        The tokenizer's language (an ISO 639 code; see
        :class:`~aspectattn.text.tokens.Tokenizer`): ``"en"`` splits English
        clitics, any other keeps a word's inner apostrophes; ``None``: no
        language's rules. ``"auto"``: ``"en"`` when the fitting texts look
        English, else ``None`` (see ``language_``).
    device : str, default="auto"
        ``"auto"``: CUDA when available, else the CPU.
    quantize : {None, "int8", "bfloat16"}, default=None
        How predictions run; read at each prediction, so it can be set on a
        fitted or loaded model (training and the saved weights stay float32).
        ``"int8"``: the pretrained encoder's linear layers with int8 weights
        (dynamic quantisation, on the CPU whatever ``device`` says; the LSTM
        tagger is left as it is, with a warning); ``"bfloat16"``: the
        encoder's states computed under bfloat16 autocast on ``device`` (fast
        where the device computes bfloat16 natively: a recent GPU, a CPU with
        AVX-512 BF16 or AMX; elsewhere slower, with a warning). Either moves
        the probabilities slightly, and may move a term. See
        :mod:`aspectattn.engine.quantization`.
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
    inputs_ : WordInputs or SubwordInputs
        How texts become the encoder's tokens
        (:mod:`aspectattn.extraction.inputs`).
    resolved_params_ : dict
        What the ``"auto"`` settings stood for, the ``language`` among them (as
        the classifiers' record says it).
    best_epoch_ : int
        The epoch whose weights were kept.
    history_ : list of dict
        Per epoch: ``train_loss``, ``valid_loss``, ``valid_f1``.

    Examples
    --------
    >>> from aspectattn import AspectTermExtractor
    >>> texts = ["The pasta was great.", "Our waiter was rude.", "What a day!"] * 10
    >>> spans = [[(4, 9)], [(4, 10)], []] * 10
    >>> extractor = AspectTermExtractor(lr=0.01, max_epochs=20, random_state=0)
    >>> extractor.fit(texts, spans).predict(["The pasta was rude.", "What a day!"])
    [[(4, 9)], []]
    """

    _parameter_constraints: dict = {**SpanTagger._parameter_constraints}

    def __init__(
        self,
        *,
        encoder="lstm",
        characters=True,
        dropout="auto",
        lr="auto",
        batch_size="auto",
        max_epochs="auto",
        early_stopping=True,
        validation_fraction=0.1,
        decoding="auto",
        language="auto",
        device="auto",
        quantize=None,
        random_state=None,
        verbose=0,
    ):
        self.encoder = encoder
        self.characters = characters
        self.dropout = dropout
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.decoding = decoding
        self.language = language
        self.device = device
        self.quantize = quantize
        self.random_state = random_state
        self.verbose = verbose

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
        return self._fit(X, y)

    def predict(self, X) -> list[list[tuple[int, int]]]:
        """Each text's terms as ``(start, end)`` character spans, in text order."""
        return [[t["span"] for t in terms] for terms in self.predict_spans(X)]

    def score(self, X, y) -> float:
        """Exact-span micro F1 of :meth:`predict` against ``y`` (SemEval's
        measure; :func:`~aspectattn.extraction.span_scores` gives precision and
        recall too)."""
        texts = check_texts(X, "X")
        return span_f1(check_spans(y, texts), self.predict(texts))


def token_tags(texts, encoded, spans) -> list[np.ndarray]:
    """Each text's tokens' tags (:func:`~aspectattn.extraction.words.tag_words`),
    ``-100`` on a special token; an error names a text without any word."""
    tags = [
        np.where(o[:, 1] > o[:, 0], tag_words(o, s), IGNORE)
        for o, s in zip(encoded.offsets, spans, strict=True)
    ]
    empty = [i for i, t in enumerate(tags) if not (t != IGNORE).any()]
    if empty:
        raise InputError(f"X[{empty[0]}] ({_short(texts[empty[0]])}) has no words.")
    return tags


def _warn_overlaps(spans: list[list[tuple]]) -> None:
    """Say so where a sentence's gold terms overlap (MAMS and SemEval-2016
    have a few): a tagger marks each word once, so they train as one term."""
    found = []
    for i, terms in enumerate(spans):
        ordered = sorted(t[:2] for t in terms)
        pairs = zip(ordered[:-1], ordered[1:], strict=True)
        found += [(i, a, b) for a, b in pairs if b[0] < a[1]]
    if found:
        i, a, b = found[0]
        warnings.warn(
            f"y has {len(found)} pair(s) of overlapping terms (first: y[{i}] "
            f"{a} and {b}); a tagger marks each word once, so each pair trains "
            "as the one term that covers both.",
            AspectAttnWarning,
            stacklevel=3,
        )


def _shape(tensors: dict, name: str, ndim: int) -> tuple:
    """The shape of a model file's tensor ``name``, which must exist with
    ``ndim`` dimensions."""
    tensor = tensors.get(name)
    if not isinstance(tensor, torch.Tensor) or tensor.ndim != ndim:
        raise ValueError(f"the tensor {name!r} is missing or not {ndim}-d")
    return tuple(tensor.shape)


class _TagProba:
    """The tagger in torch as :func:`~aspectattn.extraction.reading.read_terms`
    calls it: a padded batch (numpy) to its tag probabilities (B, T, K); with
    ``bfloat16``, its states computed under bfloat16 autocast (float32 out)."""

    def __init__(self, module: torch.nn.Module, device, bfloat16: bool = False):
        self.module, self.device, self.bfloat16 = module, device, bfloat16

    def _states(self, inputs: dict) -> torch.Tensor:
        """The module's states (B, T, D) of a batch, float32."""
        if self.bfloat16:
            device_type = torch.device(self.device).type
            return in_bfloat16(self.module.states, device_type, **inputs)
        return self.module.states(**inputs)

    def _inputs(self, ids, lengths, chars, char_index) -> dict:
        """A padded batch (numpy) as the module's keyword arguments, on its
        device."""
        inputs = {"tokens": ids, "lengths": lengths}
        inputs |= {"chars": chars, "char_index": char_index}
        return {k: torch.from_numpy(v).to(self.device) for k, v in inputs.items()}

    def _logits(self, inputs: dict) -> torch.Tensor:
        return self.module.tag_logits(self._states(inputs))  # (B, T, K)

    def __call__(self, ids, lengths, chars, char_index) -> np.ndarray:
        with torch.inference_mode():
            logits = self._logits(self._inputs(ids, lengths, chars, char_index))
            return logits.float().softmax(-1).cpu().numpy()  # (B, T, K)


class _Build:
    """The module's constructor with its settings (a plain object: no closure)."""

    def __init__(self, module_class, **config):
        self.module_class, self.config = module_class, config

    def __call__(self) -> torch.nn.Module:
        return self.module_class(**self.config)


class _CopyEmbeddings:
    """Initialise the word-embedding table with the word vectors."""

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix

    def __call__(self, module) -> None:
        with torch.no_grad():
            module.embedding.weight.copy_(torch.from_numpy(self.matrix))


class _LoadEncoder:
    """Initialise the encoder with the checkpoint's weights."""

    def __init__(self, weights: dict):
        self.weights = weights

    def __call__(self, module) -> None:
        module.encoder.model.load_state_dict(self.weights)
