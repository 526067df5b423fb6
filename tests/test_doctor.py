"""`git enf doctor` against real broken installations: each state is created for real
(a deleted interpreter, two scopes, a corrupt object, a stale lock, a held lock) and
the exact problem, its fix and the exit code are asserted, as text and as --json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

import enf_git
from enf_git.cli.app import main
from enf_git.install import claude
from enf_git.memory.health import install_checks
from enf_git.plumbing import search
from gitfixtures import Git

Run = Callable[..., tuple[int, str]]
CLEAN_CHECKS = ["hook commands", "hook scopes", "skill", "exclude entry", "git hooks", "mcp server", "codex install", "gemini install", "cursor install", "copilot install", "qwen install", "toolset profiles", "write access", "writer lock", "ref lock", "recall index",
                "memory branch", "branch objects", "manifest", "working copy", "records parse", "decision and reversal lines",
                "session names and ids", "reversal links", "conflict copies", "remembered facts", "pins",
                "instructions to the assistant", "records index"]


@pytest.fixture
def run(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(repo_dir)

    def _run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
        return result.exit_code, result.output

    return _run


def doctor_json(run: Run) -> tuple[int, dict[str, object]]:
    code, out = run("doctor", "--json")
    return code, json.loads(out)


def problems(run: Run) -> list[dict[str, str]]:
    _, data = doctor_json(run)
    found = data["problems"]
    assert isinstance(found, list)
    return found


def local_settings(repo: Path) -> Path:
    return repo / ".claude" / "settings.local.json"


def test_hooks_that_init_registered_and_git_clean_took_are_named(run: Run, repo_dir: Path) -> None:
    assert run("init")[0] == 0
    subprocess.run(["git", "clean", "-xfdq"], cwd=repo_dir, check=True)  # .claude/ and the working copy go
    assert not local_settings(repo_dir).exists()
    found = [p for p in problems(run) if "they are gone" in p["what"]]
    assert found == [{"severity": "warning", "what": f"git enf init registered enf-git's hooks in "
                      f"{local_settings(repo_dir)} (local scope), and they are gone (git clean -xfd removes that "
                      "file): sessions are neither gated nor committed, and start without memory",
                      "fix": "git enf init --scope local"}]
    assert run("init")[0] == 0
    assert not [p for p in problems(run) if "they are gone" in p["what"]]
    assert run("uninstall")[0] == 0  # taken back on purpose: nothing to say
    assert not [p for p in problems(run) if "they are gone" in p["what"]]


def test_a_fresh_install_is_all_good_and_lists_every_check(run: Run) -> None:
    assert run("init")[0] == 0
    code, out = run("doctor")
    assert (code, out) == (0, f"checked: {', '.join(CLEAN_CHECKS)}\nall good\n")
    code, data = doctor_json(run)
    assert code == 0 and data == {"schema": 1, "command": "doctor", "ok": True, "checks": CLEAN_CHECKS, "problems": []}


def test_a_deleted_interpreter_is_an_error_that_names_the_fix(run: Run, repo_dir: Path, tmp_path: Path) -> None:
    run("init")
    gone = tmp_path / "old-venv" / "bin" / "python"  # the venv the hooks were registered from, since deleted
    settings = local_settings(repo_dir)
    settings.write_text(settings.read_text().replace(sys.executable, str(gone)))
    code, out = run("doctor")
    assert code == 1
    assert (f"error: the local hooks ({settings}) call {gone}, which does not exist (the virtualenv was moved or "
            f"deleted?): every hook fails\n  fix: git enf init --scope local registers the interpreter running this "
            f"git enf ({sys.executable}); reinstall enf-git first if that is not the one you want\n") in out
    assert [p["severity"] for p in problems(run)] == ["error"]
    run("init")  # the fix
    assert run("doctor") == (0, f"checked: {', '.join(CLEAN_CHECKS)}\nall good\n")


def fake_package(folder: Path, body: str) -> str:
    """A folder holding an `enf_git` package, put first on the hook's PYTHONPATH."""
    (folder / "enf_git").mkdir(parents=True)
    (folder / "enf_git" / "__init__.py").write_text(body)
    return f"{folder}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"


def test_an_interpreter_with_another_version_is_a_warning(run: Run, repo_dir: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    run("init")
    monkeypatch.setenv("PYTHONPATH", fake_package(tmp_path / "old", "__version__ = '0.0.9'\n"))
    code, out = run("doctor")
    init_py = tmp_path / "old" / "enf_git" / "__init__.py"
    assert code == 0
    assert (f"warning: the local hooks ({local_settings(repo_dir)}) run enf-git 0.0.9 ({init_py}); "
            f"this git enf is {enf_git.__version__}\n  fix: upgrade that installation, or git enf init --scope local") in out


def test_an_interpreter_that_cannot_import_enf_git_is_an_error(run: Run, repo_dir: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    run("init")
    monkeypatch.setenv("PYTHONPATH", fake_package(tmp_path / "broken", "raise ImportError('half-installed')\n"))
    code, out = run("doctor")
    assert code == 1
    assert (f"error: the local hooks ({local_settings(repo_dir)}) run {sys.executable}, which cannot import enf_git "
            f"(ImportError: half-installed): every hook fails\n  fix: pip install enf-git into {sys.executable}, "
            f"or git enf init --scope local") in out


def test_hooks_in_two_scopes_fire_twice(run: Run, repo_dir: Path, hermetic: Path) -> None:
    run("init")
    run("init", "--scope", "user")
    code, out = run("doctor")
    user = hermetic / ".claude" / "settings.json"
    assert code == 1
    assert (f"error: enf-git hooks are registered in 2 scopes, local ({local_settings(repo_dir)}), user ({user}): "
            "every event fires 2 times\n  fix: keep one (user): git enf uninstall --scope local\n") in out
    assert problems(run) == [{"severity": "error", "fix": "keep one (user): git enf uninstall --scope local",
                              "what": f"enf-git hooks are registered in 2 scopes, local ({local_settings(repo_dir)}), "
                                      f"user ({user}): every event fires 2 times"}]
    assert run("uninstall", "--scope", "local")[0] == 0
    assert run("doctor")[0] == 0


def test_an_event_registered_twice_in_one_file_fires_twice(run: Run, repo_dir: Path) -> None:
    run("init")
    settings = local_settings(repo_dir)
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"].append(data["hooks"]["Stop"][0])
    settings.write_text(json.dumps(data))
    assert problems(run) == [{"severity": "error", "what": f"{settings} registers enf-git's Stop hook 2 times: "
                              "it fires 2 times", "fix": "git enf init --scope local (re-registers each event once)"}]


def write_enf_hook(folder: Path, shebang: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "enf-hook"
    script.write_text(f"{shebang}\nfrom enf_git.hook import main\nmain()\n")
    script.chmod(0o755)
    return script


def test_project_scope_follows_enf_hook_on_path_to_its_interpreter(run: Run, repo_dir: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    run("init", "--scope", "project")
    settings = repo_dir / ".claude" / "settings.json"
    (tmp_path / "git-only").mkdir()
    (tmp_path / "git-only" / "git").symlink_to(shutil.which("git") or "git")
    monkeypatch.setenv("PATH", str(tmp_path / "git-only"))
    assert problems(run)[0] == {
        "severity": "error", "what": f"the project hooks ({settings}) call enf-hook, which is not on PATH here: "
                                    "every hook fails",
        "fix": "install enf-git where Claude Code finds it (pipx install enf-git), or git enf init --scope local "
               "to call this interpreter by its path"}
    write_enf_hook(tmp_path / "bin", f"#!{sys.executable}")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{tmp_path / 'git-only'}")
    assert run("doctor")[0] == 0 and problems(run) == []
    gone = tmp_path / "deleted-venv" / "bin" / "python"
    script = write_enf_hook(tmp_path / "bin", f"#!{gone}")
    code, data = doctor_json(run)
    assert code == 1 and data["problems"] == [{
        "severity": "error", "what": f"the project hooks ({settings}) call {script}, whose interpreter {gone} does "
                                    "not exist (its virtualenv was moved or deleted?): every hook fails",
        "fix": "reinstall enf-git (pipx reinstall enf-git), or git enf init --scope local"}]


def test_shebang_forms(tmp_path: Path) -> None:
    forms = {"#!/opt/venv/bin/python": "/opt/venv/bin/python",
             "#!/usr/bin/env -S python3": "python3",
             "#!/bin/sh\n'''exec' \"/very long/venv/bin/python\" \"$0\" \"$@\"\n' '''": "/very long/venv/bin/python",
             "no shebang": None}
    for n, (head, expected) in enumerate(forms.items()):
        script = tmp_path / f"s{n}"
        script.write_text(head + "\n")
        assert install_checks.shebang_interpreter(script) == expected, head


def test_a_missing_or_edited_skill_is_a_warning(run: Run, repo_dir: Path) -> None:
    run("init")
    skill = claude.skill_path("local", repo_dir, repo_dir)
    skill.write_text(skill.read_text() + "my edit\n")
    assert problems(run) == [{"severity": "warning", "fix": "git enf init --scope local (copies the shipped skill)",
                              "what": f"{skill} differs from the skill enf-git {enf_git.__version__} ships "
                                      "(edited, or left by another version)"}]
    skill.unlink()
    assert problems(run)[0]["what"] == (f"the enf-git skill is missing ({skill}): the assistant does not know "
                                        "how to write memory")


def test_missing_exclude_lines_are_named(run: Run, repo_dir: Path) -> None:
    run("init")
    exclude = repo_dir / ".git" / "info" / "exclude"
    exclude.write_text("")
    assert [p["what"].split(" is not")[0] for p in problems(run)] == [
        ".claude-sessions/", "/.claude/settings.local.json", "/.claude/skills/enf-git/"]


def test_a_corrupt_object_of_the_branch_is_an_error(run: Run, repo_dir: Path, git: Git) -> None:
    run("init", "--no-hooks")
    oid = git("rev-parse", "claude-memory:meta.json").strip()
    obj = repo_dir / ".git" / "objects" / oid[:2] / oid[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"not a zlib stream")
    code, out = run("doctor")
    assert code == 1
    checked, error, fix = out.splitlines()
    assert checked == ("checked: hook commands, hook scopes, skill, exclude entry, git hooks, mcp server, codex install, gemini install, cursor install, copilot install, qwen install, toolset profiles, write access, "
                       "writer lock, ref lock, recall index, memory branch, branch objects")  # records are not read from a damaged branch
    assert error == ("error: the claude-memory branch has damaged or missing objects (git rev-list --objects "
                     f"--verify-objects claude-memory: fatal: loose object {oid} (stored in {repo_dir}/.git/objects/{oid[:2]}/"
                     f"{oid[2:]}) is corrupt; error: inflate: data stream error (incorrect header check); "
                     f"error: unable to unpack {oid} header)")
    assert fix == ("  fix: git fsck --no-dangling names each one; if a remote has the branch, move the damaged files out "
                   "of .git/objects and run git fetch origin, then git enf doctor")
    code, data = doctor_json(run)
    assert code == 1 and data["ok"] is False and data["checks"] == CLEAN_CHECKS[:18]


def test_damage_outside_the_branch_is_not_reported_as_ours(run: Run, repo_dir: Path, git: Git) -> None:
    run("init", "--no-hooks")
    oid = git("rev-parse", "main:README.md").strip()
    obj = repo_dir / ".git" / "objects" / oid[:2] / oid[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"not a zlib stream")
    assert run("doctor")[0] == 0


def test_a_stale_ref_lock_is_named_with_its_fix(run: Run, repo_dir: Path) -> None:
    run("init", "--no-hooks")
    lock = repo_dir / ".git" / "refs" / "heads" / "claude-memory.lock"
    lock.write_text("0" * 40 + "\n")
    assert problems(run) == []  # a live git update holds it for milliseconds
    old = time.time() - 60
    os.utime(lock, (old, old))
    found = problems(run)
    assert found == [{"severity": "warning", "what": f"{lock} was left 60 s ago by a git process that did not finish: "
                      "git cannot update claude-memory while it exists",
                      "fix": f"if no git command is running: rm {lock} (the next git enf commit also removes it)"}]
    assert run("doctor")[0] == 0  # a warning


def test_a_writer_lock_held_too_long_names_its_holder(run: Run, repo_dir: Path) -> None:
    run("init", "--no-hooks")
    lock = repo_dir / ".git" / "enf" / "write.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(lock)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        code, out = run("doctor")
    finally:
        holder.kill()
        holder.wait()
    assert code == 0
    assert f"warning: {lock} is held by process {holder.pid} ({sys.executable} -c import fcntl" in out
    assert ("for more than 2 s: every commit waits 10 s for it, then goes on without it\n"
            f"  fix: if no git enf command or Claude Code session is running, end it: kill {holder.pid}\n") in out
    assert problems(run) == []  # released


def test_an_unreadable_or_old_recall_index_is_a_warning(run: Run, repo_dir: Path) -> None:
    run("init", "--no-hooks")
    db = repo_dir / ".git" / "enf" / "search.db"
    db.write_bytes(b"this is not sqlite" * 100)
    assert problems(run) == [{"severity": "warning", "what": f"the recall index {db} cannot be read "
                              "(file is not a database)", "fix": "none needed: git enf recall rebuilds it (or delete the file)"}]
    assert run("recall", "anything")[0] == 0
    assert problems(run) == []
    import sqlite3
    with sqlite3.connect(db) as con:
        con.execute("UPDATE meta SET value='1' WHERE key='schema'")
    con.close()
    assert problems(run)[0]["what"] == f"the recall index {db} has schema 1, this version reads schema {search.SCHEMA}"


def test_a_manifest_whose_base_is_gone_is_a_warning_that_commit_fixes(run: Run, repo_dir: Path) -> None:
    run("init", "--no-hooks")
    from enf_git.plumbing.workcopy import Manifest
    path = repo_dir / ".git" / "enf" / "manifest.bin"
    manifest = Manifest.load(path)
    manifest.base = "0123456789" * 4
    manifest.save(path)
    assert problems(run) == [{"severity": "warning", "what": "the manifest's base commit 012345678901 is not in "
                              "this repository", "fix": "git enf commit (any commit re-records it)"}]
    assert run("commit")[0] == 0
    assert problems(run) == []
    path.write_bytes(b"\x00garbage")
    assert problems(run)[0] == {"severity": "warning", "fix": "git enf restore (rewrites it)",
                                "what": f"the manifest {path} cannot be read (ValueError): the working copy's last "
                                        "sync is unknown"}
    assert run("restore")[0] == 0
    assert problems(run) == []


def test_an_unreadable_settings_file_is_an_error(run: Run, repo_dir: Path, hermetic: Path) -> None:
    run("init")
    user = hermetic / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text("{oops")
    code, data = doctor_json(run)
    assert code == 1 and data["problems"] == [{
        "severity": "error", "fix": f"fix {user} by hand (Claude Code cannot read it either)",
        "what": f"{user} is not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
                "(char 1))"}]


def test_links_and_specials_in_the_working_copy_are_named(run: Run, repo_dir: Path, tmp_path: Path) -> None:
    """Commits pass over them without a word (a link is never followed: one to /etc must not be
    read into memory), so doctor names each: out of the repository, dangling, to a folder, a FIFO."""
    assert run("init", "--no-hooks")[0] == 0
    root = repo_dir / ".claude-sessions"
    outside = tmp_path / "notes.md"
    outside.write_text("notes kept elsewhere\n")
    (root / "sessions" / "2026-04-14-etc.md").symlink_to("/etc/hostname")
    (root / "sessions" / "2026-04-15-outside.md").symlink_to(outside)
    (root / "sessions" / "2026-04-16-dangling.md").symlink_to(tmp_path / "gone.md")
    (root / "decisions").mkdir(exist_ok=True)
    (root / "decisions" / "linked").symlink_to(tmp_path)
    (root / "index-copy.md").symlink_to("index.md")
    os.mkfifo(root / "sessions" / "2026-04-17-pipe.md")
    code, out = run("doctor")
    assert code == 1
    named = {p["what"].split(" is ", 1)[0]: p for p in problems(run) if " is a" in p["what"]}
    assert sorted(named) == ["decisions/linked", "index-copy.md", "sessions/2026-04-14-etc.md",
                             "sessions/2026-04-15-outside.md", "sessions/2026-04-16-dangling.md",
                             "sessions/2026-04-17-pipe.md"], out
    assert all(p["severity"] == "error" for p in named.values())
    assert named["sessions/2026-04-14-etc.md"]["what"] == (
        "sessions/2026-04-14-etc.md is a symbolic link to /etc/hostname (a file outside the working copy): enf-git "
        "never follows nor commits a link, so what it points to is not in memory")
    assert named["sessions/2026-04-16-dangling.md"]["what"].startswith(
        f"sessions/2026-04-16-dangling.md is a symbolic link to {tmp_path / 'gone.md'}, which does not exist: ")
    assert named["sessions/2026-04-16-dangling.md"]["fix"] == "rm .claude-sessions/sessions/2026-04-16-dangling.md"
    assert "(a folder outside the working copy)" in named["decisions/linked"]["what"]
    assert "to index.md (a file inside the working copy)" in named["index-copy.md"]["what"]
    assert named["sessions/2026-04-17-pipe.md"]["what"] == \
        "sessions/2026-04-17-pipe.md is a FIFO: enf-git never reads nor commits one"
    assert "cp --remove-destination" in named["sessions/2026-04-15-outside.md"]["fix"]
    assert "hostname" not in run("status")[1]  # named, and still never read


def _skill_end_example() -> str:
    """The fenced example of the skill's End step: what the assistant copies."""
    skill = claude.skill_source().read_text(encoding="utf-8")
    end = skill.split("\n## End\n", 1)[1]
    fenced = end.split("```\n", 1)[1]
    return fenced.split("\n```", 1)[0] + "\n"


def test_the_skills_end_step_writes_what_doctor_accepts(run: Run, repo_dir: Path) -> None:
    """The skill and doctor agree: a session ended as the skill shows is read whole (its
    Decisions Taken lines are decisions) and doctor warns of nothing in it; the plain
    bullets the skill once suggested there are exactly what doctor warns of."""
    from enf_git.pure import model

    example = _skill_end_example()
    assert example.startswith("## Decisions Taken\n- [")
    head = ('---\nsession_id: a1b2c3d4\ndate: 2026-04-13\nstart_time: "14:00"\ntags: [search]\nstatus: completed\n'
            'summary: "Moved search to Postgres"\n---\n## Intent\nCheaper search.\n\n## Changes Made\n- search.ts\n\n')
    parsed = model.parse_session("sessions/2026-04-13-search.md", (head + example).encode())
    assert parsed.problems == () and len(parsed.decisions) == example.count("\n- [")
    assert run("init", "--no-hooks")[0] == 0
    sessions = repo_dir / ".claude-sessions" / "sessions"
    (sessions / "2026-04-13-search.md").write_text(head + example)
    (sessions / "2026-04-14-plain.md").write_text(
        head.replace("a1b2c3d4", "b2c3d4e5").replace("2026-04-13", "2026-04-14") + "## Decisions Taken\n- Chose Postgres\n")
    assert run("commit")[0] == 0
    about = [p["what"] for p in problems(run) if "sessions/2026-04-1" in p["what"]]
    assert about == ["sessions/2026-04-14-plain.md:16: decision line is not a Y-statement: " + about[0].split(": ", 2)[2]]
