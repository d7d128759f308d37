"""A Sphinx extension that writes the pages made from other sources of truth, at
build time (they are git-ignored):

* ``cli.rst``, the command-line reference, from the parsers of
  :mod:`aspectattn.cli`: every command, every flag, with its help, default and
  choices -- the same text as ``aspectattn COMMAND --help``;
* ``benchmarks/<result>.md``, one page per results table of ``benchmarks/results``
  with the docstring of the benchmark that made it (its commands) above it.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: results table (``benchmarks/results/<path>.md``) -> (page title, the module).
RESULTS = {
    "defaults": ("What the defaults get", "defaults"),
    "aspect_level": ("Aspects that disagree and category detection", "aspect_level"),
    "terms": ("Aspect terms", "terms"),
    "attention_lstm": (
        "AT-, AE- and ATAE-LSTM, and the other encoders",
        "attention_lstm",
    ),
    "pretrained": ("The pretrained tier: selection on validation", "pretrained"),
    "pretrained_speed": ("The pretrained tier: training speed", "pretrained"),
    "pretrained_serving": ("The pretrained tier: serving speed", "pretrained"),
    "pretrained_analyze": ("The pretrained tier: the review analysis", "pretrained"),
    "distillation": ("Distillation: the LSTM learning from MiniLM", "distillation"),
    "languages": ("Other languages", "languages"),
    "forms": ("The attention forms", "forms_table"),
    "quantize": ("int8 and bfloat16 prediction", "quantize"),
    "int8_export": ("int8 ONNX exports of every model kind", "int8_export"),
    "behaviour": ("Aspect-level behaviour: how the defaults were chosen", "behaviour"),
    "behaviour_categories": ("Aspect-level behaviour: categories", "behaviour"),
    "behaviour_detector": (
        "Aspect-level behaviour: how the detector's defaults were chosen",
        "behaviour",
    ),
    "behaviour_category_pairs": (
        "Aspect-level behaviour: the categories' pair classifier",
        "behaviour",
    ),
    "behaviour_vocabulary": (
        "Aspect-level behaviour: the opinion words a model never read",
        "behaviour",
    ),
    "negation": ("Negation in every form: the LSTM's negated copies", "negation"),
    "negation_detector": (
        "Negation in every form: the detector's negated copies",
        "negation",
    ),
    "copy_weight": ("The copies' weight in the loss", "copy_weight"),
    "copy_weight_detector": (
        "The copies' weight in the loss: the detector",
        "copy_weight",
    ),
    "copy_weight_category_pairs": (
        "The copies' weight in the loss: the categories' pair classifier",
        "copy_weight",
    ),
    "lstm_training": ("How the LSTM term classifier is trained", "lstm_training"),
    "lstm_training_detector": (
        "How the LSTM detector is trained",
        "lstm_training",
    ),
    "lstm_training_category_pairs": (
        "How the LSTM pair classifier of categories is trained",
        "lstm_training",
    ),
    "lstm_training_pairs_confirm": (
        "The pair classifier's negated copies, on new seeds",
        "lstm_training",
    ),
    "review_vectors": (
        "Word vectors of the reviews nobody labelled",
        "review_vectors",
    ),
    "baselines_own_vectors": (
        "The baselines' own word vectors: 10 passes or 30",
        "baselines",
    ),
    "own_vectors": (
        "What the LSTM's own word vectors read: the terms",
        "own_vectors",
    ),
    "own_vectors_category_pairs": (
        "What the LSTM's own word vectors read: the pair classifier of categories",
        "own_vectors",
    ),
    "own_vectors_detector": (
        "What the LSTM's own word vectors read: the detector",
        "own_vectors",
    ),
    "word_dropout": (
        "Word dropout: the terms",
        "word_dropout",
    ),
    "word_dropout_category_pairs": (
        "Word dropout: the pair classifier of categories",
        "word_dropout",
    ),
    "word_dropout_detector": (
        "Word dropout: the detector",
        "word_dropout",
    ),
    "word_dropout_category_pairs_confirm": (
        "Word dropout: the pair classifier of categories, on new seeds",
        "word_dropout",
    ),
    "word_dropout_detector_confirm": (
        "Word dropout: the detector, on new seeds",
        "word_dropout",
    ),
    "averaged_lstm": (
        "The LSTM's weights averaged over its last epochs: the terms",
        "averaged_lstm",
    ),
    "averaged_lstm_category_pairs": (
        "The LSTM's weights averaged: the pair classifier of categories",
        "averaged_lstm",
    ),
    "averaged_lstm_detector": (
        "The LSTM's weights averaged: the detector",
        "averaged_lstm",
    ),
    "averaged_lstm_category_pairs_confirm": (
        "The LSTM's weights averaged: the pair classifier, on new seeds",
        "averaged_lstm",
    ),
    "averaged_lstm_detector_confirm": (
        "The LSTM's weights averaged: the detector, on new seeds",
        "averaged_lstm",
    ),
    "second_source": (
        "MAMS as a second labelled source: the pair classifier of categories",
        "second_source",
    ),
    "second_source_terms": (
        "MAMS as a second labelled source: the terms",
        "second_source",
    ),
    "second_source_detector": (
        "MAMS as a second labelled source: the detector",
        "second_source",
    ),
    "second_source_confirm": (
        "MAMS as a second labelled source: the pair classifier, on new seeds",
        "second_source",
    ),
    "second_source_detector_confirm": (
        "MAMS as a second labelled source: the detector, on new seeds",
        "second_source",
    ),
    "speed": ("Speed", "speed"),
    "extraction": ("Aspect term extraction and end to end", "extraction"),
    "extraction_analyze": ("The review report on extracted aspects", "extraction"),
    "joint": ("The joint model: terms and polarities in one pass", "joint"),
    "joint_speed": ("The joint model: speed", "joint"),
    "decoding": ("Reading the tags: greedy, Viterbi or a CRF", "decoding"),
    "weight_average": ("The span taggers' weights averaged", "weight_average"),
    "mention_rule": ("How the detector reads a mention", "mention_rule"),
    "term_grouping": ("Terms grouped into aspects", "term_grouping"),
    "report_grouping": (
        "The laptop report before and after grouping",
        "report_grouping",
    ),
    "term_neighbours": (
        "Terms the model places close together",
        "term_neighbours",
    ),
}


def _parsers():
    from aspectattn.cli import build_parser

    parser = build_parser()
    commands = next(
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    )
    return parser, commands.choices


def cli_text() -> str:
    """The reStructuredText of the reference (help wrapped at 80 columns, as in a
    terminal of that width, whatever the build's terminal)."""
    import os

    os.environ["COLUMNS"] = "80"  # what argparse's formatter wraps at
    parser, commands = _parsers()
    lines = [
        ".. This file is generated at build time by docs/_ext/cli_reference.py.",
        "",
        "Command-line reference",
        "======================",
        "",
        "``aspectattn COMMAND ...`` (or ``python -m aspectattn``). Every flag that "
        "sets a model parameter takes its help, default and choices from the "
        "parameter table (:mod:`aspectattn.params`), the same text as the "
        "estimators' docstrings. Bad input ends with exit status 2 and a one-line "
        "reason.",
        "",
        ".. code-block:: text",
        "",
        *("   " + line for line in parser.format_help().splitlines()),
        "",
    ]
    for name, sub in commands.items():
        title = f"aspectattn {name}"
        lines += [title, "-" * len(title), ""]
        if sub.description:
            lines += [sub.description, ""]
        lines += [
            ".. code-block:: text",
            "",
            *("   " + line for line in sub.format_help().splitlines()),
            "",
        ]
    return "\n".join(lines) + "\n"


def benchmark_page(result: str) -> str:
    """The Markdown (MyST) page of one results table."""
    title, module = RESULTS[result]
    source = (ROOT / "benchmarks" / f"{module}.py").read_text()
    doc = ast.get_docstring(ast.parse(source)) or ""
    depth = "../../"  # docs/benchmarks/<page> -> the repository root
    return "\n".join(
        [
            f"# {title}",
            "",
            f"Made by `benchmarks/{module}.py`; how it runs and what it measures, "
            "from its docstring:",
            "",
            "```text",
            doc,
            "```",
            "",
            f"```{{include}} {depth}benchmarks/results/{result}.md",
            "```",
            "",
        ]
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:  # (unchanged: no rebuild)
        path.write_text(text)


def write_pages(app) -> None:
    src = Path(app.srcdir)
    _write(src / "cli.rst", cli_text())
    for result in RESULTS:
        if (ROOT / "benchmarks" / "results" / f"{result}.md").is_file():
            name = result.rsplit("/", 1)[-1]
            _write(src / "benchmarks" / f"{name}.md", benchmark_page(result))


def setup(app):
    app.connect("builder-inited", write_pages)
    return {"parallel_read_safe": True, "version": "1"}
