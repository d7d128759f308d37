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
    p.add_argument("model", help="model file (.aam): pair classifier or detector")
    p.add_argument("out", help="directory for model.onnx and model.json")
    add_model_options(p, quantize=False)


def run(args) -> int:
    from ..serving.export import export_onnx

    clf = _read_model(args.model, args.trust_pickle)
    directory = export_onnx(clf, args.out)
    size = sum(f.stat().st_size for f in directory.iterdir() if f.is_file())
    print(
        f"wrote {directory / 'model.onnx'} and {directory / 'model.json'} "
        f"({size / 2**20:.1f} MiB); serve with aspectattn.serving.runtime.load_onnx"
        f"({str(directory)!r})"
    )
    return 0
