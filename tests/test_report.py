"""The HTML report: self-contained, escaped, with every section it promises."""

import pandas as pd
from conftest import reviews_frame

from aspectattn.report import render_report, write_report
from aspectattn.reviews import analyze_reviews


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
