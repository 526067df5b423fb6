"""The weak rule's features on the dev queries, for choosing its rule (a tuning tool).

For each dev query of recall_quality.py's corpora (dev, dev2, conv-dev, conv-dev2; never a
held-out query: this tool does not even load them, nor index a corpus that has no dev
set), the numbers behind `weak`:
the unseen words' share of the query's idf, with and without synonyms counted, whether
an unseen word is a name, and, for each of the first results, the share of the query's
idf its file holds. Written as JSON lines to stdout (or --out), for a grid elsewhere.

Run: python bench/weak_features.py [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import common
import recall_quality as rq

TOP = 5


def features(db: Any, search: Any, analysis: Any, text: str) -> dict[str, Any]:
    q = list(dict.fromkeys(analysis.analyze(text)))
    frame = analysis.frame(text, q)
    idf, unseen = search._idf(db, q)
    topic = [t for t in q if t not in frame]
    cap = max(idf[t] for t in topic) if frame else math.inf
    pieces = [t for t in analysis.analyze(text, parts=True) if t not in idf]
    concepts = search._concepts([*q, *pieces], search._abbreviations(db, q))
    groups = search._rank(db, q, concepts, frame, cap)
    if frame:
        groups = search._decisions_first(db, groups, set(topic))
    of_term = {t: [c for c in concepts if any(t in m.split() for m in c)] for t in topic}
    members = sorted({m for c in concepts for m in c})
    df = search._concept_df(db, [(m,) for m in members if " " not in m])
    tops = []
    for g in groups[:TOP]:
        held = _held_terms(db, search, g, topic, of_term)
        lines, blocks = _passages(db, search, analysis, g, topic, of_term)
        tops.append({"path": g.path[9:-3], "score": g.score, "held": sorted(held),
                     "own": sorted(g.matched() - frame), "lines": lines, "blocks": blocks})
    return {"terms": topic, "idf": {t: idf[t] for t in topic}, "unseen": sorted(unseen - frame),
            "syn_seen": sorted(t for t in unseen - frame
                               if any(df.get((m,), 0) for c in of_term[t] for m in c if " " not in m)),
            "names": search._unknown_names(text, unseen - frame), "tops": tops,
            "n": search._doc_count(db)}


def _held_terms(db: Any, search: Any, g: Any, topic: list[str], of_term: dict[str, list[tuple[str, ...]]]) -> set[str]:
    """The topic terms whose concept (the term, a synonym, an abbreviation's other form) the file holds."""
    ids = [r.id for r in (g.tip, g.best_history) if r is not None]
    terms: set[str] = set()
    zdict = search.dictionary(db)
    for (data,) in db.execute(f"SELECT data FROM docs WHERE id IN ({','.join('?' * len(ids))})", ids):
        terms.update(" ".join(search.unpack(zdict, data)[:4]).split())
    return {t for t in topic if t in terms or any(set(m.split()) <= terms for c in of_term[t] for m in c)}


def _passages(db: Any, search: Any, analysis: Any, g: Any, topic: list[str],
              of_term: dict[str, list[tuple[str, ...]]]) -> tuple[list[list[str]], list[list[str]]]:
    """The topic terms each line, and each block (a heading with the lines up to the next
    heading or blank line), of the file's tip text holds, concept-aware; empty ones left out."""
    row = g.tip or g.best_history
    if row is None:
        return [], []
    (data,) = db.execute("SELECT data FROM docs WHERE id = ?", (row.id,)).fetchone()
    text = search.unpack(search.dictionary(db), data)[4]

    def held(chunk: str) -> list[str]:
        terms = set(analysis.analyze(chunk, parts=True))
        return sorted(t for t in topic if t in terms or any(set(m.split()) <= terms for c in of_term[t] for m in c))

    lines = [h for _, line in search.lines_of(text) if (h := held(line))]
    blocks, current = [], []
    for raw in text.splitlines():
        if raw.startswith("#") or not raw.strip() or raw.strip() == "---":
            if current:
                blocks.append(" ".join(current))
            current = [raw] if raw.startswith("#") else []
        else:
            current.append(raw)
    if current:
        blocks.append(" ".join(current))
    return lines, [h for b in blocks if (h := held(b))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="write the JSON lines here")
    args = ap.parse_args()
    sys.path.insert(0, str(rq.REPO_ROOT))
    work = common.make_workdir("weak-features")
    common.hermetic(work)
    os.environ["PYTHONPATH"] = str(rq.REPO_ROOT)
    from enf_git.plumbing import search, stem as analysis

    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        for corpus in rq.CORPORA:
            sessions = rq.load_sessions(corpus)
            queries = [q for q in rq.load_queries(set(sessions), corpus) if not rq.held_out(q)]
            if not queries:  # a held-out corpus (conversations2): not even its index is built
                continue
            repo = rq.build_fixture(work, sessions, corpus)
            common.run_enf(repo, "recall", "anything")  # builds the index
            db = search.connect(Path(repo) / ".git" / "enf" / "search.db")
            for q in queries:
                row = {"corpus": corpus, "id": q.id, "set": q.set, "kind": q.kind, "text": q.text,
                       "relevant": [s for s in q.relevant], **features(db, search, analysis, q.text)}
                out.write(json.dumps(row) + "\n")
    finally:
        common.cleanup(work)
        if out is not sys.stdout:
            out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
