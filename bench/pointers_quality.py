"""Brain-first pointer quality on recall's labelled set (bench/recall/), vs baselines of the same run.

The pointers (enf_git/plumbing/pointers.py) are what UserPromptSubmit injects: at most 3,
only for strong matches. A pointer policy is judged on the labelled queries as if each
were a prompt:

  answerable  shown: a pointer was shown at all; hit: a relevant session among them;
              precision: relevant pointers / pointers shown
  none        false alarm: any pointer shown for a question memory cannot answer

Baselines, same fixture, same run:
  recall-top3  `git enf recall --json` top 3 unless it flags the answer weak (recall's
               ranking through sqlite, no pointer thresholds)
  bm25-top3    plain BM25's top 3, always shown (bench/recall_quality.py's baseline)

Each for all queries and per set of recall_quality.py's ADR corpus: dev, dev2 (the old
held-out blocks, now a second dev set) and held-out (held_out.yaml). With --sweep, the
pointer thresholds (COVERAGE, RELATIVE, SEEN_ONLY) are varied and each setting's figures
printed on the dev sets only: how the defaults were chosen. A tuning table never shows
the held-out set, and --verbose lists no held-out miss.

Run: .venv/bin/python bench/pointers_quality.py [--sweep] [--verbose]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import common

common.use_checkout()
import recall_quality as rq  # noqa: E402 - after use_checkout: it imports enf_git

from enf_git import memory  # noqa: E402
from enf_git.memory.context import indexer  # noqa: E402
from enf_git.plumbing import pointers  # noqa: E402

Policy = dict[str, list[str]]  # query id -> stems shown


def stem_of(path: str) -> str | None:
    return path[len("sessions/"):-3] if path.startswith("sessions/") and path.endswith(".md") else None


def pointer_policy(index: pointers.Index, queries: list[rq.Query]) -> Policy:
    out: Policy = {}
    for q in queries:
        shown = pointers.query(index, q.text)
        out[q.id] = rq.dedupe(stem_of(p.path) for p in shown)
    return out


def figures(queries: list[rq.Query], policy: Policy) -> dict[str, float]:
    ans = [q for q in queries if q.kind != "none"]
    none = [q for q in queries if q.kind == "none"]
    shown = [q for q in ans if policy[q.id]]
    hit = [q for q in ans if set(policy[q.id]) & set(q.relevant)]
    pointed = sum(len(policy[q.id]) for q in ans)
    relevant = sum(len(set(policy[q.id]) & set(q.relevant)) for q in ans)
    return {
        "shown": len(shown) / max(1, len(ans)),
        "hit": len(hit) / max(1, len(ans)),
        "precision": relevant / pointed if pointed else 0.0,
        "false_alarm": sum(1 for q in none if policy[q.id]) / max(1, len(none)),
    }


def split(queries: list[rq.Query]) -> dict[str, list[rq.Query]]:
    return {"all": queries, **{name: [q for q in queries if q.set == name] for name in rq.SETS["adr"]}}


def report(name: str, queries: list[rq.Query], policy: Policy) -> None:
    parts = []
    for label, qs in split(queries).items():
        f = figures(qs, policy)
        parts.append(f"{label}: hit {f['hit']:.3f} shown {f['shown']:.3f} precision {f['precision']:.3f} "
                     f"false-alarm {f['false_alarm']:.3f}")
    print(f"{name:<14} " + " | ".join(parts))


def sweep(index: pointers.Index, queries: list[rq.Query]) -> None:
    saved = {k: getattr(pointers, k) for k in ("COVERAGE", "RELATIVE", "SEEN_ONLY")}
    dev = [q for q in queries if q.set == "dev"]
    dev2 = [q for q in queries if q.set == "dev2"]
    print("\nsweep (dev | dev2; never the held-out set): COVERAGE RELATIVE SEEN_ONLY -> hit precision false-alarm")
    for cov, rel, so in itertools.product((0.2, 0.3, 0.4, 0.5), (0.5, 0.7, 0.85), (True, False)):
        pointers.COVERAGE, pointers.RELATIVE, pointers.SEEN_ONLY = cov, rel, so
        pol = pointer_policy(index, [*dev, *dev2])
        d, h = figures(dev, pol), figures(dev2, pol)
        print(f"  {cov:.2f} {rel:.2f} {so!s:<5} -> dev {d['hit']:.3f} {d['precision']:.3f} {d['false_alarm']:.3f}"
              f" | dev2 {h['hit']:.3f} {h['precision']:.3f} {h['false_alarm']:.3f}")
    for k, v in saved.items():
        setattr(pointers, k, v)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweep", action="store_true", help="vary the thresholds and print each setting's figures")
    ap.add_argument("--verbose", action="store_true", help="print each answerable query the pointers miss")
    ap.add_argument("--keep", action="store_true", help="keep the fixture folder")
    args = ap.parse_args()
    work = common.make_workdir("pointers")
    common.hermetic(work)
    common.use_checkout()
    try:
        sessions = rq.load_sessions()
        queries = rq.load_queries(set(sessions))
        repo = rq.build_fixture(work, sessions)
        ctx = memory.Context.open(repo)
        indexer.refresh_pointers(ctx.repo, ctx.cache())
        index = pointers.load(str(indexer.pointers_path(ctx.repo)))
        if index is None:
            raise RuntimeError("the pointers file was not written")
        print(f"pointers_quality: {len(sessions)} sessions, {len(queries)} queries "
              f"({sum(1 for q in queries if q.kind == 'none')} none), thresholds COVERAGE={pointers.COVERAGE} "
              f"RELATIVE={pointers.RELATIVE} SEEN_ONLY={pointers.SEEN_ONLY}")
        mine = pointer_policy(index, queries)
        recall = {}
        for q in queries:
            a = rq.enf_answer(repo, q.text)
            recall[q.id] = [] if a.weak else a.stems[:3]
        bm25 = rq.BM25(sessions)
        plain = {q.id: bm25.answer(q.text).stems[:3] for q in queries}
        report("pointers", queries, mine)
        report("recall-top3", queries, recall)
        report("bm25-top3", queries, plain)
        if args.verbose:
            for q in queries:
                if rq.held_out(q):
                    continue  # a held-out miss seen is a held-out query spent
                if q.kind != "none" and not set(mine[q.id]) & set(q.relevant):
                    print(f"  miss {q.id} [{q.kind}] {q.text!r}: shown {mine[q.id]} want {list(q.relevant)}")
                if q.kind == "none" and mine[q.id]:
                    print(f"  false alarm {q.id} {q.text!r}: {mine[q.id]}")
        if args.sweep:
            sweep(index, queries)
    finally:
        common.cleanup(work, args.keep)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
