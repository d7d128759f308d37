import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch
from conftest import FAST, settings

from aspectattn import AspectAttentionClassifier
from aspectattn.encoders import PretrainedEncoder
from aspectattn.persistence import FORMAT_VERSION, ModelFileError, load


@pytest.fixture(scope="module")
def fitted(pairs):
    return AspectAttentionClassifier(
        **{**FAST, "max_epochs": 3}, class_weight={"positive": 2.0}
    ).fit(*pairs)


def assert_same_fitted_state(a, b):
    """Every documented fitted attribute, dtype included."""
    from aspectattn.estimators._base import FITTED_ATTRIBUTES

    for name in FITTED_ATTRIBUTES:
        assert hasattr(a, name) == hasattr(b, name), name
        if not hasattr(a, name):
            continue
        x, y = getattr(a, name), getattr(b, name)
        if name == "module_":
            sx, sy = x.state_dict(), y.state_dict()
            assert sx.keys() == sy.keys()
            for k in sx:
                assert torch.equal(sx[k].cpu(), sy[k].cpu()), k
        elif name == "text_pipeline_":
            assert x.to_state() == y.to_state()
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.tolist() == y.tolist(), name
        else:
            assert type(x) is type(y) and x == y, name


def test_round_trip_gives_identical_predictions(fitted, test_pairs, tmp_path):
    path = tmp_path / "model.aam"
    fitted.save(path)
    loaded = AspectAttentionClassifier.load(path)
    X = test_pairs[0]
    np.testing.assert_array_equal(loaded.predict_proba(X), fitted.predict_proba(X))
    assert settings(loaded) == settings(fitted)
    assert loaded.classes_.tolist() == fitted.classes_.tolist()
    assert_same_fitted_state(loaded, fitted)
    assert loaded.predict(X).dtype == fitted.predict(X).dtype
    assert loaded.explain(X[:1])[0]["tokens"] == fitted.explain(X[:1])[0]["tokens"]
    # and the loaded model pickles like any other
    again = pickle.loads(pickle.dumps(loaded))
    assert_same_fitted_state(again, fitted)
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))


def test_load_alone_finds_the_estimator_classes(fitted, test_pairs, tmp_path):
    # `import aspectattn` loads its estimators lazily: persistence.load must not
    # depend on something else having imported them first. Nor does it import
    # torch._dynamo (seconds), which the meta device's weight initialisers did.
    fitted.save(tmp_path / "m.aam")
    code = (
        "import sys; from aspectattn.persistence import load; "
        f"m = load({str(tmp_path / 'm.aam')!r}); "
        f"print(m.predict([{test_pairs[0][0]!r}])[0]); "
        "print('torch._dynamo' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    label, dynamo = out.stdout.split()
    assert label == str(fitted.predict(test_pairs[0][:1])[0])
    assert dynamo == "False"


def test_integer_labels_and_terms_survive(pairs, tmp_path):
    X, y = pairs
    X_terms = [(t, t.split()[1]) for t, _ in X]
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(
        X_terms, [1 if v == "positive" else 0 for v in y]
    )
    clf.save(tmp_path / "m")
    loaded = AspectAttentionClassifier.load(tmp_path / "m")
    assert loaded.aspect_type_ == "term" and loaded.classes_.tolist() == [0, 1]
    np.testing.assert_array_equal(loaded.predict(X_terms), clf.predict(X_terms))


def test_model_trained_on_gpu_loads_on_cpu(fitted, tmp_path):
    fitted.device_, device = "cuda", fitted.device_  # as if trained on a GPU
    try:
        fitted.save(tmp_path / "m")
    finally:
        fitted.device_ = device
    loaded = AspectAttentionClassifier.load(tmp_path / "m")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert loaded.device_ == expected


def test_altered_file_is_refused(fitted, tmp_path):
    path = tmp_path / "m"
    fitted.save(path)
    payload = torch.load(path, weights_only=True)
    payload["tensors"]["classifier.bias"] += 1.0
    torch.save(payload, path)
    with pytest.raises(ModelFileError, match="altered"):
        load(path)


def test_incompatible_version_is_refused(fitted, tmp_path):
    path = tmp_path / "m"
    fitted.save(path)
    payload = torch.load(path, weights_only=True)
    payload["format_version"] = FORMAT_VERSION + 1
    torch.save(payload, path)
    with pytest.raises(ModelFileError, match=f"version {FORMAT_VERSION + 1}"):
        load(path)


class _Exploit:
    def __reduce__(self):
        import os

        return (os.system, ("touch pwned-marker",))


def test_a_file_that_would_run_code_is_refused_without_running_it(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.aam"
    torch.save({"format": "aspectattn-model", "payload": _Exploit()}, path)
    with pytest.raises(ModelFileError, match="not a readable aspectattn model file"):
        load(path)
    assert not (tmp_path / "pwned-marker").exists()
    path.write_bytes(pickle.dumps({"x": 1}))
    with pytest.raises(ModelFileError):
        load(path)


def test_other_files_are_refused(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, path)
    with pytest.raises(ModelFileError, match="not an aspectattn model file"):
        load(path)


def test_unfitted_cannot_be_saved(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        AspectAttentionClassifier().save(tmp_path / "m")


def test_interrupted_and_dataframe_state_survive(pairs, tmp_path):
    import pandas as pd

    X, y = pairs
    frame = pd.DataFrame({"review": [t for t, _ in X], "topic": [a for _, a in X]})
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 1}, text_column="review", aspect_column="topic"
    ).fit(frame, y)
    clf.interrupted_ = True  # as after Ctrl-C
    clf.save(tmp_path / "m")
    loaded = AspectAttentionClassifier.load(tmp_path / "m")
    assert loaded.interrupted_ is True
    assert_same_fitted_state(loaded, clf)


# ----------------------------------------------------------------------- skops
def test_pipelines_round_trip_through_skops(pairs, tmp_path):
    """A Pipeline with each of our estimators: saved with skops.io, loaded with the
    documented trusted types only, the same predictions."""
    sio = pytest.importorskip("skops.io")
    from conftest import FAST, GLOVE
    from sklearn.pipeline import Pipeline

    from aspectattn import AspectAttentionClassifier, make_baseline
    from aspectattn.persistence import SKOPS_TRUSTED_TYPES

    X, y = pairs
    models = [
        Pipeline(
            [("model", AspectAttentionClassifier(**{**FAST, "max_epochs": 2}))]
        ).fit(X[:80], y[:80])
    ]
    if GLOVE.is_file():
        models.append(make_baseline("tfidf", embeddings=str(GLOVE)).fit(X[:80], y[:80]))
    for i, model in enumerate(models):
        path = tmp_path / f"m{i}.skops"
        sio.dump(model, path)
        untrusted = sio.get_untrusted_types(file=path)
        assert set(untrusted) <= set(SKOPS_TRUSTED_TYPES), untrusted
        loaded = sio.load(path, trusted=SKOPS_TRUSTED_TYPES)
        np.testing.assert_array_equal(loaded.predict(X[80:]), model.predict(X[80:]))
        if hasattr(model, "predict_proba"):
            np.testing.assert_array_equal(
                loaded.predict_proba(X[80:]), model.predict_proba(X[80:])
            )


def test_skops_file_with_altered_model_is_refused(pairs, tmp_path):
    """The estimator's state in a skops file goes through the .aam checks: an
    edited field (here the classes) fails the checksum."""
    import zipfile

    sio = pytest.importorskip("skops.io")
    from conftest import FAST

    from aspectattn import AspectAttentionClassifier
    from aspectattn.persistence import SKOPS_TRUSTED_TYPES

    X, y = pairs
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X[:60], y[:60])
    path = tmp_path / "m.skops"
    sio.dump(clf, path)
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    schema = files["schema.json"].decode()
    assert "negative" in schema  # a label, inside the metadata's JSON string
    files["schema.json"] = schema.replace("negative", "NEGATIVE").encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    with pytest.raises(ModelFileError, match="altered"):
        sio.load(path, trusted=SKOPS_TRUSTED_TYPES)


def test_a_pretrained_models_resolved_recipe_survives_every_format(
    tiny_checkpoint, tmp_path
):
    """encoder="pretrained" with nothing else set: the fine-tuning recipe that
    "auto" resolved is recorded, and kept by the safe file, pickle and joblib; the
    ONNX export predicts the same."""
    pytest.importorskip("transformers")
    import joblib
    from conftest import make_pairs

    from aspectattn import params as P

    X, y = make_pairs(30, 0)
    clf = AspectAttentionClassifier(
        encoder=PretrainedEncoder(str(tiny_checkpoint)), random_state=0
    ).fit(X, y)
    # the recipe, under the names of the estimator and its components
    names = {"freeze_embeddings": "encoder__freeze_embeddings",
             "lr_schedule": "optimizer__lr_schedule"}  # fmt: skip
    recipe = {
        k: clf.resolved_params_[names.get(k, k)]
        for k in P.PRETRAINED_TRAINING
        if k != "patience"  # (early stopping's: none here)
    }
    assert recipe == {k: v for k, v in P.PRETRAINED_TRAINING.items() if k != "patience"}
    assert clf.get_params()["lr"] == "auto"  # the parameter itself stays "auto"
    assert len(clf.history_) == P.PRETRAINED_TRAINING["max_epochs"]
    clf.save(tmp_path / "m.aam")
    joblib.dump(clf, tmp_path / "m.joblib")
    copies = [
        load(tmp_path / "m.aam"),
        pickle.loads(pickle.dumps(clf)),
        joblib.load(tmp_path / "m.joblib"),
    ]
    expected = clf.predict_proba(X)
    for copy in copies:
        assert copy.resolved_params_ == clf.resolved_params_
        np.testing.assert_array_equal(copy.predict_proba(X), expected)
    pytest.importorskip("onnxruntime")
    from aspectattn.serving.export import export_onnx
    from aspectattn.serving.runtime import load_onnx

    served = load_onnx(export_onnx(copies[0], tmp_path / "onnx"))
    np.testing.assert_allclose(served.predict_proba(X), expected, atol=1e-5)
