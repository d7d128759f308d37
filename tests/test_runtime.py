"""ONNX export (aspectattn.serving.export) and the torch-free runtime
(aspectattn.serving.runtime): the same probabilities, labels and attention as the
torch model; files checked."""

import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import FAST, FOOD, SERVICE, json_values, lstm, make_pairs, transformer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from aspectattn import (
    AspectAttentionClassifier,
    AspectAttnWarning,
    AspectCategoryClassifier,
    InputError,
    UnknownAspectError,
)
from aspectattn.attention import AspectAttention
from aspectattn.encoders import ENCODER_CLASSES, PretrainedEncoder

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from aspectattn.serving.export import export_onnx
from aspectattn.serving.runtime import (
    FORMAT_VERSION,
    ExportFileError,
    OnnxCategoryClassifier,
    OnnxPairClassifier,
    load_onnx,
)

NAN = float("nan")  # (json.dumps writes it as NaN, which json.loads reads)
TOL = 1e-5  # the bar; the observed differences are ~1e-7


def _params(encoder, **extra):
    """FAST for two epochs with the tests' ``encoder`` ("lstm" or
    "transformer"), the encoder's parameters among ``extra`` set on it."""
    names = ENCODER_CLASSES[encoder]._get_param_names()
    own = {k: extra.pop(k) for k in list(extra) if k in names}
    make = transformer if encoder == "transformer" else lstm
    return {**FAST, "max_epochs": 2, "encoder": make(**own), **extra}


def _term_pairs(n, seed):
    """(text, term, (start, end)): the noun of the pair's aspect, labels unchanged."""
    X, y = make_pairs(n, seed)
    out = []
    for text, aspect in X:
        nouns = FOOD if aspect == "food" else SERVICE
        term = next(w for w in text.rstrip(".").split() if w in nouns)
        start = text.index(term)
        out.append((text, term, (start, start + len(term))))
    return out, y


@pytest.mark.parametrize("encoder", ["lstm", "transformer"])
@pytest.mark.parametrize("variant, heads", [("at", 1), ("atae", 2), ("ae", 1)])
def test_pair_classifier_same_as_torch(encoder, variant, heads, pairs, tmp_path):
    X, y = pairs
    clf = AspectAttentionClassifier(
        **_params(encoder, variant=variant, attention=AspectAttention(heads=heads))
    ).fit(X[:200], y[:200])
    model = load_onnx(export_onnx(clf, tmp_path / "export"))
    assert isinstance(model, OnnxPairClassifier)
    # AT: the encoder does not see the aspect, so a sentence is encoded once
    inputs = [i.name for i in model.session.get_inputs()]
    assert ("sentence" in inputs) == (variant == "at")
    test = X[200:]
    np.testing.assert_allclose(
        model.predict_proba(test), clf.predict_proba(test), atol=TOL
    )
    np.testing.assert_array_equal(model.predict(test), clf.predict(test))
    np.testing.assert_array_equal(model.classes_, clf.classes_)
    if variant != "ae":
        for mine, theirs in zip(
            model.explain(test[:4]), clf.explain(test[:4]), strict=True
        ):
            assert mine["tokens"] == theirs["tokens"]
            np.testing.assert_allclose(mine["weights"], theirs["weights"], atol=TOL)
            assert np.isclose(mine["weights"].sum(), 1.0)
    with pytest.raises(UnknownAspectError, match="not seen in fit"):
        model.predict([("the soup was great", "ambience")])


@pytest.mark.parametrize("unseen_words", ["spelling", "vectors"])
def test_unseen_words_read_alike_by_the_runtime(pairs, unseen_words, tmp_path):
    X, y = pairs
    clf = AspectAttentionClassifier(
        **_params("lstm", embeddings="fasttext", unseen_words=unseen_words)
    ).fit(X[:200], y[:200])
    model = load_onnx(export_onnx(clf, tmp_path / "export"))
    # inflections the training text never had, read through their n-grams
    test = [("the pastas were delicious but the waiters rude", "food"),
            ("the pizzas were awfully bland", "food")] + X[200:230]  # fmt: skip
    texts = [t for t, _ in test[:2]]
    ids = model.text_pipeline_.encode(texts).ids
    np.testing.assert_array_equal(ids, clf.text_pipeline_.encode(texts).ids)
    assert type(model.text_pipeline_.unseen) is type(clf.text_pipeline_.unseen)
    if unseen_words == "spelling":
        assert clf.text_pipeline_.vocabulary.words_[ids[1]] == "pasta"
    np.testing.assert_allclose(
        model.predict_proba(test), clf.predict_proba(test), atol=TOL
    )


@pytest.mark.parametrize(
    "weighting, final_state", [("linear", True), ("learned", "term")]
)
def test_term_positions_and_data_frames(weighting, final_state, tmp_path):
    X, y = _term_pairs(120, 0)
    clf = AspectAttentionClassifier(
        **_params(
            "lstm",
            aspect_type="term",
            attention=AspectAttention(
                position_weighting=weighting, final_state=final_state, term_query="both"
            ),
            term_marker=True,
            variant="atae",
        )
    ).fit(X, y)
    model = load_onnx(export_onnx(clf, tmp_path / "export"))
    test, _ = _term_pairs(40, 1)
    np.testing.assert_allclose(
        model.predict_proba(test), clf.predict_proba(test), atol=TOL
    )
    found = [(t, a) for t, a, _ in test]  # spans found in the text
    np.testing.assert_allclose(
        model.predict_proba(found), clf.predict_proba(found), atol=TOL
    )
    frame = pd.DataFrame(
        {
            "text": [t for t, _, _ in test],
            "aspect": [a for _, a, _ in test],
            "start": [s for _, _, (s, _) in test],
            "end": [e for _, _, (_, e) in test],
        }
    )
    np.testing.assert_array_equal(model.predict(frame), clf.predict(frame))


@pytest.fixture(scope="module")
def detector():
    from conftest import make_table

    X, Y = make_table(150, 0)
    return AspectCategoryClassifier(**{**FAST, "max_epochs": 3}).fit(X, Y)


def test_detector_same_as_torch(detector, tmp_path):
    from conftest import make_table

    texts, _ = make_table(40, 1)
    model = load_onnx(export_onnx(detector, tmp_path / "export"))
    assert isinstance(model, OnnxCategoryClassifier)
    np.testing.assert_array_equal(model.categories_, detector.categories_)
    for mine, theirs in zip(
        model.predict_proba(texts), detector.predict_proba(texts), strict=True
    ):
        np.testing.assert_allclose(mine, theirs, atol=TOL)
    np.testing.assert_array_equal(model.predict(texts), detector.predict(texts))
    for mine, theirs in zip(model.analyze(texts), detector.analyze(texts), strict=True):
        assert [(m["aspect"], m["label"]) for m in mine] == [
            (t["aspect"], t["label"]) for t in theirs
        ]
        for m, t in zip(mine, theirs, strict=True):
            np.testing.assert_allclose(m["weights"], t["weights"], atol=TOL)


RUN_WITHOUT_TORCH = """
import sys
for name in ("torch", "skorch", "sklearn", "scipy", "gensim", "pandas"):
    sys.modules[name] = None  # importing them now fails
import json
import numpy as np
from aspectattn.serving.runtime import load_onnx
model = load_onnx(sys.argv[1])
X = json.loads(sys.argv[2])
print(json.dumps(model.predict_proba([tuple(p) for p in X]).tolist()))
loaded = {m.split(".")[0] for m, v in sys.modules.items() if v is not None}
assert not loaded & {"torch", "sklearn", "scipy"}, loaded
"""


def _without_torch(script: str, directory, data):
    """``script`` run in a fresh process where torch, sklearn... cannot be
    imported, on the export in ``directory`` and ``data`` (JSON): what it
    prints, read as JSON."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(directory), json.dumps(data)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_runtime_needs_no_torch(pairs, tmp_path):
    X, y = pairs
    clf = AspectAttentionClassifier(**_params("lstm", variant="at")).fit(
        X[:100], y[:100]
    )
    export_onnx(clf, tmp_path / "export")
    test = [list(p) for p in X[100:110]]
    proba = np.array(_without_torch(RUN_WITHOUT_TORCH, tmp_path / "export", test))
    np.testing.assert_allclose(
        proba, clf.predict_proba([tuple(p) for p in test]), atol=TOL
    )


# ------------------------------------------------------------- pretrained encoder
@pytest.fixture(scope="module")
def pretrained_params(tiny_checkpoint):
    pytest.importorskip("transformers")
    return dict(
        encoder=PretrainedEncoder(str(tiny_checkpoint)),
        lr=1e-3,
        max_epochs=2,
        random_state=0,
    )


@pytest.mark.parametrize(
    "setting",
    [
        {},  # one encoder pass per sentence for all its aspects
        {"input": "pair"},  # the aspect as a second segment
        {"terms": True},  # term spans: final state, position weighting
    ],
    ids=["shared", "pair-input", "terms"],
)
def test_pretrained_pair_classifier_same_as_torch(pretrained_params, setting, tmp_path):
    setting = dict(setting)  # (the encoder's, but for "terms")
    if setting.pop("terms", False):
        X, y = _term_pairs(60, 0)
        X_test, _ = _term_pairs(20, 1)
    else:
        X, y = make_pairs(60, 0)
        X_test, _ = make_pairs(20, 1)
    encoder = clone(pretrained_params["encoder"]).set_params(**setting)
    clf = AspectAttentionClassifier(**{**pretrained_params, "encoder": encoder})
    clf.fit(X, y)
    model = load_onnx(export_onnx(clf, tmp_path / "export"))
    meta = json.loads((tmp_path / "export" / "model.json").read_text())
    assert meta["text_pipeline"]["kind"] == "subwords"
    # the runtime batches as the estimator does: within the encoder's budget
    assert meta["batch_tokens"] == clf.module_.encoder.batch_tokens > 0
    np.testing.assert_allclose(
        model.predict_proba(X_test), clf.predict_proba(X_test), atol=TOL
    )
    for mine, theirs in zip(
        model.explain(X_test[:3]), clf.explain(X_test[:3]), strict=True
    ):
        assert mine["tokens"] == theirs["tokens"]
        np.testing.assert_allclose(mine["weights"], theirs["weights"], atol=TOL)


def test_pretrained_int8_export_is_smaller_close_and_torch_free(
    pretrained_params, tmp_path
):
    from conftest import make_table

    X, y = make_pairs(60, 0)
    X_test, _ = make_pairs(30, 1)
    clf = AspectAttentionClassifier(**pretrained_params).fit(X, y)
    plain = export_onnx(clf, tmp_path / "float")
    int8 = export_onnx(clf, tmp_path / "int8", quantize="int8")
    assert (int8 / "model.onnx").read_bytes() != (plain / "model.onnx").read_bytes()
    p_float = load_onnx(plain).predict_proba(X_test)
    p_int8 = load_onnx(int8).predict_proba(X_test)
    assert not np.array_equal(p_float, p_int8)  # quantised ...
    assert np.abs(p_float - p_int8).max() < 0.05  # ... and close
    assert np.mean(p_float.argmax(1) == p_int8.argmax(1)) >= 0.95
    # the runtime tokenizes with the checkpoint's files, without torch
    test = [list(p) for p in X_test[:5]]
    out = _without_torch(RUN_WITHOUT_TORCH, int8, test)
    # (the same batch: int8 activations are quantised per batch, so a pair's
    # probabilities move by ~1e-4 with the other pairs of its batch)
    same_batch = load_onnx(int8).predict_proba(X_test[:5])
    np.testing.assert_allclose(np.array(out), same_batch, atol=TOL)
    # the detector too
    texts, Y = make_table(40, 0)
    detector = AspectCategoryClassifier(**pretrained_params).fit(texts, Y)
    model = load_onnx(export_onnx(detector, tmp_path / "det", quantize="int8"))
    assert isinstance(model, OnnxCategoryClassifier)
    for mine, theirs in zip(
        model.predict_proba(texts), detector.predict_proba(texts), strict=True
    ):
        np.testing.assert_allclose(mine, theirs, atol=0.05)
    with pytest.raises(ValueError, match="quantize must be None or 'int8'"):
        export_onnx(clf, tmp_path / "x", quantize="int4")


@pytest.mark.parametrize(
    "kind",
    ["pretrained-pair-input", "pretrained-terms", "transformer", "lstm-terms", "lstm"],
)
def test_int8_export_of_every_model_kind_predicts(kind, pretrained_params, tmp_path):
    """Every graph the export writes quantises to one onnxruntime runs, whatever
    its node names (the pair-input graph's encoder is under /model/encoder/),
    with the torch model's labels; an LSTM encoder (no weight products) is left
    float32 with a warning, as torch's int8 leaves it."""
    terms = kind.endswith("terms")
    X, y = _term_pairs(60, 0) if terms else make_pairs(60, 0)
    X_test, _ = _term_pairs(30, 1) if terms else make_pairs(30, 1)
    params = {
        "pretrained-pair-input": {
            **pretrained_params,
            "encoder": clone(pretrained_params["encoder"]).set_params(input="pair"),
        },
        "pretrained-terms": pretrained_params,
        "transformer": _params("transformer"),
        "lstm-terms": _params("lstm"),
        "lstm": _params("lstm"),
    }[kind]
    clf = AspectAttentionClassifier(**params).fit(X, y)
    if kind.startswith("lstm"):
        with pytest.warns(AspectAttnWarning, match="leaves this export float32"):
            export_onnx(clf, tmp_path / "int8", quantize="int8")
    else:
        export_onnx(clf, tmp_path / "int8", quantize="int8")
    import onnx

    graph = onnx.load(str(tmp_path / "int8" / "model.onnx")).graph
    quantized = [n.name for n in graph.node if "MatMulInteger" in n.op_type]
    assert bool(quantized) == (not kind.startswith("lstm"))
    # only the encoder's products with weights: the aspect attention's and
    # classifier's stay float32
    assert all("encoder/" in name for name in quantized)
    served = load_onnx(tmp_path / "int8")
    p_int8, p_torch = served.predict_proba(X_test), clf.predict_proba(X_test)
    assert np.mean(p_int8.argmax(1) == p_torch.argmax(1)) >= 0.9
    assert np.abs(p_int8 - p_torch).max() < 0.1


# ------------------------------------------------------------------ damaged files
@pytest.fixture(scope="module")
def exported(pairs, tmp_path_factory):
    X, y = pairs
    clf = AspectAttentionClassifier(**_params("lstm", variant="at")).fit(X[:80], y[:80])
    return export_onnx(clf, tmp_path_factory.mktemp("export") / "model")


def _copy(exported, tmp_path) -> Path:
    target = tmp_path / "copy"
    target.mkdir()
    for name in ("model.json", "model.onnx"):
        (target / name).write_bytes((exported / name).read_bytes())
    return target


def _edit_meta(directory, **fields):
    meta = json.loads((directory / "model.json").read_text())
    meta.update(fields)
    (directory / "model.json").write_text(json.dumps(meta))


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"format": "other"}, "not an aspectattn-onnx"),
        ({"kind": "exec"}, "kind must be"),
        ({"classes": {"values": ["a"], "dtype": "<U1"}}, "2 to 100000 labels"),
        ({"classes": {"values": [1, 2], "dtype": "|V8"}}, "unsupported dtype"),
        ({"text_pipeline": {"kind": "words"}}, "text pipeline"),
        ({"onnx_sha256": "../../etc/passwd"}, "64 hex digits"),
        ({"extra": 1}, "must be an object with keys"),
        ({"uses_position": "yes"}, "true or false"),
        ({"batch_tokens": 0}, "batch_tokens must be"),
        ({"batch_tokens": 2**21}, "batch_tokens must be"),
        ({"batch_tokens": True}, "batch_tokens must be"),
        ({"batch_tokens": 2048.0}, "batch_tokens must be"),
        ({"batch_tokens": "2048"}, "batch_tokens must be"),
        ({"format_version": 6}, "version 1 to 5"),
        ({"format_version": 1}, "must be an object with keys"),  # v1 had none
    ],
)
def test_bad_metadata_is_a_clear_error(exported, tmp_path, fields, message):
    directory = _copy(exported, tmp_path)
    _edit_meta(directory, **fields)
    with pytest.raises(ExportFileError, match=message):
        load_onnx(directory)


def test_tampered_or_missing_graph(exported, tmp_path):
    directory = _copy(exported, tmp_path)
    graph = bytearray((directory / "model.onnx").read_bytes())
    graph[-10] ^= 0xFF
    (directory / "model.onnx").write_bytes(bytes(graph))
    with pytest.raises(ExportFileError, match="does not match the checksum"):
        load_onnx(directory)
    (directory / "model.onnx").unlink()
    with pytest.raises(ExportFileError, match="cannot read"):
        load_onnx(directory)
    (directory / "model.json").write_text("{not json")
    with pytest.raises(ExportFileError, match="model.json"):
        load_onnx(directory)


def test_graph_with_external_data_reads_no_file(exported, tmp_path):
    """A graph whose weights point at files (here: a file beside it) is refused."""
    import hashlib

    import onnx
    from onnx.external_data_helper import convert_model_to_external_data

    directory = _copy(exported, tmp_path)
    graph = onnx.load(directory / "model.onnx")
    convert_model_to_external_data(graph, location="weights.bin", size_threshold=0)
    onnx.save(graph, directory / "model.onnx")
    assert (directory / "weights.bin").is_file()
    _edit_meta(
        directory,
        onnx_sha256=hashlib.sha256((directory / "model.onnx").read_bytes()).hexdigest(),
    )
    with pytest.raises(ExportFileError, match="external file"):
        load_onnx(directory)


def _with_graph(exported, tmp_path, graph) -> Path:
    """A copy of the export holding ``graph`` (a ModelProto), its checksum right."""
    import hashlib

    import onnx

    directory = _copy(exported, tmp_path)
    onnx.save(graph, directory / "model.onnx")
    _edit_meta(
        directory,
        onnx_sha256=hashlib.sha256((directory / "model.onnx").read_bytes()).hexdigest(),
    )
    return directory


def _crafted(kind: str):
    """Small graphs that the runtime must never run: each takes the export's
    inputs and gives its outputs' names."""
    from onnx import TensorProto, helper

    inputs = [
        helper.make_tensor_value_info("tokens", TensorProto.INT64, ["B", "T"]),
        helper.make_tensor_value_info("lengths", TensorProto.INT64, ["B"]),
        helper.make_tensor_value_info("aspect", TensorProto.INT64, ["P"]),
        helper.make_tensor_value_info("sentence", TensorProto.INT64, ["P"]),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["P", 2]),
        helper.make_tensor_value_info("attention", TensorProto.FLOAT, ["P", "T"]),
    ]
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    if kind == "huge constant":  # 2 GiB per call, from 1 kB
        shape = helper.make_tensor("shape", TensorProto.INT64, [1], [2**29])
        nodes = [helper.make_node("ConstantOfShape", ["shape"], ["logits"], value=one)]
        initializers = [shape]
    elif kind == "loop":  # 10**12 iterations: never returns
        body = helper.make_graph(
            [helper.make_node("Identity", ["c"], ["c_out"])],
            "body",
            [
                helper.make_tensor_value_info("i", TensorProto.INT64, []),
                helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            ],
            [helper.make_tensor_value_info("c_out", TensorProto.BOOL, [])],
        )
        trip = helper.make_tensor("trip", TensorProto.INT64, [], [10**12])
        cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
        nodes = [helper.make_node("Loop", ["trip", "cond"], [], body=body)]
        initializers = [trip, cond]
    else:  # "custom op"
        nodes = [helper.make_node("Anything", ["tokens"], ["logits"], domain="x.y")]
        initializers = []
    graph = helper.make_graph(nodes, "crafted", inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    "kind, message",
    [
        ("huge constant", "holds 536870912"),
        ("loop", "'Loop' is not one the exporter makes"),
        ("custom op", "x.y.'Anything'"),
    ],
)
def test_crafted_graphs_are_refused_before_onnxruntime_sees_them(
    exported, tmp_path, kind, message, monkeypatch
):
    import onnxruntime

    def never(*args, **kwargs):
        raise AssertionError("onnxruntime was given the graph")

    directory = _with_graph(exported, tmp_path, _crafted(kind))
    monkeypatch.setattr(onnxruntime, "InferenceSession", never)
    with pytest.raises(ExportFileError, match=message):
        load_onnx(directory)


def test_every_export_passes_the_graph_check(exported):
    from aspectattn.serving.graph import check_graph

    check_graph((exported / "model.onnx").read_bytes())  # raises if not


def test_onnxruntime_errors_at_prediction_are_ours(exported, monkeypatch):
    model = load_onnx(exported)

    def fail(*args, **kwargs):
        raise RuntimeError("[ONNXRuntimeError] : 2 : INVALID_ARGUMENT")

    monkeypatch.setattr(model.session, "run", fail, raising=False)
    with pytest.raises(ExportFileError, match="could not run the exported graph"):
        model.predict([("the soup was bland", "food")])


def test_wrong_graph_inputs_are_refused(exported, tmp_path, detector):
    """A detector's graph under a pair model's metadata: the inputs do not match."""
    other = export_onnx(detector, tmp_path / "detector")
    directory = _copy(exported, tmp_path)
    (directory / "model.onnx").write_bytes((other / "model.onnx").read_bytes())
    _edit_meta(
        directory,
        onnx_sha256=json.loads((other / "model.json").read_text())["onnx_sha256"],
    )
    with pytest.raises(ExportFileError, match="the graph takes"):
        load_onnx(directory)


def test_export_needs_a_fitted_word_model(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        export_onnx(AspectAttentionClassifier(), tmp_path)


def test_export_command(exported, pairs, tmp_path, capsys):
    from aspectattn.cli import main

    X, y = pairs
    clf = AspectAttentionClassifier(**_params("lstm", variant="at")).fit(X[:60], y[:60])
    clf.save(tmp_path / "m.aam")
    assert main(["export", str(tmp_path / "m.aam"), str(tmp_path / "served")]) == 0
    assert "model.onnx" in capsys.readouterr().out
    model = load_onnx(tmp_path / "served")
    np.testing.assert_allclose(
        model.predict_proba(X[60:80]), clf.predict_proba(X[60:80]), atol=TOL
    )
    assert main(["export", str(tmp_path / "missing.aam"), str(tmp_path / "x")]) == 2
    assert "not found" in capsys.readouterr().err
    with pytest.warns(AspectAttnWarning, match="not carried into the ONNX graph"):
        export_onnx(clf.set_params(quantize="int8"), tmp_path / "int8")


@pytest.mark.parametrize(
    "classes",
    [
        {"values": ["a", "b", "c", "d", "e"], "dtype": "<U1"},  # 5 labels, 2 logits
        {"values": ["negative", "positive", "x"], "dtype": "<U8"},
    ],
)
def test_classes_that_do_not_match_the_logits_are_refused_at_load(
    exported, tmp_path, classes
):
    directory = _copy(exported, tmp_path)
    _edit_meta(directory, classes=classes)
    with pytest.raises(ExportFileError, match="logits of shape"):
        load_onnx(directory)


def test_version_1_exports_load_and_predict_as_before(exported, pairs, tmp_path):
    X, _ = pairs
    directory = _copy(exported, tmp_path)
    meta = json.loads((directory / "model.json").read_text())
    assert meta["format_version"] == FORMAT_VERSION and meta["batch_tokens"] is None
    del meta["batch_tokens"]  # (an LSTM's: none)
    (directory / "model.json").write_text(json.dumps({**meta, "format_version": 1}))
    np.testing.assert_array_equal(
        load_onnx(directory).predict_proba(X[:40]),
        load_onnx(exported).predict_proba(X[:40]),
    )


def test_the_runtime_batches_within_the_exports_token_budget(exported, pairs, tmp_path):
    X, _ = pairs
    directory = _copy(exported, tmp_path)
    _edit_meta(directory, batch_tokens=40)
    model = load_onnx(directory)
    shapes = []
    run = model._session_run

    def spy(feeds):
        shapes.append(feeds["sentence"].shape + feeds["tokens"].shape)
        return run(feeds)

    model._session_run = spy
    np.testing.assert_allclose(
        model.predict_proba(X[:60]), load_onnx(exported).predict_proba(X[:60]), atol=TOL
    )
    assert len(shapes) > 1
    # (pairs, sentences, tokens): pairs times tokens within the budget
    assert all(p * t <= 40 or p == 1 for p, _, t in shapes)


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_format_version_must_be_the_integer(exported, tmp_path, version):
    directory = _copy(exported, tmp_path)
    _edit_meta(directory, format_version=version)
    with pytest.raises(ExportFileError, match="not an aspectattn-onnx"):
        load_onnx(directory)


@pytest.mark.parametrize("name", ["model.json", "model.onnx"])
def test_a_device_or_fifo_is_not_read(exported, tmp_path, name):
    import os

    directory = _copy(exported, tmp_path)
    (directory / name).unlink()
    (directory / name).symlink_to("/dev/zero")
    with pytest.raises(ExportFileError, match="not a regular file"):
        load_onnx(directory)
    (directory / name).unlink()
    os.mkfifo(directory / name)  # a reader of a FIFO would block: refused first
    with pytest.raises(ExportFileError, match="not a regular file"):
        load_onnx(directory)


_JSON = json_values()


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzzed_exports_are_refused_or_predict(exported, tmp_path_factory, tally, data):
    meta = json.loads((exported / "model.json").read_text())
    key = data.draw(st.sampled_from(sorted(meta)))
    value = data.draw(_JSON)
    directory = _copy(exported, tmp_path_factory.mktemp("fuzz"))
    _edit_meta(directory, **{key: value})
    try:
        model = load_onnx(directory)
    except ExportFileError:
        tally["refused"] += 1
        return
    X = [("the pasta was great but the waiter was rude.", "food")]
    try:
        proba = model.predict_proba(X)
    except (ValueError, InputError):  # e.g. an aspect the edited list lacks
        tally["loaded, the pair refused with a clear error"] += 1
        return
    assert proba.shape == (1, len(model.classes_))
    tally["loaded and predicted"] += 1


def test_the_behaviour_suite_scores_an_export(exported):
    from aspectattn.evaluation import behaviour_suite, score_behaviour

    result = score_behaviour(load_onnx(exported), domains=["restaurants"])
    items = behaviour_suite(["restaurants"])
    assert result["n"] == sum(i["category"] in ("food", "service") for i in items)
    assert result["skipped"] == len(items) - result["n"]
    assert {"MFT", "INV", "DIR"} <= set(result)


# ------------------------------------------------------------------ the extractor
@pytest.fixture(scope="module")
def extractors():
    """LSTM extractors with and without character features, fitted briefly."""
    from test_extraction import FAST_EXTRACTOR, make_sentences

    from aspectattn import AspectTermExtractor

    texts, y = make_sentences(120, seed=0)
    settings = {**FAST_EXTRACTOR, "max_epochs": 4}
    return {
        chars: AspectTermExtractor(**settings, characters=chars).fit(texts, y)
        for chars in (True, False)
    }


#: New sentences, unseen words and characters, a text without words, a long one.
EXTRACTOR_TEXTS = [
    "The sushi was awful but the waitress was lovely.",
    "Die Suppe war kalt, der Kellner unfreundlich.",
    "...",
    "The soup " + "and the soup " * 40 + "was bland.",
    "ÉCLAIRS! The pasta was great.",
]


def _same_terms(found, expected):
    assert [[t["span"] for t in x] for x in found] == [
        [t["span"] for t in x] for x in expected
    ]
    assert [[t["term"] for t in x] for x in found] == [
        [t["term"] for t in x] for x in expected
    ]
    ours = [t["score"] for x in found for t in x]
    theirs = [t["score"] for x in expected for t in x]
    assert ours and np.allclose(ours, theirs, atol=TOL)


@pytest.mark.parametrize("chars", [True, False], ids=["characters", "words-only"])
def test_extractor_export_finds_the_same_terms(extractors, chars, tmp_path):
    from aspectattn.serving.runtime import OnnxTermExtractor

    extractor = extractors[chars]
    served = load_onnx(export_onnx(extractor, tmp_path / "extractor"))
    assert isinstance(served, OnnxTermExtractor)
    inputs = [i.name for i in served.session.get_inputs()]
    assert inputs == ["tokens", "lengths"] + (["chars", "char_index"] if chars else [])
    _same_terms(
        served.predict_spans(EXTRACTOR_TEXTS), extractor.predict_spans(EXTRACTOR_TEXTS)
    )
    assert served.predict(EXTRACTOR_TEXTS) == extractor.predict(EXTRACTOR_TEXTS)
    from test_extraction import make_sentences

    new = make_sentences(40, seed=5)
    assert served.score(*new) == extractor.score(*new) > 0.5


RUN_EXTRACTOR_WITHOUT_TORCH = """
import json, sys
for name in ("torch", "skorch", "sklearn", "scipy", "gensim", "pandas"):
    sys.modules[name] = None  # importing any of them now fails
from aspectattn.serving.runtime import load_onnx
print(json.dumps(load_onnx(sys.argv[1]).predict_spans(json.loads(sys.argv[2]))))
loaded = {m.split(".")[0] for m, v in sys.modules.items() if v is not None}
assert not loaded & {"torch", "sklearn", "scipy"}, loaded
"""


def test_extractor_runtime_needs_no_torch(extractors, tmp_path):
    extractor = extractors[True]
    export_onnx(extractor, tmp_path / "extractor")
    out = _without_torch(
        RUN_EXTRACTOR_WITHOUT_TORCH, tmp_path / "extractor", EXTRACTOR_TEXTS
    )
    found = [[{**t, "span": tuple(t["span"])} for t in terms] for terms in out]
    _same_terms(found, extractor.predict_spans(EXTRACTOR_TEXTS))


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"kind": "pairs"}, "must be an object with keys"),
        ({"inputs": {"kind": "words"}}, "kind, words and characters"),
        ({"inputs": {"kind": "code"}}, "words' or the sub-words'"),
        ({"language": "../en"}, "ISO 639"),
        ({"whole_words": 1}, "true or false"),
        ({"decoding": "beam"}, "decoding must be one of"),
        ({"decoding": ["viterbi"]}, "decoding must be one of"),
        ({"decoding": "crf", "transitions": None}, "transitions is null"),
        ({"transitions": {"start": [0, 0], "pairs": [[0] * 3] * 3}}, "transitions"),
        ({"transitions": {"start": [0, 0, 0], "pairs": [[0] * 3] * 2}}, "transitions"),
        ({"transitions": {"start": [0, 0, 1e9], "pairs": [[0] * 3] * 3}}, "transit"),
        ({"transitions": {"start": [0, 0, True], "pairs": [[0] * 3] * 3}}, "transit"),
        ({"transitions": {"start": [0, 0, "0"], "pairs": [[0] * 3] * 3}}, "transit"),
        ({"transitions": {"start": [0, 0, NAN], "pairs": [[0] * 3] * 3}}, "transit"),
        ({"transitions": [[0, 0, 0]]}, "transitions must be"),
        ({"format_version": 4}, "must be an object with keys"),  # v4 had none
        ({"text_pipeline": {}}, "must be an object with keys"),
        ({"batch_tokens": 0}, "batch_tokens must be"),
        ({"batch_tokens": 1.5}, "batch_tokens must be"),
        ({"format_version": 2}, "must be an object with keys"),  # v2 had none
    ],
)
def test_bad_extractor_metadata_is_a_clear_error(extractors, tmp_path, fields, message):
    directory = export_onnx(extractors[True], tmp_path / "extractor")
    _edit_meta(directory, **fields)
    with pytest.raises(ExportFileError, match=message):
        load_onnx(directory)


def test_extractor_exports_before_the_budget_and_within_one(
    extractors, tmp_path, monkeypatch
):
    """An extractor exported before version 3 (no ``batch_tokens``) finds the same
    terms; one with a budget keeps every batch within it, with the same terms."""
    from conftest import spy_on_batches

    from aspectattn.extraction import reading

    # (read greedily: version 2 had no other reading)
    greedy = pickle.loads(pickle.dumps(extractors[True])).set_params(decoding="greedy")
    directory = export_onnx(greedy, tmp_path / "extractor")
    meta = json.loads((directory / "model.json").read_text())
    assert meta["format_version"] == FORMAT_VERSION and meta["batch_tokens"] is None
    expected = load_onnx(directory).predict_spans(EXTRACTOR_TEXTS)
    before = _copy(directory, tmp_path)
    del meta["batch_tokens"], meta["decoding"], meta["transitions"]  # (version 2)
    (before / "model.json").write_text(json.dumps({**meta, "format_version": 2}))
    _same_terms(load_onnx(before).predict_spans(EXTRACTOR_TEXTS), expected)
    _edit_meta(directory, batch_tokens=20)
    seen = spy_on_batches(monkeypatch, reading)
    _same_terms(load_onnx(directory).predict_spans(EXTRACTOR_TEXTS), expected)
    assert len(seen) > 1 and all(budget == 20 for *_, budget in seen)
    assert all(rows * longest <= 20 or rows == 1 for rows, longest, _ in seen)


def test_extractor_fields_must_match_its_graph(extractors, exported, tmp_path):
    """An extractor's model.json beside a graph of other inputs (words only, or
    a classifier's) is refused at load, not at the first prediction."""
    import hashlib

    words_only = export_onnx(extractors[False], tmp_path / "words")
    for graph in (words_only / "model.onnx", exported / "model.onnx"):
        directory = export_onnx(extractors[True], tmp_path / "chars")
        (directory / "model.onnx").write_bytes(graph.read_bytes())
        _edit_meta(
            directory, onnx_sha256=hashlib.sha256(graph.read_bytes()).hexdigest()
        )
        # (the tables are held against model.json before onnxruntime loads it)
        with pytest.raises(ExportFileError, match="this extractor needs|has no rows"):
            load_onnx(directory)


def test_a_convolution_with_huge_padding_is_refused(extractors, tmp_path):
    """The character convolution's integer attributes are bounded: pads of 2**40
    would make onnxruntime allocate without end."""
    import onnx

    directory = export_onnx(extractors[True], tmp_path / "extractor")
    graph = onnx.load(directory / "model.onnx")
    conv = next(n for n in graph.graph.node if n.op_type == "Conv")
    pads = next(a for a in conv.attribute if a.name == "pads")
    pads.ints[:] = [2**40, 2**40]
    with pytest.raises(ExportFileError, match="integer attribute"):
        load_onnx(_with_graph(directory, tmp_path, graph))


@pytest.fixture(scope="module")
def term_classifier():
    from test_extraction import make_sentences, term_pairs

    texts, y = make_sentences(120, seed=0)
    pairs, labels = term_pairs(texts, y)
    return AspectAttentionClassifier(**_params("lstm")).fit(pairs, labels)


def test_two_exports_run_the_pipeline_end_to_end(extractors, term_classifier, tmp_path):
    """An exported extractor and an exported term classifier give what the
    fitted pipeline gives: the same terms, polarities, report rows and score."""
    from test_extraction import make_sentences

    from aspectattn import AspectSentimentPipeline
    from aspectattn.serving.runtime import OnnxSentimentPipeline

    pipeline = AspectSentimentPipeline.from_fitted(extractors[True], term_classifier)
    extractor = load_onnx(export_onnx(extractors[True], tmp_path / "extractor"))
    classifier = load_onnx(export_onnx(term_classifier, tmp_path / "terms"))
    served = OnnxSentimentPipeline(extractor, classifier)
    texts, y = make_sentences(40, seed=7)
    texts = EXTRACTOR_TEXTS + texts
    found, expected = served.predict(texts), pipeline.predict(texts)
    keys = ("span", "term", "polarity")
    assert [[{k: t[k] for k in keys} for t in x] for x in found] == [
        [{k: t[k] for k in keys} for t in x] for x in expected
    ]
    ours = [t["probability"] for x in found for t in x]
    assert np.allclose(ours, [t["probability"] for x in expected for t in x], atol=TOL)
    rows = [[(a["aspect"], a["label"]) for a in x] for x in served.analyze(texts)]
    assert rows == [
        [(a["aspect"], a["label"]) for a in x] for x in pipeline.analyze(texts)
    ]
    assert served.score(texts[5:], y) == pipeline.score(texts[5:], y)
    with pytest.raises(TypeError, match="exported extractor"):
        OnnxSentimentPipeline(classifier, classifier)
    with pytest.raises(TypeError, match="aspect terms"):
        OnnxSentimentPipeline(extractor, extractor)


def test_export_command_writes_an_extractor(extractors, tmp_path, capsys):
    from aspectattn.cli import main
    from aspectattn.persistence import save
    from aspectattn.serving.runtime import OnnxTermExtractor

    save(extractors[True], tmp_path / "extractor.aam")
    assert main(["export", str(tmp_path / "extractor.aam"), str(tmp_path / "e")]) == 0
    assert "model.onnx" in capsys.readouterr().out
    served = load_onnx(tmp_path / "e")
    assert isinstance(served, OnnxTermExtractor)
    assert served.predict(EXTRACTOR_TEXTS) == extractors[True].predict(EXTRACTOR_TEXTS)


@pytest.mark.parametrize("key", ["characters", "words"])
def test_an_extractors_inputs_must_match_its_graphs_tables(extractors, key, tmp_path):
    """A model.json whose words or characters were cut loaded, and read every
    later word or character as another: the terms changed in silence."""
    directory = export_onnx(extractors[True], tmp_path / "extractor")
    meta = json.loads((directory / "model.json").read_text())
    meta["inputs"][key] = meta["inputs"][key][:-3]
    (directory / "model.json").write_text(json.dumps(meta))
    table = "char_embedding" if key == "characters" else "embedding"
    with pytest.raises(ExportFileError, match=rf"model.{table}.weight has \d+ rows"):
        load_onnx(directory)


# -- the joint model: two graphs, one pass ---------------------------------------
@pytest.fixture(scope="module")
def joint():
    from test_joint import FAST, make_opinions

    from aspectattn import AspectSentimentExtractor

    return AspectSentimentExtractor(**FAST, aspect_names={"salad": "greens"}).fit(
        *make_opinions(200, seed=0)
    )


JOINT_TEXTS = [
    "The pasta was great but the waiter was rude.",
    "What a day!",
    "The salad was bland.",
    "...",
]


def test_the_joint_export_answers_as_the_joint_model(joint, tmp_path):
    from test_joint import make_opinions

    from aspectattn.serving.runtime import OnnxAspectSentiment

    directory = export_onnx(joint, tmp_path / "joint")
    assert sorted(p.name for p in directory.iterdir()) == [
        "model.json",
        "model.onnx",
        "polarity.onnx",
    ]
    served = load_onnx(directory)
    assert isinstance(served, OnnxAspectSentiment)
    found, expected = served.predict(JOINT_TEXTS), joint.predict(JOINT_TEXTS)
    _same_terms(found, expected)
    assert [[t["polarity"] for t in x] for x in found] == [
        [t["polarity"] for t in x] for x in expected
    ]
    ours = [t["probability"] for x in found for t in x]
    assert np.allclose(ours, [t["probability"] for x in expected for t in x], atol=TOL)
    texts, y = make_opinions(40, seed=6)
    pairs = [
        (t, t[a:b], (a, b)) for t, s in zip(texts, y, strict=True) for a, b, _ in s
    ]
    assert np.allclose(
        served.predict_polarity_proba(pairs), joint.predict_polarity_proba(pairs),
        atol=TOL,
    )  # fmt: skip
    assert served.score(texts, y) == joint.score(texts, y) > 0.9
    [terms] = served.analyze(["The salad was bland."])
    assert [(t["aspect"], t["label"]) for t in terms] == [("greens", "negative")]
    assert served.given_terms().classes_.tolist() == ["negative", "positive"]


RUN_JOINT_WITHOUT_TORCH = """
import json, sys
for name in ("torch", "skorch", "sklearn", "scipy", "gensim", "pandas"):
    sys.modules[name] = None  # importing any of them now fails
from aspectattn.serving.runtime import load_onnx
print(json.dumps(load_onnx(sys.argv[1]).predict(json.loads(sys.argv[2]))))
"""


def test_the_joint_runtime_needs_no_torch(joint, tmp_path):
    export_onnx(joint, tmp_path / "joint")
    out = _without_torch(RUN_JOINT_WITHOUT_TORCH, tmp_path / "joint", JOINT_TEXTS)
    assert [[t["polarity"] for t in x] for x in out] == [
        [t["polarity"] for t in x] for x in joint.predict(JOINT_TEXTS)
    ]


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"polarity_sha256": "0" * 64}, "polarity.onnx does not match the checksum"),
        ({"polarity_sha256": "x"}, "64 hex digits"),
        (
            {
                "classes": {
                    "values": ["negative", "neutral", "positive"],
                    "dtype": "<U8",
                }
            },
            "model.json lists 3 classes",
        ),
        ({"aspect_names": ["x"]}, "aspect_names must be None or a dict"),
        ({"kind": "terms"}, "must be an object with keys"),
    ],
)
def test_bad_joint_metadata_is_a_clear_error(joint, tmp_path, fields, message):
    directory = export_onnx(joint, tmp_path / "joint")
    _edit_meta(directory, **fields)
    with pytest.raises(ExportFileError, match=message):
        load_onnx(directory)


def test_a_joint_export_without_its_polarity_graph_is_refused(joint, tmp_path):
    directory = export_onnx(joint, tmp_path / "joint")
    (directory / "polarity.onnx").unlink()
    with pytest.raises(ExportFileError, match="polarity.onnx"):
        load_onnx(directory)


def test_a_pretrained_joint_model_exports_int8(tiny_checkpoint, tmp_path):
    """int8 reaches the encoder's matrix products inside the joint model's
    tagger (its nodes' scope is /model/tagger/encoder/)."""
    import onnx
    from test_joint import make_opinions

    from aspectattn import AspectSentimentExtractor
    from aspectattn.serving.export import encoder_products

    texts, y = make_opinions(40, seed=5)
    joint = AspectSentimentExtractor(
        encoder=PretrainedEncoder(str(tiny_checkpoint)), max_epochs=1, random_state=0
    ).fit(texts, y)
    directory = export_onnx(joint, tmp_path / "float")
    assert encoder_products(onnx.load(str(directory / "model.onnx")).graph)
    served = load_onnx(export_onnx(joint, tmp_path / "int8", quantize="int8"))
    graph = onnx.load(str(tmp_path / "int8" / "model.onnx")).graph
    assert any(n.op_type == "MatMulInteger" for n in graph.node)
    pairs = [
        (t, t[a:b], (a, b)) for t, s in zip(texts, y, strict=True) for a, b, _ in s
    ]
    assert (
        np.abs(
            served.predict_polarity_proba(pairs) - joint.predict_polarity_proba(pairs)
        ).max()
        < 0.05
    )


def test_an_extractor_exported_with_viterbi_decoding_reads_as_the_estimator(
    extractors, tmp_path
):
    extractor = pickle.loads(pickle.dumps(extractors[True]))
    extractor.set_params(decoding="viterbi")  # (read when predicting: no refit)
    directory = export_onnx(extractor, tmp_path / "extractor")
    meta = json.loads((directory / "model.json").read_text())
    assert meta["decoding"] == "viterbi"
    _same_terms(
        load_onnx(directory).predict_spans(EXTRACTOR_TEXTS),
        extractor.predict_spans(EXTRACTOR_TEXTS),
    )
