"""How the review report groups extracted terms into aspects, measured on the
gold opinion targets of SemEval-2015 restaurants (train and test), whose every
target carries its category (ENTITY#ATTRIBUTE): how many distinct aspects the
grouping leaves, and how pure they are -- the share of a group's mentions whose
entity is the group's most common one (a group that joins ``service`` and
``servings`` would lower it).

    ASPECTATTN_DATA=../shared/data python -m benchmarks term_grouping

Rows: the terms as written; lower-cased (the tokenizer's folding); each
sentence's key (:func:`aspectattn.extraction.aspects.aspect_key`: lower case,
spaces collapsed, the English plural, names kept); and the report's aspects
(:func:`~aspectattn.extraction.aspects.group_aspects` over all the keys:
spellings that differ in spaces and punctuation, a name with its singular).
Also listed: the groups the plural rule made (terms it joined), keys that
still differ only by a final ``s`` or ``es`` (merges the rule left undone or
rightly refused), the aspects that
``group_aspects`` joins on both data sets, and the terms of SemEval-2014
laptops (no categories there) that the rule keeps as names.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

from aspectattn.datasets import get_data_home
from aspectattn.extraction.aspects import aspect_key, group_aspects, opens_sentence
from benchmarks.runner import Measurement

FILES = (
    "semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml",
    "semeval2015_restaurants/ABSA15_Restaurants_Test.xml",
)


def mentions() -> list[tuple[str, bool, str]]:
    """(target as written, whether its sentence opens with it, entity) of every
    opinion with a target."""
    out = []
    for name in FILES:
        root = ET.parse(get_data_home() / name).getroot()
        for sentence in root.iter("sentence"):
            text = sentence.findtext("text") or ""
            for opinion in sentence.iter("Opinion"):
                target = opinion.get("target")
                if target and target != "NULL":
                    opens = opens_sentence(text, int(opinion.get("from")))
                    entity = opinion.get("category").split("#")[0]
                    out.append((target, opens, entity))
    return out


def grouping(found: list[tuple[str, bool, str]], key) -> dict:
    groups: dict[str, Counter] = defaultdict(Counter)
    for term, opens, entity in found:
        groups[key(term, opens)][entity] += 1
    majority = sum(c.most_common(1)[0][1] for c in groups.values())
    return {
        "groups": len(groups),
        "purity": 100 * majority / len(found),
        "singletons": sum(sum(c.values()) == 1 for c in groups.values()),
    }


def report_aspects(keys: list[str]) -> tuple[dict, list]:
    """(key -> the report's aspect, the aspects of more than one key) of the
    keys of every mention (its counts, as a summary holds them)."""
    groups = group_aspects(Counter(keys))
    joined = [(name, members) for name, members in groups.items() if len(members) > 1]
    return {k: name for name, members in groups.items() for k in members}, joined


def laptop_terms() -> list[tuple[str, bool]]:
    """(term as written, whether its sentence opens with it) of every gold term
    of SemEval-2014 laptops, train and test."""
    from aspectattn.datasets import fetch_term_spans

    out = []
    for split in ("train", "test"):
        texts, spans = fetch_term_spans("semeval2014-laptops", split)
        for text, terms in zip(texts, spans, strict=True):
            out += [(text[a:b], opens_sentence(text, a)) for a, b, *_ in terms]
    return out


def measure(args) -> dict:
    """The groupings' figures, and what the rules joined."""
    found = mentions()
    aspect_of, restaurant_joins = report_aspects(
        [aspect_key(t, "en", opens) for t, opens, _ in found]
    )
    rows = {
        "as written": grouping(found, lambda t, _: t),
        "lower-cased": grouping(found, lambda t, _: aspect_key(t, None)),
        "the report's (case, spaces, English plural)": grouping(
            found, lambda t, opens: aspect_key(t, "en", opens)
        ),
        "the report's aspects (and spellings: group_aspects)": grouping(
            found, lambda t, opens: aspect_of[aspect_key(t, "en", opens)]
        ),
    }
    joined: dict[str, set] = defaultdict(set)
    for term, opens, _ in found:
        joined[aspect_key(term, "en", opens)].add(aspect_key(term, None))
    plural_merges = sorted((k, sorted(v)) for k, v in joined.items() if len(v) > 1)
    keys = set(joined)
    apart = sorted((k, k + end) for k in keys for end in ("s", "es") if k + end in keys)
    names: Counter = Counter()
    laptops = laptop_terms()
    for term, opens in laptops:
        if aspect_key(term, "en", opens) != aspect_key(term.lower(), "en"):
            names[term] += 1
    laptop_keys = [aspect_key(term, "en", opens) for term, opens in laptops]
    _, laptop_joins = report_aspects(laptop_keys)
    return {
        "mentions": len(found),
        "laptop_names": dict(names.most_common()),
        "rows": rows,
        "plural_merges": plural_merges,
        "still_apart": apart,
        "restaurant_aspects_joined": restaurant_joins,
        "laptop_keys": len(set(laptop_keys)),
        "laptop_aspects_joined": laptop_joins,
    }


def markdown(results: dict) -> str:
    """The table and the lists, from the record."""
    rows = results["rows"]
    plural_merges, apart = results["plural_merges"], results["still_apart"]
    restaurant_joins = results["restaurant_aspects_joined"]
    laptop_joins = results["laptop_aspects_joined"]
    names = Counter(results["laptop_names"])
    lines = [
        f"Gold opinion targets of SemEval-2015 restaurants, train and test: "
        f"{results['mentions']} mentions. Purity: the share of mentions whose entity "
        "(FOOD, SERVICE, ...) is their group's most common one.",
        "",
        "| grouping | aspects | singletons | purity % |",
        "|---|---|---|---|",
    ]
    for name, row in rows.items():
        lines.append(
            f"| {name} | {row['groups']} | {row['singletons']} | {row['purity']:.1f} |"
        )
    lines += [
        "",
        f"The plural rule joined {len(plural_merges)} groups: "
        + "; ".join(f"{k} ← {', '.join(v)}" for k, v in plural_merges[:40])
        + (" …" if len(plural_merges) > 40 else "")
        + ".",
        "",
        f"Keys still apart that differ by a final s/es ({len(apart)}): "
        + "; ".join(f"{a} / {b}" for a, b in apart)
        + ".",
        "",
        f"The report's aspects joined on restaurants ({len(restaurant_joins)}): "
        + "; ".join(f"{k} ← {', '.join(v)}" for k, v in restaurant_joins)
        + ".",
        "",
        f"On the gold terms of SemEval-2014 laptops, train and test "
        f"({results['laptop_keys']} keys), the report's aspects join "
        f"{len(laptop_joins)}: "
        + "; ".join(f"{k} ← {', '.join(v)}" for k, v in laptop_joins)
        + ".",
        "",
        f"SemEval-2014 laptops, train and test: {sum(names.values())} term "
        f"mentions kept as names ({len(names)} forms): "
        + "; ".join(f"{t} ({n})" for t, n in names.most_common(30))
        + ".",
    ]
    return "\n".join(lines)


MEASUREMENT = Measurement("term_grouping", measure, markdown)

if __name__ == "__main__":
    MEASUREMENT.main(__doc__.splitlines()[0])
