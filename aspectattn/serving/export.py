"""Export a fitted model to ONNX, to serve it without torch
(:mod:`aspectattn.serving.runtime`).

An export is a directory with two files:

* ``model.onnx`` -- the torch module's forward pass on padded token ids, weights
  inside the file (no external data);
* ``model.json`` -- what the runtime needs around it: the text pipeline (tokenizer
  settings and vocabulary, as in the safe ``.aam`` file), the labels, the aspect
  categories, the encoder's ``batch_tokens`` (the padded tokens of one batch, at
  most: the runtime batches as the estimator does) and the SHA-256 of
  ``model.onnx``.

Three graphs, by estimator:

* :class:`~aspectattn.AspectAttentionClassifier` (``kind="pairs"``): inputs
  ``tokens`` (P, T) int64 (0 is padding), ``lengths`` (P,) int64, ``aspect`` (P,)
  int64 category ids or (P, L) int64 term token ids, and ``span`` (P, 2) int64 when
  the model reads the term's position; outputs ``logits`` (P, C) float32 and
  ``attention`` (P, T) float32 (the mean over heads; zeros for AE). When the
  encoder does not see the aspect (AT without term positions, ``shares_encoder``
  in ``model.json``), ``tokens``/``lengths`` hold the batch's B distinct sentences
  and ``sentence`` (P,) int64 the row each pair reads: one encoder pass per
  sentence, as in the estimator.
* :class:`~aspectattn.AspectCategoryClassifier` (``kind="categories"``): inputs
  ``tokens`` (B, T), ``lengths`` (B,); outputs ``logits`` (B, K, C) for every
  category and ``attention`` (B, K, T), one encoder pass per sentence.
* :class:`~aspectattn.AspectTermExtractor` (``kind="terms"``): inputs ``tokens``
  (B, T), ``lengths`` (B,) and, for an LSTM tagger that reads characters,
  ``chars`` (U, W) int64 (the batch's U distinct written words) and
  ``char_index`` (B, T) int64 (each token's row in ``chars``); output
  ``logits`` (B, T, 3), the tags O, B, I of every token. ``model.json`` holds
  the tagger's inputs (vocabulary and character table, or the checkpoint's
  tokenizer files) in place of a text pipeline.

Every encoder: the LSTM and transformer with their vocabulary, the pretrained one
with its checkpoint's tokenizer files (the runtime tokenizes with Hugging Face's
``tokenizers``, torch-free). ``quantize="int8"`` writes the graph with int8 weights
in its matrix products (onnxruntime's dynamic quantisation, one scale per output
column; activations quantised per batch on the fly): what pays for the pretrained
encoder, whose time goes to those products.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import re
import warnings
from pathlib import Path
from typing import NamedTuple

import torch
from sklearn.utils.validation import check_is_fitted
from torch import nn

from .._fields import labels_state
from .._output import output_path
from ..engine.inference import batch_tokens
from ..exceptions import AspectAttnWarning, optional_import
from ..nn.ops import length_mask, uses_position
from .runtime import FORMAT, FORMAT_VERSION

__all__ = ["export_onnx", "quantize_graph", "FORMAT", "FORMAT_VERSION", "OPSET"]

#: ONNX opset of the exported graphs.
OPSET = 17


class _PairGraph(nn.Module):
    """The pair classifier's forward pass: logits and the mean attention per pair."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, tokens, lengths, aspect, span=None):
        # tokens (P, T), lengths (P,), aspect (P,) or (P, L), span (P, 2) or None
        logits, alpha = self.model(
            tokens, lengths, aspect, span=span, return_attention=True
        )
        if alpha.dim() == 3:  # (P, heads, T): their mean, which also sums to 1
            alpha = alpha.mean(1)
        return logits, alpha  # (P, C), (P, T)


class _SharedEncoderGraph(nn.Module):
    """AT pairs, one encoder pass per distinct sentence of the batch: ``sentence``
    gives the row of ``tokens`` each pair reads."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, tokens, lengths, aspect, sentence):
        # tokens (B, T), lengths (B,), aspect (P,) or (P, L), sentence (P,)
        model = self.model
        v_a = model.aspect_vectors(aspect)  # (P, A)
        states, summary = model._encode(tokens, lengths, None)  # (B, T, D), (B, D)
        mask = length_mask(lengths, tokens.shape[1])  # (B, T)
        summary = summary[sentence]  # (P, D)
        logits, alpha = model._head(states, summary, mask, v_a[:, None, :], sentence)
        alpha = alpha[:, 0]  # (P, T) or (P, heads, T)
        if alpha.dim() == 3:
            alpha = alpha.mean(1)
        return logits[:, 0], alpha  # (P, C), (P, T)


def shares_encoder(model) -> bool:
    """Whether pairs of one sentence can share its encoder pass in the export."""
    return (
        model.uses_attention
        and not model.encoder_sees_aspect
        and not model.uses_position
    )


class _CategoryGraph(nn.Module):
    """The detector's forward pass: every sentence on every category."""

    def __init__(self, model: nn.Module, n_categories: int):
        super().__init__()
        self.model = model
        self.register_buffer("categories", torch.arange(n_categories))

    def forward(self, tokens, lengths):
        # tokens (B, T), lengths (B,)
        logits, alpha = self.model.forward_many(tokens, lengths, self.categories)
        if alpha.dim() == 4:  # (B, K, heads, T)
            alpha = alpha.mean(2)
        return logits, alpha  # (B, K, C), (B, K, T)


def _example_inputs(module, pairs: bool, aspect_type: str):
    """Small inputs to trace with: 2 rows of 3 tokens (ids 1, the unknown word)."""
    tokens = torch.ones(2, 3, dtype=torch.long)
    lengths = torch.tensor([3, 2])
    if not pairs:
        return (tokens, lengths), ["tokens", "lengths"]
    aspect = (
        torch.ones(3, 1, dtype=torch.long)
        if aspect_type == "term"
        else torch.zeros(3, dtype=torch.long)
    )
    if shares_encoder(module):  # 3 pairs over the 2 sentences
        sentence = torch.tensor([0, 1, 1])
        return (tokens, lengths, aspect, sentence), [
            "tokens",
            "lengths",
            "aspect",
            "sentence",
        ]
    aspect = aspect[:2]
    if module.uses_position:
        span = torch.tensor([[0, 1], [1, 2]])
        return (tokens, lengths, aspect, span), ["tokens", "lengths", "aspect", "span"]
    return (tokens, lengths, aspect), ["tokens", "lengths", "aspect"]


def export_onnx(estimator, directory, quantize: str | None = None) -> Path:
    """Write a fitted estimator to ``directory/model.onnx`` and ``model.json``.

    Parameters
    ----------
    estimator : AspectAttentionClassifier, AspectCategoryClassifier, \
AspectTermExtractor or AspectSentimentExtractor
        Fitted, with any encoder. The joint model writes two graphs:
        ``model.onnx`` (its encoder pass: the tags and the states) and
        ``polarity.onnx`` (its polarity head, which reads those states).
    directory : str or path-like
        Created if missing; the two files in it are replaced.
    quantize : {None, "int8"}, default=None
        ``"int8"``: int8 weights in the graph's matrix products with a constant
        operand (:func:`quantize_graph`); the runtime serves it as any export.

    Returns
    -------
    Path
        The directory; load it with :func:`aspectattn.serving.runtime.load_onnx`.

    Raises
    ------
    ValueError
        For a ``quantize`` other than None and ``"int8"``.
    MissingDependencyError
        When the ``onnx`` package (needed by torch's exporter) is not installed.

    Examples
    --------
    >>> import tempfile
    >>> from aspectattn import AspectAttentionClassifier
    >>> from aspectattn.serving import export_onnx, load_onnx
    >>> X = [("great pasta", "food"), ("rude waiter", "service")] * 5
    >>> y = ["positive", "negative"] * 5
    >>> from aspectattn.encoders import LSTMEncoder
    >>> clf = AspectAttentionClassifier(encoder=LSTMEncoder(embeddings=None),
    ...                                 max_epochs=1, random_state=0).fit(X, y)
    >>> served = load_onnx(export_onnx(clf, tempfile.mkdtemp()))  # no torch needed
    >>> bool((served.predict(X) == clf.predict(X)).all())
    True
    """
    from ..extraction.extractor import AspectTermExtractor
    from ..extraction.pipeline import AspectSentimentPipeline

    if isinstance(estimator, AspectSentimentPipeline):
        raise TypeError(
            "export the pipeline's parts, each to its directory: "
            "export_onnx(pipeline.extractor_, ...) and export_onnx("
            "pipeline.classifier_, ...); OnnxSentimentPipeline joins them"
        )
    check_is_fitted(estimator, "module_")
    if quantize not in (None, "int8"):
        raise ValueError(f"quantize must be None or 'int8'; got {quantize!r}")
    optional_import("onnx", "onnx", "Exporting to ONNX")
    if getattr(estimator, "quantize", None) is not None and quantize is None:
        warnings.warn(
            f"quantize={estimator.quantize!r} is not carried into the ONNX graph, "
            "which holds the float32 weights (export_onnx(..., quantize='int8') "
            "writes int8 ones).",
            AspectAttnWarning,
            stacklevel=2,
        )
    from ..extraction.joint import AspectSentimentExtractor

    extra = {}
    if isinstance(estimator, AspectTermExtractor):
        export = _extractor_export(estimator)
    elif isinstance(estimator, AspectSentimentExtractor):
        export, extra["polarity"] = _joint_export(estimator)
    else:
        export = _classifier_export(estimator)
    return _write(Path(directory), estimator.module_, export, quantize, extra)


class _Export(NamedTuple):
    """What :func:`_write` writes: the graph, the inputs it is traced with and
    their names, its outputs, their dynamic axes, and ``model.json``'s fields
    (the checksum aside)."""

    graph: nn.Module
    args: tuple
    names: list[str]
    outputs: tuple[str, ...]
    axes: dict
    meta: dict


def _classifier_export(estimator) -> _Export:
    """A classifier's or detector's graph and fields."""
    from ..estimators.categories import AspectCategoryClassifier

    pairs = not isinstance(estimator, AspectCategoryClassifier)
    config = estimator.module_config_
    model = getattr(estimator.module_, "model", estimator.module_)  # (detector)
    shared = pairs and shares_encoder(model)
    if not pairs:
        graph = _CategoryGraph(model, len(estimator.aspects_))
    else:
        graph = _SharedEncoderGraph(model) if shared else _PairGraph(model)
    args, names = _example_inputs(model, pairs, config.get("aspect_type", "category"))
    # The rows of tokens: one per pair, unless a sentence serves all its pairs.
    rows = "pairs" if pairs and not shared else "sentences"
    axes = {"tokens": {0: rows, 1: "tokens"}, "lengths": {0: rows}}
    if pairs:
        axes["aspect"] = (
            {0: "pairs", 1: "term_tokens"} if args[2].dim() == 2 else {0: "pairs"}
        )
        axes.update(span={0: "pairs"}, sentence={0: "pairs"})
        axes.update(logits={0: "pairs"}, attention={0: "pairs", 1: "tokens"})
    else:
        axes.update(logits={0: rows}, attention={0: rows, 2: "tokens"})
    meta = {
        "kind": "pairs" if pairs else "categories",
        "aspect_type": config.get("aspect_type", "category") if pairs else "category",
        "uses_position": bool(pairs and uses_position(config)),
        "shares_encoder": bool(shared),
        "classes": labels_state(estimator.classes_ if pairs else estimator.labels_),
        "aspects": [str(a) for a in estimator.aspects_],
        "not_mentioned": None if pairs else estimator.not_mentioned,
        "text_pipeline": estimator.text_pipeline_.to_state(),
        # the runtime's batches as the estimator's (a transformer's budget)
        "batch_tokens": batch_tokens(model),
    }
    return _Export(graph, args, names, ("logits", "attention"), axes, meta)


class _TaggerGraph(nn.Module):
    """The extractor's forward pass: every token's tag logits. ``chars`` only
    for an LSTM tagger that reads characters."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, tokens, lengths, chars=None, char_index=None):
        # tokens (B, T), lengths (B,), chars (U, W), char_index (B, T)
        return self.model(tokens, lengths, chars, char_index)  # (B, T, K)


def _extractor_export(extractor) -> _Export:
    """An aspect term extractor's graph and fields."""
    from ..extraction.inputs import SubwordInputs

    inputs = extractor.inputs_
    subwords = isinstance(inputs, SubwordInputs)
    tokens = torch.ones(2, 3, dtype=torch.long)
    lengths = torch.tensor([3, 2])
    args, names = (tokens, lengths), ["tokens", "lengths"]
    axes = {
        "tokens": {0: "sentences", 1: "tokens"},
        "lengths": {0: "sentences"},
        "logits": {0: "sentences", 1: "tokens"},
    }
    if inputs.n_characters:  # 2 forms of 4 characters (id 1, any) and padding
        chars = torch.tensor([[0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 0]])
        char_index = torch.tensor([[1, 2, 1], [2, 1, 0]])
        args, names = (*args, chars, char_index), [*names, "chars", "char_index"]
        axes["chars"] = {0: "forms", 1: "characters"}
        axes["char_index"] = {0: "sentences", 1: "tokens"}
    meta = {
        "kind": "terms",
        "inputs": inputs.to_state(),
        # (a sub-word tokenizer's own rules decide its case)
        "lowercase": subwords or bool(inputs.tokenizer.lowercase),
        "language": extractor.language_,
        "whole_words": subwords,
        **_reading_state(extractor),
        "batch_tokens": extractor.module_.batch_tokens,
    }
    return _Export(
        _TaggerGraph(extractor.module_), args, names, ("logits",), axes, meta
    )


def _reading_state(extractor) -> dict:
    """How the export reads its tags: ``decoding``, and ``transitions``, the
    tagger's learned start (3,) and pair (3, 3) scores as lists (null: none)."""
    reading = extractor._reading()
    transitions = reading["transitions"]
    if transitions is not None:
        start, pairs = transitions
        transitions = {"start": start.tolist(), "pairs": pairs.tolist()}
    return {"decoding": reading["decoding"], "transitions": transitions}


class _JointTagGraph(nn.Module):
    """The joint model's encoder pass: every token's tag logits, and the states
    its polarity graph (:class:`_PolarityGraph`) reads."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, tokens, lengths, chars=None, char_index=None):
        # tokens (B, T), lengths (B,), chars (U, W), char_index (B, T)
        states = self.model.states(tokens, lengths, chars, char_index)  # (B, T, D)
        return self.model.tag_logits(states), states  # (B, T, K), (B, T, D)


class _PolarityGraph(nn.Module):
    """The joint model's polarity head: the found terms' polarity logits from
    the states of their sentences."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, states, lengths, terms):
        # states (B, T, D), lengths (B,), terms (P, 3) -> logits (P, C)
        return self.model.polarity_logits(states, lengths, terms)


def _joint_export(model) -> tuple[_Export, _Export]:
    """The joint model's two graphs and fields: the encoder pass (tags and
    states) as an extractor's, and the polarity head."""
    from ..extraction.aspects import check_aspect_names

    tags = _extractor_export(model)
    states = torch.zeros(2, 3, model.module_.tagger.output_size)
    lengths, terms = torch.tensor([3, 2]), torch.tensor([[0, 0, 1], [1, 1, 1]])
    polarity = _Export(
        _PolarityGraph(model.module_),
        (states, lengths, terms),
        ["states", "lengths", "terms"],
        ("logits",),
        {
            "states": {0: "sentences", 1: "tokens"},
            "lengths": {0: "sentences"},
            "terms": {0: "terms"},
            "logits": {0: "terms"},
        },
        {},
    )
    meta = {**tags.meta, "kind": "joint", "classes": labels_state(model.classes_)}
    meta["aspect_names"] = check_aspect_names(model.aspect_names)
    axes = {**tags.axes, "states": {0: "sentences", 1: "tokens"}}
    graph = _JointTagGraph(model.module_)
    main = tags._replace(
        graph=graph, outputs=("logits", "states"), axes=axes, meta=meta
    )
    return main, polarity


def _write(
    directory: Path, module: nn.Module, export: _Export, quantize, extra=None
) -> Path:
    """Trace ``export``'s graph to ``directory/model.onnx`` (and each graph of
    ``extra``, name -> export, to ``directory/<name>.onnx``: float32, as they
    read no encoder) and write their ``model.json``."""
    directory.mkdir(parents=True, exist_ok=True)
    graphs = {"model": export, **(extra or {})}
    # Every file is written beside the export's own and renamed over it once
    # whole: a failed (full disk) or interrupted export leaves the previous ones.
    with contextlib.ExitStack() as stack:
        paths = {
            name: stack.enter_context(output_path(directory / f"{name}.onnx"))
            for name in graphs
        }
        json_path = stack.enter_context(output_path(directory / "model.json"))
        was_training = module.training
        device = next(module.parameters()).device
        try:
            for name, graph in graphs.items():
                _trace(graph, paths[name])
        finally:
            module.to(device).train(was_training)
        if quantize == "int8" and quantize_graph(paths["model"]):
            # a graph onnxruntime cannot run is refused here, not at the first
            # prediction (the previous export stays)
            _check_runs(paths["model"], export.args, export.names)
        meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **export.meta}
        for name, path in paths.items():
            key = "onnx_sha256" if name == "model" else f"{name}_sha256"
            meta[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        json_path.write_text(json.dumps(meta), encoding="utf-8")
    return directory


def _trace(export: _Export, path: Path) -> None:
    """Trace ``export``'s graph (in eval mode, on the CPU) to ``path``."""
    names, outputs = export.names, list(export.outputs)
    export.graph.cpu().eval()
    with warnings.catch_warnings(), torch.no_grad():
        # The TorchScript exporter: exact on these graphs, and it needs no
        # onnxscript; its deprecation and tracer warnings are not the user's.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            export.graph,
            export.args,
            str(path),
            input_names=names,
            output_names=outputs,
            dynamic_axes={k: v for k, v in export.axes.items() if k in names + outputs},
            opset_version=OPSET,
            dynamo=False,
        )


def _check_runs(path: Path, args, names) -> None:
    """Run the graph at ``path`` once on the inputs it was traced with."""
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        session.run(None, {n: a.numpy() for n, a in zip(names, args, strict=True)})
    except Exception as exc:  # onnxruntime's own errors have no common base
        raise RuntimeError(
            f"the int8 graph does not run in onnxruntime ({str(exc)[:300]}); "
            "export without quantize='int8'."
        ) from None


#: Parts of the encoder's node names whose weight products stay float32 in the
#: int8 graph (none: every one is int8).
KEEP_FLOAT: tuple[str, ...] = ()
#: The scope of the encoder's nodes: ``/encoder/...`` where a graph calls the
#: encoder itself (one pass per sentence, the detector), ``/model/encoder/...``
#: where it calls the whole model (:class:`_PairGraph`, an extractor's tagger),
#: ``/model/tagger/encoder/...`` in the joint model's.
ENCODER_SCOPE = re.compile(r"^/(?:model/)?(?:tagger/)?encoder/")


def encoder_products(graph) -> list[str]:
    """The names of the encoder's matrix products with a constant (weight)
    operand in the ONNX ``graph``: what :func:`quantize_graph` makes int8."""
    weights = {i.name for i in graph.initializer}
    return [
        n.name
        for n in graph.node
        if n.op_type == "MatMul"
        and ENCODER_SCOPE.match(n.name)
        and any(i in weights for i in n.input)
        and not any(part in n.name for part in KEEP_FLOAT)
    ]


def quantize_graph(path) -> bool:
    """Replace the ONNX graph at ``path`` by its int8 form: onnxruntime's dynamic
    quantisation of the encoder's matrix products with a weight operand (one
    scale per output column), the activations quantised per batch as it runs --
    what ``quantize="int8"`` does in torch. The encoder's products of two
    activations (its self-attention), the aspect attention and the classifier
    stay float32.

    Returns
    -------
    bool
        Whether anything was quantised: an encoder with no such product (the
        LSTM, whose weights are in its ``LSTM`` node) leaves the graph as it is,
        with a warning, as ``quantize="int8"`` leaves such a model in torch.
    """
    optional_import("onnxruntime", "onnx", "Quantising an ONNX export")
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    path = Path(path)
    encoder = encoder_products(onnx.load(str(path)).graph)
    if not encoder:
        # onnxruntime reads an empty node list as "every MatMul", products of
        # two activations included, which its int8 kernels cannot run.
        warnings.warn(
            "quantize='int8' leaves this export float32: its encoder has no matrix "
            "products with weights (int8 pays with encoder='pretrained').",
            AspectAttnWarning,
            stacklevel=3,
        )
        return False
    # (its advice to pre-process the graph goes to the root logger, at warning)
    disabled = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        with output_path(path) as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            quantize_dynamic(
                str(path),
                str(tmp),
                op_types_to_quantize=["MatMul"],
                nodes_to_quantize=encoder,
                per_channel=True,
                weight_type=QuantType.QInt8,
            )
    finally:
        logging.disable(disabled)
    return True
