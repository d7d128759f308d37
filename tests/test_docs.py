"""The documentation: the docstrings' examples run, and the built site (``docs/``,
built by ``.ci/run`` with ``sphinx-build -W``) has no broken internal link or
image and renders in headless Chromium without console errors or requests
outside the machine."""

from __future__ import annotations

import doctest
import functools
import importlib
import os
import pkgutil
import shutil
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest

import aspectattn

#: The built site, when the docs were built (``.ci/run`` sets it).
SITE = os.environ.get("ASPECTATTN_DOCS")


# ---------------------------------------------------------- docstring examples
def _modules_with_examples():
    names = []
    for info in pkgutil.walk_packages(aspectattn.__path__, "aspectattn."):
        spec = importlib.util.find_spec(info.name)
        if spec and spec.origin and ">>>" in Path(spec.origin).read_text("utf-8"):
            names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_public_docstrings_have_examples():
    # the estimators, the text classes, the reviews' helpers at least
    for name in (
        "aspectattn.estimators.pairs",
        "aspectattn.estimators.categories",
        "aspectattn.reviews.sentences",
        "aspectattn.reviews.summary",
        "aspectattn.engine.distillation",
        "aspectattn.datasets.semeval",
        "aspectattn.persistence",
        "aspectattn.serving.export",
        "aspectattn.reviews.analysis",
        "aspectattn.viz",
    ):
        assert name in MODULES, name


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, monkeypatch):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests
    with np.printoptions(legacy="1.25"):  # reprs as the docstrings write them
        for test in tests:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} failed"


# -------------------------------------------------------------------- the site
needs_site = pytest.mark.skipif(
    SITE is None,
    reason="the docs are not built here: ASPECTATTN_DOCS=docs/_build/html after "
    "python -m sphinx -W -b html docs docs/_build/html (.ci/run does both)",
)


class _Links(HTMLParser):
    """The ids of a page and the URLs its links and images point at."""

    def __init__(self):
        super().__init__()
        self.ids, self.urls = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key):
                self.urls.append(attrs[key])


@functools.cache
def _parsed(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text("utf-8"))
    return parser


@needs_site
def test_every_internal_link_and_image_of_the_site_resolves():
    site = Path(SITE)
    # (the theme's Jinja templates copied to _static are no pages)
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)
    assert len(pages) > 60  # guide, API, CLI, gallery, benchmarks
    broken = []
    for page in pages:
        for url in _parsed(page).urls:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue  # external (checked not to be fetched: below)
            target = page if not parts.path else (page.parent / unquote(parts.path))
            if target.is_dir():
                target = target / "index.html"
            if not target.resolve().is_file():
                broken.append(f"{page.relative_to(site)}: {url}")
                continue
            if parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in _parsed(target.resolve()).ids:
                    broken.append(f"{page.relative_to(site)}: {url} (no such anchor)")
    assert not broken, "\n".join(broken[:20])


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site_url():
    handler = functools.partial(_Quiet, directory=SITE)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


BROWSER = next(
    (p for n in ("chromium", "chromium-browser") if (p := shutil.which(n))), None
)

PAGES = [
    ("index.html", "aspectattn"),
    ("api/generated/aspectattn.AspectAttentionClassifier.html", "AspectAttention"),
    ("auto_examples/plot_attention.html", "Where the model looks"),
]


@needs_site
@pytest.mark.skipif(BROWSER is None, reason="no Chromium (.ci/run installs it)")
@pytest.mark.parametrize("path, title", PAGES)
def test_pages_render_in_chromium(site_url, path, title, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    errors, outside = [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on(
                "console",
                lambda m: errors.append(m.text) if m.type == "error" else None,
            )
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(
                "response",
                lambda r: (
                    errors.append(f"{r.status} {r.url}") if r.status >= 400 else None
                ),
            )
            page.on(
                "request",
                lambda r: (
                    None
                    if r.url.startswith((site_url, "data:"))
                    else outside.append(r.url)
                ),
            )
            page.goto(f"{site_url}/{path}", wait_until="networkidle")
            assert title in page.title()
            # the theme's navigation bar and the page's sidebar are drawn
            assert page.locator("nav.bd-header, header.bd-header").first.is_visible()
            assert page.locator("a.navbar-brand, .navbar-brand").first.is_visible()
            # every image of the page loaded (the gallery's figures)
            broken = page.evaluate(
                "Array.from(document.images).filter("
                "i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
            )
            assert not broken, broken
            if "auto_examples/plot_" in path:
                assert (
                    page.locator(
                        "img.sphx-glr-single-img, img.sphx-glr-multi-img"
                    ).count()
                    >= 2
                )
            shots = os.environ.get("ASPECTATTN_DOCS_SCREENSHOTS")
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(Path(shots) / (Path(path).stem + ".png")))
        finally:
            browser.close()
    assert not errors, errors
    assert not outside, f"requests outside the machine: {outside}"
