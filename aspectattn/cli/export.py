"""``aspectattn export``: write a model as ONNX for :mod:`aspectattn.serving.runtime`
(numpy and onnxruntime only)."""

from __future__ import annotations

from pathlib import Path

from ._common import (
    CLIError,
    _read_model,
    add_model_options,
    is_joint,
    is_pipeline,
)

#: Position in ``aspectattn --help``.
ORDER = 6
HELP = "write a model as ONNX for aspectattn.serving.runtime (numpy + onnxruntime)"


def add_arguments(p) -> None:
    p.add_argument(
        "model",
        help="model file (.aam): pair classifier, detector, term extractor, "
        "joint model or pipeline (its two parts, each to a folder of OUT)",
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
    quantize = "int8" if args.int8 else None
    if is_joint(clf) or not is_pipeline(clf):  # (the joint model: one export)
        directory = export_onnx(clf, args.out, quantize=quantize)
        print(
            f"wrote {directory / 'model.onnx'} and {directory / 'model.json'} "
            f"({_size(directory)}); serve with aspectattn.serving.runtime."
            f"load_onnx({str(directory)!r})"
        )
        return 0
    # a pipeline: each part its own graph, in OUT/extractor and OUT/classifier
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"{out} is a file; give a directory for the two exports")
    parts = {"extractor": clf.extractor_, "classifier": clf.classifier_}
    for name, part in parts.items():
        export_onnx(part, out / name, quantize=quantize)
    names = "" if clf.aspect_names is None else ", aspect_names=<your dict>"
    print(
        f"wrote the extractor to {out / 'extractor'} and the classifier to "
        f"{out / 'classifier'} ({_size(out / 'extractor')} + "
        f"{_size(out / 'classifier')}); serve with aspectattn.serving.runtime."
        f"OnnxSentimentPipeline(load_onnx({str(out / 'extractor')!r}), "
        f"load_onnx({str(out / 'classifier')!r}){names})"
    )
    return 0


def _size(directory: Path) -> str:
    size = sum(f.stat().st_size for f in directory.iterdir() if f.is_file())
    return f"{size / 2**20:.1f} MiB"
