"""Serve an exported model with numpy and onnxruntime only: no torch, no skorch.

Export with :func:`aspectattn.serving.export.export_onnx` (or ``aspectattn export``),
then, where the model is served::

    from aspectattn.serving.runtime import load_onnx

    model = load_onnx("exported/")  # OnnxPairClassifier or OnnxCategoryClassifier
    model.predict([("The pasta was great but the waiter was rude.", "service")])

    extractor = load_onnx("extractor/")  # an exported AspectTermExtractor
    extractor.predict_spans(["The pasta was great but the waiter was rude."])
    # end to end, with an exported term classifier
    OnnxSentimentPipeline(extractor, load_onnx("terms/")).predict([...])

The text goes through the same pipeline as in the fitted estimator (tokenizer and
vocabulary from ``model.json``), batches are padded to their own longest sentence,
and probabilities are the softmax of the graph's logits in float64, as in the
estimator: they agree with torch's to about 1e-6.

``model.json`` and ``model.onnx`` may come from someone else: every field of the
JSON is checked; the ONNX file must match the SHA-256 the JSON gives; and the graph
is loaded from memory with onnxruntime's external-data folder pointed at an empty
directory, so a graph that refers to external weight files fails to load instead
of reading files from the disk.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._fields import _is_number, _labels, _strings, open_regular
from .._mentions import check_min_probability, mention_labels, mentioned_aspects
from .._validation import category_ids, check_pairs, check_texts
from ..exceptions import AspectAttnError, optional_import
from ..extraction.aspects import AspectNames, check_aspect_names
from ..extraction.inputs import WordInputs, inputs_from_state, padded_batch
from ..extraction.metrics import check_spans, span_f1
from ..extraction.reading import (
    GivenTerms,
    TermsEndToEnd,
    classify_terms,
    given_terms_proba,
    read_terms,
    with_polarities,
)
from ..extraction.words import DECODINGS
from ..text.languages import LANGUAGE_CODE
from ..text.pipelines import pipeline_from_state
from ..text.tokens import length_sorted_batches
from .graph import GraphError, check_graph

__all__ = [
    "load_onnx",
    "OnnxPairClassifier",
    "OnnxCategoryClassifier",
    "OnnxTermExtractor",
    "OnnxSentimentPipeline",
    "OnnxAspectSentiment",
    "ExportFileError",
]

FORMAT = "aspectattn-onnx"  # written by aspectattn.serving.export (which needs torch)
#: Version 2 adds ``batch_tokens`` to classifiers' and detectors' ``model.json``,
#: version 3 to extractors', version 4 ``decoding`` to extractors', version 5
#: ``transitions`` (a CRF's learned tag transitions) to extractors'; earlier
#: exports (without them) are read as before: no budget, greedy tags, no
#: transitions.
FORMAT_VERSION = 5
#: The first version whose ``model.json`` holds ``batch_tokens``, per kind.
_BUDGET_SINCE = {"pairs": 2, "categories": 2, "terms": 3, "joint": 3}
#: The first version whose extractors' ``model.json`` holds ``decoding``, and
#: ``transitions``.
_DECODING_SINCE = 4
_TRANSITIONS_SINCE = 5
#: Largest magnitude of a transition score read (a CRF's banned steps score
#: -1e4).
MAX_TRANSITION = 1e6
#: Largest ``batch_tokens`` read.
MAX_BATCH_TOKENS = 2**20
#: Largest ``model.json`` / ``model.onnx`` read (protobuf's own limit is 2 GiB).
MAX_JSON_BYTES = 256 * 2**20
MAX_ONNX_BYTES = 2**31 - 1
_KEYS = {
    "format",
    "format_version",
    "kind",
    "aspect_type",
    "uses_position",
    "shares_encoder",
    "classes",
    "aspects",
    "not_mentioned",
    "text_pipeline",
    "onnx_sha256",
    "batch_tokens",
}
#: The fields of an extractor's export (``kind="terms"``).
_TERM_KEYS = {
    "format",
    "format_version",
    "kind",
    "inputs",
    "lowercase",
    "language",
    "whole_words",
    "decoding",
    "transitions",
    "onnx_sha256",
    "batch_tokens",
}
#: The fields of the joint model's export (``kind="joint"``): an extractor's,
#: its classes, and the checksum of its polarity graph (``polarity.onnx``).
_JOINT_KEYS = _TERM_KEYS | {"classes", "aspect_names", "polarity_sha256"}


class ExportFileError(AspectAttnError, ValueError):
    """An exported model directory is missing, damaged or not one of ours."""


def _read(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes. The size
    is checked on the open file and the read is bounded: a device (a symlink to
    ``/dev/zero``), a FIFO or a file that grows while it is read is refused
    instead of read until memory runs out."""
    try:
        with open_regular(path) as (f, _):
            data = f.read(limit + 1)
    except ValueError as exc:
        raise ExportFileError(str(exc)) from None
    except OSError as exc:
        raise ExportFileError(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > limit:
        raise ExportFileError(f"{path} is larger than {limit} bytes")
    return data


def softmax(logits: np.ndarray, axis: int) -> np.ndarray:
    """Probabilities from logits (in their dtype; float64 here, as the estimator)."""
    z = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def _check_meta(meta) -> dict:
    if (
        not isinstance(meta, dict)
        or meta.get("format") != FORMAT
        or not (
            type(meta.get("format_version")) is int
            and 1 <= meta["format_version"] <= FORMAT_VERSION
        )
    ):
        raise ValueError(
            f"not an {FORMAT} export of version 1 to {FORMAT_VERSION} "
            "(export it again with this version of aspectattn)"
        )
    if meta.get("kind") not in ("pairs", "categories", "terms", "joint"):
        raise ValueError("kind must be 'pairs', 'categories', 'terms' or 'joint'")
    keys = {"terms": _TERM_KEYS, "joint": _JOINT_KEYS}.get(meta["kind"], _KEYS)
    if meta["format_version"] < _BUDGET_SINCE[meta["kind"]]:
        keys = keys - {"batch_tokens"}
    if meta["format_version"] < _DECODING_SINCE:
        keys = keys - {"decoding"}
    if meta["format_version"] < _TRANSITIONS_SINCE:
        keys = keys - {"transitions"}
    if set(meta) != keys:
        raise ValueError(f"model.json must be an object with keys {sorted(keys)}")
    _check_sha(meta["onnx_sha256"])
    meta.setdefault("batch_tokens", None)  # an earlier version: no budget
    tokens = meta["batch_tokens"]
    if not (
        tokens is None or (type(tokens) is int and 1 <= tokens <= MAX_BATCH_TOKENS)
    ):
        raise ValueError(
            f"batch_tokens must be null or an integer from 1 to {MAX_BATCH_TOKENS}"
        )
    if meta["kind"] in ("terms", "joint"):
        return _check_tagger_meta(meta)
    return _check_classifier_meta(meta)


def _check_tagger_meta(meta: dict) -> dict:
    """The fields of an extractor's or a joint model's ``model.json``."""
    if meta["kind"] == "joint":
        _check_sha(meta["polarity_sha256"])
    if not all(isinstance(meta[k], bool) for k in ("lowercase", "whole_words")):
        raise ValueError("lowercase and whole_words must be true or false")
    meta.setdefault("decoding", "greedy")  # an earlier version: greedy tags
    if meta["decoding"] not in DECODINGS:
        raise ValueError(f"decoding must be one of {list(DECODINGS)}")
    meta["transitions"] = _check_transitions(meta.get("transitions"))
    if meta["decoding"] == "crf" and meta["transitions"] is None:
        raise ValueError("decoding is 'crf' but transitions is null")
    language = meta["language"]
    if not (
        language is None
        or (isinstance(language, str) and LANGUAGE_CODE.fullmatch(language))
    ):
        raise ValueError("language must be an ISO 639 code or null")
    return meta


def _check_transitions(transitions) -> tuple | None:
    """An extractor's ``transitions`` field (null, or ``{"start": 3 numbers,
    "pairs": 3 lists of 3}``, each finite and at most :data:`MAX_TRANSITION`
    in magnitude) as :func:`~aspectattn.extraction.words.best_tags` reads it."""
    if transitions is None:
        return None

    def numbers(values, n: int) -> bool:
        return (
            isinstance(values, list)
            and len(values) == n
            and all(_is_number(v) and abs(v) <= MAX_TRANSITION for v in values)
        )

    if not (
        isinstance(transitions, dict)
        and set(transitions) == {"start", "pairs"}
        and numbers(transitions["start"], 3)
        and isinstance(transitions["pairs"], list)
        and len(transitions["pairs"]) == 3
        and all(numbers(row, 3) for row in transitions["pairs"])
    ):
        raise ValueError(
            "transitions must be null or {'start': 3 numbers, 'pairs': 3 lists of "
            f"3 numbers}}, each finite and at most {MAX_TRANSITION:g} in magnitude"
        )
    return np.array(transitions["start"], float), np.array(transitions["pairs"], float)


def _check_classifier_meta(meta: dict) -> dict:
    """The fields of a pair classifier's or a detector's ``model.json``."""
    if meta["aspect_type"] not in ("category", "term"):
        raise ValueError("aspect_type must be 'category' or 'term'")
    for key in ("uses_position", "shares_encoder"):
        if not isinstance(meta[key], bool):
            raise ValueError(f"{key} must be true or false")
    if meta["shares_encoder"] and (meta["uses_position"] or meta["kind"] != "pairs"):
        raise ValueError("shares_encoder is for pair models without positions")
    if meta["uses_position"] and meta["aspect_type"] != "term":
        raise ValueError("only term models read positions")
    if meta["kind"] == "categories" and (
        meta["aspect_type"] != "category" or not meta["aspects"]
    ):
        raise ValueError("a category model has aspect_type 'category' and categories")
    if meta["kind"] == "pairs" and meta["not_mentioned"] is not None:
        raise ValueError("not_mentioned is for category models only")
    return meta


def _check_sha(sha) -> None:
    if not (isinstance(sha, str) and re.fullmatch("[0-9a-f]{64}", sha)):
        raise ValueError("onnx_sha256 must be 64 hex digits")


def load_onnx(directory, *, threads: int | None = None, providers=None):
    """Load an export made by :func:`aspectattn.serving.export.export_onnx`.

    Parameters
    ----------
    directory : str or path-like
        Holds ``model.json`` and ``model.onnx``.
    threads : int or None, default=None
        onnxruntime's intra-op threads (``None``: its default, every core).
    providers : list of str or None, default=None
        onnxruntime execution providers (``None``: the CPU).

    Returns
    -------
    OnnxPairClassifier, OnnxCategoryClassifier, OnnxTermExtractor or \
OnnxAspectSentiment

    Raises
    ------
    ExportFileError
        A file is missing, too large, fails its checksum, or a field is invalid.
    MissingDependencyError
        onnxruntime is not installed.
    """
    ort = optional_import("onnxruntime", "onnx", "Serving an exported model")
    directory = Path(directory)
    raw = _read(directory / "model.json", MAX_JSON_BYTES)
    try:
        meta = _check_meta(json.loads(raw.decode("utf-8")))
        if meta["kind"] in ("terms", "joint"):
            inputs = inputs_from_state(
                meta["inputs"], lowercase=meta["lowercase"], language=meta["language"]
            )
            if meta["kind"] == "joint":
                classes = _labels(meta["classes"])
                check_aspect_names(meta["aspect_names"], "model.json's aspect_names")
        else:
            pipeline = pipeline_from_state(meta["text_pipeline"])
            classes = _labels(meta["classes"])
            aspects = np.asarray(_strings(meta["aspects"], "aspects"), dtype=object)
    except (ValueError, TypeError, UnicodeDecodeError, RecursionError) as exc:
        raise ExportFileError(f"{directory / 'model.json'}: {exc}") from None
    session = _session(ort, directory, "model", meta["onnx_sha256"], threads, providers)
    if meta["kind"] == "terms":
        _check_tables(inputs, session.shapes, directory)
        extractor = OnnxTermExtractor(session.session, meta, inputs)
        extractor._check_graph()
        return extractor
    if meta["kind"] == "joint":
        _check_tables(inputs, session.shapes, directory, "model.tagger.")
        polarity = _session(
            ort, directory, "polarity", meta["polarity_sha256"], threads, providers
        )
        model = OnnxAspectSentiment(
            session.session, polarity.session, meta, inputs, classes
        )
        model._check_graph()
        return model
    cls = OnnxPairClassifier if meta["kind"] == "pairs" else OnnxCategoryClassifier
    model = cls(session.session, meta, pipeline, classes, aspects)
    model._check_graph()
    return model


class _Session(NamedTuple):
    session: object
    shapes: dict


def _session(ort, directory: Path, name: str, sha: str, threads, providers):
    """The onnxruntime session of ``directory/<name>.onnx``, whose checksum
    must be ``sha`` and whose graph one the exporter makes; and its
    initialisers' shapes."""
    path = directory / f"{name}.onnx"
    graph = _read(path, MAX_ONNX_BYTES)
    if hashlib.sha256(graph).hexdigest() != sha:
        raise ExportFileError(f"{path} does not match the checksum in model.json")
    try:  # the checksum finds damage, not crafting: only the exporter's graphs
        shapes = check_graph(graph)
    except GraphError as exc:
        raise ExportFileError(f"{path}: {exc}") from None
    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
    with tempfile.TemporaryDirectory() as empty:
        # Nothing to find there: a graph with external data cannot read any file.
        options.add_session_config_entry(
            "session.model_external_initializers_file_folder_path", empty
        )
        try:
            session = ort.InferenceSession(
                graph, options, providers=providers or ["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ExportFileError(
                f"{path} is not a graph onnxruntime can load: {str(exc)[:300]}"
            ) from None
    return _Session(session, shapes)


def _session_run(session, feeds: dict):
    """``session.run``, its errors (onnxruntime's own types) as one of ours."""
    try:
        return session.run(None, feeds)
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types
        raise ExportFileError(
            "onnxruntime could not run the exported graph on this input: "
            f"{type(exc).__name__}: {str(exc)[:300]}"
        ) from None


class _OnnxModel:
    """What both kinds share: the session, the text pipeline, batching."""

    #: Rows per onnxruntime call, at most (and ``batch_tokens`` padded tokens, at
    #: most, where ``model.json`` gives it: the encoder's own budget).
    batch_size = 256
    _inputs: tuple[str, ...] = ()

    def __init__(self, session, meta, pipeline, classes, aspects):
        self.session = session
        self.text_pipeline_ = pipeline
        self.classes_ = classes
        self.aspects_ = aspects
        self.aspect_type_ = meta["aspect_type"]
        self.uses_position_ = meta["uses_position"]
        self._meta = meta

    def _check_graph(self) -> None:
        names = tuple(i.name for i in self.session.get_inputs())
        outputs = tuple(o.name for o in self.session.get_outputs())
        if names != self._inputs or outputs != ("logits", "attention"):
            raise ExportFileError(
                f"the graph takes {names} and gives {outputs}; this model needs "
                f"{self._inputs} and ('logits', 'attention')"
            )
        # The logits' fixed sizes: one per class (and, for the detector, per
        # category), as model.json lists them; a mismatch would fail in predict.
        shape = list(self.session.get_outputs()[0].shape)
        expected = [len(self.classes_)]
        if self._meta["kind"] != "pairs":
            expected = [len(self.aspects_), len(self.classes_)]
        if len(shape) != len(expected) + 1 or shape[1:] != expected:
            raise ExportFileError(
                f"the graph gives logits of shape {shape}; model.json lists "
                f"{len(self.classes_)} classes"
                + (
                    ""
                    if self._meta["kind"] == "pairs"
                    else f" and {len(self.aspects_)} categories"
                )
            )

    def _session_run(self, feeds: dict):
        return _session_run(self.session, feeds)

    def _batches(self, lengths: np.ndarray, groups: np.ndarray | None = None):
        """Row indices of each batch, rows of similar length together (and of
        one sentence, with ``groups``), as the estimator batches them."""
        return length_sorted_batches(
            lengths, self.batch_size, groups, self._meta["batch_tokens"]
        )


class OnnxPairClassifier(_OnnxModel):
    """An exported :class:`~aspectattn.AspectAttentionClassifier`: polarity of
    ``(text, aspect)`` pairs (or ``(text, term, (start, end))``), as the estimator
    takes them (lists of pairs or a DataFrame with ``text``/``aspect`` columns).

    Attributes
    ----------
    classes_ : ndarray
        The labels, in the order of :meth:`predict_proba`'s columns.
    aspects_ : ndarray
        The aspect categories seen in fit (empty for term models).
    """

    @property
    def _inputs(self):
        names = ("tokens", "lengths", "aspect")
        if self._meta["shares_encoder"]:
            return names + ("sentence",)
        return names + ("span",) if self.uses_position_ else names

    def _aspect_input(self, aspects: list[str]):
        if self.aspect_type_ == "term":
            return self.text_pipeline_.encode_terms(aspects)
        return category_ids(aspects, self.aspects_)

    def _run(self, X) -> tuple[np.ndarray, list[np.ndarray], list[str], list]:
        """Logits (P, C) and each pair's attention (T_i,)."""
        texts, aspects, _, char_spans = check_pairs(X, return_spans=True)
        pipeline = self.text_pipeline_
        sentences, row = pipeline.encode_pairs(texts, aspects)
        aspect = self._aspect_input(aspects)
        spans = (
            pipeline.term_spans(texts, aspects, char_spans)
            if self.uses_position_
            else None
        )
        lengths = sentences.lengths[row]
        logits = np.empty((len(texts), len(self.classes_)), np.float32)
        weights: list = [None] * len(texts)
        for batch in self._batches(lengths, row):
            if self._meta["shares_encoder"]:  # each distinct sentence once
                distinct, sentence = np.unique(row[batch], return_inverse=True)
                tokens, n = sentences.pad(distinct)
                feeds = {"tokens": tokens, "lengths": n, "sentence": sentence}
                n = n[sentence]  # (P,) the length each pair reads
            else:
                tokens, n = sentences.pad(row[batch])
                feeds = {"tokens": tokens, "lengths": n}
            feeds["aspect"] = (
                aspect.pad(batch)[0] if self.aspect_type_ == "term" else aspect[batch]
            )
            if spans is not None:
                feeds["span"] = spans[batch]
            out, alpha = self._session_run(feeds)
            logits[batch] = out
            for j, i in enumerate(batch):
                weights[i] = alpha[j, : n[j]]
        return logits, weights, texts, aspects

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (n_pairs, n_classes), columns as ``classes_``."""
        return softmax(self._run(X)[0].astype(np.float64), axis=1)

    def predict(self, X) -> np.ndarray:
        """Predicted labels, shape (n_pairs,)."""
        return self.classes_[self._run(X)[0].argmax(1)]

    def explain(self, X) -> list[dict]:
        """Per pair: ``text``, ``aspect``, ``tokens``, ``weights`` (summing to 1),
        ``label`` and ``proba``, as the estimator's ``explain``."""
        logits, weights, texts, aspects = self._run(X)
        proba = softmax(logits.astype(np.float64), axis=1)
        pipeline = self.text_pipeline_
        # the rows the weights are over: with the aspect as a second segment, its
        # tokens too
        aspect_rows = aspects if pipeline.aspect_in_tokens else None
        tokens = pipeline.tokens(pipeline.encode(texts, aspect_rows), texts)
        return [
            {
                "text": texts[i],
                "aspect": aspects[i],
                "tokens": tokens[i],
                "weights": weights[i],
                "label": self.classes_[proba[i].argmax()],
                "proba": proba[i],
            }
            for i in range(len(texts))
        ]


class OnnxCategoryClassifier(_OnnxModel):
    """An exported :class:`~aspectattn.AspectCategoryClassifier`: which categories
    each sentence mentions, and their polarity; one graph run per batch of
    sentences serves every category.

    Attributes
    ----------
    categories_ : ndarray
    labels_ : ndarray
        The polarities and ``not_mentioned``.
    not_mentioned : label
    """

    _inputs = ("tokens", "lengths")

    def __init__(self, session, meta, pipeline, classes, aspects):
        super().__init__(session, meta, pipeline, classes, aspects)
        self.labels_ = classes
        self.categories_ = aspects
        if meta["not_mentioned"] not in classes.tolist():
            raise ExportFileError("not_mentioned must be one of the labels")
        self.not_mentioned = meta["not_mentioned"]

    def _run(self, texts: list[str], encoded):
        """Probabilities (B, K, C) in float64 and each text's (K, T_i) weights."""
        K, C = len(self.categories_), len(self.labels_)
        logits = np.empty((len(texts), K, C), np.float32)
        weights: list = [None] * len(texts)
        for batch in self._batches(encoded.lengths):
            tokens, n = encoded.pad(batch)
            out, alpha = self._session_run({"tokens": tokens, "lengths": n})
            logits[batch] = out
            for j, i in enumerate(batch):
                weights[i] = alpha[j, :, : n[j]]
        return softmax(logits.astype(np.float64), axis=-1), weights

    def predict_proba(self, X) -> list[np.ndarray]:
        """Per category, probabilities (n_texts, n_labels), columns as ``labels_``."""
        texts = check_texts(X, what="X")
        proba, _ = self._run(texts, self.text_pipeline_.encode(texts))
        return [proba[:, k] for k in range(proba.shape[1])]

    def predict(self, X) -> np.ndarray:
        """Labels (n_texts, n_categories): a polarity or ``not_mentioned``, as
        :meth:`aspectattn.AspectCategoryClassifier.predict` reads them."""
        texts = check_texts(X, what="X")
        proba, _ = self._run(texts, self.text_pipeline_.encode(texts))
        return self.labels_[mention_labels(proba, self.labels_ == self.not_mentioned)]

    def analyze(self, X, min_probability: float = 0.5) -> list[list[dict]]:
        """As :meth:`aspectattn.AspectCategoryClassifier.analyze`."""
        check_min_probability(min_probability)
        texts = check_texts(X, what="X")
        encoded = self.text_pipeline_.encode(texts)
        proba, weights = self._run(texts, encoded)
        return mentioned_aspects(
            texts,
            self.text_pipeline_.tokens(encoded, texts),
            proba,
            weights,
            self.categories_,
            self.labels_,
            self.not_mentioned,
            min_probability,
        )


def _check_tables(inputs, shapes: dict, directory: Path, prefix="model.") -> None:
    """The tagger's word and character tables (their names start with
    ``prefix``) hold one row per word and character ``model.json`` lists (a
    shorter list loaded, and read every later word as another: the answers
    changed in silence)."""
    if not isinstance(inputs, WordInputs):
        return
    tables = {
        f"{prefix}embedding.weight": len(inputs.vocabulary.words_),
        f"{prefix}char_embedding.weight": inputs.n_characters or None,
    }
    for name, rows in tables.items():
        shape = shapes.get(name)
        if (shape is None) != (rows is None) or (shape and shape[0] != rows):
            raise ExportFileError(
                f"{directory / 'model.onnx'}: the graph's {name} has "
                f"{shape[0] if shape else 'no'} rows; model.json's inputs give "
                f"{rows or 'none'}"
            )


class OnnxTermExtractor:
    """An exported :class:`~aspectattn.AspectTermExtractor`: each text's aspect
    terms as character spans, read from the graph's tags exactly as the
    estimator reads them (:func:`~aspectattn.extraction.reading.read_terms`).

    Attributes
    ----------
    inputs_ : WordInputs or SubwordInputs
        How texts become the graph's tokens.
    language_ : str or None
    """

    def __init__(self, session, meta, inputs):
        self.session = session
        self.inputs_ = inputs
        self.language_ = meta["language"]
        self._whole_words = meta["whole_words"]
        self._decoding = meta["decoding"]
        self._transitions = meta["transitions"]
        self._batch_tokens = meta["batch_tokens"]
        self._chars = bool(inputs.n_characters)

    def _check_graph(self) -> None:
        names = tuple(i.name for i in self.session.get_inputs())
        outputs = tuple(o.name for o in self.session.get_outputs())
        expected = ("tokens", "lengths")
        expected += ("chars", "char_index") if self._chars else ()
        if names != expected or outputs != ("logits",):
            raise ExportFileError(
                f"the graph takes {names} and gives {outputs}; this extractor needs "
                f"{expected} and ('logits',)"
            )
        shape = list(self.session.get_outputs()[0].shape)
        if len(shape) != 3 or shape[2] != 3:
            raise ExportFileError(
                f"the graph gives logits of shape {shape}; an extractor's are "
                "(sentences, tokens, 3): the tags O, B, I"
            )

    def _tag_proba(self, ids, lengths, chars, char_index) -> np.ndarray:
        feeds = {"tokens": ids, "lengths": lengths}
        if self._chars:
            feeds |= {"chars": chars, "char_index": char_index}
        (logits,) = _session_run(self.session, feeds)
        return softmax(logits.astype(np.float64), axis=-1)  # (B, T, 3)

    def predict_spans(self, X) -> list[list[dict]]:
        """Each text's terms: ``{"span": (start, end), "term": str, "score":
        float}``, as :meth:`aspectattn.AspectTermExtractor.predict_spans`."""
        texts = check_texts(X, "X")
        return read_terms(
            texts,
            self.inputs_.encode(texts),
            self._tag_proba,
            whole_words=self._whole_words,
            language=self.language_,
            max_tokens=self._batch_tokens,
            decoding=self._decoding,
            transitions=self._transitions,
        )

    def predict(self, X) -> list[list[tuple[int, int]]]:
        """Each text's terms as ``(start, end)`` character spans, in text order."""
        return [[t["span"] for t in terms] for terms in self.predict_spans(X)]

    def score(self, X, y) -> float:
        """Exact-span micro F1 of :meth:`predict` against ``y``, the
        ``(start, end)`` spans of each text's terms."""
        texts = check_texts(X, "X")
        return span_f1(check_spans(y, texts), self.predict(texts))


class OnnxAspectSentiment(TermsEndToEnd):
    """An exported :class:`~aspectattn.AspectSentimentExtractor`: each text's
    aspect terms with their polarities from one pass of its encoder graph
    (``model.onnx``: the tags, and the states the polarity graph
    ``polarity.onnx`` reads), read exactly as the estimator reads them.

    Attributes
    ----------
    classes_ : ndarray
    inputs_ : WordInputs or SubwordInputs
    language_ : str or None
    """

    def __init__(self, session, polarity, meta, inputs, classes):
        self.session, self.polarity = session, polarity
        self.inputs_, self.classes_ = inputs, classes
        self.language_ = meta["language"]
        self._whole_words = meta["whole_words"]
        self._decoding = meta["decoding"]
        self._transitions = meta["transitions"]
        self._batch_tokens = meta["batch_tokens"]
        self._chars = bool(inputs.n_characters)
        self._states = self._lengths = None
        names = check_aspect_names(meta["aspect_names"])
        self.names = AspectNames(names, self.language_)

    def _check_graph(self) -> None:
        expected = ("tokens", "lengths")
        expected += ("chars", "char_index") if self._chars else ()
        for session, names, outputs in (
            (self.session, expected, ("logits", "states")),
            (self.polarity, ("states", "lengths", "terms"), ("logits",)),
        ):
            found = tuple(i.name for i in session.get_inputs())
            gives = tuple(o.name for o in session.get_outputs())
            if found != names or gives != outputs:
                raise ExportFileError(
                    f"a graph takes {found} and gives {gives}; the joint model "
                    f"needs {names} and {outputs}"
                )
        tags = list(self.session.get_outputs()[0].shape)
        polarity = list(self.polarity.get_outputs()[0].shape)
        if len(tags) != 3 or tags[2] != 3 or polarity[1:] != [len(self.classes_)]:
            raise ExportFileError(
                f"the graphs give tags of shape {tags} and polarities of shape "
                f"{polarity}; model.json lists {len(self.classes_)} classes"
            )

    def _tag_proba(self, ids, lengths, chars, char_index) -> np.ndarray:
        feeds = {"tokens": ids, "lengths": lengths}
        if self._chars:
            feeds |= {"chars": chars, "char_index": char_index}
        logits, self._states = _session_run(self.session, feeds)
        self._lengths = lengths
        return softmax(logits.astype(np.float64), axis=-1)  # (B, T, 3)

    def _term_proba(self, terms: np.ndarray) -> np.ndarray:
        feeds = {"states": self._states, "lengths": self._lengths, "terms": terms}
        (logits,) = _session_run(self.polarity, feeds)
        return softmax(logits.astype(np.float64), axis=-1)  # (P, C)

    def _given(self, encoded, index, terms) -> np.ndarray:
        self._tag_proba(*padded_batch(encoded, index))  # (the states it keeps)
        return self._term_proba(terms)

    def _read(self, texts, polarity: bool) -> list[list[dict]]:
        return read_terms(
            texts,
            self.inputs_.encode(texts),
            self._tag_proba,
            whole_words=self._whole_words,
            language=self.language_,
            max_tokens=self._batch_tokens,
            term_proba=self._term_proba if polarity else None,
            decoding=self._decoding,
            transitions=self._transitions,
        )

    def predict(self, X) -> list[list[dict]]:
        """Each sentence's terms: ``{"span", "term", "polarity", "probability",
        "score"}``, as :meth:`aspectattn.AspectSentimentExtractor.predict`."""
        texts = check_texts(X, "X")
        return with_polarities(self._read(texts, polarity=True), self.classes_)

    def predict_spans(self, X) -> list[list[dict]]:
        """Each text's terms with their span scores (the polarity graph not
        run)."""
        return self._read(check_texts(X, "X"), polarity=False)

    def predict_polarity_proba(self, X) -> np.ndarray:
        """The polarities' probabilities of given ``(text, term[, span])``
        pairs, as :meth:`aspectattn.AspectSentimentExtractor.predict_polarity_proba`."""
        return given_terms_proba(
            X, self.inputs_, len(self.classes_), self._given, self._batch_tokens
        )

    def predict_polarity(self, X) -> np.ndarray:
        return self.classes_[self.predict_polarity_proba(X).argmax(axis=1)]

    def given_terms(self) -> GivenTerms:
        """The export as a classifier of given terms (see
        :meth:`aspectattn.AspectSentimentExtractor.given_terms`)."""
        return GivenTerms(self)

    def _aspect_names(self) -> AspectNames:
        return self.names


class OnnxSentimentPipeline(TermsEndToEnd):
    """An exported extractor and an exported term classifier end to end, as
    :class:`~aspectattn.AspectSentimentPipeline` (the same functions join them):
    sentences in, each term with its polarity out.

    Parameters
    ----------
    extractor : OnnxTermExtractor
    classifier : OnnxPairClassifier
        Of ``(text, term, (start, end))`` pairs (a classifier fitted on terms).
    aspect_names : dict of str to str or None, default=None
        For :meth:`analyze`: a term's aspect where the grouping of
        :mod:`aspectattn.extraction.aspects` does not group it.
    """

    def __init__(self, extractor, classifier, aspect_names=None):
        if not isinstance(extractor, OnnxTermExtractor):
            raise TypeError(
                "extractor must be an exported extractor (OnnxTermExtractor), got "
                f"{type(extractor).__name__}"
            )
        if not (
            isinstance(classifier, OnnxPairClassifier)
            and classifier.aspect_type_ == "term"
        ):
            raise TypeError(
                "classifier must be an exported classifier of aspect terms (fitted "
                "on (text, term, span) pairs)"
            )
        self.extractor = extractor
        self.classifier = classifier
        self.names = AspectNames(check_aspect_names(aspect_names), extractor.language_)

    @property
    def classes_(self) -> np.ndarray:
        return self.classifier.classes_

    def predict(self, X) -> list[list[dict]]:
        """Each sentence's terms: ``{"span", "term", "polarity", "probability",
        "score"}``, as :meth:`aspectattn.AspectSentimentPipeline.predict`."""
        texts = check_texts(X, "X")
        found = self.extractor.predict_spans(texts)
        return classify_terms(texts, found, self.classifier)

    def _aspect_names(self) -> AspectNames:
        return self.names
