"""Which language a text is in, as far as the tokenizer and the sentence splitter
need to know: English or not (torch-free).

This is the one place with English knowledge for ``language="auto"``: a text is
taken as English when English function words are a good share of its words (they
are 40-50% of running English; a few percent of other Latin-script languages'
words look like them). Every other language gets the rules of no language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["LANGUAGE_CODE", "looks_english", "auto_language", "ENGLISH_FUNCTION_WORDS"]

#: An ISO 639-1/-3 code, optionally with a region or script: "en", "pt-BR", "hy".
LANGUAGE_CODE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")

#: Frequent English words that other languages written in Latin letters seldom use.
ENGLISH_FUNCTION_WORDS = frozenset(
    """the and is was were are of to it this that with for but not very they we
    you my our have had has be been at on an or so too would could their there
    what which when who just really also here from all""".split()
)
#: The share of function words above which a text is taken as English.
ENGLISH_SHARE = 0.15
_WORD = re.compile(r"[^\W\d_]+")


def looks_english(texts: Iterable[str], sample: int = 5000) -> bool:
    """Whether the words of ``texts`` (the first ``sample`` texts) look English."""
    n = hits = 0
    for k, text in enumerate(texts):
        if k >= sample:
            break
        words = _WORD.findall(text.lower())
        n += len(words)
        hits += sum(w in ENGLISH_FUNCTION_WORDS for w in words)
    return n > 0 and hits / n >= ENGLISH_SHARE


def auto_language(texts: Iterable[str]) -> str | None:
    """What ``language="auto"`` stands for with ``texts``: ``"en"`` when they look
    English, else ``None`` (no language's rules)."""
    return "en" if looks_english(texts) else None
