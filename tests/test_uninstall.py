"""`git enf uninstall` removes what init created and nothing else; `--purge` also the
working copy and `.git/enf/` after a confirmation, never the branch."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from enf_git.cli.app import main
from gitfixtures import Git, session_text

THEIRS = '{\n    "permissions": {"allow": ["Bash(ls)"]},\n    "model": "opus"\n}\n'  # not our json.dumps style
BRANCH_FILES = ("objects/", "refs/heads/claude-memory", "logs/refs/heads/claude-memory", "logs/")


def cli(repo: Path, *args: str, code: int = 0) -> str:
    old = os.getcwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    assert result.exit_code == code, result.output
    return result.output


def snapshot(root: Path, skip: tuple[str, ...] = (".git/",)) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under `root`: an empty folder left behind shows."""
    out: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        for name in dirs:
            out[os.path.join(rel, name) + "/"] = None
        for name in files:
            out[os.path.join(rel, name)] = Path(folder, name).read_bytes()
    return {k.removeprefix("./"): v for k, v in out.items() if not k.removeprefix("./").startswith(skip)}


def git_dir_files(repo: Path) -> set[str]:
    """The git dir's files, less the branch's objects, ref and reflog (which uninstall keeps)."""
    return {p for p in snapshot(repo / ".git", skip=BRANCH_FILES) if not p.startswith(("index", "info/exclude"))}


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_purge_after_init_leaves_the_repo_and_home_as_before(repo_dir: Path, hermetic: Path, git: Git,
                                                             scope: str) -> None:
    before = snapshot(repo_dir), (repo_dir / ".git" / "info" / "exclude").read_bytes(), git_dir_files(repo_dir)
    home = snapshot(hermetic)
    cli(repo_dir, "init", "--scope", scope)
    assert snapshot(repo_dir) != before[0] or snapshot(hermetic) != home
    out = cli(repo_dir, "uninstall", "--scope", scope, "--purge", "--yes")
    after = snapshot(repo_dir), (repo_dir / ".git" / "info" / "exclude").read_bytes(), git_dir_files(repo_dir)
    assert after == before
    assert snapshot(hermetic) == home
    assert git("rev-parse", "--verify", "claude-memory")  # never the branch
    assert out.endswith("kept the claude-memory branch: your memory is still in git. To delete it as well: "
                        "git branch -D claude-memory (and git push origin --delete claude-memory for a remote)\n")


def test_uninstall_without_purge_keeps_the_working_copy_and_its_exclude_line(repo_dir: Path) -> None:
    exclude = repo_dir / ".git" / "info" / "exclude"
    before_exclude = exclude.read_bytes()
    before = snapshot(repo_dir)
    cli(repo_dir, "init")
    out = cli(repo_dir, "uninstall")
    settings = repo_dir / ".claude" / "settings.local.json"
    skill = repo_dir / ".claude" / "skills" / "enf-git"
    commands = repo_dir / ".claude" / "commands"
    assert out == (f"deleted {settings} (enf-git created it; nothing else was in it)\n"
                   f"deleted the skill {skill / 'SKILL.md'}\n"
                   f"deleted the skill's {skill / 'analytics.md'}\n"
                   f"deleted the slash commands /remember, /forget, /memories, /pin, /toolset, /stats from {commands}\n"
                   f"deleted the empty folder {skill}\n"
                   f"deleted the empty folder {commands}\n"
                   f"deleted the empty folder {skill.parent}\n"
                   f"deleted the empty folder {skill.parent.parent}\n"
                   "removed /.claude/settings.local.json from .git/info/exclude\n"
                   "removed /.claude/skills/enf-git/ from .git/info/exclude\n"
                   + "".join(f"removed /.claude/commands/{n}.md from .git/info/exclude\n"
                             for n in ("remember", "forget", "memories", "pin", "toolset", "stats")) +
                   f"git hooks removed from {repo_dir / '.git' / 'hooks'}: pre-push, post-merge, post-checkout, "
                   "post-rewrite\n"
                   "the claude-memory branch and .claude-sessions/ are untouched (--purge deletes the working copy)\n")
    # Without it, git status would show the kept working copy and git add -A would commit it.
    assert exclude.read_bytes() == before_exclude + b"# added by enf-git\n/.claude-sessions/\n"
    assert {k for k in snapshot(repo_dir) if k not in before} == {
        ".claude-sessions/", ".claude-sessions/sessions/", ".claude-sessions/raw/", ".claude-sessions/.opt-out/",
        *[k for k in snapshot(repo_dir) if k.startswith(".claude-sessions/")]}
    assert (repo_dir / ".git" / "enf").is_dir() and not (repo_dir / ".git" / "enf" / "installed.json").exists()


def test_a_users_settings_file_is_restored_byte_for_byte(repo_dir: Path, hermetic: Path) -> None:
    settings = hermetic / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    cli(repo_dir, "init", "--scope", "user")
    assert json.loads(settings.read_text())["model"] == "opus" and "hooks" in json.loads(settings.read_text())
    out = cli(repo_dir, "uninstall", "--scope", "user")
    assert f"removed enf-git entries from {settings}\n" in out
    assert settings.read_text() == THEIRS
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]  # skills/ was ours


def test_settings_changed_after_init_keep_the_change(repo_dir: Path) -> None:
    settings = repo_dir / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(THEIRS)
    cli(repo_dir, "init")
    data = json.loads(settings.read_text())
    data["permissions"]["allow"].append("Bash(make)")  # the user's edit since init
    settings.write_text(json.dumps(data))
    cli(repo_dir, "uninstall")
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(ls)", "Bash(make)"]}, "model": "opus"}


def test_a_folder_the_user_had_keeps_their_files(repo_dir: Path) -> None:
    commands = repo_dir / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("review\n")
    (repo_dir / ".claude" / "skills" / "mine").mkdir(parents=True)
    cli(repo_dir, "init")
    cli(repo_dir, "uninstall")
    assert snapshot(repo_dir / ".claude") == {"commands/": None, "commands/review.md": b"review\n",
                                              "skills/": None, "skills/mine/": None}


def test_an_edited_skill_is_kept_and_said(repo_dir: Path) -> None:
    cli(repo_dir, "init")
    skill = repo_dir / ".claude" / "skills" / "enf-git" / "SKILL.md"
    skill.write_text(skill.read_text() + "my own rule\n")
    out = cli(repo_dir, "uninstall")
    assert f"kept {skill}: it differs from the skill enf-git ships (your edits?); delete it if unwanted\n" in out
    assert skill.is_file()


def test_the_skill_stays_while_project_scope_still_uses_it(repo_dir: Path) -> None:
    cli(repo_dir, "init", "--scope", "project")
    cli(repo_dir, "init", "--scope", "local")
    cli(repo_dir, "uninstall", "--scope", "local")
    assert (repo_dir / ".claude" / "skills" / "enf-git" / "SKILL.md").is_file()
    assert "enf-hook stop" in (repo_dir / ".claude" / "settings.json").read_text()
    cli(repo_dir, "uninstall", "--scope", "project")
    assert not (repo_dir / ".claude").exists()


def test_the_git_hooks_stay_while_another_scope_still_registers_ours(repo_dir: Path) -> None:
    """Taking back a duplicate registration (doctor's fix for two scopes) must not stop
    memory travelling with push and pull; and init says when it makes a duplicate."""
    pre_push = repo_dir / ".git" / "hooks" / "pre-push"
    cli(repo_dir, "init", "--scope", "project")
    out = cli(repo_dir, "init", "--scope", "local")
    assert "warning: enf-git's hooks are also registered in project scope, so every event fires twice" in out
    out = cli(repo_dir, "uninstall", "--scope", "local")
    assert "kept the git hooks: enf-git's hooks are still registered in project scope" in out
    assert pre_push.is_file() and "enf-git hook" in pre_push.read_text()
    cli(repo_dir, "uninstall", "--scope", "project")
    assert not pre_push.exists()


def test_a_users_own_exclude_line_stays(repo_dir: Path) -> None:
    exclude = repo_dir / ".git" / "info" / "exclude"
    exclude.write_text("# mine\n/.claude-sessions/\n")
    cli(repo_dir, "init")
    cli(repo_dir, "uninstall", "--purge", "--yes")
    assert exclude.read_text() == "# mine\n/.claude-sessions/\n"


def test_uninstall_of_an_empty_scope_points_at_the_one_in_use(repo_dir: Path) -> None:
    cli(repo_dir, "init", "--scope", "user")
    out = cli(repo_dir, "uninstall")
    assert out.startswith("no enf-git hooks in local scope; found them in user scope: git enf uninstall --scope user\n")


def test_purge_without_a_terminal_needs_yes(repo_dir: Path) -> None:
    cli(repo_dir, "init")
    proc = subprocess.run([sys.executable, "-c", "from enf_git.entry import main; main()", "uninstall", "--purge"],
                          cwd=repo_dir, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == (f"error: --purge deletes {repo_dir / '.claude-sessions'} and {repo_dir / '.git' / 'enf'}, "
                           "and there is no terminal to confirm it; nothing removed\n"
                           "hint: rerun with --yes: git enf uninstall --purge --yes\n")
    assert (repo_dir / ".claude" / "settings.local.json").is_file() and (repo_dir / ".claude-sessions").is_dir()


def run_on_a_terminal(repo: Path, answer: str) -> tuple[int, str]:
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-c", "from enf_git.entry import main; main()", "uninstall",
                                 "--purge"], cwd=repo, stdin=secondary, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        os.write(primary, answer.encode() + b"\n")
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(primary)
        os.close(secondary)
    return proc.returncode, out


def test_purge_on_a_terminal_asks_first(repo_dir: Path) -> None:
    cli(repo_dir, "init")
    code, out = run_on_a_terminal(repo_dir, "n")
    targets = f"{repo_dir / '.claude-sessions'} and {repo_dir / '.git' / 'enf'}"
    assert code == 1 and out.startswith(f"delete {targets}? (the claude-memory branch keeps your memory) [y/N]: ")
    assert "error: nothing removed" in out
    assert (repo_dir / ".claude-sessions").is_dir() and (repo_dir / ".claude" / "settings.local.json").is_file()
    code, out = run_on_a_terminal(repo_dir, "y")
    assert code == 0, out
    assert f"deleted {repo_dir / '.claude-sessions'}\n" in out and not (repo_dir / ".claude-sessions").exists()
    assert not (repo_dir / ".git" / "enf").exists() and not (repo_dir / ".claude").exists()


def test_purge_refuses_to_lose_uncommitted_notes(repo_dir: Path) -> None:
    cli(repo_dir, "init")
    note = repo_dir / ".claude-sessions" / "sessions" / "2026-04-13-unsaved.md"
    note.write_text(session_text())
    proc = subprocess.run([sys.executable, "-c", "from enf_git.entry import main; main()", "uninstall", "--purge",
                           "--yes"], cwd=repo_dir, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == ("error: 1 change(s) in .claude-sessions/ are not on the branch yet (e.g. "
                          "sessions/2026-04-13-unsaved.md): --purge would lose them; nothing removed\n"
                          "hint: git enf commit saves them, then rerun git enf uninstall --purge\n")
    assert note.is_file() and (repo_dir / ".claude" / "settings.local.json").is_file()
    cli(repo_dir, "commit")
    image = repo_dir / ".claude-sessions" / "sessions" / "2026-04-14-image.md"
    image.write_bytes(b"\x89PNG\r\n\x00")  # a file commit refuses: "commit saves them" would be untrue
    out = cli(repo_dir, "uninstall", "--purge", "--yes", code=1)
    assert "sessions/2026-04-14-image.md cannot be committed as it is (git enf status says why)" in out
    image.unlink()
    cli(repo_dir, "uninstall", "--purge", "--yes")
    assert not note.exists()


def test_purge_unsets_the_memory_remote_init_elected_and_keeps_one_the_user_chose(
        repo_dir: Path, tmp_path: Path, git: Git) -> None:
    git("init", "-q", "--bare", str(tmp_path / "origin.git"))
    git("remote", "add", "origin", str(tmp_path / "origin.git"))
    config = (repo_dir / ".git" / "config").read_bytes()
    assert "memory will be shared through origin" in cli(repo_dir, "init", "--no-hooks")
    assert git("config", "enf.remote").strip() == "origin"
    out = cli(repo_dir, "uninstall", "--purge", "--yes")
    assert "unset enf.remote (origin), which git enf init had set" in out
    assert (repo_dir / ".git" / "config").read_bytes() == config  # not even an empty [enf] left
    cli(repo_dir, "init", "--no-hooks")
    git("config", "enf.remote", "upstream")  # the user's choice from now on
    git("config", "enf.workingSet", "all")
    out = cli(repo_dir, "uninstall", "--purge", "--yes")
    assert "enf.remote" not in out
    assert git("config", "enf.remote").strip() == "upstream" and git("config", "enf.workingSet").strip() == "all"


def test_a_copy_made_with_cp_a_checks_and_uninstalls_its_own_files(repo_dir: Path, tmp_path: Path) -> None:
    cli(repo_dir, "init", "--mcp")
    original = snapshot(repo_dir)
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(repo_dir), str(copy)], check=True)
    assert str(repo_dir) in (copy / ".git" / "enf" / "installed.json").read_text()  # the original's paths
    (copy / ".claude" / "settings.local.json").unlink()  # as git clean -xfd in the copy would
    out = cli(copy, "doctor", code=0)
    assert f"registered enf-git's hooks in {copy / '.claude' / 'settings.local.json'} (local scope), and they " \
           "are gone" in out
    cli(copy, "init", "--mcp")
    out = cli(copy, "uninstall")
    assert str(repo_dir) not in out
    assert not (copy / ".claude").exists() and not (copy / ".mcp.json").exists()  # every folder init made
    assert snapshot(repo_dir) == original  # the original is not touched
