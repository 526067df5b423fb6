"""Invariant 10: a vanished working copy is restored, never committed as deletions.

Each way of losing it (`rm -rf .claude-sessions`, `rm -rf .claude-sessions/sessions`,
`git clean -xfd`) is followed by each thing that commits (the SessionStart and Stop
hooks as real processes, `git enf commit` as the console script): the branch keeps
every file, and the working copy comes back. Deleting a few files on purpose still
deletes them; deleting most of the branch needs --allow-deletions.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from enf_git import memory, paths
from enf_git.cli.app import main
from gitfixtures import Git, run_git, session_text

SID = "a1b2c3d4-0000-4000-8000-000000000001"
DATES = [f"2026-04-{day:02d}" for day in range(10, 17)]
GIT_ENF = str(Path(sys.executable).with_name("git-enf"))


def session(date: str) -> str:
    return f"sessions/{date}-work.md"


@pytest.fixture
def project(repo_dir: Path) -> Path:
    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    for n, date in enumerate(DATES):
        (ctx.root / session(date)).write_text(session_text(session_id=f"a1b2c3{n:02d}", date=date,
                                                           summary=f"Work {n}"))
    assert memory.commit(ctx, "seven sessions").commit is not None
    return repo_dir


def branch(git: Git) -> dict[str, str]:
    """path -> blob of every file on the branch."""
    out = {}
    for line in git("ls-tree", "-r", "claude-memory").splitlines():
        meta, path = line.split("\t")
        out[path] = meta.split()[2]
    return out


def hook(project: Path, event: str, **fields: object) -> subprocess.CompletedProcess[str]:
    payload = json.dumps({"session_id": SID, "cwd": str(project), "hook_event_name": event, **fields})
    return subprocess.run([sys.executable, "-c", paths.LAUNCH, event], input=payload, capture_output=True,
                          text=True, cwd=project, timeout=60)


def lose_everything(project: Path) -> None:
    shutil.rmtree(project / paths.WC_DIR)


def lose_sessions(project: Path) -> None:
    shutil.rmtree(project / paths.WC_DIR / "sessions")


def git_clean(project: Path) -> None:
    run_git(project, "clean", "-xfdq")
    assert not (project / paths.WC_DIR).exists()


def session_start(project: Path) -> None:
    proc = hook(project, "SessionStart", source="startup")
    assert proc.returncode == 0 and "Work 6" in proc.stdout  # the context was built from the restored files


def stop(project: Path) -> None:
    assert hook(project, "Stop", stop_hook_active=False).returncode == 0


def enf_commit(project: Path) -> None:
    proc = subprocess.run([GIT_ENF, "commit"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # Every file it brought back is counted: the 7 sessions (and the views, log.md and
    # meta.json when the whole folder went).
    restored = int(proc.stdout.split("restored ")[1].split()[0])
    assert restored >= len(DATES), proc.stdout


LOSSES = [lose_everything, lose_sessions, git_clean]
TRIGGERS = [session_start, stop, enf_commit]


@pytest.mark.parametrize("lose", LOSSES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("trigger", TRIGGERS, ids=lambda f: f.__name__)
def test_a_lost_working_copy_is_restored_not_deleted(project: Path, git: Git, lose: Callable[[Path], None],
                                                     trigger: Callable[[Path], None]) -> None:
    before = branch(git)
    log_before = git("show", "claude-memory:log.md")
    lose(project)
    trigger(project)
    after = branch(git)
    assert {p: b for p, b in after.items() if p != "log.md"} == {p: b for p, b in before.items() if p != "log.md"}
    assert git("show", "claude-memory:log.md").startswith(log_before)  # append-only: only grows
    root = project / paths.WC_DIR
    for date in DATES:
        assert (root / session(date)).read_text() == git("show", f"claude-memory:{session(date)}")
    assert (root / "index.md").is_file()
    # And it stays that way: the next commit finds nothing to do.
    assert memory.pending(memory.Context.open(project)).empty


def commit_console(project: Path) -> None:
    proc = subprocess.run([GIT_ENF, "commit"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("lose", LOSSES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("trigger", [stop, commit_console], ids=lambda f: f.__name__)
def test_a_lost_working_copy_with_a_new_file_in_it_is_still_restored_not_deleted(
        project: Path, git: Git, lose: Callable[[Path], None], trigger: Callable[[Path], None]) -> None:
    """The folder goes, then something writes into a new one (the assistant its session
    file) before any hook restored it: the files it lacks vanished, they were not deleted."""
    before = branch(git)
    lose(project)
    new = project / paths.WC_DIR / "sessions" / "2026-04-20-after-the-clean.md"
    new.parent.mkdir(parents=True)
    new.write_text(session_text(session_id="f0f0f0f0", date="2026-04-20", summary="After the clean"))
    trigger(project)
    after = branch(git)
    assert "sessions/2026-04-20-after-the-clean.md" in after
    kept = {p: b for p, b in before.items() if p != "log.md" and not p.endswith(("index.md", "topics.md"))
            and not p.startswith(("archive/", ".derived/"))}  # derived, like the views
    assert {p: after.get(p) for p in kept} == kept  # every record still there, unchanged
    root = project / paths.WC_DIR
    for date in DATES:
        assert (root / session(date)).read_text() == git("show", f"claude-memory:{session(date)}")
    root = project / paths.WC_DIR
    manifest = memory.Context.open(project).manifest()
    for path, oid in manifest.files.items():  # each one a blob the branch has: the next merge reads it
        assert subprocess.run(["git", "cat-file", "-e", oid], cwd=project).returncode == 0, path
    left = memory.pending(memory.Context.open(project))
    assert left.empty, (sorted(left.changes), sorted(left.views), left.vanished,
                        (root / "log.md").read_text(), git("show", "claude-memory:log.md"))
    # The folder is whole again: deleting a file on purpose deletes it once more.
    (root / session(DATES[0])).unlink()
    trigger(project)
    assert session(DATES[0]) not in branch(git)


@pytest.mark.parametrize("lose", LOSSES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("trigger", TRIGGERS, ids=lambda f: f.__name__)
def test_after_a_restore_a_deletion_on_purpose_deletes_again(project: Path, git: Git, lose: Callable[[Path], None],
                                                            trigger: Callable[[Path], None]) -> None:
    """The restore marks the folder whole again at once: a file deleted next is a
    deletion, not another vanished file brought back (nothing else looks in between)."""
    root = project / paths.WC_DIR
    lose(project)
    trigger(project)
    (root / session(DATES[0])).unlink()
    stop(project)
    assert session(DATES[0]) not in branch(git) and not (root / session(DATES[0])).exists()


def test_emptying_the_working_copy_with_a_glob_is_a_loss_too(project: Path, git: Git) -> None:
    """`rm -rf .claude-sessions/*` keeps the folder (and its hidden mark) and takes
    everything of ours, log.md and meta.json included: restored, not deleted."""
    before = branch(git)
    root = project / paths.WC_DIR
    for entry in root.iterdir():
        if not entry.name.startswith("."):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    proc = subprocess.run([GIT_ENF, "commit"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0 and "delete" not in proc.stdout, proc.stdout + proc.stderr
    assert branch(git) == before
    assert (root / "log.md").read_text() == git("show", "claude-memory:log.md")


def empty_with_a_glob(project: Path) -> None:
    for entry in (project / paths.WC_DIR).iterdir():
        if not entry.name.startswith("."):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


@pytest.mark.parametrize("lose", [*LOSSES, empty_with_a_glob], ids=lambda f: f.__name__)
def test_init_leaves_a_lost_working_copy_whole(project: Path, git: Git, lose: Callable[[Path], None]) -> None:
    """`git enf init` after the folder went brings back every file, log.md, meta.json and
    the remembered facts included (neither views nor sessions), not only the views."""
    assert subprocess.run([GIT_ENF, "remember", "we deploy on Fridays"], cwd=project).returncode == 0
    before = branch(git)
    lose(project)
    proc = subprocess.run([GIT_ENF, "init", "--no-hooks"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "restored " in proc.stdout and "that went with the working copy's folder" in proc.stdout, proc.stdout
    assert branch(git) == before
    root = project / paths.WC_DIR
    for path in ("log.md", "meta.json", *(p for p in before if p.startswith("memories/")), session(DATES[0])):
        assert (root / path).read_text() == git("show", f"claude-memory:{path}"), path
    ctx = memory.Context.open(project)
    assert memory.record.working_set.missing(ctx, memory.require_branch(ctx)) == []
    status = subprocess.run([GIT_ENF, "status"], cwd=project, capture_output=True, text=True)
    assert status.stdout.endswith("nothing to commit\n"), status.stdout


def test_deleting_a_few_files_on_purpose_still_deletes_them(project: Path, git: Git) -> None:
    root = project / paths.WC_DIR
    (root / session(DATES[0])).unlink()
    (root / session(DATES[1])).unlink()
    stop(project)
    files = branch(git)
    assert session(DATES[0]) not in files and session(DATES[1]) not in files
    assert session(DATES[2]) in files
    session_start(project)  # does not bring them back
    assert not (root / session(DATES[0])).exists()


def test_deleting_most_of_the_branch_is_refused_until_asked(project: Path, git: Git) -> None:
    before = branch(git)
    root = project / paths.WC_DIR
    for date in DATES[:-1]:
        (root / session(date)).unlink()
    (root / session(DATES[-1])).write_text(session_text(session_id="a1b2c306", date=DATES[-1], summary="Edited"))
    proc = subprocess.run([GIT_ENF, "commit"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 1
    assert "error: not deleting 6 files from claude-memory" in proc.stderr
    assert "git enf commit --allow-deletions" in proc.stderr and "git enf restore" in proc.stderr
    after = branch(git)
    assert all(after[session(d)] == before[session(d)] for d in DATES[:-1])  # nothing deleted
    assert "Edited" in git("show", f"claude-memory:{session(DATES[-1])}")  # the edit landed all the same
    proc = subprocess.run([GIT_ENF, "commit", "--allow-deletions"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert [p for p in branch(git) if p.startswith("sessions/")] == [session(DATES[-1])]


def test_session_start_restores_deletions_a_commit_refused(project: Path, git: Git) -> None:
    root = project / paths.WC_DIR
    for date in DATES:
        (root / session(date)).unlink()
    session_start(project)
    assert all((root / session(d)).is_file() for d in DATES)
    assert all(session(d) in branch(git) for d in DATES)


def test_restore_brings_files_back_and_keeps_local_edits(project: Path, git: Git,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = project / paths.WC_DIR
    monkeypatch.chdir(project)
    run = CliRunner().invoke
    (root / session(DATES[0])).unlink()
    (root / "index.md").unlink()
    (root / session(DATES[1])).write_text("my local edit\n")
    result = run(main, ["restore"], catch_exceptions=False)
    assert result.exit_code == 0
    assert f"restored: {session(DATES[0])}" in result.output and "restored: index.md" in result.output
    assert f"kept your edit: {session(DATES[1])} (git enf restore --force {session(DATES[1])}" in result.output
    assert (root / session(DATES[1])).read_text() == "my local edit\n"
    result = run(main, ["restore", f".claude-sessions/{session(DATES[1])}"], catch_exceptions=False)
    assert result.exit_code == 1 and "kept your edit" in result.output  # named, and not restored
    result = run(main, ["restore", "--force", f".claude-sessions/{session(DATES[1])}"], catch_exceptions=False)
    assert result.output == f"restored: {session(DATES[1])}\n"
    assert (root / session(DATES[1])).read_text() == git("show", f"claude-memory:{session(DATES[1])}")
    assert run(main, ["restore"]).output.startswith("the working copy in ")
    result = run(main, ["restore", "sessions/nope.md"])
    assert result.exit_code == 1 and "sessions/nope.md: no such file on claude-memory" in result.output


def test_restore_json_and_a_named_folder(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lose_sessions(project)
    monkeypatch.chdir(project / paths.WC_DIR)  # names relative to the current folder work too
    result = CliRunner().invoke(main, ["restore", "sessions", "--json"], catch_exceptions=False)
    data = json.loads(result.output)
    assert data["command"] == "restore" and data["kept"] == []
    assert data["restored"] == [session(d) for d in DATES]


def test_doctor_and_status_report_missing_files(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    (project / paths.WC_DIR / session(DATES[0])).unlink()
    (project / paths.WC_DIR / session(DATES[1])).unlink()
    lose_sessions(project)
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 1
    assert "the working copy lacks 7 file(s) the branch has, e.g. sessions/2026-04-10-work.md" in result.output
    assert "fix: git enf restore" in result.output
    status = CliRunner().invoke(main, ["status"]).output
    assert "working copy lacks 7 files the branch has (e.g. sessions/2026-04-10-work.md): git enf restore" in status
    assert "deleted" not in status  # a vanished folder is nothing to commit


def test_a_recreated_log_keeps_the_branch_history(project: Path, git: Git) -> None:
    before = git("show", "claude-memory:log.md")
    lose_everything(project)
    (project / paths.WC_DIR).mkdir()
    (project / paths.WC_DIR / "log.md").write_text("- a line written after the loss\n")
    enf_commit(project)
    after = git("show", "claude-memory:log.md")
    assert after.startswith(before) and after.endswith("- a line written after the loss\n")


def test_session_start_restores_refused_deletions_from_any_folder(project: Path, git: Git) -> None:
    """The hook's own restore names exact branch paths: a cwd inside the working copy
    (where a user's relative name would point elsewhere) changes nothing."""
    root = project / paths.WC_DIR
    for date in DATES:
        (root / session(date)).unlink()
    payload = json.dumps({"session_id": SID, "cwd": str(root / "sessions"), "hook_event_name": "SessionStart",
                          "source": "startup"})
    proc = subprocess.run([sys.executable, "-c", paths.LAUNCH, "SessionStart"], input=payload, capture_output=True,
                          text=True, cwd=root / "sessions", timeout=60)
    assert proc.returncode == 0 and "Work 6" in proc.stdout
    assert all((root / session(d)).is_file() for d in DATES)
