"""Part-of-speech tagging for the POS-weighted baseline.

The default tagger is NLTK's averaged perceptron (``nltk.pos_tag``), loaded once per
process and never stored in a fitted estimator. Any callable that maps a list of tokens
to a list of tags (Penn Treebank or universal) can replace it. Tags are mapped to the
universal tag set of Petrov et al. (2012); the mapping is built in, so NLTK's
``universal_tagset`` resource is not needed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ..exceptions import MissingDependencyError

__all__ = ["UNIVERSAL_TAGS", "to_universal", "tag_sentences", "nltk_tagger"]

UNIVERSAL_TAGS = (
    "ADJ",
    "ADP",
    "ADV",
    "CONJ",
    "DET",
    "NOUN",
    "NUM",
    "PRT",
    "PRON",
    "VERB",
    ".",
    "X",
)

_PTB = {
    "JJ": "ADJ",
    "JJR": "ADJ",
    "JJS": "ADJ",
    "RB": "ADV",
    "RBR": "ADV",
    "RBS": "ADV",
    "WRB": "ADV",
    "NN": "NOUN",
    "NNS": "NOUN",
    "NNP": "NOUN",
    "NNPS": "NOUN",
    "VB": "VERB",
    "VBD": "VERB",
    "VBG": "VERB",
    "VBN": "VERB",
    "VBP": "VERB",
    "VBZ": "VERB",
    "MD": "VERB",
    "IN": "ADP",
    "CC": "CONJ",
    "DT": "DET",
    "PDT": "DET",
    "WDT": "DET",
    "EX": "DET",
    "CD": "NUM",
    "RP": "PRT",
    "TO": "PRT",
    "POS": "PRT",
    "PRP": "PRON",
    "PRP$": "PRON",
    "WP": "PRON",
    "WP$": "PRON",
    "FW": "X",
    "LS": "X",
    "SYM": "X",
    "UH": "X",
}
# spaCy's universal tags that differ from Petrov et al.'s names
_ALIASES = {
    "CCONJ": "CONJ",
    "SCONJ": "CONJ",
    "PROPN": "NOUN",
    "AUX": "VERB",
    "PART": "PRT",
    "PUNCT": ".",
    "INTJ": "X",
    "SYM": "X",
    "SPACE": ".",
}

TAGGER_PACKAGE = "averaged_perceptron_tagger_eng"
_lock = threading.Lock()
_nltk_tagger = None


def to_universal(tag: str) -> str:
    """Map a Penn Treebank, spaCy or universal tag to the universal tag set."""
    if tag in UNIVERSAL_TAGS:
        return tag
    if tag in _ALIASES:
        return _ALIASES[tag]
    if tag in _PTB:
        return _PTB[tag]
    return "." if not any(c.isalnum() for c in tag) else "X"


def nltk_tagger() -> Callable[[list[str]], list[str]]:
    """NLTK's averaged-perceptron tagger, loaded once per process.

    Raises
    ------
    MissingDependencyError
        NLTK is not installed.
    LookupError
        The tagger model is not installed and could not be downloaded; the message
        gives the command that installs it.
    """
    global _nltk_tagger
    with _lock:
        if _nltk_tagger is not None:
            return _nltk_tagger
        try:
            import nltk
            from nltk.tag import PerceptronTagger
        except ImportError as exc:
            raise MissingDependencyError(
                "The POS-weighted baseline needs NLTK for its default tagger: "
                "pip install 'aspectattn[pos]' (or pass tagger=your_function)."
            ) from exc
        try:
            tagger = PerceptronTagger()
        except LookupError:
            # For users with the internet: fetch the model as nltk.download does.
            try:
                ok = nltk.download(TAGGER_PACKAGE, quiet=True, raise_on_error=True)
            except Exception:  # noqa: BLE001 - any failure means "not available"
                ok = False
            if not ok:
                raise LookupError(
                    f"NLTK's POS tagger model '{TAGGER_PACKAGE}' is not installed and "
                    "could not be downloaded. Install it with:\n"
                    f"    python -m nltk.downloader {TAGGER_PACKAGE}\n"
                    "or point the NLTK_DATA environment variable at a folder that "
                    f"holds taggers/{TAGGER_PACKAGE}/."
                ) from None
            tagger = PerceptronTagger()
        _nltk_tagger = tagger.tag
        return _nltk_tagger


def _reset_nltk_tagger() -> None:
    global _nltk_tagger
    with _lock:
        _nltk_tagger = None


def tag_sentences(token_lists: Sequence[Sequence[str]], tagger=None) -> list[list[str]]:
    """Universal POS tags for each token list.

    Parameters
    ----------
    token_lists : sequence of list of str
        Each distinct list should be passed once: tagging is the slow part.
    tagger : callable or None
        ``tagger(tokens) -> tags``, one tag (or ``(token, tag)`` pair) per token;
        ``None`` uses NLTK's perceptron tagger.
    """
    fn = nltk_tagger() if tagger is None else tagger
    out = []
    for tokens in token_lists:
        tokens = list(tokens)
        tags = list(fn(tokens)) if tokens else []
        if len(tags) != len(tokens):
            raise ValueError(
                f"The tagger returned {len(tags)} tags for "
                f"{len(tokens)} tokens; it must return one per token."
            )
        out.append([to_universal(t[1] if isinstance(t, tuple) else t) for t in tags])
    return out
