"""What the two attention estimators share: parameters from the one table, their
checks before any data work, seeding and device, the fitted state, pickling and the
safe model file.

:class:`AspectAttentionBase` is the base of the pair classifier
(:mod:`~aspectattn.estimators.pairs`) and the category detector
(:mod:`~aspectattn.estimators.categories`), siblings that each declare their own
parameters (groups of :mod:`aspectattn.params`) and methods; neither masks the other.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, replace

import numpy as np
import torch
from sklearn.base import BaseEstimator
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .. import params as P
from .._slots import SLOTS
from .._validation import plain, text_tags
from ..attention import attention_component
from ..encoders import encoder_component
from ..engine.building import ModuleBuilder, prepare_model
from ..engine.distillation import Teaching, fitted_teacher
from ..engine.quantization import bfloat16_module, quantize_module
from ..engine.training import (
    Seeding,
    TrainingSet,
    held_out_sentences,
    sentence_numbers,
    train_module,
)
from ..exceptions import AspectAttnWarning, InputError
from ..params._constraints import validate_params
from ..params.components import component_data, component_for_prefix
from ._fitted import FITTED_ATTRIBUTES, FittedState

__all__ = [
    "AspectAttentionBase",
    "signature_constraints",
    "TrainingData",
    "FITTED_ATTRIBUTES",
    "resolve_seed",
    "resolve_device",
    "check_sample_weight",
]


def signature_constraints(names) -> dict:
    """``_parameter_constraints`` of the signature ``names``: the table's, a
    component slot taking its component as well as what stands for one."""
    slots = {slot.name: list(slot.constraints) for slot in SLOTS}
    return {name: slots.get(name) or list(P.TABLE[name].constraints) for name in names}


def resolve_seed(random_state) -> int:
    """A seed for this fit, drawn without touching any global RNG."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    return int(random_state.integers(2**31 - 1))  # np.random.Generator


def resolve_device(device: str) -> str:
    """``"auto"`` -> ``"cuda"`` when available, else ``"cpu"``; a CUDA device
    asked for where there is none is an error."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but CUDA is not available; "
            "use device='auto' or 'cpu'."
        )
    index = torch.device(device).index if device.startswith("cuda") else None
    if index is not None:
        if index >= torch.cuda.device_count():
            raise ValueError(
                f"device={device!r} was requested but this machine has "
                f"{torch.cuda.device_count()} CUDA device(s); use device='auto'."
            )
    if device == "mps" and not torch.backends.mps.is_available():
        raise ValueError(
            "device='mps' was requested but Apple's Metal (MPS) backend is not "
            "available here; use device='auto' or 'cpu'."
        )
    return device


def check_sample_weight(sample_weight, n: int, what: str) -> np.ndarray | None:
    """``sample_weight`` of ``n`` samples (``what``: "pairs", "texts") as
    scikit-learn checks it -- ``n`` finite numbers, none negative -- and not all
    0, as float32; None stays None (every sample counts once)."""
    if sample_weight is None:
        return None
    weights = _check_sample_weight(
        sample_weight, np.empty((n, 0)), dtype=np.float64, ensure_non_negative=True
    )
    if not weights.any():
        raise InputError(
            f"sample_weight gives all {n} {what} the weight 0; fit needs some "
            "samples that count."
        )
    return weights.astype(np.float32)


def split_sample_weight(weights, labelled: np.ndarray) -> tuple:
    """``(labelled rows' weights, the others')``: each None without weights."""
    if weights is None:
        return None, None
    return weights[labelled], weights[~labelled]


#: The fit's random streams, each ``np.random.default_rng([seed, STREAM])``: what
#: one part draws never moves another's draws (copies made or not, word vectors
#: drawn or read, the validation split and batch order stay those of the seed).
SPLIT_STREAM, AUGMENT_STREAM, VECTOR_STREAM = 0, 1, 2


@dataclass(frozen=True)
class TrainingData:
    """What one estimator's ``fit`` trains on, checked: one row per example (a
    pair; the detector: a sentence), the given rows first, then the copies that
    augmentation made of them (``source``: the given rows each was made from).

    ``targets`` holds class indices, (n,) or the detector's (n, K); ``labels``
    the label values (what ``"auto"`` reads); ``classes`` the fitted ``classes_``;
    ``run`` the given data as a checkpoint identifies its run by;
    ``unlabelled`` the given pairs that have no label, ``(texts, aspects,
    spans, weights)`` (trained on a teacher's probabilities only), or None;
    ``weights`` each row's weight in the loss (the given rows' ``sample_weight``,
    a copy's share of its sources'), or None: every row counts once.
    """

    texts: list
    aspects: list
    spans: list | None
    targets: np.ndarray
    labels: list
    classes: object
    aspect_type: str
    categories: np.ndarray
    n_given: int
    run: tuple
    n_features_in: int
    feature_names: np.ndarray | None = None
    source: np.ndarray | None = None
    unlabelled: tuple | None = None
    teacher: np.ndarray | None = None
    weights: np.ndarray | None = None

    def with_copies(
        self, texts, aspects, spans, targets, source, weights=None
    ) -> TrainingData:
        """These rows followed by copies (``source``: the given rows of each;
        ``weights``: theirs, None: 1 each)."""
        if self.weights is not None or weights is not None:
            weights = np.concatenate(
                [
                    np.ones(len(self.texts), np.float32)
                    if self.weights is None
                    else self.weights,
                    np.ones(len(texts), np.float32) if weights is None else weights,
                ]
            ).astype(np.float32)
        spans_ = None
        if self.spans is not None or any(s is not None for s in spans):
            spans_ = [*(self.spans or [None] * len(self.texts)), *spans]
        return replace(
            self,
            texts=[*self.texts, *texts],
            aspects=[*self.aspects, *aspects],
            spans=spans_,
            targets=np.concatenate([self.targets, targets]),
            source=np.concatenate(
                [
                    *([] if self.source is None else [self.source]),
                    np.asarray(source, dtype=np.intp),
                ]
            ),
            weights=weights,
        )

    def pairs(self, rows=None) -> list[tuple]:
        """The rows as ``(text, aspect)`` pairs, ``(text, aspect, span)`` where
        the rows have spans: what an estimator's ``fit``/``predict`` take."""
        rows = range(len(self.texts)) if rows is None else rows
        if self.spans is None:
            return [(self.texts[k], self.aspects[k]) for k in rows]
        return [(self.texts[k], self.aspects[k], self.spans[k]) for k in rows]


#: The ``augment`` entry of both estimators' docstrings (their ``%(augment)s``).
_AUGMENT_DOC = """\
augment : str or None, default="auto"
        ``"auto"``, None (no copies), ``"flip"``, ``"join"``, ``"flip+join"``,
        ``"negate"`` or ``"flip+join+negate"``: add training data made from the
        training sentences, so that the model learns to follow each aspect rather
        than the sentence's overall tone. ``"join"``:
        each sentence whose aspects are all positive (or all negative) joined with a
        random one of the opposite polarity that shares none of its aspects,
        ``"<one>, but <other>"``, every aspect keeping its label (categories:
        :func:`aspectattn.augment.join_categories`, the detector's table:
        :func:`~aspectattn.augment.join_table`, terms:
        :func:`~aspectattn.augment.join_pairs`). ``"flip"``: for
        each positive or negative term, a copy of its sentence in which the opinion
        word nearest to the term (and nearer to it than to any other term) is
        replaced by its antonym, with the term's label reversed and the other terms'
        labels kept (:func:`aspectattn.augment.flip_opinions`); for categories,
        which have no place in the sentence, each sentence whose categories all
        carry one polarity with every opinion word swapped, every label reversed
        (:func:`aspectattn.augment.flip_categories`, the detector's table:
        :func:`~aspectattn.augment.flip_table`). ``"negate"`` (English): the
        same copies with the opinion word negated instead, the forms of
        :data:`~aspectattn.augment.COPY_NEGATIONS` in turn ("not great", "never
        great", "far from great"; each where it fits the place; a word already
        negated is left alone), the label reversed as SemEval's annotators label
        negated opinions
        ("not great" negative, "not awful" positive; measured in
        :func:`aspectattn.augment.flip_pairs`); ``"flip+join+negate"`` makes all three.
        A copy trains only when all its source sentences are on the training side of the
        validation split, and copies are never scored in validation (the validation
        scores of settings with and without copies are taken on the same sentences).
        Needs the labels ``"positive"`` and ``"negative"``. ``"auto"``, with those
        labels: for aspect terms in English ``"flip+join+negate"`` with the
        LSTM and a pretrained encoder (:data:`~aspectattn.params.TERM_COPIES`),
        none with the transformer (not measured) or in other languages (the
        copies reverse English opinion words); for aspect categories
        ``"join"``, with the LSTM in English ``"flip+join"`` (the pair
        classifier) and ``"flip+join+negate"`` (the detector). Each chosen on
        validation by accuracy, then robustness (the behaviour guide); without
        those labels, none. See ``resolved_params_``.
    copy_weight : float or "auto", default="auto"
        The weight in the loss of each copy ``augment`` makes, as a share of
        the mean weight of the samples it was made from (their
        ``sample_weight``, 1 without). ``"auto"``: 2 for the LSTM detector's
        copies in English (chosen on validation by micro-F1 and robustness,
        then negation probes), else 1 (the LSTM's term copies and its pair
        classifier's copies of categories keep 1 by the same rule). See
        ``resolved_params_``."""


class AspectAttentionBase(FittedState, BaseEstimator):
    """Shared machinery of the attention estimators (not an estimator itself).

    A subclass writes out its ``__init__`` (the table's parameters but for the
    groups it lacks), sets ``_parameter_constraints`` from :mod:`aspectattn.params`,
    and may fix settings of the shared machinery that are not its parameters in
    ``_fixed_params``.
    """

    #: Settings that are not parameters of the estimator, fixed for the machinery.
    _fixed_params: dict = {}
    #: Slot -> the parameters of its component that the estimator does not read
    #: (they must keep their defaults).
    _unread: dict = {}
    _parameter_constraints: dict = {}
    #: Whether the estimator detects categories in a table (its ``"auto"``
    #: copies are the detector's, :func:`aspectattn.params.resolve_auto`).
    _detector: bool = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = cls.__doc__.replace("%(augment)s", _AUGMENT_DOC)

    def __sklearn_tags__(self):
        tags = text_tags(super().__sklearn_tags__())
        tags.non_deterministic = self.random_state is None
        return tags

    # ------------------------------------------------------------ parameter checks
    def _components_by_slot(self) -> dict:
        """Slot -> the component its value stands for (None: it holds none)."""
        return {slot.name: slot.component(getattr(self, slot.name)) for slot in SLOTS}

    def _encoder(self):
        """The encoder component (a name gives its defaults)."""
        return encoder_component(self.encoder)

    def _attention(self):
        """The attention component (a score's name gives its defaults)."""
        return attention_component(self.attention)

    def _values(self) -> dict:
        """Every setting: the parameters (each slot holding the component it
        stands for, or None) and the estimator's fixed settings."""
        own = {k: plain(v) for k, v in self.get_params(deep=False).items()}
        return {**self._fixed_params, **own, **self._components_by_slot()}

    def _param_data(self) -> dict:
        """The parameters as data (a model file's JSON, a run's fingerprint):
        each component with its own parameters."""
        return {
            name: component_data(value)
            for name, value in self.get_params(deep=False).items()
        }

    def set_params(self, **params):
        """Set the parameters (scikit-learn's ``set_params``). A component's
        parameter (``encoder__hidden_size``, ``attention__heads``) on a component
        given by what stands for it (a name, ``True``) makes it the component
        first."""
        for slot in SLOTS:
            value = params.get(slot.name, getattr(self, slot.name))
            made = component_for_prefix(slot.name, value, params, slot.component)
            if made is not value:
                params[slot.name] = made
        return super().set_params(**params)

    def _check_params(self) -> dict:
        """Validate every parameter and every combination of them (before any data
        work), warn about the ones the other settings leave unused; the settings."""
        validate_params(self, self._parameter_constraints)
        values = self._values()
        self._check_components(values)
        self._check_combinations(values)
        # (the estimator's settings, not the fixed ones: its parameters, with
        # its components' as slot__name)
        own = self.get_params(deep=False)
        unused = P.unused(values, values.get("aspect_type"))
        P.warn_unused(
            values,
            [(n, s) for n, s in unused if n.partition("__")[0] in own],
            stacklevel=5,
        )
        return values

    def _check_components(self, values: dict) -> None:
        """Check the component each slot of ``values`` holds (None: none) by its
        own constraints and the parameters the estimator reads."""
        for slot in SLOTS:
            component = values[slot.name]
            if component is not None:
                component.check(type(self).__name__, self._reads(component))

    def _reads(self, component):
        """The parameters of ``component`` the estimator reads (None: all)."""
        unread = self._unread.get(component.slot)
        if not unread:
            return None
        return set(component.get_params()) - set(unread)

    def _check_combinations(self, values: dict) -> None:
        name = type(self).__name__
        encoder = values["encoder"]
        if encoder.kind == "pretrained" and values["variant"] != "at":
            raise ValueError(
                "encoder='pretrained' supports variant='at' only (the aspect "
                "reaches the encoder through PretrainedEncoder(input='pair') "
                "instead of "
                f"being appended to word vectors); got "
                f"variant={values['variant']!r}."
            )
        if values["early_stopping"] and values["validation_fraction"] is None:
            raise ValueError(
                f"early_stopping=True needs a validation split: set validation_fraction"
                f" (e.g. 0.1) on {name}."
            )
        if values.get("aspect_type") in ("category", "term"):
            aspect_type = values["aspect_type"]
            self._check_aspect_settings(
                {
                    **values,
                    **P.resolve_auto(values, aspect_type, detector=self._detector),
                },
                aspect_type,
            )

    def _resolve(
        self, values: dict, aspect_type: str, labels, texts=None, device=None
    ) -> dict:
        """``values`` with every ``"auto"`` resolved for this fit's aspect type,
        labels, texts and device (:func:`aspectattn.params.resolve_auto`), checked
        against each other."""
        resolved = P.resolve_auto(
            values, aspect_type, labels, texts, device, detector=self._detector
        )
        values = {**values, **resolved}
        self._check_aspect_settings(values, aspect_type)
        return values

    def _resolved_record(self, values: dict) -> dict:
        """``resolved_params_``: the value of each of the estimator's parameters
        that can be ``"auto"``, and of its components' (``encoder__hidden_size``),
        as this fit used it."""
        return P.resolved_record(values, self.get_params(deep=False))

    def _check_aspect_settings(self, values: dict, aspect_type: str) -> None:
        """The checks that depend on the aspect type (resolved from the data when
        ``aspect_type="auto"``, before the vocabulary is built)."""
        if values["attention"].final_state == "term" and aspect_type != "term":
            raise ValueError(
                f"final_state='term' needs aspect terms (the term's encoder states); "
                f"{type(self).__name__} was given aspect categories. Use "
                "final_state=True or False."
            )
        config = P.ModelConfig.from_params(values)
        if values["batch_by"] == "sentence" and config.encoder_sees_aspect(aspect_type):
            raise ValueError(
                "batch_by='sentence' needs an encoder that does not see the "
                "aspect (variant='at', and PretrainedEncoder(input='vector') for "
                f"a pretrained encoder); got variant={values['variant']!r}."
            )

    def _configs(self, values: dict, teaching: Teaching | None = None):
        """The model and training configs of this fit (what goes down; the
        estimator keeps the parameters that go to it; a setting that is no table
        parameter is an error); with ``teaching``, the teacher's share of the
        loss and its temperature."""
        training = P.TrainingConfig.from_params(values, self._param_data())
        if teaching is not None:
            training = replace(
                training,
                distill_weight=teaching.weight,
                distill_temperature=teaching.temperature,
            )
        return P.ModelConfig.from_params(values), training

    # ---------------------------------------------------------------- the fit
    #: The torch module trained (called with the module configuration).
    _module_class: type = None

    def _fit(self, X, y, teaching: Teaching | None = None, sample_weight=None):
        """The one ``fit`` of both estimators; each supplies what differs: its
        training data (:meth:`_training_data`), its copies (:meth:`_copies`), its
        model input (:meth:`_training_dataset`) and its loss (:meth:`_loss`).
        ``teaching``: a teacher's, from :class:`~aspectattn.DistilledClassifier`
        (samples marked unlabelled are read as such only with one);
        ``sample_weight``: each sample's weight in the loss."""
        values = self._check_params()
        data = self._training_data(X, y, teaching, sample_weight)
        # (a checkpoint resumes only the run of the same data and weights)
        weights = None if sample_weight is None else np.asarray(sample_weight, float)
        run = (*data.run, weights)
        seed, device = resolve_seed(self.random_state), resolve_device(self.device)
        # every "auto" resolved for these aspects, labels, texts and device
        values = self._resolve(
            values, data.aspect_type, data.labels, data.texts, device
        )
        if values["augment"] is not None:
            data = self._augmented(data, values["augment"], values["copy_weight"], seed)
            if data.source is None:  # none could be made: say what the fit did
                values = {**values, "augment": None}
        # a teacher to fit is fitted on the sentences validation holds out
        split_rng, held_out = self._validation_split(data, values, seed)
        if teaching is not None:
            data = self._distilled(data, teaching, held_out)
        model_config, training_config = self._configs(values, teaching)
        pipeline, module_config, init, coverage = prepare_model(
            model_config, data, seed, np.random.default_rng([seed, VECTOR_STREAM])
        )
        training_set = TrainingSet(
            self._training_dataset(pipeline, module_config, data),
            texts=data.texts[: data.n_given],
            run=run,
            targets=data.targets,
            classes=np.asarray(data.labels),
            source=data.source,
            held_out=held_out,
        )
        trained = train_module(
            training_config,
            ModuleBuilder(self._module_class, module_config),
            init,
            training_set,
            Seeding(seed, split_rng, device),
            multi_output=self._loss(data, training_config),
        )
        # The fitted state; the skorch net (optimizer state, callbacks) is dropped
        # so the fitted model stays small and pickle-safe.
        self._set_fitted(
            classes_=data.classes,
            aspect_type_=data.aspect_type,
            resolved_params_=self._resolved_record(values),
            aspects_=data.categories,
            text_pipeline_=pipeline,
            embedding_coverage_=coverage,
            module_config_=module_config,
            module_=getattr(trained.module, "model", trained.module),
            device_=device,
            history_=trained.history,
            best_epoch_=trained.best_epoch,
            interrupted_=trained.interrupted,
            fit_time_=trained.fit_time,
            n_features_in_=data.n_features_in,
            feature_names_in_=data.feature_names,
        )
        return self

    @staticmethod
    def _validation_split(data: TrainingData, values: dict, seed: int):
        """``(split_rng, held_out)``: the validation sentences, drawn once,
        first from the split's stream, which goes on to draw the batches."""
        split_rng = np.random.default_rng([seed, SPLIT_STREAM])
        held_out = held_out_sentences(
            int(sentence_numbers(data.texts[: data.n_given]).max()) + 1,
            values["validation_fraction"],
            split_rng,
        )
        return split_rng, held_out

    def _augmented(
        self, data: TrainingData, augment: str, copy_weight: float, seed: int
    ):
        """``data`` with the copies ``augment`` makes (drawn from their own stream),
        less those equal to a given sentence, each weighing ``copy_weight`` times
        the mean weight of its sources; ``data`` itself when none is made."""
        missing = P.missing_join_labels(data.labels)
        if missing:
            raise InputError(
                f"augment={augment!r} in {type(self).__name__} makes examples "
                f"labelled 'positive' and 'negative'; y has no {missing} among its "
                f"labels {list(data.labels)!r}."
            )
        texts, aspects, spans, targets, source = self._copies(
            data, augment, np.random.default_rng([seed, AUGMENT_STREAM])
        )
        # A copy equal to a given sentence (perhaps on the other side of the
        # validation split, with another label) is dropped.
        given = set(data.texts)
        keep = [k for k, text in enumerate(texts) if text not in given]
        if not keep:
            if self.augment != "auto":
                warnings.warn(
                    f"augment={augment!r} in {type(self).__name__} made no new "
                    "example (no opinion word to flip or negate, no sentences of "
                    "opposite polarity to join); training on the given ones only.",
                    AspectAttnWarning,
                    stacklevel=4,
                )
            return data
        source = np.asarray(source)[keep]  # (n_new,) or (n_new, k)
        weights = None
        if data.weights is not None or copy_weight != 1:
            given = np.ones(data.n_given) if data.weights is None else data.weights
            weights = copy_weight * given[source].reshape(len(source), -1).mean(1)
        return data.with_copies(
            [texts[k] for k in keep],
            [aspects[k] for k in keep] if aspects else [],
            [spans[k] for k in keep],
            np.asarray(targets)[keep],
            source,
            None if weights is None else weights.astype(np.float32),
        )

    def _distilled(self, data: TrainingData, teaching: Teaching, held_out):
        """``data`` with the teacher's probabilities of every row and the
        unlabelled pairs (less those of the validation sentences ``held_out``) as
        rows labelled ``-1``; a teacher to fit is fitted on the other sentences."""
        name = type(self).__name__
        n = data.n_given
        groups = sentence_numbers(data.texts[:n])
        is_valid = np.isin(groups, held_out)
        teacher = fitted_teacher(
            teaching.teacher,
            *self._teacher_fit_data(data, np.flatnonzero(~is_valid)),
            name,
        )
        if data.unlabelled is not None:
            valid_texts = {data.texts[k] for k in np.flatnonzero(is_valid)}
            texts, aspects, spans, weights = data.unlabelled
            keep = [k for k, text in enumerate(texts) if text not in valid_texts]
            width = () if data.source is None else data.source.shape[1:]
            data = data.with_copies(
                [texts[k] for k in keep],
                [aspects[k] for k in keep] if aspects else [],
                [spans[k] for k in keep],
                np.full((len(keep), *data.targets.shape[1:]), -1, dtype=np.intp),
                np.full((len(keep), *width), -1, dtype=np.intp),
                None if weights is None else weights[keep],
            )
        soft = self._teacher_targets(teacher, data, teaching.temperature)
        return replace(data, teacher=soft)

    def _teacher_fit_data(self, data: TrainingData, rows) -> tuple:
        """``(X, y)`` that fits the teacher on the given ``rows``."""
        raise NotImplementedError

    def _teacher_targets(self, teacher, data: TrainingData, temperature: float):
        """The teacher's softened probabilities of every row of ``data``."""
        raise NotImplementedError

    def _training_data(self, X, y, teaching, sample_weight) -> TrainingData:
        """``X``, ``y`` and ``sample_weight`` checked; unlabelled samples only
        with ``teaching``."""
        raise NotImplementedError

    def _copies(self, data: TrainingData, augment: str, rng):
        """``(texts, aspects, spans, targets, source)`` of the copies."""
        raise NotImplementedError

    def _training_dataset(self, pipeline, module_config, data: TrainingData):
        raise NotImplementedError

    def _loss(self, data: TrainingData, config) -> dict | None:
        """The loss settings of a multi-output module, or None (cross-entropy over
        one class per row, with ``class_weight``)."""
        return None

    # ------------------------------------------------------------------ inference
    def _inference_module(self) -> tuple[torch.nn.Module, str]:
        """``(module, device)`` that predictions run on: ``module_`` on ``device_``,
        with ``quantize="int8"`` its int8 copy on the CPU, with
        ``quantize="bfloat16"`` its copy with a bfloat16 encoder on ``device_``
        (copies made on first use and kept until the model is refitted or
        ``quantize`` changes)."""
        check_is_fitted(self, "module_")
        if self.quantize is None:
            return self.module_, self.device_
        validate_params(self, {"quantize": self._parameter_constraints["quantize"]})
        source, kind, quantized = self.__dict__.get("_quantized", (None, None, None))
        if source is not self.module_ or kind != self.quantize:
            if self.quantize == "int8":
                quantized = quantize_module(self.module_)
            else:
                quantized = bfloat16_module(self.module_, self.device_)
            self._quantized = (self.module_, self.quantize, quantized)
        return quantized, "cpu" if self.quantize == "int8" else self.device_
