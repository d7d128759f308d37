"""Terms that name the same aspect, grouped: what the review report counts.

A term's aspect is its *key*: the term lower-cased (as the tokenizer of its
language lower-cases: Turkish ``I`` is ``ı``), its spaces collapsed, and, in
English only, its last word made singular by the regular endings (``screens``
-> ``screen``, ``batteries`` -> ``battery``, ``dishes`` -> ``dish``; ``glass``,
``menus``... keep their ``s``). A user's table (term -> aspect, its terms keyed
the same way) names groups beyond that: ``{"battery": "battery life"}``.
"""

from __future__ import annotations

import re

from ..text.tokens import Tokenizer

__all__ = ["aspect_key", "AspectNames"]

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


def aspect_key(term: str, language: str | None = "en") -> str:
    """The key that groups ``term`` with the other spellings of its aspect."""
    key = _SPACES.sub(" ", Tokenizer(language=language).normalize(term)).strip()
    if language != "en" or not key:
        return key
    head, _, last = key.rpartition(" ")
    return f"{head} {_singular(last)}".strip()


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
        self.table = {
            aspect_key(str(k), language): str(v) for k, v in (table or {}).items()
        }

    def __call__(self, term: str) -> str:
        key = aspect_key(term, self.language)
        return self.table.get(key, key)
