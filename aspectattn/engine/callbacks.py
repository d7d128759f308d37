"""skorch callbacks that control training: best weights, early stopping, checkpoints.

They run in this order at the end of every epoch:

1. :class:`BestWeights` notes the monitored score and copies the weights when it
   improves (the validation metric, or the training loss without validation);
2. :class:`EpochCheckpoint` (optional) writes everything needed to resume;
3. :class:`StopWhenStalled` (with early stopping) ends training after ``patience``
   epochs without improvement.

At the end of training :class:`BestWeights` restores the best epoch's weights when
training stopped early, was interrupted (``KeyboardInterrupt``, which skorch turns
into a normal end of training), or when ``load_best`` asks for them -- the policy
lives with the callback, as in skorch's ``EarlyStopping(load_best=True)``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import torch
from skorch.callbacks import Callback

from ..exceptions import NonFiniteError

__all__ = [
    "WarmupLinearDecay",
    "BestWeights",
    "StopWhenStalled",
    "EpochCheckpoint",
    "FiniteLoss",
    "load_checkpoint",
]

CHECKPOINT_VERSION = 1

_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


def log_line(text: str) -> None:
    """Where training progress goes: stderr (stdout is for results), with skorch's
    colours only when stderr is a terminal."""
    if not sys.stderr.isatty():
        text = _ANSI_RE.sub("", text)
    print(text, file=sys.stderr, flush=True)


class BestWeights(Callback):
    """Remember the best epoch's score, number and weights.

    Parameters
    ----------
    monitor : str
        History key, e.g. ``"valid_acc"`` or ``"train_loss"``.
    lower_is_better : bool
    threshold : float
        Relative improvement needed to count as better.
    load_best : bool
        Restore the best epoch's weights at the end of training even when training
        ran all its epochs (early stopping does).

    Attributes
    ----------
    kept_epoch_ : int
        After training: the epoch whose weights the module holds.
    interrupted_ : bool
        After training: it ended before ``max_epochs`` without being stopped.
    """

    def __init__(
        self,
        monitor: str,
        lower_is_better: bool,
        threshold: float = 1e-4,
        load_best: bool = False,
    ):
        self.monitor = monitor
        self.lower_is_better = lower_is_better
        self.threshold = threshold
        self.load_best = load_best

    def initialize(self):
        self.best_score_ = None
        self.best_epoch_ = None
        self.best_weights_ = None
        self.misses_ = 0
        self.stopped_ = False
        self._restored = None
        return self

    def restore(self, best_weights) -> None:
        """Weights of the best epoch so far, from a checkpoint (used on resume)."""
        self._restored = best_weights

    def _improves(self, score: float) -> bool:
        if self.best_score_ is None:
            return True
        margin = self.threshold * abs(self.best_score_)
        if self.lower_is_better:
            return score < self.best_score_ - margin
        return score > self.best_score_ + margin

    def _note(self, score, epoch) -> bool:
        if self._improves(score):
            self.best_score_, self.best_epoch_, self.misses_ = score, epoch, 0
            return True
        self.misses_ += 1
        return False

    def on_train_begin(self, net, **kwargs):
        # On resume the history already holds earlier epochs: replay them.
        self.best_score_, self.best_epoch_, self.misses_ = None, None, 0
        for row in net.history:
            if self.monitor in row and "dur" in row:
                self._note(row[self.monitor], row["epoch"])
        self.best_weights_, self._restored = self._restored, None

    def on_epoch_end(self, net, **kwargs):
        row = net.history[-1]
        if self._note(row[self.monitor], row["epoch"]):
            self.best_weights_ = {
                k: v.detach().clone() for k, v in net.module_.state_dict().items()
            }

    def on_train_end(self, net, **kwargs):
        complete = sum("dur" in row for row in net.history)
        self.interrupted_ = not self.stopped_ and complete < net.max_epochs
        restore = self.stopped_ or self.interrupted_ or self.load_best
        if restore and self.best_weights_ is not None:
            net.module_.load_state_dict(self.best_weights_)
            self.kept_epoch_ = self.best_epoch_
        else:
            self.kept_epoch_ = complete


class WarmupLinearDecay(Callback):
    """BERT's fine-tuning schedule, per training batch: every optimizer group's
    rate rises linearly from 0 over the first ``warmup`` share of training, then
    falls linearly to 0 at the end of ``max_epochs``.

    The rate is a function of the position in training alone (epoch, batch), so a
    run resumed from a checkpoint continues the same schedule; each group's base
    rate is kept in the group as ``"initial_lr"`` (as torch's schedulers do), which
    the optimizer's state carries into a checkpoint.

    Parameters
    ----------
    warmup : float
        Share of the training steps spent warming up, in [0, 1).
    """

    def __init__(self, warmup: float = 0.1):
        self.warmup = warmup

    def factor(self, progress: float) -> float:
        """The multiplier of the base rates at ``progress`` (0: start, 1: end)."""
        if progress < self.warmup:
            return progress / self.warmup
        return max(0.0, (1.0 - progress) / (1.0 - self.warmup))

    def on_train_begin(self, net, **kwargs):
        for group in net.optimizer_.param_groups:
            group.setdefault("initial_lr", group["lr"])

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        self.epoch_ = len(net.history) - 1  # (skorch added this epoch's row)
        self.n_batches_ = max(1, len(net.get_iterator(dataset_train, training=True)))
        self.batch_ = 0

    def on_batch_begin(self, net, training=False, **kwargs):
        if not training:
            return
        # the middle of this batch's step: neither the first nor the last is 0
        within = min((self.batch_ + 0.5) / self.n_batches_, 1.0)
        self.batch_ += 1
        factor = self.factor((self.epoch_ + within) / net.max_epochs)
        for group in net.optimizer_.param_groups:
            group["lr"] = group["initial_lr"] * factor


class FiniteLoss(Callback):
    """Stop training with :class:`~aspectattn.exceptions.NonFiniteError` at the
    first training batch whose loss is NaN or infinite, or at the end of the first
    epoch that leaves a weight so: from there on the model predicts NaN, or
    ``classes_[0]`` for everything. (skorch reads every batch's loss anyway, so the
    loss check costs no extra sync.)"""

    _advice = (
        "Lower lr (or head_lr / embedding_lr), set gradient_clip, or check "
        "class_weight."
    )

    def on_batch_end(self, net, batch=None, training=False, loss=None, **kwargs):
        if training and loss is not None and not torch.isfinite(loss).all():
            raise NonFiniteError(
                f"Training stopped: the loss became {loss.detach().item()} in epoch "
                f"{len(net.history)}. {self._advice}"
            )

    def on_epoch_end(self, net, **kwargs):
        bad = [
            name
            for name, p in net.module_.named_parameters()
            if not torch.isfinite(p).all()
        ]
        if bad:
            raise NonFiniteError(
                f"Training stopped: epoch {len(net.history)} left non-finite "
                f"weights ({', '.join(bad[:3])}). {self._advice}"
            )


class StopWhenStalled(Callback):
    """End training after ``patience`` epochs without improvement of ``tracker``."""

    def __init__(self, tracker: BestWeights, patience: int):
        self.tracker = tracker
        self.patience = patience

    def initialize(self):
        self.stopped_ = False
        return self

    def on_epoch_end(self, net, **kwargs):
        if self.tracker.misses_ >= self.patience:
            self.stopped_ = self.tracker.stopped_ = True
            if net.verbose:
                log_line(
                    f"Stopping: {self.tracker.monitor} has not improved for "
                    f"{self.patience} epochs (best: epoch {self.tracker.best_epoch_})."
                )
            raise KeyboardInterrupt  # skorch's way to end training


class EpochCheckpoint(Callback):
    """After every epoch, write what is needed to resume training exactly.

    The file holds tensors and JSON only (it loads with ``weights_only=True``):
    module and optimizer state, history, the best weights so far, and the random
    states of torch and of the batch-order generator. It is replaced atomically.
    """

    def __init__(
        self,
        path,
        fingerprint: str,
        tracker: BestWeights,
        generator: np.random.Generator,
    ):
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.tracker = tracker
        self.generator = generator

    def on_epoch_end(self, net, **kwargs):
        history = [
            {k: v for k, v in row.items() if k != "batches"} for row in net.history
        ]
        state = {
            "version": CHECKPOINT_VERSION,
            "fingerprint": self.fingerprint,
            "module": {
                k: v.detach().cpu() for k, v in net.module_.state_dict().items()
            },
            "optimizer": net.optimizer_.state_dict(),
            "history": json.dumps(history),
            "best_weights": (
                {k: v.cpu() for k, v in self.tracker.best_weights_.items()}
                if self.tracker.best_weights_ is not None
                else {}
            ),
            "torch_rng": torch.get_rng_state(),
            "numpy_rng": json.dumps(self.generator.bit_generator.state),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        torch.save(state, tmp)
        os.replace(tmp, self.path)


def load_checkpoint(path, fingerprint: str) -> dict | None:
    """The checkpoint at ``path`` if it exists and belongs to this run, else None."""
    path = Path(path)
    if not path.is_file():
        return None
    state = torch.load(path, map_location="cpu", weights_only=True)
    if (
        state.get("version") != CHECKPOINT_VERSION
        or state.get("fingerprint") != fingerprint
    ):
        return None
    return state
