"""Training data whose aspects disagree, made from the training data itself.

Most review sentences carry one opinion: a model selected on overall accuracy can do
well by reading a sentence's overall tone and giving it to every aspect. Joining two
single-aspect sentences of opposite polarity ("The pasta was great" + "the waiter was
rude") makes sentences in which the aspects disagree, with labels known by
construction, for training (and as probes: see :func:`join_opposite`).

For aspect terms, :func:`flip_opinions` reverses the opinion on one term alone
("the fries were soggy but the burger was perfect" -> "the fries were crisp but
...") by swapping the opinion word nearest to the term for its antonym: the term's
label must flip and the other terms' labels must stay. A probe of whether a model
follows the target or the sentence's tone, and training data of the same kind.
A category has no place in its sentence: :func:`flip_categories` (and
:func:`flip_table`, the detector's) reverses the sentences whose categories all
carry one polarity, every opinion word at once.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from ._validation import check_labels, check_pairs
from .text.spans import find_term

__all__ = [
    "join_opposite",
    "flip_opinions",
    "flip_pairs",
    "join_pairs",
    "flip_text",
    "flip_categories",
    "flip_table",
    "OPINION_ANTONYMS",
    "OPINION_PAIRS",
    "NEGATIONS",
    "COPY_NEGATIONS",
    "DETECTOR_NEGATIONS",
    "antonym_map",
]

# Opinion words of reviews and their antonyms (both directions are used). Written
# once from general English, not from any test set.
_PAIRS = [
    ("good", "bad"),
    ("great", "terrible"),
    ("excellent", "awful"),
    ("amazing", "horrible"),
    ("wonderful", "dreadful"),
    ("fantastic", "mediocre"),
    ("delicious", "disgusting"),
    ("tasty", "bland"),
    ("fresh", "stale"),
    ("crisp", "soggy"),
    ("crispy", "limp"),
    ("hot", "cold"),
    ("friendly", "rude"),
    ("attentive", "inattentive"),
    ("helpful", "unhelpful"),
    ("polite", "impolite"),
    ("fast", "slow"),
    ("quick", "sluggish"),
    ("cheap", "expensive"),
    ("reasonable", "overpriced"),
    ("clean", "dirty"),
    ("quiet", "noisy"),
    ("cozy", "cramped"),
    ("comfortable", "uncomfortable"),
    ("pleasant", "unpleasant"),
    ("nice", "nasty"),
    ("best", "worst"),
    ("better", "worse"),
    ("love", "hate"),
    ("loved", "hated"),
    ("enjoyed", "disliked"),
    ("perfect", "flawed"),
    ("generous", "stingy"),
    ("large", "tiny"),
    ("tender", "tough"),
    ("juicy", "dry"),
    ("happy", "unhappy"),
    ("impressive", "disappointing"),
    ("impressed", "disappointed"),
    ("superb", "poor"),
    ("outstanding", "lousy"),
    ("beautiful", "ugly"),
    ("reliable", "unreliable"),
    ("easy", "difficult"),
    ("light", "heavy"),
    ("bright", "dim"),
    ("sharp", "blurry"),
    ("powerful", "weak"),
    ("smooth", "choppy"),
    ("long", "short"),
    ("recommend", "avoid"),
    ("worth", "unworthy"),
    ("fabulous", "atrocious"),
    ("incredible", "pathetic"),
    ("awesome", "lame"),
    ("efficient", "inefficient"),
    ("knowledgeable", "clueless"),
    ("warm", "chilly"),
    ("spacious", "crowded"),
    ("authentic", "fake"),
    ("flavorful", "flavorless"),
]
#: The (word, antonym) pairs of :data:`OPINION_ANTONYMS`, in a fixed order (a
#: benchmark can train on some and probe with the others).
OPINION_PAIRS = tuple(_PAIRS)


def antonym_map(pairs) -> dict[str, str]:
    """Word -> antonym in both directions, from (word, antonym) ``pairs``: the
    ``antonyms`` argument of :func:`flip_opinions` and of the estimators."""
    return {**dict(pairs), **{b: a for a, b in pairs}}


#: Word -> antonym, both directions.
OPINION_ANTONYMS = antonym_map(_PAIRS)
_WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)?")

_CONNECTIVES = ("but", "while", "whereas", "though")


def join_opposite(
    X,
    y,
    n_sentences: int,
    positive="positive",
    negative="negative",
    random_state=None,
):
    """Sentences with two aspects of opposite polarity, joined from single-aspect ones.

    Each new sentence joins a sentence with one positive aspect and a sentence with
    one negative aspect of a *different* aspect, in random order, with a random
    connective: ``"The pasta was great, but the waiter was rude."``. Both pairs are
    returned with their original labels.

    Parameters
    ----------
    X : sequence of (text, aspect) pairs
    y : sequence of labels
    n_sentences : int
        How many sentences to make (each gives two pairs).
    positive, negative : label values of the two polarities.
    random_state : int or None

    Returns
    -------
    X_new : list of (text, aspect) pairs, 2 * n_sentences of them
    y_new : list of labels
    """
    texts, aspects, _ = check_pairs(X)
    labels = check_labels(y, len(texts)).tolist()
    count: dict[str, int] = {}
    for t in texts:
        count[t] = count.get(t, 0) + 1
    single = [
        (t, a, label)
        for t, a, label in zip(texts, aspects, labels, strict=True)
        if count[t] == 1 and label in (positive, negative)
    ]
    good = [s for s in single if s[2] == positive]
    bad = [s for s in single if s[2] == negative]
    if not good or not bad:
        raise ValueError(
            "join_opposite needs single-aspect sentences of both polarities "
            f"({positive!r} and {negative!r})."
        )
    rng = np.random.default_rng(random_state)
    X_new, y_new = [], []
    tries = 0
    while len(X_new) < 2 * n_sentences and tries < 50 * n_sentences:
        tries += 1
        first = good[rng.integers(len(good))]
        second = bad[rng.integers(len(bad))]
        if first[1] == second[1]:
            continue
        if rng.random() < 0.5:
            first, second = second, first
        word = _CONNECTIVES[rng.integers(len(_CONNECTIVES))]
        text, _, _ = _joined_text(first[0], second[0], word)
        X_new += [(text, first[1]), (text, second[1])]
        y_new += [first[2], second[2]]
    return X_new, y_new


def _joined_text(head: str, tail: str, word: str) -> tuple[str, int, int]:
    """``"<head>, <word> <tail>"`` (the head's final punctuation dropped, the tail's
    first letter lower-cased unless it starts an acronym), and how far a character
    of the head and of the tail moves: the new offset is the old one plus it."""
    head_shift = -(len(head) - len(head.lstrip()))
    head = head.strip().rstrip(".!?;, ")
    tail_stripped = tail.strip()
    if not tail_stripped[:2].isupper():
        tail_stripped = tail_stripped[:1].lower() + tail_stripped[1:]
    prefix = f"{head}, {word} "
    tail_shift = len(prefix) - (len(tail) - len(tail.lstrip()))
    return prefix + tail_stripped, head_shift, tail_shift


def join_pairs(texts, terms, spans, labels, positive, negative, random_state=None):
    """Aspect terms that disagree, for training: sentences joined from two whose
    terms each carry one polarity, the opposite ones.

    Every sentence whose terms are all ``positive`` (or all ``negative``) makes
    one new sentence with a random sentence of the opposite polarity, the two in
    random order: ``"<one>, but <other>"`` (or "while", "whereas", "though").
    Every term keeps its label and its place (the span moved to the new text; a
    pair repeated in the data is copied once). Terms not found in
    their text make their sentence unused.

    Parameters
    ----------
    texts, terms : list of str
    spans : list of (start, end) or None per pair
    labels : list
    positive, negative : the two label values
    random_state : int, numpy Generator or None

    Returns
    -------
    X_new : list of (text, term, (start, end))
    y_new : list of labels
    source : ndarray of shape (n_new, 2) int
        For each new pair, the given pair it was copied from and a pair of the
        other sentence joined to it: a caller keeps a new sentence out of
        validation unless both of its sentences are on the training side.
    """
    tone: dict[str, list[tuple[str, list]]] = {positive: [], negative: []}
    for text, members, span_of in _sentences(texts, terms, spans):
        polarity = {labels[i] for i in members}
        if len(polarity) != 1 or not polarity <= set(tone):
            continue
        if all(span_of[i] is not None for i in members):
            # a pair repeated in the data is one term of the joined sentence
            places = {tuple(span_of[i]): i for i in members}
            tone[polarity.pop()].append((text, [(i, f) for f, i in places.items()]))
    rng = np.random.default_rng(random_state)
    X_new, y_new, source = [], [], []
    if not tone[positive] or not tone[negative]:
        return X_new, y_new, np.empty((0, 2), dtype=np.intp)
    for polarity, other in ((positive, negative), (negative, positive)):
        for first in tone[polarity]:
            second = tone[other][rng.integers(len(tone[other]))]
            if rng.random() < 0.5:
                first, second = second, first
            word = _CONNECTIVES[rng.integers(len(_CONNECTIVES))]
            text, head_shift, tail_shift = _joined_text(first[0], second[0], word)
            head_end = len(text) - len(second[0].strip()) - len(word) - 3
            parts = ((first, second, head_shift), (second, first, tail_shift))
            if any(e + head_shift > head_end for _, (_, e) in first[1]):
                continue  # a term in the head's dropped final punctuation
            for (_, members), (_, others), shift in parts:
                for i, (start, end) in members:
                    X_new.append((text, terms[i], (start + shift, end + shift)))
                    y_new.append(labels[i])
                    source.append((i, others[0][0]))
    return X_new, y_new, np.array(source, dtype=np.intp).reshape(-1, 2)


def _opposite_partners(groups, positive, negative, rng):
    """``(first, second)`` for every group (``(text, {aspect: index})``) of one
    polarity, ``second`` a random group of the other polarity that shares none of
    its aspects (a few draws; none found: the group makes nothing), the two in
    random order."""
    tone = {positive: [], negative: []}
    for polarity, group in groups:
        tone[polarity].append(group)
    if not tone[positive] or not tone[negative]:
        return
    for polarity, other in ((positive, negative), (negative, positive)):
        for first in tone[polarity]:
            for _ in range(10):
                second = tone[other][rng.integers(len(tone[other]))]
                if not set(first[1]) & set(second[1]):
                    break
            else:
                continue
            yield (first, second) if rng.random() < 0.5 else (second, first)


def join_categories(texts, categories, labels, positive, negative, random_state=None):
    """Aspect categories that disagree, for training: sentences joined from two
    whose categories each carry one polarity, the opposite ones.

    Every sentence whose categories are all ``positive`` (or all ``negative``) makes
    one new sentence with a random sentence of the opposite polarity that has none
    of its categories, the two in random order (``"<one>, but <other>"``); every
    category keeps its label. The category form of :func:`join_pairs`; inside
    ``fit`` (``augment="join"``) a new sentence trains only when both its sources
    are on the training side, and is never validated.

    Returns
    -------
    X_new : list of (text, category)
    y_new : list of labels
    source : ndarray of shape (n_new, 2) int
        For each new pair, the given pair it was copied from and a pair of the
        other sentence joined to it.
    """
    groups = _one_tone_sentences(texts, categories, labels, positive, negative)
    rng = np.random.default_rng(random_state)
    X_new, y_new, source, made = [], [], [], set()
    for first, second in _opposite_partners(groups, positive, negative, rng):
        word = _CONNECTIVES[rng.integers(len(_CONNECTIVES))]
        text, _, _ = _joined_text(first[0], second[0], word)
        if text in made:  # the same two sentences drawn twice
            continue
        made.add(text)
        for (_, cats), (_, others) in ((first, second), (second, first)):
            other = next(iter(others.values()))
            for category, i in cats.items():
                X_new.append((text, category))
                y_new.append(labels[i])
                source.append((i, other))
    return X_new, y_new, np.array(source, dtype=np.intp).reshape(-1, 2)


def join_table(texts, table, not_mentioned, positive, negative, random_state=None):
    """:func:`join_categories` for the detector's table: sentences whose mentioned
    categories all carry one polarity, joined with a random sentence of the other
    polarity that mentions none of them. A joined row keeps each source's
    polarities; its other categories are not mentioned.

    Parameters
    ----------
    texts : list of str
    table : ndarray of shape (n_texts, n_categories), object
        A cell None: nobody labelled it. It is no mention, and a joined row's
        cell is None where either source's is.
    not_mentioned, positive, negative : label values

    Returns
    -------
    texts_new : list of str
    table_new : ndarray of shape (n_new, n_categories), object
    source : ndarray of shape (n_new, 2) int
        The two rows each new sentence was joined from.
    """
    groups = _one_tone_rows(table, texts, not_mentioned, positive, negative)
    rng = np.random.default_rng(random_state)
    texts_new, rows, source = [], [], []
    for first, second in _opposite_partners(groups, positive, negative, rng):
        word = _CONNECTIVES[rng.integers(len(_CONNECTIVES))]
        text, _, _ = _joined_text(first[0], second[0], word)
        if text in texts_new:  # the same two sentences drawn twice
            continue
        a, b = next(iter(first[1].values())), next(iter(second[1].values()))
        row = np.where(table[a] != not_mentioned, table[a], table[b])
        pairs = zip(table[a], table[b], strict=True)
        row[[x is None or y is None for x, y in pairs]] = None  # nobody labelled
        texts_new.append(text)
        rows.append(row)
        source.append((a, b))
    table_new = np.array(rows, dtype=object).reshape(-1, table.shape[1])
    return texts_new, table_new, np.array(source, dtype=np.intp).reshape(-1, 2)


def _one_tone_sentences(texts, categories, labels, positive, negative) -> list:
    """``(polarity, (text, {category: pair}))`` for each distinct text whose
    categories all carry ``positive`` (or all ``negative``); a repeated pair is
    one."""
    members: dict[str, dict] = {}
    for i, text in enumerate(texts):
        members.setdefault(text, {})[categories[i]] = i
    groups = []
    for text, cats in members.items():
        polarity = {labels[i] for i in cats.values()}
        if len(polarity) == 1 and polarity <= {positive, negative}:
            groups.append((polarity.pop(), (text, cats)))
    return groups


def _one_tone_rows(table, texts, not_mentioned, positive, negative) -> list:
    """``(polarity, (text, {column: row}))`` for each row of the detector's
    ``table`` whose mentioned categories all carry ``positive`` (or all
    ``negative``). A cell nobody labelled (None) is no mention, and a copy
    keeps it so."""
    groups = []
    for i, row in enumerate(table):
        mentioned = {
            k: v for k, v in enumerate(row) if v != not_mentioned and v is not None
        }
        polarity = set(mentioned.values())
        if len(polarity) == 1 and polarity <= {positive, negative}:
            groups.append((polarity.pop(), (texts[i], {k: i for k in mentioned})))
    return groups


def _sentences(texts, terms, spans):
    """Each distinct text, the pairs it holds, and each pair's term span: the
    given one, else found in the text (None when the term is not in it)."""
    groups: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        groups.setdefault(text, []).append(i)
    for text, members in groups.items():
        span_of = {
            i: (spans[i] if spans is not None else None) or find_term(text, terms[i])
            for i in members
        }
        yield text, members, span_of


def _distance(k: int, place: tuple[int, int]) -> int:
    """Words between word ``k`` and a term spanning words ``place``."""
    return max(place[0] - k, k - place[1], 0)


def _match_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def flip_opinions(
    X,
    y,
    positive="positive",
    negative="negative",
    window: int = 4,
    antonyms: dict | None = None,
):
    """Probes that reverse the opinion on one aspect term and keep the rest.

    For each positive or negative term, the opinion word (a key of ``antonyms``)
    nearest to the term, at most ``window`` words away and strictly nearer to it
    than to any other term of the sentence, is replaced by its antonym. The new
    sentence comes with every term of the original: the target's label flipped,
    the others' labels kept. A term without such a word gives no probe.

    Parameters
    ----------
    X : sequence of (text, term) pairs or (text, term, (start, end)) triples
    y : sequence of labels
    positive, negative : the two polarities that flip into each other.
    window : int
        Largest distance, in words, from the term to the swapped word.
    antonyms : dict or None
        Word -> antonym (lower case); :data:`OPINION_ANTONYMS` by default.

    Returns
    -------
    X_new : list of (text, term, (start, end)) triples
        Each probe sentence with all its terms, at their new character spans.
    y_new : list of labels
    target : ndarray of bool
        True on the pairs whose opinion was reversed (the targets).
    """
    texts, terms, _, spans = check_pairs(X, return_spans=True)
    labels = check_labels(y, len(texts)).tolist()
    X_new, y_new, target, _ = flip_pairs(
        texts, terms, spans, labels, positive, negative, window, antonyms
    )
    return X_new, y_new, target


#: The forms a negation takes in the negated copies and probes (English), one
#: after the other over the copies; where the turn's form does not fit the
#: opinion word's place, the next one that does:
#:
#: - "not", "never", "far from" before the opinion word, and before the words
#:   that intensify it ("was not very good", "not too loud"); "never" not after
#:   an article ("a never great place" is no English);
#: - "n't" joined to the copula before it ("was great" -> "wasn't great");
#: - "no" for the article between a copula and a positive word ("is a great
#:   place" -> "is no great place").
#:
#: Not "nothing": SemEval's annotators label "nothing great" and "nothing
#: special" neutral, no reverse (SemEval-2014's restaurant training sentences
#: with either: five of their six terms neutral, the sixth positive by another
#: clause's "very good").
NEGATIONS = ("not", "never", "far from", "n't", "no")
#: The forms the negated copies of terms and of categories' pairs take
#: (``augment="...+negate"``), chosen on validation (``python -m benchmarks
#: negation``: every form cost the LSTM 1.6 points of laptop accuracy).
COPY_NEGATIONS = ("not", "never", "far from")
#: The forms the detector's negated copies take (:func:`flip_table`), chosen on
#: validation (``python -m benchmarks negation --detector``).
DETECTOR_NEGATIONS = NEGATIONS
#: Words that negate an opinion word within :data:`NEGATED_WITHIN` words after
#: them (English): such a word is not negated again.
NEGATORS = frozenset({"not", "never", "no", "nothing", "hardly", "barely", "nor"})
NEGATED_WITHIN = 2
#: Words that may stand between a negation and the opinion word it negates.
INTENSIFIERS = frozenset(
    {"very", "so", "really", "too", "pretty", "quite", "extremely", "super"}
    | {"incredibly", "absolutely", "truly", "totally", "particularly", "that"}
)
_CONTRACTED = {"is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't"}
_ARTICLES = frozenset({"a", "an"})
#: The positive words "no" negates ("is no great place"; "no rude" is no plain
#: reverse).
_POSITIVE = frozenset(word for word, _ in _PAIRS)


def _copula(word: str | None) -> bool:
    """Whether ``word`` (lower case) is a copula "no" may follow ("it's no
    great place")."""
    return word is not None and (word in _CONTRACTED or word.endswith("'s"))


def _negated(text: str, words, k: int) -> bool:
    """Whether word ``k`` of ``text`` (``words``: their spans) follows one of
    :data:`NEGATORS`, or a word ending in "n't", within :data:`NEGATED_WITHIN`
    words."""
    before = [text[a:b].lower() for a, b in words[max(0, k - NEGATED_WITHIN) : k]]
    return any(w in NEGATORS or w.endswith("n't") for w in before)


def _negation(text: str, words, k: int, form: str, fixed=frozenset()):
    """The edit ``(a, b, new)`` (``text[a:b]`` becomes ``new``) that negates
    opinion word ``k`` in ``form`` (one of :data:`NEGATIONS`, or any other
    words, put before it as "not" is), or None where the form does not fit
    there. ``fixed``: the indices of words no edit may touch (a term's)."""
    lower = [text[a:b].lower() for a, b in words]
    first = k  # the first of the intensifiers before the word, or the word
    while first > 0 and lower[first - 1] in INTENSIFIERS and first - 1 not in fixed:
        first -= 1
    before = lower[first - 1] if first > 0 and first - 1 not in fixed else None
    positive = lower[k] in _POSITIVE and first == k
    if form == "n't":
        if before not in _CONTRACTED:
            return None
        a, b = words[first - 1]
        return a, b, _match_case(_CONTRACTED[before], text[a:b])
    if form == "no":
        verb = lower[k - 2] if k > 1 and k - 2 not in fixed else None
        if not (positive and before in _ARTICLES and _copula(verb)):
            return None
        a, b = words[k - 1]
        return a, b, _match_case("no", text[a:b])
    if form == "never" and before in _ARTICLES | {"the"}:
        return None
    a, b = words[first]
    new = _put_before(form, text[a:b])
    if before in _ARTICLES:  # the article agrees with the negation before the
        # word now ("an excellent meal" -> "a not excellent meal")
        a = words[first - 1][0]
        article = "an" if new[:1].lower() in "aeiou" else "a"
        new = f"{_match_case(article, text[a : words[first - 1][1]])} {new}"
    return a, b, new


def _put_before(negation: str, word: str) -> str:
    """``negation`` put before ``word`` in its case ("Great" -> "Not great")."""
    head = _match_case(negation, word)
    keep = word.isupper() or head == negation
    return f"{head} {word if keep else word[:1].lower() + word[1:]}"


def _first_fit(text, words, k, forms, turn, fixed=frozenset()):
    """The edit of :func:`_negation` in ``forms[turn]``, or the next form (in
    turn, round) that fits; None when none does."""
    for j in range(len(forms)):
        edit = _negation(text, words, k, forms[(turn + j) % len(forms)], fixed)
        if edit is not None:
            return edit
    return None


def flip_pairs(
    texts,
    terms,
    spans,
    labels,
    positive,
    negative,
    window=4,
    antonyms=None,
    negate=False,
    negations=None,
):
    """:func:`flip_opinions` on validated columns; also returns, for each new pair,
    the index of the pair whose sentence it was made from (``source``, an int
    array), so a caller can keep a sentence and its flipped copies together.

    ``negate=True`` (English): the opinion word is kept and negated, the forms
    of ``negations`` in turn (:data:`COPY_NEGATIONS` by default; the forms of
    :data:`NEGATIONS` are known: "was great" -> "was not great", "was never
    great", "was far from great", "wasn't great", "is no great place"; where
    the turn's form does not fit, the next one that does; where none does, no
    copy); a word already negated ("wasn't great", "never rude") is left
    alone, and a term's words are never edited. The term's label is reversed,
    as the SemEval annotators label such opinions: in SemEval-2014's training
    sentences, of the terms within five words of a negated opinion word,
    those of a negated positive word are mostly negative (restaurants 31
    negative, 11 neutral, 12 positive; laptops 10, 0, 5) and those of a negated
    negative word ("not bad", "never had a problem") mostly positive
    (restaurants 14 positive, 6 neutral, 10 negative; laptops 11, 7, 7). The
    other terms keep their labels.

    A pair labelled ``None`` (unlabelled: a teacher's to label) is flipped and
    negated as the others, and its copies are labelled ``None`` too.
    """
    antonyms = OPINION_ANTONYMS if antonyms is None else antonyms
    flip = {positive: negative, negative: positive, None: None}
    forms = COPY_NEGATIONS if negations is None else tuple(negations)
    turn = itertools.count()
    X_new, y_new, target, source = [], [], [], []
    for text, members, span_of in _sentences(texts, terms, spans):
        words = [(m.start(), m.end()) for m in _WORD_RE.finditer(text)]
        place, char_span = _term_places(words, members, span_of)
        fixed = {k for first, last in place.values() for k in range(first, last + 1)}
        done = set()  # the places flipped (a pair repeated in the data is one)
        for i in members:
            if i not in place or labels[i] not in flip or place[i] in done:
                continue
            done.add(place[i])
            others = set(place.values()) - {place[i]}
            k = _opinion_word(text, words, place[i], others, antonyms, window, negate)
            if k is None:
                continue
            if negate:
                edit = _first_fit(text, words, k, forms, next(turn), fixed)
                if edit is None:
                    continue
                a, b, new = edit
            else:
                a, b = words[k]
                new = _match_case(antonyms[text[a:b].lower()], text[a:b])
            new_text = text[:a] + new + text[b:]
            shift = len(new) - (b - a)
            for j in place:
                start, end = (s + shift if s >= b else s for s in char_span[j])
                X_new.append((new_text, terms[j], (start, end)))
                is_target = place[j] == place[i]
                y_new.append(flip.get(labels[j], labels[j]) if is_target else labels[j])
                target.append(is_target)
                source.append(j)
    return X_new, y_new, np.array(target, dtype=bool), np.array(source, dtype=np.intp)


def _term_places(words, members, span_of) -> tuple[dict, dict]:
    """``(place, char_span)``: each pair of ``members`` whose term has a span ->
    the (first, last) of ``words`` (character spans) the term covers (the word
    at its start when it covers none), and -> its span."""
    starts = np.array([a for a, _ in words])
    place, char_span = {}, {}
    for i in members:
        span = span_of[i]
        if span is None or not words:
            continue
        char_span[i] = span
        inside = [k for k, (a, b) in enumerate(words) if a < span[1] and b > span[0]]
        if inside:
            place[i] = (inside[0], inside[-1])
        else:
            k = int(np.searchsorted(starts, span[0]))
            place[i] = (k, k)
    return place, char_span


def _opinion_word(text, words, place, others, antonyms, window, negate):
    """The index of the opinion word of ``words`` nearest to the term at
    ``place`` -- one ``antonyms`` knows, outside the term, within ``window``
    words of it and nearer to it than to any term of ``others`` (with
    ``negate``: not negated already) -- or None."""
    candidates = []
    for k, (a, b) in enumerate(words):
        if text[a:b].lower() not in antonyms or place[0] <= k <= place[1]:
            continue
        if negate and _negated(text, words, k):
            continue
        d = _distance(k, place)
        if d <= window and all(d < _distance(k, p) for p in others):
            candidates.append((d, k))
    return min(candidates)[1] if candidates else None


def flip_text(text: str, antonyms: dict | None = None, negation: str | None = None):
    """``text`` with its opinion reversed: every opinion word (a key of
    ``antonyms``, :data:`OPINION_ANTONYMS` by default) swapped for its antonym,
    or, with ``negation`` (a form of :data:`NEGATIONS`, or any words to put
    before it), each negated in that form, or, where it does not fit the word's
    place, the next form of :data:`NEGATIONS` (in turn, round) that does. None
    when the text has no opinion word, or, negating, when one is negated already
    ("not bad" negated again is no plain reverse)."""
    antonyms = OPINION_ANTONYMS if antonyms is None else antonyms
    words = [(m.start(), m.end()) for m in _WORD_RE.finditer(text)]
    opinion = [k for k, (a, b) in enumerate(words) if text[a:b].lower() in antonyms]
    if not opinion or (
        negation is not None and any(_negated(text, words, k) for k in opinion)
    ):
        return None
    forms = (negation, *NEGATIONS)
    if negation in NEGATIONS:  # NEGATIONS in turn from it
        forms = NEGATIONS
    turn = forms.index(negation)
    edits = []
    for k in opinion:
        if negation is None:
            a, b = words[k]
            edits.append((a, b, _match_case(antonyms[text[a:b].lower()], text[a:b])))
        else:  # "not" fits everywhere
            edits.append(_first_fit(text, words, k, forms, turn))
    for a, b, new in sorted(edits, reverse=True):  # from the end: offsets hold
        text = text[:a] + new + text[b:]
    return text


def _flipped_sentences(groups, antonyms, negate, negations):
    """``(polarity, members, new_text)`` for each one-tone group
    (``(polarity, (text, members))``) whose text :func:`flip_text` reverses;
    the forms of ``negations`` in turn over the copies."""
    negations = itertools.cycle(negations)
    for polarity, (text, members) in groups:
        new_text = flip_text(text, antonyms, next(negations) if negate else None)
        if new_text is not None:
            yield polarity, members, new_text


def flip_categories(
    texts,
    categories,
    labels,
    positive,
    negative,
    antonyms=None,
    negate=False,
    negations=None,
):
    """Aspect categories with their opinion reversed, for training: the category
    form of :func:`flip_pairs`.

    A category has no place in its sentence, so the opinion words that are its
    own are not known; in a sentence whose categories all carry one polarity
    (``positive`` or ``negative``) every opinion word is theirs. Each such
    sentence is copied by :func:`flip_text` (every opinion word swapped for its
    antonym, or, ``negate=True``, negated: the forms of ``negations`` in turn,
    :data:`COPY_NEGATIONS` by default) and every category's label reversed, as
    SemEval's annotators label negated opinions (measured in :func:`flip_pairs`).
    A sentence without an opinion word of ``antonyms`` makes nothing. English:
    the words and negations are.

    Returns
    -------
    X_new : list of (text, category)
    y_new : list of labels
    source : ndarray of shape (n_new,) int
        The given pair each new pair was copied from.
    """
    groups = _one_tone_sentences(texts, categories, labels, positive, negative)
    flip = {positive: negative, negative: positive}
    X_new, y_new, source = [], [], []
    forms = COPY_NEGATIONS if negations is None else negations
    flipped = _flipped_sentences(groups, antonyms, negate, forms)
    for polarity, cats, text in flipped:
        for category, i in cats.items():
            X_new.append((text, category))
            y_new.append(flip[polarity])
            source.append(i)
    return X_new, y_new, np.array(source, dtype=np.intp)


def flip_table(
    texts,
    table,
    not_mentioned,
    positive,
    negative,
    antonyms=None,
    negate=False,
    negations=None,
):
    """:func:`flip_categories` for the detector's table: each row whose mentioned
    categories all carry one polarity, its text reversed by :func:`flip_text`
    and its mentioned categories' polarity reversed (the others stay not
    mentioned); negated, the forms of ``negations`` in turn,
    :data:`DETECTOR_NEGATIONS` by default.

    Returns
    -------
    texts_new : list of str
    table_new : ndarray of shape (n_new, n_categories), object
    source : ndarray of shape (n_new,) int
        The row each new sentence was copied from.
    """
    groups = _one_tone_rows(table, texts, not_mentioned, positive, negative)
    flip = {positive: negative, negative: positive}
    texts_new, rows, source = [], [], []
    forms = DETECTOR_NEGATIONS if negations is None else negations
    for polarity, columns, text in _flipped_sentences(groups, antonyms, negate, forms):
        i = next(iter(columns.values()))
        row = np.array(table[i], dtype=object)
        row[list(columns)] = flip[polarity]
        texts_new.append(text)
        rows.append(row)
        source.append(i)
    table_new = np.array(rows, dtype=object).reshape(-1, np.shape(table)[1])
    return texts_new, table_new, np.array(source, dtype=np.intp)
