"""The ``aspectattn`` command line: one module per command.

Run ``aspectattn --help`` or ``aspectattn COMMAND --help``. Every command exits with
status 0 on success and 2 with a one-line reason on bad input.

A command is a module of this package (its name is the command's) with ``ORDER``
(its place in ``--help``), ``HELP`` (one line), optionally ``DESCRIPTION``,
``add_arguments(parser)`` and ``run(args) -> int``; :func:`build_parser` finds it.
Adding a command is adding its module. Modules import their heavy dependencies
(torch, pandas) inside ``run``, so ``--help`` starts fast.
"""

from __future__ import annotations

import argparse
import pkgutil
import re
import sys
from importlib import import_module

from .._output import exit_on_sigterm
from ..exceptions import AspectAttnError
from ._common import CLIError, Progress, check_encoding, first_line
from .train import _FINAL_STATES

__all__ = ["main", "build_parser", "commands", "CLIError", "Progress", "_FINAL_STATES"]

DESCRIPTION = """\
Aspect-level sentiment: is the opinion on an aspect of a sentence positive, negative
or neutral?

examples:
  aspectattn train semeval2014-restaurants-category --out model.aam
  aspectattn train reviews.csv --variant at --epochs 20 --out model.aam
  aspectattn evaluate model.aam semeval2014-restaurants-category --split test
  aspectattn predict model.aam reviews.csv --out predictions.csv
  aspectattn predict model.aam sentences.txt --aspects food,service,price
  aspectattn explain model.aam reviews.csv --out attention.html
  aspectattn export model.aam served/   # ONNX, served by aspectattn.serving (no torch)

Data: a data-set name (below) or a file: CSV or JSONL with columns text, aspect and
label (label only needed to train/evaluate), or a SemEval/MAMS XML file. For
'predict --aspects', a plain text file with one sentence per line also works.

data sets: """


def _description() -> str:
    from ..datasets import DATASETS

    return DESCRIPTION + ", ".join(DATASETS)


def commands() -> list:
    """The command modules, in ``--help`` order."""
    modules = [
        import_module(f"{__name__}.{info.name}")
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    ]
    return sorted(modules, key=lambda m: m.ORDER)


class _DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Each flag's default after its help, unless the help says it already
    (``(default: row number)`` is not followed by ``(default: None)``)."""

    def _get_help_string(self, action):
        if "(default:" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aspectattn",
        description=_description(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in commands():
        p = sub.add_parser(
            module.__name__.rsplit(".", 1)[1],
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", None),
            formatter_class=_DefaultsFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(func=module.run)
    return parser


_PARAMETER_RE = re.compile(r"The '(\w+)' parameter of (\w+)(?: \((\w+) of \w+\))?")
#: Parameters whose flag has another name (the meta-estimator's: by its class).
_FLAGS = {
    "max_epochs": "epochs",
    "random_state": "seed",
    "DistilledClassifier.weight": "distill_weight",
    "DistilledClassifier.temperature": "distill_temperature",
    "DistilledExtractor.weight": "distill_weight",
    "DistilledExtractor.temperature": "distill_temperature",
}


def _in_flag_words(message: str) -> str:
    """'The 'hidden_size' parameter of X ...' -> '--hidden-size ...'; a
    component's parameter ('The 'path' parameter of PretrainedEncoder (encoder of
    X)') as the flag that sets it ('--pretrained-model')."""
    from ._common import COMPONENT_FLAGS

    by_slot = {(slot, own): flag for flag, (slot, own, _) in COMPONENT_FLAGS.items()}

    def flag(match) -> str:
        name, owner, slot = match.groups()
        if slot is not None:
            name = by_slot.get((slot, name), name)
        else:
            name = _FLAGS.get(f"{owner}.{name}", _FLAGS.get(name, name))
        return "--" + name.replace("_", "-")

    return _PARAMETER_RE.sub(flag, message)


def main(argv=None) -> int:
    exit_on_sigterm()  # a killed run cleans up its temporary files
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "encoding", None) is not None:
            check_encoding(args.encoding)
        return args.func(args)
    except (CLIError, AspectAttnError, ValueError, OSError) as exc:
        if isinstance(exc, BrokenPipeError):
            return _quiet_broken_pipe()
        message = first_line(exc)
        print(
            f"aspectattn {args.command}: error: {_in_flag_words(message)}",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(f"aspectattn {args.command}: interrupted", file=sys.stderr)
        return 130


def _quiet_broken_pipe() -> int:
    """The reader went away (``| head``): stop quietly, as Unix tools do."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
