"""Terms that name the same aspect, grouped: what the review report counts.

A term's aspect is its *key*: the term lower-cased (as the tokenizer of its
language lower-cases: Turkish ``I`` is ``ı``), its spaces collapsed, and, in
English only, its last word made singular by the regular endings (``screens``
-> ``screen``, ``batteries`` -> ``battery``, ``dishes`` -> ``dish``; ``glass``,
``menus``... keep their ``s``) -- unless that word is written as a name, with a
capital and then small letters where the sentence does not begin with it
(``Windows``, ``Pages``, ``Mavericks`` stay themselves; an acronym's plural,
``DVDs``, is a plural). A user's table (term -> aspect, its terms keyed the
same way) names groups beyond that: ``{"battery": "battery life"}``.

Over a whole analysis, :func:`group_aspects` then joins the keys a person would
read as one aspect: the spellings that differ only in spaces and punctuation
(``track pad``, ``trackpad``; ``os x``, ``osx``), in English a plural with its
singular whatever the case (``Windows``, ``window``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from .._validation import _short
from ..exceptions import InputError
from ..text.tokens import Tokenizer

__all__ = [
    "aspect_key",
    "AspectNames",
    "opens_sentence",
    "check_aspect_names",
    "variant_key",
    "group_aspects",
]

_SPACES = re.compile(r"\s+")
#: English endings that are not a plural's ``s``.
_NOT_PLURAL = ("ss", "us", "is", "os")


def _singular(word: str) -> str:
    if len(word) <= 3 or not word.endswith("s") or word.endswith(_NOT_PLURAL):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zes")):
        return word[:-2]
    return word[:-1]


def _a_name(term: str, opens_sentence: bool | None) -> bool:
    """Whether the term's last word is written as a name (``Windows``): a capital
    then small letters, not where the sentence begins with it (nor where that is
    not known); an acronym's plural (``DVDs``) is no name."""
    words = term.split()
    if not words or opens_sentence is None or (opens_sentence and len(words) == 1):
        return False
    last = words[-1]
    return last[:1].isupper() and not last.isupper() and not last[:-1].isupper()


def aspect_key(
    term: str, language: str | None = "en", opens_sentence: bool | None = None
) -> str:
    """The key that groups ``term`` with the other spellings of its aspect;
    ``opens_sentence``: whether the term is the first word(s) of its sentence,
    where a capital says nothing (None: not known, so no capital does)."""
    key = _SPACES.sub(" ", Tokenizer(language=language).normalize(term)).strip()
    if language != "en" or not key or _a_name(term, opens_sentence):
        return key
    head, _, last = key.rpartition(" ")
    return f"{head} {_singular(last)}".strip()


def opens_sentence(text: str, start: int) -> bool:
    """Whether no letter or digit of ``text`` comes before ``start``."""
    return not any(c.isalnum() for c in text[:start])


#: Entries of an ``aspect_names`` table, at most (a model file holds it).
MAX_ASPECT_NAMES = 1_000_000


def check_aspect_names(names, what: str = "aspect_names") -> dict | None:
    """``names`` (None, or a dict of non-empty str terms to non-empty str aspect
    names), checked: the same rule for a pipeline's parameter, its model file
    and the ONNX runtime's.

    Raises
    ------
    InputError
        Anything else, naming the first bad entry.
    """
    if names is None:
        return None
    if not isinstance(names, dict):
        raise InputError(
            f"{what} must be None or a dict of terms to aspect names, e.g. "
            f"{{'battery': 'battery life'}}; got a {type(names).__name__}."
        )
    if len(names) > MAX_ASPECT_NAMES:
        raise InputError(f"{what} has more than {MAX_ASPECT_NAMES:,} entries.")
    for term, name in names.items():
        if not (isinstance(term, str) and term.strip()) or not (
            isinstance(name, str) and name.strip()
        ):
            raise InputError(
                f"{what} must map terms (non-empty strings) to aspect names "
                f"(non-empty strings); got {_short(term)}: {_short(name)}."
            )
    return names


class AspectNames:
    """Terms -> aspect names: :func:`aspect_key`, then the user's table.

    Parameters
    ----------
    table : dict of str to str or None
        A term's aspect where the keys do not group it (``{"battery":
        "battery life"}``); its terms are keyed as the extracted ones.
    language : str or None
    """

    def __init__(self, table: dict | None, language: str | None):
        self.language = language
        self.table = {}
        for term, name in (table or {}).items():  # "Windows": the name, or windows
            for where in (None, False):
                self.table.setdefault(aspect_key(str(term), language, where), str(name))

    def __call__(self, term: str, opens_sentence: bool | None = None) -> str:
        key = aspect_key(term, self.language, opens_sentence)
        return self.table.get(key, key)


def variant_key(key: str, language: str | None = "en") -> str:
    """What the spellings of one aspect share: ``key`` (an :func:`aspect_key`)
    without its spaces, hyphens and other punctuation -- letters, digits and
    marks of any script stay -- and, in English, made singular even where it is a
    name: ``"track pad"``, ``"track-pads"`` and ``"trackpad"`` give
    ``"trackpad"``; ``"windows"`` gives ``"window"``. A key of punctuation alone
    is itself."""
    compact = "".join(c for c in key if unicodedata.category(c)[0] in "LNM")
    if not compact:
        return key
    return _singular(compact) if language == "en" else compact


def group_aspects(
    counts: Mapping[str, int], language: str | None = "en", named: Iterable = ()
) -> dict[str, list[str]]:
    """Aspect keys grouped into the aspects a person would read.

    Two keys join when their :func:`variant_key` is the same: ``track pad`` and
    ``trackpad``, ``os x`` and ``osx``, ``windows`` and ``window``. The user's
    own aspect names (``named``) are never joined with each other. Acronyms are
    not joined by their letters: the gold laptop terms hold four expansions of
    ``os`` (``operating system``, ``online service``...) and the one expansion
    of ``ram`` there is ``representive at microsoft``. Nor by how close a model
    places them: on the laptop terms the joint LSTM's closest pairs are
    ``speed`` and ``storage``, ``button`` and ``staff``, with ``os`` and
    ``operating system`` 2,740th of 16,110 (``python -m benchmarks
    term_neighbours``).

    Parameters
    ----------
    counts : mapping of str to int
        Each key and its mentions.
    language : str or None
        The keys' language: only English makes plurals singular.
    named : iterable of str
        The aspect names of the user's ``aspect_names`` table.

    Returns
    -------
    dict of str to list of str
        Each aspect's name -- the user's name in its group, else its most
        mentioned key (then the shortest, then the first in alphabetical order)
        -- and its keys, most mentioned first.

    Examples
    --------
    >>> from aspectattn.extraction.aspects import group_aspects
    >>> group_aspects({"os x": 1, "osx": 2, "track pad": 1, "trackpad": 3})
    {'osx': ['osx', 'os x'], 'trackpad': ['trackpad', 'track pad']}
    """
    named = set(named)
    by_variant: dict = {}
    for key in counts:
        by_variant.setdefault(variant_key(key, language), []).append(key)

    def rank(key):
        return (-counts[key], len(key), key)

    groups = {}
    for keys in by_variant.values():
        keys.sort(key=rank)
        names = [key for key in keys if key in named]
        for name in names[1:]:  # a second name of the user's stays its own
            groups[name] = [name]
        groups[names[0] if names else keys[0]] = [k for k in keys if k not in names[1:]]
    return dict(sorted(groups.items()))
