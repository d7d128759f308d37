"""The aspect term extractor on the command line: ``train --extractor``, and what
``evaluate`` and ``predict`` do with an extractor's model file."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from ._common import (
    APC_SUFFIXES,
    CLIError,
    check_outputs,
    fit_taught,
    is_extractor,
    is_pipeline,
    output_path,
    print_report,
)

#: ``train`` flags the extractor reads (flag's ``dest`` -> its parameter), besides
#: its encoder's (:func:`_encoder`); the other model flags are the classifiers'.
EXTRACTOR_FLAGS = {
    "language": "language",
    "epochs": "max_epochs",
    "lr": "lr",
    "batch_size": "batch_size",
    "dropout": "dropout",
    "validation_fraction": "validation_fraction",
    "seed": "random_state",
}


def load_spans(source: str, args):
    """``(texts, y)``, every sentence with its terms as spans, from a data-set
    name of :data:`~aspectattn.datasets.spans.SPAN_DATASETS` or a SemEval/MAMS
    XML or APC file."""
    from ..datasets.spans import SPAN_DATASETS, fetch_term_spans, read_term_spans

    if source in SPAN_DATASETS:
        try:
            return fetch_term_spans(source, args.split)
        except ValueError as exc:  # a split the data set does not have
            raise CLIError(str(exc)) from None
    path = Path(source)
    if not path.is_file():
        raise CLIError(
            f"{source!r} is neither a data set with term spans nor a file "
            f"(data sets: {', '.join(SPAN_DATASETS)})"
        )
    if path.suffix.lower() not in (".xml", *APC_SUFFIXES):
        raise CLIError(
            f"{path} is not a file of sentences with their terms' spans: an "
            "extractor reads a SemEval/MAMS .xml file, a three-line APC file "
            f"({', '.join(APC_SUFFIXES)}) or a data set ({', '.join(SPAN_DATASETS)})"
        )
    try:
        return read_term_spans(path)
    except ET.ParseError as exc:
        raise CLIError(f"{path} is not well-formed XML ({exc})") from None


def train_extractor(args, unlabelled: list[str] = ()) -> int:
    """``train --extractor`` (an extractor) or ``train --joint`` (the joint
    aspect-sentiment model), on the same flags; ``unlabelled``: the sentences
    of ``--unlabelled``."""
    from ..extraction import AspectSentimentExtractor, AspectTermExtractor
    from ..persistence import save

    inputs = [args.data, *(f for f in (args.teacher, args.unlabelled) if f)]
    check_outputs(inputs, [args.out, args.history_plot])
    if not args.validation_fraction:
        raise CLIError(
            "an extractor keeps the epoch of the best F1 on held-out sentences: "
            "--validation-fraction must be above 0 (default 0.1)"
        )
    texts, y = load_spans(args.data, args)
    settings = {param: getattr(args, flag) for flag, param in EXTRACTOR_FLAGS.items()}
    settings["encoder"] = _encoder(args)
    kind = AspectSentimentExtractor if args.joint else AspectTermExtractor
    extractor = kind(**settings, verbose=0 if args.quiet else 1)
    teacher, n_labelled = None, len(texts)
    if args.teacher:  # (--joint: train.run refuses it with --extractor)
        teacher, texts, y = _teacher(args, texts, y, unlabelled)
    if not args.quiet:
        what = "a joint aspect-sentiment model" if args.joint else "an extractor"
        print(f"training {what} on {len(texts)} sentences", file=sys.stderr)
        if teacher is not None:
            print(
                f"learning from {args.teacher} on them "
                f"({len(texts) - n_labelled} unlabelled)",
                file=sys.stderr,
            )
    if teacher is None:
        extractor.fit(texts, y)
    else:  # the student, trained on the teacher's answers too
        from ..extraction import DistilledExtractor

        extractor = fit_taught(DistilledExtractor, extractor, teacher, args, texts, y)
    with output_path(Path(args.out)) as tmp:
        save(extractor, tmp)
    if args.history_plot:
        from ..viz import plot_history

        plot_history(extractor.history_, args.history_plot)
    print(
        json.dumps(
            {
                "model": str(args.out),
                "extractor": not args.joint,
                "joint": bool(args.joint),
                "sentences": len(texts),
                "terms": sum(len(t) for t in y if t is not None),
                "language": extractor.language_,
                "epochs": len(extractor.history_),
                "best_epoch": extractor.best_epoch_,
            }
        )
    )
    return 0


def _teacher(args, texts, y, unlabelled) -> tuple:
    """``(teacher, texts, y)``: the ``--teacher`` joint model, and the
    ``unlabelled`` sentences (those not among ``texts``) after the labelled
    ones, marked None."""
    from ..extraction import AspectSentimentExtractor
    from ._common import load_model

    teacher = load_model(args.teacher, args.trust_pickle)
    if not isinstance(teacher, AspectSentimentExtractor):
        raise CLIError(
            f"--teacher {args.teacher} holds a {type(teacher).__name__}, not a "
            "joint model (train it with --joint)"
        )
    known = set(texts)
    extra = [t for t in unlabelled if t not in known]
    return teacher, [*texts, *extra], [*y, *[None] * len(extra)]


def _encoder(args):
    """The extractor's encoder of ``--encoder`` and its flags: ``--pretrained-model``
    for a checkpoint; ``--embeddings``, ``--embedding-dim`` and ``--hidden-size``
    for the LSTM."""
    from ..encoders import LSTMEncoder, PretrainedEncoder

    if args.encoder == "pretrained":
        if not args.pretrained_model:
            raise CLIError("--encoder pretrained needs --pretrained-model")
        return PretrainedEncoder(args.pretrained_model)
    if args.encoder != "lstm":
        raise CLIError(
            f"--extractor takes --encoder lstm or pretrained, not {args.encoder}"
        )
    embeddings = args.embeddings
    return LSTMEncoder(
        embeddings=None if embeddings.lower() == "none" else embeddings,
        embedding_dim=args.embedding_dim,
        hidden_size=args.hidden_size,
    )


def evaluate_extractor(extractor, args) -> int:
    """Exact-span precision, recall and F1 on a data set's terms."""
    from ..extraction import span_scores

    texts, y = load_spans(args.data, args)
    report = {"sentences": len(texts)}
    report |= span_scores(y, extractor.predict(texts))
    print_report(report, args.json)
    return 0


def pipeline_of(classifier, args):
    """The extractor of ``--extractor`` and the pair classifier of ``--model``,
    end to end (or the pipeline ``--model`` holds, without ``--extractor``)."""
    from ..extraction import AspectSentimentPipeline
    from ._common import is_detector, load_model

    if is_pipeline(classifier):
        if args.extractor:
            raise CLIError(
                f"{args.model} holds a whole pipeline (an extractor and a "
                "classifier): drop --extractor"
            )
        return classifier
    extractor = load_model(args.extractor, args.trust_pickle)
    if not is_extractor(extractor):
        raise CLIError(
            f"--extractor {args.extractor} holds a {type(extractor).__name__}, not an "
            "aspect term extractor (aspectattn train ... --extractor)"
        )
    if is_detector(classifier) or getattr(classifier, "aspect_type_", None) != "term":
        raise CLIError(
            f"--model {args.model} must be a pair classifier of aspect terms to "
            "classify what the extractor finds"
        )
    return AspectSentimentPipeline.from_fitted(extractor, classifier)


def evaluate_pipeline(classifier, args) -> int:
    """End-to-end precision, recall and F1 (span and polarity) of the extractor
    and the classifier; gold ``conflict`` terms, which no classifier predicts,
    count neither as gold nor, when found, as errors; and the extraction's."""
    from ..extraction.metrics import span_scores, without_conflict

    pipeline = pipeline_of(classifier, args)
    texts, y = load_spans(args.data, args)
    found = pipeline.predict(texts)
    gold, found = without_conflict(y, found)
    report = {"sentences": len(texts)}
    report |= {f"e2e_{k}": v for k, v in span_scores(gold, found, True).items()}
    extraction = span_scores(gold, [[t["span"] for t in terms] for terms in found])
    report["extraction_f1"] = extraction["f1"]
    print_report(report, args.json)
    return 0


def extraction_rows(model, texts: list[str]) -> list[dict]:
    """One row per term found (its sentence, character span, term and score;
    with a pipeline, its polarity and the polarity's probability too); a
    sentence without any gives one row with empty term fields."""
    pipeline = is_pipeline(model)
    found = model.predict(texts) if pipeline else model.predict_spans(texts)
    keys = ["start", "end", "term", "score"]
    keys += ["polarity", "probability"] if pipeline else []
    rows = []
    for text, terms in zip(texts, found, strict=True):
        if not terms:
            rows.append({"text": text, **dict.fromkeys(keys, "")})
        for term in terms:
            start, end = term["span"]
            row = {"text": text, "start": start, "end": end, "term": term["term"]}
            row["score"] = round(term["score"], 6)
            if pipeline:
                row["polarity"] = str(term["polarity"])
                row["probability"] = round(term["probability"], 6)
            rows.append(row)
    return rows
