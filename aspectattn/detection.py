"""Which aspect categories does a sentence talk about, and how? One model for both.

:class:`AspectCategoryClassifier` follows scikit-learn's multi-output convention:
``X`` is a sequence of texts, ``Y`` has one column per category holding a polarity
or a "not mentioned" value. The model is the aspect attention of Wang et al. (2016)
in its AT form, with one learnable query per category: the encoder runs *once per
sentence* and every category attends to its states (Hu et al., 2019, CAN). Each
category is classified into its polarities or "not mentioned", so detection and
sentiment are learnt together; optional regularisers keep the attention of
different categories apart (CAN's sparse and orthogonal terms).

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
from sklearn.utils.validation import check_is_fitted
from torch import nn

from . import inference, persistence
from ._batching import PairDataset
from ._validation import (
    InstanceOf,
    Interval,
    check_pairs,
    check_texts,
)
from .building import prepare_model
from .estimator import (
    AspectAttentionClassifier,
    _resolve_device,
    _resolve_seed,
)
from .exceptions import InputError
from .mentions import mentioned_aspects
from .modules import AspectAttentionModel
from .pipelines import distinct_index
from .training import train_module

__all__ = ["AspectCategoryClassifier", "CategoryModel", "MultiOutputLoss"]


class CategoryModel(nn.Module):
    """Every sentence on every category: (tokens, lengths) -> logits (B, K, C).

    Wraps an AT :class:`~aspectattn.modules.AspectAttentionModel` whose aspect
    vectors are the K category queries; the attention weights of the last forward
    pass are kept (``last_alpha``) for the attention regularisers.
    """

    def __init__(self, **config):
        super().__init__()
        self.model = AspectAttentionModel(**config)
        self.register_buffer(
            "categories", torch.arange(config["n_aspects"]), persistent=False
        )
        self.last_alpha = None

    @property
    def embedding(self) -> nn.Embedding:
        return self.model.embedding

    def forward(self, tokens, lengths, aspect=None, sentence=None):
        """Logits (B, K, C); ``aspect`` and ``sentence`` (of the batch) are unused."""
        logits, alpha = self.model.forward_many(tokens, lengths, self.categories)
        self.last_alpha = alpha  # (B, K, T) or (B, K, heads, T)
        return logits


class MultiOutputLoss(nn.Module):
    """Cross-entropy over every (sentence, category) cell, plus CAN's attention
    regularisers over the categories a sentence mentions.

    * sparse: ``sparse_penalty * mean_k (1 - sum_t alpha_kt^2)`` -- each mentioned
      category attends to few words;
    * orthogonal: ``orthogonal_penalty * ||A A^T - I||_F^2`` over the attention rows
      ``A`` of the mentioned categories -- different categories attend to
      different words.

    Parameters
    ----------
    module : CategoryModel
        Where the last attention weights are read.
    none_index : int
        The class index of "not mentioned".
    weight : tensor of shape (C,) or None
    """

    def __init__(
        self,
        module: CategoryModel,
        none_index: int,
        weight=None,
        sparse_penalty: float = 0.0,
        orthogonal_penalty: float = 0.0,
    ):
        super().__init__()
        self.module = [module]  # a reference, not a submodule (no double weights)
        self.none_index = none_index
        self.weight = weight
        self.sparse_penalty = sparse_penalty
        self.orthogonal_penalty = orthogonal_penalty

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        C = logits.shape[-1]
        weight = None if self.weight is None else self.weight.to(logits.device)
        loss = nn.functional.cross_entropy(
            logits.reshape(-1, C), target.reshape(-1), weight=weight
        )
        alpha = self.module[0].last_alpha
        if alpha is None or not (self.sparse_penalty or self.orthogonal_penalty):
            return loss
        if alpha.dim() == 4:  # heads: regularise their mean
            alpha = alpha.mean(2)
        mentioned = (target != self.none_index).to(alpha.dtype)  # (B, K)
        n = mentioned.sum().clamp(min=1.0)
        if self.sparse_penalty:
            sparse = ((1 - (alpha**2).sum(-1)) * mentioned).sum() / n
            loss = loss + self.sparse_penalty * sparse
        if self.orthogonal_penalty:
            rows = alpha * mentioned[:, :, None]  # (B, K, T), unmentioned rows 0
            gram = rows @ rows.transpose(1, 2)  # (B, K, K)
            eye = torch.diag_embed(mentioned)  # I on the mentioned categories
            ortho = ((gram - eye) ** 2).sum() / n
            loss = loss + self.orthogonal_penalty * ortho
        return loss


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


@persistence.register
class AspectCategoryClassifier(AspectAttentionClassifier):
    """Aspect-category detection and sentiment in one model, multi-output style.

    For each text and each aspect category (``food``, ``service``...), predicts a
    polarity or ``not_mentioned``. One encoder pass per sentence serves all
    categories; each category has a learnable query ``v_a`` that attends to the
    encoder states (the AT form of Wang et al., 2016, as in CAN, Hu et al., 2019).

    Parameters
    ----------
    not_mentioned : str, default="none"
        The value of ``Y`` for a category a text does not talk about (missing cells,
        None/NaN and empty strings count as not mentioned too).
    sparse_penalty, orthogonal_penalty : float, default=0.0
        CAN's attention regularisers over the categories a sentence mentions
        (:class:`MultiOutputLoss`).
    mention_weight : float, default=1.0
        Loss weight of the cells that are mentioned, relative to the "not
        mentioned" cells (most cells are not mentioned).
    Every other parameter is that of :class:`~aspectattn.AspectAttentionClassifier`
    (``encoder``, ``embeddings``, ``hidden_size``, ``attention_score``, ``lr``...),
    except ``variant`` (always AT), ``aspect_type`` (categories), ``batch_by``
    (sentences), ``pretrained_input`` (the query only), ``class_weight`` and the
    column names.

    Attributes
    ----------
    categories_ : ndarray of str
        The categories, in the order of ``Y``'s columns and of the outputs.
    classes_ : list of ndarray
        Per category, the labels of its output (the same for all: the polarities
        seen in ``fit`` and ``not_mentioned``), the columns of ``predict_proba``.
    Other fitted attributes as :class:`~aspectattn.AspectAttentionClassifier`.

    Examples
    --------
    >>> from aspectattn import AspectCategoryClassifier
    >>> from aspectattn.datasets import fetch_category_table
    >>> texts, Y = fetch_category_table("semeval2014", "train")  # doctest: +SKIP
    >>> clf = AspectCategoryClassifier(random_state=0).fit(texts, Y)  # doctest: +SKIP
    >>> clf.analyze(["Great pasta, rude waiter."])  # doctest: +SKIP
    [[{'aspect': 'food', 'label': 'positive', ...}, {'aspect': 'service', ...}]]
    """

    # Fixed settings of the parent's machinery (class attributes, not parameters).
    variant = "at"
    aspect_type = "category"
    batch_by = "sentence"
    pretrained_input = "vector"
    class_weight = None
    text_column = "text"
    aspect_column = "aspect"
    position_weighting = "none"  # categories have no place in the sentence
    term_marker = False
    term_query = "vectors"

    _parameter_constraints = {
        **{
            k: v
            for k, v in AspectAttentionClassifier._parameter_constraints.items()
            if k
            not in (
                "variant",
                "aspect_type",
                "batch_by",
                "pretrained_input",
                "class_weight",
                "text_column",
                "aspect_column",
                "position_weighting",
                "term_marker",
                "term_query",
                "augment",
                "antonyms",
            )
        },
        "not_mentioned": [InstanceOf((str,), "a string")],
        "sparse_penalty": [Interval(float, 0, None)],
        "orthogonal_penalty": [Interval(float, 0, None)],
        "mention_weight": [Interval(float, 0, None, "neither")],
    }

    def __init__(
        self,
        *,
        not_mentioned="none",
        sparse_penalty=0.0,
        orthogonal_penalty=0.0,
        mention_weight=1.0,
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
        encoder="lstm",
        pretrained_model=None,
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
        max_epochs=20,
        gradient_clip=None,
        validation_fraction=None,
        early_stopping=False,
        scoring="loss",
        patience=5,
        checkpoint_dir=None,
        random_state=None,
        device="auto",
        quantize=None,
        verbose=0,
    ):
        self.not_mentioned = not_mentioned
        self.sparse_penalty = sparse_penalty
        self.orthogonal_penalty = orthogonal_penalty
        self.mention_weight = mention_weight
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
        self.encoder = encoder
        self.pretrained_model = pretrained_model
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
        self.max_epochs = max_epochs
        self.gradient_clip = gradient_clip
        self.validation_fraction = validation_fraction
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.patience = patience
        self.checkpoint_dir = checkpoint_dir
        self.random_state = random_state
        self.device = device
        self.quantize = quantize
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def _check_params(self) -> None:
        super()._check_params()
        if not self.not_mentioned.strip():
            raise ValueError(
                f"The 'not_mentioned' parameter of {type(self).__name__} must be a "
                f"non-empty string. Got {self.not_mentioned!r} instead."
            )
        if self.scoring != "loss":
            raise ValueError(
                f"The 'scoring' parameter of {type(self).__name__} must be 'loss' "
                f"(validation loss selects the epoch). Got {self.scoring!r} instead."
            )

    # ------------------------------------------------------------------ fitting
    def fit(self, X, Y):
        """Train on texts ``X`` and the table ``Y`` (one column per category).

        Parameters
        ----------
        X : sequence of str
        Y : DataFrame or array-like of shape (n_texts, n_categories)
            A polarity or ``not_mentioned`` per cell.

        Returns
        -------
        self
        """
        self._check_params()
        texts = check_texts(X, what="X")
        categories, table = _check_table(Y, len(texts), self.not_mentioned)
        labels = sorted({str(v) for v in table.ravel()} | {self.not_mentioned})
        if len(labels) < 2:
            raise InputError("Y holds a single label; nothing to learn.")
        label_index = {v: i for i, v in enumerate(labels)}
        targets = np.vectorize(lambda v: label_index[str(v)], otypes=[np.int64])(table)
        seed = _resolve_seed(self.random_state)
        rng = np.random.default_rng(seed)
        device = _resolve_device(self.device)
        names = np.array(categories, dtype=object)
        pipeline, module_config, init, coverage = prepare_model(
            self, texts, [], "category", names, len(labels), seed, rng
        )
        n = len(texts)
        dataset = PairDataset(
            pipeline.encode(texts), np.arange(n), np.zeros(n, np.int64), targets
        )
        none_index = label_index[self.not_mentioned]
        weight = None
        if self.mention_weight != 1.0:
            weight = torch.full((len(labels),), float(self.mention_weight))
            weight[none_index] = 1.0

        def criterion(module):
            return MultiOutputLoss(
                module,
                none_index,
                weight,
                self.sparse_penalty,
                self.orthogonal_penalty,
            )

        fitted_module, history, best_epoch, interrupted, fit_time = train_module(
            self,
            lambda: CategoryModel(**module_config),
            init,
            dataset,
            texts,
            seed,
            rng,
            device,
            run_data=(texts, [" ".join(categories)] * n, targets.tolist()),
            classes=np.arange(len(labels)),
            criterion=criterion,
        )
        fitted_module.last_alpha = None
        self._set_fitted(
            classes_=[np.asarray(labels)] * len(categories),
            aspect_type_="category",
            aspects_=names,
            text_pipeline_=pipeline,
            embedding_coverage_=coverage,
            module_config_=module_config,
            module_=fitted_module.model,
            device_=device,
            history_=history,
            best_epoch_=best_epoch,
            interrupted_=interrupted,
            fit_time_=fit_time,
            n_features_in_=1,
            feature_names_in_=None,
        )
        return self

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
        """Labels (n_texts, n_categories): a polarity or ``not_mentioned``."""
        proba = self._category_proba(X)
        return self.labels_[proba.argmax(-1)]

    def decision_function(self, X):
        raise AttributeError("AspectCategoryClassifier has no decision_function")

    def predict_sentiment(self, X) -> np.ndarray:
        """Polarity of given ``(text, category)`` pairs, "not mentioned" excluded:
        the pair task of :class:`~aspectattn.AspectAttentionClassifier`."""
        check_is_fitted(self, "module_")
        texts, aspects, _ = check_pairs(X)
        # category ids, with the pair classifier's error for an unseen category
        category = self._aspect_input(None, "category", self.aspects_, aspects)
        distinct, row = distinct_index(texts)
        proba = self._category_proba(distinct)
        none = self.labels_ == self.not_mentioned
        picked = proba[row, category]
        picked[:, none] = -1.0
        return self.labels_[picked.argmax(-1)]

    def score(self, X, Y, sample_weight=None) -> float:
        """Micro-F1 of the (category, polarity) pairs found: a predicted pair is
        right when the text mentions that category with that polarity (the
        end-to-end measure; the default scorer of GridSearchCV)."""
        check_is_fitted(self, "module_")
        _, table = _check_table(Y, len(check_texts(X, what="X")), self.not_mentioned)
        return mention_f1(table, self.predict(X), self.not_mentioned)

    def analyze(self, X, min_probability: float = 0.5) -> list[list[dict]]:
        """Per text, the categories it mentions with label, probability and the
        category's attention over the tokens.

        A category is mentioned when the probability of ``not_mentioned`` is below
        ``1 - min_probability``; its label is then its most probable polarity.
        """
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

    # Pair-classifier methods that do not apply here.
    def explain(self, X):
        """See :meth:`analyze` (the attention of every mentioned category)."""
        raise AttributeError("use analyze(texts) for the attention of each category")

    def predict_proba_aspects(self, texts, aspects=None):
        raise AttributeError("use predict_proba(texts): every category at once")

    predict_aspects = predict_proba_aspects

    def _fitted_state(self) -> dict:
        labels = self.classes_
        try:
            self.classes_ = labels[0]  # stored once: the same for every output
            return super()._fitted_state()
        finally:
            self.classes_ = labels

    @classmethod
    def _from_saved(cls, params, state, tensors):
        estimator = super()._from_saved(params, state, tensors)
        estimator.classes_ = [estimator.classes_] * len(estimator.aspects_)
        return estimator


def detection_f1(Y_true, Y_pred, not_mentioned: str = "none") -> float:
    """Micro-F1 of the (text, category) cells found mentioned, whatever polarity."""
    true = np.asarray(Y_true, dtype=object) != not_mentioned
    pred = np.asarray(Y_pred, dtype=object) != not_mentioned
    total = true.sum() + pred.sum()
    return float(2 * (true & pred).sum() / total) if total else 0.0


def mention_f1(Y_true, Y_pred, not_mentioned: str = "none") -> float:
    """Micro-F1 of (text, category, polarity) triples that are mentioned."""
    Y_true, Y_pred = np.asarray(Y_true, dtype=object), np.asarray(Y_pred, dtype=object)
    true = Y_true != not_mentioned
    pred = Y_pred != not_mentioned
    hits = np.sum(true & pred & (Y_true.astype(str) == Y_pred.astype(str)))
    precision = hits / max(pred.sum(), 1)
    recall = hits / max(true.sum(), 1)
    return float(0.0 if hits == 0 else 2 * precision * recall / (precision + recall))
