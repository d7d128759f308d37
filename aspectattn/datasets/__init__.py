"""Readers and fetchers for aspect-level sentiment benchmarks.

Readers parse a local file; fetchers find the file under the *data home* (downloading
it there, with a SHA-256 check, when missing) and then parse it.

=====================  ===========================================  ====================
fetcher                subsets                                      aspects
=====================  ===========================================  ====================
fetch_semeval2014      domain "restaurants" or "laptops";           "category" (rest.
                       "train" (v2) / "test" (gold)                 only) or "term"
fetch_semeval2015      restaurants, "train" / "test"                "category" or
                                                                    "target"
fetch_mams             "train" / "val"                              "category" (ACSA) or
                                                                    "term" (ATSA)
fetch_semeval2016      language "dutch", "french", "russian",       "term"
                       "spanish", "turkish"; "train" / "test"
=====================  ===========================================  ====================

:func:`read_term_spans` and :func:`fetch_term_spans` give every sentence (those
without terms too) with its aspect terms as character spans, for the aspect term
extractor; they read the SemEval XML of 2014 to 2016, MAMS and APC files.

:func:`read_apc` reads the three-line "APC" format of PyABSA (sentence with the
term as ``$T$``, term, polarity), a user's own files too.

The data home is, in order: the ``data_home`` argument, the ``ASPECTATTN_DATA``
environment variable, ``~/aspectattn_data``. Files live there under the same names as
in the original releases, e.g. ``semeval2014_restaurants/Restaurants_Train_v2.xml``,
so a folder that already holds them (``ASPECTATTN_DATA=/path/to/shared/data``) is
used without any download.

``conflict`` labels (SemEval-2014 and MAMS), and SemEval-2015 aspects that carry
opinions of different polarity in one sentence, are dropped by default
(``conflict="drop"``), as in Wang et al. (2016) and most later work; ``"keep"`` keeps
them as a fourth label ``"conflict"``.

Every benchmark is also an entry of :data:`DATASETS` (name -> :class:`Dataset`),
which the command line and the benchmarks read: adding a data set is a reader and
a ``register(Dataset(...))`` beside it, in one module of this package: every
public module here is imported with the package, so nothing else needs editing.
"""

import pkgutil as _pkgutil
from importlib import import_module as _import_module

from ._files import DATA_HOME_ENV, REMOTE_FILES, RemoteFile, get_data_home
from ._registry import DATASETS, Dataset, register
from .apc import fetch_semeval2016, read_apc
from .categories import NOT_MENTIONED, fetch_category_table, read_category_table
from .mams import fetch_mams
from .semeval import (
    fetch_semeval2014,
    fetch_semeval2015,
    read_semeval2014,
    read_semeval2015,
)
from .spans import fetch_term_spans, read_term_spans

__all__ = [
    "get_data_home",
    "read_semeval2014",
    "read_semeval2015",
    "fetch_semeval2014",
    "fetch_semeval2015",
    "fetch_mams",
    "fetch_semeval2016",
    "read_apc",
    "read_term_spans",
    "fetch_term_spans",
    "read_category_table",
    "fetch_category_table",
    "NOT_MENTIONED",
    "REMOTE_FILES",
    "RemoteFile",
    "DATA_HOME_ENV",
    "DATASETS",
    "Dataset",
    "register",
]

# Every reader module registers its data sets when imported: import them all (a
# new one is found without an import written here).
for _module in _pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        _import_module(f"{__name__}.{_module.name}")
