import pytest
from conftest import make_pairs

from aspectattn.augment import flip_opinions, join_opposite


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
