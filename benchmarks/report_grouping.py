"""The review report on the laptop test reviews, before and after its aspects are
grouped: what a user reads when the joint model (the LSTM defaults, seed 0,
fitted on the SemEval-2014 laptop training sentences) analyses the test
sentences.

    ASPECTATTN_DATA=../shared/data python -m benchmarks report_grouping [--model M]

"Before" is each sentence's key as the report counted it until now (lower case,
spaces collapsed, the English plural, names kept:
:func:`aspectattn.extraction.aspects.aspect_key`); "after" is
:meth:`aspectattn.reviews.ReviewSummary.aspects` (spellings that differ in
spaces and punctuation, a name with its singular). Writes both reports, a table
of the most mentioned aspects before and after with the terms each holds, and,
where Chromium is installed, a picture of each report's chart for the docs
(``docs/_static/report_before.png``, ``report_after.png``).
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

from aspectattn import AspectSentimentExtractor
from aspectattn.datasets import fetch_term_spans
from aspectattn.persistence import load, save
from aspectattn.reviews import analyze_reviews, render_report
from benchmarks.common import RESULTS
from benchmarks.runner import Measurement

CACHE = RESULTS / "cache"
STATIC = Path(__file__).resolve().parents[1] / "docs" / "_static"
TOP = 25


#: The ``--model`` flag of the benchmarks that read :func:`model`.
MODEL_OPTION = (("--model",), {"help": "a joint model file (fitted here if absent)"})


def model(path: str | None):
    """The joint model of the laptops (fitted and saved at ``path`` when it is
    not there yet)."""
    if path is not None and Path(path).exists():
        return load(path)
    texts, y = fetch_term_spans("semeval2014-laptops", "train")
    fitted = AspectSentimentExtractor(random_state=0).fit(texts, y)
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        save(fitted, path)
    return fitted


def top(table, n: int = TOP) -> list[dict]:
    rows = table.head(n).to_dict("records")
    return [
        {"aspect": r["aspect"], "mentions": int(r["mentions"]), "terms": r["terms"]}
        for r in rows
    ]


def screenshot(page_html: str, path: Path) -> bool:
    """The report's first screen (its chart) as a PNG, with headless Chromium."""
    browser = next(
        (p for n in ("chromium", "chromium-browser") if (p := shutil.which(n))), None
    )
    if browser is None:
        return False
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=browser, args=["--no-sandbox"])
        page = chromium.new_page(viewport={"width": 1000, "height": 1100})
        page.set_content(page_html)
        page.screenshot(path=str(path))
        chromium.close()
    return True


def measure(args) -> dict:
    """Both reports' aspects, the aspects of more than one term, the pictures."""
    texts, _ = fetch_term_spans("semeval2014-laptops", "test")
    _, after = analyze_reviews(texts, model(args.model))
    before = copy.deepcopy(after)
    before.terms = None  # each key its own aspect, as the report counted them
    results = {"n_sentences": len(texts)}
    for name, summary in (("before", before), ("after", after)):
        table = summary.table()
        results[name] = {"aspects": len(table), "top": top(table)}
        page = render_report(summary, f"Laptop test reviews: aspects {name} grouping")
        CACHE.mkdir(parents=True, exist_ok=True)
        (CACHE / f"report_grouping_{name}.html").write_text(page)  # (git-ignored)
        if screenshot(page, STATIC / f"report_{name}.png"):
            results[name]["picture"] = f"docs/_static/report_{name}.png"
    results["joined"] = [
        {"aspect": r["aspect"], "terms": r["terms"]}
        for r in after.table().to_dict("records")
        if len(r["terms"]) > 1
    ]
    return results


def markdown(results: dict) -> str:
    """The table of the most mentioned aspects before and after, from the record."""
    lines = [
        f"The joint LSTM model (defaults, seed 0) on the {results['n_sentences']} "
        f"SemEval-2014 laptop test sentences: {results['before']['aspects']} "
        f"aspects before grouping, {results['after']['aspects']} after.",
        "",
        "| before: aspect | mentions | after: aspect | mentions | its terms |",
        "|---|---|---|---|---|",
    ]
    for b, a in zip(results["before"]["top"], results["after"]["top"], strict=True):
        terms = ", ".join(a["terms"]) if len(a["terms"]) > 1 else ""
        lines.append(
            f"| {b['aspect']} | {b['mentions']} | {a['aspect']} | {a['mentions']} "
            f"| {terms} |"
        )
    joined = results["joined"]
    lines += [
        "",
        f"All the aspects that hold more than one term ({len(joined)}): "
        + "; ".join(f"{r['aspect']} ← {', '.join(r['terms'])}" for r in joined)
        + ".",
    ]
    for name in ("before", "after"):
        if "picture" in results[name]:  # (as the docs' page links it)
            lines += [
                "",
                f"![The report {name} grouping](../_static/report_{name}.png)",
            ]
    return "\n".join(lines)


MEASUREMENT = Measurement(
    "report_grouping",
    measure,
    markdown,
    options=(MODEL_OPTION,),
)

if __name__ == "__main__":
    MEASUREMENT.main(__doc__.splitlines()[0])
