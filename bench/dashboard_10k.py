"""`git enf dashboard` at N sessions (default 10,000): written in at most 3x the time of
`git enf stats --json` (a ratio in one run), a page of at most 2 MB, drawn in Chromium in
at most 1 s (docs/dashboard.md; the feature request's goals).

The fixture is bench/stats_10k.py's: bench/common.py's branch of N sessions in one commit
(1% reverse an earlier decision, every one has an error line), plus a raw event log and a
transcript for 20 sessions. Both commands run once first (caches warm), then interleaved,
alternating which goes first.

The page's size is measured for this fixture's page and for the worst case, where
every one of the N sessions also has transcript figures and a SessionStart size (the
envelope's per-session lists filled in, rendered in-process), since those lists grow with
the sessions this machine saw. Its figures step by one from session to session, which the
page's columns (dashboard_codec: differences, runs written once) store in almost nothing;
so a third page, with random figures and random session ids in the same places, is
measured too and printed for information: it is what a real machine's transcripts of that
many sessions would cost, where no difference is small.

Drawing is measured in a headless Chromium (tests/browser.py; skipped with the reason when
there is none), a fresh tab per repetition, by the page's own performance marks: from the
navigation's start to `enf-painted`, the first frame painted after every chart and table
was drawn (the marks are set by the page's script; first-contentful-paint is printed
beside it). Then the time to redraw everything for an author filter, measured in the page.

Run: .venv/bin/python bench/dashboard_10k.py [--sessions N] [--reps N] [--quick] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import common

common.use_checkout()

GOAL_RATIO = 3.0
GOAL_BYTES = 2 * 1024 * 1024
GOAL_DRAW_MS = 1000.0


def main() -> int:
    return common.fixture_main("dashboard-10k", __doc__, 11, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH
    sys.path.insert(0, str(common.BENCH_DIR))
    import stats_10k  # its fixture: the same sessions and local logs

    common.header("dashboard_10k", sessions=n, repetitions=reps, checkout=common.CHECKOUT)
    repo = common.init_user_repo(work / "repo")
    print(f"fixture: seeded {n} sessions in one commit: "
          f"{common.time_call(lambda: common.seed_branch(repo, n, pack=not args.loose)):.2f} s")
    print(f"fixture: git enf init: {common.time_cmd([common.GIT_ENF, 'init', '--no-hooks'], repo):.2f} s")
    stats_10k.local_logs(repo, work)
    page = work / "dashboard.html"
    stats, dash = [common.GIT_ENF, "stats", "--json"], [common.GIT_ENF, "dashboard", "-o", str(page)]
    first_stats, out = common.timed_run(stats, repo)
    first_dash, _ = common.timed_run(dash, repo)
    envelope = json.loads(out.stdout)
    if envelope["sessions"]["total"] != n:
        raise RuntimeError("stats did not see every session")
    print(f"first runs (caches cold): stats {first_stats * 1000:.0f} ms, dashboard {first_dash * 1000:.0f} ms")
    with_d, with_s = [], []
    for k in range(reps):
        for argv in ((dash, stats) if k % 2 == 0 else (stats, dash)):
            (with_d if argv is dash else with_s).append(common.timed_run(argv, repo)[0])
    print(f"{'git enf dashboard -o':<24} {n:>7} sessions N={reps}: {common.spread_ms(with_d)}")
    print(f"{'git enf stats --json':<24} {n:>7} sessions N={reps}: {common.spread_ms(with_s)}")
    common.ratio_report(f"dashboard / stats --json at {n}", with_d, with_s, goal=GOAL_RATIO)
    worst = work / "worst.html"
    worst.write_text(render(every_session_measured(envelope)), encoding="utf-8")
    for label, path in (("this fixture", page), ("worst case: figures for every session", worst)):
        size = path.stat().st_size
        print(f"PAGE {label}: {size:,} bytes ({size / 1024 / 1024:.2f} MB)  goal <= 2 MB: "
              f"{'MET' if size <= GOAL_BYTES else 'MISSED'}")
    noisy = len(render(every_session_measured(envelope, noise=True)).encode("utf-8"))
    extra = (noisy - page.stat().st_size) / n
    print(f"PAGE (information) worst case with random figures: {noisy:,} bytes ({noisy / 1024 / 1024:.2f} MB): "
          f"{extra:.1f} bytes a session for its transcript and SessionStart figures")
    draw(page, "this fixture", reps)
    draw(worst, "worst case", reps)
    return 0


def render(envelope: dict[str, Any]) -> str:
    from enf_git.pure import dashboard

    return dashboard.render(envelope)


def every_session_measured(envelope: dict[str, Any], noise: bool = False) -> dict[str, Any]:
    """The envelope as if this machine had a transcript and a SessionStart for every session;
    with `noise`, random figures (within a real session's ranges) and random ids."""
    import random

    rng = random.Random(11)
    jitter = (lambda top: rng.randrange(top)) if noise else (lambda top: 0)
    out = json.loads(json.dumps(envelope))
    rows = out["sessions"]["rows"]
    ids = [f"{rng.getrandbits(32):08x}" if noise else f"{i:08x}" for i in range(len(rows))]
    usage = [{"session": ids[i], "date": r["date"], "models": ["claude-sonnet-4-5"], "input": 1200 + i + jitter(20_000),
              "output": 40_000 + i + jitter(100_000), "cache_creation": 30_000 + i + jitter(200_000),
              "cache_read": 2_400_000 + i + jitter(10_000_000), "cache_hit_rate": 0.9861, "compactions": i % 3,
              "peak_context": 150_000, "context_pressure": 0.75, "prompts": 20, "assistant_messages": 140,
              "minutes": 42.5, "cost_usd": round(1.2345 + jitter(30_000_000) / 1e6, 6), "shared": False}
             for i, r in enumerate(reversed(rows))]
    starts = [{"session": ids[i], "date": r["date"], "source": "startup", "tokens": 2400 + i % 500 + jitter(20_000),
               "chars": 9600} for i, r in enumerate(reversed(rows))]
    usage.sort(key=lambda p: (p["date"], p["session"]))  # as git enf stats lists them
    starts.sort(key=lambda p: (p["date"], p["session"]))
    for i, r in enumerate(reversed(rows)):
        r["session"] = ids[i]  # joined, as the envelope says it when it carries the ids
    out["transcripts"]["per_session"] = usage
    out["memory"]["context"]["per_session"] = starts
    return out


def draw(page: Path, label: str, reps: int) -> None:
    sys.path.insert(0, str(common.CHECKOUT / "tests"))
    import browser

    reason = browser.skip_reason()
    if reason is not None:
        print(f"DRAW {label}: skipped: {reason}")
        return
    painted, drawn, fcp, refilter = [], [], [], []
    with browser.chromium() as chrome:
        for _ in range(reps + 1):  # the first warms Chromium's caches: not counted
            tab = chrome.new_page()
            tab.goto(page.as_uri())
            browser.wait_for(tab, "document.body.dataset.ready === '1' && "
                                  "performance.getEntriesByType('paint').length >= 2", timeout=30)
            if tab.errors:
                raise RuntimeError(f"the page reported errors: {tab.errors[:3]}")
            timing = tab.timing()
            marks = {m["name"]: m["startTime"] for m in timing["mark"]}
            paints = {p["name"]: p["startTime"] for p in timing["paint"]}
            fcp.append(paints["first-contentful-paint"])
            # The script draws before the first paint; whichever of the frame after the
            # drawing and the first contentful paint (its presentation) comes later is
            # when every chart is on the screen.
            painted.append(max(marks["enf-painted"], fcp[-1]))
            drawn.append(marks["enf-drawn"] - marks["enf-start"])
            refilter.append(tab.evaluate(
                "(() => { const s = document.getElementById('f-author'); s.value = s.options[1].value;"
                " const t0 = performance.now(); s.dispatchEvent(new Event('change', {bubbles: true}));"
                " return performance.now() - t0; })()"))
            tab.close()
    painted, drawn, fcp, refilter = painted[1:], drawn[1:], fcp[1:], refilter[1:]
    median = statistics.median(painted)
    print(f"DRAW {label} N={reps}, loadavg {' '.join(f'{x:.2f}' for x in os.getloadavg())}: navigation start to "
          f"every chart painted: min {min(painted):.0f} / median {median:.0f} / max {max(painted):.0f} ms  "
          f"goal <= {GOAL_DRAW_MS:.0f} ms: {'MET' if median <= GOAL_DRAW_MS else 'MISSED'}")
    print(f"     the script's drawing alone: median {statistics.median(drawn):.0f} ms; first contentful paint: "
          f"median {statistics.median(fcp):.0f} ms; an author filter, redrawn: median "
          f"{statistics.median(refilter):.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
