"""SemEval-2014 Task 4 and SemEval-2015 Task 12: readers, fetchers, registry entries."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import OrderedDict

from ..exceptions import MissingDependencyError
from ._files import _COLUMNS, _check_choice, _fetch_file
from ._registry import Dataset, register


# --------------------------------------------------------------------------- readers
def _finish(rows: list[tuple], as_frame: bool, spans: bool = False):
    if as_frame:
        try:
            import pandas as pd
        except ImportError as exc:
            raise MissingDependencyError(
                "as_frame=True needs pandas: pip install 'aspectattn[pandas]'"
            ) from exc
        return pd.DataFrame(rows, columns=list(_COLUMNS))
    if spans:  # a term's place: (text, term, (start, end)); a category has none
        X = [(r[0], r[1]) if r[4] is None else (r[0], r[1], (r[4], r[5])) for r in rows]
    else:
        X = [(r[0], r[1]) for r in rows]
    return X, [r[2] for r in rows]


def read_semeval2014(
    path,
    aspect: str = "category",
    conflict: str = "drop",
    as_frame: bool = False,
    spans: bool = False,
):
    """Read a SemEval-2014 Task 4 (or MAMS) XML file.

    Parameters
    ----------
    path : str or path-like
    aspect : {"category", "term"}, default="category"
        Read ``<aspectCategory>`` or ``<aspectTerm>`` elements.
    conflict : {"drop", "keep"}, default="drop"
        What to do with pairs labelled ``conflict``.
    as_frame : bool, default=False
        Return a pandas DataFrame with columns ``text, aspect, polarity,
        sentence_id, start, end`` (character offsets of terms; None for categories).
    spans : bool, default=False
        Give each aspect term with its place: ``(text, term, (start, end))``
        items, which every pair classifier reads (a term that occurs twice is
        then read where it was annotated, not at its first occurrence).

    Returns
    -------
    (X, y) : list of (text, aspect) pairs and list of labels, or a DataFrame.
        Pairs are in file order; duplicates are kept as in the file.
    """
    _check_choice("aspect", aspect, {"category", "term"})
    _check_choice("conflict", conflict, {"drop", "keep"})
    tag = "aspectCategory" if aspect == "category" else "aspectTerm"
    attr = "category" if aspect == "category" else "term"
    rows = []
    for sentence in ET.parse(path).getroot().iter("sentence"):
        text = sentence.findtext("text") or ""
        for element in sentence.iter(tag):
            polarity = element.get("polarity")
            if polarity == "conflict" and conflict == "drop":
                continue
            start, end = element.get("from"), element.get("to")
            rows.append(
                (
                    text,
                    element.get(attr),
                    polarity,
                    sentence.get("id"),
                    None if start is None else int(start),
                    None if end is None else int(end),
                )
            )
    return _finish(rows, as_frame, spans)


def read_semeval2015(
    path,
    aspect: str = "category",
    conflict: str = "drop",
    as_frame: bool = False,
    spans: bool = False,
):
    """Read a SemEval-2015/2016 Task 12/5 XML file (``<Opinion>`` tuples).

    One pair per distinct (sentence, category) or (sentence, target span): several
    opinions with the same polarity are one pair; opinions of different polarity
    make a ``"conflict"`` pair (dropped by default).

    Parameters
    ----------
    path : str or path-like
    aspect : {"category", "target"}, default="category"
        ``"category"`` uses ``ENTITY#ATTRIBUTE`` categories; ``"target"`` (alias
        ``"term"``) uses explicit opinion targets (``target="NULL"`` skipped).
    conflict : {"drop", "keep"}, default="drop"
    as_frame : bool, default=False
    spans : bool, default=False
        Targets with their place, as :func:`read_semeval2014`.

    Returns
    -------
    (X, y) or DataFrame, as :func:`read_semeval2014`.
    """
    aspect = "target" if aspect == "term" else aspect
    _check_choice("aspect", aspect, {"category", "target"})
    _check_choice("conflict", conflict, {"drop", "keep"})
    rows = []
    for sentence in ET.parse(path).getroot().iter("sentence"):
        text = sentence.findtext("text") or ""
        pairs: OrderedDict[tuple, set] = OrderedDict()
        for op in sentence.iter("Opinion"):
            if aspect == "category":
                key = (op.get("category"), None, None)
            else:
                if op.get("target") in (None, "NULL"):
                    continue
                key = (op.get("target"), int(op.get("from")), int(op.get("to")))
            pairs.setdefault(key, set()).add(op.get("polarity"))
        for (name, start, end), polarities in pairs.items():
            polarity = polarities.pop() if len(polarities) == 1 else "conflict"
            if polarity == "conflict" and conflict == "drop":
                continue
            rows.append((text, name, polarity, sentence.get("id"), start, end))
    return _finish(rows, as_frame, spans)


# -------------------------------------------------------------------------- fetchers
def fetch_semeval2014(
    domain: str = "restaurants",
    subset: str = "train",
    aspect: str = "category",
    conflict: str = "drop",
    data_home=None,
    download_if_missing: bool = True,
    as_frame: bool = False,
    spans: bool = False,
):
    """SemEval-2014 Task 4 (Pontiki et al., 2014), restaurants or laptops.

    ``subset="train"`` is the corrected v2 training file, ``"test"`` the gold test
    file. With ``aspect="category"`` and conflict dropped, restaurants give 3518
    train pairs (2179 positive / 839 negative / 500 neutral) and 973 test pairs
    (657 / 222 / 94), the data of Wang et al. (2016). Laptops have aspect terms only.

    See :func:`read_semeval2014` for ``aspect``, ``conflict``, ``as_frame`` and
    ``spans``, and the module docstring for ``data_home``.

    Examples
    --------
    >>> from aspectattn.datasets import fetch_semeval2014
    >>> X, y = fetch_semeval2014("restaurants", "train")
    >>> len(X), X[0], y[0]
    (3518, ('But the staff was so horrible to us.', 'service'), 'negative')
    >>> frame = fetch_semeval2014("laptops", "test", aspect="term", as_frame=True)
    >>> frame.columns.tolist()
    ['text', 'aspect', 'polarity', 'sentence_id', 'start', 'end']
    """
    _check_choice("domain", domain, {"restaurants", "laptops"})
    _check_choice("subset", subset, {"train", "test"})
    if domain == "laptops" and aspect == "category":
        raise ValueError(
            "SemEval-2014 laptops have aspect terms only; use aspect='term'."
        )
    name = {
        ("restaurants", "train"): "Restaurants_Train_v2.xml",
        ("restaurants", "test"): "Restaurants_Test_Gold.xml",
        ("laptops", "train"): "Laptop_Train_v2.xml",
        ("laptops", "test"): "Laptops_Test_Gold.xml",
    }[domain, subset]
    path = _fetch_file(f"semeval2014_{domain}/{name}", data_home, download_if_missing)
    return read_semeval2014(path, aspect, conflict, as_frame, spans)


def fetch_semeval2015(
    subset: str = "train",
    aspect: str = "category",
    conflict: str = "drop",
    data_home=None,
    download_if_missing: bool = True,
    as_frame: bool = False,
    spans: bool = False,
):
    """SemEval-2015 Task 12 restaurants (Pontiki et al., 2015).

    See :func:`read_semeval2015` for ``aspect``, ``conflict``, ``as_frame`` and
    ``spans``.
    """
    _check_choice("subset", subset, {"train", "test"})
    name = {
        "train": "ABSA-15_Restaurants_Train_Final.xml",
        "test": "ABSA15_Restaurants_Test.xml",
    }[subset]
    path = _fetch_file(
        f"semeval2015_restaurants/{name}", data_home, download_if_missing
    )
    return read_semeval2015(path, aspect, conflict, as_frame, spans)


register(
    Dataset(
        "semeval2014-restaurants-category",
        fetch_semeval2014,
        {"domain": "restaurants", "aspect": "category"},
        table="semeval2014",
        description="SemEval-2014 restaurants, aspect categories",
    )
)
register(
    Dataset(
        "semeval2014-restaurants-term",
        fetch_semeval2014,
        {"domain": "restaurants", "aspect": "term"},
        aspects="term",
        description="SemEval-2014 restaurants, aspect terms",
    )
)
register(
    Dataset(
        "semeval2014-laptops-term",
        fetch_semeval2014,
        {"domain": "laptops", "aspect": "term"},
        aspects="term",
        description="SemEval-2014 laptops, aspect terms",
    )
)
register(
    Dataset(
        "semeval2015-restaurants-category",
        fetch_semeval2015,
        {"aspect": "category"},
        table="semeval2015",
        description="SemEval-2015 restaurants, aspect categories",
    )
)
register(
    Dataset(
        "semeval2015-restaurants-target",
        fetch_semeval2015,
        {"aspect": "target"},
        aspects="term",
        description="SemEval-2015 restaurants, opinion targets",
    )
)
