"""Recall quality: `git enf recall --json` vs a plain BM25 baseline on labelled sets.

Two corpora, each its own fixture:

  adr            bench/recall/: ~140 session files paraphrased from public Architecture
                 Decision Records (SOURCES.md), superseded ADRs turned into `## Reversals`,
                 a few noise sessions. Its queries come in three sets:
                   dev       queries.yaml, ids without a `dev2-` prefix: the rules were chosen on them
                   dev2      queries.yaml, ids `dev2-*`: written as held-out blocks, but ranker changes
                             later named their misses as a reason, so they are a second dev set
                   held-out  held_out.yaml: written and committed before any measurement of them and
                             before the ranker changes that followed; the goals are judged on it alone
  conversations  bench/recall/conversations/: session files written like long chat-derived notes
                 (people, events, plans), with their own queries, so that the weak flag is
                 checked on notes that are not decision records; two dev sets:
                   conv-dev   cd-*: the rules were chosen on them
                   conv-dev2  ch-*: written as this corpus's held-out set, but measured many times
                              while the weak flag failed on it, so it is a second dev set now
  conversations2 bench/recall/conversations2/: another person's year of chat-derived notes
                 (its README says how and when it was written), one set:
                   conv-dev3  cx-*: written as the conversational held-out set, committed before
                              any recall run on it; the weak rule's signal of meaning (what a
                              question asks for, and whether the notes give it) was chosen on its
                              misses, so it is a third conversational dev set now
  conversations3 bench/recall/conversations3/: a third person's year of chat-derived notes
                 (its README says how and when it was written), one set:
                   conv-held-out  cz-*: written and committed before any recall run on it and
                              while the signal of meaning was chosen on the dev sets, by someone
                              who never saw that work; the conversational goals are judged on it
                              alone, and no tuning table or list of misses shows it

Query kinds:

  lexical       words taken from the answer's text
  paraphrase    a realistic question sharing few key words with the answer
  reversal      "why did we move away from X": the superseded AND the superseding session are relevant
  status        "do we still use X?", "why did we drop X?": the first relevant session holds X's
                decision (any next one its replacement); `stands` says whether it still stands
  abbreviation  one spelling in the query (ES), the other in the answer (Elasticsearch), the pair
                defined somewhere in the sessions ("Elasticsearch (ES)")
  none          the answer is not in memory; a good recall says its hits are weak

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

Figures, over the answerable queries (every kind but none):
  MRR       mean of 1/rank of the first relevant session (0 if none in the top 10)
  recall@5  mean fraction of the relevant sessions in the top 5; a reversal query, and a
            status query with a replacement, scores 1 only if all its sessions are there, else 0
  status    of the status queries, the share whose first relevant session is in the top 5 as a
            decision hit with the right status (standing or superseded)
and the fraction of none-queries flagged weak, and of answerable ones (wrongly) flagged;
each per kind and per set. Goals, on the held-out set alone: MRR >= BM25 + 0.03,
recall@5 >= 0.97, >= 80 % of none-queries flagged weak, <= 5 % of answerable ones flagged;
the conversational goals (>= 80 % of none-queries flagged and <= 5 % of answerable ones) on
conversations3's held-out set alone. The weak
rule's sensitivity: the flag rates it would have at other values of its constants (search.WEAK_SHARE,
search.NAME_SHARE, search.APART_WEIGHT, search.LEAD), from the `strength` counts each answer reports, on the dev
sets only (a tuning table must not show held-out figures).

Run: python bench/recall_quality.py [--corpus adr|conversations|conversations2|conversations3|all] [--verbose] [--json] [--keep]
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
CORPORA = {"adr": SET_DIR, "conversations": SET_DIR / "conversations", "conversations2": SET_DIR / "conversations2",
           "conversations3": SET_DIR / "conversations3"}
REPO_ROOT = common.BENCH_DIR.parent
KINDS = ("lexical", "paraphrase", "reversal", "status", "abbreviation", "none")
ANSWERABLE = ("lexical", "paraphrase", "reversal", "status", "abbreviation")
SETS = {"adr": ("dev", "dev2", "held-out"), "conversations": ("conv-dev", "conv-dev2"),
        "conversations2": ("conv-dev3",), "conversations3": ("conv-held-out",)}
DEV_SETS = ("dev", "dev2", "conv-dev", "conv-dev2", "conv-dev3")  # what a tuning table, or a list of misses, may show
GOAL_SET = {"adr": "held-out", "conversations3": "conv-held-out"}  # the set each corpus's goals are judged on
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
    set: str = "dev"
    stands: bool | None = None  # status queries: does the first relevant session's decision stand?


@dataclass
class Answer:
    stems: list[str]  # deduped, best first
    weak: bool
    strength: dict[str, Any] = field(default_factory=dict)  # enf's counts behind `weak`
    status: dict[str, str | None] = field(default_factory=dict)  # stem -> its first hit's decision status


@dataclass
class Scored:
    query: Query
    answer: Answer
    rr: float = 0.0
    recall5: float = 0.0
    ranks: dict[str, int | None] = field(default_factory=dict)


# --- the set ----------------------------------------------------------------------

def load_sessions(corpus: str = "adr") -> dict[str, str]:
    files = sorted((CORPORA[corpus] / "sessions").glob("*.md"))
    if not files:
        raise SetError(f"no session files in {CORPORA[corpus] / 'sessions'}")
    return {p.stem: p.read_text(encoding="utf-8") for p in files}


def load_queries(stems: set[str], corpus: str = "adr") -> list[Query]:
    """The corpus's labelled queries, each tagged with its set (see the module docstring)."""
    if corpus == "adr":
        return (read_queries(SET_DIR / "queries.yaml", stems, lambda q: "dev2" if q.startswith("dev2-") else "dev")
                + read_queries(SET_DIR / "held_out.yaml", stems, lambda q: "held-out"))
    if corpus == "conversations":
        return read_queries(CORPORA[corpus] / "queries.yaml", stems, lambda q: "conv-dev" if q.startswith("cd-") else "conv-dev2")
    if corpus == "conversations2":
        return read_queries(CORPORA[corpus] / "queries.yaml", stems, lambda q: "conv-dev3")
    return read_queries(CORPORA[corpus] / "queries.yaml", stems, lambda q: "conv-held-out")


def read_queries(path: Path, stems: set[str], set_of: Any) -> list[Query]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for raw in data.get("queries", []):
        stands = raw.get("stands")
        q = Query(str(raw["id"]), str(raw["kind"]), str(raw["text"]), tuple(raw.get("relevant") or ()),
                  set_of(str(raw["id"])), None if stands is None else bool(stands))
        if (q.kind == "status") != (q.stands is not None):
            raise SetError(f"query {q.id}: a status query, and only one, says whether its decision `stands`")
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

def build_fixture(work: Path, sessions: dict[str, str], corpus: str = "adr") -> Path:
    repo = common.init_user_repo(work / f"repo-{corpus}")
    common.run_enf(repo, "init", "--no-hooks")
    target = repo / ".claude-sessions" / "sessions"
    target.mkdir(parents=True, exist_ok=True)
    for src in sorted((CORPORA[corpus] / "sessions").glob("*.md")):
        shutil.copyfile(src, target / src.name)
    common.run_enf(repo, "commit", "-m", f"recall_quality: {len(sessions)} sessions")
    if ANSWER_CHECK[0]:  # the opt-in signal of meaning (search.ANSWER_CHECK), measured on request
        common.git(repo, "config", "enf.answerCheck", "true")
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
    status: dict[str, str | None] = {}
    for h in hits:
        stem = hit_stem(h)
        if stem is not None and stem not in status:
            status[stem] = h.get("status") if h.get("kind") == "decision" else None
    return Answer(dedupe(hit_stem(h) for h in hits), weak, strength, status)


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
    if q.kind == "reversal" or (q.kind == "status" and len(q.relevant) > 1):
        recall5 = 1.0 if q.relevant and in5 == len(q.relevant) else 0.0
    else:
        recall5 = in5 / len(q.relevant) if q.relevant else 0.0
    return Scored(q, a, rr, recall5, ranks)


def status_right(r: Scored) -> bool:
    """A status query's answer says whether X's decision stands: X's session is in the top 5 as a
    decision hit with the labelled status."""
    first = r.query.relevant[0]
    rank = r.ranks.get(first)
    want = "standing" if r.query.stands else "superseded"
    return rank is not None and rank <= 5 and r.answer.status.get(first) == want


def figures(rows: list[Scored], sets: tuple[str, ...]) -> dict[str, Any]:
    """MRR, recall@5, status and weak-flag rates, overall, per kind and per set."""
    def agg(sel: list[Scored]) -> dict[str, Any]:
        ans = [r for r in sel if r.query.kind != "none"]
        none = [r for r in sel if r.query.kind == "none"]
        status = [r for r in sel if r.query.kind == "status"]
        return {
            "status_right": mean(float(status_right(r)) for r in status) if status else None,
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
    for name in sets:
        out[name] = agg([r for r in rows if r.query.set == name])
    return out


def held_out(q: Query) -> bool:
    """A query of a held-out set (held_out.yaml; conversations3's cz-*): the goals are judged
    on these alone, and no tuning table or list of misses shows them."""
    return q.set not in DEV_SETS


def mean(xs: Iterable[float]) -> float:
    values = list(xs)
    return sum(values) / len(values)


def goals(enf: dict[str, Any], bm25: dict[str, Any], corpus: str = "adr") -> dict[str, dict[str, Any]]:
    """The goals, on the corpus's goal set alone (a held-out set); none for a corpus of dev sets."""
    if corpus not in GOAL_SET:
        return {}
    a, b = enf[GOAL_SET[corpus]], bm25[GOAL_SET[corpus]]
    flags = {
        "none_flagged": {"goal": f">= {GOAL_NONE_FLAGGED:.0%}", "value": a["none_flagged"], "target": GOAL_NONE_FLAGGED,
                         "pass": a["none_flagged"] >= GOAL_NONE_FLAGGED},
        "answerable_flagged": {"goal": f"<= {GOAL_ANSWERABLE_FLAGGED:.0%}", "value": a["answerable_flagged"],
                               "target": GOAL_ANSWERABLE_FLAGGED, "pass": a["answerable_flagged"] <= GOAL_ANSWERABLE_FLAGGED},
    }
    if corpus != "adr":
        return flags
    return {
        "mrr": {"goal": f">= BM25 + {GOAL_MRR_MARGIN}", "value": a["mrr"], "target": b["mrr"] + GOAL_MRR_MARGIN,
                "pass": a["mrr"] >= b["mrr"] + GOAL_MRR_MARGIN},
        "recall_at_5": {"goal": f">= {GOAL_RECALL}", "value": a["recall_at_5"], "target": GOAL_RECALL,
                        "pass": a["recall_at_5"] >= GOAL_RECALL},
        **flags,
    }


SHARES = (0.5, 0.55, 0.6, 0.63, 0.65, 0.7, 0.75)
NAME_SHARES = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
APART_WEIGHTS = (0.0, 0.3, 0.5, 0.65, 0.8, 1.0)
LEADS = (1.25, 1.5, 2.0, 3.0, math.inf)
ANSWER_SHARES = (0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)  # 0.0: no signal of meaning
ANSWER_CHECK = [False]  # --answer-check: `enf.answerCheck true` in the fixture (off by default, as in enf-git)


def sensitivity(rows: list[Scored]) -> list[dict[str, Any]]:
    """Flag rates of the weak rule at other values of its four constants, one varied at a
    time, on the dev sets only (empty when the answers carry no counts): the held-out set
    must never be what a constant is chosen on."""
    rows = [r for r in rows if r.query.set in DEV_SETS]
    if not rows or not all(r.answer.strength for r in rows):
        return []
    from enf_git.plumbing import search

    def rates(share: float, name_share: float, apart: float, lead: float, answer: float) -> dict[str, Any]:
        def flagged(r: Scored) -> float:
            st = r.answer.strength
            return float(search.is_weak(st["matched"], st["unknown_share"], bool(st.get("unknown_names")),
                                        st.get("apart_share", 0.0), st.get("lead", 1.0), st.get("gives", 1.0),
                                        share=share, name_share=name_share, apart_weight=apart, lead_limit=lead,
                                        answer_share=answer))
        current = (abs(share - search.WEAK_SHARE) < 1e-9 and abs(name_share - search.NAME_SHARE) < 1e-9
                   and abs(apart - search.APART_WEIGHT) < 1e-9 and lead == search.LEAD
                   and abs(answer - (search.ANSWER_SHARE if ANSWER_CHECK[0] else 0.0)) < 1e-9)
        out = {"share": round(share, 3), "name_share": round(name_share, 3), "apart_weight": round(apart, 3),
               "lead": lead, "answer_share": round(answer, 3), "current": current}
        for name in sorted({r.query.set for r in rows}, key=DEV_SETS.index):
            sel = [r for r in rows if r.query.set == name]
            out[name] = (mean(flagged(r) for r in sel if r.query.kind == "none"),
                         mean(flagged(r) for r in sel if r.query.kind != "none"))
        out["none_flagged"] = mean(flagged(r) for r in rows if r.query.kind == "none")
        out["answerable_flagged"] = mean(flagged(r) for r in rows if r.query.kind != "none")
        return out

    share, name, apart, lead = search.WEAK_SHARE, search.NAME_SHARE, search.APART_WEIGHT, search.LEAD
    answer = search.ANSWER_SHARE if ANSWER_CHECK[0] else 0.0  # off: no answer's share makes a query weak
    sweep = [x for x in ANSWER_SHARES if abs(x - answer) > 1e-9] if ANSWER_CHECK[0] else []
    return ([rates(s, name, apart, lead, answer) for s in SHARES]
            + [rates(share, n, apart, lead, answer) for n in NAME_SHARES if abs(n - name) > 1e-9]
            + [rates(share, name, a, lead, answer) for a in APART_WEIGHTS if abs(a - apart) > 1e-9]
            + [rates(share, name, apart, g, answer) for g in LEADS if g != lead]
            + [rates(share, name, apart, lead, x) for x in sweep])


# --- output -----------------------------------------------------------------------

def print_table(results: dict[str, dict[str, Any]], sets: tuple[str, ...]) -> None:
    print(f"{'system':<6} {'kind / set':<13} {'n':>7} {'MRR':>6} {'R@5':>6} {'status':>7} {'none flagged':>13} "
          f"{'answerable flagged':>19}")
    for system, figs in results.items():
        for kind in ("all", *KINDS, *sets):
            f = figs[kind]
            if not f["queries"]:
                continue
            weak_none = "n/a" if system == "bm25" else pct(f["none_flagged"])
            weak_ans = "n/a" if system == "bm25" else pct(f["answerable_flagged"])
            status = "n/a" if system == "bm25" else pct(f["status_right"])
            n = f"{f['answerable']}+{f['none']}" if kind in ("all", *sets) else str(f["queries"])
            print(f"{system:<6} {kind:<13} {n:>7} {num(f['mrr']):>6} {num(f['recall_at_5']):>6} {status:>7} "
                  f"{weak_none:>13} {weak_ans:>19}")


def num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def print_failures(system: str, rows: list[Scored]) -> None:
    """The failing queries, never the held-out set's: looking at its misses would make it a dev set."""
    rows = [r for r in rows if not held_out(r.query)]
    bad = [r for r in rows if (r.query.kind != "none" and (r.rr < 1 or r.recall5 < 1))
           or (r.query.kind == "none" and system == "enf" and not r.answer.weak)
           or (system == "enf" and r.query.kind != "none" and r.answer.weak)
           or (system == "enf" and r.query.kind == "status" and not status_right(r))]
    print(f"\n-- {system}: {len(bad)} failing queries")
    for r in bad:
        q = r.query
        ranks = ", ".join(f"{s[11:]}@{r.ranks[s] or '-'}" for s in q.relevant) or "weak not flagged"
        top = ", ".join(s[11:] for s in r.answer.stems[:3]) or "(no hits)"
        reason = r.answer.strength.get("reason") if r.answer.weak and system == "enf" else ""
        notes = (f" [weak: {reason}]" if reason else " [weak]" if r.answer.weak and system == "enf" else "") + (
            f" [status {r.answer.status.get(q.relevant[0])}]" if q.kind == "status" and system == "enf" else "")
        print(f"  {q.id:<8} {q.text!r}{notes}\n           relevant: {ranks}\n           top 3: {top}")


def print_sensitivity(table: list[dict[str, Any]]) -> None:
    if not table:
        return
    print("\nweak rule sensitivity, dev sets only (the share of the query's idf the first result lacks above which "
          "it is weak; the unseen share that makes a query with an unseen name weak; what a word held elsewhere "
          "counts; the first result's lead over the second that keeps it strong (inf: none does); the share of "
          "the best window's weight the best window holding the answer asked for must hold (0: no signal of meaning); "
          "* = search.WEAK_SHARE, search.NAME_SHARE, search.APART_WEIGHT, search.LEAD, search.ANSWER_SHARE; "
          "each dev set: none flagged / answerable flagged):")
    for row in table:
        mark = "*" if row["current"] else " "
        sets = "  ".join(f"{k} {pct(v[0])}/{pct(v[1])}" for k, v in row.items() if k in DEV_SETS)
        print(f"  {mark} share {row['share']:.3f} / name {row['name_share']:.3f} / apart {row['apart_weight']:.2f} "
              f"/ lead {row['lead']:.2f} / answer {row['answer_share']:.2f}: "
              f"none flagged {pct(row['none_flagged']):>5}, answerable flagged {pct(row['answerable_flagged']):>5}"
              f"  ({sets})")


def print_goals(checks: dict[str, dict[str, Any]], corpus: str = "adr") -> None:
    if not checks:
        print(f"\nGOALS enf recall, {corpus}: none (dev sets only; conversations3 holds the conversational held-out set)")
        return
    parts = [f"{name} {c['goal']} ({num(c['target'])}): {num(c['value'])} {'PASS' if c['pass'] else 'FAIL'}"
             for name, c in checks.items()]
    print(f"\nGOALS enf recall, {corpus} ({GOAL_SET[corpus]} queries): " + "; ".join(parts))


# --- main -------------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    corpora = list(CORPORA) if args.corpus == "all" else [args.corpus]
    # Measure the enf_git beside this script, whatever is installed in the venv (and
    # byte-compile that one: hermetic() runs precompile on the enf_git it imports).
    sys.path.insert(0, str(REPO_ROOT))
    work = common.make_workdir("recall-quality")
    common.hermetic(work)
    os.environ["PYTHONPATH"] = str(REPO_ROOT)
    report: dict[str, Any] = {}
    try:
        for corpus in corpora:
            report[corpus] = measure(work, corpus)
    finally:
        common.cleanup(work, args.keep)
    if args.json:
        print(json.dumps({c: {k: v for k, v in r.items() if k != "rows"} for c, r in report.items()}, indent=2))
        return 0
    for corpus, r in report.items():
        print(f"== recall_quality {corpus}: {r['sessions']} sessions, {sum(r['queries'].values())} queries "
              f"({', '.join(f'{n} {k}' for k, n in r['queries'].items())})")
        print_table(r["systems"], SETS[corpus])
        if args.verbose:
            for name, rows in r["rows"].items():
                print_failures(name, rows)
        print_sensitivity(r["weak_sensitivity"])
        print_goals(r["goals"], corpus)
        print()
    return 0


def measure(work: Path, corpus: str) -> dict[str, Any]:
    sessions = load_sessions(corpus)
    queries = load_queries(set(sessions), corpus)
    repo = build_fixture(work, sessions, corpus)
    bm25 = BM25(sessions)
    rows = {"enf": [score(q, enf_answer(repo, q.text)) for q in queries],
            "bm25": [score(q, bm25.answer(q.text)) for q in queries]}
    results = {name: figures(r, SETS[corpus]) for name, r in rows.items()}
    return {"sessions": len(sessions), "queries": dict(Counter(q.kind for q in queries)), "systems": results,
            "goals": goals(results["enf"], results["bm25"], corpus), "weak_sensitivity": sensitivity(rows["enf"]),
            "rows": rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=("all", *CORPORA), default="all", help="which corpus to measure (default: all)")
    ap.add_argument("--verbose", "-v", action="store_true", help="list the failing queries of each system (not the held-out ones)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the fixture in bench/.work/")
    ap.add_argument("--answer-check", action="store_true",
                    help="measure with `enf.answerCheck true` (what a question asks for; off by default)")
    args = ap.parse_args()
    ANSWER_CHECK[0] = args.answer_check
    try:
        return run(args)
    except (SetError, RuntimeError, OSError, KeyError, ValueError) as exc:
        print(f"recall_quality: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
