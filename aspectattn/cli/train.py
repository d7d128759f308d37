"""``aspectattn train``: train a pair classifier, a category detector or an aspect
term extractor and write it to a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from .. import params as P
from ..params import AUGMENTATIONS
from ._common import (
    ANALYSIS_TEXT_COLUMN,
    COMPONENT_FLAGS,
    CLIError,
    add_data_options,
    add_param,
    check_outputs,
    component_class,
    fit_taught,
    is_pickle_name,
    language_code,
    load_data,
    load_model,
    load_table,
    output_path,
)

#: Position in ``aspectattn --help``.
ORDER = 1
HELP = "train a model and write it to a file"
DESCRIPTION = (
    "Train an aspect-attention model and write a model file "
    "(safe format; .pkl/.pickle/.joblib, any case, for a pickle)."
)


def add_arguments(p) -> None:
    p.add_argument(
        "data", help="data-set name or CSV/JSONL/XML/APC (.dat) file with labels"
    )
    p.add_argument("--out", required=True, help="model file to write, e.g. model.aam")
    _model_options(p)
    _training_options(p)
    _what_to_train(p)
    _distillation_options(p)
    p.add_argument("--history-plot", help="also write a PNG/SVG of the training curves")
    p.add_argument("--quiet", action="store_true", help="no per-epoch progress")
    add_data_options(p, model_options=False)


def _model_options(p) -> None:
    """The model's options: flag, default, type, choices and help from the
    parameter table (:mod:`aspectattn.params`)."""
    for name in ("variant", "encoder", "pretrained_model", "pretrained_input"):
        add_param(p, name)
    add_param(p, "embeddings", type=str)
    add_param(p, "language", type=language_code)
    add_param(p, "unseen_words", choices=["auto", "spelling", "vectors", "none"])
    for name in (
        "embedding_dim",
        "embedding_dropout",
        "word_dropout",
        "hidden_size",
        "n_layers",
        "n_heads",
        "d_model",
        "attention_score",
        "attention_heads",
    ):
        add_param(p, name)
    directions = p.add_mutually_exclusive_group()
    directions.add_argument(
        "--bidirectional",
        action="store_const",
        const=True,
        default="auto",
        help="bidirectional LSTM (default: auto, bidirectional for aspect terms)",
    )
    directions.add_argument(
        "--unidirectional",
        dest="bidirectional",
        action="store_const",
        const=False,
        help="one-direction LSTM, also for aspect terms",
    )
    final = p.add_mutually_exclusive_group()
    final.add_argument(
        "--final-state",
        choices=list(_FINAL_STATES),
        default="auto",
        help=_summary_of("final_state") + " (default: auto, the term for aspect terms)",
    )
    final.add_argument(
        "--no-final-state",
        dest="final_state",
        action="store_const",
        const="none",
        help="the same as --final-state none",
    )
    for name in ("position_weighting", "position_dropout", "term_marker", "term_query"):
        add_param(p, name)


def _training_options(p) -> None:
    """How the model trains: copies, epochs, rates, batches, validation, seed."""
    add_param(
        p,
        "augment",
        choices=["auto", "none", *AUGMENTATIONS],
        help=P.cli_help("augment")
        + " (default: auto, the encoder's copies for its aspects and language, "
        "see the training guide; none: no copies)",
    )
    add_param(p, "copy_weight")
    add_param(p, "max_epochs", flag="--epochs", dest="epochs")
    for name in ("lr", "batch_size", "batch_by", "dropout", "lr_schedule", "precision"):
        add_param(p, name)
    add_param(p, "head_lr", help=_summary_of("head_lr") + " (none: the same as --lr)")
    add_param(
        p,
        "validation_fraction",
        default=0.1,
        help="held-out share of sentences for early stopping (0: none)",
    )
    add_param(p, "random_state", flag="--seed", dest="seed", default=0, type=int)


def _what_to_train(p) -> None:
    """A pair classifier (the default), a detector or an extractor."""
    p.add_argument(
        "--detector",
        action="store_true",
        help="train a category detector (which aspects, and how) on a category "
        "data set or XML file instead of a pair classifier",
    )
    p.add_argument(
        "--extractor",
        action="store_true",
        help="train an aspect term extractor (which words name aspects) on a data "
        "set or XML/APC file with term spans; it reads --encoder (lstm or "
        "pretrained), --pretrained-model, --embeddings, --embedding-dim, "
        "--hidden-size, "
        "--language, --epochs, --lr, --batch-size, --dropout, "
        "--validation-fraction and --seed",
    )
    p.add_argument(
        "--joint",
        action="store_true",
        help="train the joint aspect-sentiment model (the terms and each one's "
        "polarity, from one encoder pass per sentence) on a data set or XML/APC "
        "file with term spans and polarities; it reads the flags --extractor reads",
    )


def _distillation_options(p) -> None:
    """Learning from a teacher's probabilities, and from unlabelled samples."""
    p.add_argument(
        "--teacher",
        metavar="MODEL",
        help="a fitted model of the same kind (.aam: a pair classifier, with "
        "--detector a detector, with --joint a joint model) whose probabilities "
        "the model also learns from (distillation), e.g. one trained with "
        "--encoder pretrained",
    )
    p.add_argument(
        "--unlabelled",
        metavar="FILE",
        help="pairs with no labels (a data-set name or a file, as DATA, or the "
        "sentence table of aspectattn analyze; labels in it are ignored; with "
        "--detector or --joint: sentences, a text file or a table's text column, "
        "the analysis table's too) that the model learns from the teacher alone; "
        "needs --teacher",
    )
    p.add_argument(
        "--trust-pickle",
        action="store_true",
        help="--teacher may be a pickle, which runs code when it is loaded",
    )
    # (the meta-estimator's defaults and checks, DistilledClassifier's)
    p.add_argument(
        "--distill-weight",
        type=float,
        help="share of the teacher's probabilities in the loss of a labelled "
        "pair (default: DistilledClassifier's)",
    )
    p.add_argument(
        "--distill-temperature",
        type=float,
        help="softening of the teacher's and the model's probabilities "
        "(default: DistilledClassifier's)",
    )


#: --final-state choices -> the estimators' ``final_state``.
_FINAL_STATES = {"auto": "auto", "sentence": True, "term": "term", "none": False}


def run(args) -> int:
    if args.extractor or args.joint:
        if args.extractor and args.joint:
            raise CLIError(
                "--extractor trains an extractor, --joint the joint model: not both"
            )
        if args.detector:
            flag = "--joint" if args.joint else "--extractor"
            raise CLIError(f"{flag} trains a model of terms: no --detector")
        if args.extractor and (args.teacher or args.unlabelled):
            raise CLIError(
                "--extractor learns from term spans alone: no --teacher, no "
                "--unlabelled (the joint model, --joint, learns from a teacher)"
            )
        from ._extraction import train_extractor

        if args.unlabelled and not args.teacher:
            raise CLIError("--unlabelled needs --teacher: it finds their terms")
        unlabelled = []
        if args.unlabelled:
            from .predict import _sentences

            unlabelled = _sentences(
                args.unlabelled, args, text_columns=(ANALYSIS_TEXT_COLUMN,)
            )
        return train_extractor(args, unlabelled)
    inputs = [args.data, *(f for f in (args.teacher, args.unlabelled) if f)]
    check_outputs(inputs, [args.out, args.history_plot])
    if args.unlabelled and not args.teacher:
        raise CLIError("--unlabelled needs --teacher: it labels those pairs")
    X, y, n_labelled = _training_data(args)
    clf = _estimator(args)
    teacher = _teacher(args, type(clf))
    if not args.quiet:
        _say_what(args, len(X), len(X) - n_labelled)
    if teacher is None:
        clf.fit(X, y)
    else:  # the student, trained on the teacher's probabilities too
        from ..estimators.distilled import DistilledClassifier

        clf = fit_taught(DistilledClassifier, clf, teacher, args, X, y)
    out = Path(args.out)
    with output_path(out) as tmp:
        if is_pickle_name(out):
            import joblib

            joblib.dump(clf, tmp)
        else:
            clf.save(tmp)
    if args.history_plot:
        from ..viz import plot_history

        plot_history(clf.history_, args.history_plot)
    print(json.dumps(_summary(args, clf, out, len(X))))
    return 0


def _training_data(args) -> tuple:
    """``(X, y, n_labelled)``: the labelled data, then the ``--unlabelled``
    samples marked ``-1`` (the detector's: rows of ``-1`` in every column)."""
    if args.detector:
        X, y = load_table(args.data, args)
        n_labelled = len(X)
        if args.unlabelled:  # sentences; their rows of Y: -1 in every column
            import pandas as pd

            from .predict import _sentences

            # a table's aspect column (analyze's answers) is no label: the
            # teacher labels every category of these sentences
            X_u = _sentences(
                args.unlabelled, args, text_columns=(ANALYSIS_TEXT_COLUMN,)
            )
            unlabelled = pd.DataFrame(-1, index=range(len(X_u)), columns=y.columns)
            X, y = [*X, *X_u], pd.concat([y, unlabelled], ignore_index=True)
        return X, y, n_labelled
    X, y = load_data(args.data, args, need_labels=True)
    n_labelled = len(X)
    if args.unlabelled:
        # (aspectattn analyze's sentence table holds its text in "sentence")
        X_u, _ = load_data(
            args.unlabelled,
            args,
            need_labels=False,
            text_columns=(ANALYSIS_TEXT_COLUMN,),
        )
        X, y = [*X, *X_u], [*list(y), *[-1] * len(X_u)]
    return X, y, n_labelled


def _estimator(args):
    """The estimator the options describe, its components made of theirs."""
    from ..estimators.categories import AspectCategoryClassifier
    from ..estimators.pairs import AspectAttentionClassifier
    from ..training import EarlyStopping

    own = {}
    if not args.detector:
        own = dict(
            variant=args.variant,
            aspect_type=args.aspect_type,
            batch_by=args.batch_by,
            term_marker=args.term_marker,
        )
    estimator = AspectCategoryClassifier if args.detector else AspectAttentionClassifier
    # (the pair classifier keeps the epoch of the best validation accuracy)
    stopping = EarlyStopping(scoring="loss" if args.detector else "accuracy")
    return estimator(
        **own,
        **_components(args),
        language=args.language,
        augment=None if args.augment == "none" else args.augment,
        copy_weight=args.copy_weight,
        max_epochs=args.epochs,
        lr=args.lr,
        precision=args.precision,
        batch_size=args.batch_size,
        dropout=args.dropout,
        validation_fraction=args.validation_fraction or None,
        early_stopping=stopping if args.validation_fraction else False,
        random_state=args.seed,
        verbose=0 if args.quiet else 1,
    )


def _components(args) -> dict:
    """The encoder, the attention and the optimizer of the flags
    (:data:`COMPONENT_FLAGS`): a flag of a parameter the chosen encoder lacks
    must keep its default."""
    from ..attention import AspectAttention
    from ..encoders import ENCODER_CLASSES
    from ..training import Optimizer

    classes = {
        "encoder": ENCODER_CLASSES[args.encoder],
        "attention": AspectAttention,
        "optimizer": Optimizer,
    }
    params = {slot: {} for slot in classes}
    for flag, (slot, name, _) in COMPONENT_FLAGS.items():
        value = _flag_value(args, flag)
        if name in classes[slot]._get_param_names():
            params[slot][name] = value
        elif value != component_class(slot, name)().get_params()[name]:
            raise CLIError(
                f"--{flag.replace('_', '-')} does not apply to --encoder {args.encoder}"
            )
    return {slot: cls(**params[slot]) for slot, cls in classes.items()}


def _flag_value(args, flag: str):
    """The value of a component's flag, as the component takes it."""
    value = getattr(args, flag)
    if flag == "final_state":
        return _FINAL_STATES[value]
    if flag in ("embeddings", "unseen_words") and str(value).lower() == "none":
        return None
    return value


def _summary_of(flag: str) -> str:
    """The one-line help of a component's flag."""
    return COMPONENT_FLAGS[flag][2]


def _teacher(args, estimator: type):
    """The ``--teacher`` model (None without one): an estimator of the kind
    being trained."""
    if not args.teacher:
        return None
    teacher = load_model(args.teacher, args.trust_pickle)
    if not isinstance(teacher, estimator):
        what = "a category detector" if args.detector else "a pair classifier"
        raise CLIError(
            f"--teacher {args.teacher} holds a {type(teacher).__name__}, not {what}"
        )
    return teacher


def _say_what(args, n: int, n_unlabelled: int) -> None:
    """What is trained, on what, to stderr."""
    label = P.ENCODERS[args.encoder].label or args.encoder
    name = f"{args.variant.upper()}-{label}"
    if args.encoder == "pretrained":
        name = f"{args.variant.upper()} over {args.pretrained_model}"
    if args.detector:
        name = f"a category detector (AT-{label})"
    unit = "sentences" if args.detector else "pairs"
    print(f"training {name} on {n} {unit}", file=sys.stderr)
    if args.teacher:
        print(
            f"learning from {args.teacher} on them"
            + (f" ({n_unlabelled} unlabelled)" if args.unlabelled else ""),
            file=sys.stderr,
        )


def _summary(args, clf, out: Path, n: int) -> dict:
    """The line ``train`` prints: the model, its data and what the fit did."""
    return {
        "model": str(out),
        "encoder": args.encoder,
        "variant": "detector" if args.detector else args.variant,
        ("sentences" if args.detector else "pairs"): n,
        "classes": np.asarray(
            clf.classes_[0] if args.detector else clf.classes_
        ).tolist(),
        "settings": clf.resolved_params_,
        "epochs": len(clf.history_),
        "best_epoch": clf.best_epoch_,
        "seconds": round(clf.fit_time_, 2),
    }
