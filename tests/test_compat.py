"""Files written by earlier code: model files load and predict as they did (one
migration, in :mod:`aspectattn.persistence`); pickles name the classes under the
module paths of their time, which no longer exist (nothing was released: there is
no import hook for them), and are refused.

``tests/data/release`` holds model files, pickles, joblib and skops files written by
the code before the package's layout changed (``make_fixtures.py`` there), with
the probabilities they gave; ``tests/data/v1_*.aam`` are files of format 1.
"""

import pickle
from pathlib import Path

import joblib
import numpy as np
import pytest
from conftest import FOOD, SERVICE, make_pairs

from aspectattn import AspectAttentionClassifier, AspectCategoryClassifier
from aspectattn.persistence import SKOPS_TRUSTED_TYPES, load

RELEASE = Path(__file__).parent / "data" / "release"
EXPECTED = np.load(RELEASE / "expected.npz")


def _test_data(name):
    X_test, _ = make_pairs(12, seed=1)
    if name == "pairs_atae":
        return X_test
    if name == "terms_at":

        def term_of(text, aspect):
            pool = FOOD if aspect == "food" else SERVICE
            return next(w for w in text.rstrip(".").split() if w in pool)

        return [(t, term_of(t, a)) for t, a in X_test]
    return sorted({t for t, _ in X_test})


def _proba(model, data):
    proba = model.predict_proba(data)
    return np.stack(proba, 1) if isinstance(proba, list) else proba


@pytest.mark.parametrize("name", ["pairs_atae", "terms_at", "detector"])
def test_release_model_files_predict_as_before(name):
    model = load(RELEASE / f"{name}.aam")
    kind = AspectCategoryClassifier if name == "detector" else AspectAttentionClassifier
    assert type(model) is kind
    np.testing.assert_allclose(
        _proba(model, _test_data(name)), EXPECTED[f"{name}_proba"], rtol=0, atol=1e-6
    )


@pytest.mark.parametrize("reader", ["pkl", "joblib", "skops"])
def test_pickles_of_the_old_layout_are_refused(reader):
    """Their module (aspectattn.estimator) is gone; a model file is the way."""
    if reader == "skops":
        sio = pytest.importorskip("skops.io")
        with pytest.raises(Exception, match=r"aspectattn\.estimator"):
            sio.load(RELEASE / "pairs_pipeline.skops", trusted=SKOPS_TRUSTED_TYPES)
        return
    read = {"pkl": lambda p: pickle.loads(p.read_bytes()), "joblib": joblib.load}
    with pytest.raises(ModuleNotFoundError, match=r"aspectattn\.estimator"):
        read[reader](RELEASE / f"pairs_atae.{reader}")


@pytest.mark.parametrize("name", ["pairs_atae", "detector"])
def test_release_files_get_the_training_of_their_time(name):
    # head_lr came after these files: they were trained with lr everywhere, and a
    # refit of the loaded model must train the same way, not with head_lr="auto".
    model = load(RELEASE / f"{name}.aam")
    assert model.get_params()["optimizer__head_lr"] is None
    assert model.resolved_params_["head_lr"] is None


def test_no_import_hook_and_no_old_module_path():
    import importlib
    import sys

    import aspectattn  # noqa: F401

    assert not [f for f in sys.meta_path if "aspectattn" in type(f).__module__]
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("aspectattn.estimator")


def test_the_top_level_shows_the_product():
    import aspectattn

    package = Path(aspectattn.__file__).parent
    public = sorted(
        p.stem if p.is_file() else p.name
        for p in package.iterdir()
        if not p.name.startswith(("_", "."))
        and (p.suffix == ".py" or p.is_dir())
        and p.name != "__pycache__"
    )
    # one subpackage per layer, a few modules of their own concern
    assert {
        "estimators",
        "nn",
        "engine",
        "text",
        "params",
        "datasets",
        "reviews",
        "serving",
        "cli",
        "encoders",  # the components passed as encoder=
        "attention",  # as attention=
        "training",  # as optimizer= and early_stopping=
    } <= set(public)
    assert len(public) <= 19, public
