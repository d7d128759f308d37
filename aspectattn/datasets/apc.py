"""The three-line "APC" format of PyABSA and its ABSADatasets, and SemEval-2016
Task 5 restaurants in Dutch, French, Russian, Spanish and Turkish in it.

Each example is three lines: the sentence with the aspect term replaced by ``$T$``,
the term, and the polarity::

    The $T$ was great but the waiter was rude.
    pasta
    Positive

:func:`read_apc` reads any such file (a user's own too) as ``(text, term, (start,
end))`` items: the sentence with the term put back, and the term's character span.
"""

from __future__ import annotations

import warnings

from .._fields import file_lines, open_regular
from ..exceptions import AspectAttnWarning, InputError
from ._files import _check_choice, _fetch_file
from ._registry import Dataset, register

__all__ = ["read_apc", "fetch_semeval2016", "SEMEVAL2016_LANGUAGES", "PLACEHOLDER"]

PLACEHOLDER = "$T$"
#: The polarities as written in APC files (PyABSA also writes -1 / 0 / 1) -> labels.
POLARITIES = {
    "positive": "positive",
    "negative": "negative",
    "neutral": "neutral",
    "1": "positive",
    "-1": "negative",
    "0": "neutral",
}
#: Largest APC file read (the largest public one is a few MB).
MAX_BYTES = 200 * 2**20
#: The SemEval-2016 restaurant languages at hand (file name -> language code).
SEMEVAL2016_LANGUAGES = {
    "dutch": "nl",
    "french": "fr",
    "russian": "ru",
    "spanish": "es",
    "turkish": "tr",
}


def read_apc(path, *, missing_term: str = "drop", encoding: str = "utf-8"):
    """Read an APC file: ``(X, y)`` with ``X`` a list of ``(text, term, (start,
    end))`` items and ``y`` their labels (``"positive"``, ``"negative"``,
    ``"neutral"``).

    Parameters
    ----------
    path : str or path-like
    missing_term : {"drop", "keep", "error"}, default="drop"
        What to do with an example whose sentence has no ``$T$`` (the term does not
        occur in it as written; 125 of the Dutch training sentences). ``"drop"``:
        leave it out, with a warning that counts them; ``"keep"``: keep it with no
        span (``(text, term, None)``: the models that read the term's place then
        refuse it, the others use it); ``"error"``: raise.
    encoding : str, default="utf-8"

    Raises
    ------
    InputError
        The file is not three-line APC (a count of lines that is not a multiple of
        three, an empty sentence or term, an unknown polarity), naming the line.
    """
    _check_choice("missing_term", missing_term, {"drop", "keep", "error"})
    with open_regular(path) as (f, info):
        if info.st_size > MAX_BYTES:
            raise InputError(f"{path} is larger than {MAX_BYTES // 2**20} MB")
        raw = f.read()
    try:
        text = raw.decode(encoding).removeprefix("\ufeff")
    except (UnicodeDecodeError, LookupError) as exc:
        raise InputError(f"{path} is not {encoding} text: {exc}") from None
    lines = file_lines(text)  # line ends only (a sentence may hold U+2028...)
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) % 3:
        raise InputError(
            f"{path} has {len(lines)} lines, not a multiple of 3: APC files hold "
            "three lines per example (sentence with $T$, term, polarity)"
        )
    X, y, n_missing = [], [], 0
    for k in range(0, len(lines), 3):
        sentence, term, polarity = (line.strip() for line in lines[k : k + 3])
        where = f"{path}, line {k + 1}"
        if not sentence or not term:
            raise InputError(f"{where}: an empty sentence or term")
        label = POLARITIES.get(polarity.lower())
        if label is None:
            raise InputError(
                f"{where}: the polarity {polarity[:40]!r} is not one of Positive, "
                "Negative, Neutral (or 1, -1, 0)"
            )
        if PLACEHOLDER not in sentence:
            n_missing += 1
            if missing_term == "error":
                raise InputError(f"{where}: the sentence has no {PLACEHOLDER}")
            if missing_term == "drop":
                continue
            X.append((sentence, term, None))
        else:
            start = sentence.index(PLACEHOLDER)
            full = sentence.replace(PLACEHOLDER, term)
            X.append((full, term, (start, start + len(term))))
        y.append(label)
    if n_missing and missing_term == "drop":
        warnings.warn(
            f"{path}: {n_missing} of {len(lines) // 3} examples have no "
            f"{PLACEHOLDER} in their sentence (the term does not occur as written); "
            "they were left out (missing_term='keep' keeps them without a span).",
            AspectAttnWarning,
            stacklevel=2,
        )
    if not X:
        raise InputError(f"{path} has no example")
    return X, y


def fetch_semeval2016(
    language: str = "russian",
    subset: str = "train",
    data_home=None,
    download_if_missing: bool = True,
    missing_term: str = "drop",
):
    """SemEval-2016 Task 5 restaurant reviews in ``language`` (``"dutch"``,
    ``"french"``, ``"russian"``, ``"spanish"``, ``"turkish"``): aspect-term
    polarity, as :func:`read_apc` reads it. ``subset="test"`` is the gold test set:
    never select anything on it."""
    _check_choice("language", language, set(SEMEVAL2016_LANGUAGES))
    _check_choice("subset", subset, {"train", "test"})
    path = _fetch_file(
        f"semeval2016_multilingual/restaurants_{subset}_{language}.xml.dat",
        data_home,
        download_if_missing,
    )
    return read_apc(path, missing_term=missing_term)


for _language, _code in SEMEVAL2016_LANGUAGES.items():
    register(
        Dataset(
            f"semeval2016-{_code}",
            fetch_semeval2016,
            {"language": _language},
            splits=("train", "test"),
            aspects="term",
            description=f"SemEval-2016 restaurants in {_language.title()}: terms",
            always_spans=True,
        )
    )
