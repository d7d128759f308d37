import numpy as np
import pytest
from conftest import (
    FAST,
    LEARN,
    make_pairs,
    make_table,
    spy_on_training_data,
)
from sklearn.base import clone

from aspectattn import AspectAttentionClassifier
from aspectattn.augment import (
    flip_categories,
    flip_opinions,
    flip_pairs,
    flip_table,
    flip_text,
    join_categories,
    join_opposite,
    join_pairs,
    join_table,
)
from aspectattn.engine import training
from aspectattn.engine.training import split_sentences
from aspectattn.exceptions import AspectAttnWarning, InputError

# The copies are this module's subject: the quick settings with the estimators'
# own augment ("auto"), which each test below sets where it means other copies.
FAST = {k: v for k, v in FAST.items() if k != "augment"}
LEARN = {k: v for k, v in LEARN.items() if k != "augment"}


def test_joined_sentences_have_two_aspects_of_opposite_polarity():
    X, y = make_pairs(100, seed=0, single_share=0.8)
    X_new, y_new = join_opposite(X, y, 30, random_state=0)
    assert len(X_new) == len(y_new) == 60
    for i in range(0, 60, 2):
        (t1, a1), (t2, a2) = X_new[i], X_new[i + 1]
        assert t1 == t2 and a1 != a2
        assert {y_new[i], y_new[i + 1]} == {"positive", "negative"}
        assert any(f", {w} " in t1 for w in ("but", "while", "whereas", "though"))
    single = {t: (a, label) for (t, a), label in zip(X, y, strict=True)}
    head = X_new[0][0].split(", ")[0]
    assert any(t.startswith(head) for t in single)  # made of training sentences
    assert join_opposite(X, y, 30, random_state=0) == (X_new, y_new)


def test_needs_both_polarities():
    X = [("the soup was great.", "food"), ("the staff was great.", "service")]
    with pytest.raises(ValueError, match="both polarities"):
        join_opposite(X, ["positive", "positive"], 3)


def test_join_pairs_moves_every_span_and_keeps_every_label():
    both = "  The pasta was great and the wine too."  # two positive terms
    mixed = "The soup was fine, the bread stale."  # mixed polarities: unused
    texts = [both, both, both, "SSD boots fast!", "The waiter was rude.", mixed, mixed]
    terms = ["pasta", "wine", "pasta", "SSD", "waiter", "soup", "bread"]
    wine = both.index("wine")
    spans = [None, (wine, wine + 4)] + [None] * 5
    labels = ["positive"] * 4 + ["negative", "neutral", "negative"]
    X, y, source = join_pairs(texts, terms, spans, labels, "positive", "negative", 0)
    assert source.shape == (len(X), 2)
    joined = {}
    for (text, term, (start, end)), label, (i, j) in zip(X, y, source, strict=True):
        assert text[start:end].casefold() == term.casefold()  # the span moved
        assert (term, label) == (terms[i], labels[i])  # the label of its source
        assert texts[i] != texts[j]  # j: a pair of the other sentence
        assert any(f", {w} " in text for w in ("but", "while", "whereas", "though"))
        assert "soup" not in text
        if term == "SSD":
            assert text[start:end] == "SSD"  # an acronym keeps its case
        joined.setdefault(text, []).append(term)
    # one joined sentence per single-polarity sentence; each term once (the
    # repeated pasta pair too), and always the opposite polarity beside it
    assert len(joined) == 3
    for terms_of_text in joined.values():
        assert len(terms_of_text) == len(set(terms_of_text))
        assert "waiter" in terms_of_text and len(terms_of_text) in (2, 3)
    assert join_pairs(texts, terms, spans, labels, "positive", "negative", 0)[0] == X
    # nothing to join without both polarities
    assert join_pairs(texts[:4], terms, spans, labels, "positive", "negative")[0] == []


def test_flip_opinions_reverses_the_target_and_keeps_the_others():
    text = "The fries were soggy but the burger was PERFECT."
    X = [(text, "fries"), (text, "burger", (29, 35)), ("Great food.", "food")]
    X_new, y_new, target = flip_opinions(X, ["negative", "positive", "positive"])
    by_text = {}
    for (t, term, span), label, is_target in zip(X_new, y_new, target, strict=True):
        assert t[span[0] : span[1]] == term  # spans follow the edit
        by_text.setdefault(t, []).append((term, label, bool(is_target)))
    assert by_text == {
        "The fries were crisp but the burger was PERFECT.": [
            ("fries", "positive", True),
            ("burger", "positive", False),
        ],
        "The fries were soggy but the burger was FLAWED.": [
            ("fries", "negative", False),
            ("burger", "negative", True),
        ],
        "Terrible food.": [("food", "negative", True)],
    }


def test_flip_opinions_skips_words_nearer_another_term_and_neutral_terms():
    # "good" is as near to the soup as to the bread: no probe for either; the
    # neutral term never flips.
    text = "soup good bread"
    X = [(text, "soup"), (text, "bread"), ("the menu is long", "menu")]
    X_new, _, target = flip_opinions(X, ["positive", "positive", "neutral"])
    assert X_new == [] and len(target) == 0


def test_flip_pairs_flips_unlabelled_pairs_for_a_teacher_to_label():
    """A pair labelled None (no label: a teacher's to give) is flipped and
    negated as a labelled one, and its copies stay unlabelled; the neutral
    pair beside it is not flipped but keeps its label in the copy."""
    text = "The fries were soggy but the menu is long."
    texts, terms = [text, text], ["fries", "menu"]
    for negate, word in [(False, "crisp"), (True, "not soggy")]:
        X, y, target, source = flip_pairs(
            texts, terms, None, [None, "neutral"], "positive", "negative",
            negate=negate,
        )  # fmt: skip
        assert [x[0] for x in X] == [text.replace("soggy", word)] * 2
        assert y == [None, "neutral"] and target.tolist() == [True, False]
        assert source.tolist() == [0, 1]


# -- augment="flip" in the estimator --------------------------------------------------
THINGS = ["fries", "burger", "waiter", "pasta", "view", "wine", "soup", "staff"]


def one_term_pairs(words_and_labels, n, seed=0):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for _ in range(n):
        word, label = words_and_labels[rng.integers(len(words_and_labels))]
        thing = THINGS[rng.integers(len(THINGS))]
        X.append((f"the {thing} was {word}", thing))
        y.append(label)
    return X, y


def test_flip_augmentation_teaches_the_antonyms_of_the_training_opinions():
    # Training has "great" (positive) and "fine" (neutral), and one "awful" so that
    # 'negative' is a class; "terrible" is never seen. With augment="flip" and
    # great <-> terrible the copies teach it; without, it cannot be known.
    X, y = one_term_pairs([("great", "positive"), ("fine", "neutral")], 120)
    X.append(("the soup was awful", "soup"))
    y.append("negative")
    X_test = [(f"the {t} was terrible", t) for t in THINGS]
    params = dict(**FAST, variant="at", aspect_type="term")
    plain = AspectAttentionClassifier(**params, augment=None).fit(X, y)
    flipped = AspectAttentionClassifier(
        **params, augment="flip", antonyms={"great": "terrible"}
    ).fit(X, y)
    assert (plain.predict(X_test) == "negative").mean() <= 0.25
    assert (flipped.predict(X_test) == "negative").mean() >= 0.9
    assert flipped.predict(X[:20]).tolist() == y[:20]


def test_join_augmentation_teaches_terms_that_disagree():
    # Training has one-term sentences only; the test sentences join two whose
    # opinions disagree. Without joined sentences in training the model reads the
    # sentence's tone (half right), even with the term's position; with them it
    # learns which opinion belongs to which term. (Without a position option,
    # where the term is cannot be known: joining alone gets 51-64%.)
    words = [("great", "positive"), ("tasty", "positive")]
    words += [("awful", "negative"), ("bland", "negative")]
    X, y = one_term_pairs(words, 200)
    rng = np.random.default_rng(1)
    X_test, y_test = [], []
    for _ in range(40):
        a, b = rng.choice(THINGS, 2, replace=False)
        (wa, la), (wb, lb) = words[rng.integers(2)], words[2 + rng.integers(2)]
        if rng.random() < 0.5:
            (a, wa, la), (b, wb, lb) = (b, wb, lb), (a, wa, la)
        text = f"the {a} was {wa}, but the {b} was {wb}"
        X_test += [(text, a), (text, b)]
        y_test += [la, lb]
    from aspectattn.attention import AspectAttention

    params = dict(
        **LEARN,
        variant="at",
        aspect_type="term",
        attention=AspectAttention(position_weighting="linear"),
    )
    plain = AspectAttentionClassifier(**params, augment=None).fit(X, y)
    joined = AspectAttentionClassifier(**params, augment="join").fit(X, y)
    assert plain.score(X_test, y_test) <= 0.75
    assert joined.score(X_test, y_test) >= 0.9


def _recorded_splits(monkeypatch):
    """The (dataset, groups, synthetic, train, valid) of every split of the fits
    that follow."""
    splits = []

    def recording_split(dataset, groups, fraction, rng, synthetic=None, held_out=None):
        train, valid = split_sentences(
            dataset, groups, fraction, rng, synthetic, held_out
        )
        splits.append((dataset, groups, synthetic, train, valid))
        return train, valid

    monkeypatch.setattr(training, "split_sentences", recording_split)
    return splits


def _check_split(splits, joined=True):
    """The second fit (with copies) against the first (without): no copy is a
    sentence of the data or validated, a copy trains only when none of its
    sentences is held out, and the same sentences are held out as without the
    copies. ``joined``: copies of two sentences, some kept out for one of them.
    Returns the copies' mask."""
    (plain, plain_groups, _, _, plain_valid), second = splits
    dataset, groups, synthetic, train, valid = second
    assert synthetic is not None and synthetic.sum() > 0
    real = ~synthetic
    # groups: (n_pairs, 2), the sentences a pair goes with (its own twice if real)
    assert groups.shape == (len(dataset), 2)
    assert (groups[real, 0] == groups[real, 1]).all()
    group_of = dict(
        zip(dataset.sentence[real].tolist(), groups[real, 0].tolist(), strict=True)
    )
    held_out = {group_of[s] for s in valid.sentence.tolist()}
    held = np.isin(groups, list(held_out))  # (n_pairs, 2)
    if joined:
        assert (held[synthetic].any(1) & ~held[synthetic].all(1)).any()
    assert not set(dataset.sentence[synthetic]) & set(dataset.sentence[real])
    assert len(valid) == held[real, 0].sum()  # no copy validated
    assert len(train) == (~held.any(1)).sum()  # a copy trains with its sentences
    # the same sentences are held out as without the copies (groups number the
    # given texts alike in both fits)
    assert valid.targets.tolist() == plain_valid.targets.tolist()
    assert held_out == {
        group
        for s, group in zip(plain.sentence, plain_groups, strict=True)
        if s in set(plain_valid.sentence.tolist())
    }
    return synthetic


@pytest.mark.parametrize("how", ["flip", "join"])
def test_copies_train_only_with_their_sentences_and_are_never_validated(
    how, monkeypatch
):
    X, y = one_term_pairs([("great", "positive"), ("awful", "negative")], 80)
    X += [("the soup was terrible", "soup")]  # what a copy of "... great" becomes
    y += ["negative"]
    splits = _recorded_splits(monkeypatch)
    params = dict(
        **{**FAST, "max_epochs": 1},
        variant="at",
        aspect_type="term",
        validation_fraction=0.25,
    )
    AspectAttentionClassifier(**params, augment=None).fit(X, y)
    AspectAttentionClassifier(**params, augment=how).fit(X, y)
    synthetic = _check_split(splits, joined=how == "join")
    dataset = splits[1][0]
    if how == "flip":
        assert 70 <= synthetic.sum() <= 81
    else:  # one joined sentence (two terms) per distinct sentence
        real = dataset.sentence[~synthetic].tolist()
        assert synthetic.sum() == 2 * len(set(real))


def test_all_three_copies_are_each_ones_copies_together(monkeypatch):
    seen = spy_on_training_data(monkeypatch, AspectAttentionClassifier)
    X, y = one_term_pairs([("great", "positive"), ("awful", "negative")], 40)
    params = dict(**{**FAST, "max_epochs": 1}, variant="at", aspect_type="term")
    made = {}
    for how in ("flip", "join", "negate", "flip+join+negate"):
        AspectAttentionClassifier(**params, augment=how).fit(X, y)
        data = seen.pop()
        copies = slice(data.n_given, None)
        made[how] = sorted(
            zip(data.texts[copies], data.targets[copies].tolist(), strict=True)
        )
    # a negated copy of each sentence: "not great" negative, "never awful" ...
    negations = ("not", "never", "far from")
    assert len(made["negate"]) == 40 and all(
        any(f" {n} {w}" in t for n in negations for w in ("great", "awful"))
        for t, _ in made["negate"]
    )
    assert made["flip+join+negate"] == sorted(
        made["flip"] + made["join"] + made["negate"]
    )


def test_flip_augmentation_errors_and_warnings():
    X, y = one_term_pairs([("great", "good"), ("awful", "bad")], 20)
    clf = AspectAttentionClassifier(**FAST, aspect_type="term", augment="flip")
    for how in ("flip", "join", "flip+join"):
        with pytest.raises(InputError, match="makes examples labelled 'positive'"):
            clone(clf).set_params(augment=how).fit(X, y)
    X, y = one_term_pairs([("great", "positive"), ("awful", "negative")], 20)
    with pytest.raises(ValueError, match="'antonyms' parameter of .* lower-case"):
        clone(clf).set_params(antonyms={"Great": "awful"}).fit(X, y)
    with pytest.raises(ValueError, match="'augment' parameter"):
        clone(clf).set_params(augment="shuffle").fit(X, y)
    with pytest.warns(AspectAttnWarning, match="made no new example"):
        clone(clf).set_params(antonyms={"tasty": "bland"}, max_epochs=1).fit(X, y)
    with pytest.warns(AspectAttnWarning, match="made no new example"):
        AspectAttentionClassifier(
            **{**FAST, "max_epochs": 1}, aspect_type="category", augment="flip"
        ).fit(
            [("we waited an hour", "service"), ("the soup came", "food")],
            ["negative", "positive"],
        )  # categories flip too, but these sentences hold no opinion word


def test_an_augmented_model_round_trips_with_its_antonyms(tmp_path):
    X, y = one_term_pairs([("great", "positive"), ("awful", "negative")], 30)
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 2},
        aspect_type="term",
        augment="flip",
        antonyms={"great": "lousy", "awful": "superb"},
    ).fit(X, y)
    clf.save(tmp_path / "m.aam")
    loaded = AspectAttentionClassifier.load(tmp_path / "m.aam")
    assert loaded.get_params()["antonyms"] == {"great": "lousy", "awful": "superb"}
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))


# ------------------------------------------------------------ categories, detector
def test_join_categories_joins_opposite_sentences_of_other_categories():
    X, y = make_pairs(120, seed=0, single_share=0.6)
    texts, aspects = [t for t, _ in X], [a for _, a in X]
    X_new, y_new, source = join_categories(
        texts, aspects, y, "positive", "negative", random_state=0
    )
    assert len(X_new) == len(y_new) == len(source) > 0
    by_text = {}
    for (text, category), label, (i, j) in zip(X_new, y_new, source, strict=True):
        by_text.setdefault(text, []).append((category, label))
        assert label == y[i] and category == aspects[i]  # a source's own pair
        assert texts[j] != texts[i] and aspects[j] != aspects[i]
    for pairs in by_text.values():  # each joined sentence: two that disagree
        assert len(pairs) == 2 and {c for c, _ in pairs} == {"food", "service"}
        assert {lab for _, lab in pairs} == {"positive", "negative"}
    again = join_categories(texts, aspects, y, "positive", "negative", random_state=0)
    assert again[0] == X_new  # seeded


def test_join_table_keeps_each_sources_polarities():
    texts, Y = make_table(80, 0)
    table = Y.to_numpy(dtype=object)
    new_texts, new_table, source = join_table(
        texts, table, "none", "positive", "negative", random_state=0
    )
    assert len(new_texts) == len(new_table) == len(source) > 0
    for row, (a, b) in zip(new_table, source, strict=True):
        for k in range(table.shape[1]):
            expected = table[a, k] if table[a, k] != "none" else table[b, k]
            assert row[k] == expected
        assert {v for v in row if v != "none"} == {"positive", "negative"}


def test_copies_of_a_table_keep_the_cells_nobody_labelled():
    """A cell None (nobody labelled it) is no mention: the row is still of one
    tone, its flipped copy keeps the cell None, and a joined row's cell is None
    where either source's is."""
    texts = ["the pasta was great", "the waiter was rude", "the bread was bad"]
    table = np.array(
        [
            ["positive", "none", None],
            ["none", "negative", None],
            ["negative", "none", "none"],
        ],
        dtype=object,
    )
    _, flipped, source = flip_table(texts, table, "none", "positive", "negative")
    assert flipped.tolist() == [
        ["negative", "none", None],
        ["none", "positive", None],
        ["positive", "none", "none"],
    ]
    assert source.tolist() == [0, 1, 2]
    _, joined, source = join_table(
        texts, table, "none", "positive", "negative", random_state=0
    )
    assert len(joined) > 0
    for row, (a, b) in zip(joined, source, strict=True):
        assert row[2] is None  # rows 0 and 1 are None there, and one of them joins
        assert {table[a, 0], table[b, 0]} - {"none"} == {row[0]} - {"none"}


@pytest.mark.parametrize("augment", ["auto", "flip"])
def test_category_copies_train_only_with_their_sentences_never_validated(
    monkeypatch, augment
):
    X, y = make_pairs(120, seed=0, single_share=0.6)
    splits = _recorded_splits(monkeypatch)
    params = dict(**{**FAST, "max_epochs": 1}, variant="at", validation_fraction=0.25)
    AspectAttentionClassifier(**params, augment=None).fit(X, y)
    clf = AspectAttentionClassifier(**params, augment=augment).fit(X, y)
    # the defaults: augment="auto" flips and joins English categories
    made = "flip+join" if augment == "auto" else augment
    assert clf.resolved_params_["augment"] == made
    _check_split(splits, joined=augment == "auto")


@pytest.mark.parametrize("augment", ["auto", "flip+join+negate"])
def test_detector_copies_train_only_with_their_sentences_never_validated(
    monkeypatch, augment
):
    from aspectattn import AspectCategoryClassifier

    texts, Y = make_table(120, 0)
    splits = _recorded_splits(monkeypatch)
    params = dict(**{**FAST, "max_epochs": 1}, validation_fraction=0.25)
    AspectCategoryClassifier(**params, augment=None).fit(texts, Y)
    detector = AspectCategoryClassifier(**params, augment=augment).fit(texts, Y)
    assert detector.resolved_params_["augment"] == (
        augment if augment != "auto" else "flip+join+negate"  # the defaults
    )
    _check_split(splits)


def test_flip_text_reverses_every_opinion_word_or_negates_each():
    text = "Great pasta, and the waiter was FRIENDLY."
    assert flip_text(text) == "Terrible pasta, and the waiter was RUDE."
    assert flip_text(text, negation="never") == (
        "Never great pasta, and the waiter was NEVER FRIENDLY."
    )
    assert flip_text(text, {"great": "lousy"}) == (
        "Lousy pasta, and the waiter was FRIENDLY."
    )
    assert flip_text("the pasta arrived") is None  # no opinion word
    # a negated opinion is no plain reverse when negated again; swapped, it is
    assert flip_text("the soup was not bad", negation="not") is None
    assert flip_text("the soup was not bad") == "the soup was not good"


@pytest.mark.parametrize(
    "form, text, negated",
    [
        # before the words that intensify the opinion word, not between them
        ("not", "The staff was very friendly.", "The staff was not very friendly."),
        ("never", "The staff was so rude.", "The staff was never so rude."),
        ("far from", "Great pasta.", "Far from great pasta."),
        ("n't", "The pasta WAS great.", "The pasta WASN'T great."),
        ("n't", "The rooms were really cramped.", "The rooms weren't really cramped."),
        ("no", "It's a great place.", "It's no great place."),
        # where the form does not fit, the next one of NEGATIONS that does
        ("n't", "Great pasta.", "Not great pasta."),
        ("no", "The pasta is very good.", "The pasta is not very good."),
        ("no", "They serve a great pasta.", "They serve a not great pasta."),
        ("never", "It is a great place.", "It is a far from great place."),
        # the article agrees with the word now after it
        ("not", "They serve an excellent pasta.", "They serve a not excellent pasta."),
        ("far from", "An amazing view.", "A far from amazing view."),
        ("not", "AN AMAZING VIEW.", "A NOT AMAZING VIEW."),
    ],
)
def test_flip_text_negates_in_each_form_where_it_fits(form, text, negated):
    assert flip_text(text, negation=form) == negated


def test_negated_copies_take_the_forms_given_in_turn_and_leave_terms_alone():
    text = "The pasta was great but the waiter was very rude."
    texts, terms, labels = [text, text], ["pasta", "waiter"], ["positive", "negative"]

    def targets(forms, texts=texts, terms=terms):
        X, y, target, _ = flip_pairs(
            texts, terms, None, labels, "positive", "negative",
            negate=True, negations=forms,
        )  # fmt: skip
        return [
            (x[0], x[1], label) for x, label, t in zip(X, y, target, strict=True) if t
        ]

    # "no" does not fit "very rude": the next form, "n't", does
    assert targets(("n't", "no")) == [
        ("The pasta wasn't great but the waiter was very rude.", "pasta", "negative"),
        ("The pasta was great but the waiter wasn't very rude.", "waiter", "positive"),
    ]
    # one form alone: a place it does not fit makes no copy
    assert targets(("no",)) == []
    # the copies' forms by default
    assert [t[0] for t in targets(None)] == [
        "The pasta was not great but the waiter was very rude.",
        "The pasta was great but the waiter was never very rude.",
    ]
    # a term's own words are never edited: "was" belongs to the term here
    odd = ["The menu was great."]
    assert targets(("n't",), odd, ["menu was"]) == []
    assert targets(("not",), odd, ["menu was"])[0][0] == "The menu was not great."


def test_flip_categories_reverses_one_tone_sentences_only():
    texts = [
        "the pasta was great and the staff friendly",
        "the pasta was great and the staff friendly",
        "the soup was bad but the waiter was nice",
        "the soup was bad but the waiter was nice",
        "we waited an hour",
        "the room was noisy",
    ]
    cats = ["food", "service", "food", "service", "service", "ambience"]
    y = ["positive", "positive", "negative", "positive", "negative", "neutral"]
    X_new, y_new, source = flip_categories(texts, cats, y, "positive", "negative")
    assert X_new == [
        ("the pasta was terrible and the staff rude", "food"),
        ("the pasta was terrible and the staff rude", "service"),
    ]  # the disagreeing, the opinion-less and the neutral sentence: no copy
    assert y_new == ["negative", "negative"] and source.tolist() == [0, 1]
    X_neg, y_neg, _ = flip_categories(
        texts, cats, y, "positive", "negative", negate=True
    )
    assert X_neg[0][0] == "the pasta was not great and the staff not friendly"
    assert y_neg == ["negative", "negative"]


def test_flip_table_reverses_the_mentioned_categories():
    texts = [
        "the pasta was great",
        "rude staff, awful food",
        "the soup was bad, nice staff",
    ]
    table = np.array(
        [
            ["positive", "none"],
            ["negative", "negative"],
            ["negative", "positive"],
        ],
        dtype=object,
    )
    new_texts, new_table, source = flip_table(
        texts, table, "none", "positive", "negative"
    )
    assert new_texts == ["the pasta was terrible", "friendly staff, excellent food"]
    assert new_table.tolist() == [["negative", "none"], ["positive", "positive"]]
    assert source.tolist() == [0, 1]
    empty = flip_table(["we waited"], table[:1], "none", "positive", "negative")
    assert empty[0] == [] and empty[1].shape == (0, 2) and empty[2].shape == (0,)


def test_the_detectors_negated_copies_take_every_form_the_pairs_three():
    """As the rule chose on validation: the detector's copies (flip_table) in
    every form of NEGATIONS in turn, the categories' pairs' (flip_categories)
    in the three of COPY_NEGATIONS."""
    texts = [f"the {food} was great" for food in ("pasta", "soup", "fish", "tea")]
    table = np.array([["positive"]] * 4, dtype=object)
    negated = flip_table(texts, table, "none", "positive", "negative", negate=True)
    assert negated[0] == [
        "the pasta was not great",
        "the soup was never great",
        "the fish was far from great",
        "the tea wasn't great",
    ]
    pairs = flip_categories(
        texts, ["food"] * 4, ["positive"] * 4, "positive", "negative", negate=True
    )
    assert [text for text, _ in pairs[0]][2:] == [
        "the fish was far from great",
        "the tea was not great",
    ]


def test_category_copies_are_labelled_reversed(monkeypatch):
    seen = spy_on_training_data(monkeypatch, AspectAttentionClassifier)
    X = [("the pasta was great", "food"), ("the waiter was rude", "service")] * 5
    X = [(f"{t} number {k}", a) for k, (t, a) in enumerate(X)]
    y = ["positive", "negative"] * 5
    AspectAttentionClassifier(**FAST, augment="flip+join+negate").fit(X, y)
    (data,) = seen
    copies = slice(data.n_given, None)
    made = dict(
        zip(
            zip(data.texts[copies], data.aspects[copies], strict=True),
            data.classes[data.targets[copies]],
            strict=True,
        )
    )
    assert made["the pasta was terrible number 0", "food"] == "negative"
    assert made["the waiter was never rude number 1", "service"] == "positive"
    joined = [(t, a) for t, a in made if " but " in t or " while " in t]
    assert joined  # joined copies too, flips and joins made from the given pairs
