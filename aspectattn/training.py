"""How the attention estimators train, as components: the optimizer and early
stopping.

:class:`Optimizer` is passed as ``optimizer=`` and :class:`EarlyStopping` as
``early_stopping=`` to :class:`~aspectattn.AspectAttentionClassifier` and
:class:`~aspectattn.AspectCategoryClassifier` (skorch's idiom:
``optimizer__weight_decay``, an early-stopping callback with its own
``patience``)::

    clf = AspectAttentionClassifier(
        lr=1e-3,
        optimizer=Optimizer("adamw", weight_decay=0.01),
        validation_fraction=0.1,
        early_stopping=EarlyStopping(scoring="accuracy", patience=3),
    )
    GridSearchCV(clf, {"optimizer__weight_decay": [0.0, 0.01]})

An optimizer's name stands for it with its defaults (``optimizer="sgd"``);
``early_stopping=True`` for :class:`EarlyStopping` with its defaults, ``False``
for training every epoch. This module imports no torch: the training loop is
:mod:`aspectattn.engine.training`.
"""

from __future__ import annotations

from numbers import Integral, Real

from .params._constraints import Interval, StrOptions
from .params._core import OPTIMIZERS
from .params.components import Component

__all__ = [
    "Optimizer",
    "EarlyStopping",
    "optimizer_component",
    "optimizer_constraints",
    "early_stopping_component",
    "early_stopping_constraints",
]


class Optimizer(Component):
    """The optimizer, its parameter groups' rates, its schedule and clipping.

    The estimator's ``lr`` is the rate of the encoder (for a pretrained one, of
    its top layer); this component says how the steps are taken.

    Parameters
    ----------
    name : {"adam", "adamw", "adagrad", "sgd"}, default="adam"
        The torch optimizer; ``"sgd"`` uses momentum 0.9.
    weight_decay : float, default=0.0
        L2 penalty on all weights except the word vectors.
    head_lr : float, None or "auto", default="auto"
        Learning rate of the parameters outside the encoder -- the aspect vectors,
        the attention and the classifier (``None``: same as ``lr``). ``"auto"``:
        ``1e-3`` with a pretrained encoder (they start from random weights, and
        at the small ``lr`` that fine-tunes a checkpoint the aspect vectors barely
        move: every aspect of a sentence then gets the sentence's tone), else
        ``None``; the estimator's ``resolved_params_`` says which.
    lr_schedule : {"auto", "constant", "linear"}, default="auto"
        ``"constant"``: every batch at its group's rate. ``"linear"``: BERT's
        fine-tuning schedule -- the rates rise from 0 over the first 10% of the
        training steps, then fall linearly to 0 at the end of ``max_epochs``
        (:class:`aspectattn.engine.callbacks.WarmupLinearDecay`, per batch).
        ``"auto"``: ``"linear"`` with a pretrained encoder, else ``"constant"``.
    gradient_clip : float or None, default=None
        Clip the gradient norm to this value.

    See Also
    --------
    EarlyStopping : When training stops, and which epoch it keeps.

    Examples
    --------
    >>> from aspectattn import AspectAttentionClassifier
    >>> from aspectattn.training import Optimizer
    >>> clf = AspectAttentionClassifier(optimizer=Optimizer("adamw", weight_decay=0.01))
    >>> clf.get_params()["optimizer__weight_decay"]
    0.01
    """

    slot = "optimizer"
    _parameter_constraints = {
        "name": [StrOptions(set(OPTIMIZERS))],
        "weight_decay": [Interval(Real, 0, None, closed="left")],
        "head_lr": [
            None,
            StrOptions({"auto"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "lr_schedule": [StrOptions({"auto", "constant", "linear"})],
        "gradient_clip": [None, Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        name="adam",
        *,
        weight_decay=0.0,
        head_lr="auto",
        lr_schedule="auto",
        gradient_clip=None,
    ):
        self.name = name
        self.weight_decay = weight_decay
        self.head_lr = head_lr
        self.lr_schedule = lr_schedule
        self.gradient_clip = gradient_clip

    def _short(self):
        if self.get_params() == Optimizer(self.name).get_params():
            return self.name  # the name stands for the optimizer's defaults
        return None


class EarlyStopping(Component):
    """Stop when the validation score stalls, and keep the best epoch's weights.

    Needs the estimator's ``validation_fraction`` (the held-out sentences it
    scores). Interrupting training with Ctrl-C also keeps the best epoch's
    weights.

    Parameters
    ----------
    scoring : {"loss", "accuracy", "f1_macro"}, default="loss"
        The validation score that selects the best epoch (the pair classifier;
        the detector stops on its validation loss).
    patience : int or "auto", default="auto"
        Epochs without improvement of the validation score before stopping.
        ``"auto"``: 5, or 2 with a pretrained encoder.

    See Also
    --------
    Optimizer : How the steps are taken.

    Examples
    --------
    >>> from aspectattn import AspectAttentionClassifier
    >>> from aspectattn.training import EarlyStopping
    >>> clf = AspectAttentionClassifier(
    ...     validation_fraction=0.1, early_stopping=EarlyStopping(patience=3))
    >>> clf.get_params()["early_stopping__patience"]
    3
    """

    slot = "early_stopping"
    _parameter_constraints = {
        "scoring": [StrOptions({"loss", "accuracy", "f1_macro"})],
        "patience": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, *, scoring="loss", patience="auto"):
        self.scoring = scoring
        self.patience = patience

    def _short(self):
        if self.get_params() == EarlyStopping().get_params():
            return True  # True stands for early stopping with its defaults
        return None


def optimizer_component(optimizer) -> Optimizer:
    """The component ``optimizer`` (a component or an optimizer's name) stands
    for."""
    if isinstance(optimizer, Optimizer):
        return optimizer
    if optimizer not in OPTIMIZERS:
        raise ValueError(
            f"optimizer must be an Optimizer or one of {sorted(OPTIMIZERS)}; got "
            f"{str(optimizer)[:80]!r}."
        )
    return Optimizer(optimizer)


def early_stopping_component(early_stopping) -> EarlyStopping | None:
    """The component ``early_stopping`` stands for: itself, ``EarlyStopping()``
    for ``True``, None for ``False`` (every epoch trains)."""
    if isinstance(early_stopping, EarlyStopping):
        return early_stopping
    return EarlyStopping() if early_stopping is True else None


def optimizer_constraints() -> list:
    """The constraints of an estimator's ``optimizer``: a name or the component."""
    return [StrOptions(set(OPTIMIZERS)), Optimizer]


def early_stopping_constraints() -> list:
    """The constraints of an estimator's ``early_stopping``: a bool or the
    component."""
    return ["boolean", EarlyStopping]
