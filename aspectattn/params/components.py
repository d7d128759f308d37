"""What the estimators' components share (:mod:`aspectattn.encoders`,
:mod:`aspectattn.attention`): parameters under the parameter table's names, their
checks, and the flat names of earlier releases routed to them.

A component is an sklearn ``BaseEstimator`` passed whole as one parameter of an
estimator (its *slot*: ``encoder=``, ``attention=``); scikit-learn reaches its
parameters by prefix (``encoder__hidden_size``, ``attention__heads``). Building and
training read the table's names, so a component hands its values down under them
(:meth:`TableComponent.table_values`) and model files keep them flat.
"""

from __future__ import annotations

import warnings

from sklearn.base import BaseEstimator

from .._validation import plain
from ._constraints import validate_params

__all__ = ["TableComponent", "component_for_prefix", "split_flat"]


def _table_default(name: str):
    """The table's default of parameter ``name``."""
    from . import TABLE

    return TABLE[name].default


class TableComponent(BaseEstimator):
    """A component whose parameters are rows of the parameter table.

    A subclass writes out its ``__init__`` and sets :attr:`slot` (the estimator
    parameter it is passed as) and :attr:`_table_names` (its parameters whose
    table name differs).
    """

    #: The estimator parameter the component is passed as.
    slot: str = ""
    #: Parameter -> the table parameter it sets, where the names differ.
    _table_names: dict = {}

    @classmethod
    def _param_table_names(cls) -> dict:
        """Each parameter -> its name in the parameter table."""
        return {n: cls._table_names.get(n, n) for n in cls._get_param_names()}

    @classmethod
    def _constraints(cls) -> dict:
        from . import TABLE

        return {
            name: list(TABLE[table].constraints)
            for name, table in cls._param_table_names().items()
        }

    def table_values(self) -> dict:
        """The parameters under their table names (numpy scalars as Python
        values): what the estimator hands down."""
        params = self.get_params(deep=False)
        return {
            table: plain(params[name])
            for name, table in self._param_table_names().items()
        }

    def check(self, owner: str, table_names=None) -> None:
        """Validate the parameters (scikit-learn's messages, naming ``owner``, the
        estimator). ``table_names``: the owner's settings, where a parameter the
        owner lacks (the detector has no aspect terms) must keep its default."""
        vectors = getattr(self, "embeddings", None)
        if hasattr(vectors, "index_to_key") and hasattr(vectors, "vectors"):
            raise TypeError(
                f"{type(self).__name__}(embeddings=...) of {owner} takes word "
                "vectors by path, not as gensim KeyedVectors in memory: save them "
                "(kv.save('vectors.kv')) and pass 'vectors.kv' (a parameter is "
                "copied into every clone and grid-search candidate)."
            )
        validate_params(
            self,
            self._constraints(),
            caller=f"{type(self).__name__} ({self.slot} of {owner})",
        )
        if table_names is None:
            return
        defaults = type(self)().get_params()
        for name, table in self._param_table_names().items():
            value = getattr(self, name)
            if table not in table_names and value != defaults[name]:
                raise ValueError(
                    f"{type(self).__name__}({name}={value!r}) does not apply to "
                    f"{owner}: leave {name} at its default ({defaults[name]!r})."
                )

    def short(self):
        """What the estimator's parameter may hold for this component: the name
        that stands for it where one does (:meth:`_short`), else itself."""
        named = self._short()
        return self if named is None else named

    def _short(self):
        """The name (or ``True``) that stands for this component, or None."""
        return None


def component_for_prefix(slot: str, value, params: dict, component):
    """What the ``slot`` parameter holds before ``set_params(**params)``: where
    ``params`` set a parameter of its component (``slot__name``) and ``value`` is
    a name (or ``True``) that stands for one, that component (``component``:
    value -> component or None); else ``value``."""
    if hasattr(value, "set_params") or not any(
        k.startswith(f"{slot}__") for k in params
    ):
        return value
    made = component(value)
    return value if made is None else made


def split_flat(owner: str, slot: str, current, flat: dict, component, owned, warn):
    """``(value, rest)``: the parameters of ``flat`` (table names, as earlier
    releases took them on the estimator) that belong to the ``slot`` component
    set on it, and the other names of ``flat``.

    ``current``: the slot's value (a name or a component; the result is a new
    component, or ``current`` when ``flat`` holds none of its parameters);
    ``component``: name or component -> component; ``owned``: the table names
    that belong to the slot's components; ``warn``: a ``FutureWarning`` naming
    each parameter's new spelling (and one for a parameter another kind of
    component of the slot would take, which this one ignores).
    """
    moved = {k: v for k, v in flat.items() if k in owned}
    rest = {k: v for k, v in flat.items() if k not in owned}
    if not moved:
        return current, rest
    made = component(current)
    if made is None:  # the slot holds no component (early_stopping=False)
        if warn and any(v != _table_default(k) for k, v in moved.items()):
            warnings.warn(
                f"The parameters {sorted(moved)} are not used with {slot}="
                f"{current!r}: {owner} ignores them.",
                FutureWarning,
                stacklevel=5,
            )
        return current, rest
    kind = type(made).__name__
    names = {t: n for n, t in made._param_table_names().items()}
    foreign = sorted(set(moved) - set(names))
    if warn:
        spelled = ", ".join(
            f"{k}= -> {kind}({names[k]}=...)" for k in moved if k in names
        )
        if spelled:
            warnings.warn(
                f"Passing {slot} parameters to {owner} is deprecated and will stop "
                f"working in 0.2: pass them to the {slot} ({spelled}), as "
                f"{owner}({slot}={kind}(...)); grid searches reach them as "
                f"{slot}__<name>.",
                FutureWarning,
                stacklevel=5,
            )
    if foreign and warn:
        if any(moved[k] != _table_default(k) for k in foreign):
            warnings.warn(
                f"The parameters {foreign} are not used with {kind}: {owner} "
                "ignores them.",
                FutureWarning,
                stacklevel=5,
            )
    params = made.get_params(deep=False)
    params.update({names[k]: v for k, v in moved.items() if k in names})
    return type(made)(**params), rest
