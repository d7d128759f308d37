"""Scale out on Dask: distributed hyperparameter search and partitioned scoring.

Hyperparameter search needs no code from here: any sklearn search runs on a Dask
cluster through joblib's ``dask`` backend::

    from dask.distributed import Client
    from joblib import parallel_backend

    client = Client("scheduler-address:8786")      # or Client(LocalCluster(...))
    set_torch_threads(client, 1)                   # one torch thread per worker process
    with parallel_backend("dask"):
        GridSearchCV(AspectAttentionClassifier(random_state=0), grid, cv=3).fit(X, y)

Estimators are pickled to the workers; word vectors given by path are loaded (and
cached) once per worker process, so every worker needs the file at that path (or use
``LSTMEncoder(embeddings="word2vec")``).

Scoring a large table of reviews: :func:`predict_dataframe` maps the fitted model over
the partitions of a Dask DataFrame; the model enters the task graph once, so each
worker receives it once, not once per partition. For a Dask bag of ``(text, aspect)``
pairs::

    model_d = dask.delayed(model, pure=True)
    labels = bag.map_partitions(lambda part, m: list(m.predict(list(part))), model_d)

Analysing reviews: :func:`analyze_dataframe` runs
:func:`aspectattn.reviews.iter_analysis` on every partition of a Dask DataFrame of
reviews and merges the partitions' :class:`~aspectattn.reviews.ReviewSummary`; the
aggregates equal those of the same reviews analysed on one machine.

Threads: run workers with ``threads_per_worker=1`` and one torch thread each
(:func:`set_torch_threads`); torch's own intra-op threads otherwise oversubscribe the
cores. Scale with processes.

Multi-GPU training is out of scope here: skorch's ``AccelerateMixin`` (Hugging Face
Accelerate) is the route -- a ``NeuralNetClassifier`` subclass with the mixin, built in
``fit`` in place of the plain one, launched with ``accelerate launch``. It is not
implemented or tested in this project (no GPUs here).

Dask is an optional dependency: ``pip install 'aspectattn[dask]'``.
"""

from __future__ import annotations

import numpy as np

from .exceptions import MissingDependencyError

__all__ = ["set_torch_threads", "predict_dataframe", "analyze_dataframe"]


def _import_dask():
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "This needs Dask: pip install 'aspectattn[dask]'"
        ) from exc
    return dask


def _set_threads(n: int) -> int:
    import torch

    torch.set_num_threads(n)
    return torch.get_num_threads()


def set_torch_threads(client, n: int = 1) -> dict:
    """Set torch's intra-op threads on every worker of a ``dask.distributed`` client.

    Returns the per-worker thread counts.
    """
    return client.run(_set_threads, n)


def _predict_partition(frame, model, text_column, aspect_column, proba_columns):
    import pandas as pd

    out = pd.DataFrame(index=frame.index)
    if len(frame) == 0:
        out["label"] = pd.Series(dtype=object)
        for name in proba_columns:
            out[name] = pd.Series(dtype="float64")
        return out
    pairs = list(
        zip(frame[text_column].tolist(), frame[aspect_column].tolist(), strict=True)
    )
    if not proba_columns:  # labels only: any classifier, e.g. an SVM pipeline
        out["label"] = model.predict(pairs)
        return out
    proba = model.predict_proba(pairs)
    out["label"] = model.classes_[np.argmax(proba, axis=1)]
    for i, name in enumerate(proba_columns):
        out[name] = proba[:, i]
    return out


def predict_dataframe(
    model,
    ddf,
    text_column: str = "text",
    aspect_column: str = "aspect",
    proba: bool = True,
):
    """Predict every row of a Dask DataFrame of ``(text, aspect)`` pairs.

    Parameters
    ----------
    model : fitted AspectAttentionClassifier (or any fitted pipeline on pairs)
    ddf : dask.dataframe.DataFrame
    text_column, aspect_column : str
    proba : bool, default=True
        Add one ``p_<class>`` column per class.

    Returns
    -------
    dask.dataframe.DataFrame
        Same index and partitions as ``ddf``, with a ``label`` column (and
        probabilities). Lazy: call ``.compute()`` or write it out.
    """
    dask = _import_dask()
    import pandas as pd

    proba_columns = [f"p_{c}" for c in model.classes_] if proba else []
    meta = pd.DataFrame(
        {
            "label": pd.Series(dtype=object),
            **{c: pd.Series(dtype="float64") for c in proba_columns},
        }
    )
    model_d = dask.delayed(model, pure=True)  # one key in the graph: shipped once
    return ddf.map_partitions(
        _predict_partition,
        model_d,
        text_column,
        aspect_column,
        proba_columns,
        meta=meta,
    )


def _analyze_partition(frame, model, part: int, freq: str, options: dict):
    """(sentence table without the per-token columns, summary) of one partition."""
    from .reviews import ReviewSummary, analyze_into

    options = dict(options)
    if options.get("id_column") is None:  # the review's index label is its id
        frame = frame.assign(__review_id__=frame.index)
        options["id_column"] = "__review_id__"
    return analyze_into(ReviewSummary(freq, part=part), frame, model, **options)


def analyze_dataframe(ddf, model, *, freq: str = "M", **options):
    """:func:`aspectattn.reviews.analyze_reviews` on a Dask DataFrame of reviews,
    partition by partition.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One review per row. Without ``id_column``, a review's id is its index
        label (the row number for a frame read with ``dd.read_csv`` or made with
        ``dd.from_pandas`` from a default index).
    model : fitted AspectCategoryClassifier
        Enters the task graph once (shipped once to each worker).
    freq : str
        Period of the trends.
    **options
        As :func:`aspectattn.reviews.iter_analysis` (``text_column``,
        ``id_column``, ``date_column``, ``group_column``, ``batch_size``,
        ``min_probability``).

    Returns
    -------
    table : dask.dataframe.DataFrame
        The sentence table, partition by partition, already computed (persisted
        where the scheduler keeps results: on the workers with
        ``dask.distributed``); write it with ``table.to_parquet(...)``.
    summary : ReviewSummary
        Every partition's summary merged: equal to the summary of
        ``analyze_reviews`` on the same reviews.
    """
    dask = _import_dask()
    import dask.dataframe as dd

    from .reviews import ReviewSummary

    model_d = dask.delayed(model, pure=True)  # one key in the graph: shipped once
    parts = [
        dask.delayed(_analyze_partition, nout=2)(part, model_d, i, freq, options)
        for i, part in enumerate(ddf.to_delayed())
    ]
    # One submission: each partition is analysed once for its table and summary.
    done = dask.persist(*[t for t, _ in parts], *[s for _, s in parts])
    tables, summaries = done[: len(parts)], dask.compute(*done[len(parts) :])
    summary = ReviewSummary(freq)
    for other in summaries:
        summary.merge(other)
    return dd.from_delayed(list(tables), verify_meta=False), summary
