"""Aspect-category data in scikit-learn's multi-output shape (for the detector)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..exceptions import MissingDependencyError
from ._files import _check_choice, _fetch_file

# ------------------------------------------------------------ category tables
NOT_MENTIONED = "none"


def read_category_table(
    path, conflict: str = "drop", not_mentioned: str = NOT_MENTIONED
):
    """Aspect-category data in scikit-learn's multi-output shape.

    Reads SemEval-2014 / MAMS-ACSA (``<aspectCategory>``) and SemEval-2015/2016
    (``<Opinion category=...>``) files, *including sentences without any aspect*
    (every category "not mentioned"), which category detection needs.

    Parameters
    ----------
    path : str or path-like
    conflict : {"drop", "keep"}, default="drop"
        ``"drop"`` leaves out the sentences that have a ``conflict`` aspect (so no
        mentioned category is mislabelled as not mentioned); ``"keep"`` keeps
        ``"conflict"`` as a label.
    not_mentioned : str, default="none"
        The value of a category a sentence does not talk about.

    Returns
    -------
    texts : list of str
    Y : pandas DataFrame of shape (n_sentences, n_categories)
        One column per category (sorted), holding a polarity or ``not_mentioned``.
    """
    _check_choice("conflict", conflict, {"drop", "keep"})
    try:
        import pandas as pd
    except ImportError as exc:
        raise MissingDependencyError(
            "category tables need pandas: pip install 'aspectattn[pandas]'"
        ) from exc
    texts, rows = [], []
    for sentence in ET.parse(path).getroot().iter("sentence"):
        found: dict[str, set] = {}
        for element in sentence.iter("aspectCategory"):
            found.setdefault(element.get("category"), set()).add(
                element.get("polarity")
            )
        for element in sentence.iter("Opinion"):
            found.setdefault(element.get("category"), set()).add(
                element.get("polarity")
            )
        labels = {c: (p.pop() if len(p) == 1 else "conflict") for c, p in found.items()}
        if conflict == "drop" and "conflict" in labels.values():
            continue
        texts.append(sentence.findtext("text") or "")
        rows.append(labels)
    categories = sorted({c for row in rows for c in row})
    Y = pd.DataFrame(
        [[row.get(c, not_mentioned) for c in categories] for row in rows],
        columns=categories,
    )
    return texts, Y


def fetch_category_table(
    dataset: str = "semeval2014",
    subset: str = "train",
    conflict: str = "drop",
    not_mentioned: str = NOT_MENTIONED,
    data_home=None,
    download_if_missing: bool = True,
):
    """Category data of a benchmark as ``(texts, Y)``: see :func:`read_category_table`.

    Parameters
    ----------
    dataset : {"semeval2014", "semeval2015", "mams"}
        SemEval-2014 restaurants, SemEval-2015 restaurants, MAMS-ACSA.
    subset : {"train", "test"} ({"train", "val"} for MAMS)
    """
    files = {
        ("semeval2014", "train"): "semeval2014_restaurants/Restaurants_Train_v2.xml",
        ("semeval2014", "test"): "semeval2014_restaurants/Restaurants_Test_Gold.xml",
        ("semeval2015", "train"): (
            "semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml"
        ),
        ("semeval2015", "test"): "semeval2015_restaurants/ABSA15_Restaurants_Test.xml",
        ("mams", "train"): "mams_acsa/train.xml",
        ("mams", "val"): "mams_acsa/val.xml",
    }
    if (dataset, subset) not in files:
        raise ValueError(
            f"(dataset, subset) must be one of {sorted(files)}, got "
            f"{(dataset, subset)!r}."
        )
    path = _fetch_file(files[dataset, subset], data_home, download_if_missing)
    return read_category_table(path, conflict, not_mentioned)
