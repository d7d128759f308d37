"""pandas, imported when a review analysis needs it, with the install hint."""

from __future__ import annotations

from ..exceptions import MissingDependencyError


def pandas_module():
    try:
        import pandas as pd
    except ImportError:
        raise MissingDependencyError(
            "Analysing reviews needs pandas: pip install 'aspectattn[reviews]'"
        ) from None
    return pd
