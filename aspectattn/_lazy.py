"""Names a package imports on first use (PEP 562): ``import aspectattn`` and
``import aspectattn.serving.runtime`` do not import torch."""

from __future__ import annotations

from importlib import import_module


def lazy_names(package: str, names: dict[str, str], namespace: dict):
    """The ``__getattr__`` and ``__dir__`` of ``package`` (its ``__name__``),
    whose attribute ``name`` is imported from the module ``names[name]``
    (relative to the package) on first use and kept in ``namespace`` (its
    ``globals()``)."""

    def __getattr__(name: str):
        if name in names:
            value = getattr(import_module(names[name], package), name)
            namespace[name] = value  # later lookups skip this function
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
