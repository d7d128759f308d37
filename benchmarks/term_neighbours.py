"""Do the terms a model places close together read as one aspect? The laptop
gold terms (SemEval-2014, train and test) as the joint model (the LSTM
defaults, seed 0, fitted on the laptop training sentences:
:mod:`benchmarks.report_grouping`'s model) reads them.

    ASPECTATTN_DATA=../shared/data python -m benchmarks term_neighbours [--model M]

Each aspect (the report's key, spellings joined:
:func:`aspectattn.extraction.aspects.variant_key`) with at least
:data:`MIN_MENTIONS` mentions gets two vectors: **in context**, the mean over
its mentions of the encoder's states over the term's tokens (the query of the
polarity head: what the model knows of the term in its sentence), and
**static**, the mean of its words' vectors (the model's word embeddings). The
table lists the closest pairs of aspects by cosine, and where pairs a person
would join (``os`` and ``operating system``...) or keep apart (``screen`` and
``keyboard``) rank among all pairs: grouping by closeness joins every pair
ranked above a pair it joins.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from aspectattn.datasets import fetch_term_spans
from aspectattn.extraction.aspects import aspect_key, variant_key
from benchmarks.report_grouping import MODEL_OPTION, model
from benchmarks.runner import Measurement

MIN_MENTIONS = 3
TOP = 20
#: Pairs of keys (variant keys) a person would join, then pairs they would not.
JOIN = (("os", "operatingsystem"), ("battery", "batterylife"), ("screen", "display"))
APART = (("screen", "keyboard"), ("os", "osx"), ("price", "performance"))


def term_vectors(fitted, pairs) -> tuple[np.ndarray, np.ndarray]:
    """(n_pairs, D) in context and (n_pairs, E) static vectors of the
    ``(text, term, (start, end))`` ``pairs``."""
    import torch

    from aspectattn.extraction.inputs import padded_batch
    from aspectattn.extraction.joint import _JointProba
    from aspectattn.extraction.reading import given_terms_proba
    from aspectattn.nn.ops import span_mean

    reader = _JointProba(fitted.module_, torch.device("cpu"))

    def in_context(encoded, index, terms):
        with torch.inference_mode():
            states = reader._states(reader._inputs(*padded_batch(encoded, index)))
            t = torch.from_numpy(terms)
            span = t[:, 1:].clone()
            span[:, 1] += 1  # [first, last] -> [start, end)
            return span_mean(states, span, t[:, 0]).double().numpy()  # (P, D)

    size = fitted.module_.polarity.W_p.weight.shape[0]
    contextual = given_terms_proba(pairs, fitted.inputs_, size, in_context)
    table = fitted.module_.embedding.weight.detach().double().numpy()  # (V, E)
    ids = fitted.inputs_.encode([term for _, term, _ in pairs]).ids  # (CSR)
    sums = np.zeros((len(ids), table.shape[1]))  # (n_pairs, E)
    np.add.at(sums, ids.token_rows, table[ids.ids])
    static = sums / np.maximum(ids.lengths, 1)[:, None]  # (a term of no word: 0)
    return contextual, static


def ranked(vectors: np.ndarray, keys: list[str], kept: list[str]) -> dict:
    """Cosine of every pair of ``kept`` aspects (each the mean of its mentions'
    ``vectors``): the closest pairs, and the rank of :data:`JOIN`'s and
    :data:`APART`'s."""
    rows = {k: [] for k in kept}
    for i, key in enumerate(keys):
        if key in rows:
            rows[key].append(i)
    mean = np.stack([vectors[rows[k]].mean(0) for k in kept])
    mean /= np.linalg.norm(mean, axis=1, keepdims=True) + 1e-12
    sim = mean @ mean.T
    upper = np.triu_indices(len(kept), 1)
    order = np.argsort(-sim[upper], kind="stable")
    pairs = [(upper[0][o], upper[1][o]) for o in order]
    where = {(kept[i], kept[j]): r for r, (i, j) in enumerate(pairs, 1)}
    where |= {(b, a): r for (a, b), r in where.items()}

    def named(a, b):
        i, j = kept.index(a), kept.index(b)
        return {"pair": [a, b], "cosine": float(sim[i, j]), "rank": where[a, b]}

    return {
        "pairs": len(pairs),
        "closest": [
            {"pair": [kept[i], kept[j]], "cosine": float(sim[i, j])}
            for i, j in pairs[:TOP]
        ],
        "join": [named(a, b) for a, b in JOIN if a in kept and b in kept],
        "apart": [named(a, b) for a, b in APART if a in kept and b in kept],
    }


def measure(args) -> dict:
    fitted = model(args.model)
    pairs = []
    for part in ("train", "test"):
        texts, y = fetch_term_spans("semeval2014-laptops", part)
        for text, spans in zip(texts, y, strict=True):
            pairs += [(text, text[a:b], (a, b)) for a, b, *_ in spans]
    keys = [variant_key(aspect_key(term, "en"), "en") for _, term, _ in pairs]
    count = Counter(keys)
    kept = sorted(k for k, n in count.items() if n >= MIN_MENTIONS)
    names = {}
    for (_, term, _), key in zip(pairs, keys, strict=True):
        names.setdefault(key, aspect_key(term, "en"))
    contextual, static = term_vectors(fitted, pairs)
    return {
        "mentions": len(pairs),
        "aspects": len(kept),
        "names": {k: names[k] for k in kept},
        "in context": ranked(contextual, keys, kept),
        "static": ranked(static, keys, kept),
    }


def markdown(results: dict) -> str:
    names = results["names"]

    def pair(p):
        return f"{names[p[0]]} ~ {names[p[1]]}"

    lines = [
        f"The {results['mentions']:,} laptop gold term mentions, "
        f"{results['aspects']} aspects with at least {MIN_MENTIONS} mentions, "
        f"{results['in context']['pairs']:,} pairs of them.",
        "",
        "| rank | in context | cosine | static | cosine |",
        "|---|---|---|---|---|",
    ]
    for r, (a, b) in enumerate(
        zip(
            results["in context"]["closest"], results["static"]["closest"], strict=True
        ),
        1,
    ):
        lines.append(
            f"| {r} | {pair(a['pair'])} | {a['cosine']:.3f} | "
            f"{pair(b['pair'])} | {b['cosine']:.3f} |"
        )
    lines += ["", "| pair | a person would | in context: rank (cosine) | static |"]
    lines.append("|---|---|---|---|")
    for kind, said in (("join", "join"), ("apart", "keep apart")):
        for a, b in zip(
            results["in context"][kind], results["static"][kind], strict=True
        ):
            lines.append(
                f"| {pair(a['pair'])} | {said} | {a['rank']:,} ({a['cosine']:.3f})"
                f" | {b['rank']:,} ({b['cosine']:.3f}) |"
            )
    return "\n".join(lines) + "\n"


MEASUREMENT = Measurement(
    "term_neighbours",
    measure,
    markdown,
    options=(MODEL_OPTION,),
)

if __name__ == "__main__":
    MEASUREMENT.main(__doc__.splitlines()[0])
