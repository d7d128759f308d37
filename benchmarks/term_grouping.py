"""How the review report groups extracted terms into aspects, measured on the
gold opinion targets of SemEval-2015 restaurants (train and test), whose every
target carries its category (ENTITY#ATTRIBUTE): how many distinct aspects the
grouping leaves, and how pure they are -- the share of a group's mentions whose
entity is the group's most common one (a group that joins ``service`` and
``servings`` would lower it).

    ASPECTATTN_DATA=../shared/data python -m benchmarks.term_grouping

Rows: the terms as written; lower-cased (the tokenizer's folding); and the
report's grouping (:func:`aspectattn.extraction.aspects.aspect_key`: lower case,
spaces collapsed, the English plural). Also listed: the groups the plural rule
made (terms it joined), and keys that still differ only by a final ``s`` or
``es`` -- merges the rule left undone or rightly refused.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

from aspectattn.datasets import get_data_home
from aspectattn.extraction.aspects import aspect_key
from benchmarks.common import RESULTS

FILES = (
    "semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml",
    "semeval2015_restaurants/ABSA15_Restaurants_Test.xml",
)
OUT = RESULTS / "term_grouping"


def mentions() -> list[tuple[str, str]]:
    """(target as written, entity) of every opinion with a target."""
    out = []
    for name in FILES:
        root = ET.parse(get_data_home() / name).getroot()
        for opinion in root.iter("Opinion"):
            target = opinion.get("target")
            if target and target != "NULL":
                out.append((target, opinion.get("category").split("#")[0]))
    return out


def measure(found: list[tuple[str, str]], key) -> dict:
    groups: dict[str, Counter] = defaultdict(Counter)
    for term, entity in found:
        groups[key(term)][entity] += 1
    majority = sum(c.most_common(1)[0][1] for c in groups.values())
    return {
        "groups": len(groups),
        "purity": 100 * majority / len(found),
        "singletons": sum(sum(c.values()) == 1 for c in groups.values()),
    }


def main() -> None:
    found = mentions()
    rows = {
        "as written": measure(found, lambda t: t),
        "lower-cased": measure(found, lambda t: aspect_key(t, None)),
        "the report's (case, spaces, English plural)": measure(
            found, lambda t: aspect_key(t, "en")
        ),
    }
    lower = {aspect_key(t, None) for t, _ in found}
    joined: dict[str, set] = defaultdict(set)
    for term in lower:
        joined[aspect_key(term, "en")].add(term)
    plural_merges = sorted((k, sorted(v)) for k, v in joined.items() if len(v) > 1)
    keys = set(joined)
    apart = sorted((k, k + end) for k in keys for end in ("s", "es") if k + end in keys)
    results = {
        "mentions": len(found),
        "rows": rows,
        "plural_merges": plural_merges,
        "still_apart": apart,
    }
    lines = [
        f"Gold opinion targets of SemEval-2015 restaurants, train and test: "
        f"{len(found)} mentions. Purity: the share of mentions whose entity "
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
    ]
    OUT.with_suffix(".json").write_text(json.dumps(results, indent=1))
    OUT.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
