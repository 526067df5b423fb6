"""`git enf sync` with one new session on each side of a 10,000-session branch.

Two clones (A, B) of a bare remote share a claude-memory branch of N sessions. Each
repetition: A adds a session and syncs (not timed), B adds a session; then B's
`git enf sync` is timed (commit, fetch A's commit, merge the two, push the merge).

Baseline (the goal's): plain git moving the same refs with the same objects. Before the
sync, the remote and B's .git are snapshotted (hard links: git never rewrites an object
or a pack in place); `git fetch` of claude-memory into the snapshot of B (what sync
fetched: A's commit) plus `git push` of B's new claude-memory into the snapshot of the
remote (what sync pushed: B's commit and the merge) — goal: ratio <= 1.5.

`--only-local`: Alice does not push, and Bob's session is committed before his sync
(as the Stop hook does), so the sync only pushes: the light path (memory/share/sync_light.py,
git alone). Same baseline (the fetch then moves nothing).

Also printed, stricter and informational: against `git fetch` + `git push` of a one-file
code commit to a scratch branch (a push that never carries the 10,000-entry sessions/
tree a memory commit must rewrite).

`--latency MS`: every connection to the remote (and to its snapshot) first waits MS
milliseconds, through git's ext:: transport: what a network remote's connection set-up
costs (ssh or TLS and auth, ~100-300 ms to a hosted forge), paid alike by sync and baseline.

Run: .venv/bin/python bench/sync_10k.py [--quick] [--reps N] [--sessions N] [--latency MS] [--only-local]
     [--keep] [--reuse DIR]
(--keep once, then --reuse the kept folder: the 100,000-session fixture takes minutes to build)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import time
from pathlib import Path

import common


def main() -> int:
    def extra(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--latency", type=int, default=0, help="ms each connection to the remote waits first")
        ap.add_argument("--only-local", action="store_true", help="Alice does not push: Bob's new session is "
                        "committed first (git enf commit, as the Stop hook does) and his sync only pushes it")
        ap.add_argument("--reuse", type=Path, help="a fixture folder kept by an earlier --keep run (same --sessions "
                        "and --latency): its clones and remote are used again, not built")

    return common.fixture_main("sync", __doc__, 9, run, extra)


def _url(bare: Path, latency_ms: int) -> str:
    """The remote's URL: its path, or an ext:: command that sleeps, then serves it."""
    if not latency_ms:
        return str(bare)
    return f"ext::sh -c sleep% {latency_ms / 1000:.3f};exec% git% %s% {bare}"


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    code = _code_under_test()
    common.header("sync_10k", sessions=n, repetitions=reps, latency_ms=args.latency, git_enf=common.GIT_ENF,
                  enf_git=code, case="only this clone moved" if args.only_local else "both moved")
    if args.latency:
        common.git(work, "config", "--global", "protocol.ext.allow", "always")
    if args.reuse:
        work, run_id = args.reuse.resolve(), f"{int(time.time()):x}"
        a, b = work / "alice", work / "bob"  # new sessions' names differ from the last run's
        print(f"fixture reused from {work}: {n} sessions on the branch (as built)")
    else:
        a, b = _build(work, n, args.latency)
        run_id = "0"
    print(f"first sync (cold caches, not counted): {common.time_cmd([common.GIT_ENF, 'sync'], b):.2f} s")
    subject, same_refs, one_file = [], [], []
    for k in range(reps):
        if not args.only_local:
            _new_session(a, f"2099-01-{k + 1:02d}-alice-{k}-{run_id}", f"a{k:03x}{run_id}")
            common.time_cmd([common.GIT_ENF, "sync"], a)
        _new_session(b, f"2099-02-{k + 1:02d}-bob-{k}-{run_id}", f"b{k:03x}{run_id}")
        if args.only_local:
            common.time_cmd([common.GIT_ENF, "commit"], b)
        snap_remote, snap_b = _snapshot(_bare(work), work / f"snap-origin-{k}.git"), _snapshot(b / ".git", work / f"snap-b-{k}")
        os.sync()  # the copies' metadata written out now, not during the next timing (fsyncs wait for it)
        fetch_first = k % 2 == 0  # the fetch half can go either side of the subject: alternate
        fetched = _plain_fetch(snap_b, snap_remote, args.latency) if fetch_first else 0.0
        subject.append(common.time_cmd([common.GIT_ENF, "sync"], b))
        fetched = fetched or _plain_fetch(snap_b, snap_remote, args.latency)
        same_refs.append(fetched + _plain_push(b, snap_remote, args.latency))
        one_file.append(_plain_transport(b, f"{k}-{run_id}"))
        shutil.rmtree(snap_remote)
        shutil.rmtree(snap_b)
    what = "(one new session, committed, only here)" if args.only_local else "(one new session each side)"
    print(f"(a) git enf sync {what:<30} N={reps}: {common.spread_ms(subject)}")
    print(f"(a) git fetch + git push of the same refs       N={reps}: {common.spread_ms(same_refs)}")
    print(f"    git fetch + git push of a one-file commit   N={reps}: {common.spread_ms(one_file)}")
    common.ratio_report("sync/fetch+push of the same refs", subject, same_refs, goal=1.5)
    common.ratio_report("sync/fetch+push of a one-file commit (stricter, informational)", subject, one_file)
    print(f"loadavg at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _bare(work: Path) -> Path:
    return work / "origin.git"


def _build(work: Path, n: int, latency: int) -> tuple[Path, Path]:
    """Alice's clone with the n-session branch, the bare remote, and Bob's clone adopting it."""
    a = common.init_user_repo(work / "alice")
    common.seed_branch(a, n)
    bare = _bare(work)
    common.git(work, "init", "-q", "--bare", str(bare))
    common.git(a, "remote", "add", "origin", _url(bare, latency))
    common.git(a, "push", "-q", "origin", "HEAD:refs/heads/main", "claude-memory")
    common.time_cmd([common.GIT_ENF, "init", "--no-hooks"], a)
    b = work / "bob"
    common.git(work, "clone", "-q", str(bare), str(b))
    common.git(b, "remote", "set-url", "origin", _url(bare, latency))
    common.git(b, "fetch", "-q", "origin", "+refs/heads/claude-memory:refs/remotes/origin/claude-memory")
    t_init = common.time_cmd([common.GIT_ENF, "init", "--no-hooks"], b)
    print(f"fixture: {n} sessions on the branch; bob's init (adopts it): {t_init:.2f} s")
    return a, b


def _snapshot(git_dir: Path, to: Path) -> Path:
    """A hard-linked copy of a git directory as it is now (objects, packs and refs are
    replaced by rename, never rewritten in place, so the copy keeps this state)."""
    subprocess.run(["cp", "-al", str(git_dir), str(to)], check=True)
    return to


def _plain_fetch(snap_b: Path, snap_remote: Path, latency_ms: int) -> float:
    """What sync's fetch moved, by plain git: the remote's claude-memory into B's tracking ref."""
    return common.time_cmd([common.GIT, f"--git-dir={snap_b}", "fetch", "-q", "--no-tags", _url(snap_remote, latency_ms),
                            "+refs/heads/claude-memory:refs/remotes/origin/claude-memory"], snap_b)


def _plain_push(repo: Path, snap_remote: Path, latency_ms: int) -> float:
    """What sync's push moved, by plain git: B's claude-memory (its commit and the merge)."""
    return common.time_cmd([common.GIT, "push", "-q", "--no-verify", _url(snap_remote, latency_ms),
                            "refs/heads/claude-memory:refs/heads/claude-memory"], repo)


def _code_under_test() -> str:
    """Make every git-enf child run the enf_git this script imported (a worktree's, given by
    PYTHONPATH), not the one the venv's editable install points at: hermetic() drops PYTHONPATH."""
    import enf_git

    top = str(Path(enf_git.__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = top
    return top


def _new_session(repo: Path, stem: str, session_id: str) -> None:
    # The id is hex with a letter first, as the fixture's (common.session_text) and as
    # real ids are: a zero-padded decimal such as 00000003 is an octal number to YAML 1.1,
    # so the header parser hands it to PyYAML (~20 ms to import), which no real session pays.
    path = repo / ".claude-sessions" / "sessions" / f"{stem}.md"
    path.write_text(f"---\nsession_id: {session_id}\ndate: {stem[:10]}\nstart_time: \"10:00\"\ntags: [bench]\n"
                    f"status: completed\nsummary: \"Bench session {stem}\"\n---\n## Intent\nMeasure sync.\n",
                    encoding="utf-8")


def _plain_transport(repo: Path, k: str) -> float:
    """What sync's transport costs with git alone: fetch the branch, push one new commit."""
    fetch = common.time_cmd([common.GIT, "fetch", "-q", "origin", "+refs/heads/claude-memory:refs/bench/fetched"],
                            repo)
    (repo / f"bench-{k}.txt").write_text(f"{k}\n", encoding="utf-8")
    common.git(repo, "add", f"bench-{k}.txt")
    common.git(repo, "commit", "-q", "-m", f"bench {k}")
    push = common.time_cmd([common.GIT, "push", "-q", "origin", f"HEAD:refs/heads/bench-{k}"], repo)
    return fetch + push


if __name__ == "__main__":
    raise SystemExit(main())
