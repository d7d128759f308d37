"""Exceptions and warnings raised by aspectattn.

All errors about bad input are :class:`ValueError` subclasses (so ``except ValueError``
keeps working), and all of them share the base class :class:`AspectAttnError`.
"""

__all__ = [
    "AspectAttnError",
    "InputError",
    "UnknownAspectError",
    "MissingDependencyError",
    "ChecksumError",
    "NonFiniteError",
    "AspectAttnWarning",
]


class AspectAttnError(Exception):
    """Base class of every exception raised by aspectattn."""


class InputError(AspectAttnError, ValueError):
    """``X`` or ``y`` does not follow the input contract."""


class UnknownAspectError(InputError):
    """An aspect category was not seen during ``fit``."""


class MissingDependencyError(AspectAttnError, ImportError):
    """An optional dependency is needed; the message says how to install it."""


class ChecksumError(AspectAttnError, OSError):
    """A downloaded file does not have the expected SHA-256 checksum."""


class NonFiniteError(AspectAttnError, FloatingPointError):
    """A model computed NaN or infinity: its training loss or weights (too high a
    learning rate, extreme class weights...: training stops there), or its scores
    for an input (a model trained that way): never turned into labels."""


class AspectAttnWarning(UserWarning):
    """Base class of the warnings issued by aspectattn."""


def optional_import(module: str, extra: str, purpose: str):
    """Import an optional dependency, or raise :class:`MissingDependencyError` saying
    what needs it and which extra installs it."""
    from importlib import import_module

    try:
        return import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs {module.split('.')[0]}: pip install 'aspectattn[{extra}]'"
        ) from exc
