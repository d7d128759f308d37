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
=====================  ===========================================  ====================

The data home is, in order: the ``data_home`` argument, the ``ASPECTATTN_DATA``
environment variable, ``~/aspectattn_data``. Files live there under the same names as
in the original releases, e.g. ``semeval2014_restaurants/Restaurants_Train_v2.xml``,
so a folder that already holds them (``ASPECTATTN_DATA=/path/to/shared/data``) is
used without any download.

``conflict`` labels (SemEval-2014 and MAMS), and SemEval-2015 aspects that carry
opinions of different polarity in one sentence, are dropped by default
(``conflict="drop"``), as in Wang et al. (2016) and most later work; ``"keep"`` keeps
them as a fourth label ``"conflict"``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

from .exceptions import ChecksumError, MissingDependencyError

__all__ = [
    "get_data_home",
    "read_semeval2014",
    "read_semeval2015",
    "fetch_semeval2014",
    "fetch_semeval2015",
    "fetch_mams",
    "REMOTE_FILES",
]

DATA_HOME_ENV = "ASPECTATTN_DATA"


class RemoteFile(NamedTuple):
    """A file of a public release: where to get it and its SHA-256."""

    url: str
    sha256: str


def _github(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


_ABSA_KERAS = ("AlexYangLi/ABSA_Keras", "8de8f6a3d8861c68e3f552a4b77bf60d75ee05f6")
_BERT_PAIR = ("HSLCY/ABSA-BERT-pair", "7d238eb8c772946b9e572373c144b11151e4187f")
_BATISTA = (
    "davidsbatista/Aspect-Based-Sentiment-Analysis",
    "1d9c8ec1131993d924e96676fa212db6b53cb870",
)
_MAMS = ("siat-nlp/MAMS-for-ABSA", "cddcdb0f423b3fdb2c76b70744737abed3a00d17")

#: Relative path under the data home -> where to download it and its checksum.
REMOTE_FILES: dict[str, RemoteFile] = {
    "semeval2014_restaurants/Restaurants_Train_v2.xml": RemoteFile(
        _github(*_ABSA_KERAS, "raw_data/semeval14_restaurant/Restaurants_Train_v2.xml"),
        "223601da1bded6caa4ef9cf91a7007578141ca6d8ed50d5a5c217565f89d2fc5",
    ),
    "semeval2014_restaurants/Restaurants_Test_Gold.xml": RemoteFile(
        _github(*_BERT_PAIR, "data/semeval2014/Restaurants_Test_Gold.xml"),
        "f21509cfa37e16534cd5b2da043be487355b64ef48fe8d6aaacaeca6b49cc0fb",
    ),
    "semeval2014_laptops/Laptop_Train_v2.xml": RemoteFile(
        _github(*_ABSA_KERAS, "raw_data/semeval14_laptop/Laptop_Train_v2.xml"),
        "efec2ed73b4efb83b47c697114d800149c558118884afa80362a6e975ba7248c",
    ),
    "semeval2014_laptops/Laptops_Test_Gold.xml": RemoteFile(
        _github(*_ABSA_KERAS, "raw_data/semeval14_laptop/Laptops_Test_Gold.xml"),
        "aa3a30c9dd7e0eacf9b69e898eb4118a36c1b4f391a30a08dfc41a38d8b8745b",
    ),
    "semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml": RemoteFile(
        _github(
            *_BATISTA, "datasets/ABSA-SemEval2015/ABSA-15_Restaurants_Train_Final.xml"
        ),
        "813c3bf02cfdce98e1eccac93eca46e0123ebd8a2848a506d18bd3c1be9037df",
    ),
    "semeval2015_restaurants/ABSA15_Restaurants_Test.xml": RemoteFile(
        _github(*_BATISTA, "datasets/ABSA-SemEval2015/ABSA15_Restaurants_Test.xml"),
        "26085008a5182381504fefdb7b56654baccd08851c900e6b05452055d9cfede9",
    ),
    "mams_acsa/train.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ACSA/raw/train.xml"),
        "24c6a1a9f769ec5a9a1fc9a63077001339cec65317e3e72cf053d8055ec5f1ac",
    ),
    "mams_acsa/val.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ACSA/raw/val.xml"),
        "d4536b0ced8e77f53f88ff1835fcf561e0de02e41a509982f76eb9b8a375b2ed",
    ),
    "mams_atsa/train.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ATSA/raw/train.xml"),
        "26ba39142b28169ebc80408294f4e27493bd1e127c6aa2e85ab4bc750bf8017a",
    ),
    "mams_atsa/val.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ATSA/raw/val.xml"),
        "5b7d225e2f9482a3814f15aed04ff8323105171a47d22d9899d871c4e0ba86ca",
    ),
}

_COLUMNS = ("text", "aspect", "polarity", "sentence_id", "start", "end")


# ------------------------------------------------------------------------ data home
def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder that holds (or will hold) the data sets.

    ``data_home`` if given, else ``$ASPECTATTN_DATA``, else ``~/aspectattn_data``.
    """
    if data_home is None:
        data_home = os.environ.get(DATA_HOME_ENV) or Path.home() / "aspectattn_data"
    return Path(data_home).expanduser()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(remote: RemoteFile, target: Path, timeout: float = 60.0) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    tmp = Path(tmp_name)
    try:
        with (
            os.fdopen(fd, "wb") as out,
            urllib.request.urlopen(remote.url, timeout=timeout) as response,
        ):
            shutil.copyfileobj(response, out)
        actual = _sha256(tmp)
        if actual != remote.sha256:
            raise ChecksumError(
                f"The file downloaded from {remote.url} has SHA-256 {actual}, expected "
                f"{remote.sha256}; it was discarded. The server may have changed the "
                "file, or the download was corrupted: try again."
            )
        os.replace(tmp, target)  # atomic: no half-written file under the real name
    except urllib.error.URLError as exc:
        raise OSError(
            f"Could not download {remote.url}: {exc.reason}. Without "
            f"internet access, place the file at {target} (or point "
            f"${DATA_HOME_ENV} at a folder that holds it)."
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)


def _fetch_file(relative: str, data_home, download_if_missing: bool) -> Path:
    path = get_data_home(data_home) / relative
    if path.is_file():
        return path
    if not download_if_missing:
        raise FileNotFoundError(
            f"{path} does not exist and download_if_missing=False. Set data_home= or "
            f"${DATA_HOME_ENV} to the folder that holds {relative!r}."
        )
    _download(REMOTE_FILES[relative], path)
    return path


# --------------------------------------------------------------------------- readers
def _finish(rows: list[tuple], as_frame: bool):
    if as_frame:
        try:
            import pandas as pd
        except ImportError as exc:
            raise MissingDependencyError(
                "as_frame=True needs pandas: pip install 'aspectattn[pandas]'"
            ) from exc
        return pd.DataFrame(rows, columns=list(_COLUMNS))
    return [(r[0], r[1]) for r in rows], [r[2] for r in rows]


def _check_choice(name: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {value!r}.")


def read_semeval2014(
    path, aspect: str = "category", conflict: str = "drop", as_frame: bool = False
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
    return _finish(rows, as_frame)


def read_semeval2015(
    path, aspect: str = "category", conflict: str = "drop", as_frame: bool = False
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
    return _finish(rows, as_frame)


# -------------------------------------------------------------------------- fetchers
def fetch_semeval2014(
    domain: str = "restaurants",
    subset: str = "train",
    aspect: str = "category",
    conflict: str = "drop",
    data_home=None,
    download_if_missing: bool = True,
    as_frame: bool = False,
):
    """SemEval-2014 Task 4 (Pontiki et al., 2014), restaurants or laptops.

    ``subset="train"`` is the corrected v2 training file, ``"test"`` the gold test
    file. With ``aspect="category"`` and conflict dropped, restaurants give 3518
    train pairs (2179 positive / 839 negative / 500 neutral) and 973 test pairs
    (657 / 222 / 94), the data of Wang et al. (2016). Laptops have aspect terms only.

    See :func:`read_semeval2014` for ``aspect``, ``conflict`` and ``as_frame``, and
    the module docstring for ``data_home``.
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
    return read_semeval2014(path, aspect, conflict, as_frame)


def fetch_semeval2015(
    subset: str = "train",
    aspect: str = "category",
    conflict: str = "drop",
    data_home=None,
    download_if_missing: bool = True,
    as_frame: bool = False,
):
    """SemEval-2015 Task 12 restaurants (Pontiki et al., 2015).

    See :func:`read_semeval2015` for ``aspect``, ``conflict`` and ``as_frame``.
    """
    _check_choice("subset", subset, {"train", "test"})
    name = {
        "train": "ABSA-15_Restaurants_Train_Final.xml",
        "test": "ABSA15_Restaurants_Test.xml",
    }[subset]
    path = _fetch_file(
        f"semeval2015_restaurants/{name}", data_home, download_if_missing
    )
    return read_semeval2015(path, aspect, conflict, as_frame)


def fetch_mams(
    aspect: str = "category",
    subset: str = "train",
    data_home=None,
    download_if_missing: bool = True,
    as_frame: bool = False,
):
    """MAMS (Jiang et al., 2019): every sentence has several aspects of different
    polarities.

    ``aspect="category"`` is MAMS-ACSA, ``"term"`` MAMS-ATSA. The ACSA and ATSA
    versions were split separately from one pool of sentences: when evaluating on
    one version, train on that version only.
    """
    _check_choice("aspect", aspect, {"category", "term"})
    _check_choice("subset", subset, {"train", "val"})
    folder = "mams_acsa" if aspect == "category" else "mams_atsa"
    path = _fetch_file(f"{folder}/{subset}.xml", data_home, download_if_missing)
    return read_semeval2014(path, aspect, "drop", as_frame)


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
