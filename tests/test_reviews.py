"""Reviews -> sentences -> aspects: the sentence table and its aggregates."""

import numpy as np
import pandas as pd
import pytest
from conftest import MIXED_SCRIPTS, reviews_frame
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aspectattn import InputError
from aspectattn.extraction.reading import TermsEndToEnd
from aspectattn.reviews import (
    EXAMPLES_PER_LABEL,
    ReviewSummary,
    analyze_reviews,
    iter_analysis,
    split_sentences,
    wilson_interval,
)
from aspectattn.reviews.report import render_report


def test_split_sentences_keeps_abbreviations_and_review_order():
    review, sentences = split_sentences(
        ["Dr. Smith came at noon. The soup was cold.", "", "Great!! Loved it."]
    )
    assert sentences == [
        "Dr. Smith came at noon.",
        "The soup was cold.",
        "Great!!",
        "Loved it.",
    ]
    assert review.tolist() == [0, 0, 2, 2]
    with pytest.raises(InputError, match="Review 1 is a int"):
        split_sentences(["fine", 3])


@pytest.mark.parametrize("text, n", MIXED_SCRIPTS)
def test_sentences_end_where_their_script_ends_them(text, n):
    review, sentences = split_sentences([text])
    assert len(sentences) == n, sentences
    assert "".join(sentences).replace(" ", "") == "".join(text.split())


def test_sentence_table_and_summary(detector):
    table, summary = analyze_reviews(
        reviews_frame(),
        detector,
        id_column="id",
        date_column="date",
        group_column="shop",
    )
    assert list(table.columns[:4]) == ["review_id", "sentence_id", "sentence", "aspect"]
    rows = {(r.review_id, r.sentence_id, r.aspect): r for r in table.itertuples()}
    assert rows["r1", 0, "food"].label == "positive"
    assert rows["r1", 1, "service"].label == "negative"
    assert rows["r2", 1, "food"].label == "negative"
    assert not any(key[:2] == ("r2", 0) for key in rows)  # "we went there..."
    assert rows["r3", 0, "service"].label == "positive"
    assert str(rows["r1", 0, "food"].date.date()) == "2024-01-05"
    assert summary.n_reviews == 4 and summary.n_sentences == 5
    # the aggregates are those of the table
    overall = summary.table().set_index("aspect")
    counts = table.groupby("aspect").size()
    assert overall["mentions"].to_dict() == counts.to_dict()
    positive = (table["label"] == "positive").groupby(table["aspect"]).mean()
    np.testing.assert_allclose(overall["share_positive"], positive[overall.index])
    by_period = summary.table(by="period")
    assert set(by_period["period"]) == {"2024-01", "2024-02"}
    assert by_period["mentions"].sum() == len(table)
    by_group = summary.table(by="group").set_index(["group", "aspect"])
    assert by_group["mentions"].to_dict() == (
        table.groupby(["group", "aspect"]).size().to_dict()
    )
    best = summary.top_examples("food", "positive")[0]
    assert best["sentence"] == "The pasta was great." and best["review_id"] == "r1"
    assert len(best["tokens"]) == len(best["weights"])
    with pytest.raises(ValueError, match="by must be"):
        summary.table(by="shop")


def test_a_sentence_without_a_word_is_skipped_and_counted(detector):
    # a zero-width space alone (and a review that is nothing else) aborted the
    # whole analysis with "has no tokens"
    reviews = [
        "The pasta was great. \u200b. The waiter was rude.",
        "\u200b",
        "The soup was bland.",
    ]
    table, summary = analyze_reviews(reviews, detector)
    assert summary.n_reviews == 3 and summary.n_skipped_sentences >= 1
    assert set(table["review_id"]) <= {0, 2} and 0 in set(table["review_id"])
    assert "had no word the model reads" in render_report(summary)


def test_streaming_chunks_equal_one_pass_and_memory_stays_bounded(detector):
    frame = pd.concat([reviews_frame()] * 10, ignore_index=True)
    whole = ReviewSummary()
    for table in iter_analysis(frame, detector):
        whole.update(table)
    chunked = ReviewSummary()
    chunks = (frame.iloc[i : i + 7] for i in range(0, len(frame), 7))
    tables = list(iter_analysis(chunks, detector, batch_size=3))
    for table in tables:
        chunked.update(table)
    assert chunked.counts == whole.counts and chunked.n_sentences == 50
    # review ids continue across chunks; examples are capped
    assert pd.concat(tables)["review_id"].max() == 38
    assert all(len(h) <= EXAMPLES_PER_LABEL for h in chunked.examples.values())


def test_bad_reviews_input_is_a_clear_error(detector):
    with pytest.raises(InputError, match="no date column 'when'"):
        next(iter_analysis(reviews_frame(), detector, date_column="when"))
    with pytest.raises(InputError, match="iterable of DataFrame chunks"):
        next(iter_analysis([["not", "a frame"]], detector))


def test_wilson_interval():
    low, high = wilson_interval(np.array([0, 5, 10]), np.array([10, 10, 10]))
    # the textbook values for 0/10, 5/10 and 10/10 at 95%
    np.testing.assert_allclose(low, [0.0, 0.2366, 0.7225], atol=1e-4)
    np.testing.assert_allclose(high, [0.2775, 0.7634, 1.0], atol=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


# ------------------------------------------------------------------ dates, groups
def test_one_date_rule_for_every_chunk():
    from aspectattn.reviews import DateRule

    # pandas inferred a format per chunk: 03/04/2021 became April 3rd in one chunk
    # and March 4th in the next. One rule, decided from the file's dates, is kept.
    iso = [f"2021-01-{d:02d}" for d in range(1, 11)]
    dmy = [f"{d:02d}/03/2021" for d in range(11, 21)]  # day first (11-20 > 12)
    rule = DateRule.infer(iso + dmy + ["03/04/2021"])
    assert rule.dayfirst
    dates, unparsed = rule.parse(iso + dmy + ["03/04/2021"])
    assert unparsed == 0 and str(dates[-1])[:10] == "2021-04-03"
    first, _ = rule.parse(["03/04/2021"])
    assert first[0] == dates[-1]  # the same day whatever the chunk


def test_mixed_date_forms_are_all_read_and_the_rest_counted():
    from aspectattn.reviews import DateRule

    values = [
        "2021-02-05",
        "2021-02-05T10:00:00+02:00",  # an offset: converted to UTC
        "2021-02-05T08:00:00Z",
        "05/02/2021",  # day first, decided by the next one
        "25/12/2021",
        "1612483200",  # a Unix timestamp (2021-02-05)
        "1612483200000",  # in milliseconds
        "Feb 5 2021",
        "5 February 2021",
        "not a date",
        "",  # missing: not counted as unparsed
        None,
    ]
    dates, unparsed = DateRule.infer(values).parse(values)
    days = [str(d)[:10] for d in dates]
    assert days[:9] == ["2021-02-05"] * 4 + ["2021-12-25"] + ["2021-02-05"] * 4
    assert str(dates[1])[11:16] == "08:00"
    assert unparsed == 1 and days[9:] == ["NaT"] * 3


def test_dates_are_read_with_one_rule_across_chunks_and_counted(detector):
    from aspectattn.reviews import ReviewSummary, iter_analysis

    frame = pd.DataFrame(
        {
            "text": ["The soup was bland."] * 21,
            "date": [f"2021-01-{d:02d}" for d in range(1, 11)]
            + [f"{d:02d}/02/2021" for d in range(11, 21)]
            + ["someday"],
        }
    )
    chunks = [frame.iloc[k : k + 5] for k in range(0, 21, 5)]
    summary = ReviewSummary()
    tables = list(
        iter_analysis(chunks, detector, date_column="date", date_format="%Y-%m-%d")
    )
    for table in tables:
        summary.update(table)
    assert summary.n_unparsed_dates == 11  # the format given: d/m/Y are not read
    from aspectattn.reviews import DateRule

    rule = DateRule.infer(frame["date"])
    summary = ReviewSummary()
    for table in iter_analysis(chunks, detector, date_column="date", date_format=rule):
        summary.update(table)
        assert table["date"].notna().all() or "someday" in frame["date"].values
    assert summary.n_unparsed_dates == 1
    periods = {p for p, _, _ in summary.period_counts}
    assert periods == {"2021-01", "2021-02"}


def test_missing_groups_are_one_group_and_ids_are_kept_as_written(detector):
    from aspectattn.reviews import iter_analysis
    from aspectattn.reviews.analysis import NO_GROUP

    frame = pd.DataFrame(
        {
            "text": ["The soup was bland."] * 4,
            "shop": [7, None, 8, float("nan")],  # JSON ints with gaps: floats
        }
    )
    table = pd.concat(list(iter_analysis(frame, detector, group_column="shop")))
    assert sorted(set(table["group"])) == sorted({"7", "8", NO_GROUP})


@pytest.mark.parametrize("value", [float("nan"), -1, 0, 1, 2, "0.5", True])
def test_min_probability_is_validated(detector, value):
    from aspectattn.reviews import iter_analysis

    with pytest.raises(ValueError, match="min_probability"):
        next(iter_analysis(["The soup was bland."], detector, min_probability=value))
    with pytest.raises(ValueError, match="min_probability"):
        detector.analyze(["The soup was bland."], min_probability=value)


def test_a_huge_review_is_cut_into_bounded_pieces_with_a_warning():
    from aspectattn.reviews.sentences import MAX_SEGMENT_CHARS, _pieces

    text = "The pasta was great. The waiter was rude.\n" * 12_000  # 0.5 MB
    pieces = _pieces(text, MAX_SEGMENT_CHARS)
    assert "".join(pieces) == text
    assert max(map(len, pieces)) <= MAX_SEGMENT_CHARS
    assert all(p.endswith("\n") for p in pieces[:-1])  # cut at line ends
    no_space = "x" * (3 * MAX_SEGMENT_CHARS + 5)
    assert [len(p) for p in _pieces(no_space, MAX_SEGMENT_CHARS)] == [
        MAX_SEGMENT_CHARS
    ] * 3 + [5]
    with pytest.warns(UserWarning, match="1 review.* cut into pieces"):
        review, sentences = split_sentences(["Short one.", text])
    assert len(sentences) == 1 + 24_000 and review[-1] == 1


# ------------------------------------------------------------------------ fuzzing
_CELL = st.one_of(
    st.none(),
    st.just(float("nan")),
    st.text(max_size=40),
    st.integers(-(10**12), 10**13),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [
            "2021-02-05",
            "05/02/2021",
            "25/12/2021",
            "12/25/2021",
            "1612483200",
            "2021-02-05T10:00:00+02:00",
            "Feb 5",
            "",
            "  ",
            "0000-00-00",
            "31/02/2021",
        ]
    ),
    st.lists(st.text(max_size=5), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    rows=st.lists(st.tuples(_CELL, _CELL, _CELL), min_size=1, max_size=8),
    chunk=st.integers(1, 4),
)
def test_fuzzed_review_files_give_a_result_or_one_clear_error(
    detector, tally, rows, chunk
):  # fmt: skip
    from aspectattn.reviews import ReviewSummary, iter_analysis

    frame = pd.DataFrame(rows, columns=["text", "date", "group"])
    chunks = [frame.iloc[k : k + chunk] for k in range(0, len(frame), chunk)]
    summary = ReviewSummary()
    try:
        for table in iter_analysis(
            chunks, detector, date_column="date", group_column="group"
        ):
            summary.update(table)
            assert table["group"].map(type).eq(str).all()
    except InputError as exc:
        assert "expected a string" in str(exc)
        tally["refused (a text that is not a string)"] += 1
        return
    tally["analysed"] += 1
    given = sum(
        not (v is None or (isinstance(v, float) and v != v) or str(v).strip() == "")
        for v in frame["date"]
    )
    assert 0 <= summary.n_unparsed_dates <= given
    assert summary.n_reviews == len(frame)
    render_report(summary)  # any labels, groups and dates: the report renders


def test_english_abbreviations_end_no_sentence_in_english_only():
    text = "Dr. Smith was nice. The soup was bland."
    assert len(split_sentences([text], language="en")[1]) == 2
    assert len(split_sentences([text], language=None)[1]) == 3


class _TermModel(TermsEndToEnd):
    """A term model as the review analysis sees one: its ``names`` key each
    listed word it finds, ``analyze`` answers it positive, or negative after
    "bad"."""

    WORDS = ("trackpad", "track pad", "OS X", "OSX", "screen")

    def __init__(self, aspect_names=None):
        from aspectattn.extraction.aspects import AspectNames

        self.names = AspectNames(aspect_names, "en")

    def _aspect_names(self):
        return self.names

    def analyze(self, sentences, min_probability=0.5):
        out = []
        for text in sentences:
            entries = []
            for word in self.WORDS:
                start = text.find(word)
                if start >= 0:
                    entries.append(
                        {
                            "text": text,
                            "aspect": self.names(word, start == 0),
                            "label": "negative" if "bad" in text else "positive",
                            "probability": 0.9,
                            "mention_probability": 0.8,
                            "tokens": [word],
                            "weights": [1.0],
                        }
                    )
            out.append(entries)
        return out


def test_a_term_models_spellings_are_one_aspect_in_the_figures_and_report():
    reviews = [
        "Great trackpad. The OS X is fine.",
        "A bad track pad. The OSX is fine.",
        "The screen is fine.",
        "The track pad is fine.",
    ]
    table, summary = analyze_reviews(reviews, _TermModel())
    # the sentence table keeps each sentence's own key; the figures group them
    assert set(table["aspect"]) == {
        "trackpad",
        "track pad",
        "os x",
        "osx",
        "screen",
    }
    assert summary.aspects() == {
        "osx": ["osx", "os x"],
        "screen": ["screen"],
        "track pad": ["track pad", "trackpad"],
    }
    figures = summary.table().set_index("aspect")
    assert figures.loc["track pad", "mentions"] == 3
    assert figures.loc["track pad", "share_negative"] == pytest.approx(1 / 3)
    assert figures.loc["osx", "terms"] == ["osx", "os x"]
    assert len(summary.top_examples("track pad", "positive")) == 2
    page = render_report(summary)
    assert "Its terms: <bdi>osx</bdi>, <bdi>os x</bdi>" in page
    assert page.count("Its terms") == 2  # not for the screen, a term of its own
    # merged partitions group as the whole does
    parts = [
        analyze_reviews(part, _TermModel())[1] for part in (reviews[:2], reviews[2:])
    ]
    merged = parts[0].merge(parts[1])
    assert merged.aspects() == summary.aspects()
    pd.testing.assert_frame_equal(merged.table(), summary.table())
    # the user's names are kept apart
    named = analyze_reviews(reviews, _TermModel({"OS X": "software"}))[1]
    assert named.aspects()["software"] == ["software"]
    assert named.aspects()["osx"] == ["osx"]


def test_a_detectors_categories_are_never_grouped(detector):
    _, summary = analyze_reviews(reviews_frame(), detector)
    assert summary.terms is None
    assert all(keys == [name] for name, keys in summary.aspects().items())
    assert summary.table()["terms"].map(len).eq(1).all()
