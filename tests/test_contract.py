"""scikit-learn's contract on every public estimator.

Each estimator's input tags say it reads text (pairs, sentences), not numeric
arrays, so ``check_estimator`` skips the checks that feed it numbers; the API
checks that apply to text run on each, and the checks that fit numeric data
run here on text of each estimator's kind: ``fit`` returns ``self``, leaves the
parameters as given, and reads read-only input.
"""

from __future__ import annotations

import joblib
import numpy as np
import pytest
from conftest import FAST, TEXT_INPUT_CHECKS, make_pairs, make_table
from sklearn.utils import estimator_checks
from sklearn.utils.estimator_checks import check_estimator
from sklearn.utils.validation import check_is_fitted
from test_baselines import VECTORS, tiny_tagger
from test_distillation import LexiconTeacher
from test_extraction import FAST_EXTRACTOR, make_sentences

from aspectattn import (
    AspectAttentionClassifier,
    AspectCategoryClassifier,
    AspectSentimentExtractor,
    AspectSentimentPipeline,
    AspectTermExtractor,
    DistilledClassifier,
    DistilledExtractor,
    POSWeightedEmbeddingVectorizer,
    TfidfEmbeddingVectorizer,
)

ONE_EPOCH = {**FAST, "max_epochs": 1}
EXTRACTOR = {**FAST_EXTRACTOR, "max_epochs": 1}
PUBLIC = [
    "AspectAttentionClassifier",
    "AspectCategoryClassifier",
    "AspectTermExtractor",
    "AspectSentimentPipeline",
    "AspectSentimentExtractor",
    "DistilledClassifier",
    "DistilledExtractor",
    "TfidfEmbeddingVectorizer",
    "POSWeightedEmbeddingVectorizer",
]


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    path = tmp_path_factory.mktemp("vectors") / "tiny.txt"
    path.write_text("".join(f"{w} {v[0]} {v[1]}\n" for w, v in VECTORS.items()))
    return str(path)


def _estimator(name: str, vectors: str):
    """An unfitted estimator of each public kind, set to fit in a second."""
    return {
        "AspectAttentionClassifier": lambda: AspectAttentionClassifier(**ONE_EPOCH),
        "AspectCategoryClassifier": lambda: AspectCategoryClassifier(**ONE_EPOCH),
        "AspectTermExtractor": lambda: AspectTermExtractor(**EXTRACTOR),
        "AspectSentimentPipeline": lambda: AspectSentimentPipeline(
            AspectTermExtractor(**EXTRACTOR), AspectAttentionClassifier(**ONE_EPOCH)
        ),
        "AspectSentimentExtractor": lambda: AspectSentimentExtractor(**EXTRACTOR),
        "DistilledClassifier": lambda: DistilledClassifier(
            AspectAttentionClassifier(**ONE_EPOCH), LexiconTeacher()
        ),
        "DistilledExtractor": lambda: DistilledExtractor(
            AspectSentimentExtractor(**EXTRACTOR), AspectSentimentExtractor(**EXTRACTOR)
        ),
        "TfidfEmbeddingVectorizer": lambda: TfidfEmbeddingVectorizer(
            embeddings=vectors
        ),
        "POSWeightedEmbeddingVectorizer": lambda: POSWeightedEmbeddingVectorizer(
            embeddings=vectors, tagger=tiny_tagger
        ),
    }[name]()


def _read_only_data(name: str):
    """``(X, y)`` of the estimator's kind, every array of it read-only."""

    def frozen(values):
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
        array.setflags(write=False)
        return array

    if name in (
        "AspectTermExtractor",
        "AspectSentimentPipeline",
        "AspectSentimentExtractor",
        "DistilledExtractor",
    ):
        texts, y = make_sentences(30, seed=0)
        return frozen(texts), y
    if name == "AspectCategoryClassifier":
        texts, Y = make_table(30, 0)
        return frozen(texts), Y
    X, y = make_pairs(20, seed=0)
    pairs = np.asarray(X, dtype=object)
    pairs.setflags(write=False)
    return pairs, frozen(y)


@pytest.mark.parametrize("name", PUBLIC)
def test_check_estimator_finds_text_input_and_nothing_failing(name, vectors):
    results = check_estimator(_estimator(name, vectors), on_fail=None)
    assert [r["check_name"] for r in results if r["status"] == "failed"] == []


@pytest.mark.parametrize(
    "check", [*TEXT_INPUT_CHECKS, "check_do_not_raise_errors_in_init_or_set_params"]
)
@pytest.mark.parametrize("name", PUBLIC)
def test_the_api_checks_that_apply_to_text_pass(name, check, vectors):
    getattr(estimator_checks, check)(name, _estimator(name, vectors))


@pytest.mark.parametrize("name", PUBLIC)
def test_fit_returns_self_keeps_its_parameters_and_reads_read_only_input(name, vectors):
    """scikit-learn's check_estimators_fit_returns_self,
    check_dont_overwrite_parameters and check_readonly_memmap_input, on text."""
    estimator = _estimator(name, vectors)
    X, y = _read_only_data(name)
    before = joblib.hash(estimator.get_params())
    assert estimator.fit(X, y) is estimator
    assert joblib.hash(estimator.get_params()) == before
    check_is_fitted(estimator)  # learned state, in attributes ending in "_"
