"""The session handoff (seed 002): Stop writes a snapshot of this work tree (git status,
the last two hours' commits, the session's open items, the scratchpad's tail) into the
work tree's git dir; the next SessionStart prints it with its age. Pure units first, then
real repositories and real hook processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enf_git import memory, paths
from enf_git.assistants.claude import gate
from enf_git.memory.context import handoff
from enf_git.plumbing import store, store_write
from enf_git.pure import handoff as ph
from enf_git.pure import model
from gitfixtures import Git, run_git, session_text

SID1 = "11111111-aaaa-bbbb-cccc-000000000001"
SID2 = "22222222-aaaa-bbbb-cccc-000000000002"
NOW = 1_776_081_600  # 2026-04-13T12:00:00Z: the fixtures' commit date
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


# --- pure: git's output ----------------------------------------------------------------------

STATUS_V2 = """# branch.oid 77eff45879aabd6ebc05c9cb7272a015463c13bc
# branch.head main
# branch.upstream origin/main
# branch.ab +2 -0
1 .M N... 100644 100644 100644 aaaa aaaa src/app.py
1 A. N... 000000 100644 100644 0000 bbbb new file.txt
2 R. N... 100644 100644 100644 cccc cccc R100 renamed.py\told.py
u UU N... 100644 100644 100644 100644 dddd eeee ffff conflicted.py
? notes/
! ignored.log
"""


def test_status_v2_reads_branch_upstream_and_every_entry_kind() -> None:
    st = ph.parse_status(STATUS_V2)
    assert (st.branch, st.head[:7], st.upstream) == ("main", "77eff45", "origin/main [ahead 2]")
    assert st.files == (" M src/app.py", "A  new file.txt", "R  old.py -> renamed.py", "UU conflicted.py",
                        "?? notes/", "!! ignored.log")
    assert st.total == 6


def test_status_before_the_first_commit_and_detached() -> None:
    assert ph.parse_status("# branch.oid (initial)\n# branch.head main\n? a\n") == ph.Status("main", "", "", ("?? a",), 1)
    detached = ph.parse_status("# branch.oid abc123\n# branch.head (detached)\n")
    assert (detached.branch, detached.head, detached.total) == ("", "abc123", 0)


def test_status_keeps_the_first_files_and_counts_the_rest() -> None:
    out = "# branch.head main\n" + "".join(f"? file{i:02d}\n" for i in range(30))
    st = ph.parse_status(out)
    assert len(st.files) == ph.MAX_FILES and st.files[-1] == "?? file19" and st.total == 30


def test_log_lines_are_cut_and_counted() -> None:
    commits, total = ph.parse_log("".join(f"abc{i:04d}\tsubject {i}\n" for i in range(14)))
    assert commits[0] == "abc0000 subject 0" and len(commits) == ph.MAX_COMMITS and total == 14


# --- pure: the block -------------------------------------------------------------------------

def snapshot(**kw: object) -> ph.Snapshot:
    base: dict[str, object] = dict(
        written=NOW, session="11111111", session_file=".claude-sessions/sessions/2026-04-13-one.md",
        status=ph.Status("main", "77eff45879aa", "", (" M src/app.py",), 1), commits=("77eff45 Fix the parser",),
        commits_total=1, items=("- [ ] write the tests",), scratchpad=paths.SCRATCHPAD, scratch_tail="try the cache")
    base.update(kw)
    return ph.Snapshot(**base)  # type: ignore[arg-type]


def test_block_is_labelled_with_its_age_and_shows_what_the_session_left() -> None:
    text = ph.block(snapshot(), NOW + 3 * 3600 + 120)
    assert text.startswith("## Last session handoff (3h ago)\nSession 11111111 (.claude-sessions/sessions/")
    for part in ("on branch main", " M src/app.py", "- 77eff45 Fix the parser", "- [ ] write the tests",
                 f"Scratchpad ({paths.SCRATCHPAD})", "> try the cache"):
        assert part in text


@pytest.mark.parametrize(("age", "label"), [(-30, "just now"), (59, "just now"), (600, "10 min ago"),
                                            (3600, "1h ago"), (47 * 3600, "47h ago")])
def test_age_labels(age: int, label: str) -> None:
    assert ph.age_label(age) == label


def test_a_handoff_over_48_hours_old_is_not_shown() -> None:
    assert ph.block(snapshot(), NOW + ph.MAX_AGE).startswith("## Last session handoff (48h ago)")
    assert ph.block(snapshot(), NOW + ph.MAX_AGE + 1) == ""
    assert ph.block(None, NOW) == ""


def test_a_handoff_from_the_future_is_not_shown() -> None:
    """A writer's clock that was ahead: within MAX_SKEW it is "just now", beyond it the age is
    unknown (it would read "just now" for ever, never going stale), so it is not shown."""
    assert ph.block(snapshot(written=NOW + ph.MAX_SKEW), NOW).startswith("## Last session handoff (just now)")
    assert ph.block(snapshot(written=NOW + ph.MAX_SKEW + 1), NOW) == ""
    assert ph.block(snapshot(written=NOW + 30 * 24 * 3600), NOW) == ""


def test_the_starting_sessions_own_handoff_is_not_shown() -> None:
    assert ph.block(snapshot(), NOW, current="11111111") == ""
    assert ph.block(snapshot(), NOW, current="22222222").startswith("## Last session handoff")
    assert ph.block(snapshot(), NOW, current="").startswith("## Last session handoff")  # no session id given


def test_block_says_how_many_more_files_and_commits_there_were() -> None:
    files = tuple(f"?? file{i:02d}" for i in range(ph.MAX_FILES))
    text = ph.block(snapshot(status=ph.Status("main", "abc", "", files, 30), commits_total=5), NOW)
    assert "    ?? file19\n    … and 10 more" in text
    assert "- 77eff45 Fix the parser\n- … and 4 more" in text


def test_block_fits_its_budget_by_cutting_the_longest_lists_first() -> None:
    files = tuple(f"?? {'deep/' * 30}file{i:02d}.txt" for i in range(ph.MAX_FILES))
    items = tuple(f"- [ ] item {i} " + "x" * 150 for i in range(ph.MAX_ITEMS))
    snap = snapshot(status=ph.Status("main", "abc", "", files, 400), items=items,
                    scratch_tail="\n".join("line " + "y" * 100 for _ in range(15)))
    text = ph.block(snap, NOW)
    assert len(text) <= ph.MAX_CHARS
    assert text.startswith("## Last session handoff") and "… and " in text and "- [ ] item 0" in text


def test_clean_work_tree_and_an_unreadable_status_are_said_plainly() -> None:
    assert "The work tree was clean." in ph.block(snapshot(status=ph.Status("main", "abc")), NOW)
    text = ph.block(snapshot(status=None, notes=("git status took longer than 3 s and was stopped",)), NOW)
    assert "stopped in this work tree. This is" in text and "(git status took longer than 3 s" in text


def test_detached_head_and_a_branch_before_its_first_commit() -> None:
    assert "with HEAD detached at 77eff45879aa" in ph.block(snapshot(status=ph.Status("", "77eff45879aabbcc")), NOW)
    assert "on branch main, before its first commit" in ph.block(snapshot(status=ph.Status("main", "")), NOW)


def test_record_round_trip_and_what_is_not_a_record() -> None:
    snap = snapshot(notes=("a note",))
    assert ph.from_record(json.loads(json.dumps(ph.to_record(snap)))) == snap
    assert ph.from_record(json.loads(json.dumps(ph.to_record(snapshot(status=None))))) == snapshot(status=None)
    for bad in (None, [], {"schema": 2}, {**ph.to_record(snap), "written": "soon"},
                {**ph.to_record(snap), "items": "not a list"}, {**ph.to_record(snap), "status": {"branch": 1}}):
        assert ph.from_record(bad) is None


def test_tail_keeps_the_last_non_blank_lines_within_its_size() -> None:
    text = "\n".join(f"line {i}" for i in range(40)) + "\n\n\n"
    assert ph.tail(text).splitlines() == [f"line {i}" for i in range(25, 40)]
    assert ph.tail("a" * 300 + "\nlast", chars=100) == "last"


def test_open_items_are_the_unchecked_ones_of_both_sections() -> None:
    body = "## Open Items\n- [ ] one\n- [x] done\n\n## Next Steps\n- [ ] two\nprose\n"
    s = model.parse_session("sessions/2026-04-13-x.md", session_text(body=body).encode())
    assert ph.open_items(s) == ("- [ ] one", "- [ ] two")


# --- real repositories -----------------------------------------------------------------------

def env_at(date: int) -> dict[str, str]:
    return {**os.environ, "GIT_COMMITTER_DATE": f"@{date} +0000", "GIT_AUTHOR_DATE": f"@{date} +0000"}


def commit(repo: Path, name: str, subject: str, date: int) -> None:
    (repo / name).write_text(subject + "\n")
    run_git(repo, "add", name)
    subprocess.run(["git", "commit", "-q", "-m", subject], cwd=repo, env=env_at(date), check=True)


def test_capture_reads_status_recent_commits_and_redacts(repo_dir: Path) -> None:
    commit(repo_dir, "old.txt", "Three hours ago", NOW - 3 * 3600)
    commit(repo_dir, "new.txt", f"Add the key {TOKEN}", NOW - 600)
    (repo_dir / "README.md").write_text("changed\n")
    (repo_dir / "café notes.txt").write_text("new\n")
    snap = handoff.capture(str(repo_dir), "11111111", None, paths.SCRATCHPAD, NOW, os.environ)
    assert snap.status is not None and snap.status.branch == "main"
    assert snap.status.files == (" M README.md", "?? café notes.txt")  # UTF-8, not octal escapes
    assert snap.commits_total == 1 and snap.commits[0].endswith("Add the key [REDACTED]")
    assert TOKEN not in json.dumps(ph.to_record(snap))
    assert snap.notes == () and snap.scratch_tail == ""  # no scratchpad: nothing said about it


def test_capture_respects_status_show_untracked_files_no(repo_dir: Path, git: Git) -> None:
    """In a big repository status.showUntrackedFiles=no is what keeps `git status` fast:
    the snapshot must not override it (it cost up to 3 s per Stop)."""
    (repo_dir / "README.md").write_text("changed\n")
    (repo_dir / "untracked.txt").write_text("new\n")
    git("config", "status.showUntrackedFiles", "no")
    snap = handoff.capture(str(repo_dir), "11111111", None, "", NOW, os.environ)
    assert snap.status is not None and snap.status.files == (" M README.md",) and snap.status.total == 1
    git("config", "status.showUntrackedFiles", "normal")
    snap = handoff.capture(str(repo_dir), "11111111", None, "", NOW, os.environ)
    assert snap.status is not None and snap.status.files == (" M README.md", "?? untracked.txt")


def test_capture_in_a_repository_without_commits(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    run_git(tmp_path, "init", "-q", "-b", "trunk", str(repo))
    (repo / "a.txt").write_text("x\n")
    snap = handoff.capture(str(repo), "11111111", None, "", NOW, os.environ)
    assert snap.status == ph.Status("trunk", "", "", ("?? a.txt",), 1)
    assert snap.commits == () and snap.notes == ()  # no `git log` to fail
    assert "on branch trunk, before its first commit" in ph.block(snap, NOW)


def test_capture_with_a_detached_head(repo_dir: Path, git: Git) -> None:
    git("checkout", "-q", "--detach")
    head = git("rev-parse", "HEAD").strip()
    snap = handoff.capture(str(repo_dir), "11111111", None, "", NOW + 60, os.environ)
    assert snap.status is not None and (snap.status.branch, snap.status.head) == ("", head)
    assert snap.commits_total == 1  # the fixture's commit, at NOW
    assert f"with HEAD detached at {head[:12]}" in ph.block(snap, NOW + 60)


def test_a_huge_status_is_cut_to_twenty_files(repo_dir: Path) -> None:
    for i in range(500):
        (repo_dir / f"untracked-{i:03d}.txt").write_text("x")
    snap = handoff.capture(str(repo_dir), "11111111", None, "", NOW, os.environ)
    assert snap.status is not None and len(snap.status.files) == 20 and snap.status.total == 500
    assert "… and 480 more" in ph.block(snap, NOW)


def test_every_git_call_has_a_timeout(repo_dir: Path, tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text("#!/bin/sh\nsleep 30\n")
    (fake / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    snap = handoff.capture(str(repo_dir), "11111111", None, "", NOW, env, timeout=0.3)
    assert snap.status is None  # the guard fired for each call, and says so:
    assert snap.notes == ("git status took longer than 0.3 s and was stopped",
                          "git log took longer than 0.3 s and was stopped")


def test_scratchpad_tail_from_the_default_and_a_configured_path(repo_dir: Path) -> None:
    wc = repo_dir / paths.WC_DIR
    wc.mkdir()
    (wc / "scratchpad.md").write_text("".join(f"thought {i}\n" for i in range(100)))
    snap = handoff.capture(str(repo_dir), "11111111", None, paths.SCRATCHPAD, NOW, os.environ)
    assert snap.scratch_tail.splitlines()[-1] == "thought 99" and snap.scratchpad == paths.SCRATCHPAD
    (repo_dir / "docs").mkdir()
    (repo_dir / "docs" / "pad.md").write_bytes(b"x" * 40_000 + b"\nthe last word\n")  # past SCRATCH_READ
    snap = handoff.capture(str(repo_dir), "11111111", None, "docs/pad.md", NOW, os.environ)
    assert snap.scratch_tail == "the last word"


def test_a_scratchpad_outside_the_work_tree_is_never_read(repo_dir: Path, tmp_path: Path) -> None:
    secret = tmp_path / "outside.md"
    secret.write_text("outside text\n")
    (repo_dir / "link.md").symlink_to(secret)
    for configured in ("../outside.md", str(secret), "link.md"):
        snap = handoff.capture(str(repo_dir), "11111111", None, configured, NOW, os.environ)
        assert snap.scratch_tail == "" and "is not a path inside the work tree" in snap.notes[0], configured


def test_a_fifo_scratchpad_does_not_block(repo_dir: Path) -> None:
    """A fifo with no writer: a blocking open() would wait forever. Not a speed check: the
    alarm only turns that hang into a failure (the call itself takes microseconds)."""
    import signal

    def hung(*_: object) -> None:  # pytest.fail: not an OSError, which capture would take for a read error
        pytest.fail("opening the fifo blocked: it must be opened non-blocking")

    os.mkfifo(repo_dir / "pad")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        snap = handoff.capture(str(repo_dir), "11111111", None, "pad", NOW, os.environ)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert snap.scratch_tail == "" and snap.scratchpad == ""  # not a file: nothing to show, nothing named


def test_open_items_of_the_session_file_and_a_malformed_one(repo_dir: Path, tmp_path: Path) -> None:
    path = repo_dir / "s.md"
    path.write_text(session_text(body="## Open Items\n- [ ] ship it\n"))
    snap = handoff.capture(str(repo_dir), "11111111", str(path), "", NOW, os.environ)
    assert snap.items == ("- [ ] ship it",) and snap.session_file == "s.md"
    (tmp_path / "via").symlink_to(repo_dir)  # the hook's path to the work tree and git's may differ
    assert handoff.capture(str(tmp_path / "via"), "1", str(path), "", NOW, os.environ).session_file == "s.md"
    path.write_text("---\nsession_id: [unclosed\n---\n")
    snap = handoff.capture(str(repo_dir), "11111111", str(path), "", NOW, os.environ)
    assert snap.items == () and snap.notes[0].startswith("the open items could not be read: s.md")


# --- real hook processes ---------------------------------------------------------------------

@pytest.fixture
def project(repo_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def hook(top: Path, event: str, sid: str, **fields: object) -> str:
    payload = json.dumps({"session_id": sid, "cwd": str(top), "hook_event_name": event, **fields})
    proc = subprocess.run([sys.executable, "-c", paths.LAUNCH, event], input=payload, capture_output=True,
                          text=True, cwd=top, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


def context(top: Path, sid: str = SID2, source: str = "startup") -> str:
    text: str = json.loads(hook(top, "SessionStart", sid, source=source))["hookSpecificOutput"]["additionalContext"]
    return text


def own_session(top: Path, sid: str = SID1, body: str = "## Open Items\n- [ ] wire the handoff\n") -> Path:
    today = gate.days()[0]
    path = top / paths.WC_DIR / "sessions" / f"{today}-handoff-work.md"
    path.write_text(session_text(session_id=sid[:8], date=today, status="active", summary="", body=body))
    return path


def handoff_file(top: Path) -> Path:
    return handoff.location(store.open_repo(top))


def test_session_two_starts_with_session_one_handoff(project: Path, git: Git) -> None:
    own_session(project)
    (project / "README.md").write_text("edited by session one\n")
    hook(project, "Stop", SID1, stop_hook_active=False)
    text = context(project, SID2)
    assert "## Last session handoff (just now)" in text
    assert "Session 11111111 (.claude-sessions/sessions/" in text
    assert " M README.md" in text and "- [ ] wire the handoff" in text
    assert len(text) <= 9000


@pytest.mark.parametrize("source", ["resume", "compact"])
def test_a_resumed_or_compacted_session_is_not_shown_its_own_handoff(project: Path, source: str) -> None:
    own_session(project)
    hook(project, "Stop", SID1)
    assert "Last session handoff" not in context(project, SID1, source)  # it knows what it left
    assert "## Last session handoff" in context(project, SID2, source)  # another session resumed here
    assert "Session 11111111" in context(project, SID2)


def test_the_handoff_lives_in_the_git_dir_only(project: Path, git: Git) -> None:
    own_session(project)
    before = git("status", "--porcelain", "--untracked-files=all")
    hook(project, "Stop", SID1)
    assert handoff_file(project) == project / ".git" / "enf" / paths.HANDOFF
    assert json.loads(handoff_file(project).read_text())["session"] == "11111111"
    assert git("grep", "-F", '"scratch_tail"', paths.BRANCH, check=False) == ""  # no copy on the branch
    assert not list((project / paths.WC_DIR).rglob(paths.HANDOFF))
    assert git("status", "--porcelain", "--untracked-files=all") == before


def test_stop_with_index_lock_held_still_writes_and_leaves_the_lock_alone(project: Path, git: Git) -> None:
    own_session(project)
    (project / "README.md").write_text("edited\n")
    lock = project / ".git" / "index.lock"
    lock.write_bytes(b"held by the user's git\n")
    old = time.time() - 100
    os.utime(lock, (old, old))
    index = (project / ".git" / "index").read_bytes()
    hook(project, "Stop", SID1)
    assert lock.read_bytes() == b"held by the user's git\n" and lock.stat().st_mtime == old
    assert (project / ".git" / "index").read_bytes() == index
    assert " M README.md" in json.loads(handoff_file(project).read_text())["status"]["files"]
    assert f"enf: stop {SID1[:8]}" in git("log", "--format=%s", paths.BRANCH)  # the commit ran too


def test_stop_never_writes_the_users_index(project: Path) -> None:
    """--no-optional-locks: a plain `git status` refreshes a stale index under index.lock
    (and one killed at its timeout would leave the lock behind); ours reads only."""
    (project / "README.md").write_text("hello\n")  # same content, new stat: the index looks stale
    os.utime(project / "README.md", (NOW - 50, NOW - 50))
    index = project / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    hook(project, "Stop", SID1)
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert not (project / ".git" / "index.lock").exists()
    assert json.loads(handoff_file(project).read_text())["status"]["total"] == 0


def test_enf_handoff_false_turns_writing_and_printing_off(project: Path, git: Git) -> None:
    own_session(project)
    git("config", "enf.handoff", "false")
    hook(project, "Stop", SID1)
    assert not handoff_file(project).exists()
    git("config", "enf.handoff", "true")
    hook(project, "Stop", SID1)
    git("config", "enf.handoff", "off")
    assert handoff_file(project).exists() and "Last session handoff" not in context(project)


def test_a_stale_handoff_is_not_printed(project: Path) -> None:
    own_session(project)
    hook(project, "Stop", SID1)
    record = json.loads(handoff_file(project).read_text())
    record["written"] -= ph.MAX_AGE + 60
    handoff_file(project).write_text(json.dumps(record))
    assert "Last session handoff" not in context(project)
    record["written"] += 3 * 3600
    handoff_file(project).write_text(json.dumps(record))
    assert "## Last session handoff (45h ago)" in context(project)


def test_secrets_in_the_scratchpad_never_reach_the_file_or_the_context(project: Path) -> None:
    own_session(project)
    (project / "notes.md").write_text(f"deploy with GITHUB_TOKEN={TOKEN}\n")
    run_git(project, "config", "enf.scratchpad", "notes.md")
    hook(project, "Stop", SID1)
    assert TOKEN not in handoff_file(project).read_text()
    text = context(project)
    assert "Scratchpad (notes.md)" in text and TOKEN not in text and "[REDACTED]" in text


def test_a_failing_handoff_is_logged_and_stop_still_commits(project: Path, git: Git) -> None:
    own_session(project)
    handoff_file(project).mkdir()  # the file's place is taken: the atomic rename fails
    hook(project, "Stop", SID1)
    assert f"enf: stop {SID1[:8]}" in git("log", "--format=%s", paths.BRANCH)
    assert "Stop handoff" in (project / ".git" / "enf" / paths.HOOK_ERRORS).read_text()
    assert "Last session handoff" not in context(project)  # and SessionStart goes on without it


def test_an_opted_out_session_leaves_no_handoff(project: Path) -> None:
    (project / paths.WC_DIR / paths.OPT_OUT_DIR / SID1[:8]).write_text("")
    hook(project, "Stop", SID1)
    assert not handoff_file(project).exists()


def test_no_handoff_where_enf_is_not_set_up(repo_dir: Path) -> None:
    hook(repo_dir, "Stop", SID1)
    assert not (repo_dir / ".git" / "enf" / paths.HANDOFF).exists()


def test_each_linked_worktree_has_its_own_handoff(project: Path, git: Git, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "feature", str(linked))
    context(linked, SID1)  # sets up the linked work tree's working copy
    own_session(linked)
    (linked / "feature.txt").write_text("in the linked tree\n")
    hook(linked, "Stop", SID1)
    assert handoff_file(linked) == project / ".git" / "worktrees" / "linked" / "enf" / paths.HANDOFF
    assert "on branch feature" in context(linked, SID2) and "?? feature.txt" in context(linked, SID2)
    assert "Last session handoff" not in context(project, SID2)


def test_a_corrupt_handoff_file_is_ignored(project: Path) -> None:
    path = handoff_file(project)
    for data in (b"{not json", b"\xff\xfe", json.dumps({"schema": 99}).encode(), b"[]"):
        path.write_bytes(data)
        assert "Last session handoff" not in context(project)
    assert not (project / ".git" / "enf" / paths.HOOK_ERRORS).exists()



# --- the default scratchpad is local-only ------------------------------------------------------

def enf(cwd: Path, *args: str) -> str:
    proc = subprocess.run([str(Path(sys.executable).with_name("git-enf")), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def branch_files(top: Path, ref: str = paths.BRANCH) -> list[str]:
    return run_git(top, "ls-tree", "-r", "--name-only", ref).split()


def test_the_default_scratchpad_never_reaches_the_branch(project: Path) -> None:
    wc = project / paths.WC_DIR
    (wc / paths.SCRATCHPAD_FILE).write_text("my own notes\n")
    (wc / "scratchpad.md.bak").write_text("a file of its own\n")  # only the exact name is local
    own_session(project)
    hook(project, "Stop", SID1)
    files = branch_files(project)
    assert "scratchpad.md" not in files and "scratchpad.md.bak" in files
    assert any(f.startswith("sessions/") for f in files)  # the commit ran
    assert "> my own notes" in context(project)  # and this work tree's handoff still shows it


def test_teammates_who_sync_keep_their_own_scratchpads(tmp_path: Path, repo_dir: Path) -> None:
    """Shared, Alice's notes showed in Bob's handoff, and both writing it left conflict copies."""
    origin = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", str(origin))
    run_git(repo_dir, "remote", "add", "origin", str(origin))
    run_git(repo_dir, "push", "-q", "origin", "main")
    tops = {}
    for name in ("alice", "bob"):
        top = tops[name] = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(origin), str(top))
        enf(top, "init", "--no-hooks")
    (tops["alice"] / paths.SCRATCHPAD).write_text("alice: try the cache\n")
    enf(tops["alice"], "commit")
    enf(tops["alice"], "sync")
    enf(tops["bob"], "sync")
    assert not (tops["bob"] / paths.SCRATCHPAD).exists()
    (tops["bob"] / paths.SCRATCHPAD).write_text("bob: the parser first\n")
    for name in ("bob", "alice", "bob"):
        enf(tops[name], "commit")
        enf(tops[name], "sync")
    assert not [f for f in branch_files(origin) if "scratchpad" in f]  # neither it nor a conflict copy
    for name in ("alice", "bob"):
        assert (tops[name] / paths.SCRATCHPAD).read_text() == f"{name}: " + (
            "try the cache\n" if name == "alice" else "the parser first\n")
    snap = handoff.capture(str(tops["bob"]), "22222222", None, paths.SCRATCHPAD, NOW, os.environ)
    assert snap.scratch_tail == "bob: the parser first"


def test_a_scratchpad_an_older_version_committed_stays_on_the_branch(project: Path, git: Git,
                                                                     tmp_path: Path) -> None:
    """Nothing lost: the branch keeps it (no commit deletes it for being local-only now); no
    work tree gets it unasked, and `git enf restore scratchpad.md` brings it back."""
    ctx = memory.Context.open(project)
    old = b"alice's notes from before\n"
    store_write.commit(ctx.repo, lambda tip: {paths.SCRATCHPAD_FILE: old}, "enf: update scratchpad.md")
    blob = git("rev-parse", f"{paths.BRANCH}:{paths.SCRATCHPAD_FILE}")
    pad = ctx.root / paths.SCRATCHPAD_FILE
    pad.write_bytes(old)  # as the older version left this work tree: synced, in the manifest
    manifest = ctx.manifest()
    manifest.record(ctx.root, paths.SCRATCHPAD_FILE, blob.strip())
    manifest.save(ctx.manifest_path)
    pad.write_text("edited since\n")
    memory.commit(ctx, "edit")
    assert git("rev-parse", f"{paths.BRANCH}:{paths.SCRATCHPAD_FILE}") == blob
    pad.unlink()
    own_session(project)
    memory.commit(ctx, "delete")
    assert git("rev-parse", f"{paths.BRANCH}:{paths.SCRATCHPAD_FILE}") == blob
    assert "sessions/" in git("show", "--stat", "--format=", paths.BRANCH)  # that commit did land
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "feature", str(linked))
    assert "alice's notes" not in context(linked, SID2)
    theirs = memory.Context.open(linked)
    assert not (theirs.root / paths.SCRATCHPAD_FILE).exists()
    assert paths.SCRATCHPAD_FILE not in memory.record.working_set.missing(theirs, store.tip(theirs.repo))
    assert paths.SCRATCHPAD_FILE not in memory.restore(theirs).written  # a full restore leaves it too
    assert memory.restore(theirs, [paths.SCRATCHPAD_FILE]).written == [paths.SCRATCHPAD_FILE]  # asked for
    assert (theirs.root / paths.SCRATCHPAD_FILE).read_bytes() == old


def test_a_configured_scratchpad_elsewhere_is_the_users_file(project: Path, git: Git) -> None:
    (project / "notes.md").write_text("plan: ship it\n")
    git("config", "enf.scratchpad", "notes.md")
    own_session(project)
    hook(project, "Stop", SID1)
    assert "notes.md" not in branch_files(project)
    assert (project / "notes.md").read_text() == "plan: ship it\n"
    assert "?? notes.md" in git("status", "--porcelain")  # the user's to commit, or not
    assert "Scratchpad (notes.md), last lines:\n> plan: ship it" in context(project)
