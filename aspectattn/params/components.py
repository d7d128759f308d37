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


def split_flat(owner: str, slot: str, current, flat: dict, component, owned):
    """``(value, rest)``: the parameters of ``flat`` (table names, as model
    files spell them) that belong to the ``slot`` component set on it, and the
    other names of ``flat``.

    ``current``: the slot's value (a name or a component; the result is a new
    component, or ``current`` when ``flat`` holds none of its parameters);
    ``component``: name or component -> component; ``owned``: the table names
    that belong to the slot's components (a parameter of another kind of
    component of the slot, which this one ignores, is dropped).
    """
    moved = {k: v for k, v in flat.items() if k in owned}
    rest = {k: v for k, v in flat.items() if k not in owned}
    if not moved:
        return current, rest
    made = component(current)
    if made is None:  # the slot holds no component (early_stopping=False)
        return current, rest
    names = {t: n for n, t in made._param_table_names().items()}
    params = made.get_params(deep=False)
    params.update({names[k]: v for k, v in moved.items() if k in names})
    return type(made)(**params), rest
