"""Every example runs as a user would run it (shortened; as ``__main__`` with its
command line, in the test process so that imports and word vectors load once), and
the web app, started as its own process, answers real HTTP requests on 127.0.0.1."""

import json
import os
import runpy
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from conftest import FAST, SHARED_DATA, requires_shared_data

from aspectattn import AspectAttentionClassifier

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ENV = {
    **os.environ,
    "ASPECTATTN_DATA": str(SHARED_DATA),
    "NLTK_DATA": str(SHARED_DATA / "nltk_data"),
}
needs_data = requires_shared_data(
    "semeval2014_restaurants/Restaurants_Train_v2.xml", "glove/glove.6B.50d.100k.txt.gz"
)


@pytest.fixture
def run_example(monkeypatch, capsys):
    """Run an example script as ``python examples/NAME ARGS`` would, in this
    process (imports, word vectors and the POS tagger are loaded once for all the
    examples), and return what it printed."""

    def run(name, *args, cwd=None):
        monkeypatch.setattr(sys, "argv", [str(EXAMPLES / name), *map(str, args)])
        monkeypatch.syspath_prepend(str(EXAMPLES))
        for key in ("ASPECTATTN_DATA", "NLTK_DATA"):
            monkeypatch.setenv(key, ENV[key])
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")
        return capsys.readouterr().out

    return run


@needs_data
def test_train_semeval_example(run_example):
    out = run_example("train_semeval.py", "--epochs", "1", "--limit", "600")
    assert "600 train / 973 test pairs" in out
    assert "test accuracy" in out and "macro-F1" in out
    assert "'service' ->" in out and "waiter" in out
    # the aspect-level defaults, as resolved for categories
    assert "'augment': 'flip+join'" in out
    assert "'attention__final_state': False" in out


@needs_data
def test_quickstart(run_example):
    out = run_example("quickstart.py", "--epochs", "1", "--limit", "600")
    assert "test accuracy" in out and "attends to" in out
    assert "identical predictions" in out


@requires_shared_data("mams_acsa/train.xml", "glove/glove.6B.50d.100k.txt.gz")
def test_multi_aspect(run_example):
    out = run_example("multi_aspect.py", "--epochs", "1", "--limit", "600")
    assert "staff" in out and "food" in out
    assert "with one encoder pass per sentence" in out


@needs_data
def test_grid_search_compares_baselines_and_attention(run_example):
    out = run_example("grid_search.py", "--pairs", "300", "--epochs", "1")
    for name in (
        "TfidfEmbeddingVectorizer",
        "POSWeightedEmbeddingVectorizer",
        "AspectAttentionClassifier (variant=at)",
    ):
        assert name in out
    assert "winner on the test set" in out


@needs_data
def test_visualize_attention(run_example, tmp_path):
    run_example(
        "visualize_attention.py", "--epochs", "1", "--limit", "600", "--out", tmp_path
    )
    page = (tmp_path / "attention.html").read_text()
    assert "outrageous" in page and "price" in page
    for name in ("attention.png", "history.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


# ------------------------------------------------------------------------ web app
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url, body):
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module")
def served(tmp_path_factory, pairs):
    pytest.importorskip("flask")
    model = AspectAttentionClassifier(**FAST).fit(*pairs)
    path = tmp_path_factory.mktemp("app") / "model.aam"
    model.save(path)
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            str(EXAMPLES / "web_app.py"),
            "--model",
            str(path),
            "--port",
            str(port),
        ],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=2) as r:
                assert r.status == 200
                break
        except (urllib.error.URLError, ConnectionError):
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"web app did not start: {server.stdout.read()}")
            time.sleep(0.3)
    yield base, model
    server.terminate()
    server.wait(timeout=10)


def test_web_app_predicts_like_the_model(served, test_pairs):
    base, model = served
    X = test_pairs[0][:12]
    status, body = _post(f"{base}/predict", {"pairs": [list(p) for p in X]})
    assert status == 200
    labels = [p["label"] for p in body["predictions"]]
    assert labels == model.predict(X).tolist()
    proba = np.array(
        [[p["probabilities"][c] for c in model.classes_] for p in body["predictions"]]
    )
    np.testing.assert_allclose(proba, model.predict_proba(X), atol=1e-6)


def test_web_app_other_endpoints(served):
    base, model = served
    with urllib.request.urlopen(f"{base}/health", timeout=10) as r:
        health = json.loads(r.read())
    assert health["classes"] == ["negative", "positive"]
    text = "the pasta was great but the waiter was rude."
    status, body = _post(f"{base}/predict_aspects", {"texts": [text]})
    assert status == 200 and body["aspects"] == ["food", "service"]
    assert [p["label"] for p in body["predictions"][0]] == model.predict_aspects(
        [text]
    )[0].tolist()
    status, body = _post(f"{base}/explain", {"pairs": [[text, "service"]]})
    assert status == 200
    assert len(body["explanations"][0]["tokens"]) == 10


def test_web_app_rejects_bad_requests(served):
    base, _ = served
    assert _post(f"{base}/predict", {"text": "no pairs"})[0] == 400
    status, body = _post(f"{base}/predict", {"pairs": [["the soup", "price"]]})
    assert status == 400 and "not seen in fit" in body["error"]
    status, body = _post(f"{base}/predict", {"pairs": [["", "food"]]})
    assert status == 400 and "empty" in body["error"]


@requires_shared_data(
    "semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml",
    "glove/glove.6B.50d.100k.txt.gz",
)
def test_analyze_reviews_example(run_example, tmp_path):
    out = run_example(
        "analyze_reviews.py", "--epochs", "1", "--limit", "400", cwd=tmp_path
    )
    assert "95 reviews, 507 sentences" in out and "aspect mentions" in out
    assert "Sentiment per aspect" in (tmp_path / "report.html").read_text()
    assert (tmp_path / "sentences.csv").read_text().startswith("review_id,")


@requires_shared_data("semeval2016_multilingual/restaurants_train_russian.xml.dat")
def test_other_languages_example(run_example):
    out = run_example("other_languages.py", "--epochs", "1", "--limit", "700")
    assert "700 train / 969 test pairs" in out
    assert "language rules: none (the texts are not English)" in out
    assert "'креветкой' is read as 'креветки'" in out  # never seen in training
    assert "'официантка' ->" in out and "attention for 'официантка':" in out


@requires_shared_data("semeval2014_laptops/Laptop_Train_v2.xml")
def test_extract_aspects_example(run_example, tmp_path):
    report, model = tmp_path / "report.html", tmp_path / "aspects.aam"
    out = run_example(
        "extract_aspects.py", "--epochs", "1", "--limit", "400", "--report", report,
        "--model", model,
    )  # fmt: skip
    assert "400 train sentences" in out
    assert "extraction on the test sentences: precision" in out
    assert "Windows 8 is a pain" in out and "aspects over the reviews:" in out
    assert report.is_file() and model.is_file()
