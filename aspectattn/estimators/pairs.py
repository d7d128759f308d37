"""The pair classifier: Wang et al. (2016) aspect attention, sklearn-style.

The estimator validates its input and parameters, then hands the work to one module
per concern::

    fit:      (text, aspect) pairs --text.pipelines--> PairDataset
              --engine.building / engine.training--> module_
    predict:  (text, aspect) pairs --text.pipelines--> PairDataset
              --engine.inference--> logits

Its parameters are the table of :mod:`aspectattn.params` less the detector's group;
what it shares with the detector (fitted state, pickling, saving) is
:class:`~aspectattn.estimators._base.AspectAttentionBase`.
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.special import softmax
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .. import augment, persistence
from .. import params as P
from .._validation import (
    _is_missing,
    category_ids,
    check_labels,
    check_pairs,
    check_partial_labels,
    check_texts,
    resolve_aspect_type,
)
from ..engine import inference
from ..engine.batching import PairDataset
from ..engine.distillation import check_minus_one_marks, check_teaching, teacher_targets
from ..exceptions import InputError
from ..nn.model import AspectAttentionModel
from ..nn.ops import uses_position
from ..text.pipelines import distinct_index
from ..text.tokens import EncodedTexts
from ._base import (
    AspectAttentionBase,
    TrainingData,
    check_sample_weight,
    signature_constraints,
    split_sample_weight,
)

__all__ = ["AspectAttentionClassifier"]

#: The parameters of the pair classifier (its signature), in the order of the
#: table.
SIGNATURE = P.names_for(P.CATEGORY_GROUPS)


@persistence.register
class AspectAttentionClassifier(ClassifierMixin, AspectAttentionBase):
    """Aspect-level sentiment classifier: an encoder with aspect attention.

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
    variant : {"atae", "at", "ae"}, default="at"
        ``"at"``: attention with the aspect as query over an aspect-independent
        encoder (one encoder pass serves all aspects of a sentence, in training and
        prediction); ``"ae"``: the aspect vector appended to every word, last state
        classified; ``"atae"``: both. ``"at"`` is the default: it gets more of the
        pairs whose sentence has aspects that disagree, at the accuracy of
        ``"atae"`` and in half its time (``benchmarks/defaults.py``).
    aspect_type : {"auto", "category", "term"}, default="auto"
        ``"category"``: aspects form a closed set (``food``, ``service``...); each
        gets a learnable vector, initialised from the word vectors of its name where
        they exist; an unseen category at predict time is an error. ``"term"``:
        aspects are phrases from the text (``"pasta carbonara"``); ``v_a`` is the
        mean of the term's (trainable) word embeddings, so unseen terms work.
        ``"auto"`` picks ``"term"`` when at least 90% of the training aspects occur
        in their text, else ``"category"``; see ``aspect_type_``.
    encoder : encoder or {"lstm", "transformer", "pretrained"}, default="lstm"
        The sentence encoder under the aspect attention, with its own parameters:
        :class:`~aspectattn.encoders.LSTMEncoder` (Wang et al.'s),
        :class:`~aspectattn.encoders.TransformerEncoder` (multi-head self-attention
        over the same word vectors) or :class:`~aspectattn.encoders.PretrainedEncoder`
        (a Hugging Face checkpoint fine-tuned end to end). A name stands for that
        encoder with its defaults. Grid searches reach its parameters as
        ``encoder__hidden_size`` and so on.
    attention : AspectAttention or {"additive", "dot", "general", "scaled_dot", \
"concat"}, default="additive"
        The aspect attention, with its own parameters
        (:class:`~aspectattn.attention.AspectAttention`): how ``v_a`` scores the
        encoder states (``score``), how many queries it makes (``heads``), what
        joins the pooled vector before it is classified (``final_state``;
        ``"auto"``: the term's own reading for aspect terms, nothing for
        categories) and, for aspect terms, how position weighs the states
        (``position_weighting``; ``"auto"``: learned per distance from the term
        with the LSTM, linear with the other encoders), whether training drops
        words far from the term (``position_dropout``) and what queries the
        states (``term_query``). A
        score's name stands for the attention with that score and the other
        defaults. Grid searches reach its parameters as ``attention__score`` and
        so on.
    dropout : float or "auto", default="auto"
        Dropout on the final sentence representation. ``"auto"``: 0.5 as in Wang et
        al.'s code, or the checkpoint's usual 0.1 with ``encoder="pretrained"``.
    language : str, "auto" or None, default="auto"
        The text's language, for the tokenizer: an ISO 639 code (``"en"``,
        ``"tr"``...). English splits contractions into clitics (``"don't"`` ->
        ``"do"``, ``"n't"``), as English word vectors have them; other languages keep a
        word's inner apostrophes (``"l'addition"``); Turkish and Azerbaijani lower-case
        ``I`` to ``ı``. ``None``: no language's rules. ``"auto"``: ``"en"`` when the
        fitting texts look English (their share of English function words), else
        ``None``; see ``resolved_params_``.
    term_marker : bool, default=False
        Aspect terms only, LSTM and transformer encoders: append a 0/1 flag to
        every input word, 1 on the term's tokens. The encoder then sees the aspect,
        so each pair is its own encoder pass. This option and the attention's
        term options (``position_weighting``, ``position_dropout``,
        ``term_query``, ``final_state="term"``) need to know where the term is:
        give its character span as a pair's third item ``(text, term, (start,
        end))`` or as ``start``/``end`` columns of a DataFrame; without one the
        term is found in the text (its first whole-word occurrence, ignoring
        case). A term that is not in its text is then an error.
    %(augment)s
    antonyms : dict or None, default=None
        The opinion words ``augment="flip"`` swaps, lower-case word -> antonym;
        ``None`` uses :data:`aspectattn.augment.OPINION_ANTONYMS`.
    optimizer : Optimizer or {"adam", "adamw", "adagrad", "sgd"}, default="adam"
        How the steps are taken, with its own parameters
        (:class:`~aspectattn.training.Optimizer`): the torch optimizer
        (``"sgd"`` with momentum 0.9), ``weight_decay`` (never on word vectors),
        ``head_lr`` (the rate outside the encoder; ``"auto"``: ``1e-3`` with a
        pretrained encoder, whose small ``lr`` leaves the aspect vectors near
        their random start), ``lr_schedule`` (``"auto"``: warm-up and linear
        decay with a pretrained encoder, else constant) and ``gradient_clip``. A
        name stands for that optimizer with its defaults. Grid searches reach its
        parameters as ``optimizer__weight_decay`` and so on.
    lr : float or "auto", default="auto"
        Learning rate. ``"auto"``: ``1e-3`` for the encoders trained from scratch,
        ``5e-5`` for ``encoder="pretrained"`` (fine-tuning a checkpoint: chosen on
        validation among 2e-5, 3e-5 and 5e-5); see ``resolved_params_``.
    batch_size : int or "auto", default="auto"
        Pairs per training batch. ``"auto"``: 32, or BERT's usual 24 with
        ``encoder="pretrained"``.
    batch_by : {"auto", "sentence", "pair"}, default="auto"
        ``"sentence"``: training batches hold whole sentences with all their
        aspects, and the encoder runs once per sentence for all of them (joint
        training over the aspects of a sentence; same loss as per pair).
        ``"pair"``: pairs are shuffled independently. ``"auto"``: ``"sentence"``
        when the encoder does not see the aspect (``variant="at"`` with any
        encoder but ``PretrainedEncoder(input="pair")``), else ``"pair"``.
        Prediction always encodes each distinct sentence once when the encoder
        allows it.
    max_epochs : int or "auto", default="auto"
        Most training epochs (fewer with ``early_stopping``). ``"auto"``: 20 (30
        for the LSTM's aspect terms and its detector, the last kept: chosen on
        validation, ``benchmarks/lstm_training.py``), or
        :data:`~aspectattn.params.PRETRAINED_TRAINING`'s with ``encoder="pretrained"``
        (with ``lr_schedule="linear"`` the rate reaches 0 at the last one).
    precision : {"auto", "float32", "bfloat16"}, default="auto"
        ``"bfloat16"`` trains under ``torch.autocast`` (mixed precision: matrix
        products in bfloat16, weights, optimizer and loss in float32); prediction
        and saved weights stay float32. ``"auto"``: ``"bfloat16"`` with
        ``encoder="pretrained"`` on a device that computes it natively (a CUDA GPU
        with bfloat16, a CPU with AVX-512 BF16 or AMX: 2.5x faster steps), else
        ``"float32"``; see ``resolved_params_``.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes in the loss, as in scikit-learn.
    validation_fraction : float or None, default=None
        Share of the training *sentences* held out for validation (all aspects of a
        sentence go to the same side, so validation scores are not inflated by
        sentences seen in training). ``None`` trains on everything. Validation loss,
        accuracy and macro-F1 per epoch are recorded in ``history_``.
    early_stopping : bool or EarlyStopping, default=False
        Stop when the validation score stalls and keep the best epoch's weights
        (:class:`~aspectattn.training.EarlyStopping`: its ``scoring``, the
        validation score that selects the epoch, and ``patience``, the epochs
        without improvement before stopping; ``"auto"``: 5, or 2 with a
        pretrained encoder). ``True`` stands for it with its defaults. Needs
        ``validation_fraction``.
    checkpoint_dir : str, path-like or None, default=None
        Write a checkpoint after every epoch into this folder (one file per run,
        named by a fingerprint of the hyperparameters and the data). A ``fit`` with
        the same hyperparameters and data resumes from it, continuing exactly where
        the interrupted run stopped (same weights, optimizer state, history and
        random states); after a completed run it returns the finished model at once.
        Delete the file to train afresh.
    text_column : str, default="text"
        Column names when ``X`` is a DataFrame.
    aspect_column : str, default="aspect"
        Column names when ``X`` is a DataFrame.
    random_state : int, RandomState, Generator or None, default=None
        Seeds initialisation, shuffling, dropout, word-vector training and the
        validation split. Global RNGs of the caller are left untouched.
    device : str, default="auto"
        ``"auto"`` uses CUDA when available, else the CPU; or a torch device string.
    quantize : {None, "int8", "bfloat16"}, default=None
        ``"int8"`` predicts with int8 weights in the encoder's linear layers
        (dynamic quantisation, on the CPU whatever ``device`` says); ``"bfloat16"``
        runs the encoder under bfloat16 autocast on ``device`` (fast where the
        device computes bfloat16 natively: a recent GPU, a CPU with AVX-512 BF16 or
        AMX). Training and the saved weights stay float32, so either can also be
        set on a fitted or loaded model. Pays with ``encoder="pretrained"`` (the
        README gives the speed and accuracy change); the LSTM encoder is left as it
        is by ``"int8"``. See :mod:`aspectattn.engine.quantization`.
    verbose : int, default=0
        1 prints a line per epoch (loss, validation scores, time).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels, in the column order of :meth:`predict_proba`.
    aspect_type_ : {"category", "term"}
        The aspect kind used.
    resolved_params_ : dict
        What each parameter that can be ``"auto"`` stood for in this fit, the
        estimator's (``aspect_type``, ``batch_by``, ``augment``...) and its
        components' under scikit-learn's names, e.g. ``{"augment":
        "flip+join+negate", "attention__final_state": "term",
        "encoder__bidirectional": True, ...}`` for aspect terms:
        ``set_params(**resolved_params_)`` gives an estimator that trains as this
        fit did. Kept by :meth:`save` and pickling.
    aspects_ : ndarray of str
        The aspect categories seen in ``fit`` (empty for terms).
    text_pipeline_ : :class:`aspectattn.text.pipelines.WordPipeline` or \
:class:`~aspectattn.text.pipelines.SubwordPipeline`
        Turns text into model input, the same way in fit and predict.
    vocabulary_ : :class:`aspectattn.text.Vocabulary` or None
        Word-to-id mapping (``vocabulary_.index_``); None with a pretrained encoder.
    embedding_coverage_ : float
        Share of vocabulary words that had a pretrained vector.
    module_ : :class:`aspectattn.nn.model.AspectAttentionModel`
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

    See Also
    --------
    AspectCategoryClassifier : Which categories a text mentions, and how, in one
        model (the detector behind the review report).
    make_baseline : The tf-idf- or POS-weighted word-vector baselines.
    aspectattn.serving.export_onnx : Serve the fitted model without torch.

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

    _parameter_constraints = signature_constraints(SIGNATURE)

    def __init__(
        self,
        *,
        variant="at",
        aspect_type="auto",
        encoder="lstm",
        attention="additive",
        dropout="auto",
        language="auto",
        term_marker=False,
        augment="auto",
        copy_weight="auto",
        antonyms=None,
        optimizer="adam",
        lr="auto",
        batch_size="auto",
        batch_by="auto",
        max_epochs="auto",
        precision="auto",
        class_weight=None,
        validation_fraction=None,
        early_stopping=False,
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
        self.encoder = encoder
        self.attention = attention
        self.dropout = dropout
        self.language = language
        self.term_marker = term_marker
        self.augment = augment
        self.copy_weight = copy_weight
        self.antonyms = antonyms
        self.optimizer = optimizer
        self.lr = lr
        self.batch_size = batch_size
        self.batch_by = batch_by
        self.max_epochs = max_epochs
        self.precision = precision
        self.class_weight = class_weight
        self.validation_fraction = validation_fraction
        self.early_stopping = early_stopping
        self.checkpoint_dir = checkpoint_dir
        self.text_column = text_column
        self.aspect_column = aspect_column
        self.random_state = random_state
        self.device = device
        self.quantize = quantize
        self.verbose = verbose

    _module_class = AspectAttentionModel

    # ------------------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None, teaching=None):
        """Train on ``(text, aspect)`` pairs ``X`` with labels ``y``.

        Parameters
        ----------
        X : sequence of (str, str) pairs or DataFrame
        y : array-like of shape (n_pairs,)
            With ``teaching``, ``-1`` (or None/NaN) marks a pair nobody
            labelled: it learns from the teacher alone.
        sample_weight : array-like of shape (n_pairs,) or None, default=None
            Each pair's weight in the training loss (None: 1 each); a copy that
            ``augment`` makes weighs ``copy_weight`` times its sources' mean.
            The validation split is scored unweighted.
        teaching : Teaching or None, default=None
            A teacher's probabilities to learn from beside the labels
            (:class:`~aspectattn.Teaching`: what
            :class:`~aspectattn.DistilledClassifier` passes); the teacher also
            labels the copies ``augment`` makes.

        Returns
        -------
        self : AspectAttentionClassifier
        """
        return self._fit(X, y, check_teaching(teaching), sample_weight)

    def _training_data(self, X, y, teaching, sample_weight) -> TrainingData:
        texts, aspects, feature_names, spans = check_pairs(
            X, self.text_column, self.aspect_column, return_spans=True
        )
        weights = check_sample_weight(sample_weight, len(texts), "pairs")
        unlabelled = None
        labels, labelled = _pair_labels(y, len(texts), teaching)
        if not labelled.all():
            rows = np.flatnonzero(~labelled)
            weights, unlabelled_weights = split_sample_weight(weights, labelled)
            unlabelled = (
                [texts[k] for k in rows],
                [aspects[k] for k in rows],
                [None if spans is None else spans[k] for k in rows],
                unlabelled_weights,
            )
            rows = np.flatnonzero(labelled)
            texts, aspects = [texts[k] for k in rows], [aspects[k] for k in rows]
            spans = None if spans is None else [spans[k] for k in rows]
        classes, y_index = np.unique(labels, return_inverse=True)
        if len(classes) < 2:
            raise InputError(
                f"y has a single class ({classes[0]!r}); a classifier "
                "needs samples of at least 2 classes."
            )
        aspect_type = resolve_aspect_type(self.aspect_type, texts, aspects)
        if self.aspect_type == "auto" and aspect_type == "category":
            values = self._values()
            unused = P.needing(values, "terms")
            unused = [(name, "the aspects are categories") for name in unused]
            P.warn_unused(values, unused, stacklevel=5)
        categories = sorted(set(aspects)) if aspect_type == "category" else []
        return TrainingData(
            texts=texts,
            aspects=aspects,
            spans=spans,
            targets=y_index,
            labels=classes.tolist(),
            classes=classes,
            aspect_type=aspect_type,
            categories=np.array(categories, dtype=object),
            n_given=len(texts),
            run=(texts, aspects, labels)
            if unlabelled is None
            else (
                [*texts, *unlabelled[0]],
                [*aspects, *unlabelled[1]],
                [*labels.tolist(), *[None] * len(unlabelled[0])],
            ),
            n_features_in=2,
            feature_names=feature_names,
            unlabelled=unlabelled,
            weights=weights,
        )

    def _copies(self, data: TrainingData, augment_: str, rng):
        """Flipped copies (the opinion next to one term reversed), negated ones
        (a negation before it) and joined ones (two sentences of opposite
        polarity): ``(texts, aspects, spans, targets, source)``, ``source``
        (n_new, 2) the given pairs each was made from (the same twice for a
        flipped or negated copy; one of each sentence for a joined one)."""
        spans = data.spans or [None] * len(data.texts)
        labels = data.classes[data.targets].tolist()
        columns = (data.texts, data.aspects, spans, labels, "positive", "negative")
        made, made_labels, sources = [], [], []
        for how in ("flip", "negate"):
            if how not in augment_:
                continue
            negate = how == "negate"
            antonyms = (
                None if negate else _check_antonyms(self.antonyms, type(self).__name__)
            )
            if data.aspect_type == "term":
                X, y, _, source = augment.flip_pairs(
                    *columns, antonyms=antonyms, negate=negate
                )
            else:
                X, y, source = augment.flip_categories(
                    data.texts, data.aspects, labels, "positive", "negative",
                    antonyms=antonyms, negate=negate,
                )  # fmt: skip
                X = [(text, category, None) for text, category in X]
            made, made_labels = made + X, made_labels + y
            sources.append(np.c_[source, source])
        if "join" in augment_:
            if data.aspect_type == "term":
                X, y, source = augment.join_pairs(*columns, random_state=rng)
            else:
                X, y, source = augment.join_categories(
                    data.texts, data.aspects, labels, "positive", "negative", rng
                )
                X = [(text, category, None) for text, category in X]
            made, made_labels = made + X, made_labels + y
            sources.append(source)
        texts, aspects, spans = ([x[k] for x in made] for k in range(3))
        index = {c: k for k, c in enumerate(data.classes.tolist())}
        targets = np.array([index[label] for label in made_labels], dtype=np.intp)
        return texts, aspects, spans, targets, np.concatenate(sources)

    def _teacher_fit_data(self, data: TrainingData, rows) -> tuple:
        return data.pairs(rows), data.classes[data.targets[rows]]

    def _teacher_targets(self, teacher, data: TrainingData, temperature: float):
        return teacher_targets(
            teacher, data.pairs(), data.classes, temperature, type(self).__name__
        )

    def _training_dataset(self, pipeline, module_config, data: TrainingData):
        sentences, sentence_of_pair = pipeline.encode_pairs(data.texts, data.aspects)
        aspect_data = self._aspect_input(
            pipeline, data.aspect_type, data.categories, data.aspects
        )
        spans = _term_spans(
            pipeline, module_config, data.texts, data.aspects, data.spans
        )
        return PairDataset(
            sentences,
            sentence_of_pair,
            aspect_data,
            data.targets,
            spans,
            data.teacher,
            data.weights,
        )

    def _aspect_input(self, pipeline, aspect_type, categories, aspects):
        """Category ids (n,), or the terms' token ids (EncodedTexts)."""
        if aspect_type == "term":
            return pipeline.encode_terms(aspects)
        return category_ids(aspects, categories)

    # ---------------------------------------------------------------------- inference
    def encode(self, X) -> PairDataset:
        """The model input for pairs ``X``: each distinct sentence encoded once, the
        aspects as ids. The first step of every prediction method; a seam for
        benchmarks and custom loops (see :mod:`aspectattn.engine.inference`)."""
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


# ------------------------------------------------------------------------ helpers
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


def _pair_labels(y, n: int, teaching) -> tuple:
    """``(labels, labelled)``: ``y`` of ``n`` pairs checked, and which pairs
    have a label. Without ``teaching``, ``-1`` is a class like any other (None:
    missing); with it, ``-1``, None or NaN mark a pair for the teacher to
    label."""
    if teaching is None:
        return check_labels(y, n), np.ones(n, dtype=bool)
    labels, labelled = check_partial_labels(y, n)
    if not labelled.any():
        raise InputError(
            f"y labels none of the {n} pairs; fit needs labelled pairs of at "
            "least 2 classes (the teacher labels the others)."
        )
    if not labelled.all() and _marks_minus_one(y, labelled):
        check_minus_one_marks(labels, teaching.teacher, "y", "pairs")
    return labels, labelled


def _marks_minus_one(y, labelled) -> bool:
    """Whether any unlabelled sample of ``y`` is marked ``-1`` (not None/NaN)."""
    values = y.tolist() if hasattr(y, "tolist") else list(y)
    return any(not _is_missing(values[k]) for k in np.flatnonzero(~labelled))
