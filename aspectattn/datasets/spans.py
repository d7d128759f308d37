"""Aspect terms as character spans, one entry per sentence: what an aspect term
extractor (:class:`~aspectattn.AspectTermExtractor`) and the end-to-end pipeline
(:class:`~aspectattn.AspectSentimentPipeline`) train and are scored on.

Every reader returns ``(texts, y)``: ``texts[i]`` a sentence, ``y[i]`` the list of
its terms as ``(start, end, polarity)`` triples, in text order -- an empty list
for a sentence without any. Sentences without terms are kept (an extractor learns
from them what is *not* an aspect); the same span is listed once.

=======================  ======================================================
format                   what it reads
=======================  ======================================================
``"semeval2014"``        SemEval-2014 Task 4 XML, MAMS-ATSA (``<aspectTerm>``)
``"semeval2015"``        SemEval-2015/2016 XML (``<Opinion target=...>``;
                         ``target="NULL"`` is an opinion without a span)
``"apc"``                PyABSA's three-line files: the lines of one sentence
                         grouped (it holds no sentence without terms)
=======================  ======================================================
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..exceptions import InputError
from ._files import _check_choice, _fetch_file
from .apc import SEMEVAL2016_LANGUAGES, read_apc

__all__ = ["read_term_spans", "fetch_term_spans", "SPAN_DATASETS"]

_SEMEVAL2016 = "semeval2016_multilingual"
#: Data-set name -> (file of each split under the data home, format).
SPAN_DATASETS = {
    "semeval2014-restaurants": (
        {
            "train": "semeval2014_restaurants/Restaurants_Train_v2.xml",
            "test": "semeval2014_restaurants/Restaurants_Test_Gold.xml",
        },
        "semeval2014",
    ),
    "semeval2014-laptops": (
        {
            "train": "semeval2014_laptops/Laptop_Train_v2.xml",
            "test": "semeval2014_laptops/Laptops_Test_Gold.xml",
        },
        "semeval2014",
    ),
    "semeval2015-restaurants": (
        {
            "train": "semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml",
            "test": "semeval2015_restaurants/ABSA15_Restaurants_Test.xml",
        },
        "semeval2015",
    ),
    "mams": (
        {"train": "mams_atsa/train.xml", "val": "mams_atsa/val.xml"},
        "semeval2014",
    ),
    **{
        f"semeval2016-{code}": (
            {
                split: f"{_SEMEVAL2016}/restaurants_{split}_{language}.xml.dat"
                for split in ("train", "test")
            },
            "apc",
        )
        for language, code in SEMEVAL2016_LANGUAGES.items()
    },
}
FORMATS = {"auto", "semeval2014", "semeval2015", "apc"}


def read_term_spans(path, format: str = "auto", conflict: str = "keep"):
    """Read the aspect terms of a file as character spans, per sentence.

    Parameters
    ----------
    path : str or path-like
    format : {"auto", "semeval2014", "semeval2015", "apc"}, default="auto"
        ``"auto"``: XML with ``<Opinion>`` elements is SemEval-2015/2016, other
        XML SemEval-2014 (and MAMS), anything else APC.
    conflict : {"keep", "drop"}, default="keep"
        A term labelled ``conflict`` (or, in SemEval-2015/2016, one with opinions
        of different polarity) is kept with the polarity ``"conflict"`` -- it is
        an aspect term all the same, and SemEval scores its extraction -- or
        dropped.

    Returns
    -------
    texts : list of str
    y : list of list of (int, int, str)
        Each sentence's terms, ``(start, end, polarity)`` with
        ``texts[i][start:end]`` the term, sorted by position.

    Raises
    ------
    InputError
        A span outside its sentence or that does not hold the term it names.
    """
    _check_choice("format", format, FORMATS)
    _check_choice("conflict", conflict, {"keep", "drop"})
    if format == "auto":
        format = _sniff(path)
    if format == "apc":
        items, labels = read_apc(path)
        texts, y = _group_apc(items, labels)
    else:
        texts, y = _read_xml(path, format)
    for i, (text, spans) in enumerate(zip(texts, y, strict=True)):
        for start, end, _ in spans:
            if not 0 <= start < end <= len(text):
                raise InputError(
                    f"{path}: sentence {i} has the span ({start}, {end}) outside "
                    f"its {len(text)} characters"
                )
    if conflict == "drop":
        y = [[s for s in spans if s[2] != "conflict"] for spans in y]
    return texts, y


def _sniff(path) -> str:
    with open(path, "rb") as f:
        head = f.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return "apc"
    root = ET.parse(path).getroot()
    return "semeval2015" if root.find(".//Opinion") is not None else "semeval2014"


def _read_xml(path, format: str):
    texts, y = [], []
    for sentence in ET.parse(path).getroot().iter("sentence"):
        text = sentence.findtext("text") or ""
        found: dict[tuple[int, int], set] = {}
        if format == "semeval2014":
            elements, name = sentence.iter("aspectTerm"), "term"
        else:
            elements, name = sentence.iter("Opinion"), "target"
        for element in elements:
            term = element.get(name)
            if format == "semeval2015" and term in (None, "NULL"):
                continue  # an opinion about the sentence, with no span
            span = (_int(path, element, "from"), _int(path, element, "to"))
            if term is not None and text[span[0] : span[1]] != term:
                raise InputError(
                    f"{path}: the span {span} of {text[:60]!r} holds "
                    f"{text[span[0] : span[1]]!r}, not the term {term!r}"
                )
            found.setdefault(span, set()).add(element.get("polarity"))
        texts.append(text)
        y.append(
            [
                (start, end, p.pop() if len(p) == 1 else "conflict")
                for (start, end), p in sorted(found.items())
            ]
        )
    return texts, y


def _int(path, element, key: str) -> int:
    value = element.get(key)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(
            f"{path}: an aspect term has {key}={value!r}, not a character offset"
        ) from None


def _group_apc(items, labels):
    """One entry per distinct sentence of an APC file (its examples each mark
    one term; a sentence with three terms is three examples)."""
    spans: dict[str, dict] = {}
    for (text, _, span), label in zip(items, labels, strict=True):
        spans.setdefault(text, {}).setdefault(tuple(span), set()).add(label)
    texts = list(spans)
    y = [
        [
            (start, end, p.pop() if len(p) == 1 else "conflict")
            for (start, end), p in sorted(spans[t].items())
        ]
        for t in texts
    ]
    return texts, y


def fetch_term_spans(
    name: str,
    subset: str = "train",
    conflict: str = "keep",
    data_home=None,
    download_if_missing: bool = True,
):
    """The aspect terms of a registered data set as spans, per sentence
    (:func:`read_term_spans`).

    Parameters
    ----------
    name : str
        One of :data:`SPAN_DATASETS`: ``"semeval2014-restaurants"``,
        ``"semeval2014-laptops"``, ``"semeval2015-restaurants"``, ``"mams"``
        (MAMS-ATSA; splits ``"train"``, ``"val"``) or ``"semeval2016-<code>"``
        for the SemEval-2016 restaurants in ``nl``, ``fr``, ``ru``, ``es``,
        ``tr`` (their APC files hold only sentences with terms).
    subset : str, default="train"
    conflict : {"keep", "drop"}, default="keep"

    Examples
    --------
    >>> from aspectattn.datasets import fetch_term_spans
    >>> texts, y = fetch_term_spans("semeval2014-laptops", "test")
    >>> len(texts), texts[1], y[1]
    (800, 'tech support would not fix the problem unless I bought your plan for \
$150 plus.', [(0, 12, 'negative')])
    """
    _check_choice("name", name, set(SPAN_DATASETS))
    files, format = SPAN_DATASETS[name]
    _check_choice("subset", subset, set(files))
    path = _fetch_file(files[subset], data_home, download_if_missing)
    return read_term_spans(path, format, conflict)
