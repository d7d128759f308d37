"""The web app's page in a real browser: headless Chromium (Debian's package, as
.ci/run installs it) driven by Playwright, against the real server on 127.0.0.1."""

import contextlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import FAST, make_table

from aspectattn import AspectCategoryClassifier

sync_api = pytest.importorskip("playwright.sync_api")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "web_app.py"
BROWSER = next(
    (
        path
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (path := shutil.which(name))
    ),
    None,
)
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium on this machine: apt-get install chromium (.ci/run does)",
)


@contextlib.contextmanager
def browser_page(url: str, **options):
    """A page of headless Chromium at ``url``, closed afterwards."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"])
        try:
            page = browser.new_page(**options)
            page.goto(url)
            yield page
        finally:
            browser.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    X, Y = make_table(300, 0)
    path = tmp_path_factory.mktemp("page") / "detector.aam"
    AspectCategoryClassifier(**{**FAST, "max_epochs": 30}).fit(X, Y).save(path)
    yield from _serve("--model", str(path))


@pytest.fixture(scope="module")
def extractor_server(tmp_path_factory):
    """The app with an aspect term extractor and a term classifier."""
    from test_extraction import FAST_EXTRACTOR, make_sentences, term_pairs

    from aspectattn import AspectAttentionClassifier, AspectTermExtractor
    from aspectattn.persistence import save

    texts, y = make_sentences(160, seed=0)
    pairs, labels = term_pairs(texts, y)
    folder = tmp_path_factory.mktemp("page")
    save(AspectTermExtractor(**FAST_EXTRACTOR).fit(texts, y), folder / "e.aam")
    classifier = AspectAttentionClassifier(**{**FAST, "max_epochs": 20})
    classifier.fit(pairs, labels).save(folder / "terms.aam")
    yield from _serve(
        "--model", str(folder / "terms.aam"), "--extractor", str(folder / "e.aam")
    )


def _serve(*args):
    """The example app serving ``args``' models on a free port of 127.0.0.1:
    its URL, the server stopped afterwards."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLE), *args, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):  # up to 20 s for torch to import
            try:
                urllib.request.urlopen(url + "/health", timeout=1)
                break
            except OSError:
                if process.poll() is not None:
                    pytest.fail(process.stderr.read().decode()[-2000:])
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def test_paste_a_review_and_see_its_aspects(server, tmp_path):
    review = (
        "The pasta was great. The waiter was rude! "
        'We went there on friday <img src=x onerror="document.title=1">.'
    )
    with browser_page(server + "/", viewport={"width": 900, "height": 700}) as page:
        page.fill("#review", review)
        page.click("#submit")
        page.wait_for_selector("#results[data-done='1']", timeout=20_000)
        sentences = page.locator(".sentence")
        assert sentences.count() == 3
        first = sentences.nth(0).locator(".aspect[data-aspect='food']")
        assert first.get_attribute("data-label") == "positive"
        assert first.locator(".label").inner_text() == "positive"
        second = sentences.nth(1).locator(".aspect[data-aspect='service']")
        assert second.get_attribute("data-label") == "negative"
        # attention shading: every word of the row carries its weight, and the
        # weights of the row are the aspect's attention (they sum to 1). (Which
        # word is the most shaded is the model's: with the defaults' attention
        # alone, a one-direction LSTM often weighs the clause's last state most.)
        words = second.locator(".word")
        weights = [
            float(words.nth(i).get_attribute("title")) for i in range(words.count())
        ]
        assert [words.nth(i).inner_text() for i in range(words.count())][:4] == [
            "the",
            "waiter",
            "was",
            "rude",
        ]
        assert all(0 <= w <= 1 for w in weights) and abs(sum(weights) - 1) < 0.01
        # review text is shown as text, never run as HTML
        assert page.locator("#results img").count() == 0
        assert page.title() == "Aspect sentiment"
        page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
        assert (tmp_path / "page.png").stat().st_size > 10_000


def test_the_page_shows_the_terms_an_extractor_finds(extractor_server, tmp_path):
    """With an extractor, each sentence's rows are the terms it finds, each with
    its polarity and its own words shaded."""
    review = "The soup was great but the waiter was rude. What a lovely day!"
    with browser_page(
        extractor_server + "/", viewport={"width": 900, "height": 600}
    ) as page:
        page.fill("#review", review)
        page.click("#submit")
        page.wait_for_selector("#results[data-done='1']", timeout=20_000)
        sentences = page.locator(".sentence")
        assert sentences.count() == 2
        rows = sentences.nth(0).locator(".aspect")
        assert {rows.nth(i).get_attribute("data-aspect") for i in range(2)} == {
            "soup",
            "waiter",
        }
        soup = sentences.nth(0).locator(".aspect[data-aspect='soup']")
        assert soup.get_attribute("data-label") == "positive"
        waiter = sentences.nth(0).locator(".aspect[data-aspect='waiter']")
        assert waiter.get_attribute("data-label") == "negative"
        words = soup.locator(".word")
        shaded = [
            words.nth(i).inner_text()
            for i in range(words.count())
            if float(words.nth(i).get_attribute("title")) > 0
        ]
        assert shaded == ["soup"]  # the term itself, in its sentence
        assert sentences.nth(1).locator(".none").inner_text() == "no aspect"
        page.screenshot(path=str(tmp_path / "terms.png"), full_page=True)
        assert (tmp_path / "terms.png").stat().st_size > 10_000


def test_the_page_shows_a_bad_request_as_an_error(server):
    with browser_page(server + "/") as page:
        page.fill("#review", "x" * 2_000_000)  # over the 1 MB body limit
        page.click("#submit")
        page.wait_for_function("document.getElementById('error').textContent !== ''")
        assert page.locator("#results .sentence").count() == 0


class _OneWordModel:
    """Stands in for a detector: every sentence mentions "food", positive, with
    the attention on its last word (the report needs nothing else)."""

    def analyze(self, sentences, min_probability=0.5):
        out = []
        for sentence in sentences:
            tokens = sentence.rstrip(".").split()
            weights = [0.1] * (len(tokens) - 1) + [1.0]
            total = sum(weights)
            out.append(
                [
                    {
                        "text": sentence,
                        "aspect": "food",
                        "label": "positive",
                        "probability": 0.9,
                        "mention_probability": 0.9,
                        "tokens": tokens,
                        "weights": [w / total for w in weights],
                    }
                ]
            )
        return out


@pytest.mark.parametrize(
    "sentence, last",
    [("האוכל היה מצוין.", "מצוין"), ("الطعام كان ممتازا.", "ممتازا")],
)
def test_right_to_left_sentences_read_right_to_left_with_their_shading(
    tmp_path, sentence, last
):
    from aspectattn.reviews import analyze_reviews, write_report

    _, summary = analyze_reviews([sentence], _OneWordModel())
    path = write_report(summary, tmp_path / "report.html")
    with browser_page(path.as_uri(), viewport={"width": 700, "height": 500}) as page:
        text = page.locator(".example bdi").first
        assert text.evaluate("e => getComputedStyle(e).direction") == "rtl"
        marks = text.locator("mark")
        words = [marks.nth(i).inner_text() for i in range(marks.count())]
        assert words[-1] == last  # the most attended word is the one shaded most
        alpha = [marks.nth(i).get_attribute("style") for i in range(marks.count())]
        assert alpha[-1].endswith("0.85)")
        # right to left: the sentence's first word stands right of its last
        first_box, last_box = marks.nth(0).bounding_box(), marks.nth(-1).bounding_box()
        assert first_box["x"] > last_box["x"]
        page.screenshot(path=str(tmp_path / "rtl.png"), full_page=True)


def test_the_page_shows_a_right_to_left_review_right_to_left(server):
    with browser_page(server + "/") as page:
        page.fill("#review", "האוכל היה מצוין. The soup was bland.")
        page.click("#submit")
        page.wait_for_selector("#results[data-done='1']", timeout=20_000)
        texts = page.locator(".sentence .text")
        directions = [
            texts.nth(i).evaluate("e => getComputedStyle(e).direction")
            for i in range(texts.count())
        ]
        assert directions == ["rtl", "ltr"]
