"""A small web service that answers aspect-sentiment requests.

    aspectattn train semeval2014-restaurants-category --out model.aam
    python examples/web_app.py --model model.aam --port 8000

    curl -X POST localhost:8000/predict -H 'Content-Type: application/json' \
         -d '{"pairs": [["The pasta was great but the waiter was rude", "service"]]}'

Endpoints: ``GET /health``; ``POST /predict`` with ``{"pairs": [[text, aspect], ...]}``;
``POST /predict_aspects`` with ``{"texts": [...], "aspects": [...]}`` (aspects
optional: every category the model knows); ``POST /explain`` like ``/predict``.

The model is loaded once, at start-up, from the safe format (no code runs on load).
One fitted model serves concurrent requests: prediction does not change it. Torch
threads are set to 1 per process (``--threads``): scale with processes, not threads.
Needs Flask: ``pip install 'aspectattn[serve]'``.
"""

import argparse

import torch
from flask import Flask, jsonify, request

from aspectattn import AspectAttentionClassifier, AspectAttnError


def create_app(model_path: str) -> Flask:
    model = AspectAttentionClassifier.load(model_path)  # once, at start-up
    classes = [str(c) for c in model.classes_]
    app = Flask(__name__)

    def answer(labels, probas):
        return [
            {
                "label": str(label),
                "probabilities": dict(zip(classes, map(float, p), strict=True)),
            }
            for label, p in zip(labels, probas, strict=True)
        ]

    @app.errorhandler(AspectAttnError)
    @app.errorhandler(ValueError)
    def bad_request(error):
        return jsonify({"error": str(error)}), 400

    @app.get("/health")
    def health():
        return jsonify(
            {
                "status": "ok",
                "classes": classes,
                "aspects": [str(a) for a in model.aspects_],
                "aspect_type": model.aspect_type_,
            }
        )

    def pairs_from_request():
        body = request.get_json(force=True, silent=True)
        if not isinstance(body, dict) or "pairs" not in body:
            raise ValueError('expected JSON {"pairs": [[text, aspect], ...]}')
        return [tuple(p) if isinstance(p, list) else p for p in body["pairs"]]

    @app.post("/predict")
    def predict():
        pairs = pairs_from_request()
        proba = model.predict_proba(pairs)
        return jsonify({"predictions": answer(model.classes_[proba.argmax(1)], proba)})

    @app.post("/predict_aspects")
    def predict_aspects():
        body = request.get_json(force=True, silent=True) or {}
        if "texts" not in body:
            raise ValueError('expected JSON {"texts": [...], "aspects": [...]}')
        proba = model.predict_proba_aspects(body["texts"], body.get("aspects"))
        aspects = body.get("aspects") or [str(a) for a in model.aspects_]
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
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    create_app(args.model).run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
