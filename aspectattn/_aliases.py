"""Import paths of earlier releases, in one table.

Files and pickles written by earlier releases name classes under the paths those
releases had (``aspectattn.estimator.AspectAttentionClassifier``), and so may code
written for them. :data:`ALIASES` maps each old module to the modules that hold its
names now; :class:`AliasFinder`, on ``sys.meta_path`` from ``import aspectattn`` on,
answers an import of an old path with a module that reads its names from there, so
pickle, joblib and skops (whose trusted types :func:`trusted_aliases` extends) load
old files, and old imports work, with no module kept for them in the package.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

__all__ = ["ALIASES", "AliasFinder", "trusted_aliases", "install"]

#: Old module -> the modules its names live in now (searched in order).
ALIASES: dict[str, tuple[str, ...]] = {
    # the layout before the estimators, nn, engine and text packages
    "aspectattn.estimator": (
        "aspectattn.estimators.pairs",
        "aspectattn.estimators._base",
    ),
    "aspectattn.detection": (
        "aspectattn.estimators.categories",
        "aspectattn.nn.categories",
    ),
    "aspectattn.modules": (
        "aspectattn.nn.model",
        "aspectattn.nn.ops",
        "aspectattn.nn.schema",
        "aspectattn.params",
    ),
    "aspectattn.inference": ("aspectattn.engine.inference",),
    "aspectattn.quantization": ("aspectattn.engine.quantization",),
    "aspectattn.pipelines": ("aspectattn.text.pipelines",),
    "aspectattn.baselines": ("aspectattn.estimators.baselines",),
    # the review path and serving, before their subpackages
    "aspectattn.report": ("aspectattn.reviews.report",),
    "aspectattn.mentions": ("aspectattn.reviews.mentions",),
    "aspectattn.export": ("aspectattn.serving.export",),
    "aspectattn.runtime": ("aspectattn.serving.runtime",),
}


def _alias_module(name: str) -> types.ModuleType:
    """A module named ``name`` whose attributes are read from its new homes (the
    first that has the name), imported on first use."""
    module = types.ModuleType(name, f"Old import path; see {ALIASES[name][0]}.")
    targets = ALIASES[name]

    def __getattr__(attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        for target in targets:
            value = getattr(importlib.import_module(target), attr, _MISSING)
            if value is not _MISSING:
                return value
        raise AttributeError(f"module {name!r} has no attribute {attr!r}")

    def __dir__():
        return sorted({a for t in targets for a in dir(importlib.import_module(t))})

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
    module.__all__ = sorted(
        {a for t in targets for a in getattr(importlib.import_module(t), "__all__", ())}
    )
    return module


_MISSING = object()


class AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of :data:`ALIASES`' old paths, answered with alias modules."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in ALIASES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return _alias_module(spec.name)

    def exec_module(self, module):
        # (hidden by default, as DeprecationWarnings are: an old file loads quietly)
        warnings.warn(
            f"{module.__name__} is an old import path; import from "
            f"{ALIASES[module.__name__][0]} (or aspectattn) instead.",
            DeprecationWarning,
            stacklevel=2,
        )


def trusted_aliases(trusted: list[str]) -> list[str]:
    """The old paths of the types ``trusted`` names (``module.Class``): what files
    of earlier releases call them."""
    out = []
    for old, targets in ALIASES.items():
        for path in trusted:
            module, _, cls = path.rpartition(".")
            if module in targets:
                out.append(f"{old}.{cls}")
    return out


def install() -> None:
    """Put :class:`AliasFinder` on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(AliasFinder())
