"""Candidate weak rules on the dev queries, from weak_features.py's JSON lines (a tuning tool).

Each family adds one signal to the rule search.is_weak applies (unseen share + APART_WEIGHT x
the share of words other records hold but the first result lacks), and is searched over its
constants and the threshold. Printed: the best settings that keep the answerable questions
flagged at <= 5 % on both corpora's pooled dev sets (decision records: dev + dev2;
conversations: conv-dev + conv-dev2), ranked by the lower of the two none-flagged rates.
In-sample figures: a family that wins by a question or two has found noise, not a rule.

Families (weak_features.py's numbers; the share is of the query's idf):
  base       unseen + a x apart, today's rule
  block      + b x (held by the first result but outside its best block): proximity, a
             question memory cannot answer finding its words in different places of one file
  line       + b x (held by the first result but outside its best line)
  top3       the words no top-3 result holds counted apart instead of the first result's
  gap        and the first result's score under g times the second's (a clear winner is
             found by something specific to it)

Run: python bench/weak_features.py --out F && python bench/weak_rules.py F
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

Features = dict[str, float]
Rule = Callable[[Features], bool]
GOAL_ANSWERABLE = 0.05
THRESHOLDS = [x / 100 for x in range(40, 100)]
WEIGHTS = (0.0, 0.3, 0.5, 0.65, 0.8, 1.0)


def shares(row: dict[str, Any]) -> Features:
    """The query's numbers: unseen, apart (from the first result), apart from the top 3,
    held by the first result, by its best block and by its best line, the score ratio."""
    idf, terms, unseen = row["idf"], row["terms"], set(row["unseen"])
    total = sum(idf[t] for t in terms) or 1.0
    tops = row["tops"]
    first = set(tops[0]["held"]) if tops else set()
    top3 = set().union(*(set(t["held"]) for t in tops[:3])) if tops else set()

    def share(ts: Iterable[str]) -> float:
        return sum(idf[t] for t in ts) / total

    def best(passages: list[list[str]]) -> float:
        return max((share(p) for p in passages), default=0.0)

    scores = [t["score"] for t in tops]
    return {"unseen": share(unseen), "apart": share(t for t in terms if t not in unseen | first),
            "apart3": share(t for t in terms if t not in unseen | top3), "held": share(first),
            "block": best(tops[0]["blocks"]) if tops else 0.0, "line": best(tops[0]["lines"]) if tops else 0.0,
            "gap": scores[0] / scores[1] if len(scores) > 1 and scores[1] > 0 else 99.0,
            "matched": float(bool(tops)), "names": float(bool(row["names"]))}


def families() -> dict[str, Iterable[tuple[tuple[float, ...], Callable[[Features, float], bool]]]]:
    def base(a: float) -> Callable[[Features, float], bool]:
        return lambda f, t: f["unseen"] + a * f["apart"] > t

    def spread(key: str, a: float, b: float) -> Callable[[Features, float], bool]:
        return lambda f, t: f["unseen"] + a * f["apart"] + b * (f["held"] - f[key]) > t

    def top3(a: float) -> Callable[[Features, float], bool]:
        return lambda f, t: f["unseen"] + a * f["apart3"] > t

    def gap(a: float, g: float) -> Callable[[Features, float], bool]:
        return lambda f, t: f["unseen"] + a * f["apart"] > t and f["gap"] < g

    return {
        "base": (((a,), base(a)) for a in WEIGHTS),
        "block": (((a, b), spread("block", a, b)) for a, b in itertools.product(WEIGHTS, WEIGHTS[1:])),
        "line": (((a, b), spread("line", a, b)) for a, b in itertools.product(WEIGHTS, WEIGHTS[1:])),
        "top3": (((a,), top3(a)) for a in (*WEIGHTS, 1.5)),
        "gap": (((a, g), gap(a, g)) for a, g in itertools.product(WEIGHTS, (1.25, 1.5, 2.0, 3.0))),
    }


def rates(rows: list[dict[str, Any]], rule: Rule) -> tuple[float, float]:
    none = [r for r in rows if r["kind"] == "none"]
    answerable = [r for r in rows if r["kind"] != "none"]
    return (sum(rule(r["f"]) for r in none) / len(none), sum(rule(r["f"]) for r in answerable) / len(answerable))


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: weak_rules.py FEATURES.jsonl (bench/weak_features.py --out)", file=sys.stderr)
        return 1
    rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    for r in rows:
        r["f"] = shares(r)
    corpora = {c: [r for r in rows if r["corpus"] == c] for c in sorted({r["corpus"] for r in rows})}
    print(f"dev queries: " + ", ".join(f"{c} {sum(r['kind'] == 'none' for r in rs)} none + "
                                       f"{sum(r['kind'] != 'none' for r in rs)} answerable" for c, rs in corpora.items()))
    for name, candidates in families().items():
        found = []
        for params, test in candidates:
            for t in THRESHOLDS:
                def rule(f: Features, test: Callable[[Features, float], bool] = test, t: float = t) -> bool:
                    return not f["matched"] or (bool(f["names"]) and f["unseen"] > 0.3) or test(f, t)
                got = {c: rates(rs, rule) for c, rs in corpora.items()}
                if all(a <= GOAL_ANSWERABLE + 1e-9 for _, a in got.values()):
                    found.append((min(n for n, _ in got.values()), params, t, got))
        found.sort(key=lambda x: x[0], reverse=True)
        for worst, params, t, got in found[:2]:
            figures = "; ".join(f"{c} none {n:.1%} answerable {a:.1%}" for c, (n, a) in got.items())
            print(f"{name:<6} {params} threshold {t:.2f}: {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
