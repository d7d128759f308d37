"""A small web service that answers aspect-sentiment requests.

    aspectattn train semeval2014-restaurants-category --out model.aam
    python examples/web_app.py --model model.aam --port 8000

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
  (:class:`~aspectattn.AspectCategoryClassifier`): the aspects each text mentions,
  with label, probability and attention.

Every malformed request gets a JSON ``400`` with a reason (``413`` when the body is
larger than ``--max-bytes``, 1 MB by default; at most ``--max-pairs`` pairs or texts
per request); errors never come back as HTML.

The model is loaded once, at start-up, from the safe format (no code runs on load).
One fitted model serves concurrent requests: prediction does not change it. Torch
threads are set to 1 per process (``--threads``): scale with processes, not threads.
Needs Flask: ``pip install 'aspectattn[serve]'``.
"""

import argparse

import torch
from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from aspectattn import AspectAttnError, AspectCategoryClassifier
from aspectattn.persistence import load

MAX_BYTES = 1_000_000
MAX_ITEMS = 1_000


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


def create_app(
    model_path: str, max_bytes: int = MAX_BYTES, max_items: int = MAX_ITEMS
) -> Flask:
    model = load(model_path)  # once, at start-up: a pair classifier or a detector
    detector = isinstance(model, AspectCategoryClassifier)
    classes = [str(c) for c in (model.classes_[0] if detector else model.classes_)]
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = max_bytes

    def body() -> dict:
        data = request.get_json(force=True, silent=True)
        if not isinstance(data, dict):
            raise BadRequest("the body must be a JSON object")
        return data

    def checked(items: list) -> list:
        if len(items) > max_items:
            raise BadRequest(f"at most {max_items} items per request, got {len(items)}")
        return items

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
        return [_pair(item, i) for i, item in enumerate(checked(pairs))]

    def answer(labels, probas):
        return [
            {
                "label": str(label),
                "probabilities": dict(zip(classes, map(float, p), strict=True)),
            }
            for label, p in zip(labels, probas, strict=True)
        ]

    @app.errorhandler(BadRequest)
    @app.errorhandler(AspectAttnError)
    @app.errorhandler(ValueError)
    def bad_request(error):
        return jsonify({"error": str(error)}), 400

    @app.errorhandler(HTTPException)
    def http_error(error):  # 404, 405, 413...: JSON, not an HTML page
        return jsonify({"error": error.description}), error.code

    @app.get("/health")
    def health():
        return jsonify(
            {
                "status": "ok",
                "kind": "detector" if detector else "pairs",
                "classes": classes,
                "aspects": [str(a) for a in model.aspects_],
                "aspect_type": model.aspect_type_,
            }
        )

    @app.post("/predict")
    def predict():
        proba = model.predict_proba(pairs_from_request())
        return jsonify({"predictions": answer(model.classes_[proba.argmax(1)], proba)})

    @app.post("/analyze")
    def analyze():
        if not detector:
            raise BadRequest("this model scores given aspects: use /predict")
        found = model.analyze(checked(_string_list(body(), "texts")))
        return jsonify(
            {
                "results": [
                    [
                        {
                            "aspect": f["aspect"],
                            "label": f["label"],
                            "probability": round(f["probability"], 5),
                            "tokens": f["tokens"],
                            "weights": [round(float(w), 5) for w in f["weights"]],
                        }
                        for f in per_text
                    ]
                    for per_text in found
                ]
            }
        )

    @app.post("/predict_aspects")
    def predict_aspects():
        if detector:
            raise BadRequest("this model is a category detector: use /analyze")
        data = body()
        texts = checked(_string_list(data, "texts"))
        aspects = _string_list(data, "aspects", required=False)
        if aspects is not None:
            checked(aspects)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES)
    parser.add_argument("--max-pairs", type=int, default=MAX_ITEMS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    app = create_app(args.model, args.max_bytes, args.max_pairs)
    app.run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
