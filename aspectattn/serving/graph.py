"""What an ONNX export may hold: the graphs that
:func:`aspectattn.serving.export.export_onnx` makes, and nothing else (numpy only:
the torch-free runtime reads it).

An export comes with a checksum, but the checksum sits in the same ``model.json``
as the graph it vouches for: it finds a damaged file, not a crafted one. A crafted
graph can allocate without bound (``ConstantOfShape([2**29])``: 2 GiB a call) or
never return (``Loop`` over 10**12 iterations). So before onnxruntime sees a graph,
:func:`check_graph` reads its protobuf (a small reader of the wire format below:
the ``onnx`` package is not needed to serve) and accepts only

* the standard operator set at the exporter's version, nodes of the operators the
  exporter emits (:data:`OPERATORS`: no control flow, no custom domains, no
  functions);
* no subgraph, sparse or external-data attribute or tensor;
* initialisers and constants of bounded size, and integer constants of bounded
  magnitude (they are the shapes, axes and indices the graph computes with),
  except the "to the end" bound of a ``Slice``; integer attributes (a
  convolution's kernel, pads and strides, an axis, a size) of bounded magnitude
  too.

Anything else is an :class:`ExportFileError` naming what was found.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_graph", "OPERATORS", "GraphError"]

#: The operators the exporter emits (torch's TorchScript exporter at opset 17, over
#: every encoder (the checkpoint families of tests/test_checkpoints.py too),
#: attention form, variant and term option, and the extractor's
#: taggers with their character convolution; and onnxruntime's int8
#: quantisation of its matrix products), and a few element-wise ones of the same
#: kind. No control flow (Loop, Scan, If), nothing that reads files.
OPERATORS = frozenset(
    """Abs Add And Cast Ceil Clip Concat Constant ConstantOfShape Conv Cos CumSum Div
    Equal Erf Exp Expand Flatten Floor Gather GatherElements Gemm Greater
    GreaterOrEqual Identity IsNaN LSTM LayerNormalization Less LessOrEqual Log
    MatMul Max Min Mul Neg Not Or Pad Pow Range Reciprocal ReduceMax ReduceMean
    ReduceSum Relu Reshape ScatterND Shape Sigmoid Sign Sin Slice Softmax Split Sqrt
    Squeeze Sub Tanh Tile Transpose Unique Unsqueeze Where
    DequantizeLinear DynamicQuantizeLinear MatMulInteger""".split()
)
OPSET = 17
#: Elements of one initialiser or constant.
MAX_ELEMENTS = 100_000_000
#: Magnitude of an integer constant (a shape, an axis, an index, a length).
MAX_INT = 2**20
#: Nodes of a graph.
MAX_NODES = 100_000
_INT64_MAX = 2**63 - 1

# ONNX TensorProto data types with integer values, as numpy dtypes.
_INT_TYPES = {
    2: np.uint8,
    3: np.int8,
    4: np.uint16,
    5: np.int16,
    6: np.int32,
    7: np.int64,
    12: np.uint32,
    13: np.uint64,
}


class GraphError(ValueError):
    """The graph is not one the exporter makes."""


# ------------------------------------------------------------------ wire format
def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise GraphError("a truncated or malformed protobuf varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def _fields(data: bytes):
    """``(field number, wire type, value)`` of a message: an int (varint, fixed)
    or bytes (length-delimited)."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = int.from_bytes(data[pos : pos + 8], "little"), pos + 8
        elif wire == 5:
            value, pos = int.from_bytes(data[pos : pos + 4], "little"), pos + 4
        elif wire == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos : pos + length], pos + length
        else:  # groups (3, 4) and reserved types: not in ONNX
            raise GraphError(f"protobuf wire type {wire}")
        if pos > len(data):
            raise GraphError("a truncated protobuf message")
        yield number, wire, value


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _packed_ints(wire: int, value) -> list[int]:
    if wire == 0:
        return [_signed(value)]
    out, pos = [], 0
    while pos < len(value):
        v, pos = _varint(value, pos)
        out.append(_signed(v))
    return out


def _text(value) -> str:
    try:
        return bytes(value).decode("utf-8")
    except (TypeError, UnicodeDecodeError):
        raise GraphError("a name that is not UTF-8 text") from None


# ---------------------------------------------------------------------- tensors
def _tensor(data: bytes, shapes: dict | None = None) -> tuple[str, np.ndarray | None]:
    """``(name, integer values or None)`` of a TensorProto, its size checked;
    its shape kept in ``shapes[name]`` where given."""
    dims, dtype, name, raw, ints = [], None, "", None, []
    for number, wire, value in _fields(data):
        if number == 1:
            dims += _packed_ints(wire, value)
        elif number == 2:
            dtype = value
        elif number == 8:
            name = _text(value)
        elif number == 9:
            raw = value
        elif number in (5, 7, 11):  # int32_data, int64_data, uint64_data
            ints += _packed_ints(wire, value)
        elif number in (13, 14) and (number == 13 or value == 1):
            raise GraphError(f"tensor {name!r} keeps its data in an external file")
        elif number == 3:
            raise GraphError(f"tensor {name!r} is segmented")
    if len(dims) > 8 or any(d < 0 for d in dims):
        raise GraphError(f"tensor {name!r} has the shape {dims}")
    size = int(np.prod(dims, dtype=np.float64)) if dims else 1
    if size > MAX_ELEMENTS:
        raise GraphError(f"tensor {name!r} has {size:,} elements")
    if shapes is not None:
        shapes[name] = tuple(dims)
    if dtype not in _INT_TYPES:
        return name, None
    if raw is not None:
        item = np.dtype(_INT_TYPES[dtype]).itemsize
        if len(raw) != size * item:
            raise GraphError(f"tensor {name!r} holds {len(raw)} bytes, not {size}")
        values = np.frombuffer(raw, dtype=np.dtype(_INT_TYPES[dtype]).newbyteorder("<"))
    else:
        values = np.asarray(ints, dtype=np.float64)
    return name, values.astype(np.float64)


# ------------------------------------------------------------------------ graph
def check_graph(data: bytes) -> dict[str, tuple[int, ...]]:
    """Raise :class:`GraphError` unless ``data`` (a serialised ModelProto) is a
    graph of the kind the exporter makes (see the module docstring).

    Returns
    -------
    dict
        The shape of each initialiser, by name (the exporter keeps the
        module's parameter names: ``model.embedding.weight``...), for the
        loader to hold ``model.json`` against.
    """
    shapes: dict[str, tuple[int, ...]] = {}
    graph = None
    opsets = []
    for number, _, value in _fields(data):
        if number == 7:
            graph = value
        elif number == 8:
            entry = dict((n, v) for n, _, v in _fields(value))
            opsets.append((_text(entry.get(1, b"")), entry.get(2)))
        elif number in (20, 25):
            raise GraphError("the model holds training information or functions")
    if opsets != [("", OPSET)]:
        raise GraphError(f"the operator sets {opsets}; expected [('', {OPSET})]")
    if graph is None:
        raise GraphError("the model has no graph")
    constants: dict[str, np.ndarray] = {}
    consumers: dict[str, set] = {}
    n_nodes = 0
    for number, _, value in _fields(graph):
        if number == 5:
            name, values = _tensor(value, shapes)
            if values is not None:
                constants[name] = values
        elif number == 15:
            raise GraphError("the graph has sparse initialisers")
        elif number == 1:
            n_nodes += 1
            if n_nodes > MAX_NODES:
                raise GraphError(f"the graph has more than {MAX_NODES:,} nodes")
            _node(value, constants, consumers)
    for name, values in constants.items():
        if values.size and np.abs(values).max() > MAX_INT:
            # Slice's "to the end" (INT64 max) is the one large integer the
            # exporter writes, as the ends input of Slice nodes.
            ends = consumers.get(name, set()) <= {("Slice", 2)}
            if not (ends and np.all(np.abs(values) >= _INT64_MAX - 1)):
                raise GraphError(
                    f"the integer constant {name!r} holds {values.max():.0f}: more "
                    "than any shape, axis or index of an exported model"
                )
    return shapes


def _node(data: bytes, constants: dict, consumers: dict) -> None:
    op, domain, inputs, outputs, attributes = "", "", [], [], []
    for number, _, value in _fields(data):
        if number == 4:
            op = _text(value)
        elif number == 7:
            domain = _text(value)
        elif number == 1:
            inputs.append(_text(value))
        elif number == 2:
            outputs.append(_text(value))
        elif number == 5:
            attributes.append(value)
    if domain or op not in OPERATORS:
        raise GraphError(
            f"the operator {domain + '.' if domain else ''}{op!r} is not one the "
            "exporter makes"
        )
    for i, name in enumerate(inputs):
        consumers.setdefault(name, set()).add((op, i))
    for attribute in attributes:
        for number, wire, value in _fields(attribute):
            if number in (6, 11, 21, 22, 23):
                raise GraphError(
                    f"a {op} node has a subgraph, sparse or referenced attribute"
                )
            if number in (3, 8) and any(  # i, ints
                abs(v) > MAX_INT for v in _packed_ints(wire, value)
            ):
                raise GraphError(
                    f"a {op} node has an integer attribute larger than any shape, "
                    "axis or size of an exported model"
                )
            if number in (5, 10):
                _, values = _tensor(value)
                if op == "Constant" and values is not None and outputs:
                    constants[outputs[0]] = values
