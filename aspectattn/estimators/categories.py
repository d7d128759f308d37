"""Which aspect categories does a sentence talk about, and how? One model for both.

:class:`AspectCategoryClassifier` follows scikit-learn's multi-output convention:
``X`` is a sequence of texts, ``Y`` has one column per category holding a polarity
or a "not mentioned" value. The model is the aspect attention of Wang et al. (2016)
in its AT form, with one learnable query per category: the encoder runs *once per
sentence* and every category attends to its states (Hu et al., 2019, CAN). Each
category is classified into its polarities or "not mentioned", so detection and
sentiment are learnt together; optional regularisers keep the attention of
different categories apart (CAN's sparse and orthogonal terms, in
:mod:`aspectattn.nn.categories`).

It is a sibling of :class:`~aspectattn.AspectAttentionClassifier` on the shared
:class:`~aspectattn.estimators._base.AspectAttentionBase`: its parameters are the
table of :mod:`aspectattn.params` less the pair classifier's groups.

References
----------
Yequan Wang, Minlie Huang, Xiaoyan Zhu and Li Zhao. 2016. Attention-based LSTM for
Aspect-level Sentiment Classification. EMNLP, 606-615.

Mengting Hu, Shiwan Zhao, Li Zhang, Keke Cai, Zhong Su, Renhong Cheng and Xiaowei
Shen. 2019. CAN: Constrained Attention Networks for Multi-Aspect Sentiment Analysis.
EMNLP-IJCNLP, 4601-4610.
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.special import softmax
from sklearn.base import ClassifierMixin, MultiOutputMixin
from sklearn.utils.validation import check_is_fitted

from .. import augment, persistence
from .. import params as P
from .._mentions import check_min_probability, mention_labels, mentioned_aspects
from .._validation import category_ids, check_pairs, check_texts
from ..engine import inference
from ..engine.batching import PairDataset
from ..engine.distillation import (
    check_minus_one_marks,
    check_teaching,
    table_teacher_targets,
)
from ..exceptions import InputError
from ..nn.categories import CategoryModel
from ..text.pipelines import distinct_index
from ._base import (
    AspectAttentionBase,
    TrainingData,
    check_sample_weight,
    signature_constraints,
    split_sample_weight,
)

__all__ = ["AspectCategoryClassifier", "detection_f1", "mention_f1"]

#: The parameters of the detector (its signature), in the order of the table.
SIGNATURE = P.names_for(P.PAIR_GROUPS)


@persistence.register
class AspectCategoryClassifier(MultiOutputMixin, ClassifierMixin, AspectAttentionBase):
    """Aspect-category detection and sentiment in one model, multi-output style.

    For each text and each aspect category (``food``, ``service``...), predicts a
    polarity or ``not_mentioned``. One encoder pass per sentence serves all
    categories; each category has a learnable query ``v_a`` that attends to the
    encoder states (the AT form of Wang et al., 2016, as in CAN, Hu et al., 2019).

    Parameters
    ----------
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
        encoder states (``score``), how many queries it makes (``heads``) and
        what joins the pooled vector before it is classified (``final_state``;
        ``"auto"``: nothing, the category's attention alone). Its aspect-term
        settings must keep their defaults. A score's name stands for the
        attention with that score and the other defaults. Grid searches reach its
        parameters as ``attention__score`` and so on.
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
    %(augment)s
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
    validation_fraction : float or None, default=None
        Share of the training *sentences* held out for validation (all aspects of a
        sentence go to the same side, so validation scores are not inflated by
        sentences seen in training). ``None`` trains on everything. Validation loss,
        accuracy and macro-F1 per epoch are recorded in ``history_``.
    early_stopping : bool or EarlyStopping, default=False
        Stop when the validation loss stalls and keep the best epoch's weights
        (:class:`~aspectattn.training.EarlyStopping`: its ``patience``, the epochs
        without improvement before stopping; ``"auto"``: 5, or 2 with a
        pretrained encoder; the detector keeps its ``scoring`` at the loss).
        ``True`` stands for it with its defaults. Needs ``validation_fraction``.
    checkpoint_dir : str, path-like or None, default=None
        Write a checkpoint after every epoch into this folder (one file per run,
        named by a fingerprint of the hyperparameters and the data). A ``fit`` with
        the same hyperparameters and data resumes from it, continuing exactly where
        the interrupted run stopped (same weights, optimizer state, history and
        random states); after a completed run it returns the finished model at once.
        Delete the file to train afresh.
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
    not_mentioned : str, default="none"
        The value of ``Y`` for a category a text does not talk about (missing cells,
        None/NaN and empty strings count as not mentioned too).
    sparse_penalty : float, default=0.0
        CAN's attention regularisers over the categories a sentence mentions
        (:class:`MultiOutputLoss`).
    orthogonal_penalty : float, default=0.0
        CAN's attention regularisers over the categories a sentence mentions
        (:class:`MultiOutputLoss`).
    mention_weight : float or "auto", default="auto"
        Loss weight of the cells that are mentioned, relative to the "not
        mentioned" cells (most cells are not mentioned). ``"auto"``: 2 with the
        LSTM encoder, chosen on validation by the rule of the attention
        estimators' copies (of the candidates within one standard deviation of the
        best validation micro-F1 on SemEval-2014 and SemEval-2015 restaurant
        categories, the best validation robustness score); 1 with the other
        encoders (not measured). See ``resolved_params_``.

    Attributes
    ----------
    categories_ : ndarray of str
        The categories, in the order of ``Y``'s columns and of the outputs.
    labels_ : ndarray of str
        The labels of every output: the polarities seen in ``fit`` and
        ``not_mentioned``.
    classes_ : list of ndarray
        Per category, the labels of its output (``labels_`` for all), the columns
        of ``predict_proba``.
    resolved_params_, text_pipeline_, vocabulary_, embedding_coverage_, module_, \
module_config_, device_, history_, best_epoch_, fit_time_, interrupted_
        As :class:`~aspectattn.AspectAttentionClassifier`.

    See Also
    --------
    AspectAttentionClassifier : The polarity of given (text, aspect) pairs.
    aspectattn.reviews.analyze_reviews : Reviews through a detector into a
        sentence table and a summary with intervals.

    Examples
    --------
    >>> import pandas as pd
    >>> from aspectattn import AspectCategoryClassifier
    >>> texts = ["Great pasta, rude waiter.", "The pasta was bland."] * 10
    >>> Y = pd.DataFrame({"food": ["positive", "negative"] * 10,
    ...                   "service": ["negative", "none"] * 10})
    >>> clf = AspectCategoryClassifier(max_epochs=2, random_state=0).fit(texts, Y)
    >>> clf.predict(["Great pasta, rude waiter."]).shape
    (1, 2)
    >>> clf.categories_.tolist()
    ['food', 'service']
    """

    # Settings of the shared machinery that are not parameters of the detector.
    _fixed_params = dict(
        variant="at",
        aspect_type="category",
        batch_by="sentence",
        class_weight=None,
    )
    # The components' parameters for aspect terms, or for the pair classifier's
    # choice of epoch (the validation loss selects the detector's).
    _unread = {
        "encoder": ("input",),
        "attention": ("position_weighting", "position_dropout", "term_query"),
        "early_stopping": ("scoring",),
    }
    _detector = True
    _parameter_constraints = signature_constraints(SIGNATURE)

    def __init__(
        self,
        *,
        encoder="lstm",
        attention="additive",
        dropout="auto",
        language="auto",
        augment="auto",
        copy_weight="auto",
        optimizer="adam",
        lr="auto",
        batch_size="auto",
        max_epochs="auto",
        precision="auto",
        validation_fraction=None,
        early_stopping=False,
        checkpoint_dir=None,
        random_state=None,
        device="auto",
        quantize=None,
        verbose=0,
        not_mentioned="none",
        sparse_penalty=0.0,
        orthogonal_penalty=0.0,
        mention_weight="auto",
    ):
        self.encoder = encoder
        self.attention = attention
        self.dropout = dropout
        self.language = language
        self.augment = augment
        self.copy_weight = copy_weight
        self.optimizer = optimizer
        self.lr = lr
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.precision = precision
        self.validation_fraction = validation_fraction
        self.early_stopping = early_stopping
        self.checkpoint_dir = checkpoint_dir
        self.random_state = random_state
        self.device = device
        self.quantize = quantize
        self.verbose = verbose
        self.not_mentioned = not_mentioned
        self.sparse_penalty = sparse_penalty
        self.orthogonal_penalty = orthogonal_penalty
        self.mention_weight = mention_weight

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def _check_combinations(self, values: dict) -> None:
        super()._check_combinations(values)
        if not self.not_mentioned.strip():
            raise ValueError(
                f"The 'not_mentioned' parameter of {type(self).__name__} must be a "
                f"non-empty string. Got {self.not_mentioned!r} instead."
            )

    _module_class = CategoryModel

    # ------------------------------------------------------------------ fitting
    def fit(self, X, Y, sample_weight=None, teaching=None):
        """Train on texts ``X`` and the table ``Y`` (one column per category).

        Parameters
        ----------
        X : sequence of str
        Y : DataFrame or array-like of shape (n_texts, n_categories)
            A polarity or ``not_mentioned`` per cell; with ``teaching``, a row
            of ``-1`` (or None/NaN) marks a text nobody labelled. A ``-1`` in
            some cells of a row, beside string labels, marks categories nobody
            labelled for that text (a table joined from two sources, each with
            categories of its own): they are left out of the loss, and the
            copies ``augment`` makes keep them so.
        sample_weight : array-like of shape (n_texts,) or None, default=None
            Each text's weight in the training loss, on every one of its cells
            (None: 1 each); a copy that ``augment`` makes weighs
            ``copy_weight`` times its sources' mean. The validation split is
            scored unweighted.
        teaching : Teaching or None, default=None
            A teacher's probabilities to learn from beside the labels
            (:class:`~aspectattn.Teaching`: what
            :class:`~aspectattn.DistilledClassifier` passes).

        Returns
        -------
        self
        """
        return self._fit(X, Y, check_teaching(teaching), sample_weight)

    def _training_data(self, X, Y, teaching, sample_weight) -> TrainingData:
        texts = check_texts(X, what="X")
        categories, table = _check_table(Y, len(texts), self.not_mentioned)
        weights = check_sample_weight(sample_weight, len(texts), "texts")
        teacher = None if teaching is None else teaching.teacher
        unknown = _unlabelled_cells(table, self.not_mentioned)
        labelled = ~_unlabelled_rows(table, unknown, teacher, self.not_mentioned)
        unlabelled = None
        if not labelled.all():
            weights, unlabelled_weights = split_sample_weight(weights, labelled)
            unlabelled = (
                [t for t, k in zip(texts, labelled, strict=True) if not k],
                [],
                [None] * int((~labelled).sum()),
                unlabelled_weights,
            )
            texts = [t for t, k in zip(texts, labelled, strict=True) if k]
            table, unknown = table[labelled], unknown[labelled]
        labels = sorted({str(v) for v in table[~unknown]} | {self.not_mentioned})
        if len(labels) < 2:
            raise InputError("Y holds a single label; nothing to learn.")
        targets = _label_indices(np.where(unknown, None, table), labels)
        run = (texts, [" ".join(categories)] * len(texts), targets.tolist())
        if unlabelled is not None:  # (a checkpoint's run is the data given)
            n = len(unlabelled[0])
            given, names, cells = run
            run = ([*given, *unlabelled[0]], [*names, *[""] * n], [*cells, *[None] * n])
        return TrainingData(
            texts=texts,
            aspects=[],
            spans=None,
            targets=targets,
            labels=labels,
            classes=[np.asarray(labels)] * len(categories),
            aspect_type="category",
            categories=np.array(categories, dtype=object),
            n_given=len(texts),
            run=run,
            n_features_in=1,
            unlabelled=unlabelled,
            weights=weights,
        )

    def _teacher_fit_data(self, data: TrainingData, rows) -> tuple:
        table = _label_table(data, rows, unlabelled=-1)  # (as Y marks them)
        categories = data.categories.tolist()
        if categories != [str(k) for k in range(len(categories))]:  # named columns
            import pandas as pd  # (Y was a DataFrame)

            table = pd.DataFrame(table, columns=categories)
        return [data.texts[k] for k in rows], table

    def _teacher_targets(self, teacher, data: TrainingData, temperature: float):
        return table_teacher_targets(
            teacher,
            data.texts,
            data.categories.tolist(),
            data.labels,
            temperature,
            type(self).__name__,
        )

    def _copies(self, data: TrainingData, augment_: str, rng):
        """Sentences with their opinion reversed (:func:`~aspectattn.augment.
        flip_table`: every opinion word flipped or negated, the mentioned
        categories' polarity reversed) and sentences joined by
        :func:`~aspectattn.augment.join_table` (each source keeps its
        polarities, the other categories not mentioned)."""
        table = _label_table(data)  # (a cell nobody labelled: None)
        columns = (data.texts, table, self.not_mentioned, "positive", "negative")
        texts, tables, sources = [], [], []
        for how in ("flip", "negate"):
            if how in augment_:
                made, made_table, source = augment.flip_table(
                    *columns, negate=how == "negate"
                )
                texts, tables = texts + made, tables + [made_table]
                sources.append(np.c_[source, source])
        if "join" in augment_:
            made, made_table, source = augment.join_table(*columns, rng)
            texts, tables = texts + made, tables + [made_table]
            sources.append(source)
        new_table = np.concatenate(tables).reshape(len(texts), table.shape[1])
        targets = _label_indices(new_table, data.labels)
        return texts, [], [None] * len(texts), targets, np.concatenate(sources)

    def _training_dataset(self, pipeline, module_config, data: TrainingData):
        n = len(data.texts)
        return PairDataset(
            pipeline.encode(data.texts),
            np.arange(n),
            np.zeros(n, np.int64),
            data.targets,
            teacher=data.teacher,
            weight=data.weights,
        )

    def _loss(self, data: TrainingData, config) -> dict:
        """Cross-entropy over every cell (mentions weighted by ``mention_weight``)
        plus CAN's attention regularisers (:class:`MultiOutputLoss`)."""
        none_index = data.labels.index(self.not_mentioned)
        weight = None
        if config.mention_weight != 1.0:
            weight = torch.full((len(data.labels),), float(config.mention_weight))
            weight[none_index] = 1.0
        return dict(
            none_index=none_index,
            weight=weight,
            sparse_penalty=config.sparse_penalty,
            orthogonal_penalty=config.orthogonal_penalty,
        )

    # ---------------------------------------------------------------- prediction
    @property
    def categories_(self) -> np.ndarray:
        """The categories, in the order of the outputs."""
        return self.aspects_

    @property
    def labels_(self) -> np.ndarray:
        """The labels of every output: polarities and ``not_mentioned``."""
        return self.classes_[0]

    def _category_proba(self, texts, encoded=None, attention: bool = False):
        """(n_texts, n_categories, n_labels) probabilities [and, with
        ``attention``, per text the (n_categories, n_tokens) weights, same pass]."""
        check_is_fitted(self, "module_")
        if encoded is None:
            encoded = self.text_pipeline_.encode(check_texts(texts, what="X"))
        module, device = self._inference_module()
        out = inference.aspect_logits(
            module,
            encoded,
            torch.arange(len(self.aspects_)),
            device,
            len(self.labels_),
            attention=attention,
        )
        logits, alphas = out if attention else (out, None)
        proba = softmax(logits.astype(np.float64), axis=-1)
        return (proba, alphas) if attention else proba

    def predict_proba(self, X) -> list[np.ndarray]:
        """Per category, probabilities (n_texts, n_labels), columns as
        ``classes_[k]`` (sklearn's multi-output convention)."""
        proba = self._category_proba(X)
        return [proba[:, k] for k in range(proba.shape[1])]

    def predict(self, X) -> np.ndarray:
        """Labels (n_texts, n_categories): a polarity or ``not_mentioned``.

        A category is mentioned when its probability of being mentioned (of any
        polarity) is at least 0.5, as :meth:`analyze` lists it by default; its
        label is then its most probable polarity."""
        proba = self._category_proba(X)
        return self.labels_[mention_labels(proba, self.labels_ == self.not_mentioned)]

    def predict_sentiment(self, X) -> np.ndarray:
        """Polarity of given ``(text, category)`` pairs, "not mentioned" excluded:
        the pair task of :class:`~aspectattn.AspectAttentionClassifier`."""
        check_is_fitted(self, "module_")
        texts, aspects, _ = check_pairs(X)
        # category ids, with the pair classifier's error for an unseen category
        category = category_ids(aspects, self.aspects_)
        distinct, row = distinct_index(texts)
        proba = self._category_proba(distinct)
        none = self.labels_ == self.not_mentioned
        picked = proba[row, category]
        picked[:, none] = -1.0
        return self.labels_[picked.argmax(-1)]

    def score(self, X, Y, sample_weight=None) -> float:
        """Micro-F1 of the (category, polarity) pairs found: a predicted pair is
        right when the text mentions that category with that polarity (the
        end-to-end measure; the default scorer of GridSearchCV). A cell nobody
        labelled (``-1`` beside string labels, as in ``fit``) is left out."""
        check_is_fitted(self, "module_")
        names, table = _check_table(
            Y, len(check_texts(X, what="X")), self.not_mentioned
        )
        true, predicted = self._align(names, table, Y), self.predict(X)
        unknown = _unlabelled_cells(true, self.not_mentioned)  # left out
        true = np.array(true, dtype=object)
        predicted = np.array(predicted, dtype=object)
        true[unknown] = predicted[unknown] = self.not_mentioned
        return mention_f1(true, predicted, self.not_mentioned)

    def _align(self, names, table, Y):
        """``table``'s columns in the order of ``categories_``: matched by name
        when ``Y`` names them (a DataFrame), else taken in the fitted order."""
        fitted = [str(c) for c in self.categories_]
        if not hasattr(Y, "columns"):
            if table.shape[1] != len(fitted):
                raise InputError(
                    f"Y has {table.shape[1]} columns; the model has {len(fitted)} "
                    f"categories {fitted} (a DataFrame may name them in any order)."
                )
            return table
        unknown = sorted(set(names) - set(fitted))
        missing = sorted(set(fitted) - set(names))
        if unknown or missing:
            raise InputError(
                f"Y's columns must be the model's categories {fitted}; "
                + (f"unknown: {unknown}" if unknown else "")
                + ("; " if unknown and missing else "")
                + (f"missing: {missing}" if missing else "")
                + "."
            )
        return table[:, [names.index(c) for c in fitted]]

    def analyze(self, X, min_probability: float = 0.5) -> list[list[dict]]:
        """Per text, the categories it mentions with label, probability and the
        category's attention over the tokens.

        A category is mentioned when the probability of ``not_mentioned`` is below
        ``1 - min_probability``; its label is then its most probable polarity.
        """
        check_min_probability(min_probability)
        check_is_fitted(self, "module_")
        texts = check_texts(X, what="X")
        encoded = self.text_pipeline_.encode(texts)
        tokens = self.text_pipeline_.tokens(encoded, texts)
        proba, alphas = self._category_proba(texts, encoded, attention=True)
        return mentioned_aspects(
            texts,
            tokens,
            proba,
            alphas,
            self.aspects_,
            self.labels_,
            self.not_mentioned,
            min_probability,
        )

    # -------------------------------------------------------------- fitted state
    def _saved_classes(self):
        return self.classes_[0]  # stored once: the same for every output

    @classmethod
    def _loaded_classes(cls, classes, aspects):
        return [classes] * len(aspects)


def _label_indices(table: np.ndarray, labels: list) -> np.ndarray:
    """The index of each cell's label (str) among ``labels``, (n, K) int64;
    ``-1`` for a cell nobody labelled (None)."""
    index = {label: i for i, label in enumerate(labels)}
    flat = [-1 if v is None else index[str(v)] for v in table.ravel()]
    return np.asarray(flat, dtype=np.int64).reshape(table.shape)


def _label_table(data: TrainingData, rows=slice(None), unlabelled=None):
    """The labels of ``data``'s ``rows`` as an object table (n, K); a cell
    nobody labelled (target ``-1``) is ``unlabelled``."""
    targets = data.targets[rows]  # (n, K)
    labels = np.asarray(data.labels, dtype=object)[targets]
    return np.where(targets >= 0, labels, unlabelled)


def _check_table(Y, n_texts: int, not_mentioned):
    """``Y`` as (categories, an object array (n, K)); missing cells not mentioned."""
    if Y is None:
        raise InputError("Y is required: one column per aspect category.")
    if hasattr(Y, "columns") and hasattr(Y, "to_numpy"):
        categories = [str(c) for c in Y.columns]
        values = Y.to_numpy(dtype=object)
    else:
        values = np.asarray(Y, dtype=object)
        if values.ndim != 2:
            raise InputError(
                f"Y must be 2-dimensional (n_texts, n_categories), got shape "
                f"{values.shape}; a DataFrame names the categories by its columns."
            )
        categories = [str(i) for i in range(values.shape[1])]
    if values.ndim != 2 or values.shape[0] != n_texts:
        raise InputError(
            f"X has {n_texts} texts but Y has shape {values.shape}; one row per text."
        )
    if values.shape[1] == 0 or len(set(categories)) != len(categories):
        raise InputError("Y needs at least one column, with distinct names.")
    out = values.copy()
    for index, value in np.ndenumerate(values):
        if value is None or (isinstance(value, float) and value != value):
            out[index] = not_mentioned
        elif isinstance(value, str) and not value.strip():
            out[index] = not_mentioned
        elif not isinstance(value, (str, int, np.integer)) or isinstance(value, bool):
            raise InputError(
                f"Y[{index[0]}, {categories[index[1]]!r}] is {value!r}; expected a "
                f"polarity label or {not_mentioned!r}."
            )
    return categories, out


def _minus_ones(table: np.ndarray) -> np.ndarray:
    """Cells that are the integer ``-1``, (n_texts, n_categories) bool."""
    out = np.zeros(table.shape, dtype=bool)
    for index, value in np.ndenumerate(table):
        out[index] = (
            isinstance(value, (int, np.integer))
            and not isinstance(value, (bool, np.bool_))
            and value == -1
        )
    return out


def _unlabelled_cells(table: np.ndarray, not_mentioned) -> np.ndarray:
    """Cells nobody labelled: ``-1`` in a row with other values, beside string
    labels (where ``-1`` is no polarity). A text labelled for some categories
    only (two sources, each with categories of its own): fit leaves those cells
    out of the loss, ``score`` out of the F1, and the copies keep them unknown.
    Beside integer polarities ``-1`` is a label."""
    minus_one = _minus_ones(table)
    cells = minus_one & ~minus_one.all(axis=1)[:, None]  # (n_texts, n_categories)
    if cells.any() and any(
        isinstance(v, str) and v != not_mentioned for v in table[~minus_one]
    ):
        return cells
    return np.zeros(table.shape, dtype=bool)


def _unlabelled_rows(
    table: np.ndarray, unknown: np.ndarray, teacher, not_mentioned
) -> np.ndarray:
    """Rows (texts) that are ``-1`` in every column: unlabelled, as in
    :mod:`sklearn.semi_supervised`, where a ``teacher`` labels them (without
    one, ``-1`` is a label like any other) -- unless ``-1`` is also a label (a
    cell of a row with other values in an integer-coded table, ``-1``
    negative), which is ambiguous: an error; so are they where ``-1`` may be a
    label (:func:`check_minus_one_marks`). ``unknown``: the cells nobody
    labelled (:func:`_unlabelled_cells`), no label either."""
    minus_one = _minus_ones(table) & ~unknown  # (n_texts, n_categories)
    rows = minus_one.all(axis=1)
    if teacher is None:
        strings = [v for v in table[~rows].ravel() if isinstance(v, str)]
        if rows.any() and strings:  # -1 beside string labels: no label of it
            raise InputError(
                f"Y marks {int(rows.sum())} of {len(rows)} texts as unlabelled "
                f"(first: row {int(np.argmax(rows))}; -1 in every column) beside "
                "string labels; fit learns from them only with a teacher that "
                "labels them: DistilledClassifier(AspectCategoryClassifier(...), "
                "teacher=...). Remove them, or give a teacher."
            )
        return np.zeros(len(table), dtype=bool)
    if rows.any() and minus_one[~rows].any():
        if teacher is not None:
            raise InputError(
                "Y has rows that are -1 in every column (unlabelled texts, as in "
                "scikit-learn's semi-supervised learning) and also uses -1 as a "
                "label in other rows; map your labels to others (e.g. strings) so "
                "that -1 marks unlabelled texts alone."
            )
        return np.zeros(len(table), dtype=bool)  # -1 is a label of this table
    if rows.any() and teacher is not None:
        cells = table[~rows[:, None] & ~unknown]  # the labelled texts' labels
        mentioned = [v for v in cells if str(v) != str(not_mentioned)]
        if mentioned:  # (none at all: refused as a table of one label)
            check_minus_one_marks(mentioned, teacher, "Y", "texts")
    return rows


def _label_strings(Y) -> np.ndarray:
    """Cells as the labels the detector predicts: strings (``1`` and ``"1"`` are
    one label, as in ``fit``)."""
    return np.vectorize(str, otypes=[object])(np.asarray(Y, dtype=object))


def detection_f1(Y_true, Y_pred, not_mentioned: str = "none") -> float:
    """Micro-F1 of the (text, category) cells found mentioned, whatever polarity."""
    none = str(not_mentioned)
    true = _label_strings(Y_true) != none
    pred = _label_strings(Y_pred) != none
    total = true.sum() + pred.sum()
    return float(2 * (true & pred).sum() / total) if total else 0.0


def mention_f1(Y_true, Y_pred, not_mentioned: str = "none") -> float:
    """Micro-F1 of (text, category, polarity) triples that are mentioned. Labels
    compare as the strings the detector predicts (an int-coded ``Y`` too)."""
    Y_true, Y_pred = _label_strings(Y_true), _label_strings(Y_pred)
    none = str(not_mentioned)
    true = Y_true != none
    pred = Y_pred != none
    hits = np.sum(true & pred & (Y_true == Y_pred))
    precision = hits / max(pred.sum(), 1)
    recall = hits / max(true.sum(), 1)
    return float(0.0 if hits == 0 else 2 * precision * recall / (precision + recall))
