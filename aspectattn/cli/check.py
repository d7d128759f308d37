"""``aspectattn check``: the behavioural suite (sentences whose aspects disagree;
MFT, INV and DIR tests per domain), and with ``--probes DATA`` the ARTS-style
robustness probes made from a data set of aspect terms; for a category detector,
the suite's detection tests."""

from __future__ import annotations

import json

from ._common import (
    CLIError,
    add_data_options,
    is_detector,
    load_data,
    load_model,
    pair_model,
)

#: Position in ``aspectattn --help``.
ORDER = 7
HELP = "aspect-level behaviour: the contrast suite and robustness probes"


def add_arguments(p) -> None:
    from ..evaluation.lexicon import DOMAINS

    p.add_argument("model", help="model file (.aam): pair classifier or detector")
    p.add_argument(
        "--domains",
        help=f"comma-separated suite domains (default: all of {', '.join(DOMAINS)})",
    )
    p.add_argument(
        "--probes",
        metavar="DATA",
        help="also score ARTS-style probes made from DATA (a data-set name or file "
        "of aspect terms with their spans, e.g. semeval2014-restaurants-term)",
    )
    p.add_argument("--seed", type=int, default=0, help="the suite's seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_data_options(p, "test")


def run(args) -> int:
    from ..evaluation import aspect_robustness_score, format_behaviour, score_behaviour

    clf = pair_model(
        load_model(args.model, args.trust_pickle, args.quantize), args.model, "check"
    )
    domains = None
    if args.domains:
        domains = [d.strip() for d in args.domains.split(",") if d.strip()]
    if is_detector(clf):
        return _check_detector(clf, domains, args)
    try:
        result = {
            "suite": score_behaviour(clf, domains=domains, random_state=args.seed)
        }
    except ValueError as exc:  # unknown domains, classes the suite cannot name
        raise CLIError(str(exc)) from None
    if args.probes:
        if clf.aspect_type_ != "term":
            raise CLIError("--probes needs a model of aspect terms")
        X, y = load_data(args.probes, args, need_labels=True, aspect_type="term")
        result["probes"] = aspect_robustness_score(clf, X, y, random_state=args.seed)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(format_behaviour(result["suite"]))
    if args.probes:
        p = result["probes"]
        variants = "   ".join(
            f"{name} {100 * p[name]:.1f}% ({p['n_' + name]})"
            for name in ("RevTgt", "RevNon", "AddDiff")
            if name in p
        )
        print(
            f"\nprobes of {args.probes}: accuracy {100 * p['accuracy']:.1f}% of "
            f"{p['n']}   {variants}   ARS {100 * p['ARS']:.1f}% of {p['n_items']}"
        )
    return 0


def _check_detector(detector, domains, args) -> int:
    from ..evaluation import score_detection

    if args.probes:
        raise CLIError("--probes needs a pair classifier of aspect terms")
    try:
        result = score_detection(detector, domains=domains, random_state=args.seed)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if args.json:
        print(json.dumps({"detection": result}, indent=1))
        return 0

    def share(value):
        return "" if value is None else f"{100 * value:.1f}"

    print(f"{'test':<28}{'domain':>13}{'found':>9}{'polarity':>10}{'no other':>10}")
    for row in result["tests"]:
        print(
            f"{row['test']:<28}{row['domain']:>13}{share(row['found']):>9}"
            f"{share(row['polarity']):>10}{share(row['no_false_mentions']):>10}"
        )
    print(
        f"categories found {share(result['found'])}%, with their polarity "
        f"{share(result['polarity'])}%, sentences with no other category "
        f"{share(result['no_false_mentions'])}% of {result['n']}"
    )
    return 0
