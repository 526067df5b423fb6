"""Recall quality: `git enf recall --json` vs a plain BM25 baseline on a labelled set.

The set (bench/recall/): ~120 session files paraphrased from public Architecture
Decision Records (SOURCES.md), superseded ADRs turned into `## Reversals`, a few
noise sessions, and labelled queries (queries.yaml) of four kinds:

  lexical     words taken from the answer's text
  paraphrase  a realistic question sharing few key words with the answer
  reversal    "why did we move away from X": the superseded AND the superseding session are relevant
  none        the answer is not in memory; a good recall says its hits are weak

The fixture is a hermetic temp repository: `git enf init --no-hooks`, the session files
copied into `.claude-sessions/sessions/`, one `git enf commit`. Every query then runs
`git-enf recall --json -n 10 <words>` (the console script next to sys.executable, with
the enf_git beside this script first on PYTHONPATH). Hits map to session stems (a
session/history/decision hit by its `path`, an index/topics hit by its `ref`), deduped
by first occurrence. The JSON may be a bare list of hits or an envelope object with
`results` and a top-level `weak` flag (absent = not flagged).

The baseline, computed in the same run: Okapi BM25 (k1=1.2, b=0.75, idf
log(1 + (N - n + 0.5) / (n + 0.5))) over the whole text of each session file, with
enf's tokenizer (lowercase `[\\w][\\w.'-]*` without a trailing "." "-" or "'"), unique query
terms, no stemming, no stopwords; it never flags anything weak.

Figures, over the answerable queries (lexical + paraphrase + reversal):
  MRR       mean of 1/rank of the first relevant session (0 if none in the top 10)
  recall@5  mean fraction of the relevant sessions in the top 5; a reversal query
            scores 1 only if both of its sessions are there, else 0
and the fraction of none-queries flagged weak, and of answerable ones (wrongly) flagged;
each also for the dev queries and for the held-out blocks (ids `hold*`) on their own.
Goal: MRR >= BM25 + 0.03, recall@5 >= 0.97, >= 80 % of none-queries flagged weak,
<= 5 % of answerable ones flagged. The weak rule's sensitivity: the flag rates it would
have at other values of its two constants (search.WEAK_SHARE, search.NAME_SHARE), from
the `strength` counts each answer reports.

Run: python bench/recall_quality.py [--verbose] [--json] [--keep]
Exit 0 whatever the figures (a benchmark, not a test); 1 only on an error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common

SET_DIR = common.BENCH_DIR / "recall"
REPO_ROOT = common.BENCH_DIR.parent
KINDS = ("lexical", "paraphrase", "reversal", "none")
ANSWERABLE = ("lexical", "paraphrase", "reversal")
WORD = re.compile(r"[\w][\w.'\u2019-]*", re.UNICODE)  # enf_git/plumbing/stem.py `_WORD` (+ its rstrip)
STEM = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}-[a-z0-9-]+$")
K1, B = 1.2, 0.75
TOP = 10
GOAL_MRR_MARGIN, GOAL_RECALL, GOAL_NONE_FLAGGED, GOAL_ANSWERABLE_FLAGGED = 0.03, 0.97, 0.80, 0.05


class SetError(Exception):
    """The evaluation set is malformed."""


@dataclass(frozen=True)
class Query:
    id: str
    kind: str
    text: str
    relevant: tuple[str, ...]


@dataclass
class Answer:
    stems: list[str]  # deduped, best first
    weak: bool
    strength: dict[str, Any] = field(default_factory=dict)  # enf's counts behind `weak`


@dataclass
class Scored:
    query: Query
    answer: Answer
    rr: float = 0.0
    recall5: float = 0.0
    ranks: dict[str, int | None] = field(default_factory=dict)


# --- the set ----------------------------------------------------------------------

def load_sessions() -> dict[str, str]:
    files = sorted((SET_DIR / "sessions").glob("*.md"))
    if not files:
        raise SetError(f"no session files in {SET_DIR / 'sessions'}")
    return {p.stem: p.read_text(encoding="utf-8") for p in files}


def load_queries(stems: set[str]) -> list[Query]:
    import yaml

    data = yaml.safe_load((SET_DIR / "queries.yaml").read_text(encoding="utf-8"))
    out = []
    for raw in data.get("queries", []):
        q = Query(str(raw["id"]), str(raw["kind"]), str(raw["text"]), tuple(raw.get("relevant") or ()))
        if q.kind not in KINDS:
            raise SetError(f"query {q.id}: unknown kind {q.kind!r} (one of {', '.join(KINDS)})")
        if (q.kind == "none") != (not q.relevant):
            raise SetError(f"query {q.id}: a {q.kind} query {'must not' if q.kind == 'none' else 'must'} list relevant sessions")
        missing = [s for s in q.relevant if s not in stems]
        if missing:
            raise SetError(f"query {q.id}: relevant sessions not in the set: {', '.join(missing)}")
        out.append(q)
    return out


# --- the systems ------------------------------------------------------------------

def build_fixture(work: Path, sessions: dict[str, str]) -> Path:
    repo = common.init_user_repo(work / "repo")
    common.run_enf(repo, "init", "--no-hooks")
    target = repo / ".claude-sessions" / "sessions"
    target.mkdir(parents=True, exist_ok=True)
    for src in sorted((SET_DIR / "sessions").glob("*.md")):
        shutil.copyfile(src, target / src.name)
    common.run_enf(repo, "commit", "-m", f"recall_quality: {len(sessions)} sessions")
    return repo


def enf_answer(repo: Path, text: str) -> Answer:
    words = text.split()
    argv = [common.GIT_ENF, "recall", "--json", "-n", str(TOP)]
    argv += ["--", *words] if any(w.startswith("-") for w in words) else words
    out = subprocess.run(argv, cwd=repo, capture_output=True, check=False, env=os.environ.copy())
    if out.returncode != 0:
        raise RuntimeError(f"git-enf recall {text!r} failed ({out.returncode}): {out.stderr.decode(errors='replace')}")
    data: Any = json.loads(out.stdout.decode("utf-8") or "[]")
    hits = data.get("results", []) if isinstance(data, dict) else data
    weak = bool(data.get("weak", False)) if isinstance(data, dict) else False
    strength = data.get("strength") or {} if isinstance(data, dict) else {}
    return Answer(dedupe(hit_stem(h) for h in hits), weak, strength)


def hit_stem(hit: dict[str, Any]) -> str | None:
    """The session a hit points at: `path` for session/history/decision hits, `ref` for views."""
    path = str(hit.get("path") or "")
    if path.startswith("sessions/") and path.endswith(".md"):
        return path[len("sessions/"):-3]
    ref = str(hit.get("ref") or "")
    return ref if STEM.match(ref) else None


def dedupe(stems: Iterable[str | None]) -> list[str]:
    seen: list[str] = []
    for s in stems:
        if s is not None and s not in seen:
            seen.append(s)
    return seen


class BM25:
    def __init__(self, docs: dict[str, str]) -> None:
        self.tf = {stem: Counter(terms(text)) for stem, text in docs.items()}
        self.len = {stem: sum(c.values()) for stem, c in self.tf.items()}
        self.avg = sum(self.len.values()) / len(self.len)
        df: Counter[str] = Counter()
        for c in self.tf.values():
            df.update(c.keys())
        n = len(self.tf)
        self.idf = {t: math.log(1 + (n - k + 0.5) / (k + 0.5)) for t, k in df.items()}

    def answer(self, text: str) -> Answer:
        words = set(terms(text))
        scores = {stem: self.score(stem, words) for stem in self.tf}
        ranked = sorted((s for s in scores if scores[s] > 0), key=lambda s: (-scores[s], s))
        return Answer(ranked[:TOP], weak=False)

    def score(self, stem: str, words: set[str]) -> float:
        tf, norm = self.tf[stem], K1 * (1 - B + B * self.len[stem] / self.avg)
        return sum(self.idf[w] * tf[w] * (K1 + 1) / (tf[w] + norm) for w in words if w in tf)


def terms(text: str) -> list[str]:
    return [w for w in (t.replace("\u2019", "'").rstrip(".-'").lower() for t in WORD.findall(text)) if w]


# --- scoring ----------------------------------------------------------------------

def score(q: Query, a: Answer) -> Scored:
    ranks = {s: (a.stems.index(s) + 1 if s in a.stems else None) for s in q.relevant}
    found = [r for r in ranks.values() if r is not None]
    rr = 1 / min(found) if found else 0.0
    in5 = sum(1 for r in found if r <= 5)
    if q.kind == "reversal":
        recall5 = 1.0 if q.relevant and in5 == len(q.relevant) else 0.0
    else:
        recall5 = in5 / len(q.relevant) if q.relevant else 0.0
    return Scored(q, a, rr, recall5, ranks)


def figures(rows: list[Scored]) -> dict[str, Any]:
    """MRR, recall@5 and weak-flag rates, overall and per kind."""
    def agg(sel: list[Scored]) -> dict[str, Any]:
        ans = [r for r in sel if r.query.kind != "none"]
        none = [r for r in sel if r.query.kind == "none"]
        return {
            "queries": len(sel),
            "answerable": len(ans),
            "none": len(none),
            "mrr": mean(r.rr for r in ans) if ans else None,
            "recall_at_5": mean(r.recall5 for r in ans) if ans else None,
            "none_flagged": mean(float(r.answer.weak) for r in none) if none else None,
            "answerable_flagged": mean(float(r.answer.weak) for r in ans) if ans else None,
        }

    out = {"all": agg(rows)}
    for kind in KINDS:
        out[kind] = agg([r for r in rows if r.query.kind == kind])
    out["dev"] = agg([r for r in rows if not held_out(r.query)])
    out["held-out"] = agg([r for r in rows if held_out(r.query)])
    return out


def held_out(q: Query) -> bool:
    """A query of the held-out blocks (queries.yaml): written before the ranker saw them.

    Rules are derived on the others (dev) and checked on these, so both are reported.
    """
    return q.id.startswith("hold")


def mean(xs: Iterable[float]) -> float:
    values = list(xs)
    return sum(values) / len(values)


def goals(enf: dict[str, Any], bm25: dict[str, Any]) -> dict[str, dict[str, Any]]:
    a, b = enf["all"], bm25["all"]
    return {
        "mrr": {"goal": f">= BM25 + {GOAL_MRR_MARGIN}", "value": a["mrr"], "target": b["mrr"] + GOAL_MRR_MARGIN,
                "pass": a["mrr"] >= b["mrr"] + GOAL_MRR_MARGIN},
        "recall_at_5": {"goal": f">= {GOAL_RECALL}", "value": a["recall_at_5"], "target": GOAL_RECALL,
                        "pass": a["recall_at_5"] >= GOAL_RECALL},
        "none_flagged": {"goal": f">= {GOAL_NONE_FLAGGED:.0%}", "value": a["none_flagged"], "target": GOAL_NONE_FLAGGED,
                         "pass": a["none_flagged"] >= GOAL_NONE_FLAGGED},
        "answerable_flagged": {"goal": f"<= {GOAL_ANSWERABLE_FLAGGED:.0%}", "value": a["answerable_flagged"],
                               "target": GOAL_ANSWERABLE_FLAGGED, "pass": a["answerable_flagged"] <= GOAL_ANSWERABLE_FLAGGED},
    }


SHARES = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65)
NAME_SHARES = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


def sensitivity(rows: list[Scored]) -> list[dict[str, Any]]:
    """Flag rates of the weak rule at other values of its two constants, one varied at a
    time (empty when the answers carry no counts)."""
    if not all(r.answer.strength for r in rows):
        return []
    from enf_git.plumbing import search

    def rates(share: float, name_share: float) -> dict[str, Any]:
        def flagged(r: Scored) -> float:
            st = r.answer.strength
            return float(search.is_weak(st["matched"], st["unknown_share"], bool(st.get("unknown_names")),
                                        share, name_share))
        current = abs(share - search.WEAK_SHARE) < 1e-9 and abs(name_share - search.NAME_SHARE) < 1e-9
        return {"share": round(share, 3), "name_share": round(name_share, 3), "current": current,
                "none_flagged": mean(flagged(r) for r in rows if r.query.kind == "none"),
                "answerable_flagged": mean(flagged(r) for r in rows if r.query.kind != "none")}

    return ([rates(share, search.NAME_SHARE) for share in SHARES]
            + [rates(search.WEAK_SHARE, name) for name in NAME_SHARES if abs(name - search.NAME_SHARE) > 1e-9])


# --- output -----------------------------------------------------------------------

def print_table(results: dict[str, dict[str, Any]]) -> None:
    print(f"{'system':<6} {'kind':<11} {'n':>5} {'MRR':>6} {'R@5':>6} {'none flagged':>13} {'answerable flagged':>19}")
    for system, figs in results.items():
        for kind in ("all", *KINDS, "dev", "held-out"):
            f = figs[kind]
            weak_none = "n/a" if system == "bm25" else pct(f["none_flagged"])
            weak_ans = "n/a" if system == "bm25" else pct(f["answerable_flagged"])
            n = f"{f['answerable']}+{f['none']}" if kind in ("all", "dev", "held-out") else str(f["queries"])
            print(f"{system:<6} {kind:<11} {n:>5} {num(f['mrr']):>6} {num(f['recall_at_5']):>6} "
                  f"{weak_none:>13} {weak_ans:>19}")


def num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def print_failures(system: str, rows: list[Scored]) -> None:
    bad = [r for r in rows if (r.query.kind != "none" and (r.rr < 1 or r.recall5 < 1))
           or (r.query.kind == "none" and system == "enf" and not r.answer.weak)]
    print(f"\n-- {system}: {len(bad)} failing queries")
    for r in bad:
        q = r.query
        ranks = ", ".join(f"{s[11:]}@{r.ranks[s] or '-'}" for s in q.relevant) or "weak not flagged"
        top = ", ".join(s[11:] for s in r.answer.stems[:3]) or "(no hits)"
        print(f"  {q.id:<8} {q.text!r}\n           relevant: {ranks}\n           top 3: {top}")


def print_sensitivity(table: list[dict[str, Any]]) -> None:
    if not table:
        return
    print("\nweak rule sensitivity (unseen words' share of the query's idf above which it is weak, without and "
          "with an unseen name; * = search.WEAK_SHARE, search.NAME_SHARE):")
    for row in table:
        mark = "*" if row["current"] else " "
        print(f"  {mark} share {row['share']:.3f} / name {row['name_share']:.3f}: none flagged "
              f"{pct(row['none_flagged']):>5}, answerable flagged {pct(row['answerable_flagged']):>5}")


def print_goals(checks: dict[str, dict[str, Any]]) -> None:
    parts = [f"{name} {c['goal']} ({num(c['target'])}): {num(c['value'])} {'PASS' if c['pass'] else 'FAIL'}"
             for name, c in checks.items()]
    print("\nGOALS enf recall: " + "; ".join(parts))


# --- main -------------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    sessions = load_sessions()
    queries = load_queries(set(sessions))
    # Measure the enf_git beside this script, whatever is installed in the venv (and
    # byte-compile that one: hermetic() runs precompile on the enf_git it imports).
    sys.path.insert(0, str(REPO_ROOT))
    work = common.make_workdir("recall-quality")
    common.hermetic(work)
    os.environ["PYTHONPATH"] = str(REPO_ROOT)
    try:
        repo = build_fixture(work, sessions)
        bm25 = BM25(sessions)
        rows = {"enf": [score(q, enf_answer(repo, q.text)) for q in queries],
                "bm25": [score(q, bm25.answer(q.text)) for q in queries]}
    finally:
        common.cleanup(work, args.keep)
    results = {name: figures(r) for name, r in rows.items()}
    checks = goals(results["enf"], results["bm25"])
    table = sensitivity(rows["enf"])
    if args.json:
        counts = Counter(q.kind for q in queries)
        print(json.dumps({"sessions": len(sessions), "queries": dict(counts), "systems": results, "goals": checks,
                          "weak_sensitivity": table}, indent=2))
        return 0
    counts_text = ", ".join(f"{n} {k}" for k, n in Counter(q.kind for q in queries).items())
    print(f"== recall_quality: {len(sessions)} sessions, {len(queries)} queries ({counts_text})")
    print_table(results)
    if args.verbose:
        for name, r in rows.items():
            print_failures(name, r)
    print_sensitivity(table)
    print_goals(checks)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verbose", "-v", action="store_true", help="list the failing queries of each system")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the fixture in bench/.work/")
    args = ap.parse_args()
    try:
        return run(args)
    except (SetError, RuntimeError, OSError, KeyError, ValueError) as exc:
        print(f"recall_quality: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
