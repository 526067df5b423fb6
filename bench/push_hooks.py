"""`git push` and `git pull` with enf-git's git hooks installed, vs the same without them.

A remote (a bare repository served by `git daemon` on 127.0.0.1; `--path`: the bare
repository's path) and alice's clone, whose claude-memory holds N sessions (10,000;
--quick 2,000), pushed once; hooks installed by `git enf init`, enf.remote=origin.
The baseline is the same command in the same repository with
`git -c core.hooksPath=<an empty folder>`, so only the hooks differ. Interleaved, the
order rotating; every push carries one new code commit. Children import enf_git from
this checkout (common.use_checkout), whichever checkout the venv was installed from.

(a) `git push origin main`, memory unchanged (the shim's early exit)      goal <= 1.1
    also: the same push with a pre-push that is `exit 0` (what any hook costs)
(b) the same after one new memory commit (the hook pushes memory too)    goal <= 2.0
    until `git push` returns; and until memory has landed on the remote     goal <= 3.0
    (the remote's claude-memory is the clone's, polled from the bare repository's ref
    file every ms once git push returned): a push without hooks plus the memory push
    alone is ~2.2-2.7 at 10,000 sessions, so 3.0 leaves the hook ~0.3-0.8 of a push for
    its own start and checks; ~3.4-3.9 at 100,000 (the remote's connectivity check walks
    the new commit's whole tree), where memory lands before that only because it goes
    alongside; also reported: until the hook's part has exited (its output closed)
    also: `git push` of that memory commit alone; baseline + that = the floor of any
    hook that pushes memory before the code push goes on
(c) bob's `git pull` of alice's code + memory (post-merge merges it)     reported
(d) a first push of a large memory branch (N sessions never pushed, to a fresh remote;
    with the secret scan, and with its marker kept) vs `git push` of an ordinary branch
    holding the same tree; what `git count-objects -v` on the remote gained: one pack,
    no loose objects from memory                                            reported

`--keep` leaves the work folder; `--reuse DIR` copies such a folder (alice, bob and the
remote; the 100,000-session fixture takes minutes to build) and measures on the copy, so
every run starts from the same state; `--sessions` must name the size it was built with.
`--trace DIR`: after the measurements, one memory push alone and one `git push` with the
hooks, each with GIT_TRACE2_PERF (client and server, through the daemon) written to DIR.

Run: .venv/bin/python bench/push_hooks.py [--quick] [--reps N] [--sessions N] [--path] [--only abcd] [--keep]
     [--reuse DIR] [--trace DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import common

BRANCH = "claude-memory"


def main() -> int:
    common.use_checkout()

    def extra(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--path", action="store_true", help="push to the bare repository's path, not git://")
        ap.add_argument("--only", default="abcd", help="the parts to measure, e.g. --only b (default: abcd)")
        ap.add_argument("--reuse", type=Path, help="a work folder kept by an earlier --keep run: measured on a copy")
        ap.add_argument("--trace", type=Path, help="write GIT_TRACE2_PERF of a memory push and a hooked push here")

    return common.fixture_main("push", __doc__, 15, run, extra)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    common.use_checkout()  # hermetic() dropped PYTHONPATH
    if args.reuse:
        copy_fixture(args.reuse.resolve(), work)
    served = work / "served"
    served.mkdir(exist_ok=True)
    daemon = None if args.path else Daemon(served)
    try:
        url: Callable[[str], str] = daemon.url if daemon else (lambda name: str(served / name))
        common.header("push_hooks", sessions=n, repetitions=reps, remote=url("<name>.git"),
                      objects="loose" if args.loose else "packed", enf_git=common.CHECKOUT)
        bench = Bench(work, served, url, n, reps, not args.loose)
        if args.reuse:
            bench.reuse()
        else:
            bench.setup()
        parts = {"a": bench.push_unchanged, "b": bench.push_with_memory, "c": bench.pull, "d": bench.first_push}
        for part in sorted(set(args.only) & set(parts)):
            parts[part]()
        if args.trace:
            out = args.trace.resolve()
            (out / "server").mkdir(parents=True, exist_ok=True)  # trace2 writes into a folder that exists
            if daemon:  # the same port, so the clones' URL (and the hook's note of it) holds
                daemon.stop()
                daemon = Daemon(served, daemon.port, env={"GIT_TRACE2_PERF": str(out / "server")})
            bench.trace(out)
    finally:
        if daemon:
            daemon.stop()
    return 0


class Daemon:
    """`git daemon` serving `base` on a free 127.0.0.1 port (or `port`), push enabled;
    `env`: more environment for it and the git processes it starts (a trace)."""

    def __init__(self, base: Path, port: int = 0, env: dict[str, str] | None = None) -> None:
        self.port = port or free_port()
        exe = os.path.join(common.git(base, "--exec-path").strip(), "git-daemon")
        self.proc = subprocess.Popen(
            [exe, "--reuseaddr", f"--base-path={base}", "--export-all", "--enable=receive-pack",
             "--listen=127.0.0.1", f"--port={self.port}", str(base)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("git daemon did not start (try --path)")

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)  # it forks a child per connection
        self.proc.wait()


class Bench:
    def __init__(self, work: Path, served: Path, url: Callable[[str], str], n: int, reps: int, pack: bool) -> None:
        self.work, self.served, self.url, self.n, self.reps, self.pack = work, served, url, n, reps, pack
        self.empty = work / "no-hooks"  # core.hooksPath of the baseline: git runs no hook
        self.empty.mkdir(exist_ok=True)
        self.trivial = work / "exit-0-hooks"  # a pre-push that does nothing: what any hook costs
        self.trivial.mkdir(exist_ok=True)
        (self.trivial / "pre-push").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (self.trivial / "pre-push").chmod(0o755)
        self.alice = work / "alice"
        self.bob = work / "bob"
        self.k = 0  # a counter for unique file names

    # --- fixture ----------------------------------------------------------------------

    def setup(self) -> None:
        origin = bare(self.served / "origin.git")
        common.init_user_repo(self.alice)
        t_seed = common.time_call(lambda: common.seed_branch(self.alice, self.n, pack=self.pack))
        common.git(self.alice, "remote", "add", "origin", self.url("origin.git"))
        common.git(self.alice, "push", "-q", "origin", "main")
        t_init = common.time_call(lambda: common.run_enf(self.alice, "init"))
        t_sync = common.time_call(lambda: common.run_enf(self.alice, "sync"))
        print(f"fixture: seeded {self.n} sessions {t_seed:.1f} s; alice's git enf init {t_init:.1f} s; "
              f"first git enf sync (scan + push of all memory) {t_sync:.1f} s")
        assert rev(origin, f"refs/heads/{BRANCH}") == rev(self.alice, BRANCH), "memory did not reach origin"
        assert "core.hookspath" not in common.git(self.alice, "config", "--list").lower()
        common.git(self.work, "clone", "-q", self.url("origin.git"), str(self.bob))
        common.run_enf(self.bob, "init")
        assert rev(self.bob, BRANCH) == rev(self.alice, BRANCH), "bob did not adopt alice's memory"
        self.push(self.alice, hooks=False)  # warm: the first pushes pay for cold caches
        self.push(self.alice, hooks=True)

    def reuse(self) -> None:
        """A copied fixture: its remote is served on a new port, so both clones point there,
        and this checkout's hooks are installed; the counter goes on past the files an
        earlier run committed."""
        for repo in (self.alice, self.bob):
            common.git(repo, "remote", "set-url", "origin", self.url("origin.git"))
            common.run_enf(repo, "init")  # this checkout's hooks, not the ones the kept run installed
        self.k = 1 + max((int(p.stem.split("-")[1]) for p in self.alice.glob("code-*.txt")), default=0)
        print(f"fixture: {self.n} sessions, reused (a copy)")
        self.push(self.alice, hooks=False)  # warm, and the hook notes the remote's new URL
        self.memory_commit(self.alice)
        self.push(self.alice, hooks=True)
        self.wait_landed()
        self.push(self.alice, hooks=True)

    def wait_landed(self) -> None:
        """Until the remote's claude-memory is the clone's (a push alongside lands after it returns)."""
        want = rev(self.alice, BRANCH)
        deadline = time.monotonic() + 60
        while ref_file(self.served / "origin.git", f"refs/heads/{BRANCH}") != want and time.monotonic() < deadline:
            time.sleep(0.01)
        check(rev(self.served / "origin.git", f"refs/heads/{BRANCH}") == want, "memory did not land")

    def code_commit(self, repo: Path) -> None:
        self.k += 1
        name = f"code-{self.k}.txt"
        (repo / name).write_text(f"{self.k}\n", encoding="utf-8")
        common.git(repo, "add", name)
        common.git(repo, "commit", "-q", "-m", f"code {self.k}")

    def memory_commit(self, repo: Path) -> None:
        self.k += 1
        stem = f"2099-01-01-push-bench-{self.k:05d}"
        path = repo / ".claude-sessions" / "sessions" / f"{stem}.md"
        path.write_text(f"---\nsession_id: b{self.k:07x}\ndate: 2099-01-01\nstart_time: \"10:00\"\n"
                        f"tags: [bench]\nstatus: completed\nsummary: \"Push bench {self.k}\"\n---\n"
                        "## Intent\nMeasure the pre-push hook.\n", encoding="utf-8")
        common.run_enf(repo, "commit", "-m", "bench")

    def git_argv(self, hooks: bool, *args: str) -> list[str]:
        return [common.GIT, *([] if hooks else ["-c", f"core.hooksPath={self.empty}"]), *args]

    def push(self, repo: Path, hooks: bool, *config: str) -> tuple[float, str]:
        """`git [config…] push -q origin main` after a new code commit; output kept (so timed
        until every process writing it, our hook's included, is done)."""
        self.code_commit(repo)
        argv = self.git_argv(hooks, *config, "push", "-q", "origin", "main")
        dt, out = common.timed_run(argv, repo)
        return dt, out.stderr

    # --- (a) and (b) --------------------------------------------------------------------

    def push_unchanged(self) -> None:
        origin = self.served / "origin.git"

        def subject() -> float:
            before = rev(origin, f"refs/heads/{BRANCH}")
            dt, err = self.push(self.alice, hooks=True)
            check("enf-git" not in err, f"the hook spoke with nothing to push: {err}")
            check(rev(origin, f"refs/heads/{BRANCH}") == before, "memory moved with nothing to push")
            return dt

        def empty_hook() -> float:
            self.code_commit(self.alice)
            argv = [common.GIT, "-c", f"core.hooksPath={self.trivial}", "push", "-q", "origin", "main"]
            return common.timed_run(argv, self.alice)[0]

        subj, base, floor = interleave(self.reps, subject, lambda: self.push(self.alice, hooks=False)[0],
                                       empty_hook)
        print(f"(a) git push, hooks, memory unchanged  N={self.reps}: {common.spread_ms(subj)}")
        print(f"(a) git push, no hooks                 N={self.reps}: {common.spread_ms(base)}")
        print(f"(a) git push, pre-push is `exit 0`     N={self.reps}: {common.spread_ms(floor)}")
        common.ratio_report("push-unchanged/push", subj, base, goal=1.1)
        common.ratio_report("push with an empty pre-push/push, the floor of any hook", floor, base)

    def push_with_memory(self) -> None:
        origin = self.served / "origin.git"
        landed: list[float] = []
        exited: list[float] = []

        def alongside() -> float:
            """The default: our part goes beside the code push; timed until `git push` returns
            (what a terminal waits for), until memory has landed (the remote's claude-memory is
            the clone's), and until our part has exited (its output closed)."""
            self.memory_commit(self.alice)
            self.code_commit(self.alice)
            want = rev(self.alice, BRANCH)
            returned, arrived, done, err = push_alongside(
                self.git_argv(True, "push", "-q", "origin", "main"), self.alice,
                lambda: ref_file(origin, f"refs/heads/{BRANCH}") == want)
            check(rev(origin, f"refs/heads/{BRANCH}") == want, f"memory was not pushed: {err}")
            landed.append(arrived)
            exited.append(done)
            return returned

        def first() -> float:
            """enf.pushMemory=first: memory is pushed before git goes on with the code."""
            self.memory_commit(self.alice)
            dt, err = self.push(self.alice, True, "-c", "enf.pushMemory=first")
            check(rev(origin, f"refs/heads/{BRANCH}") == rev(self.alice, BRANCH), f"memory was not pushed: {err}")
            return dt

        def memory_alone() -> float:
            """The nested push by itself: what any synchronous pre-push must add."""
            self.memory_commit(self.alice)
            dt, _ = common.timed_run(self.git_argv(False, "push", "-q", "origin", BRANCH), self.alice)
            return dt

        subj, synced, base, alone = interleave(self.reps, alongside, first,
                                               lambda: self.push(self.alice, hooks=False)[0], memory_alone)
        print(f"(b) git push, hooks, 1 memory commit   N={self.reps}: {common.spread_ms(subj)}  (returned)")
        print(f"(b)   ... until memory landed          N={self.reps}: {common.spread_ms(landed)}")
        print(f"(b)   ... until the hook's part exited  N={self.reps}: {common.spread_ms(exited)}")
        print(f"(b) the same, enf.pushMemory=first     N={self.reps}: {common.spread_ms(synced)}")
        print(f"(b) git push, no hooks                 N={self.reps}: {common.spread_ms(base)}")
        print(f"(b) git push of that memory alone      N={self.reps}: {common.spread_ms(alone)}")
        common.ratio_report("push-with-memory/push (git push returned)", subj, base, goal=2.0)
        common.ratio_report("push-with-memory/push (memory landed)", landed, base, goal=3.0)
        common.ratio_report("push-with-memory/push (the hook's part exited)", exited, base)
        common.ratio_report("push-with-memory/push (enf.pushMemory=first)", synced, base)
        floor = [b + a for b, a in zip(base, alone)]
        common.ratio_report("(push + memory push alone)/push, the floor of a synchronous hook", floor, base)

    # --- traces -------------------------------------------------------------------------

    def trace(self, out: Path) -> None:
        """GIT_TRACE2_PERF of the client's git processes (the hook's included) per push, in
        out/<what>/; the server's (through the daemon: out/server/) are told apart by time."""
        env = os.environ.copy()
        for what in ("memory-alone", "code-alone", "hooked", "memory-alone-2", "code-alone-2", "hooked-2"):
            folder = out / what
            folder.mkdir(parents=True, exist_ok=True)
            if not what.startswith("code-alone"):
                self.memory_commit(self.alice)  # not traced
            os.environ["GIT_TRACE2_PERF"] = str(folder)
            try:
                if what.startswith("memory-alone"):
                    t0 = time.time()
                    common.timed_run(self.git_argv(False, "push", "-q", "origin", BRANCH), self.alice)
                elif what.startswith("code-alone"):
                    t0 = time.time()
                    self.push(self.alice, hooks=False)
                else:
                    t0 = time.time()
                    self.push(self.alice, hooks=True)
                    self.wait_landed()
            finally:
                os.environ.clear()
                os.environ.update(env)
            print(f"trace: {what} started at {t0:.6f} (epoch), in {folder}")
            time.sleep(0.5)

    # --- (c) ----------------------------------------------------------------------------

    def pull(self) -> None:
        """Alice pushes code + a memory commit; bob pulls it, with and without his hooks."""

        def pull(hooks: bool) -> float:
            self.memory_commit(self.alice)
            self.push(self.alice, hooks=True)
            theirs = rev(self.alice, BRANCH)
            # Plain `git pull`: the clone's fetch refspec brings claude-memory's tracking ref too
            # (`git pull origin main` would fetch main alone, and post-merge would find nothing new).
            dt, out = common.timed_run(self.git_argv(hooks, "pull", "-q", "--no-rebase"), self.bob)
            if hooks:
                check(is_ancestor(self.bob, theirs, BRANCH) and "enf-git: " in out.stderr,
                      f"post-merge did not merge alice's memory: {out.stderr}")
            return dt

        for _ in range(2):  # settle: bob's first merges build his records cache
            pull(True)
        subj, base = interleave(self.reps, lambda: pull(True), lambda: pull(False))
        print(f"(c) git pull, hooks (memory merged)    N={self.reps}: {common.spread_ms(subj)}")
        print(f"(c) git pull, no hooks                 N={self.reps}: {common.spread_ms(base)}")
        common.ratio_report("pull/pull", subj, base)

    # --- (d) ----------------------------------------------------------------------------

    def first_push(self) -> None:
        """carol: N sessions never pushed; each rep a fresh remote, so memory goes whole."""
        carol = self.work / "carol"
        common.init_user_repo(carol)
        common.seed_branch(carol, self.n, pack=self.pack)
        common.git(carol, "remote", "add", "origin", self.url("carol.git"))
        common.run_enf(carol, "init")
        tree = rev(carol, f"{BRANCH}^{{tree}}")
        big = common.git(carol, "commit-tree", tree, "-p", "main", "-m", "an ordinary branch, as large").strip()
        common.git(carol, "branch", "big", big)
        t_scan = common.time_call(lambda: common.run_enf(carol, "scan"))
        print(f"(d) fixture: carol's {self.n} sessions never pushed; git enf scan alone {t_scan:.2f} s")
        reps = max(1, min(self.reps, 5))
        landed: list[str] = []

        def first(scanned: bool) -> float:
            self.fresh_remote(carol, scanned)
            before = objects(self.served / "carol.git")
            dt, err = self.push(carol, hooks=True)
            check(rev(self.served / "carol.git", f"refs/heads/{BRANCH}") == rev(carol, BRANCH),
                  f"the first push of memory did not land: {err}")
            landed.append(added(before, objects(self.served / "carol.git")))
            return dt

        def baseline() -> float:
            self.fresh_remote(carol, True)
            before = objects(self.served / "carol.git")
            dt, _ = common.timed_run(self.git_argv(False, "push", "-q", "origin", "big"), carol)
            landed.append(added(before, objects(self.served / "carol.git")))
            return dt

        subj, warm, base = interleave(reps, lambda: first(False), lambda: first(True), baseline)
        print(f"(d) git push main, hooks: first push of memory, scan included  N={reps}: {common.spread_ms(subj)}")
        print(f"(d) the same, the scan already done (its marker kept)          N={reps}: {common.spread_ms(warm)}")
        print(f"(d) git push of an ordinary branch holding the same tree        N={reps}: {common.spread_ms(base)}")
        common.ratio_report("first-push/push-big", subj, base)
        common.ratio_report("first-push-scanned-before/push-big", warm, base)
        print(f"(d) what each push added to its fresh remote (git count-objects -v): {landed[0]} (memory, and "
              f"the 3 objects of the new code commit, loose as git keeps any push under "
              f"transfer.unpackLimit = 100 objects); {landed[2]} (ordinary branch)")
        check(all(a.startswith(("loose +0,", "loose +3,")) for a in landed), f"a push left loose objects: {landed}")

    def fresh_remote(self, repo: Path, scanned: bool) -> None:
        """An empty remote that has the code's main (memory goes only next to code), and a
        clone whose memory never went there (no tracking ref; no scan marker unless `scanned`)."""
        path = self.served / "carol.git"
        shutil.rmtree(path, ignore_errors=True)
        bare(path)
        common.timed_run(self.git_argv(False, "push", "-q", "origin", "main"), repo)
        common.git(repo, "update-ref", "-d", f"refs/remotes/origin/{BRANCH}")
        if not scanned:
            shutil.rmtree(repo / ".git" / "enf" / "pushed", ignore_errors=True)


# --- helpers --------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def copy_fixture(kept: Path, work: Path) -> None:
    """The kept run's clones and remote, copied into this run's folder (symlinks as links)."""
    if not (kept / "alice" / ".git").is_dir() or not (kept / "served" / "origin.git").is_dir():
        raise SystemExit(f"--reuse: no kept push_hooks fixture at {kept} (keep one with --keep --only b)")
    for name in ("alice", "bob", "served"):
        shutil.copytree(kept / name, work / name, symlinks=True)


def bare(path: Path) -> Path:
    common.git(path.parent, "init", "-q", "--bare", str(path))
    return path


def rev(repo: Path, ref: str) -> str:
    out = subprocess.run([common.GIT, "rev-parse", "-q", "--verify", ref], cwd=repo, capture_output=True,
                         text=True, check=False)
    return out.stdout.strip()


def ref_file(bare_repo: Path, ref: str) -> str:
    """The ref's value read from the bare repository's files (loose, then packed-refs),
    cheap enough to poll; '' if absent."""
    try:
        return (bare_repo / ref).read_text(encoding="utf-8").strip()
    except OSError:
        pass
    try:
        packed = (bare_repo / "packed-refs").read_text(encoding="utf-8")
    except OSError:
        return ""
    for line in packed.splitlines():
        oid, _, name = line.partition(" ")
        if name == ref:
            return oid
    return ""


def is_ancestor(repo: Path, old: str, new: str) -> bool:
    return subprocess.run([common.GIT, "merge-base", "--is-ancestor", old, new], cwd=repo,
                          capture_output=True, check=False).returncode == 0


def objects(bare_repo: Path) -> dict[str, int]:
    """`git count-objects -v`: loose objects and those in packs."""
    facts = dict(line.split(": ", 1) for line in common.git(bare_repo, "count-objects", "-v").splitlines())
    return {k: int(facts[k]) for k in ("count", "in-pack", "packs", "size-pack")}


def added(before: dict[str, int], after: dict[str, int]) -> str:
    d = {k: after[k] - before[k] for k in after}
    return (f"loose +{d['count']}, in packs +{d['in-pack']} ({d['packs']} new pack{'s' if d['packs'] != 1 else ''}, "
            f"{d['size-pack']} KiB)")


def push_alongside(argv: list[str], cwd: Path, arrived: Callable[[], bool]) -> tuple[float, float, float, str]:
    """Seconds until `git push` returned, until memory landed (`arrived()`, polled from
    then on), and until the output closed (every process that writes it, our hook's
    background part included, has exited); and that output."""
    import threading

    chunks: list[bytes] = []
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=os.environ.copy())
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: proc.stdout.read(4096), b"")))  # type: ignore[union-attr]
    reader.start()
    code = proc.wait()
    returned = time.perf_counter() - t0
    deadline = time.monotonic() + 60
    while not arrived() and time.monotonic() < deadline:  # a file read every ms: no process in the way
        time.sleep(0.001)
    landed = time.perf_counter() - t0
    reader.join()
    done = time.perf_counter() - t0
    out = b"".join(chunks).decode(errors="replace")
    if code != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({code}): {out}")
    return returned, landed, done, out


def interleave(reps: int, *series: Callable[[], float]) -> tuple[list[float], ...]:
    """Each measurement once per repetition, the order rotating so none is always first."""
    out: tuple[list[float], ...] = tuple([] for _ in series)
    for k in range(reps):
        for j in range(len(series)):
            which = (j + k) % len(series)
            out[which].append(series[which]())
    return out


def check(ok: bool, message: str) -> None:
    if not ok:
        raise SystemExit(f"FAIL: {message}")


if __name__ == "__main__":
    raise SystemExit(main())
