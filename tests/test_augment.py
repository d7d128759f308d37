import pytest
from conftest import make_pairs

from aspectattn.augment import join_opposite


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
