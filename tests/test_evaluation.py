"""aspectattn.evaluation: the behavioural suite (its sentences, its scoring, that
none is in any data set the project reads) and the ARTS-style probes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import SHARED_DATA, requires_shared_data
from sklearn.base import BaseEstimator, ClassifierMixin

from aspectattn import InputError
from aspectattn.evaluation import (
    arts_probes,
    aspect_robustness_score,
    behaviour_suite,
    format_behaviour,
    score_behaviour,
)
from aspectattn.evaluation.lexicon import DOMAINS


@pytest.fixture(scope="module")
def suite():
    return behaviour_suite()


def test_the_suite_is_large_varied_and_its_spans_hold_the_terms(suite):
    assert len(suite) >= 2000
    assert {i["type"] for i in suite} == {"MFT", "INV", "DIR"}
    assert {i["domain"] for i in suite} == set(DOMAINS) and len(DOMAINS) >= 4
    for item in suite:
        start, end = item["span"]
        assert item["text"][start:end] == item["term"]
        if "base_text" in item:
            start, end = item["base_span"]
            assert item["base_text"][start:end] == item["term"]
            assert item["base_text"] != item["text"]
    contrast = [i for i in suite if i["test"] == "contrast"]
    texts = {i["text"] for i in contrast}
    # both orders, every connective, and the two aspects of a sentence disagree
    for connective in (
        " but ",
        ", although ",
        "While ",
        "; ",
        ", and yet ",
        " whereas ",
    ):
        assert any(connective in t for t in texts), connective
    by_text = {}
    for item in contrast:
        by_text.setdefault(item["text"], set()).add(item["expected"])
    assert all(labels == {"positive", "negative"} for labels in by_text.values())
    assert len({i["term"] for i in suite}) >= 60
    assert behaviour_suite(random_state=0) == suite
    assert behaviour_suite(random_state=1) != suite


def test_every_aspect_takes_the_verb_of_its_number(suite):
    # a term ending in "s" is plural unless it is one of these singular nouns
    singular_in_s = {"waitress", "hostess"}
    for aspects in DOMAINS.values():
        for aspect in aspects:
            plural = aspect.term.endswith("s") and aspect.term not in singular_in_s
            assert aspect.plural == plural, aspect.term
    after = {re.match(r" (\w+)", i["text"][i["span"][1] :]) for i in suite}
    verbs = {m.group(1) for m in after if m}
    assert {"was", "were", "is", "are"} <= verbs


def _normal(text: str) -> str:
    return re.sub(r"\W+", " ", text.casefold()).strip()


@requires_shared_data("semeval2014_restaurants", "semeval2016_multilingual")
def test_no_suite_sentence_is_in_any_data_set_the_project_reads(suite, monkeypatch):
    """The suite measures: not one of its sentences (nor of the sentences its
    INV and DIR items change) is in the training or test data of a data set."""
    from aspectattn.datasets import DATASETS

    monkeypatch.setenv("ASPECTATTN_DATA", str(SHARED_DATA))
    mine = {_normal(i["text"]) for i in suite}
    mine |= {_normal(i["base_text"]) for i in suite if "base_text" in i}
    seen = set()
    for dataset in DATASETS.values():
        for split in dataset.splits:
            X, _ = dataset.load(split)
            seen |= {_normal(x[0]) for x in X}
        if dataset.table is not None:
            texts, _ = dataset.load_table(dataset.splits[0])
            seen |= {_normal(t) for t in texts}
    assert len(seen) > 10_000  # every data set was read
    assert not mine & seen


class Oracle(ClassifierMixin, BaseEstimator):
    """Answers what the suite expects (a stand-in for a perfect model), or, with
    ``tone``, the first opinion word's polarity for every aspect of a sentence."""

    def __init__(self, answers=None, tone=False, aspect_type="term"):
        self.answers = answers
        self.tone = tone
        self.aspect_type = aspect_type

    def fit(self, X=None, y=None):
        self.classes_ = np.array(["negative", "neutral", "positive"])
        self.aspect_type_ = self.aspect_type
        self.aspects_ = np.array(["food", "service"])
        return self

    def predict(self, X):
        from aspectattn.evaluation.lexicon import NEGATIVE, POSITIVE

        out = []
        for text, aspect, *_ in X:
            if self.tone:
                words = re.findall(r"[\w-]+", text.lower())
                first = next((w for w in words if w in POSITIVE + NEGATIVE), "great")
                out.append("positive" if first in POSITIVE else "negative")
            else:
                out.append(self.answers.get((text, aspect), "neutral"))
        return np.array(out)


def _answers(items, key="term"):
    answers = {(i["text"], i[key]): i["expected"] for i in items}
    # the unchanged sentence of an INV item: the target's label is the same
    answers |= {(i["base_text"], i[key]): i["expected"] for i in items
                if i["type"] == "INV"}  # fmt: skip
    return answers


def test_a_perfect_model_passes_everything_and_a_tone_reader_does_not(suite):
    perfect = score_behaviour(Oracle(_answers(suite)).fit())
    assert perfect["MFT"] == perfect["INV"] == perfect["DIR"] == 1.0
    assert perfect["n"] == len(suite) and perfect["skipped"] == 0
    assert sum(row["n"] for row in perfect["tests"]) == len(suite)
    tone = score_behaviour(Oracle(tone=True).fit())
    assert tone["MFT"] < 0.75  # half the aspects of a contrast sentence
    contrast = [r for r in tone["tests"] if r["test"] == "contrast"]
    assert all(0.3 < r["passed"] < 0.7 for r in contrast)
    table = format_behaviour(tone)
    assert "MFT contrast" in table and "restaurants" in table and "passed:" in table


def test_a_category_model_answers_the_categories_it_knows(suite):
    model = Oracle(_answers(suite, "category"), aspect_type="category").fit()
    result = score_behaviour(model, domains=["restaurants", "hotels"])
    kept = [i for i in suite if i["domain"] in ("restaurants", "hotels")
            and i["category"] in ("food", "service")]  # fmt: skip
    assert result["n"] == len(kept) and result["skipped"] > 0
    # (an answer keyed by sentence and category may be another item's, where
    # both aspects of a sentence share the category: not in the suite)
    assert result["MFT"] == 1.0


def test_bad_requests_are_clear_errors():
    model = Oracle({}).fit()
    with pytest.raises(ValueError, match="unknown domains"):
        score_behaviour(model, domains=["cars"])
    model.classes_ = np.array([-1, 0, 1])
    with pytest.raises(InputError, match="labels="):
        score_behaviour(model, domains=["phones"])
    answers = {k: {"positive": 1, "negative": -1}[v] for k, v in
               _answers(behaviour_suite(["phones"])).items()}  # fmt: skip
    model.answers = answers
    result = score_behaviour(
        model, domains=["phones"], labels={"positive": 1, "negative": -1}
    )
    assert result["MFT"] == 1.0
    with pytest.raises(InputError, match="aspect_type_"):
        score_behaviour(np.zeros(3))


# ------------------------------------------------------------------ ARTS probes
SENTENCE = "The pasta was great but the waiter was rude."
DATA = [
    ((SENTENCE, "pasta", (4, 9)), "positive"),
    ((SENTENCE, "waiter", (28, 34)), "negative"),
    (("The soup was awful.", "soup", (4, 8)), "negative"),
    (("Lovely staff.", "staff", (7, 12)), "positive"),
    (("We came at noon for the tacos.", "tacos", (24, 29)), "neutral"),
]


def test_arts_variants_reverse_the_target_or_the_others_or_add_a_clause():
    X, y = [d[0] for d in DATA], [d[1] for d in DATA]
    probes = arts_probes(X, y)
    X_t, y_t, item = probes["RevTgt"]
    made = dict(zip(item.tolist(), zip(X_t, y_t, strict=True), strict=False))
    assert made[0] == (("The pasta was terrible but the waiter was rude.", "pasta",
                        (4, 9)), "negative")  # fmt: skip
    assert made[1][0][0] == "The pasta was great but the waiter was friendly."
    assert 4 not in made  # a neutral target has nothing to reverse
    X_n, y_n, item = probes["RevNon"]
    assert item.tolist() == [0, 1]
    assert X_n[0] == ("The pasta was great but the waiter was friendly.", "pasta",
                      (4, 9)) and y_n == ["positive", "negative"]  # fmt: skip
    X_a, y_a, item = probes["AddDiff"]
    for (text, term, (start, end)), label, k in zip(X_a, y_a, item, strict=True):
        assert text[start:end] == term and label == y[k]
        assert text.startswith(X[k][0].rstrip("."))
        assert ", but " in text
    # a positive target gets a negative clause about another aspect, and so on
    by_item = {int(k): text for (text, *_), k in zip(X_a, item, strict=True)}
    assert by_item[0].endswith(", but the soup was awful.")
    assert by_item[2].endswith(", but lovely staff.")


def test_ars_counts_a_pair_only_if_every_variant_is_right():
    X, y = [d[0] for d in DATA], [d[1] for d in DATA]
    probes = arts_probes(X, y)
    answers = {(x[0], x[1]): label for x, label in zip(X, y, strict=True)}
    for X_v, y_v, _ in probes.values():
        answers |= {(x[0], x[1]): label for x, label in zip(X_v, y_v, strict=True)}
    perfect = aspect_robustness_score(Oracle(answers).fit(), X, y)
    assert perfect["ARS"] == perfect["accuracy"] == 1.0
    assert perfect["n_items"] == 5 and perfect["n_RevTgt"] >= 3
    tone = aspect_robustness_score(Oracle(tone=True).fit(), X, y)
    assert tone["ARS"] < tone["accuracy"] <= 1.0


CATEGORIES = [
    (("The pasta was great but the waiter was rude.", "food"), "positive"),
    (("The pasta was great but the waiter was rude.", "service"), "negative"),
    (("The soup was awful.", "food"), "negative"),
    (("Lovely staff.", "service"), "positive"),
    (("Cosy room, fair prices.", "ambience"), "positive"),
]


def test_category_pairs_get_a_clause_about_another_category():
    X, y = [d[0] for d in CATEGORIES], [d[1] for d in CATEGORIES]
    probes = arts_probes(X, y)
    assert probes["RevTgt"][0] == probes["RevNon"][0] == []  # nothing to reverse
    X_a, y_a, item = probes["AddDiff"]
    assert y_a == [y[k] for k in item]
    made = {int(k): x for x, k in zip(X_a, item, strict=True)}
    # a positive clause about another category for the negative soup...
    assert made[2][1] == "food" and made[2][0] in (
        "The soup was awful, but lovely staff.",
        "The soup was awful, but cosy room, fair prices.",
    )
    assert made[3] == ("Lovely staff, but the soup was awful.", "service")
    # ...and never one about a category the sentence already has
    assert made[1][0].endswith(", but cosy room, fair prices.")
    assert 0 not in made  # the positive pasta: no negative clause left


def test_a_detector_is_right_only_where_it_finds_the_category_so():
    X, y = [d[0] for d in CATEGORIES], [d[1] for d in CATEGORIES]
    probes = arts_probes(X, y)
    mentions = {}
    for X_v, y_v in [(X, y)] + [(p[0], p[1]) for p in probes.values()]:
        for (text, category), label in zip(X_v, y_v, strict=True):
            mentions.setdefault(text, {})[category] = label
    detector = Detector(mentions).fit()
    detector.categories_ = np.array(["ambience", "food", "service"])
    perfect = aspect_robustness_score(detector, X, y)
    assert perfect["ARS"] == perfect["accuracy"] == 1.0 and perfect["n_items"] == 4
    # the same detector, but blind to service wherever it is: those pairs
    # are wrong (the cell holds "none", not a polarity)
    no_service = {t: {c: v for c, v in m.items() if c != "service"}
                  for t, m in mentions.items()}  # fmt: skip
    blind = Detector(no_service).fit()
    blind.categories_ = detector.categories_
    missed = aspect_robustness_score(blind, X, y)
    assert missed["accuracy"] == pytest.approx(3 / 5)
    assert missed["ARS"] == pytest.approx(2 / 4)
    detector.categories_ = np.array(["food"])
    with pytest.raises(InputError, match="does not know the categories"):
        aspect_robustness_score(detector, X, y)


# ------------------------------------------------------------------ detection
class Detector(BaseEstimator):
    """Answers what the detection items say a sentence is about (a perfect
    detector), or, with ``everything``, every category with that tone."""

    def __init__(self, answers=None, everything=False):
        self.answers = answers
        self.everything = everything

    def fit(self, X=None, y=None):
        self.categories_ = np.array(["anecdotes/miscellaneous", "food", "service"])
        self.not_mentioned = "none"
        return self

    def predict(self, texts):
        rows = []
        for text in texts:
            mentions = self.answers.get(text, {})
            if self.everything and mentions:
                tone = next(iter(mentions.values()))
                mentions = dict.fromkeys(self.categories_.tolist(), tone)
            rows.append([mentions.get(c, "none") for c in self.categories_])
        return np.array(rows, dtype=object)


def _mentions(domains):
    from aspectattn.evaluation.suite import _detection_items

    answers = {}
    for domain in domains:
        rng = np.random.default_rng([0, 100 + list(DOMAINS).index(domain)])
        answers |= {i["text"]: i["mentions"] for i in _detection_items(domain, rng)}
    return answers


def test_detection_tests_tell_a_detector_that_finds_every_category():
    from aspectattn.evaluation import score_detection

    domains = ["restaurants", "hotels"]
    good = score_detection(Detector(_mentions(domains)).fit(), domains=domains)
    assert good["found"] == good["no_false_mentions"] == good["polarity"] == 1.0
    assert good["n"] > 50
    assert {r["test"] for r in good["tests"]} == {
        "one aspect", "two aspects that disagree", "no aspect in particular"
    }  # fmt: skip
    tone = Detector(_mentions(["restaurants"]), everything=True).fit()
    bad = score_detection(tone, domains=["restaurants"])
    assert bad["found"] == 1.0 and bad["no_false_mentions"] < 0.5
    with pytest.raises(InputError, match="category detector"):
        score_detection(Oracle({}).fit())


def test_odd_probe_input_is_a_clear_error_not_a_quiet_score():
    """A reversed span, one over another word or out of the text made no probe
    in silence; labels spelled otherwise made none and ARS nan; integer labels
    against string classes scored 0."""
    text = "The pasta was great but the waiter was rude."
    for span, says in [
        ((9, 4), "not inside its text"),
        ((28, 34), "holds 'waiter', not the term 'pasta'"),
        ((4, 900), "not inside its text"),
    ]:
        with pytest.raises(InputError, match=says):
            arts_probes([(text, "pasta", span)], ["positive"])
    for labels in (["pos"], ["Positive"], [1]):
        with pytest.raises(InputError, match="read the labels"):
            arts_probes([(text, "pasta", (4, 9))], labels)

    class Numbers:
        classes_ = np.array([-1, 0, 1])

        def predict(self, X):
            return np.ones(len(X), dtype=int)

    with pytest.raises(InputError, match="None of y's labels"):
        aspect_robustness_score(Numbers(), [(text, "pasta", (4, 9))], ["positive"])


def test_the_suite_takes_one_domain_by_name_and_a_seed_of_none():
    one = behaviour_suite("restaurants")
    assert one == behaviour_suite(["restaurants"]) and one
    assert {item["domain"] for item in behaviour_suite(random_state=None)} == set(
        DOMAINS
    )
    with pytest.raises(ValueError, match="random_state must be an int"):
        behaviour_suite(random_state="x")
    with pytest.raises(ValueError, match="format_behaviour takes what score_beh"):
        format_behaviour({})
