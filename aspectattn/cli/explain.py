"""``aspectattn explain``: the attention weight of every token, as text, HTML, an
image or JSON Lines."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ._common import (
    CLIError,
    _write_rows,
    add_data_options,
    check_outputs,
    is_detector,
    load_data,
    load_model,
    output_path,
    pair_model,
)

#: Position in ``aspectattn --help``.
ORDER = 4
HELP = "attention weight of every token"


#: Control characters (C0 but tab, DEL, C1): ESC starts terminal commands (colours,
#: cursor moves, window titles, OSC 52 clipboard writes).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with each control character shown as its escape (``\\x1b``)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def add_arguments(p) -> None:
    p.add_argument("model", help="model file (.aam)")
    p.add_argument("data", help="data-set name or CSV/JSONL/XML/APC (.dat) file")
    p.add_argument("--out", help=".html, .png, .svg, .pdf or .jsonl (default: text)")
    p.add_argument("--limit", type=int, default=0, help="only the first N pairs")
    add_data_options(p, "test")


def run(args) -> int:
    check_outputs([args.data, args.model], [args.out])
    clf = pair_model(
        load_model(args.model, args.trust_pickle, args.quantize), args.model, "explain"
    )
    if is_detector(clf):
        raise CLIError(
            "this model is a category detector: 'predict' lists every sentence's "
            "categories (its attention is in AspectCategoryClassifier.analyze)"
        )
    X, _ = load_data(args.data, args, need_labels=False, aspect_type=clf.aspect_type_)
    if args.limit:
        X = X[: args.limit]
    results = clf.explain(X)
    out = Path(args.out) if args.out else None
    if out is None:
        for r in results:  # data shown as text, never as terminal commands
            aspect, text = printable(r["aspect"]), printable(r["text"])
            print(f"{aspect!r} -> {printable(str(r['label']))}: {text}")
            for token, w in zip(r["tokens"], r["weights"], strict=True):
                print(f"  {printable(token):>15s} {w:.3f} {'#' * round(40 * w)}")
        return 0
    if out.suffix.lower() in (".html", ".htm"):
        from ..viz import attention_html

        with output_path(out) as tmp:
            attention_html(results, tmp)
    elif out.suffix.lower() in (".png", ".svg", ".pdf"):
        from ..viz import plot_attention

        with output_path(out) as tmp:
            plot_attention(results, tmp)
    elif out.suffix.lower() in (".jsonl", ".json"):
        _write_rows(
            [
                {
                    **r,
                    "weights": [round(float(w), 6) for w in r["weights"]],
                    "proba": [round(float(p), 6) for p in r["proba"]],
                    "label": str(r["label"]),
                }
                for r in results
            ],
            str(out),
        )
    else:
        raise CLIError(
            f"--out must end in .html, .png, .svg, .pdf or .jsonl; got {out.name!r}"
        )
    print(f"wrote {out}", file=sys.stderr)
    return 0
