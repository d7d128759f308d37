"""Model files that execute nothing when loaded, and validate everything they hold.

A pickle (``pickle``, ``joblib``) can run arbitrary code when it is loaded, so a model
file from someone else is a risk. :func:`save` writes a fitted estimator as one file
that holds only tensors and JSON text, and :func:`load` reads it with
``torch.load(weights_only=True)``, which refuses anything else.

When to use which:

* ``pickle``/``joblib``: your own models, inside your own systems (fast, standard).
* ``save``/``load``: models that cross a trust boundary (downloaded, shared, uploaded
  to a service), and long-lived archives: the format is versioned and documented.

File layout (a torch zip archive)::

    {"format": "aspectattn-model", "format_version": 3,
     "metadata": "<JSON: library version, estimator class, hyperparameters and the
                  fitted state -- classes, aspects, text pipeline (vocabulary or
                  sub-word tokenizer), module configuration, training history>",
     "sha256": "<hex digest of the metadata and every tensor>",
     "tensors": {name: tensor, ...}}                      # module weights, on CPU

The digest detects accidental damage; it is not a signature (anyone can recompute
it). So :func:`load` treats every field as untrusted: each is checked for type and
range, a sub-word tokenizer is rebuilt in memory from its JSON (never written to
disk), and anything unexpected raises :class:`ModelFileError`. The
hyperparameters are the estimator's, each component (an encoder, the attention) as
its class and its own parameters. Tensors are stored on the CPU, so a model
trained on a GPU loads anywhere.

This module does not import the estimators: they register themselves with
:func:`register` and provide ``_fitted_state``, ``_module_tensors`` and
``_from_saved``. A meta-estimator of fitted parts (the end-to-end pipeline)
keeps each part's description in its fitted state (:func:`describe`) and its
tensors under the part's name; a parameter that is itself an estimator is not
data and is not written.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from typing import Any

import numpy as np
import torch

from ._fields import _is_int, _is_number, _labels, _strings, open_regular
from ._output import output_path
from .exceptions import AspectAttnError
from .params.components import Component, component_data

__all__ = [
    "save",
    "load",
    "to_payload",
    "from_payload",
    "SKOPS_TRUSTED_TYPES",
    "register",
    "FORMAT",
    "FORMAT_VERSION",
    "ModelFileError",
    "check_fitted_state",
    "module_tensors",
    "module_from_tensors",
    "describe",
    "from_description",
]

FORMAT = "aspectattn-model"
FORMAT_VERSION = 3
#: Format 3 stores each component with its own parameters; the files of
#: formats 1 and 2, written before the first release, are refused.
_READABLE_VERSIONS = (3,)
_REGISTRY: dict[str, type] = {}
_DEVICE_RE = re.compile(r"cpu|mps|cuda(:\d{1,2})?")


class ModelFileError(AspectAttnError, ValueError):
    """A model file is not a valid aspectattn model file of a supported version."""


def register(cls: type) -> type:
    """Class decorator: let :func:`load` rebuild estimators of this class."""
    _REGISTRY[cls.__name__] = cls
    return cls


#: The modules whose import registers aspectattn's own estimators (imported by
#: :func:`load` on first use: ``import aspectattn`` itself loads them lazily).
_ESTIMATOR_MODULES = (
    "aspectattn.estimators.pairs",
    "aspectattn.estimators.categories",
    "aspectattn.extraction.extractor",
    "aspectattn.extraction.pipeline",
    "aspectattn.extraction.joint",
)


def _registered(name) -> type | None:
    if not isinstance(name, str):
        return None
    if name not in _REGISTRY:
        import importlib

        for module in _ESTIMATOR_MODULES:
            importlib.import_module(module)
    return _REGISTRY.get(name)


#: The aspectattn types a skops file of a fitted model (or a Pipeline holding one) may
#: contain: ``skops.io.load(path, trusted=SKOPS_TRUSTED_TYPES)``. The attention
#: estimators are rebuilt through :func:`from_payload` (the checks of :func:`load`),
#: word pipelines and vocabularies from their checked word lists; the baseline
#: vectorizers, like sklearn's own transformers, from their attributes (numpy arrays
#: and plain values: nothing in them runs code).
SKOPS_TRUSTED_TYPES = [
    "aspectattn.estimators.pairs.AspectAttentionClassifier",
    "aspectattn.estimators.categories.AspectCategoryClassifier",
    "aspectattn.estimators.baselines.TfidfEmbeddingVectorizer",
    "aspectattn.estimators.baselines.POSWeightedEmbeddingVectorizer",
    "aspectattn.text.pipelines.WordPipeline",
    "aspectattn.text.tokens.Vocabulary",
    "aspectattn.text.Vocabulary",
]


# ------------------------------------------------------------------------ JSON
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


def module_tensors(module) -> dict[str, torch.Tensor]:
    """A module's weights as a model file holds them: contiguous CPU tensors."""
    return {k: v.detach().cpu().contiguous() for k, v in module.state_dict().items()}


class _NothingDrawn(torch.overrides.TorchFunctionMode):
    """Weights on the meta device have no values: their initialisers draw
    nothing. (PyTorch's meta form of ``normal_`` imports ``torch._dynamo``, two
    to four seconds at the first model a fresh process loads.)"""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _INITIALISERS:
            tensor = args[0] if args else kwargs.get("tensor")
            if isinstance(tensor, torch.Tensor) and tensor.is_meta:
                return tensor
        return func(*args, **kwargs)


#: The in-place initialisers a module's constructor may call on its weights.
_INITIALISERS = frozenset(
    {
        *(
            getattr(torch.nn.init, name)
            for name in (
                "normal_",
                "uniform_",
                "trunc_normal_",
                "xavier_normal_",
                "xavier_uniform_",
                "kaiming_normal_",
                "kaiming_uniform_",
                "orthogonal_",
            )
        ),
        torch.Tensor.normal_,
        torch.Tensor.uniform_,
    }
)


def module_from_tensors(build, tensors: dict[str, torch.Tensor]) -> torch.nn.Module:
    """The module ``build()`` makes, holding ``tensors``: built first on the
    meta device (nothing allocated, no random draws), so that a configuration
    that asks for more than the file holds fails on its shapes, strictly, before
    any memory is taken; built for real only where a library module keeps
    buffers outside its state dict (position ids), its sizes now the file's."""
    with torch.device("meta"), _NothingDrawn():
        module = build()
    expected = module.state_dict()
    for name, tensor in tensors.items():  # (a float64 weight fails at predict)
        if name in expected and tensor.dtype != expected[name].dtype:
            raise ValueError(
                f"the tensor {name!r} is {tensor.dtype}, not the module's "
                f"{expected[name].dtype}"
            )
    module.load_state_dict(tensors, assign=True)  # strict: every name and shape
    if any(t.is_meta for t in module.buffers()):
        with torch.random.fork_rng(devices=[]):
            module = build()
        module.load_state_dict(tensors)
    return module


def _digest(metadata: str, tensors: dict[str, torch.Tensor]) -> str:
    h = hashlib.sha256(metadata.encode("utf-8"))
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        h.update(name.encode("utf-8"))
        h.update(str(tuple(t.shape)).encode() + str(t.dtype).encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


# ------------------------------------------------------------------------ save
def save(estimator, path) -> None:
    """Write a fitted estimator to ``path`` (tensors + JSON; no pickled objects).

    Parameters
    ----------
    estimator : a fitted estimator of aspectattn
        A fitted :class:`~aspectattn.DistilledClassifier` writes its student
        (``student_``, which predicts as it does; the teacher is never saved):
        :func:`load` gives the student back.
    path : str or path-like
    """
    estimator = _saved_estimator(estimator)
    # whole or not at all: a full disk or a killed process leaves the file that
    # was there, never a half-written one
    payload = to_payload(estimator)
    with output_path(path) as tmp:
        torch.save(payload, os.fspath(tmp))


def _saved_estimator(estimator):
    """What a model file holds of ``estimator``: what its ``_saved_estimator()``
    names (a distilled classifier's student), else the estimator itself."""
    saved = getattr(estimator, "_saved_estimator", None)
    return estimator if saved is None else saved()


def to_payload(estimator) -> dict:
    """The model file's content as a dict of plain data: ``format``,
    ``format_version``, ``metadata`` (a JSON string), ``sha256`` and ``tensors``
    (name -> CPU tensor). Pickles and skops files of the estimators hold it too
    (with numpy arrays as tensors), so that they load through the same checks."""
    from . import __version__

    metadata = json.dumps({"library_version": __version__, **describe(estimator)})
    tensors = estimator._module_tensors()
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "metadata": metadata,
        "sha256": _digest(metadata, tensors),
        "tensors": tensors,
    }


def describe(estimator) -> dict:
    """A fitted estimator as data, but for its tensors (``_module_tensors()``):
    ``{"estimator", "params", "fitted"}``, JSON-able. Parameters that are
    estimators (a teacher, a pipeline's parts) are written as None: the fitted
    parts are in the fitted state."""
    from sklearn.base import BaseEstimator
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator)
    # (components as their class and their own parameters; other estimators --
    # a teacher, a pipeline's parts -- as None)
    params = {
        k: None
        if isinstance(v, BaseEstimator) and not isinstance(v, Component)
        else component_data(v)
        for k, v in estimator.get_params(deep=False).items()
    }
    if not (
        params.get("random_state") is None or isinstance(params["random_state"], int)
    ):
        params["random_state"] = None  # a RandomState object is not data
    return {
        "estimator": type(estimator).__name__,
        "params": _to_json(params),
        "fitted": _to_json(estimator._fitted_state()),
    }


def from_description(description, tensors: dict[str, torch.Tensor], classes=None):
    """The fitted estimator :func:`describe` described, every field checked
    (``ValueError`` or ``TypeError`` otherwise); ``classes``: the estimator
    classes it may be."""
    if not isinstance(description, dict):
        raise ValueError("an estimator's description must be a JSON object")
    cls = _registered(description.get("estimator"))
    if cls is None or (classes is not None and not issubclass(cls, classes)):
        raise ValueError(
            f"unknown estimator {str(description.get('estimator'))[:80]!r}"
        )
    params = _from_json(description.get("params"))
    if not isinstance(params, dict):
        raise ValueError("the parameters are not a JSON object")
    return cls._from_saved(params, description.get("fitted"), tensors)


# ------------------------------------------------------------------------ load
def load(path):
    """Read a model written by :func:`save`. Executes no code from the file and
    writes nothing.

    Raises
    ------
    ModelFileError
        The file is not an aspectattn model file, was altered after it was written,
        has a format version this library cannot read, or holds a field of the
        wrong type or range.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from aspectattn import AspectAttentionClassifier
    >>> from aspectattn.persistence import load, save
    >>> X = [("great pasta", "food"), ("rude waiter", "service")] * 5
    >>> y = ["positive", "negative"] * 5
    >>> from aspectattn.encoders import LSTMEncoder
    >>> clf = AspectAttentionClassifier(encoder=LSTMEncoder(embeddings=None),
    ...                                 max_epochs=1, random_state=0).fit(X, y)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.aam"
    >>> save(clf, path)
    >>> bool((load(path).predict_proba(X) == clf.predict_proba(X)).all())
    True
    """
    _check_archive(path)
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
    return from_payload(payload, path)


#: How many bytes a model file's entries may declare, beyond the file's own size:
#: torch stores them uncompressed, so a file that declares much more than it is
#: holds compressed data that would be inflated in memory (a "zip bomb").
_ARCHIVE_SLACK = 2**20
#: The tensor types a model file may hold (what aspectattn writes).
_DTYPES = (torch.float32, torch.float16, torch.float64)


def _check_archive(path) -> None:
    """Refuse, before torch inflates anything, a file that is not a regular file or
    whose entries declare more bytes than the file holds (compressed entries)."""
    try:
        with open_regular(path) as (f, size):
            try:
                with zipfile.ZipFile(f) as archive:
                    entries = archive.infolist()
            except (zipfile.BadZipFile, ValueError, OSError, EOFError):
                return  # not a zip archive: torch.load reports it
    except ValueError as exc:  # not a regular file
        raise ModelFileError(str(exc)) from None
    declared = sum(entry.file_size for entry in entries)
    if declared > size.st_size + _ARCHIVE_SLACK:
        raise ModelFileError(
            f"{path} declares {declared:,} bytes of contents in a "
            f"{size.st_size:,}-byte file (compressed data); aspectattn model files "
            "are stored uncompressed, so this is not one. Refusing to inflate it."
        )


def _check_tensors(tensors: dict, where) -> None:
    """Dense tensors of a float type aspectattn writes, every value finite."""
    for name, t in tensors.items():
        if t.layout != torch.strided or t.dtype not in _DTYPES:
            raise ModelFileError(
                f"{where} has a tensor {name[:80]!r} of type {t.dtype} and layout "
                f"{t.layout}; model files hold dense float tensors."
            )
        if not bool(torch.isfinite(t).all()):
            raise ModelFileError(
                f"{where} has non-finite values (NaN or infinity) in {name[:80]!r}; "
                "its predictions would be meaningless. Refusing to load it."
            )


def from_payload(payload, where="the model"):
    """The estimator held by a :func:`to_payload` dict read from ``where`` (a file,
    a pickle, a skops file), every field checked; tensors may be numpy arrays.

    Raises
    ------
    ModelFileError
    """
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ModelFileError(f"{where} is not an aspectattn model file.")
    version = payload.get("format_version")
    if type(version) is not int or version not in _READABLE_VERSIONS:
        raise ModelFileError(
            f"{where} has model-file format version {version!r}; this aspectattn reads"
            f" version {FORMAT_VERSION}. Versions 1 and 2 were written by development"
            " code before the first release: fit the model again."
        )
    metadata, tensors = payload.get("metadata"), payload.get("tensors")
    if isinstance(tensors, dict) and all(
        isinstance(v, np.ndarray) and v.dtype.kind == "f" for v in tensors.values()
    ):
        tensors = {k: torch.from_numpy(np.array(v)) for k, v in tensors.items()}
    if not (
        isinstance(metadata, str)
        and isinstance(tensors, dict)
        and all(
            isinstance(k, str) and isinstance(v, torch.Tensor) and v.is_floating_point()
            for k, v in tensors.items()
        )
    ):
        raise ModelFileError(f"{where} has malformed metadata or tensors.")
    _check_tensors(tensors, where)
    if _digest(metadata, tensors) != payload.get("sha256"):
        raise ModelFileError(
            f"{where} was altered after it was written (checksum "
            "mismatch); refusing to load it."
        )
    try:
        meta = json.loads(metadata)
        if not isinstance(meta, dict):
            raise ValueError("the metadata is not a JSON object")
        return from_description(meta, tensors)
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, RuntimeError) as exc:
        message = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
        raise ModelFileError(f"{where} is not a valid model file: {message}") from None


# ------------------------------------------------------------- fitted state checks
def _history(value) -> list[dict]:
    if not isinstance(value, list) or len(value) > 1_000_000:
        raise ValueError("history_ must be a list")
    for row in value:
        if not isinstance(row, dict) or not all(
            isinstance(k, str)
            and (v is None or isinstance(v, (str, bool)) or _is_number(v))
            for k, v in row.items()
        ):
            raise ValueError("history_ rows must map names to numbers")
    return value


def check_fitted_state(state: dict) -> dict:
    """Validate the JSON fields of a saved fitted state (all but the text pipeline
    and the module configuration, which their owners check); returns them as the
    estimator holds them."""
    out = dict(state)
    out["classes_"] = _labels(state["classes_"])
    if state["aspect_type_"] not in ("category", "term"):
        raise ValueError("aspect_type_ must be 'category' or 'term'")
    if not isinstance(state["resolved_params_"], dict):  # (its owner checks it)
        raise ValueError("resolved_params_ must be an object")
    out["aspects_"] = np.asarray(_strings(state["aspects_"], "aspects_"), dtype=object)
    coverage = state["embedding_coverage_"]
    if not (_is_number(coverage) and 0 <= coverage <= 1):
        raise ValueError("embedding_coverage_ must be a number in [0, 1]")
    if not (
        isinstance(state["device_"], str) and _DEVICE_RE.fullmatch(state["device_"])
    ):
        raise ValueError("device_ must be 'cpu', 'cuda', 'cuda:N' or 'mps'")
    out["history_"] = _history(state["history_"])
    if not _is_int(state["best_epoch_"]):
        raise ValueError("best_epoch_ must be an int >= 0")
    if not isinstance(state["interrupted_"], bool):
        raise ValueError("interrupted_ must be true or false")
    if not (_is_number(state["fit_time_"]) and state["fit_time_"] >= 0):
        raise ValueError("fit_time_ must be a number >= 0")
    if state["n_features_in_"] not in (1, 2) or isinstance(
        state["n_features_in_"], bool
    ):
        raise ValueError("n_features_in_ must be 1 or 2")
    names = state["feature_names_in_"]
    if names is not None:
        if len(_strings(names, "feature_names_in_")) != 2:
            raise ValueError("feature_names_in_ must name 2 columns")
        out["feature_names_in_"] = np.asarray(names, dtype=object)
    return out
