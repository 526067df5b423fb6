"""8 concurrent writer processes x N one-file commits: enf_git.store.commit vs git CLI plumbing.

Both sides start from the same seeded tree (sessions/ holds --base-files files) and each
commit adds one distinct file under sessions/. The store side calls store_write.commit (advisory
flock + compare-and-swap on refs/heads/claude-memory). The CLI side does what a shell
script would: hash-object -w, then a tree (read-tree/update-index/write-tree into a private
GIT_INDEX_FILE, or --cli-mode mktree: ls-tree + mktree of the changed subtree and root),
commit-tree, and `update-ref REF new old` (the CAS), retrying from the new tip on failure.

Workers start together (ready/go handshake after their imports), so start-up is not
counted; throughput = commits / (last end - first start). Every run is verified: exactly
W*N new commits on each branch and every expected file in the final tree, or it fails.

Run: .venv/bin/python bench/concurrent_writers.py [--quick] [--cli-mode index|mktree] [--nolock]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import common

STORE_REF = "refs/heads/claude-memory"
CLI_REF = "refs/heads/cli-memory"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="N=10 commits per writer, 2,000 base files")
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--commits", type=int, help="commits per writer (default 100)")
    ap.add_argument("--reps", type=int, help="repetitions, alternating which side runs first (default 3)")
    ap.add_argument("--base-files", type=int, help="files already in sessions/ (default 10000)")
    ap.add_argument("--cli-mode", choices=("index", "mktree"), default="index")
    ap.add_argument("--nolock", action="store_true", help="also run store_write.commit with its flock disabled (CAS only)")
    ap.add_argument("--keep", action="store_true", help="keep the fixture folder")
    ap.add_argument("--worker", choices=("store", "store-nolock", "cli"), help=argparse.SUPPRESS)
    ap.add_argument("--id", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--repo", help=argparse.SUPPRESS)
    ap.add_argument("--tag", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    args.commits = args.commits or (10 if args.quick else 100)
    args.reps = args.reps or 3
    args.base_files = args.base_files or (2000 if args.quick else 10000)

    work = common.make_workdir("concurrent")
    common.hermetic(work)
    try:
        return run(work, args)
    finally:
        common.cleanup(work, args.keep)


# --- parent ------------------------------------------------------------------------

def run(work: Path, args: argparse.Namespace) -> int:
    w, n = args.writers, args.commits
    common.header("concurrent_writers", writers=w, commits_per_writer=n, repetitions=args.reps,
                  base_files=args.base_files, cli_mode=args.cli_mode)
    repo = common.init_user_repo(work / "repo")
    seed = common.seed_branch(repo, args.base_files)
    common.git(repo, "update-ref", CLI_REF, seed)
    sides = ["store", "cli"] + (["store-nolock"] if args.nolock else [])
    rates: dict[str, list[float]] = {s: [] for s in sides}
    for rep in range(args.reps):
        order = sides[rep % len(sides):] + sides[: rep % len(sides)]
        for side in order:
            ref = CLI_REF if side == "cli" else STORE_REF
            common.git(repo, "update-ref", ref, seed)
            tag = f"{side[0]}{'n' if side == 'store-nolock' else ''}r{rep}"
            elapsed, retries = run_side(repo, side, tag, args)
            verify(repo, ref, seed, tag, w, n, args.base_files)
            rate = w * n / elapsed
            rates[side].append(rate)
            print(f"  rep {rep} {side:<12}: {w * n} commits in {elapsed:.2f} s = {rate:7.1f} commits/s, "
                  f"{retries} CAS retries; verified {w * n}/{w * n} landed")
    fsck = subprocess.run([common.GIT, "fsck", "--connectivity-only", "--no-dangling"], cwd=repo,
                          capture_output=True, check=False, text=True)
    if fsck.returncode != 0:
        print(f"FAIL: git fsck: {fsck.stderr}", file=sys.stderr)
        return 1
    print("git fsck --connectivity-only: ok")
    cli_label = f"git CLI plumbing ({args.cli_mode})"
    for side in sides:
        label = {"store": "store_write.commit (flock + CAS)", "cli": cli_label, "store-nolock": "store_write.commit (CAS only)"}[side]
        print(f"{label:<34} N={len(rates[side])}: median {statistics.median(rates[side]):.1f} commits/s "
              f"(all: {', '.join(f'{r:.1f}' for r in rates[side])})")
    paired = statistics.median(s / c for s, c in zip(rates["store"], rates["cli"]))
    print(f"RATIO store/cli throughput: {paired:.1f}x (median of {args.reps} paired ratios; ratio of medians "
          f"{statistics.median(rates['store']) / statistics.median(rates['cli']):.1f}x)")
    if args.nolock:
        p2 = statistics.median(a / b for a, b in zip(rates["store"], rates["store-nolock"]))
        print(f"RATIO store flock+CAS / CAS-only throughput: {p2:.2f}x (median of {args.reps})")
    return 0


def run_side(repo: Path, side: str, tag: str, args: argparse.Namespace) -> tuple[float, int]:
    procs = []
    for k in range(args.writers):
        argv = [common.PYTHON, str(Path(__file__).resolve()), "--worker", side, "--id", str(k),
                "--commits", str(args.commits), "--repo", str(repo), "--tag", tag, "--cli-mode", args.cli_mode]
        procs.append(subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=os.environ.copy()))
    for p in procs:
        assert p.stdout is not None and p.stdin is not None
        line = p.stdout.readline()
        if line.strip() != b"ready":
            for q in procs:
                q.kill()
            raise SystemExit(f"FAIL: {side} worker did not start: {line!r}")
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(b"go\n")
        p.stdin.flush()
    results = []
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"FAIL: {side} worker exited {p.returncode}")
        results.append(json.loads(out.decode().strip().splitlines()[-1]))
    start = min(r["start"] for r in results)
    end = max(r["end"] for r in results)
    return end - start, sum(r["retries"] for r in results)


def verify(repo: Path, ref: str, seed: str, tag: str, w: int, n: int, base: int) -> None:
    count = int(common.git(repo, "rev-list", "--count", f"{seed}..{ref}").strip())
    names = set(common.git(repo, "ls-tree", "--name-only", f"{ref}:sessions").split())
    expected = {file_name(tag, k, i) for k in range(w) for i in range(n)}
    missing = expected - names
    if count != w * n or missing or len(names) != base + w * n:
        print(f"FAIL: {ref}: {count} commits (want {w * n}), {len(names)} files in sessions/ "
              f"(want {base + w * n}), {len(missing)} expected files missing, e.g. {sorted(missing)[:3]}",
              file=sys.stderr)
        raise SystemExit(1)


def file_name(tag: str, k: int, i: int) -> str:
    return f"2099-01-01-bench-{tag}-w{k}-{i:04d}.md"


def content(tag: str, k: int, i: int) -> bytes:
    return (f"---\nsession_id: b{k:03d}{i:04d}\ndate: 2099-01-01\nstatus: active\n---\n\n"
            f"## Intent\nwriter {k} commit {i} of {tag}\n").encode()


# --- workers -----------------------------------------------------------------------

def worker(args: argparse.Namespace) -> int:
    k, n, tag = args.id, args.commits, args.tag
    one: Callable[[int], int]
    if args.worker in ("store", "store-nolock"):
        from enf_git.plumbing import store, store_write

        if args.worker == "store-nolock":
            setattr(store_write, "_writer_lock", lambda repo, wait=10.0: contextlib.nullcontext())  # noqa: B010 - bench-local patch
        repo = store.open_repo(args.repo)
        one = lambda i: store_commit(repo, tag, k, i)
    else:
        env = os.environ.copy()
        env["GIT_INDEX_FILE"] = str(Path(args.repo) / ".git" / f"bench-index-{tag}-{k}")
        commit_fn = cli_commit_mktree if args.cli_mode == "mktree" else cli_commit_index
        one = lambda i: commit_fn(args.repo, env, tag, k, i)
    print("ready", flush=True)
    sys.stdin.readline()
    retries = 0
    start = time.time()
    for i in range(n):
        retries += one(i) - 1
    end = time.time()
    print(json.dumps({"start": start, "end": end, "retries": retries}), flush=True)
    return 0


def store_commit(repo: Any, tag: str, k: int, i: int) -> int:
    from enf_git.plumbing import store_write

    path = f"sessions/{file_name(tag, k, i)}"
    data = content(tag, k, i)
    result = store_write.commit(repo, lambda tip: {path: data}, f"bench {tag} w{k} #{i}")
    if result is None:
        raise RuntimeError("store_write.commit made no commit")
    return result.attempts


def _git(repo: str, env: dict[str, str], *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([common.GIT, *args], cwd=repo, env=env, input=input, capture_output=True, check=False)


def _ok(out: subprocess.CompletedProcess[bytes]) -> str:
    if out.returncode != 0:
        raise RuntimeError(f"{out.args}: {out.stderr.decode(errors='replace')}")
    return out.stdout.decode().strip()


def _backoff(attempt: int) -> None:
    time.sleep(random.uniform(0.001, 0.004) * min(attempt, 10))  # same as store_write.commit


def cli_commit_index(repo: str, env: dict[str, str], tag: str, k: int, i: int) -> int:
    path = f"sessions/{file_name(tag, k, i)}"
    msg = f"bench {tag} w{k} #{i}"
    for attempt in range(1, 1001):
        old = _ok(_git(repo, env, "rev-parse", "--verify", "-q", CLI_REF))
        blob = _ok(_git(repo, env, "hash-object", "-w", "--stdin", input=content(tag, k, i)))
        _ok(_git(repo, env, "read-tree", old))
        _ok(_git(repo, env, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"))
        tree = _ok(_git(repo, env, "write-tree"))
        new = _ok(_git(repo, env, "commit-tree", tree, "-p", old, "-m", msg))
        if _git(repo, env, "update-ref", "-m", msg, CLI_REF, new, old).returncode == 0:
            return attempt
        _backoff(attempt)
    raise RuntimeError("gave up after 1000 attempts")


def cli_commit_mktree(repo: str, env: dict[str, str], tag: str, k: int, i: int) -> int:
    name = file_name(tag, k, i)
    msg = f"bench {tag} w{k} #{i}"
    for attempt in range(1, 1001):
        old = _ok(_git(repo, env, "rev-parse", "--verify", "-q", CLI_REF))
        blob = _ok(_git(repo, env, "hash-object", "-w", "--stdin", input=content(tag, k, i)))
        root = _ok(_git(repo, env, "ls-tree", old)).splitlines()
        sub_oid = next(ln.split()[2] for ln in root if ln.endswith("\tsessions"))
        sub = _ok(_git(repo, env, "ls-tree", sub_oid))
        new_sub = _ok(_git(repo, env, "mktree", input=f"{sub}\n100644 blob {blob}\t{name}\n".encode()))
        root_in = "".join((f"040000 tree {new_sub}\tsessions" if ln.endswith("\tsessions") else ln) + "\n" for ln in root)
        tree = _ok(_git(repo, env, "mktree", input=root_in.encode()))
        new = _ok(_git(repo, env, "commit-tree", tree, "-p", old, "-m", msg))
        if _git(repo, env, "update-ref", "-m", msg, CLI_REF, new, old).returncode == 0:
            return attempt
        _backoff(attempt)
    raise RuntimeError("gave up after 1000 attempts")


if __name__ == "__main__":
    sys.exit(main())
