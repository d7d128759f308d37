import pytest
from conftest import SHARED_DATA

from aspectattn.text import pos


@pytest.mark.parametrize(
    "tag, expected",
    [
        ("JJ", "ADJ"),
        ("RBR", "ADV"),
        ("NNS", "NOUN"),
        ("VBZ", "VERB"),
        ("MD", "VERB"),
        ("ADJ", "ADJ"),
        ("PROPN", "NOUN"),
        ("CCONJ", "CONJ"),
        (",", "."),
        ("''", "."),
        ("XYZ", "X"),
    ],
)
def test_to_universal(tag, expected):
    assert pos.to_universal(tag) == expected


def test_tag_sentences_accepts_pairs_and_checks_lengths():
    assert pos.tag_sentences([["a", "b"]], lambda t: [(w, "NN") for w in t]) == [
        ["NOUN", "NOUN"]
    ]
    with pytest.raises(ValueError, match="one per token"):
        pos.tag_sentences([["a", "b"]], lambda t: ["NN"])


@pytest.mark.skipif(not (SHARED_DATA / "nltk_data").exists(), reason="no NLTK data")
def test_nltk_tagger_from_nltk_data(monkeypatch):
    nltk = pytest.importorskip("nltk")
    monkeypatch.setattr(nltk.data, "path", [str(SHARED_DATA / "nltk_data")])
    pos._reset_nltk_tagger()
    try:
        tags = pos.tag_sentences([["I", "love", "the", "pasta"]])
    finally:
        pos._reset_nltk_tagger()
    assert tags == [["PRON", "VERB", "DET", "NOUN"]]


def test_missing_tagger_model_says_how_to_install_it(monkeypatch, tmp_path):
    nltk = pytest.importorskip("nltk")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])  # an empty NLTK_DATA
    asked = []
    monkeypatch.setattr(nltk, "download", lambda *a, **k: asked.append(a) or False)
    pos._reset_nltk_tagger()
    try:
        with pytest.raises(
            LookupError, match="python -m nltk.downloader averaged_perceptron"
        ):
            pos.nltk_tagger()
    finally:
        pos._reset_nltk_tagger()
    assert asked == [("averaged_perceptron_tagger_eng",)]  # it tried nltk.download


def test_missing_nltk_gives_install_hint(monkeypatch):
    import sys

    from aspectattn import MissingDependencyError

    monkeypatch.setitem(sys.modules, "nltk", None)
    monkeypatch.setitem(sys.modules, "nltk.tag", None)
    pos._reset_nltk_tagger()
    with pytest.raises(MissingDependencyError, match=r"aspectattn\[pos\]"):
        pos.nltk_tagger()
