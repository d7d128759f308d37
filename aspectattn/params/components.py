"""What the estimators' components share (:mod:`aspectattn.encoders`,
:mod:`aspectattn.attention`, :mod:`aspectattn.training`): each declares its own
parameters once -- its written-out ``__init__``, its ``_parameter_constraints``
(scikit-learn's) and its docstring -- and is handed down whole: building and
training read its attributes (``config.encoder.hidden_size``), model files store
its parameters under its own names.

A component is an sklearn ``BaseEstimator`` passed whole as one parameter of an
estimator (its *slot*: ``encoder=``, ``attention=``); scikit-learn reaches its
parameters by prefix (``encoder__hidden_size``, ``attention__heads``).
"""

from __future__ import annotations

from sklearn.base import BaseEstimator

from .._validation import plain
from ._constraints import StrOptions, satisfies, validate_params

__all__ = [
    "Component",
    "component_for_prefix",
    "component_data",
    "component_from_data",
    "value_constraints",
]


class Component(BaseEstimator):
    """A component of the attention estimators: its parameters, their checks, and
    when the other settings leave one unused.

    A subclass writes out its ``__init__``, its ``_parameter_constraints`` and
    its docstring's Parameters section, and sets :attr:`slot`.
    """

    #: The estimator parameter the component is passed as.
    slot: str = ""
    #: Parameter -> its constraints (scikit-learn's convention).
    _parameter_constraints: dict = {}
    #: Parameter -> the conditions under which it is used
    #: (:func:`aspectattn.params.unused`); a parameter not here is always used.
    _needs: dict = {}

    def check(self, owner: str, reads=None) -> None:
        """Validate the parameters (scikit-learn's messages, naming ``owner``, the
        estimator). ``reads``: the parameters the owner reads, where it reads
        only some (the extractor's tagger): the others must keep their
        defaults."""
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
            self._parameter_constraints,
            caller=f"{type(self).__name__} ({self.slot} of {owner})",
        )
        if reads is None:
            return
        defaults = type(self)().get_params()
        for name, value in self.get_params().items():
            if name not in reads and value != defaults[name]:
                raise ValueError(
                    f"{type(self).__name__}({name}={value!r}) does not apply to "
                    f"{owner}: leave {name} at its default ({defaults[name]!r})."
                )

    @classmethod
    def auto_names(cls) -> tuple:
        """The parameters that may be ``"auto"`` (``fit`` resolves them)."""
        return tuple(
            name
            for name in cls._get_param_names()
            if any(
                type(c) is StrOptions and "auto" in c.options
                for c in cls._parameter_constraints[name]
            )
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


# ----------------------------------------------------------- components as data
def component_data(value):
    """A slot's value as data (a model file's JSON): a component as
    ``{"component": class name, "params": its parameters}``, anything else (a
    name, a bool) as it is."""
    if not isinstance(value, Component):
        return plain(value)
    params = {k: plain(v) for k, v in value.get_params(deep=False).items()}
    return {"component": type(value).__name__, "params": params}


def component_from_data(data, classes, what: str):
    """The slot value ``data`` (:func:`component_data`'s) stands for, a component
    among ``classes``; every field checked (``ValueError`` otherwise: the data may
    come from an attacker). A name stays a name, for the estimator to check."""
    if not isinstance(data, dict):
        return data
    by_name = {cls.__name__: cls for cls in classes}
    name, params = data.get("component"), data.get("params")
    cls = by_name.get(name) if isinstance(name, str) else None
    if (
        set(data) != {"component", "params"}
        or cls is None
        or not isinstance(params, dict)
    ):
        raise ValueError(f"{what} must be one of {sorted(by_name)} as saved")
    unknown = set(params) - set(cls._get_param_names())
    if unknown:
        raise ValueError(f"{what} has unknown parameters {sorted(unknown)[:5]}")
    for name, value in params.items():
        if not satisfies(value, cls._parameter_constraints[name]):
            raise ValueError(f"{what}'s {name} is not a valid {name}")
    return cls(**params)


def value_constraints(constraints) -> list:
    """``constraints`` once a value is set: without ``None`` and ``"auto"`` (what a
    built model and a model file hold)."""
    out = []
    for c in constraints:
        if c is None:
            continue
        if type(c) is StrOptions:
            options = set(c.options) - {"auto"}
            if not options:
                continue
            c = StrOptions(options)
        out.append(c)
    return out
