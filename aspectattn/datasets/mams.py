"""MAMS (Jiang et al., 2019): fetcher and registry entries."""

from __future__ import annotations

from ._files import _check_choice, _fetch_file
from ._registry import Dataset, register
from .semeval import read_semeval2014


def fetch_mams(
    aspect: str = "category",
    subset: str = "train",
    data_home=None,
    download_if_missing: bool = True,
    as_frame: bool = False,
    spans: bool = False,
):
    """MAMS (Jiang et al., 2019): every sentence has several aspects of different
    polarities.

    ``aspect="category"`` is MAMS-ACSA, ``"term"`` MAMS-ATSA. The ACSA and ATSA
    versions were split separately from one pool of sentences: when evaluating on
    one version, train on that version only. See
    :func:`~aspectattn.datasets.read_semeval2014` for ``as_frame`` and ``spans``.
    """
    _check_choice("aspect", aspect, {"category", "term"})
    _check_choice("subset", subset, {"train", "val"})
    folder = "mams_acsa" if aspect == "category" else "mams_atsa"
    path = _fetch_file(f"{folder}/{subset}.xml", data_home, download_if_missing)
    return read_semeval2014(path, aspect, "drop", as_frame, spans)


register(
    Dataset(
        "mams-category",
        fetch_mams,
        {"aspect": "category"},
        splits=("train", "val"),
        table="mams",
        description="MAMS-ACSA: every sentence has aspect categories that disagree",
    )
)
register(
    Dataset(
        "mams-term",
        fetch_mams,
        {"aspect": "term"},
        splits=("train", "val"),
        aspects="term",
        description="MAMS-ATSA: every sentence has aspect terms that disagree",
    )
)
