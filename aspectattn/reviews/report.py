"""One self-contained HTML report of a review analysis (no network to open it).

:func:`write_report` draws, from a :class:`~aspectattn.reviews.ReviewSummary`:
sentiment per aspect (stacked bars with the mentions and 95% intervals), trends of
the positive share over time where the reviews have dates, a table per group where
they have groups, and for each aspect the terms it holds (a term model's spellings
of one aspect grouped: :meth:`~aspectattn.reviews.ReviewSummary.aspects`) and its
most confident positive and negative sentences with the words the aspect
attended to shaded. Charts are inline SVG;
every piece of review text is HTML-escaped.
"""

from __future__ import annotations

import html
from pathlib import Path

from .._output import output_path

__all__ = ["write_report", "render_report"]

COLORS = {
    "positive": "#2e7d32",
    "negative": "#c62828",
    "neutral": "#9e9e9e",
    "conflict": "#f9a825",
}
_OTHER = "#5c6bc0"
_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:980px;color:#222;line-height:1.4}
h1{font-size:1.6em} h2{margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse} td,th{padding:.25em .6em;border-bottom:1px solid #eee;
text-align:right} td:first-child,th:first-child{text-align:left}
.legend span{display:inline-block;margin-right:1em}
.swatch{display:inline-block;width:.9em;height:.9em;margin-right:.3em;
vertical-align:middle}
.example{margin:.3em 0 .3em 1em} .prob{color:#777;font-size:.85em}
.terms{color:#555;font-size:.9em;margin:-.6em 0 .4em}
mark{background:none;padding:0 .05em;border-radius:2px}
"""


def _color(label: str) -> str:
    return COLORS.get(label, _OTHER)


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def _lead(labels) -> str | None:
    """The label whose share the notes and trends follow: ``"positive"`` where the
    model has it, else the first of its labels (any label set works)."""
    return "positive" if "positive" in labels else (labels[0] if labels else None)


def _bars(table, labels) -> str:
    """Horizontal stacked bars, one per aspect."""
    longest = max((len(str(a)) for a in table["aspect"]), default=0)
    left = 16 + 10 * longest  # room for the aspect names (14 px text)
    bar, row_h = 440, 30
    width = left + bar + 340  # and for the note on the right
    height = row_h * len(table) + 10
    parts = [
        f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" font-size="14">'
    ]
    lead = _lead(labels)
    # rows as dicts: labels are any strings ("very positive", "1"), not identifiers
    for i, row in enumerate(table.to_dict("records")):
        y = 5 + i * row_h
        parts.append(
            f'<text x="{left - 8}" y="{y + 17}" text-anchor="end">'
            f"{_esc(row['aspect'])}</text>"
        )
        x = left
        for label in labels:
            share = row[f"share_{label}"]
            w = bar * share
            if w > 0:
                parts.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="22" '
                    f'fill="{_color(label)}"><title>{_esc(label)}: '
                    f"{100 * share:.0f}%</title></rect>"
                )
            x += w
        n = int(row["mentions"])
        note = f"{n} mention" + ("" if n == 1 else "s")
        if len(row["terms"]) > 1:  # (the terms themselves: under Examples)
            note += f" of {len(row['terms'])} terms"
        if lead is not None:
            low, high = row[f"low_{lead}"], row[f"high_{lead}"]
            note += (
                f", {100 * row[f'share_{lead}']:.0f}% {lead} "
                f"({100 * low:.0f}-{100 * high:.0f}%)"
            )
        parts.append(f'<text x="{left + bar + 8}" y="{y + 17}">{_esc(note)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _trends(periods, labels) -> str:
    """The lead label's share per period, one small chart per aspect, with its
    interval."""
    lead = _lead(labels)
    if periods.empty or lead is None:
        return ""
    out = []
    for aspect, rows in periods.groupby("aspect", sort=False):
        rows = rows.sort_values("period")
        if len(rows) < 2:
            continue
        w, h, pad = 420, 140, 30
        n = len(rows)

        def x(i, n=n, w=w, pad=pad):
            return pad + (w - 2 * pad) * i / max(n - 1, 1)

        def y(v, h=h, pad=pad):
            return h - pad - (h - 2 * pad) * v

        high, low = rows[f"high_{lead}"], rows[f"low_{lead}"]
        band = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(high)]
        band += [f"{x(i):.1f},{y(v):.1f}" for i, v in reversed(list(enumerate(low)))]
        line = " ".join(
            f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(rows[f"share_{lead}"])
        )
        first, last = rows["period"].iloc[0], rows["period"].iloc[-1]
        out.append(
            f'<figure style="display:inline-block;margin:0 1em 1em 0">'
            f'<svg width="{w}" height="{h}" role="img">'
            f'<polygon points="{" ".join(band)}" fill="#2e7d32" opacity="0.15"/>'
            f'<polyline points="{line}" fill="none" stroke="#2e7d32" '
            f'stroke-width="2"/>'
            f'<line x1="{pad}" y1="{y(0)}" x2="{w - pad}" y2="{y(0)}" stroke="#999"/>'
            f'<text x="{pad}" y="{h - 8}" font-size="11">{_esc(first)}</text>'
            f'<text x="{w - pad}" y="{h - 8}" font-size="11" text-anchor="end">'
            f"{_esc(last)}</text>"
            f'<text x="4" y="{y(1) + 4}" font-size="11">100%</text>'
            f'<text x="4" y="{y(0) + 4}" font-size="11">0%</text></svg>'
            f"<figcaption>{_esc(aspect)}: share {_esc(lead)} per period</figcaption>"
            "</figure>"
        )
    return "".join(out)


def _mark(text: str, weight: float, top: float) -> str:
    alpha = 0.85 * weight / top if top > 0 else 0.0
    return (
        f'<mark style="background:rgba(255,193,7,{alpha:.2f})" '
        f'title="{weight:.3f}">{_esc(text)}</mark>'
    )


def _shaded(example: dict) -> str:
    """The sentence as written, each word shaded by the attention on its token
    (the model's tokens are lower-cased and normalised: each is found in order in
    the sentence; one that is not, a sub-word piece say, shades nothing)."""
    tokens, weights = example["tokens"], example["weights"]
    top = max(weights) if weights else 1.0
    sentence = example.get("sentence")
    if not sentence:
        return " ".join(_mark(t, w, top) for t, w in zip(tokens, weights, strict=True))
    lower, at, parts = sentence.lower(), 0, []
    for token, weight in zip(tokens, weights, strict=True):
        start = lower.find(token.lower(), at) if token else -1
        if start < 0:
            continue
        end = start + len(token)
        parts += [_esc(sentence[at:start]), _mark(sentence[start:end], weight, top)]
        at = end
    parts.append(_esc(sentence[at:]))
    return "".join(parts)


def render_report(summary, title: str = "Aspect sentiment report") -> str:
    """The report as an HTML string."""
    labels = summary.labels
    overall = summary.table()
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_esc(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_esc(title)}</h1>",
        _counts(summary, overall),
        "<h2>Sentiment per aspect</h2><p class='legend'>",
        "".join(
            f"<span><i class='swatch' style='background:{_color(label)}'></i>"
            f"{_esc(label)}</span>"
            for label in labels
        ),
        "</p>",
        _bars(overall, labels) if len(overall) else "<p>No aspect was mentioned.</p>",
    ]
    if summary.period_counts:
        parts += ["<h2>Over time</h2>", _trends(summary.table(by="period"), labels)]
    if summary.group_counts:
        parts.append(_groups(summary.table(by="group"), labels))
    parts.append("<h2>Examples</h2>")
    parts += _examples(summary, overall, labels)
    parts.append("</body></html>")
    return "".join(parts)


def _counts(summary, overall) -> str:
    """The paragraph of counts: reviews, sentences, mentions, and what was left
    out (dates not read, sentences skipped)."""
    mentions = int(overall["mentions"].sum()) if len(overall) else 0
    text = (
        f"<p>{summary.n_reviews:,} reviews, {summary.n_sentences:,} sentences, "
        f"{mentions:,} aspect mentions."
    )
    if getattr(summary, "n_unparsed_dates", 0):
        text += (
            f" {summary.n_unparsed_dates:,} dates could not be read: their reviews "
            "are in every section but the trends."
        )
    if getattr(summary, "n_skipped_sentences", 0):
        text += (
            f" {summary.n_skipped_sentences:,} sentences had no word the model reads"
            " and were skipped."
        )
    return text + "</p>"


def _groups(groups, labels) -> str:
    """The per-group table: each group's aspects, mentions and label shares."""
    header = "".join(f"<th>{_esc(label)}</th>" for label in labels)
    rows = "".join(
        f"<tr><td>{_esc(r['group'])}</td><td>{_esc(r['aspect'])}</td>"
        f"<td>{r['mentions']}</td>"
        + "".join(f"<td>{100 * r[f'share_{label}']:.0f}%</td>" for label in labels)
        + "</tr>"
        for _, r in groups.iterrows()
    )
    return (
        "<h2>Per group</h2><table><tr><th>group</th><th>aspect</th>"
        f"<th>mentions</th>{header}</tr>{rows}</table>"
    )


def _examples(summary, overall, labels) -> list[str]:
    """Each aspect's heading, its terms (where it groups several) and its most
    confident examples per label, shaded by attention."""
    parts = []
    for aspect, terms in (
        zip(overall["aspect"], overall["terms"], strict=True) if len(overall) else []
    ):
        parts.append(f"<h3 dir='auto'>{_esc(aspect)}</h3>")
        if len(terms) > 1:
            parts.append(
                "<p class='terms'>Its terms: "
                + ", ".join(f"<bdi>{_esc(term)}</bdi>" for term in terms)
                + "</p>"
            )
        for label in labels:
            for example in summary.top_examples(aspect, label):
                parts.append(
                    f"<p class='example'><i class='swatch' "
                    f"style='background:{_color(label)}'></i>"
                    f"<bdi dir='auto' class='text'>{_shaded(example)}</bdi> "
                    f"<span class='prob'>{_esc(label)} "
                    f"{100 * example['probability']:.0f}%</span></p>"
                )
    return parts


def write_report(summary, path, title: str = "Aspect sentiment report") -> Path:
    """Write :func:`render_report` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    document = render_report(summary, title)
    with output_path(path) as tmp:
        tmp.write_text(document, encoding="utf-8")
    return path
