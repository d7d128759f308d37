"""A behavioural suite for aspect-level sentiment (after CheckList, Ribeiro et al.,
ACL 2020): sentences made from templates and the words of
:mod:`aspectattn.evaluation.lexicon` (English), where the aspects of one sentence
may disagree, and what a model must answer on each.

Three kinds of test:

MFT (minimum functionality)
    each aspect gets its own clause's polarity: two clauses of opposite opinion
    joined by a connective ("but", "although", "while", ", ", ";", "and yet",
    "whereas"), in both orders; negated opinions ("not delicious", "never
    disappointing"); intensified and hedged ones; bare adjectives ("Great pasta,
    rude waiter."); three aspects in one sentence.
INV (invariance)
    the target's label must not change when a sentence about nothing in
    particular is added, when the clauses swap places, or when the other
    aspect's noun is replaced by another's (scored against the model's own
    answer on the unchanged sentence).
DIR (directional)
    flipping the target's opinion flips its label; flipping the other aspect's
    leaves it (scored against the label the change must give).

The suite measures; it must never choose what a model learns from (a test
checks that no suite sentence is in the data sets the project reads). Use the
validation side of your own data to choose settings, then report the suite.

Examples
--------
>>> from aspectattn.evaluation import behaviour_suite
>>> items = behaviour_suite(domains=["restaurants"])
>>> sorted({item["type"] for item in items})
['DIR', 'INV', 'MFT']
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError
from .lexicon import DOMAINS, NEGATIVE, NEUTRAL_CLAUSES, POSITIVE, VERDICTS, Aspect

__all__ = [
    "behaviour_suite",
    "score_behaviour",
    "format_behaviour",
    "score_detection",
    "TESTS",
]

#: Sentences per domain and test (MFT tests give an item per aspect).
SIZES = {
    "contrast": 60,
    "negation": 40,
    "intensity": 40,
    "bare adjectives": 30,
    "three aspects": 20,
    "add a neutral sentence": 40,
    "swap the clauses": 40,
    "swap the other aspect": 40,
    "flip the target": 50,
    "flip the other aspect": 50,
}
#: Test name -> its type.
TESTS = {
    **dict.fromkeys(
        ("contrast", "negation", "intensity", "bare adjectives", "three aspects"),
        "MFT",
    ),
    **dict.fromkeys(
        ("add a neutral sentence", "swap the clauses", "swap the other aspect"),
        "INV",
    ),
    **dict.fromkeys(("flip the target", "flip the other aspect"), "DIR"),
}
_PAST = {"restaurants", "hotels"}  # told in the past tense; devices in the present
# (joiner before the second clause, the sentence's opening)
_CONNECTIVES = (
    (" but ", ""),
    (", although ", ""),
    (", ", "While "),
    ("; ", ""),
    (", and yet ", ""),
    (", ", ""),
    (" whereas ", ""),
)
_INTENSIFIERS = ("really", "absolutely", "incredibly", "truly")
_HEDGES = {
    "positive": ("pretty", "quite", "fairly"),
    "negative": ("a bit", "slightly", "somewhat", "rather"),
}
_FLIP = {"positive": "negative", "negative": "positive"}


# ------------------------------------------------------------------ opinions
def _adjective(aspect: Aspect, polarity: str, rng) -> str:
    own = aspect.positive if polarity == "positive" else aspect.negative
    shared = POSITIVE if polarity == "positive" else NEGATIVE
    pool = own + shared
    return pool[int(rng.integers(len(pool)))]


def _opinion(aspect: Aspect, polarity: str, style: str, rng) -> str:
    """What follows the verb: an adjective, intensified, hedged or negated so
    that the whole says ``polarity``."""
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    if style == "intensity":
        if rng.random() < 0.5:
            return f"{pick(_INTENSIFIERS)} {_adjective(aspect, polarity, rng)}"
        return f"{pick(_HEDGES[polarity])} {_adjective(aspect, polarity, rng)}"
    if style == "negation":
        if polarity == "positive":
            return pick(
                (
                    "never disappointing",
                    "not bad at all",
                    f"far from {_adjective(aspect, 'negative', rng)}",
                )
            )
        return f"{pick(('not', 'never', 'far from'))} " + _adjective(
            aspect, "positive", rng
        )
    return _adjective(aspect, polarity, rng)


# ------------------------------------------------------------------ sentences
class _Sentence:
    """Text built from pieces, keeping each aspect term's character span."""

    def __init__(self):
        self.text, self.spans = "", {}

    def add(self, piece: str, key=None) -> _Sentence:
        if key is not None:
            self.spans[key] = (len(self.text), len(self.text) + len(piece))
        self.text += piece
        return self

    def after(self, prefix: str) -> _Sentence:
        """A new sentence: ``prefix`` and then this one, its spans moved."""
        out, shift = _Sentence(), len(prefix)
        out.text = prefix + self.text
        out.spans = {k: (a + shift, b + shift) for k, (a, b) in self.spans.items()}
        return out


def _clause(
    sentence: _Sentence,
    key,
    aspect: Aspect,
    opinion: str,
    domain: str,
    capital: bool = False,
) -> None:
    verb = (
        ("were" if aspect.plural else "was")
        if domain in _PAST
        else ("are" if aspect.plural else "is")
    )
    sentence.add("The " if capital else "the ").add(aspect.term, key)
    sentence.add(f" {verb} {opinion}")


def _two_clauses(domain, first, second, connective) -> _Sentence:
    """``first`` and ``second``: (key, aspect, opinion)."""
    joiner, opening = connective
    sentence = _Sentence().add(opening)
    _clause(sentence, *first, domain, capital=not opening)
    sentence.add(joiner)
    _clause(sentence, *second, domain)
    return sentence.add(".")


def _pick_aspects(domain: str, n: int, rng) -> list[Aspect]:
    """``n`` aspects of ``domain``, of different categories."""
    aspects = list(DOMAINS[domain])
    chosen: list[Aspect] = []
    for k in rng.permutation(len(aspects)):
        if all(a.category != aspects[k].category for a in chosen):
            chosen.append(aspects[k])
        if len(chosen) == n:
            return chosen
    raise ValueError(f"{domain} has fewer than {n} categories")  # (never: lexicon)


def _item(test, domain, sentence, key, aspect, expected, **extra) -> dict:
    return {
        "type": TESTS[test],
        "test": test,
        "domain": domain,
        "text": sentence.text,
        "term": aspect.term,
        "span": sentence.spans[key],
        "category": aspect.category,
        "expected": expected,
        **extra,
    }


def _polarities(rng, opposite: bool = True) -> tuple[str, str]:
    first = "positive" if rng.random() < 0.5 else "negative"
    second = (
        _FLIP[first] if opposite else ("positive" if rng.random() < 0.5 else "negative")
    )
    return first, second


def _mft(domain: str, test: str, rng) -> list[dict]:
    items = []
    for _ in range(SIZES[test]):
        if test == "three aspects":
            aspects = _pick_aspects(domain, 3, rng)
            polarity = [*_polarities(rng), None]
            polarity[2] = _FLIP[polarity[1]]
            sentence = _Sentence()
            for k, (aspect, pol) in enumerate(zip(aspects, polarity, strict=True)):
                if k:
                    sentence.add(", " if k == 1 else " and ")
                _clause(
                    sentence,
                    k,
                    aspect,
                    _opinion(aspect, pol, "plain", rng),
                    domain,
                    capital=k == 0,
                )
            sentence.add(".")
        elif test == "bare adjectives":
            aspects = _pick_aspects(domain, 2, rng)
            polarity = _polarities(rng)
            sentence = _Sentence()
            for k, (aspect, pol) in enumerate(zip(aspects, polarity, strict=True)):
                adjective = _adjective(aspect, pol, rng)
                if k == 0:
                    adjective = adjective[:1].upper() + adjective[1:]
                sentence.add(("" if k == 0 else ", ") + adjective + " ")
                sentence.add(aspect.term, k)
            sentence.add(".")
        else:
            aspects = _pick_aspects(domain, 2, rng)
            polarity = _polarities(rng)
            style = {"contrast": "plain"}.get(test, test)
            # negation and intensity: the styled opinion on one clause or both
            styles = [style, style]
            if style != "plain" and rng.random() < 0.5:
                styles[int(rng.integers(2))] = "plain"
            clauses = [
                (k, aspects[k], _opinion(aspects[k], polarity[k], styles[k], rng))
                for k in range(2)
            ]
            connective = _CONNECTIVES[int(rng.integers(len(_CONNECTIVES)))]
            sentence = _two_clauses(domain, *clauses, connective)
        for k, aspect in enumerate(aspects):
            items.append(_item(test, domain, sentence, k, aspect, polarity[k]))
    return items


def _variants(domain: str, test: str, rng) -> list[dict]:
    """INV and DIR items: a base sentence of two clauses and one change."""
    items = []
    for _ in range(SIZES[test]):
        aspects = _pick_aspects(domain, 2, rng)
        polarity = _polarities(rng, opposite=TESTS[test] == "INV")
        opinions = [
            _opinion(a, p, "plain", rng) for a, p in zip(aspects, polarity, strict=True)
        ]
        connective = _CONNECTIVES[int(rng.integers(len(_CONNECTIVES)))]
        target = int(rng.integers(2))
        clauses = [(k, aspects[k], opinions[k]) for k in range(2)]
        base = _two_clauses(domain, *clauses, connective)
        expected = polarity[target]
        if test == "add a neutral sentence":
            extra = NEUTRAL_CLAUSES[domain]
            clause = extra[int(rng.integers(len(extra)))]
            if rng.random() < 0.5:
                changed = base.after(clause + " ")
            else:
                changed = _two_clauses(domain, *clauses, connective).add(" " + clause)
        elif test == "swap the clauses":
            changed = _two_clauses(domain, clauses[1], clauses[0], connective)
        elif test == "swap the other aspect":
            other = 1 - target
            taken = {a.category for a in aspects}
            choices = [a for a in DOMAINS[domain] if a.category not in taken]
            swapped = choices[int(rng.integers(len(choices)))]
            clauses[other] = (
                other,
                swapped,
                _opinion(swapped, polarity[other], "plain", rng),
            )
            changed = _two_clauses(domain, *clauses, connective)
        else:  # DIR: flip the target's opinion, or the other's
            flipped = target if test == "flip the target" else 1 - target
            new = _FLIP[polarity[flipped]]
            clauses[flipped] = (
                flipped,
                aspects[flipped],
                _opinion(aspects[flipped], new, "plain", rng),
            )
            changed = _two_clauses(domain, *clauses, connective)
            if flipped == target:
                expected = new
        items.append(
            _item(
                test,
                domain,
                changed,
                target,
                aspects[target],
                expected,
                base_text=base.text,
                base_span=base.spans[target],
            )
        )
    return items


def _check_domains(domains) -> list[str]:
    """The domains asked for (all by default; one name alone is one domain),
    each one of :data:`DOMAINS`."""
    if isinstance(domains, str):  # "restaurants", not its letters
        domains = [domains]
    domains = list(DOMAINS) if domains is None else list(domains)
    unknown = sorted(set(domains) - set(DOMAINS))
    if unknown:
        raise ValueError(f"unknown domains {unknown}; the suite has {list(DOMAINS)}")
    return domains


def behaviour_suite(domains=None, random_state: int = 0) -> list[dict]:
    """The suite's items.

    Parameters
    ----------
    domains : str, list of str or None
        Among ``"restaurants"``, ``"laptops"``, ``"hotels"``, ``"phones"``; all by
        default.
    random_state : int or None, default=0
        The suite made with another seed has other sentences (the same tests);
        None: a suite drawn afresh at each call.

    Returns
    -------
    list of dict
        Each item: ``type`` (MFT, INV, DIR), ``test``, ``domain``, ``text``,
        ``term`` and its character ``span``, the term's ``category``, the
        ``expected`` label (``"positive"`` or ``"negative"``); INV and DIR items
        also the unchanged sentence (``base_text``, ``base_span``).
    """
    domains = _check_domains(domains)
    if random_state is None:  # (drawn once, so that domains stay apart)
        random_state = int(np.random.default_rng().integers(2**32))
    if not isinstance(random_state, (int, np.integer)) or random_state < 0:
        raise ValueError(
            f"random_state must be an int >= 0 or None, got {random_state!r}"
        )
    items = []
    for domain in domains:
        # (a domain's items are the same whatever other domains are asked for)
        rng = np.random.default_rng([random_state, list(DOMAINS).index(domain)])
        for test, kind in TESTS.items():
            make = _mft if kind == "MFT" else _variants
            items.extend(make(domain, test, rng))
    return items


# ------------------------------------------------------------------ scoring
def _aspect_inputs(estimator, items, text_key, span_key):
    """The pairs ``estimator`` reads for ``items`` (the term with its span, or
    its category), and which items it can answer at all."""
    aspect_type = getattr(estimator, "aspect_type_", None)
    if aspect_type == "category":
        known = {str(a) for a in np.asarray(estimator.aspects_).tolist()}
        keep = np.array([item["category"] in known for item in items], dtype=bool)
        X = [(item[text_key], item["category"]) for item in items]
    else:  # a term model
        keep = np.ones(len(items), dtype=bool)
        X = [(item[text_key], item["term"], item[span_key]) for item in items]
    return X, keep


def score_behaviour(
    estimator, *, domains=None, random_state: int = 0, labels=None
) -> dict:
    """Run the behavioural suite (:func:`behaviour_suite`) on a fitted model.

    Parameters
    ----------
    estimator : fitted pair classifier
        :class:`~aspectattn.AspectAttentionClassifier` or a loaded ONNX export:
        on aspect terms it reads each term at its span; on categories it answers
        the items of the categories it knows (the others are counted as skipped).
    domains : list of str or None
        See :func:`behaviour_suite`.
    random_state : int, default=0
        The suite's seed.
    labels : dict or None
        The model's label for ``"positive"`` and ``"negative"``, where its
        classes are named otherwise (e.g. ``{"positive": 1, "negative": -1}``).

    Returns
    -------
    dict
        ``"MFT"``, ``"INV"``, ``"DIR"``: the share of items passed (MFT: right;
        INV: the same answer as on the unchanged sentence; DIR: the answer the
        change must give), and ``"tests"``: one row per test and domain
        (``type``, ``test``, ``domain``, ``n``, ``passed``); ``"skipped"``: the
        items of categories the model does not know.
    """
    if getattr(estimator, "aspect_type_", None) not in ("term", "category"):
        raise InputError(
            "score_behaviour needs a fitted pair classifier (an estimator with "
            f"aspect_type_ 'term' or 'category'); got {type(estimator).__name__}."
        )
    labels = {"positive": "positive", "negative": "negative", **(labels or {})}
    classes = [str(c) for c in np.asarray(estimator.classes_).tolist()]
    missing = [str(v) for v in labels.values() if str(v) not in classes]
    if missing:
        raise InputError(
            f"The model's classes {classes} lack {missing}; name its positive and "
            "negative labels with labels={'positive': ..., 'negative': ...}."
        )
    items = behaviour_suite(domains, random_state)
    X, keep = _aspect_inputs(estimator, items, "text", "span")
    used = [item for item, k in zip(items, keep, strict=True) if k]
    if not used:
        raise InputError(
            "The model knows none of the suite's categories "
            f"({sorted({i['category'] for i in items})})."
        )
    X = [x for x, k in zip(X, keep, strict=True) if k]
    predicted = np.asarray([str(p) for p in estimator.predict(X)], dtype=object)
    expected = np.array([str(labels[i["expected"]]) for i in used], dtype=object)
    passed = predicted == expected
    inv = [k for k, i in enumerate(used) if i["type"] == "INV"]
    if inv:
        base, _ = _aspect_inputs(
            estimator, [used[k] for k in inv], "base_text", "base_span"
        )
        before = np.asarray([str(p) for p in estimator.predict(base)], dtype=object)
        passed[inv] = predicted[inv] == before
    rows = []
    for key in dict.fromkeys((i["type"], i["test"], i["domain"]) for i in used):
        mine = [
            k for k, i in enumerate(used) if (i["type"], i["test"], i["domain"]) == key
        ]
        rows.append(
            dict(zip(("type", "test", "domain"), key, strict=True))
            | {"n": len(mine), "passed": float(passed[mine].mean())}
        )
    kinds = {i["type"] for i in used}
    result = {
        kind: float(passed[[i["type"] == kind for i in used]].mean())
        for kind in ("MFT", "INV", "DIR")
        if kind in kinds
    }
    return result | {"n": len(used), "skipped": int((~keep).sum()), "tests": rows}


def format_behaviour(result: dict) -> str:
    """The result of :func:`score_behaviour` as a text table: each test's share
    passed per domain, then each type's over all."""
    if not (isinstance(result, dict) and result.get("tests")):
        raise ValueError(
            "format_behaviour takes what score_behaviour returns (a dict whose "
            f"'tests' lists each test's row); got {str(result)[:80]}"
        )
    domains = list(dict.fromkeys(row["domain"] for row in result["tests"]))
    tests = list(dict.fromkeys((row["type"], row["test"]) for row in result["tests"]))
    cell = {(r["type"], r["test"], r["domain"]): r for r in result["tests"]}
    width = max(len(t) for _, t in tests) + 6
    lines = [f"{'test':<{width}}" + "".join(f"{d:>13}" for d in domains)]
    for kind, test in tests:
        row = f"{kind + ' ' + test:<{width}}"
        for domain in domains:
            r = cell.get((kind, test, domain))
            value = "" if r is None else f"{100 * r['passed']:.1f}"
            row += f"{value:>13}"
        lines.append(row)
    totals = ", ".join(
        f"{kind} {100 * result[kind]:.1f}%"
        for kind in ("MFT", "INV", "DIR")
        if kind in result
    )
    lines.append(
        f"passed: {totals} of {result['n']} items"
        + (
            f" ({result['skipped']} of unknown categories skipped)"
            if result["skipped"]
            else ""
        )
    )
    return "\n".join(lines)


# ------------------------------------------------------------------ detection
#: Words in a category's name that make it the general one (SemEval-2014's
#: anecdotes/miscellaneous, SemEval-2015's RESTAURANT#GENERAL...): the one a
#: sentence about no aspect in particular may go to.
GENERAL_NAMES = ("general", "misc", "anecdote")


def _detection_items(domain: str, rng, n: int = 40) -> list[dict]:
    """Sentences about one aspect, two that disagree, or none in particular:
    ``mentions`` maps each category the sentence is about to its polarity."""
    items = []
    for _ in range(n):  # one aspect
        (aspect,) = _pick_aspects(domain, 1, rng)
        polarity = _polarities(rng)[0]
        sentence = _Sentence()
        _clause(
            sentence,
            0,
            aspect,
            _opinion(aspect, polarity, "plain", rng),
            domain,
            capital=True,
        )
        items.append(
            {
                "test": "one aspect",
                "domain": domain,
                "text": sentence.add(".").text,
                "mentions": {aspect.category: polarity},
            }
        )
    for _ in range(n):  # two that disagree
        aspects = _pick_aspects(domain, 2, rng)
        polarity = _polarities(rng)
        clauses = [
            (k, aspects[k], _opinion(aspects[k], polarity[k], "plain", rng))
            for k in range(2)
        ]
        connective = _CONNECTIVES[int(rng.integers(len(_CONNECTIVES)))]
        sentence = _two_clauses(domain, *clauses, connective)
        items.append(
            {
                "test": "two aspects that disagree",
                "domain": domain,
                "text": sentence.text,
                "mentions": {
                    a.category: p for a, p in zip(aspects, polarity, strict=True)
                },
            }
        )
    for text, _ in VERDICTS:  # no aspect in particular
        items.append(
            {
                "test": "no aspect in particular",
                "domain": domain,
                "text": text,
                "mentions": {},
            }
        )
    return items


def score_detection(detector, *, domains=None, random_state: int = 0) -> dict:
    """Detection tests of the suite's kind for a fitted category detector
    (:class:`~aspectattn.AspectCategoryClassifier`): a sentence about one aspect
    mentions its category and no other; two clauses that disagree mention
    both, each with its polarity; a sentence about no aspect in particular
    ("Stay away.") mentions none but a general category (one whose name holds
    "general", "misc" or "anecdote").

    Returns
    -------
    dict
        ``"found"``: the share of the categories a sentence is about that the
        detector finds; ``"polarity"``: of those found, the share with their
        own polarity; ``"no_false_mentions"``: the share of sentences where no
        other (non-general) category is found; ``"tests"``: one row per test and
        domain with the three; ``"n"``: the sentences scored.
    """
    domains = _check_domains(domains)
    known = [str(c) for c in np.asarray(getattr(detector, "categories_", [])).tolist()]
    none = getattr(detector, "not_mentioned", None)
    if not known or none is None:
        raise InputError(
            "score_detection needs a fitted category detector (categories_ and "
            f"not_mentioned); got {type(detector).__name__}."
        )
    general = {c for c in known if any(w in c.lower() for w in GENERAL_NAMES)}
    items = []
    for domain in domains:
        rng = np.random.default_rng([random_state, 100 + list(DOMAINS).index(domain)])
        items += [
            i for i in _detection_items(domain, rng) if set(i["mentions"]) <= set(known)
        ]
    if not items:
        raise InputError(f"The detector knows none of the suite's categories {known}.")
    predicted = np.asarray(detector.predict([i["text"] for i in items]), dtype=object)
    rows = []
    for item, row in zip(items, predicted, strict=True):
        cells = dict(zip(known, (str(v) for v in row), strict=True))
        found = [c for c in item["mentions"] if cells[c] != none]
        rows.append(
            {
                "test": item["test"],
                "domain": item["domain"],
                "about": len(item["mentions"]),
                "found": len(found),
                "right": sum(cells[c] == item["mentions"][c] for c in found),
                "clean": all(
                    v == none
                    for c, v in cells.items()
                    if c not in item["mentions"] and c not in general
                ),
            }
        )

    def shares(mine):
        about = sum(r["about"] for r in mine)
        found = sum(r["found"] for r in mine)
        return {
            "found": sum(r["found"] for r in mine) / about if about else None,
            "polarity": sum(r["right"] for r in mine) / found if found else None,
            "no_false_mentions": float(np.mean([r["clean"] for r in mine])),
        }

    tests = []
    for key in dict.fromkeys((r["test"], r["domain"]) for r in rows):
        mine = [r for r in rows if (r["test"], r["domain"]) == key]
        tests.append({"test": key[0], "domain": key[1], "n": len(mine), **shares(mine)})
    return {**shares(rows), "n": len(rows), "tests": tests}
