"""The estimators' components by the parameter each is passed as (its slot):
``encoder=``, ``attention=``, ``optimizer=``, ``early_stopping=``.

A slot's value is a component or what stands for one (a name; ``True`` for early
stopping; ``False`` for none). Building and training read the component itself
(:class:`aspectattn.params.ModelConfig`), and model files store it with its own
parameters (:func:`aspectattn.params.components.component_data`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .attention import AspectAttention, attention_component, attention_constraints
from .encoders import ENCODER_CLASSES, encoder_component, encoder_constraints
from .params import TABLE
from .training import (
    EarlyStopping,
    Optimizer,
    early_stopping_component,
    early_stopping_constraints,
    optimizer_component,
    optimizer_constraints,
)

__all__ = ["Slot", "SLOTS"]


class Slot(NamedTuple):
    """A component parameter of the estimators."""

    #: The estimator's parameter.
    name: str
    #: Its value -> the component it stands for (None: it holds none).
    component: Callable
    #: The estimator parameter's constraints.
    constraints: list
    #: Its default: what the estimator's signature gives it.
    default: object
    #: The component classes it may hold (what a model file may name).
    classes: tuple


SLOTS = (
    Slot(
        "encoder",
        encoder_component,
        encoder_constraints(),
        TABLE["encoder"].default,
        tuple(ENCODER_CLASSES.values()),
    ),
    Slot(
        "attention",
        attention_component,
        attention_constraints(),
        TABLE["attention"].default,
        (AspectAttention,),
    ),
    Slot(
        "optimizer",
        optimizer_component,
        optimizer_constraints(),
        TABLE["optimizer"].default,
        (Optimizer,),
    ),
    Slot(
        "early_stopping",
        early_stopping_component,
        early_stopping_constraints(),
        TABLE["early_stopping"].default,
        (EarlyStopping,),
    ),
)
