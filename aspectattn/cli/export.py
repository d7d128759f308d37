"""``aspectattn export``: write a model as ONNX for :mod:`aspectattn.serving.runtime`
(numpy and onnxruntime only)."""

from __future__ import annotations

from ._common import (
    _read_model,
    add_model_options,
)

#: Position in ``aspectattn --help``.
ORDER = 6
HELP = "write a model as ONNX for aspectattn.serving.runtime (numpy + onnxruntime)"


def add_arguments(p) -> None:
    p.add_argument(
        "model", help="model file (.aam): pair classifier, detector or term extractor"
    )
    p.add_argument("out", help="directory for model.onnx and model.json")
    add_model_options(p, quantize=False)
    p.add_argument(
        "--int8",
        action="store_true",
        help="int8 weights in the graph's matrix products (faster, for a "
        "pretrained encoder above all; see the README for the accuracy change)",
    )


def run(args) -> int:
    from ..serving.export import export_onnx

    clf = _read_model(args.model, args.trust_pickle)
    directory = export_onnx(clf, args.out, quantize="int8" if args.int8 else None)
    size = sum(f.stat().st_size for f in directory.iterdir() if f.is_file())
    print(
        f"wrote {directory / 'model.onnx'} and {directory / 'model.json'} "
        f"({size / 2**20:.1f} MiB); serve with aspectattn.serving.runtime.load_onnx"
        f"({str(directory)!r})"
    )
    return 0
