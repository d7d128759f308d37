"""The HTML report: self-contained, escaped, with every section it promises."""

import html

import numpy as np
import pandas as pd
import pytest
from conftest import reviews_frame

from aspectattn.reviews import analyze_reviews
from aspectattn.reviews.report import render_report, write_report


def test_report_sections_and_escaping(detector, tmp_path):
    frame = reviews_frame()
    frame.loc[0, "text"] = "The pasta was great <script>alert(1)</script>. Fine."
    _, summary = analyze_reviews(
        frame, detector, id_column="id", date_column="date", group_column="shop"
    )
    page = render_report(summary, title="Shop <b>A</b>")
    assert "<script" not in page and "&lt;" in page
    assert "Shop &lt;b&gt;A&lt;/b&gt;" in page
    for section in ("Sentiment per aspect", "Over time", "Per group", "Examples"):
        assert section in page
    assert "http" not in page  # nothing to fetch: opens offline
    assert page.count("<svg") >= 2  # the bars and at least one trend
    path = write_report(summary, tmp_path / "r.html")
    assert path.read_text(encoding="utf-8") == page.replace(
        "Shop &lt;b&gt;A&lt;/b&gt;", "Aspect sentiment report"
    )


def test_report_without_dates_groups_or_mentions(detector):
    _, summary = analyze_reviews(pd.DataFrame({"text": ["we went there."]}), detector)
    page = render_report(summary)
    assert "No aspect was mentioned" in page and "Over time" not in page


@pytest.mark.parametrize(
    "labels",
    [("very positive", "very negative"), ("1", "-1"), ("good", "bad")],
)
def test_report_works_for_any_label_set(labels, tmp_path):
    """Labels that are not identifiers crashed the report after the whole analysis;
    labels other than positive/negative got no share, trends or examples."""
    from aspectattn.reviews import ReviewSummary

    rows = []
    for k in range(12):
        label = labels[k % 2]
        rows.append(
            {
                "review_id": k,
                "sentence_id": 0,
                "sentence": f"sentence {k} <b>x</b>",
                "aspect": "food",
                "label": label,
                "probability": 0.6 + k / 100,
                "mention_probability": 0.9,
                "top_words": "x",
                "tokens": ["sentence", str(k)],
                "weights": np.array([0.5, 0.5]),
                "date": pd.Timestamp("2024-01-01") + pd.Timedelta(days=40 * (k % 3)),
                "group": "a",
            }
        )
    table = pd.DataFrame(rows)
    table.attrs.update(n_reviews=12, n_sentences=12)
    summary = ReviewSummary().update(table)
    page = write_report(summary, tmp_path / "r.html").read_text()
    lead = sorted(labels)[0]  # no "positive": the trends follow the first label
    assert f"share {html.escape(lead)} per period" in page
    assert f"% {html.escape(lead)} (" in page  # the note beside the bars
    for label in labels:
        assert f"<span class='prob'>{html.escape(label)} " in page  # examples


def test_report_examples_show_a_repeated_sentence_once(detector):
    frame = pd.DataFrame({"text": ["The soup was bland."] * 6})
    _, summary = analyze_reviews(frame, detector)
    page = render_report(summary)
    assert page.count("class='example'") == 1


def test_report_examples_show_the_sentence_as_written(detector):
    frame = pd.DataFrame({"text": ["The SOUP was Bland <script>x</script>."]})
    _, summary = analyze_reviews(frame, detector)
    page = render_report(summary)
    assert "SOUP</mark>" in page and "Bland</mark>" in page  # the words as written
    assert "<script>" not in page and "&lt;" in page  # escaped, word by word
