"""A small web service for aspect-sentiment requests
=================================================

A small web service that answers aspect-sentiment requests::

    aspectattn train semeval2014-restaurants-category --out model.aam
    python examples/web_app.py --model model.aam --port 8000

or, for reviews of any domain, an aspect term extractor with a classifier of
aspect terms (the aspects are the terms it finds), as two files or as one
pipeline file (``--model pipeline.aam``)::

    aspectattn train semeval2014-laptops --extractor --out extractor.aam
    aspectattn train semeval2014-laptops --out terms.aam
    python examples/web_app.py --model terms.aam --extractor extractor.aam

or the joint model, which finds the terms and their polarities in one pass::

    aspectattn train semeval2014-laptops --joint --out joint.aam
    python examples/web_app.py --model joint.aam

    curl -X POST localhost:8000/predict -H 'Content-Type: application/json' \
         -d '{"pairs": [["The pasta was great but the waiter was rude", "service"]]}'

Endpoints:

* ``GET /health``: status, classes and aspects of the model;
* ``POST /predict`` with ``{"pairs": [[text, aspect], ...]}`` or
  ``{"pairs": [{"text": ..., "aspect": ...}, ...]}``;
* ``POST /predict_aspects`` with ``{"texts": [...], "aspects": [...]}`` (aspects
  optional: every category the model knows);
* ``POST /explain`` like ``/predict``;
* ``POST /analyze`` with ``{"texts": [...]}`` when the model is a category detector
  (:class:`~aspectattn.AspectCategoryClassifier`), comes with an extractor or is
  the joint model (:class:`~aspectattn.AspectSentimentExtractor`): the
  aspects each text mentions, with label, probability and the words to show
  (attention; with an extractor, the term's words, and its ``term`` and
  character ``span``);
* ``POST /analyze_reviews`` with ``{"reviews": [...]}`` (the same models): each
  review split into sentences, each sentence with its aspects (the batch endpoint);
* ``GET /``: a page for people: paste a review, see each sentence's aspects, labels
  and the words each aspect attended to, or its term (the same models).

Every malformed request gets a JSON ``400`` with a reason (``413`` when the body is
larger than ``--max-bytes``, 1 MB by default). The work of a request is bounded
before any is done: at most ``--max-pairs`` pairs, texts or reviews, and as many
pairs in ``/predict_aspects`` (texts times aspects), and ``--max-chars`` characters
of text. Errors never come back as HTML.

The model is loaded once, at start-up, from the safe format (no code runs on load).
One fitted model serves concurrent requests: prediction does not change it. Torch
threads are set to 1 per process (``--threads``): scale with processes, not threads.
Needs Flask: ``pip install 'aspectattn[serve]'``.
"""

import argparse

import torch
from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from aspectattn import (
    AspectAttnError,
    AspectCategoryClassifier,
    AspectSentimentExtractor,
    AspectSentimentPipeline,
    AspectTermExtractor,
)
from aspectattn.persistence import load
from aspectattn.reviews import analyze_sentences, split_sentences

MAX_BYTES = 1_000_000
#: Items per request: pairs, texts, reviews, sentences -- and the pairs that
#: /predict_aspects makes of its texts and aspects (1,000 x 1,000 texts and
#: aspects in a 62 kB body were a million pairs: 12 s and 800 MB of answer).
MAX_ITEMS = 1_000
#: Characters of text per request (every text, pair and review together), checked
#: before any work: with the items, this bounds the tokens a request makes.
MAX_TEXT_CHARS = 200_000
#: Headers of every answer: no content sniffing, no framing, and for the page a
#: policy that allows its own inline script and style and requests to this server.
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    ),
}


class BadRequest(ValueError):
    """A request body that does not follow the API; answered with a 400."""


def _string_list(body: dict, key: str, required: bool = True) -> list[str] | None:
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, list) or not value:
        raise BadRequest(f'"{key}" must be a non-empty list of strings')
    if not all(isinstance(v, str) for v in value):
        raise BadRequest(f'every item of "{key}" must be a string')
    return value


def _pair(item, i: int) -> tuple[str, str]:
    if isinstance(item, dict):
        item = [item.get("text"), item.get("aspect")]
    if not (
        isinstance(item, list)
        and len(item) == 2
        and all(isinstance(v, str) for v in item)
    ):
        raise BadRequest(
            f'pairs[{i}] must be [text, aspect] or {{"text": ..., "aspect": ...}} '
            "with two strings"
        )
    return item[0], item[1]


def _pipeline(classifier, extractor) -> AspectSentimentPipeline:
    """The extractor and the term classifier as one analyzer; a clear error for
    any other pair of models."""
    if not isinstance(extractor, AspectTermExtractor):
        raise ValueError(
            f"--extractor must be an aspect term extractor, not a "
            f"{type(extractor).__name__}"
        )
    if isinstance(classifier, AspectCategoryClassifier) or (
        classifier.aspect_type_ != "term"
    ):
        raise ValueError(
            "with --extractor, --model must be a classifier of aspect terms "
            "(aspectattn train <data with terms>), not of categories"
        )
    return AspectSentimentPipeline.from_fitted(extractor, classifier)


def create_app(
    model_path: str,
    max_bytes: int = MAX_BYTES,
    max_items: int = MAX_ITEMS,
    max_text_chars: int = MAX_TEXT_CHARS,
    extractor_path: str | None = None,
) -> Flask:
    # once, at start-up: a pair classifier, a detector, a pipeline (an
    # extractor and its term classifier in one file) or the joint model (both in
    # one model)
    model = load(model_path)
    joint = isinstance(model, AspectSentimentExtractor)
    pipeline = model if isinstance(model, AspectSentimentPipeline) or joint else None
    if isinstance(model, AspectTermExtractor):
        raise ValueError(
            f"--model {model_path} is an aspect term extractor: pass it as "
            "--extractor, with a classifier of aspect terms as --model"
        )
    if pipeline is not None:
        if extractor_path is not None:
            raise ValueError(
                f"--model {model_path} finds the terms itself (a pipeline, or the "
                "joint model): drop --extractor"
            )
        # /predict: its classifier, or the joint model given the terms
        model = pipeline.given_terms() if joint else pipeline.classifier_
    detector = isinstance(model, AspectCategoryClassifier)
    classes = [str(c) for c in (model.classes_[0] if detector else model.classes_)]
    # what finds the aspects of a text: the detector, or the extractor with the
    # term classifier
    analyzer = model if detector else pipeline
    # the reviews' language, for sentence splitting: the model's tokenizer's
    if extractor_path is not None:
        analyzer = _pipeline(model, load(extractor_path))
    if joint:
        language = analyzer.language_
    elif analyzer is not None and not detector:
        language = analyzer.extractor_.language_
    else:
        language = getattr(model.text_pipeline_.tokenizer, "language", "en")
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = max_bytes

    def body() -> dict:
        # Read the body first, outside get_json(silent=True), which would take a
        # chunked body cut at the limit for "not JSON": that is a 413.
        raw = request.get_data(cache=True)
        if request.content_length is None and len(raw) >= max_bytes:
            raise RequestEntityTooLarge(f"the body is larger than {max_bytes:,} bytes")
        try:
            data = request.get_json(force=True, silent=True)
        except RecursionError:  # [[[[...]]]]: Python's JSON reader recurses
            raise BadRequest("the body is nested too deeply") from None
        if not isinstance(data, dict):
            raise BadRequest("the body must be a JSON object")
        return data

    def checked(items: list, what: str = "items", n: int | None = None) -> list:
        n = len(items) if n is None else n
        if n > max_items:
            raise BadRequest(f"at most {max_items} {what} per request, got {n}")
        return items

    def bounded_text(texts) -> None:
        if sum(map(len, texts)) > max_text_chars:
            raise BadRequest(
                f"at most {max_text_chars:,} characters of text per request"
            )

    def pairs_from_request() -> list[tuple[str, str]]:
        if detector:
            raise BadRequest(
                'this model is a category detector: POST {"texts": [...]} to /analyze'
            )
        pairs = body().get("pairs")
        if not isinstance(pairs, list) or not pairs:
            raise BadRequest(
                'expected {"pairs": [[text, aspect], ...]} with at least one pair'
            )
        pairs = [_pair(item, i) for i, item in enumerate(checked(pairs, "pairs"))]
        bounded_text(text for text, _ in pairs)
        return pairs

    def answer(labels, probas):
        return [
            {
                "label": str(label),
                "probabilities": dict(zip(classes, map(float, p), strict=True)),
            }
            for label, p in zip(labels, probas, strict=True)
        ]

    @app.after_request
    def secure(response):
        response.headers.update(SECURITY_HEADERS)
        return response

    @app.errorhandler(BadRequest)
    @app.errorhandler(AspectAttnError)
    @app.errorhandler(ValueError)
    def bad_request(error):
        return jsonify({"error": str(error)}), 400

    @app.errorhandler(HTTPException)
    def http_error(error):  # 404, 405, 413...: JSON, not an HTML page
        response = jsonify({"error": error.description})
        if error.code == 413:  # the rest of the body is not read: do not wait for it
            response.headers["Connection"] = "close"
        return response, error.code

    @app.get("/health")
    def health():
        return jsonify(
            {
                "status": "ok",
                "kind": "detector" if detector else "pairs",
                "classes": classes,
                # (the joint model knows no list of aspects: it finds them)
                "aspects": [str(a) for a in getattr(model, "aspects_", [])],
                "aspect_type": model.aspect_type_,
                "extractor": analyzer is not None and not detector,
            }
        )

    @app.post("/predict")
    def predict():
        proba = model.predict_proba(pairs_from_request())
        return jsonify({"predictions": answer(model.classes_[proba.argmax(1)], proba)})

    def found_aspects(texts: list[str], skip_empty: bool = False) -> list[list[dict]]:
        if analyzer is None:
            raise BadRequest(
                "this model scores given aspects: use /predict (or start the app "
                "with --extractor to find the aspects)"
            )
        if skip_empty:  # a review's sentence without a word: no aspect, no error
            found = analyze_sentences(analyzer, texts, 0.5)[0] if texts else []
        else:
            found = analyzer.analyze(texts) if texts else []
        return [
            [
                {
                    "aspect": f["aspect"],
                    "label": str(f["label"]),
                    "probability": round(f["probability"], 5),
                    "tokens": f["tokens"],
                    "weights": [round(float(w), 5) for w in f["weights"]],
                    # an extracted term: as written, and where it is
                    **(
                        {"term": f["term"], "span": list(f["span"])}
                        if "span" in f
                        else {}
                    ),
                }
                for f in per_text
            ]
            for per_text in found
        ]

    @app.post("/analyze")
    def analyze():
        texts = checked(_string_list(body(), "texts"), "texts")
        bounded_text(texts)
        return jsonify({"results": found_aspects(texts)})

    @app.post("/analyze_reviews")
    def analyze_reviews():
        reviews = checked(_string_list(body(), "reviews"), "reviews")
        bounded_text(reviews)  # before splitting, the expensive part
        review, sentences = split_sentences(reviews, language)
        checked(sentences, "sentences")
        found = found_aspects(sentences, skip_empty=True)
        out = [{"sentences": []} for _ in reviews]
        for i, sentence, aspects in zip(review, sentences, found, strict=True):
            out[i]["sentences"].append({"text": sentence, "aspects": aspects})
        return jsonify({"reviews": out})

    @app.get("/")
    def page():
        return PAGE, 200, {"Content-Type": "text/html; charset=utf-8"}

    def not_joint(endpoint: str) -> None:
        if joint:
            raise BadRequest(
                f"{endpoint} reads a pair classifier; this is the joint "
                "aspect-sentiment model: use /analyze, or /predict for given terms"
            )

    @app.post("/predict_aspects")
    def predict_aspects():
        not_joint("/predict_aspects")
        if detector:
            raise BadRequest("this model is a category detector: use /analyze")
        data = body()
        texts = checked(_string_list(data, "texts"), "texts")
        aspects = _string_list(data, "aspects", required=False)
        if aspects is not None:
            checked(aspects, "aspects")
        # the work is every text on every aspect: bound the product, before any
        n_aspects = len(model.aspects_) if aspects is None else len(aspects)
        checked(texts, "pairs (texts x aspects)", len(texts) * n_aspects)
        bounded_text(texts)
        proba = model.predict_proba_aspects(texts, aspects)
        aspects = aspects or [str(a) for a in model.aspects_]
        return jsonify(
            {
                "aspects": aspects,
                "predictions": [answer(model.classes_[p.argmax(-1)], p) for p in proba],
            }
        )

    @app.post("/explain")
    def explain():
        not_joint("/explain")
        results = model.explain(pairs_from_request())
        return jsonify(
            {
                "explanations": [
                    {
                        "aspect": r["aspect"],
                        "label": str(r["label"]),
                        "tokens": r["tokens"],
                        "weights": [round(float(w), 5) for w in r["weights"]],
                    }
                    for r in results
                ]
            }
        )

    return app


# The page builds every element with textContent: review text is never parsed as
# HTML. One file, no external resources.
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Aspect sentiment</title>
<style>
body{font-family:system-ui,sans-serif;max-width:860px;margin:2em auto;color:#222}
textarea{width:100%;height:7em;font:inherit;padding:.4em}
button{font:inherit;padding:.3em 1.2em;margin-top:.5em}
.sentence{margin:1em 0;padding:.5em .8em;border-left:3px solid #ddd}
.aspect{margin:.3em 0}.label{display:inline-block;min-width:5.5em;padding:0 .4em;
border-radius:3px;color:#fff;margin-right:.5em;font-size:.9em}
.positive{background:#2e7d32}.negative{background:#c62828}
.neutral{background:#757575}.conflict{background:#f9a825}
.word{padding:0 .1em;border-radius:2px}.none{color:#777}#error{color:#c62828}
</style></head><body>
<h1>Aspect sentiment</h1>
<p>Paste a review: each sentence is shown with the aspects it talks about, how it
feels about each, and the words each aspect looked at.</p>
<textarea id="review" placeholder="The pasta was great. But the waiter was rude!">
</textarea><br><button id="submit">Analyse</button>
<p id="error"></p><div id="results"></div>
<script>
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
async function analyse() {
  const results = document.getElementById("results");
  const error = document.getElementById("error");
  results.replaceChildren(); error.textContent = "";
  const review = document.getElementById("review").value;
  if (!review.trim()) { error.textContent = "Paste a review first."; return; }
  const response = await fetch("analyze_reviews", {method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({reviews: [review]})});
  const data = await response.json();
  if (!response.ok) { error.textContent = data.error; return; }
  if (!data.reviews[0].sentences.length) {
    error.textContent = "No sentence found in this review."; return;
  }
  for (const sentence of data.reviews[0].sentences) {
    const box = el("div", "sentence");
    const text = el("div", "text", sentence.text);
    text.dir = "auto";  // a right-to-left sentence reads right to left
    box.appendChild(text);
    if (!sentence.aspects.length) box.appendChild(el("div", "none", "no aspect"));
    for (const a of sentence.aspects) {
      const row = el("div", "aspect");
      row.dir = "auto";  // the words in the sentence's own direction
      row.dataset.aspect = a.aspect; row.dataset.label = a.label;
      row.appendChild(el("span", "label " + a.label, a.label));
      row.appendChild(el("b", "name", a.aspect + ": "));
      const top = Math.max(...a.weights);
      a.tokens.forEach((token, i) => {
        const w = el("span", "word", token);
        w.style.background = "rgba(255,193,7," + (0.85 * a.weights[i] / top) + ")";
        w.title = a.weights[i].toFixed(3);
        row.appendChild(w); row.appendChild(document.createTextNode(" "));
      });
      box.appendChild(row);
    }
    results.appendChild(box);
  }
  results.dataset.done = "1";
}
document.getElementById("submit").addEventListener("click", analyse);
</script></body></html>
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument(
        "--extractor",
        help="an aspect term extractor (.aam): /analyze finds the terms of any "
        "domain and --model (a term classifier) gives each its polarity",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES)
    parser.add_argument("--max-pairs", type=int, default=MAX_ITEMS)
    parser.add_argument("--max-chars", type=int, default=MAX_TEXT_CHARS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    app = create_app(
        args.model, args.max_bytes, args.max_pairs, args.max_chars, args.extractor
    )
    app.run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
