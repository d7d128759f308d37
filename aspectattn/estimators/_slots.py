"""The estimators' components by the parameter each is passed as (its slot):
``encoder=``, ``attention=``, ``optimizer=``, ``early_stopping=``.

A slot's value is a component or what stands for one (a name; ``True`` for early
stopping; ``False`` for none). The components own rows of the parameter table;
everything below the estimators reads those rows flat (``_table_params``), as
model files keep them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..attention import attention_component, attention_constraints, attention_params
from ..encoders import encoder_component, encoder_constraints, encoder_params
from ..params import TABLE
from ..params.components import split_flat
from ..training import (
    early_stopping_component,
    early_stopping_constraints,
    early_stopping_params,
    optimizer_component,
    optimizer_constraints,
    optimizer_params,
)

__all__ = ["Slot", "SLOTS", "COMPONENT_NAMES", "split_slots", "slot_values"]


class Slot(NamedTuple):
    """A component parameter of the estimators."""

    #: The estimator's parameter.
    name: str
    #: Its value -> the component it stands for (None: it holds none).
    component: Callable
    #: The table parameters its components own (the estimator lacks them).
    owned: frozenset
    #: The estimator parameter's constraints.
    constraints: list
    #: Its default: what the estimator's signature gives it.
    default: object


SLOTS = (
    Slot(
        "encoder",
        encoder_component,
        encoder_params(),
        encoder_constraints(),
        TABLE["encoder"].default,
    ),
    Slot(
        "attention",
        attention_component,
        attention_params(),
        attention_constraints(),
        TABLE["attention_score"].default,
    ),
    Slot(
        "optimizer",
        optimizer_component,
        optimizer_params(),
        optimizer_constraints(),
        TABLE["optimizer"].default,
    ),
    Slot(
        "early_stopping",
        early_stopping_component,
        early_stopping_params(),
        early_stopping_constraints(),
        TABLE["early_stopping"].default,
    ),
)

#: The table parameters that belong to a component, not to an estimator.
COMPONENT_NAMES = frozenset().union(*(slot.owned for slot in SLOTS))


def split_slots(owner: str, current: dict, flat: dict) -> tuple:
    """``(values, rest)``: each slot's value with the parameters of ``flat`` (table
    names) that its components own set on it (a new component), starting from
    ``current`` (slot -> value), and the other names of ``flat``."""
    values = {}
    for slot in SLOTS:
        value = current.get(slot.name, slot.default)
        value, flat = split_flat(
            owner, slot.name, value, flat, slot.component, slot.owned
        )
        values[slot.name] = value
    return values, flat


def slot_values(values: dict) -> dict:
    """Each slot's component as short as it can be said: the name (or ``True``)
    that stands for it where one does."""
    return {
        name: value.short() if hasattr(value, "short") else value
        for name, value in values.items()
    }
