"""Files written by earlier code, before the first release: refused with a clear
message, never read as something else. Model files of formats 1 and 2 held the
settings flat (format 3 holds each component with its own parameters); pickles
name the classes under the module paths of their time, which no longer exist
(there is no import hook for them).

``tests/data/release`` holds a model file (format 2), pickles, joblib and skops
files written by the code before the package's layout changed
(``make_fixtures.py`` there); ``tests/data/v1_lstm_atae.aam`` is a file of
format 1.
"""

import pickle
from pathlib import Path

import joblib
import pytest

from aspectattn.persistence import SKOPS_TRUSTED_TYPES, ModelFileError, load

RELEASE = Path(__file__).parent / "data" / "release"


@pytest.mark.parametrize(
    "path, version",
    [(RELEASE / "pairs_atae.aam", 2), (RELEASE.parent / "v1_lstm_atae.aam", 1)],
)
def test_model_files_of_the_development_formats_are_refused(path, version):
    with pytest.raises(ModelFileError, match=f"format version {version}.*fit the"):
        load(path)


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
