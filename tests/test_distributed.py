"""Grid search and partitioned prediction on a real local Dask cluster (processes on
127.0.0.1), compared with the same work done locally."""

import time

import numpy as np
import pytest

pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")

from conftest import FAST  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from joblib import parallel_backend  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402

from aspectattn import AspectAttentionClassifier  # noqa: E402
from aspectattn.distributed import predict_dataframe, set_torch_threads  # noqa: E402

pytestmark = pytest.mark.dask
# a nested and a plain parameter, two candidates (each fold a worker task)
GRID = {"encoder__hidden_size": [8, 16], "variant": ["atae"]}


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        worker_dashboard_address=None,
    )
    with Client(cluster) as c:
        assert set(set_torch_threads(c, 1).values()) == {1}
        yield c
    cluster.close()


def test_grid_search_on_dask_equals_local(client, pairs, one_torch_thread):
    # (the workers use one torch thread; so does the local reference)
    X, y = pairs
    estimator = AspectAttentionClassifier(**{**FAST, "max_epochs": 2})
    start = time.perf_counter()
    local = GridSearchCV(estimator, GRID, cv=2, n_jobs=1).fit(X, y)
    local_time = time.perf_counter() - start
    start = time.perf_counter()
    with parallel_backend("dask"):
        remote = GridSearchCV(estimator, GRID, cv=2).fit(X, y)
    dask_time = time.perf_counter() - start
    print(
        f"\ngrid of {len(local.cv_results_['params'])} x 2 folds: "
        f"n_jobs=1 {local_time:.1f} s, dask (2 workers) {dask_time:.1f} s"
    )
    np.testing.assert_array_equal(
        remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"]
    )
    assert remote.best_params_ == local.best_params_
    np.testing.assert_array_equal(remote.predict_proba(X), local.predict_proba(X))


def test_partitioned_prediction_equals_local(client, pairs):
    X, y = pairs
    model = AspectAttentionClassifier(**{**FAST, "max_epochs": 3}).fit(X, y)
    frame = pd.DataFrame(X, columns=["text", "aspect"])
    ddf = dd.from_pandas(frame, npartitions=4)
    result = predict_dataframe(model, ddf).compute()
    assert list(result.columns) == ["label", "p_negative", "p_positive"]
    assert result.index.equals(frame.index)
    assert result["label"].tolist() == model.predict(X).tolist()
    np.testing.assert_allclose(
        result[["p_negative", "p_positive"]].to_numpy(),
        model.predict_proba(X),
        atol=1e-6,
    )


def test_model_enters_the_graph_once(pairs):
    X, y = pairs
    model = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, y)
    ddf = dd.from_pandas(pd.DataFrame(X, columns=["text", "aspect"]), npartitions=5)
    graph = dict(predict_dataframe(model, ddf).__dask_graph__())
    holders = [
        k for k, v in graph.items() if v is model or getattr(v, "value", None) is model
    ]
    assert len(holders) == 1


def test_labels_only_work_for_a_classifier_without_predict_proba(pairs):
    from aspectattn import make_baseline

    X, y = pairs
    svm = make_baseline("tfidf", "svm", embeddings="word2vec", random_state=0)
    svm.fit(X, y)
    assert not hasattr(svm, "predict_proba")
    ddf = dd.from_pandas(pd.DataFrame(X, columns=["text", "aspect"]), npartitions=3)
    result = predict_dataframe(svm, ddf, proba=False).compute(scheduler="sync")
    assert result["label"].tolist() == svm.predict(X).tolist()


def _term_pipeline():
    """An extractor and a term classifier end to end (aspects: the terms)."""
    from test_extraction import FAST_EXTRACTOR, make_sentences

    from aspectattn import AspectSentimentPipeline, AspectTermExtractor

    texts, y = make_sentences(120, seed=0)
    return AspectSentimentPipeline(
        AspectTermExtractor(**FAST_EXTRACTOR), AspectAttentionClassifier(**FAST)
    ).fit(texts, y)


def _joint():
    """The joint model: the terms and their polarities from one pass."""
    from test_joint import FAST as JOINT
    from test_joint import make_opinions

    from aspectattn import AspectSentimentExtractor

    return AspectSentimentExtractor(**JOINT).fit(*make_opinions(120, seed=0))


@pytest.mark.parametrize("kind", ["detector", "extractor", "joint"])
def test_review_analysis_on_dask_equals_local(client, kind):
    """Partition-wise analysis on a LocalCluster: the same counts per aspect, group
    and period, the same most confident examples, the same sentence table -- with
    a category detector, and with extracted terms."""
    import pandas as pd
    from conftest import make_table

    from aspectattn import AspectCategoryClassifier
    from aspectattn.distributed import analyze_dataframe
    from aspectattn.reviews import analyze_reviews

    if kind == "detector":
        texts, Y = make_table(150, 0)
        detector = AspectCategoryClassifier(**{**FAST, "max_epochs": 4}).fit(texts, Y)
    else:
        detector = _term_pipeline() if kind == "extractor" else _joint()
    sentences, _ = make_table(120, 1)
    reviews = pd.DataFrame(
        {
            "text": [
                " ".join(s.capitalize() for s in sentences[i : i + 3])
                for i in range(0, 120, 3)
            ],
            "date": pd.date_range("2024-01-01", periods=40, freq="9D"),
            "shop": ["a", "b", "c", "d"] * 10,
        }
    )
    options = dict(date_column="date", group_column="shop", batch_size=16)
    local_table, local = analyze_reviews(reviews, detector, **options)
    table, summary = analyze_dataframe(
        dd.from_pandas(reviews, npartitions=3), detector, **options
    )
    assert summary.n_reviews == local.n_reviews == 40
    assert summary.n_sentences == local.n_sentences
    for by in (None, "group", "period"):
        pd.testing.assert_frame_equal(summary.table(by), local.table(by))
    assert summary.counts == local.counts and sum(local.counts.values()) > 40
    for key in local.examples:
        mine = summary.top_examples(*key)
        theirs = local.top_examples(*key)
        assert [e["sentence"] for e in mine] == [e["sentence"] for e in theirs]
        assert [e["review_id"] for e in mine] == [e["review_id"] for e in theirs]
    computed = table.compute().reset_index(drop=True)
    pd.testing.assert_frame_equal(
        computed.drop(columns=["probability", "mention_probability"]),
        local_table.drop(columns=["probability", "mention_probability"]),
    )
    np.testing.assert_allclose(computed.probability, local_table.probability, atol=1e-6)
