"""The example web app as an attacker would use it: every malformed body gets a
JSON 400 with a reason, never an HTML 500 (Flask's test client; the real server is
exercised in test_examples.py)."""

import importlib.util
import json
from pathlib import Path

import pytest
from conftest import FAST
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aspectattn import AspectAttentionClassifier

pytest.importorskip("flask")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "web_app.py"


@pytest.fixture(scope="module")
def client(tmp_path_factory, pairs):
    spec = importlib.util.spec_from_file_location("web_app", EXAMPLE)
    web_app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(web_app)
    path = tmp_path_factory.mktemp("app") / "model.aam"
    AspectAttentionClassifier(**{**FAST, "max_epochs": 2}).fit(*pairs).save(path)
    app = web_app.create_app(
        str(path), max_bytes=50_000, max_items=50, max_text_chars=20_000
    )
    return app.test_client()


def _post(client, url, body):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    response = client.post(url, data=data, content_type="application/json")
    return response.status_code, response.get_json(silent=True)


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/predict", {"pairs": 5}),
        ("/predict", {"pairs": None}),
        ("/predict", {"pairs": "The pasta"}),
        ("/predict", {"pairs": []}),
        ("/predict", {"pairs": [["a"]]}),
        ("/predict", {"pairs": [[1, 2]]}),
        ("/predict", {"pairs": [{"text": "the soup"}]}),
        ("/predict", [["the soup", "food"]]),
        ("/predict", "not json"),
        ("/predict", 5),
        ("/predict_aspects", 5),
        ("/predict_aspects", {"texts": None}),
        ("/predict_aspects", {"texts": "the soup"}),
        ("/predict_aspects", {"texts": ["the soup"], "aspects": 7}),
        ("/predict_aspects", {"texts": ["the soup"], "aspects": ["wine"]}),
        ("/explain", {"pairs": {"text": "a", "aspect": "food"}}),
        ("/predict", {"pairs": [["the soup", "food"]] * 51}),
        ("/analyze", {"texts": ["the soup was bland."]}),  # not a detector
    ],
)
def test_malformed_bodies_get_a_json_400(client, url, body):
    status, answer = _post(client, url, body)
    assert status == 400, answer
    assert isinstance(answer["error"], str) and answer["error"]


def test_object_pairs_are_accepted(client):
    text = "the pasta was great but the waiter was rude."
    status, as_objects = _post(
        client, "/predict", {"pairs": [{"text": text, "aspect": "service"}]}
    )
    status_list, as_lists = _post(client, "/predict", {"pairs": [[text, "service"]]})
    assert status == status_list == 200 and as_objects == as_lists


def test_size_limit_and_unknown_routes_answer_json(client):
    status, answer = _post(client, "/predict", {"pairs": [["x " * 30_000, "food"]]})
    assert status == 413 and "error" in answer
    response = client.get("/nowhere")
    assert response.status_code == 404 and "error" in response.get_json()
    response = client.get("/predict")
    assert response.status_code == 405 and "error" in response.get_json()


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["pairs", "texts", "aspects", "text", "aspect"]),
            children,
            max_size=3,
        )
    ),
    max_leaves=10,
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(url=st.sampled_from(["/predict", "/predict_aspects", "/explain"]), body=_json)
def test_fuzzed_bodies_never_give_a_server_error(client, tally, url, body):
    status, answer = _post(client, url, body)
    assert status in (200, 400, 413), (status, answer)
    assert answer is not None
    tally[f"answered {status}"] += 1


@pytest.mark.parametrize("depth", [100, 5_000, 19_000])
@pytest.mark.parametrize("bracket", ["[]", "{}"])
def test_deeply_nested_bodies_get_a_json_400(detector_client, tally, depth, bracket):
    """Python's JSON reader recurses: a deep body raised RecursionError (a 500)."""
    client, _ = detector_client  # a body limit of 2 MB: the JSON reader sees it
    if bracket == "[]":
        body = "[" * depth + "]" * depth
    else:
        body = '{"a":' * depth + "1" + "}" * depth
    status, answer = _post(client, "/analyze", body)
    assert status == 400 and "error" in answer, (status, answer)
    tally[f"nested {depth} deep: answered {status}"] += 1


def test_every_answer_carries_the_security_headers(client):
    for response in (
        client.get("/health"),
        client.get("/"),
        client.post("/predict", data="not json", content_type="application/json"),
        client.get("/no-such-page"),
    ):
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert "default-src 'none'" in response.headers["Content-Security-Policy"]


@pytest.fixture(scope="module")
def detector_client(tmp_path_factory, detector):
    spec = importlib.util.spec_from_file_location("web_app_detector", EXAMPLE)
    web_app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(web_app)
    path = tmp_path_factory.mktemp("app") / "detector.aam"
    detector.save(path)
    app = web_app.create_app(str(path), max_bytes=2_000_000, max_items=1_000)
    return app.test_client(), web_app


def test_the_work_of_a_request_is_bounded_before_any_is_done(client, monkeypatch):
    # 50 texts x 50 aspects is a small body and 2,500 pairs of work
    import aspectattn.estimators.pairs as pairs_module

    def no_work(*args, **kwargs):
        raise AssertionError("the model was run")

    monkeypatch.setattr(pairs_module.inference, "aspect_logits", no_work)
    monkeypatch.setattr(pairs_module.inference, "pair_logits", no_work)
    texts, aspects = ["the soup"] * 50, ["food"] * 50
    status, answer = _post(
        client, "/predict_aspects", {"texts": texts, "aspects": aspects}
    )
    assert status == 400 and "texts x aspects" in answer["error"]
    long_text = "the soup was fine " * 700  # 12,600 characters, twice over 20,000
    for url, body in [
        ("/predict", {"pairs": [[long_text, "food"], [long_text, "food"]]}),
        ("/predict_aspects", {"texts": [long_text, long_text], "aspects": ["food"]}),
    ]:
        status, answer = _post(client, url, body)
        assert status in (400, 413) and "characters" in answer["error"], url


def test_a_chunked_body_over_the_limit_is_a_prompt_413(client):
    # no Content-Length: the limit is met while reading (get_json(silent=True)
    # turned it into "not JSON", a 400, and the connection hung ~30 s). A real
    # server on 127.0.0.1: the test client does not speak chunked encoding.
    import http.client
    import threading
    import time

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, client.application, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        connection = http.client.HTTPConnection(
            "127.0.0.1", server.server_port, timeout=20
        )
        start = time.monotonic()
        connection.putrequest("POST", "/predict")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        chunk = b"a" * 10_000
        for piece in [b'{"pairs": [["', *[chunk] * 6, b'", "food"]]}']:
            try:
                connection.send(b"%x\r\n%s\r\n" % (len(piece), piece))
            except OSError:
                break  # the server answered and closed before the end
        else:
            connection.send(b"0\r\n\r\n")
        response = connection.getresponse()
        answer = json.loads(response.read())
        assert response.status == 413 and "error" in answer
        assert time.monotonic() - start < 10
    finally:
        server.shutdown()


def test_a_huge_review_is_refused_before_it_is_split(detector_client, monkeypatch):
    client, web_app = detector_client

    def no_split(*args, **kwargs):
        raise AssertionError("the reviews were split")

    monkeypatch.setattr(web_app, "split_sentences", no_split)
    review = "The pasta was great. " * 47_000  # 0.98 MB
    status, answer = _post(client, "/analyze_reviews", {"reviews": [review]})
    assert status == 400 and "characters" in answer["error"]


def test_a_review_sentence_without_a_word_is_skipped(detector_client):
    client, _ = detector_client
    status, answer = _post(
        client,
        "/analyze_reviews",
        {"reviews": ["The soup was bland. \u200b.", "\u200b"]},
    )
    assert status == 200
    assert len(answer["reviews"]) == 2


@pytest.fixture(scope="module")
def extractor_app(tmp_path_factory):
    """The app with an aspect term extractor and a term classifier."""
    from test_extraction import FAST_EXTRACTOR, make_sentences, term_pairs

    from aspectattn import AspectTermExtractor
    from aspectattn.persistence import save

    spec = importlib.util.spec_from_file_location("web_app_extractor", EXAMPLE)
    web_app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(web_app)
    texts, y = make_sentences(120, seed=0)
    pairs, labels = term_pairs(texts, y)
    folder = tmp_path_factory.mktemp("app")
    save(AspectTermExtractor(**FAST_EXTRACTOR).fit(texts, y), folder / "e.aam")
    AspectAttentionClassifier(**FAST).fit(pairs, labels).save(folder / "terms.aam")
    app = web_app.create_app(
        str(folder / "terms.aam"), extractor_path=str(folder / "e.aam")
    )
    return app.test_client(), web_app, folder


def test_with_an_extractor_the_app_finds_the_terms_of_reviews(extractor_app):
    client, _, _ = extractor_app
    assert client.get("/health").get_json()["extractor"] is True
    text = "The soup was bland but the waiter was friendly."
    status, answer = _post(client, "/analyze", {"texts": [text]})
    assert status == 200
    found = answer["results"][0]
    assert {f["term"] for f in found} == {"soup", "waiter"}
    for f in found:
        start, end = f["span"]
        assert text[start:end] == f["term"] == f["aspect"]
        assert [t for t, w in zip(f["tokens"], f["weights"], strict=True) if w] == [
            f["term"]
        ]  # the page highlights the term's words
    status, answer = _post(
        client, "/analyze_reviews", {"reviews": [f"{text} What a day!", "\u200b"]}
    )
    assert status == 200
    sentences = answer["reviews"][0]["sentences"]
    assert [len(s["aspects"]) for s in sentences] == [2, 0]
    assert all(not s["aspects"] for s in answer["reviews"][1]["sentences"])


def test_an_extractor_needs_a_term_classifier(extractor_app, detector, tmp_path):
    _, web_app, folder = extractor_app
    detector.save(tmp_path / "detector.aam")
    with pytest.raises(ValueError, match="classifier of aspect terms"):
        web_app.create_app(
            str(tmp_path / "detector.aam"), extractor_path=str(folder / "e.aam")
        )
    with pytest.raises(ValueError, match="aspect term extractor"):
        web_app.create_app(
            str(folder / "terms.aam"), extractor_path=str(folder / "terms.aam")
        )


def test_an_extracted_terms_answer_is_bounded_by_the_term_not_the_text(extractor_app):
    """A 200 kB text of 40,000 words yields up to 256 terms (what the extractor
    reads); each answers its own words and a window of context, not the whole
    text: the answer was 112 MB."""
    from aspectattn.extraction.reading import CONTEXT_WORDS

    client, _, _ = extractor_app
    text = "soup and " * 20_000
    response = client.post("/analyze", json={"texts": [text]})
    assert response.status_code == 200
    found = response.get_json()["results"][0]
    assert found, "the extractor finds the repeated term"
    assert all(len(f["tokens"]) <= 2 * CONTEXT_WORDS + 1 for f in found)
    assert len(response.data) < 100 * len(found) * (2 * CONTEXT_WORDS + 1)
    for f in found:  # the window holds the term, highlighted
        start, end = f["span"]
        assert text[start:end] == f["term"]
        assert [t for t, w in zip(f["tokens"], f["weights"], strict=True) if w] == [
            f["term"]
        ]
