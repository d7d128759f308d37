"""Model files that execute nothing when loaded.

A pickle (``pickle``, ``joblib``) can run arbitrary code when it is loaded, so a model
file from someone else is a risk. :func:`save` writes a fitted
:class:`~aspectattn.AspectAttentionClassifier` as one file that holds only tensors and
JSON text, and :func:`load` reads it with ``torch.load(weights_only=True)``, which
refuses anything else.

When to use which:

* ``pickle``/``joblib``: your own models, inside your own systems (fast, standard).
* ``save``/``load``: models that cross a trust boundary (downloaded, shared, uploaded
  to a service), and long-lived archives: the format is versioned and documented.

File layout (a torch zip archive)::

    {"format": "aspectattn-model", "format_version": 1,
     "metadata": "<JSON: library version, hyperparameters, classes, vocabulary,
                  aspects, module configuration, training history>",
     "sha256": "<hex digest of the metadata and every tensor>",
     "tensors": {name: tensor, ...}}                      # module weights, on CPU

The digest detects a file altered after it was written (it is an integrity check,
not a signature). Tensors are stored on the CPU, so a model trained on a GPU loads
anywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import numpy as np
import torch

from .exceptions import AspectAttnError

__all__ = ["save", "load", "FORMAT", "FORMAT_VERSION", "ModelFileError"]

FORMAT = "aspectattn-model"
FORMAT_VERSION = 1

# Fitted attributes stored as JSON (the module weights go in "tensors").
_FITTED = [
    "classes_",
    "aspect_type_",
    "aspects_",
    "embedding_coverage_",
    "module_kwargs_",
    "device_",
    "history_",
    "best_epoch_",
    "fit_time_",
    "n_features_in_",
    "feature_names_in_",
]


class ModelFileError(AspectAttnError, ValueError):
    """A model file is not a valid aspectattn model file of a supported version."""


def _to_json(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {"__ndarray__": [_to_json(v) for v in value.tolist()]}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: _to_json(v) for k, v in value.items()}
        return {"__items__": [[_to_json(k), _to_json(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"cannot store a {type(value).__name__} in a model file")


def _from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if "__ndarray__" in value:
            items = [_from_json(v) for v in value["__ndarray__"]]
            kinds = {type(v) for v in items}
            return np.asarray(items, dtype=object if str in kinds else None)
        if "__items__" in value:
            return {_from_json(k): _from_json(v) for k, v in value["__items__"]}
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


def _digest(metadata: str, tensors: dict[str, torch.Tensor]) -> str:
    h = hashlib.sha256(metadata.encode("utf-8"))
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        h.update(name.encode("utf-8"))
        h.update(str(tuple(t.shape)).encode() + str(t.dtype).encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


def save(estimator, path) -> None:
    """Write a fitted estimator to ``path`` (tensors + JSON; no pickled objects).

    Parameters
    ----------
    estimator : AspectAttentionClassifier
        Fitted.
    path : str or path-like
    """
    from sklearn.utils.validation import check_is_fitted

    from . import __version__

    check_is_fitted(estimator, "module_")
    if estimator.vocabulary_ is None:  # pretrained: the tokenizer files are the vocab
        text_pipeline = {"subword_tokenizer": estimator.tokenizer_.files}
    else:
        text_pipeline = {
            "vocabulary": {
                "words": estimator.vocabulary_.words_,
                "min_count": estimator.vocabulary_.min_count,
            },
            "tokenizer": {"lowercase": estimator.tokenizer_.lowercase},
        }
    params = estimator.get_params()
    if not (params["random_state"] is None or isinstance(params["random_state"], int)):
        params["random_state"] = None  # a RandomState object is not data
    fitted = {
        name: getattr(estimator, name) for name in _FITTED if hasattr(estimator, name)
    }
    metadata = json.dumps(
        {
            "library_version": __version__,
            "estimator": type(estimator).__name__,
            "params": _to_json(params),
            "fitted": _to_json(fitted),
            **text_pipeline,
        }
    )
    tensors = {
        k: v.detach().cpu().contiguous()
        for k, v in estimator.module_.state_dict().items()
    }
    torch.save(
        {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "metadata": metadata,
            "sha256": _digest(metadata, tensors),
            "tensors": tensors,
        },
        os.fspath(path),
    )


def load(path):
    """Read a model written by :func:`save`. Executes no code from the file.

    Raises
    ------
    ModelFileError
        The file is not an aspectattn model file, was altered after it was written,
        or has a format version this library cannot read.
    """
    from .estimator import AspectAttentionClassifier
    from .text import Tokenizer, Vocabulary

    try:
        payload = torch.load(os.fspath(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever torch says, the file is bad
        # (torch's own message suggests weights_only=False, which would run the
        # file's code: not advice to pass on.)
        raise ModelFileError(
            f"{path} is not a readable aspectattn model file ({type(exc).__name__}). "
            "Files written by pickle or joblib are loaded with pickle.load/joblib.load"
            " instead -- and only from sources you trust."
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not an aspectattn model file.")
    version = payload.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelFileError(
            f"{path} has model-file format version {version!r}; this aspectattn reads"
            f" version {FORMAT_VERSION}. Load it with the aspectattn version that "
            "wrote it (see its metadata) and re-save, or retrain."
        )
    metadata, tensors = payload["metadata"], payload["tensors"]
    if _digest(metadata, tensors) != payload.get("sha256"):
        raise ModelFileError(
            f"{path} was altered after it was written (checksum "
            "mismatch); refusing to load it."
        )
    meta = json.loads(metadata)
    if meta["estimator"] != "AspectAttentionClassifier":
        raise ModelFileError(f"{path} holds an unknown estimator {meta['estimator']!r}")
    estimator = AspectAttentionClassifier(**_from_json(meta["params"]))
    for name, value in _from_json(meta["fitted"]).items():
        setattr(estimator, name, value)
    estimator.classes_ = np.asarray(estimator.classes_)
    estimator.aspects_ = np.asarray(estimator.aspects_, dtype=object)
    estimator._aspect_index = {a: i for i, a in enumerate(estimator.aspects_)}
    if "subword_tokenizer" in meta:
        from .pretrained import SubwordTokenizer

        estimator.vocabulary_ = None
        estimator.tokenizer_ = SubwordTokenizer(meta["subword_tokenizer"])
    else:
        vocab = Vocabulary(min_count=meta["vocabulary"]["min_count"])
        vocab.words_ = meta["vocabulary"]["words"]
        vocab.index_ = {w: i for i, w in enumerate(vocab.words_)}
        estimator.vocabulary_ = vocab
        estimator.tokenizer_ = Tokenizer(**meta["tokenizer"])
    estimator._restore_module(tensors)
    return estimator
