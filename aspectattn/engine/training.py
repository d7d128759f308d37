"""Training through skorch: the net, its optimizer groups, validation and resuming.

The estimators call :func:`train_module`, which runs, in order::

    train, valid = split_sentences(dataset, groups, fraction, rng)
    task = classifier_task(TrainingConfig(...), y_index, classes)
    net = build_net(module, TrainingConfig(...), task, valid, rng, device)
    history, kept_epoch, interrupted = fit_net(net, train, checkpoint_path, ...)

skorch is the engine, not the public face: the estimator exposes its parameters and
components and builds the net here, inside ``fit``; the net is dropped afterwards.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace
from numbers import Real
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from skorch import NeuralNet, NeuralNetClassifier
from skorch.utils import to_tensor

from ..exceptions import AspectAttnWarning, InputError
from ..nn.ops import cross_entropy, distillation_loss, in_bfloat16
from ..params import TrainingConfig
from ..params._constraints import Interval
from .batching import BucketLoader, PairDataset
from .callbacks import (
    BestWeights,
    EpochCheckpoint,
    FiniteLoss,
    StopWhenStalled,
    WarmupLinearDecay,
    load_checkpoint,
    log_line,
)

__all__ = [
    "train_module",
    "TrainingSet",
    "Seeding",
    "MultiOutputNet",
    "ClassifierNet",
    "MixedPrecision",
    "optimizer_groups",
    "OPTIMIZERS",
    "TrainingConfig",
    "split_sentences",
    "held_out_sentences",
    "sentence_numbers",
    "class_weight_tensor",
    "build_net",
    "Task",
    "classifier_task",
    "fit_net",
    "fingerprint",
]

OPTIMIZERS = {
    "adam": ("Adam", {}),
    "adamw": ("AdamW", {}),
    "adagrad": ("Adagrad", {}),
    "sgd": ("SGD", {"momentum": 0.9}),
}
# Validation batches (pairs); see aspectattn.engine.inference.INFERENCE_BATCH.
_VALID_BATCH = 128


@contextmanager
def private_torch_rng(seed: int, device: str):
    """Seed torch inside a fork of its global RNG, restored on exit."""
    devices = [torch.device(device).index or 0] if device.startswith("cuda") else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield


def held_out_sentences(n_sentences: int, fraction: float | None, rng) -> np.ndarray:
    """The sentences (numbers ``0..n_sentences-1``) that a validation share
    ``fraction`` holds out, drawn from ``rng``; none when ``fraction`` is None."""
    if fraction is None:
        return np.array([], dtype=np.intp)
    n_valid = int(round(fraction * n_sentences))
    if n_valid < 1 or n_valid >= n_sentences:
        raise InputError(
            f"validation_fraction={fraction} of {n_sentences} distinct sentences "
            "leaves an empty training or validation set; use more data or another "
            "fraction."
        )
    return rng.permutation(n_sentences)[:n_valid]


def sentence_numbers(texts) -> np.ndarray:
    """Each text's sentence number: the same text is one sentence (numbered in
    sorted order)."""
    return np.unique(np.asarray(texts, dtype=object), return_inverse=True)[1]


def split_sentences(
    dataset: PairDataset,
    groups: np.ndarray,
    fraction: float | None,
    rng,
    synthetic: np.ndarray | None = None,
    held_out: np.ndarray | None = None,
) -> tuple[PairDataset, PairDataset | None]:
    """Hold out a share ``fraction`` of the sentences (``groups``: the sentence of
    each pair) with all their pairs (``held_out``: the sentences, when drawn
    before, by :func:`held_out_sentences`).

    ``synthetic`` (bool per pair) marks pairs made by augmentation: they carry the
    groups of their source sentences (``groups`` of shape (n_pairs, k): a pair
    goes with every sentence of its row; ``-1``: with none, always on the
    training side), train only when all of them are on the training side, and
    are left out of the validation set. The validation set holds neither a
    teacher's probabilities nor weights: it is scored on the labels, each pair
    once.
    """
    if fraction is None:
        return dataset, None
    if held_out is None:
        held_out = held_out_sentences(int(groups.max()) + 1, fraction, rng)
    is_valid = np.isin(groups, held_out)
    is_valid = is_valid.any(axis=1) if is_valid.ndim == 2 else is_valid
    scored = is_valid if synthetic is None else is_valid & ~synthetic
    return (
        dataset.subset(np.flatnonzero(~is_valid)),
        dataset.subset(np.flatnonzero(scored), labels_only=True),
    )


def class_weight_tensor(class_weight, y_index, classes) -> torch.Tensor | None:
    """Loss weights per class index, as sklearn's ``class_weight``."""
    if class_weight is None:
        return None
    from sklearn.utils.class_weight import compute_class_weight

    if isinstance(class_weight, dict):
        unknown = set(class_weight) - set(classes.tolist())
        if unknown:
            raise ValueError(
                f"class_weight has labels that are not in y: "
                f"{sorted(map(str, unknown))}; y has {classes.tolist()}."
            )
        bad = {
            c: w
            for c, w in class_weight.items()
            if not _CLASS_WEIGHT.is_satisfied_by(w)
        }
        if bad:
            raise ValueError(
                f"class_weight must map labels to finite numbers >= 0; got {bad}."
            )
        weight = {
            i: float(class_weight.get(c, 1.0)) for i, c in enumerate(classes.tolist())
        }
        if not any(weight.values()):
            raise ValueError("class_weight gives every class the weight 0.")
    else:
        weight = "balanced"
    weights = compute_class_weight(weight, classes=np.arange(len(classes)), y=y_index)
    return torch.tensor(weights, dtype=torch.float32)


def _labelled(y_index: np.ndarray) -> np.ndarray:
    """The class indices of the pairs that have a label (``-1``: none)."""
    y_index = np.asarray(y_index)
    return y_index[y_index >= 0]


#: A class weight: a real, finite number >= 0 (not a bool).
_CLASS_WEIGHT = Interval(Real, 0, None, closed="left")


def embedding_parameter_name(module: torch.nn.Module) -> str:
    """The name of the token-embedding table among the module's parameters,
    whatever the encoder calls it."""
    table = module.embedding.weight
    return next(n for n, p in module.named_parameters() if p is table)


def head_parameter_names(module: torch.nn.Module) -> list[str]:
    """The names of the module's parameters outside its encoder (aspect vectors,
    attention, classifier): the ones ``head_lr`` applies to."""
    inside = {id(p) for p in module.encoder.parameters()}
    return [n for n, p in module.named_parameters() if id(p) not in inside]


def encoder_depths(module: torch.nn.Module) -> dict[str, int]:
    """Each encoder parameter's depth below the encoder's top layer (0: the top
    layer and anything above it; the embeddings deepest), for ``layer_lr_decay``.
    Encoders without layers to decay (no ``parameter_depths``) give ``{}``."""
    depths = getattr(module.encoder, "parameter_depths", None)
    if depths is None:
        return {}
    prefix = next(n for n, m in module.named_modules() if m is module.encoder)
    return {f"{prefix}.{name}": depth for name, depth in depths().items()}


def optimizer_groups(module: torch.nn.Module, config: TrainingConfig) -> list:
    """skorch's ``optimizer__param_groups``: ``(parameter name, settings)`` pairs,
    the first match of a name winning.

    The word or sub-word embedding table: no weight decay, ``embedding_lr`` when
    given (else the rate of its depth). With ``layer_lr_decay`` < 1, each encoder
    parameter at depth ``k`` below the top layer trains at
    ``lr * layer_lr_decay ** k``. The parameters outside the encoder: ``head_lr``
    when given.
    """
    head_lr = config.optimizer.head_lr
    if "auto" in (head_lr, config.lr):
        raise ValueError("the rates must be resolved (params.resolve_auto)")
    # (a pretrained encoder's layer-wise decay; the word encoders have none)
    decay = getattr(config.encoder, "layer_lr_decay", 1.0)
    depths = encoder_depths(module) if decay < 1 else {}
    table = embedding_parameter_name(module)
    embedding_group = {"weight_decay": 0.0}
    if config.encoder.embedding_lr is not None:
        embedding_group["lr"] = config.encoder.embedding_lr
    elif depths.get(table):
        embedding_group["lr"] = config.lr * decay ** depths[table]
    groups = [(table, embedding_group)]
    groups += [
        (name, {"lr": config.lr * decay**depth})
        for name, depth in depths.items()
        if depth and name != table
    ]
    if head_lr is not None:
        groups += [(n, {"lr": head_lr}) for n in head_parameter_names(module)]
    return groups


@dataclass(frozen=True)
class TrainingSet:
    """What :func:`train_module` trains on.

    ``dataset``: the model input, one row per pair -- the given pairs, then the
    copies made of them; ``texts``: the given pairs' texts (their sentences keep
    the validation split apart); ``run``: what a checkpoint identifies the run
    by; ``targets``: class indices (None: the dataset's own); ``classes``: the
    label values; ``source``: the given pairs each copy was made from ((n_new,)
    or (n_new, k); -1: none), or None; ``held_out``: the validation sentences
    (:func:`held_out_sentences` of ``texts``' sentences), or None to draw them
    here.
    """

    dataset: object
    texts: list
    run: tuple
    targets: np.ndarray | None = None
    classes: np.ndarray | None = None
    source: np.ndarray | None = None
    held_out: np.ndarray | None = None


@dataclass(frozen=True)
class Seeding:
    """Where and under which randomness a module trains: the fit's ``seed`` (the
    module's weights), ``rng`` (its generator: the split and the batch order)
    and ``device``."""

    seed: int
    rng: np.random.Generator
    device: str


class Trained(NamedTuple):
    """What :func:`train_module` gives: the module and the record of its training."""

    module: torch.nn.Module
    history: list
    best_epoch: int
    interrupted: bool
    fit_time: float


class MixedPrecision:
    """A skorch net mixin: with ``precision="bfloat16"`` the module runs under
    ``torch.autocast`` in training and validation (``infer``, the step skorch
    documents for changing how the module is called); its outputs come back in
    float32, so the loss, the gradients' scale and the optimizer stay float32."""

    def __init__(self, *args, precision: str = "float32", **kwargs):
        super().__init__(*args, **kwargs)
        self.precision = precision

    def infer(self, x, **fit_params):
        if self.precision != "bfloat16":
            return super().infer(x, **fit_params)
        device_type = torch.device(self.device).type
        return in_bfloat16(super().infer, device_type, x, **fit_params)


class PairLoss(torch.nn.Module):
    """The pair classifier's criterion: cross-entropy with the class weights,
    each pair counted by its weight and, with a teacher, mixed with the KL
    divergence from the teacher's softened probabilities (Hinton et al., 2015).

    ``forward(logits, target)``: ``target`` the class indices (B,) -- the
    cross-entropy alone, as the validation set's are scored -- or a dict with
    ``label`` (B,) (``-1`` for a pair with no label, with a teacher), and
    ``teacher`` (B, C), the teacher's probabilities softened at
    ``temperature``, and/or ``weight`` (B,), each pair's weight. With a
    teacher, a labelled pair's loss is ``(1 - w) * CE + w * T**2 * KL``, an
    unlabelled pair's ``T**2 * KL`` (``w``: ``distill_weight``); the batch's
    loss is their mean, weighted by the pairs' weights where given
    (:func:`~aspectattn.nn.ops.distillation_loss`,
    :func:`~aspectattn.nn.ops.cross_entropy`).

    Parameters
    ----------
    weight : tensor of shape (C,) or None
        Class weights of the cross-entropy (``class_weight``).
    distill_weight : float
    temperature : float

    Examples
    --------
    >>> import torch
    >>> from aspectattn.engine.training import PairLoss
    >>> loss = PairLoss(distill_weight=0.5, temperature=2.0)
    >>> logits = torch.tensor([[2.0, 0.0], [0.0, 1.0]])
    >>> target = {"label": torch.tensor([0, -1]),  # the second has no label
    ...           "teacher": torch.tensor([[0.7, 0.3], [0.4, 0.6]])}
    >>> round(loss(logits, target).item(), 4)
    0.0363
    >>> weighted = {"label": torch.tensor([0, 1]), "weight": torch.tensor([1.0, 0.0])}
    >>> round(loss(logits, weighted).item(), 4)  # the second pair counts 0 times
    0.1269
    """

    def __init__(self, weight=None, distill_weight: float = 0.5, temperature=2.0):
        super().__init__()
        self.weight = weight
        self.distill_weight = distill_weight
        self.temperature = temperature

    def forward(self, logits: torch.Tensor, target) -> torch.Tensor:
        weight = None if self.weight is None else self.weight.to(logits.device)
        if not isinstance(target, dict):
            return cross_entropy(logits, target, weight)
        label, rows = target["label"], target.get("weight")  # (B,), (B,) or None
        if "teacher" not in target:
            return cross_entropy(logits, label, weight, rows)
        return distillation_loss(
            logits,
            label,
            target["teacher"],
            weight,
            self.distill_weight,
            self.temperature,
            rows,
        )


class ClassifierNet(MixedPrecision, NeuralNetClassifier):
    """The pair classifier's net: skorch's classifier, with :class:`MixedPrecision`."""


class MultiOutputNet(MixedPrecision, NeuralNet):
    """A net whose module returns ``(logits, attention)`` (the detector's
    :class:`~aspectattn.nn.categories.CategoryModel`): the loss (``criterion_``, a
    :class:`~aspectattn.nn.categories.MultiOutputLoss`) reads both, through
    skorch's ``get_loss``, the extension point skorch documents for modules with
    several outputs."""

    def get_loss(self, y_pred, y_true, X=None, training=False):
        y_true = to_tensor(y_true, device=self.device)
        return self.criterion_(y_pred, y_true)


@dataclass(frozen=True)
class Task:
    """What a net learns, for :func:`build_net`: its skorch class (``net``), the
    settings of that class (``settings``: its criterion and what its
    ``get_loss`` reads), the validation scores recorded after each epoch
    (``scoring``: ``(name, callback)`` pairs) and the one that chooses the epoch
    (``monitor``: ``(history key, lower is better)``), and the validation
    batches' size."""

    net: type
    settings: dict
    scoring: tuple = ()
    monitor: tuple = ("valid_loss", True)
    valid_batch_size: int = _VALID_BATCH


def build_net(
    module,
    config: TrainingConfig,
    task: Task,
    valid_ds,
    rng,
    device,
    checkpoint=None,
):
    """The skorch net that trains ``module`` for ``task``, and its
    :class:`BestWeights` tracker -- every estimator's (the classifiers', the
    detector's, the span taggers').

    The optimizer groups are :func:`optimizer_groups`; ``lr_schedule="linear"``
    adds :class:`WarmupLinearDecay`, ``precision="bfloat16"`` runs the module
    under autocast (:class:`MixedPrecision`), ``early_stopping`` stops on
    ``task.monitor``. ``valid_ds``: the validation set (None: the training loss
    is monitored). ``checkpoint``: ``(path, fingerprint)`` of a checkpoint to
    write after every epoch (see :func:`checkpoint_path`).
    """
    from skorch.helper import predefined_split

    callbacks, tracker = _callbacks(config, task, valid_ds, rng, checkpoint)
    optimizer_name, optimizer_defaults = OPTIMIZERS[config.optimizer.name]
    optimizer_kwargs = {f"optimizer__{k}": v for k, v in optimizer_defaults.items()}
    if config.precision not in ("float32", "bfloat16"):
        raise ValueError(f"precision={config.precision!r} must be resolved")
    net = task.net(
        module,
        **task.settings,
        optimizer=getattr(torch.optim, optimizer_name),
        lr=config.lr,
        optimizer__weight_decay=config.optimizer.weight_decay,
        # One fused kernel for the whole update instead of ~10 tensor ops per
        # parameter: 0.18 -> 0.04 s of a 1.4 s epoch (ATAE, CPU).
        optimizer__fused=True,
        optimizer__param_groups=optimizer_groups(module, config),
        **optimizer_kwargs,
        batch_size=config.batch_size,
        max_epochs=config.max_epochs,
        train_split=None if valid_ds is None else predefined_split(valid_ds),
        iterator_train=BucketLoader,
        iterator_train__shuffle=True,
        iterator_train__generator=rng,
        iterator_train__keep_sentences=config.keep_sentences,
        iterator_valid=BucketLoader,
        iterator_valid__batch_size=task.valid_batch_size,
        callbacks=callbacks,
        # (skorch calls a custom sink whatever the verbosity: only set it when asked)
        **({"callbacks__print_log__sink": log_line} if config.verbose else {}),
        device=device,
        verbose=config.verbose,
        precision=config.precision,
    )
    return net, tracker


def _callbacks(config, task: Task, valid_ds, rng, checkpoint) -> tuple:
    """``(callbacks, tracker)`` of :func:`build_net`: the validation scores, the
    best-epoch tracker, then the checkpoint, early stopping, clipping and the
    schedule (in that order: note the best epoch, then checkpoint, then maybe
    stop)."""
    from skorch.callbacks import GradientNormClipping

    stopping, optimizer = config.early_stopping, config.optimizer
    scoring, (monitor, lower) = task.scoring, task.monitor
    if valid_ds is None:
        scoring, (monitor, lower) = (), ("train_loss", True)
    tracker = BestWeights(
        monitor, lower_is_better=lower, load_best=stopping is not None
    )
    callbacks = [("finite_loss", FiniteLoss()), *scoring, ("best_weights", tracker)]
    if checkpoint is not None:
        callbacks.append(("checkpoint", EpochCheckpoint(*checkpoint, tracker, rng)))
    if stopping is not None:
        callbacks.append(
            ("early_stopping", StopWhenStalled(tracker, stopping.patience))
        )
    if optimizer.gradient_clip is not None:
        callbacks.append(("clip", GradientNormClipping(optimizer.gradient_clip)))
    if optimizer.lr_schedule == "linear":
        callbacks.append(("lr_schedule", WarmupLinearDecay()))
    elif optimizer.lr_schedule != "constant":
        raise ValueError(f"lr_schedule={optimizer.lr_schedule!r} must be resolved")
    return callbacks, tracker


def classifier_task(config, y_index, classes, multi_output=None, distill=False):
    """The :class:`Task` of the pair classifier -- cross-entropy with
    ``class_weight``, the validation macro-F1 recorded, the epoch chosen on the
    ``early_stopping`` component's ``scoring`` (the validation loss without
    one) -- or, given ``multi_output`` (the keyword arguments of
    :class:`~aspectattn.nn.categories.MultiOutputLoss`), of the detector, whose
    module gives ``(logits (B, K, C), attention)``: its validation loss is its
    only score. ``distill``: the training targets hold a teacher's
    probabilities (both criteria mix them in the same way, with
    ``distill_weight`` and ``distill_temperature``)."""
    from skorch.callbacks import EpochScoring

    valid_batch_size = max(config.batch_size, _VALID_BATCH)
    if multi_output is None:
        settings = {
            "criterion": PairLoss,
            "criterion__weight": class_weight_tensor(
                config.class_weight, _labelled(y_index), classes
            ),
            "classes": list(range(len(classes))),
        }
        f1 = EpochScoring("f1_macro", lower_is_better=False, name="valid_f1")
        stopping = config.early_stopping
        monitor = {
            "loss": ("valid_loss", True),
            "accuracy": ("valid_acc", False),
            "f1_macro": ("valid_f1", False),
        }["loss" if stopping is None else stopping.scoring]
        task = Task(ClassifierNet, settings, (("valid_f1", f1),), monitor)
    else:
        from ..nn.categories import MultiOutputLoss

        settings = {"criterion": MultiOutputLoss}
        settings.update({f"criterion__{k}": v for k, v in multi_output.items()})
        task = Task(MultiOutputNet, settings)
    if distill:  # (both criteria mix the teacher's probabilities the same way)
        settings["criterion__distill_weight"] = config.distill_weight
        settings["criterion__temperature"] = config.distill_temperature
    return replace(task, valid_batch_size=valid_batch_size)


def fingerprint(params: dict, seed: int, texts, aspects, labels, weights=None) -> str:
    """Identifies a training run: the hyperparameters that change the result, the
    seed actually used, and the data (``weights``: the samples', or None). A
    checkpoint is resumed only by its run."""
    params = {
        k: v
        for k, v in params.items()
        if k not in ("verbose", "checkpoint_dir", "device", "random_state")
    }
    digest = hashlib.sha256(
        json.dumps(
            {"params": params, "seed": seed}, sort_keys=True, default=repr
        ).encode()
    )
    for text, aspect, label in zip(texts, aspects, labels, strict=True):
        digest.update(f"{text}\x00{aspect}\x00{label!r}\x01".encode())
    if weights is not None:
        digest.update(np.ascontiguousarray(weights, dtype=np.float64).tobytes())
    return digest.hexdigest()


def checkpoint_path(checkpoint_dir, run: str) -> Path:
    """Where the run with fingerprint ``run`` keeps its checkpoint."""
    return Path(checkpoint_dir) / f"aspectattn-{run[:20]}.ckpt"


def fit_net(net, train_ds, tracker: BestWeights, rng, checkpoint=None):
    """``net.fit``, or resume from the run's checkpoint when there is one.

    Parameters
    ----------
    checkpoint : (path, fingerprint) or None

    Returns
    -------
    history : list of dict -- complete epochs only
    kept_epoch : int -- the epoch whose weights the module holds
    interrupted : bool
    """
    state = None if checkpoint is None else load_checkpoint(*checkpoint)
    if state is None:
        net.fit(train_ds, y=None)
    else:
        from skorch.history import History

        net.initialize()
        net.module_.load_state_dict(state["module"])
        net.optimizer_.load_state_dict(state["optimizer"])
        net.history = History(json.loads(state["history"]))
        tracker.restore(state["best_weights"] or None)
        torch.set_rng_state(state["torch_rng"])
        rng.bit_generator.state = json.loads(state["numpy_rng"])
        done = len(net.history)
        if net.verbose:
            log_line(f"Resuming from checkpoint after epoch {done}.")
        if done < net.max_epochs:
            net.partial_fit(train_ds, y=None, epochs=net.max_epochs - done)
        else:  # finished before: the tracker's end-of-training policy, once more
            tracker.on_train_begin(net)
            tracker.on_train_end(net)
    history = [
        {k: v for k, v in row.items() if k != "batches"}
        for row in net.history
        if "dur" in row  # an interrupted epoch has no complete record
    ]
    return history, tracker.kept_epoch_, tracker.interrupted_


def _training_split(data: TrainingSet, fraction, rng) -> tuple:
    """``(train, valid)`` of :func:`split_sentences` for ``data``: each given
    pair goes with its sentence, each copy with the sentences of its sources
    (trained only when all of them train, never validated)."""
    groups = sentence_numbers(data.texts)
    synthetic = None
    if data.source is not None:
        synthetic = np.r_[
            np.zeros(len(groups), dtype=bool),
            np.ones(len(data.source), dtype=bool),
        ]
        source = np.asarray(data.source)
        source = source[:, None] if source.ndim == 1 else source  # (n_new, k)
        groups = np.r_[  # (n_pairs, k): the sentences each pair goes with
            np.repeat(groups[:, None], source.shape[1], axis=1),
            np.where(source >= 0, groups[source], -1),
        ]
    return split_sentences(
        data.dataset, groups, fraction, rng, synthetic, data.held_out
    )


def train_module(
    config: TrainingConfig,
    build,
    init,
    data: TrainingSet,
    seeding: Seeding,
    multi_output=None,
) -> Trained:
    """Build the module (``build()``, then ``init(module)``) under the fit's seed,
    hold out validation sentences, and train it through skorch on ``data`` (the
    settings of ``config``; ``seeding``: seed, generator and device).

    ``multi_output``: the loss settings of a module whose outputs are not one
    class per row (see :func:`classifier_task`). Returns the trained module (eval
    mode), the history, the epoch kept, whether training was interrupted, and the
    seconds it took (:class:`Trained`).

    The copies among ``data``'s rows train only when all their sources are on the
    training side and are not scored in validation. A dataset with a teacher's
    probabilities or weights trains on them (:class:`PairLoss`, the
    detector's :class:`~aspectattn.nn.categories.MultiOutputLoss`).
    """
    rng, seed, device = seeding.rng, seeding.seed, seeding.device
    train_ds, valid_ds = _training_split(data, config.validation_fraction, rng)
    with private_torch_rng(seed, device):
        module = build()
        init(getattr(module, "model", module))
        module.embedding.weight.requires_grad_(not config.encoder.freeze_embeddings)
        # Whole sentences per batch (every aspect of a sentence from one encoder
        # pass): batch_by, resolved with the other "auto" settings
        # (params.resolve_auto) and checked against them before any data work.
        if config.batch_by not in ("sentence", "pair"):
            raise ValueError(f"batch_by={config.batch_by!r} must be resolved first")
        config = replace(config, keep_sentences=config.batch_by == "sentence")
        checkpoint = None
        if config.checkpoint_dir is not None:
            run = fingerprint(config.run_params, seed, *data.run)
            checkpoint = (checkpoint_path(config.checkpoint_dir, run), run)
        distill = data.dataset.teacher is not None
        targets, classes = data.targets, data.classes
        task = classifier_task(config, targets, classes, multi_output, distill)
        net, tracker = build_net(
            module, config, task, valid_ds, rng, device, checkpoint
        )
        start = time.perf_counter()
        history, best_epoch, interrupted = fit_net(
            net, train_ds, tracker, rng, checkpoint
        )
        fit_time = time.perf_counter() - start
    if interrupted:
        warnings.warn(
            f"Training was interrupted after {len(history)} complete epoch(s); "
            f"keeping the weights of epoch {best_epoch} (interrupted_=True).",
            AspectAttnWarning,
            stacklevel=3,
        )
    return Trained(net.module_.eval(), history, best_epoch, interrupted, fit_time)
