"""`git enf sync` between real clones of a bare remote, with the real git binary.

Every record of every clone lands, trees end identical, nothing is forced (the
remote's branch only moves forward), and each failure says what happened.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git import memory
from gitfixtures import GitDaemon, run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))


def enf(cwd: Path, *args: str, code: int = 0) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


@pytest.fixture
def origin(tmp_path: Path, repo_dir: Path) -> Path:
    """A bare remote holding the code's main branch (repo_dir's first commit)."""
    bare = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(repo_dir, "remote", "add", "origin", str(bare))
    run_git(repo_dir, "push", "-q", "origin", "main")
    return bare


def clone(tmp_path: Path, origin: Path | str, name: str) -> Path:
    path = tmp_path / name
    run_git(tmp_path, "clone", "-q", str(origin), str(path))
    run_git(path, "config", "user.name", name)
    run_git(path, "config", "user.email", f"{name}@example.com")
    enf(path, "init", "--no-hooks")
    return path


def write(clone_dir: Path, date: str, sid: str, summary: str) -> None:
    (clone_dir / ".claude-sessions" / "sessions" / f"{date}-{summary.lower().replace(' ', '-')}.md").write_text(
        session_text(session_id=sid, date=date, summary=summary))


def sessions_on(path: Path, ref: str = "claude-memory") -> list[str]:
    out = run_git(path, "ls-tree", "-r", "--name-only", ref, "--", "sessions").replace("sessions/", "")
    return sorted(out.split())


def test_two_clones_share_every_record_and_end_identical(tmp_path: Path, origin: Path) -> None:
    a, b = clone(tmp_path, origin, "alice"), clone(tmp_path, origin, "bob")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    assert sessions_on(origin) == ["2026-04-13-alice-work.md"]
    write(b, "2026-04-14", "b2b2b2b2", "Bob work")
    out = enf(b, "sync")
    assert "merged" in out  # two roots: bob's init had made a branch of its own
    enf(a, "sync")
    expected = ["2026-04-13-alice-work.md", "2026-04-14-bob-work.md"]
    assert sessions_on(a) == sessions_on(b) == sessions_on(origin) == expected
    assert run_git(a, "rev-parse", "claude-memory^{tree}") == run_git(b, "rev-parse", "claude-memory^{tree}")
    assert (a / ".claude-sessions" / "sessions" / "2026-04-14-bob-work.md").is_file()  # working copy refreshed
    assert "Bob work" in (a / ".claude-sessions" / "index.md").read_text()
    run_git(origin, "fsck", "--strict")
    # The remote's branch only ever moved forward.
    log = run_git(origin, "rev-list", "claude-memory")
    for oid in (run_git(a, "rev-parse", "claude-memory~1"),):
        assert oid.strip() in log


def test_the_same_record_changed_on_both_sides_keeps_both(tmp_path: Path, origin: Path) -> None:
    a, b = clone(tmp_path, origin, "alice"), clone(tmp_path, origin, "bob")
    write(a, "2026-04-13", "a1a1a1a1", "Shared")
    enf(a, "sync")
    enf(b, "sync")
    path = "sessions/2026-04-13-shared.md"
    (a / ".claude-sessions" / path).write_text(session_text(session_id="a1a1a1a1", date="2026-04-13", summary="A"))
    (b / ".claude-sessions" / path).write_text(session_text(session_id="a1a1a1a1", date="2026-04-13", summary="B"))
    enf(a, "sync")
    out = enf(b, "sync")
    assert "conflict: sessions/2026-04-13-shared.md changed on both sides" in out
    enf(a, "sync")
    files = run_git(a, "ls-tree", "-r", "--name-only", "claude-memory").split()
    copies = [f for f in files if f.startswith("conflicts/")]
    assert len(copies) == 1 and path in files
    texts = {run_git(a, "show", f"claude-memory:{p}") for p in (path, copies[0])}
    assert any('summary: "A"' in t for t in texts) and any('summary: "B"' in t for t in texts)
    assert "<<<<<<<" not in run_git(a, "log", "-p", "claude-memory")


def test_a_remote_without_the_code_gets_no_memory(tmp_path: Path, repo_dir: Path) -> None:
    empty = tmp_path / "empty.git"
    run_git(tmp_path, "init", "-q", "--bare", str(empty))
    run_git(repo_dir, "remote", "add", "origin", str(empty))
    enf(repo_dir, "init", "--no-hooks")
    out = enf(repo_dir, "sync")
    assert "has none of the code's branches yet, so memory was not pushed there" in out
    assert run_git(empty, "branch", "--list").strip() == ""
    run_git(repo_dir, "push", "-q", "origin", "main")
    enf(repo_dir, "sync")
    assert run_git(empty, "branch", "--list", "claude-memory").strip()


def test_a_remote_that_does_not_exist_fails_closed(repo_dir: Path) -> None:
    enf(repo_dir, "init", "--no-hooks")
    run_git(repo_dir, "config", "enf.remote", "nosuch")
    out = enf(repo_dir, "sync", code=1)
    assert "'nosuch' is not a remote of this repository, so memory was not synced" in out


def test_offline_keeps_memory_committed_and_says_so(repo_dir: Path) -> None:
    enf(repo_dir, "init", "--no-hooks")
    run_git(repo_dir, "remote", "add", "origin", "git://127.0.0.1:1/nothing-listens-here")
    run_git(repo_dir, "config", "enf.remote", "origin")
    write(repo_dir, "2026-04-13", "a1a1a1a1", "Offline work")
    out = enf(repo_dir, "sync", code=1)
    assert "could not be reached" in out or "offline" in out.lower()
    assert sessions_on(repo_dir) == ["2026-04-13-offline-work.md"]  # committed locally all the same


def test_dry_run_changes_nothing_and_json_is_an_envelope(tmp_path: Path, origin: Path) -> None:
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    before = run_git(a, "for-each-ref")
    plan = json.loads(enf(a, "sync", "--dry-run", "--json"))
    assert plan["schema"] == 1 and plan["command"] == "sync" and plan["dry_run"] is True
    assert plan["plan"]["push"] == "create" and plan["plan"]["remote"] == "absent"
    assert plan["plan"]["commit"] == ["sessions/2026-04-13-alice-work.md"]
    assert run_git(a, "for-each-ref") == before and run_git(origin, "branch", "--list", "claude-memory") == ""
    done = json.loads(enf(a, "sync", "--json"))
    assert done["ok"] is True and done["pushed"] == "ok"
    assert json.loads(enf(a, "sync", "--json"))["pushed"] is None  # nothing new: nothing pushed


def test_dry_run_names_what_the_working_copy_would_commit_first(tmp_path: Path, origin: Path) -> None:
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    assert "would commit" not in (out := enf(a, "sync", "--dry-run")) and "would push: nothing" in out
    write(a, "2026-04-14", "b2b2b2b2", "More work")
    before = run_git(a, "for-each-ref")
    out = enf(a, "sync", "--dry-run")
    assert "would commit first: 1 file (sessions/2026-04-14-more-work.md)" in out
    assert "would push: the commit above (0 ahead, 0 behind, before that commit)" in out
    assert run_git(a, "for-each-ref") == before  # nothing committed
    assert "pushed claude-memory to origin" in enf(a, "sync")


def test_three_clones_syncing_at_once_lose_nothing(tmp_path: Path, origin: Path) -> None:
    clones = [clone(tmp_path, origin, name) for name in ("alice", "bob", "carol")]
    expected = []
    for round_ in range(3):
        for n, c in enumerate(clones):
            name = f"r{round_}-c{n}"
            write(c, f"2026-05-{round_ + 1:02d}", f"{n}{round_}abcdef"[:8], name.replace("-", " "))
            expected.append(f"2026-05-{round_ + 1:02d}-{name}.md")
        procs = [subprocess.Popen([GIT_ENF, "sync"], cwd=c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True) for c in clones]
        for p in procs:
            out, _ = p.communicate(timeout=180)
            assert p.returncode in (0, 1), out
    for c in clones:  # settle: whoever lost a race above catches up now
        enf(c, "sync")
    for c in clones:
        enf(c, "sync")
    trees = {run_git(c, "rev-parse", "claude-memory^{tree}") for c in clones}
    assert len(trees) == 1
    assert sessions_on(origin) == sorted(expected)
    run_git(origin, "fsck", "--strict")


def test_three_clones_over_a_real_server_many_rounds_only_move_it_forward(tmp_path: Path, repo_dir: Path,
                                                                          git_daemon: GitDaemon) -> None:
    """Concurrent syncs through git daemon on loopback: every record lands, the trees end
    identical with no conflict marker, and the server's reflog shows only fast-forwards."""
    bare = git_daemon.create("team.git")
    run_git(bare, "config", "core.logAllRefUpdates", "always")  # a bare repo keeps no reflog by default
    run_git(repo_dir, "remote", "add", "origin", git_daemon.url("team.git"))
    run_git(repo_dir, "push", "-q", "origin", "main")
    clones = [clone(tmp_path, git_daemon.url("team.git"), name) for name in ("alice", "bob", "carol")]
    expected = []
    for round_ in range(5):
        for n, c in enumerate(clones):
            name = f"s{round_}-c{n}"
            write(c, f"2026-06-{round_ + 1:02d}", f"{n}{round_}fedcba"[:8], name.replace("-", " "))
            expected.append(f"2026-06-{round_ + 1:02d}-{name}.md")
        procs = [subprocess.Popen([GIT_ENF, "sync"], cwd=c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True) for c in clones]
        for p in procs:
            out, _ = p.communicate(timeout=180)
            assert p.returncode == 0, out  # five rounds of retry absorb three writers
    for c in clones * 2:  # the last writers' merges reach everyone
        enf(c, "sync")
    assert len({run_git(c, "rev-parse", "claude-memory^{tree}") for c in clones}) == 1
    assert sessions_on(bare) == sorted(expected)
    markers = subprocess.run(["git", "grep", "-l", "-e", "^<<<<<<< ", "-e", "^>>>>>>> ", "claude-memory"],
                             cwd=bare, capture_output=True, text=True)
    assert markers.returncode == 1 and markers.stdout == ""  # 1: no match anywhere on the branch
    moves = run_git(bare, "reflog", "show", "--format=%H", "refs/heads/claude-memory").split()
    assert len(moves) >= 5
    for newer, older in zip(moves, moves[1:]):
        assert subprocess.run(["git", "merge-base", "--is-ancestor", older, newer], cwd=bare).returncode == 0
    run_git(bare, "fsck", "--strict")


def test_memory_context_reads_the_remote_setting(repo_dir: Path, origin: Path) -> None:
    enf(repo_dir, "init", "--no-hooks")
    assert memory.Context.open(repo_dir).settings.remote == "origin"  # init elected origin


def test_a_server_hook_that_declines_is_no_push_rights(tmp_path: Path, origin: Path) -> None:
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nwhile read old new ref; do\n"
                    "  [ \"$ref\" = refs/heads/claude-memory ] && echo 'memory is read-only here' >&2 && exit 1\n"
                    "done\nexit 0\n")
    hook.chmod(0o755)
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    out = enf(a, "sync", code=1)
    assert "you may not push to claude-memory on origin" in out
    assert "the server said: memory is read-only here" in out  # its own reason, not only git's
    assert "memory stays committed locally" in out
    assert sessions_on(a) == ["2026-04-13-alice-work.md"]


@pytest.mark.parametrize("first", ["alice", "bob"])
@pytest.mark.parametrize("naming", ["id", "phrase", "session"])
def test_two_sides_reversing_one_decision_become_an_open_disagreement(tmp_path: Path, origin: Path, naming: str,
                                                                      first: str) -> None:
    """However the two reversals name the decision (its id, a phrase of it, the session it
    was made in) and whichever side syncs first, neither chains onto the other."""
    a, b = clone(tmp_path, origin, "alice"), clone(tmp_path, origin, "bob")
    rest = ("\n## Decisions\n- [10:00] Y: In the context of api, decided REST over GraphQL, to achieve simple "
            "clients. Confidence: high\n")
    (a / ".claude-sessions" / "sessions" / "2026-04-01-api-style.md").write_text(
        session_text(session_id="a1a1a1a1", date="2026-04-01", summary="API style", body=rest))
    enf(a, "sync")
    enf(b, "sync")
    rid = json.loads(enf(a, "log", "--decisions", "--json"))["decisions"][0]["id"]
    ref = {"id": rid, "phrase": "REST", "session": "api-style"}[naming]
    for who, new, day, sid in ((a, "GraphQL", "2026-04-05", "a2a2a2a2"), (b, "gRPC", "2026-04-06", "b2b2b2b2")):
        body = (f"\n## Decisions\n- [10:00] Y: In the context of api, decided {new} over REST, to achieve speed. "
                f"Confidence: medium\n\n## Reversals\n- [10:01] REVERSED {ref}: Changed from REST to {new} "
                "because of load\n")
        (who / ".claude-sessions" / "sessions" / f"{day}-to-{new.lower()}.md").write_text(
            session_text(session_id=sid, date=day, summary=f"To {new}", body=body))
        enf(who, "commit")  # each side reverses without having seen the other
    one, other = (a, b) if first == "alice" else (b, a)
    enf(one, "sync")
    enf(other, "sync")
    enf(one, "sync")
    status = json.loads(enf(a, "status", "--json"))
    [dis] = status["disagreements"]
    assert dis["decision"] == rid and [r["decided"] for r in dis["replacements"]] == ["GraphQL", "gRPC"]
    assert json.loads(enf(b, "status", "--json"))["disagreements"] == status["disagreements"]
    assert f"open disagreement: {rid} (REST) was reversed twice" in enf(a, "status")
    log = enf(a, "log", "--decisions")
    assert f"DISAGREEMENT: {rid} (REST) was reversed on two sides that had not seen each other" in log
    assert "alice <alice@example.com>" in log and "bob <bob@example.com>" in log
    decisions = json.loads(enf(b, "log", "--decisions", "--json"))["decisions"]
    assert sorted(d["decided"] for d in decisions) == ["GraphQL", "gRPC"]  # both stand, neither replaced the other
    from enf_git import paths
    payload = json.dumps({"session_id": "c0c0c0c0-0000", "cwd": str(a), "hook_event_name": "SessionStart",
                          "source": "startup"})
    proc = subprocess.run([sys.executable, "-c", paths.LAUNCH, "SessionStart"], input=payload, capture_output=True,
                          text=True, cwd=a, timeout=60)
    assert "## Open disagreements" in proc.stdout and rid in proc.stdout


def test_a_secret_in_history_stops_the_first_push_until_reviewed(tmp_path: Path, origin: Path) -> None:
    from enf_git.plumbing import store, store_write

    a = clone(tmp_path, origin, "alice")
    # A secret that reached the branch without redaction (an old enf-git, a push by hand).
    repo = store.open_repo(a)
    store_write.commit(repo, lambda tip: {"notes/old.md": b"aws key AKIAIOSFODNN7EXAMPLE in the notes\n"}, "old notes")
    store_write.commit(repo, lambda tip: {"notes/old.md": b"cleaned up\n"}, "clean up")
    out = enf(a, "scan", code=1)
    assert "notes/old.md in " in out and "1 span that look like secrets" in out
    assert json.loads(enf(a, "scan", "--json", code=1))["findings"][0]["path"] == "notes/old.md"
    out = enf(a, "sync", code=1)
    assert "memory was not pushed to origin: its history holds what looks like secrets: notes/old.md" in out
    assert run_git(origin, "branch", "--list", "claude-memory") == ""
    enf(a, "sync", "--allow")
    assert run_git(origin, "branch", "--list", "claude-memory").strip()
    write(a, "2026-04-14", "a2a2a2a2", "Later work")
    enf(a, "sync")  # reviewed once: later syncs to this remote do not ask again


def test_a_clean_history_scans_clean(tmp_path: Path, origin: Path) -> None:
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "commit")
    assert "nothing in claude-memory's history looks like a secret" in enf(a, "scan")


# -- the fetch started before the imports (entry.py) ------------------------------------


def git_logging_to(tmp_path: Path, log: Path) -> dict[str, str]:
    """An environment whose `git` (first on PATH) logs its subcommand, then runs the real one."""
    import os
    import shutil

    real = shutil.which("git")
    folder = tmp_path / "logging-git"
    folder.mkdir()
    script = folder / "git"
    script.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_a_plain_sync_fetches_once_started_before_its_imports(tmp_path: Path, origin: Path) -> None:
    """entry.py starts the fetch before pygit2 is imported; the sync must use that one,
    not make a second (each is a transfer), and the result must be the same."""
    a, b = clone(tmp_path, origin, "alice"), clone(tmp_path, origin, "bob")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    enf(a, "sync")
    write(b, "2026-04-14", "b2b2b2b2", "Bob work")
    log = tmp_path / "git.log"
    env = git_logging_to(tmp_path, log)
    proc = subprocess.run([GIT_ENF, "sync"], cwd=b, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "merged" in proc.stdout and "pushed claude-memory to origin" in proc.stdout
    assert log.read_text().split().count("fetch") == 1
    assert sessions_on(origin) == ["2026-04-13-alice-work.md", "2026-04-14-bob-work.md"]
    log.unlink()
    out = subprocess.run([GIT_ENF, "sync", "--json"], cwd=b, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0 and json.loads(out.stdout)["ok"] is True, out.stdout + out.stderr
    assert log.read_text().split().count("fetch") == 1


def test_an_early_fetch_for_another_remote_or_repository_is_ended_not_used(tmp_path: Path, origin: Path) -> None:
    from enf_git.plumbing import gitcli

    a = clone(tmp_path, origin, "alice")
    gitcli.start_early(str(a), None)
    assert gitcli.claim_early(str(a), "elsewhere") is None  # not the sync's remote: killed
    gitcli.start_early(str(a), None)
    assert gitcli.claim_early(str(tmp_path), "origin") is None  # another repository
    gitcli.start_early(str(a), None)
    started = gitcli.claim_early(str(a), "origin")
    assert started is not None and started.result().ok
    gitcli.start_early(str(a), None)
    gitcli.abandon_early()
    assert gitcli.claim_early(str(a), "origin") is None
    run_git(a, "config", "--unset", "enf.remote")
    gitcli.start_early(str(a), None)  # not shared: nothing is started
    assert gitcli.claim_early(str(a), "origin") is None


def test_the_sync_claims_the_fetch_entry_started(tmp_path: Path, origin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from enf_git import entry
    from enf_git.plumbing import gitcli

    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    claimed: list[object] = []
    real = gitcli.claim_early
    monkeypatch.setattr(gitcli, "claim_early", lambda top, configured: claimed.append(real(top, configured))
                        or claimed[-1])
    monkeypatch.chdir(a)
    monkeypatch.setattr(sys, "argv", ["git-enf", "sync"])

    def leave(code: int) -> None:  # entry exits with os._exit: not inside pytest
        raise SystemExit(code)

    monkeypatch.setattr(entry, "_exit_now", leave)
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 0
    assert len(claimed) == 1 and isinstance(claimed[0], gitcli.Fetching)
    assert sessions_on(origin) == ["2026-04-13-alice-work.md"]


def test_the_console_scripts_plain_sync_says_what_the_command_says(tmp_path: Path, origin: Path,
                                                                    repo_dir: Path) -> None:
    """`git-enf sync` skips click: its output and exit codes must not differ from the CLI's."""
    from click.testing import CliRunner

    from enf_git.cli.app import main

    def both(cwd: Path, *args: str) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
        fast = subprocess.run([GIT_ENF, "sync", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
        import os

        here = os.getcwd()
        os.chdir(cwd)
        try:
            slow = CliRunner().invoke(main, ["sync", *args], prog_name="git enf")
        finally:
            os.chdir(here)
        return (fast.returncode, fast.stdout, fast.stderr), (slow.exit_code, slow.stdout, slow.stderr)

    enf(repo_dir, "init", "--no-hooks")
    run_git(repo_dir, "config", "--unset", "enf.remote")
    fast, slow = both(repo_dir)
    assert fast == slow and fast[0] == 1 and "error: memory is not shared with any remote yet" in fast[2]
    run_git(repo_dir, "config", "enf.remote", "origin")
    write(repo_dir, "2026-04-13", "a1a1a1a1", "Alice work")
    fast = both(repo_dir)[0]
    assert fast[0] == 0 and "pushed claude-memory to origin" in fast[1]
    fast, slow = both(repo_dir)  # nothing new now: the same words either way
    assert fast == slow and "origin has all of memory" in fast[1]
    fast, slow = both(repo_dir, "--json")
    assert fast[0] == slow[0] == 0 and json.loads(fast[1]) == json.loads(slow[1])
    fresh = tmp_path / "fresh"
    run_git(tmp_path, "init", "-q", str(fresh))
    fast, slow = both(fresh)
    assert fast == slow and fast[0] == 1 and fast[2].startswith("error: ")


def test_settings_given_on_git_s_command_line_win(tmp_path: Path, origin: Path) -> None:
    """`git -c enf.remote=… enf sync`: git passes -c on in the environment, which libgit2
    does not read; we do, as git would."""
    a = clone(tmp_path, origin, "alice")
    write(a, "2026-04-13", "a1a1a1a1", "Alice work")
    proc = subprocess.run(["git", "-c", "enf.remote=nosuch", "enf", "sync"], cwd=a, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PATH": f"{Path(GIT_ENF).parent}{os.pathsep}{os.environ['PATH']}"})
    assert proc.returncode == 1 and "'nosuch' is not a remote of this repository" in proc.stderr, proc.stderr
    assert run_git(origin, "branch", "--list", "claude-memory") == ""
    from enf_git.plumbing import fastconfig

    env = {"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "enf.remote", "GIT_CONFIG_VALUE_0": "a",
           "GIT_CONFIG_KEY_1": "ENF.Remote", "GIT_CONFIG_VALUE_1": "b", "GIT_CONFIG_PARAMETERS": "'enf.remote'='c'"}
    assert fastconfig.command_line("enf.remote", env) == "c"  # -c wins over GIT_CONFIG_COUNT, as in git
    del env["GIT_CONFIG_PARAMETERS"]
    assert fastconfig.command_line("enf.remote", env) == "b"  # the last one given, any case
    assert fastconfig.command_line("enf.remote", {"GIT_CONFIG_PARAMETERS": "'enf.remote'"}) == "true"
    assert fastconfig.command_line("enf.remote", {}) is None
