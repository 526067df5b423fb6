"""Shared fixture building and timing for the enf-git benchmarks.

Import this module FIRST (before pygit2 or enf_git): `hermetic()` rewrites
os.environ (no GIT_*, a temp HOME with a fixed identity) and libgit2 reads HOME
when pygit2 is imported.

Every benchmark reports a ratio to a baseline measured in the same run, with the
same interpreter, interleaved with the subject (machines are shared and noisy).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
PYTHON = sys.executable  # absolute path of the running interpreter, never a shim
GIT_ENF = str(Path(PYTHON).parent / "git-enf")
GIT = shutil.which("git", path="/usr/bin:/usr/local/bin:/bin") or shutil.which("git") or "git"
GIT = os.path.realpath(GIT)

NAME = "enf bench"
EMAIL = "bench@example.invalid"

RARE_WORD = "zanzibar"   # in RARE_COUNT sessions
RARE_COUNT = 5
COMMON_WORD = "postgres"  # in every COMMON_EVERY-th session
COMMON_EVERY = 5

_TAGS = ["search", "api", "auth", "ui", "db", "build", "tests", "perf", "docs", "infra", "cli", "hooks"]
_WORDS = [
    "index", "ranking", "cache", "parser", "schema", "migration", "token", "budget", "worktree", "remote",
    "branch", "merge", "commit", "tree", "blob", "hook", "gate", "session", "summary", "decision", "reversal",
    "friction", "compress", "tier", "render", "view", "topic", "recall", "query", "latency", "timeout", "retry",
    "lock", "writer", "reader", "config",
]


# --- environment ------------------------------------------------------------------

def hermetic(workdir: Path) -> dict[str, str]:
    """Scrub GIT_*, point HOME at a temp folder with a fixed identity; returns the env.

    Also applied to os.environ so in-process pygit2 and every child see the same.
    """
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(
        f"[user]\n\tname = {NAME}\n\temail = {EMAIL}\n[init]\n\tdefaultBranch = main\n"
        "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1",
               LC_ALL="C", TZ="UTC", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    os.environ.clear()
    os.environ.update(env)
    precompile()
    return env


def precompile() -> None:
    """Byte-compile enf_git the way `pip install` does.

    PYTHONDONTWRITEBYTECODE (set above, so runs leave no files behind) also means an
    editable checkout whose .pyc files are stale recompiles every module in every
    measured process, ~25 ms that no installed copy ever pays.
    """
    import compileall

    import enf_git

    compileall.compile_dir(str(Path(enf_git.__file__).parent), quiet=1)


def make_workdir(tag: str) -> Path:
    root = BENCH_DIR / ".work"
    root.mkdir(exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{tag}-", dir=root))


def cleanup(workdir: Path, keep: bool = False) -> None:
    if keep:
        print(f"fixture kept at {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)


def git(repo: Path, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> str:
    out = subprocess.run([GIT, *args], cwd=repo, input=input, capture_output=True,
                         env=env or os.environ.copy(), check=False)
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed ({out.returncode}): {out.stderr.decode(errors='replace')}")
    return out.stdout.decode()


# --- session files ----------------------------------------------------------------

def session_stem(i: int, n: int) -> str:
    """Dates spread ~10 sessions a day, oldest first; unique slug per index."""
    day = i * 1000 // max(n, 1)  # 0..999 days
    t = time.gmtime(1_600_000_000 + day * 86400)
    rng = random.Random(i)
    words = "-".join(rng.sample(_WORDS, 2))
    return f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}-{words}-{i:05d}"


def rare_indices(n: int) -> set[int]:
    step = max(n // RARE_COUNT, 1)
    return {step // 2 + k * step for k in range(RARE_COUNT) if step // 2 + k * step < n}


REVERSE_EVERY = 100  # 1% of sessions reverse an earlier decision (half by id, half by phrase)
REVERSE_BACK = 37    # ... made this many sessions earlier


def _parts(i: int, n: int) -> dict[str, Any]:
    """The random choices behind session i (deterministic), shared by its reversers."""
    rng = random.Random(i * 7919 + 1)
    stem = session_stem(i, n)
    hh, mm = rng.randrange(8, 20), rng.randrange(60)
    tags = rng.sample(_TAGS, rng.randrange(1, 4))
    words = [rng.choice(_WORDS) for _ in range(60)]
    area = rng.choice(_WORDS)
    confidence = rng.choice(["high", "medium", "low"])
    return {"stem": stem, "hh": hh, "mm": mm, "tags": tags, "words": words, "area": area,
            "confidence": confidence, "decided": f"use a {words[52]} {words[53]}"}


def session_text(i: int, n: int, rare: set[int] | None = None, extra: str = "") -> str:
    """An Elephants Never Forget session file: frontmatter + Intent/Interactions/Decisions/Files/Errors.

    Every session has one Y-statement decision; 1% also reverse an earlier one
    (REVERSED line + the replacing Y-statement), like a real decision log.
    """
    p = _parts(i, n)
    stem, hh, mm, tags, words, area = p["stem"], p["hh"], p["mm"], p["tags"], list(p["words"]), p["area"]
    date = stem[:10]
    if rare is not None and i in rare:
        words[17] = RARE_WORD
    if i % COMMON_EVERY == 0:
        words[29] = COMMON_WORD
    status = "completed" if i % 50 else "active"
    summary = f"Worked on the {words[0]} {words[1]} and the {area} {words[2]}"
    lines = [
        "---",
        f"session_id: a{i:07x}",
        f"date: {date}",
        f'start_time: "{hh:02d}:{mm:02d}"',
        f"tags: [{', '.join(tags)}]",
        f"status: {status}",
        f'summary: "{summary}"',
        "---",
        "",
        "## Intent",
        f"Make the {words[3]} {words[4]} faster and keep the {words[5]} {words[6]} correct.",
        "",
        "## Interactions",
    ]
    for k in range(3):
        chunk = " ".join(words[7 + k * 15 : 7 + (k + 1) * 15])
        lines += [f"### [{hh:02d}:{(mm + k) % 60:02d}] User -> asked about the {words[7 + k]} {words[8 + k]}",
                  f"**Claude ->** read the code, changed the {chunk}.", ""]
    lines += [
        "## Decisions",
        (f"- [{hh:02d}:{mm:02d}] Y: In the context of {area}, facing slow {words[50]} {words[51]}, "
         f"decided {p['decided']} over a full {words[54]} scan, to achieve lower latency, "
         f"accepting a {words[55]} to keep in sync. Confidence: {p['confidence']}"),
    ]
    reversal: list[str] = []
    if i % REVERSE_EVERY == REVERSE_EVERY // 2 and i >= REVERSE_BACK:
        old = _parts(i - REVERSE_BACK, n)
        if (i // REVERSE_EVERY) % 2:
            from enf_git.pure.model import stable_id

            ref = stable_id("d", old["stem"], f"{old['hh']:02d}:{old['mm']:02d}", old["decided"].lower())
        else:
            ref = old["decided"]
        new = f"use a {words[40]} {words[41]} instead"
        stamp = f"{hh:02d}:{(mm + 1) % 60:02d}"
        lines.append(f"- [{stamp}] Y: In the context of {old['area']}, facing a slow {words[42]}, decided {new} "
                     f"over {old['decided']}, to achieve fewer stalls. Confidence: medium")
        reversal = ["## Reversals",
                    (f"- [{stamp}] REVERSED {ref}: Changed from {old['decided']} to {new} "
                     f"because the {words[43]} was too slow"), ""]
    lines += [
        "",
        *reversal,
        "## Files Touched",
        f"- `src/{words[56]}/{words[57]}.py` — role: modified, what: {words[58]} handling",
        "",
        "## Errors & Fixes",
        f"- [{hh:02d}:{(mm + 5) % 60:02d}] Error: `{words[59]} timed out`. Fix: raised the limit",
        "",
    ]
    return "\n".join(lines) + extra


def session_files(n: int) -> dict[str, bytes]:
    rare = rare_indices(n)
    return {f"sessions/{session_stem(i, n)}.md": session_text(i, n, rare).encode() for i in range(n)}


# --- repositories -----------------------------------------------------------------

def init_user_repo(path: Path) -> Path:
    """A plain repository with one commit on main, like the user's project."""
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "README.md").write_text("project\n", encoding="utf-8")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "initial")
    return path


def seed_branch(repo_path: Path, n: int, pack: bool = True) -> str:
    """claude-memory with n session files + meta.json + log.md, in ONE store_write.commit."""
    return seed_files(repo_path, session_files(n), f"bench: seed {n} sessions", pack)


def seed_files(repo_path: Path, files: dict[str, bytes], message: str, pack: bool = True,
               author: dict[str, str] | None = None) -> str:
    """claude-memory holding `files` + meta.json + log.md, in ONE store_write.commit."""
    import json

    from enf_git.plumbing import store, store_write

    repo = store.open_repo(repo_path)
    files = dict(files)
    meta = json.dumps({"project": "bench", "schema": 1}, indent=2, sort_keys=True) + "\n"
    files["meta.json"] = meta.encode()
    files["log.md"] = b"# Log\n\nAppend-only record of sessions (written by hooks).\n"
    result = store_write.commit(repo, lambda tip: files, message, env=author)  # author: GIT_AUTHOR_* of a teammate
    assert result is not None
    if pack:
        git(repo_path, "repack", "-adq")
        git(repo_path, "prune-packed")
    return result.oid


def run_enf(repo_path: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    out = subprocess.run([GIT_ENF, *args], cwd=repo_path, capture_output=True, check=False, env=os.environ.copy())
    if check and out.returncode != 0:
        raise RuntimeError(f"git-enf {' '.join(args)} failed ({out.returncode}):\n"
                           f"{out.stdout.decode(errors='replace')}\n{out.stderr.decode(errors='replace')}")
    return out


def newest_session_path(repo_path: Path) -> Path:
    sessions = sorted((repo_path / ".claude-sessions" / "sessions").glob("*.md"))
    return sessions[-1]


def touch_session(path: Path, k: int) -> None:
    """What a Stop hook commit sees: one more interaction and a new summary."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    for j, line in enumerate(lines):
        if line.startswith("summary:"):
            lines[j] = f'summary: "Bench edit {k}: tightened the commit path"'
            break
    text = "\n".join(lines)
    text = text.replace("## Decisions", f"### [23:{k % 60:02d}] User -> bench edit {k}\n"
                                        f"**Claude ->** appended interaction {k}.\n\n## Decisions", 1)
    path.write_text(text, encoding="utf-8")


# --- timing -----------------------------------------------------------------------

def time_cmd(argv: Sequence[str], cwd: Path, check: bool = True) -> float:
    """Wall seconds of one whole process, output captured (and discarded)."""
    env = os.environ.copy()
    t0 = time.perf_counter()
    out = subprocess.run(list(argv), cwd=cwd, capture_output=True, check=False, env=env)
    dt = time.perf_counter() - t0
    if check and out.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({out.returncode}): {out.stderr.decode(errors='replace')}")
    return dt


def time_call(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def med_ms(xs: Sequence[float]) -> str:
    return f"{statistics.median(xs) * 1000:.1f} ms"


def spread_ms(xs: Sequence[float]) -> str:
    s = sorted(xs)
    return f"min {s[0] * 1000:.1f} / median {statistics.median(s) * 1000:.1f} / max {s[-1] * 1000:.1f} ms"


def ratio_report(label: str, subject: Sequence[float], baseline: Sequence[float],
                 goal: float | None = None) -> float:
    """Print median-of-paired-ratios (primary) and ratio-of-medians; return the primary."""
    paired = statistics.median(s / b for s, b in zip(subject, baseline))
    of_medians = statistics.median(subject) / statistics.median(baseline)
    verdict = ""
    if goal is not None:
        verdict = f"  goal <= {goal:g}: {'MET' if paired <= goal else 'MISSED'}"
    print(f"RATIO {label}: {paired:.2f} (median of {len(subject)} paired ratios; "
          f"ratio of medians {of_medians:.2f}){verdict}")
    return paired


def header(title: str, **facts: object) -> None:
    from importlib.metadata import version

    import pygit2

    print(f"== {title}")
    print(f"python {PYTHON} ({sys.version.split()[0]}), pygit2 {version('pygit2')} / libgit2 "
          f"{pygit2.LIBGIT2_VERSION}, {git_version()}, {os.cpu_count()} cpu, loadavg "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for k, v in facts.items():
        print(f"  {k}: {v}")


def git_version() -> str:
    return subprocess.run([GIT, "--version"], capture_output=True, check=False, text=True).stdout.strip()


def fixture_main(tag: str, doc: str | None, default_reps: int,
                 run: Callable[[Path, int, int, argparse.Namespace], int],
                 extra: Callable[[argparse.ArgumentParser], None] | None = None) -> int:
    """The shared command line of the 10k benchmarks: parse, build a hermetic work dir, run, clean up."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2,000 sessions, 5 repetitions")
    ap.add_argument("--sessions", type=int, help="session files on the branch (default 10000)")
    ap.add_argument("--reps", type=int, help=f"repetitions of each measurement (default {default_reps})")
    ap.add_argument("--loose", action="store_true", help="leave the seed objects loose (default: packed)")
    ap.add_argument("--keep", action="store_true", help="keep the fixture folder")
    if extra is not None:
        extra(ap)
    args = ap.parse_args()
    n = args.sessions or (2000 if args.quick else 10000)
    reps = args.reps or (5 if args.quick else default_reps)
    work = make_workdir(tag)
    hermetic(work)
    try:
        return run(work, n, reps, args)
    finally:
        cleanup(work, args.keep)


# --- measuring this checkout --------------------------------------------------------

CHECKOUT = BENCH_DIR.parent


def use_checkout() -> None:
    """Import enf_git from this checkout, here and in every child, not from the editable install.

    The venv's editable finder points at the checkout it was installed from: a benchmark
    run from another worktree would measure that one. PYTHONPATH entries come before the
    finder, so one entry makes `git-enf` and the git hooks' interpreter load this one.
    Call before `hermetic()` (which imports enf_git) and again after it (it drops PYTHONPATH).
    """
    root = str(CHECKOUT)
    if sys.path[:1] != [root]:
        sys.path.insert(0, root)
    os.environ["PYTHONPATH"] = root
    loaded = sys.modules.get("enf_git")
    if loaded is not None and not str(loaded.__file__).startswith(root + os.sep):
        raise RuntimeError(f"enf_git was imported from {loaded.__file__} before use_checkout()")


def timed_run(argv: Sequence[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall seconds of one whole process, and the process (output kept, for checks)."""
    t0 = time.perf_counter()
    out = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, check=False,
                         env=os.environ.copy(), stdin=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({out.returncode}): {out.stderr}")
    return dt, out
