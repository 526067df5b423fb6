"""`git enf init` and `git enf uninstall`: setting up, and taking away only what we set up."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import click

from .. import paths
from ..errors import EnfError
from ..memory.workspace import Context
from .base import CONTEXT, workspace
from .text import plural

if TYPE_CHECKING:
    from ..install.codex import Done
    from ..install.gemini import Client

ASSISTANTS = ("claude", "codex", "gemini", "cursor", "copilot", "qwen")
# Clients registered through a settings.json of their own (install/gemini.py).
SETTINGS_CLIENTS = ("gemini", "qwen")
# Clients whose hooks file has a shape of its own (install/cursor.py, install/copilot.py).
FILE_CLIENTS = ("cursor", "copilot")
SCOPE_HELP = ("Where to register the Claude Code hooks: local = .claude/settings.local.json (you, this repo), "
              "project = .claude/settings.json (the team), user = ~/.claude/settings.json (all repos).")


@click.command(context_settings=CONTEXT)
@click.option("--scope", type=click.Choice(["project", "local", "user"]), default="local", show_default=True,
              help=SCOPE_HELP)
@click.option("--no-hooks", is_flag=True, help="Only set up the branch and working copy.")
@click.option("--mcp", "with_mcp", is_flag=True,
              help="Also register the MCP server (git enf mcp) in the project's .mcp.json.")
@click.option("--assistant", type=click.Choice(ASSISTANTS), default="claude", show_default=True,
              help="Which client to register with: claude (Claude Code), codex (OpenAI Codex CLI: "
              "$CODEX_HOME/hooks.json for --scope user or local, .codex/hooks.json for project) or gemini "
              "(Gemini CLI: ~/.gemini/settings.json for user or local, .gemini/settings.json for project); "
              "cursor, copilot and qwen (from their documented hooks, not tested against the real clients: "
              "~/.cursor/hooks.json or .cursor/hooks.json; $COPILOT_HOME/hooks/ or .github/hooks/enf-git.json; "
              "~/.qwen/settings.json or .qwen/settings.json).")
def init(scope: str, no_hooks: bool, with_mcp: bool, assistant: str) -> None:
    """Create the memory branch and .claude-sessions/, and register the hooks (idempotent)."""
    from .. import memory

    ctx = workspace()
    report = memory.init(ctx, online=True)
    for w in report.warnings:
        click.echo(w)
    state = "created" if report.commit else "ready"
    click.echo(f"{paths.BRANCH} {state}; working copy in {ctx.root}")
    if report.restored:
        click.echo(f"  restored {plural(len(report.restored), 'file')} that went with the working copy's folder, "
                   f"e.g. {report.restored[0]}")
    if not no_hooks:
        if assistant == "codex":
            _install_codex(ctx, scope)
        elif assistant in SETTINGS_CLIENTS:
            _install_settings_client(ctx, assistant, scope)
        elif assistant in FILE_CLIENTS:
            _install_file_client(ctx, assistant, scope)
        else:
            _install_hooks(ctx, scope)
        _install_git_hooks(ctx)
    if with_mcp:
        if assistant == "codex":
            from ..install import codex

            _echo(codex.install_mcp(_codex_scope(scope), codex.config_folder(_codex_scope(scope), ctx.top,
                                                                              _codex_home())).lines)
        elif assistant in SETTINGS_CLIENTS:
            from ..install import gemini

            _echo(gemini.install_mcp(_client(assistant), _codex_scope(scope), ctx.top, Path.home()).lines)
        elif assistant in FILE_CLIENTS:
            _echo(_file_client(assistant).install_mcp(_codex_scope(scope), ctx.top, _file_home(assistant)).lines)
        else:
            _install_mcp(ctx, scope)
    if not report.commit and not no_hooks:  # adopted memory, and the hooks that read its pointers
        from ..memory.context import pointer_refresh

        pointer_refresh.start(ctx)


def _codex_home() -> Path:
    import os

    from ..install import codex

    return codex.codex_home(os.environ, Path.home())


def _codex_scope(scope: str) -> str:
    """Codex has no per-user file inside a repository: local means the user's $CODEX_HOME."""
    return "project" if scope == "project" else "user"


def _echo(lines: "list[str]") -> None:
    for line in lines:
        click.echo(line)


def _install_codex(ctx: Context, scope: str) -> None:
    from ..install import codex

    done = codex.install(_codex_scope(scope), ctx.top, _codex_home())
    _echo(done.lines)
    if scope == "local":
        click.echo("  (Codex has no per-repository file of yours: the hooks went to $CODEX_HOME, which every "
                   "repository shares; they do nothing where enf-git is not set up)")


def _client(name: str) -> Client:
    from ..install import gemini

    return gemini.CLIENTS[name]


def _install_settings_client(ctx: Context, name: str, scope: str) -> None:
    from ..install import gemini

    client = _client(name)
    _echo(gemini.install(client, _codex_scope(scope), ctx.top, Path.home()).lines)
    if scope == "local":
        click.echo(f"  ({client.title} has no per-repository file of yours: the hooks went to ~/{client.folder}/, "
                   "which every repository shares; they do nothing where enf-git is not set up)")


class _FileClient(Protocol):
    TITLE: str

    def install(self, scope: str, top: Path, home: Path) -> Done: ...
    def uninstall(self, scope: str, top: Path, home: Path) -> Done: ...
    def install_mcp(self, scope: str, top: Path, home: Path) -> Done: ...


def _file_client(name: str) -> _FileClient:
    from ..install import copilot, cursor

    found: _FileClient = {"cursor": cursor, "copilot": copilot}[name]
    return found


def _file_home(name: str) -> Path:
    """Where the client's user files live: ~ for Cursor (~/.cursor/), $COPILOT_HOME for Copilot CLI."""
    if name == "copilot":
        import os

        from ..install import copilot

        return copilot.copilot_home(os.environ, Path.home())
    return Path.home()


def _install_file_client(ctx: Context, name: str, scope: str) -> None:
    client = _file_client(name)
    _echo(client.install(_codex_scope(scope), ctx.top, _file_home(name)).lines)
    if scope == "local":
        click.echo(f"  ({client.TITLE} has no per-repository file of yours: the hooks went to your user folder, "
                   "which every repository shares; they do nothing where enf-git is not set up)")
    claude_scopes = _registered_scopes(ctx)
    if name == "cursor" and claude_scopes:
        click.echo(f"warning: Claude Code's enf-git hooks are registered too ({' and '.join(claude_scopes)} scope); "
                   "Cursor runs those as well when its third-party hooks setting is on, and every event would "
                   "then run twice: keep one (turn that setting off, or git enf uninstall --assistant cursor)",
                   err=True)


def _uninstall_file_client(ctx: Context, name: str, scope: str) -> None:
    client = _file_client(name)
    done = client.uninstall(_codex_scope(scope), ctx.top, _file_home(name))
    _echo(done.lines)
    if not done.changed:
        click.echo(f"no enf-git {client.TITLE} hooks in {_codex_scope(scope)} scope")
    click.echo(f"the {paths.BRANCH} branch and {paths.WC_DIR}/ are untouched")


def _uninstall_settings_client(ctx: Context, name: str, scope: str) -> None:
    """The client's hooks, skill and MCP entry; the git hooks and the memory stay."""
    from ..install import gemini

    client = _client(name)
    done = gemini.uninstall(client, _codex_scope(scope), ctx.top, Path.home())
    _echo(done.lines)
    if not done.changed:
        click.echo(f"no enf-git {client.title} hooks in {_codex_scope(scope)} scope")
    click.echo(f"the {paths.BRANCH} branch and {paths.WC_DIR}/ are untouched")


def _install_hooks(ctx: Context, scope: str) -> None:
    from ..install import claude
    from ..plumbing import store, workcopy

    result = claude.install(scope, ctx.top, Path.home(), store.state_dir(ctx.repo) / claude.RECORD)
    # Per-user files inside the repo (local scope): keep them out of `git status`, like the working copy.
    for line in result.excludes:
        workcopy.ensure_excluded(store.common_dir(ctx.repo), line)
    verb = "registered" if result.changed else "already registered"
    click.echo(f"hooks {verb} in {result.settings} (scope {scope}), calling: {result.command}")
    others = [s for s in _registered_scopes(ctx) if s != scope]
    if others:
        click.echo(f"warning: enf-git's hooks are also registered in {' and '.join(others)} scope, so every event "
                   f"fires twice: keep one (git enf uninstall --scope {others[0]})", err=True)
    for note in result.notes:
        click.echo(note)
    if scope == "project":
        click.echo("  project scope is shared: it calls enf-hook from PATH, so every teammate needs enf-git "
                   "installed; --scope local uses an absolute path instead (faster, only for you)")


def _install_mcp(ctx: Context, scope: str) -> None:
    from ..install import mcp
    from ..plumbing import store, workcopy

    if scope != "project" and store.is_tracked(ctx.repo, mcp.FILE):
        raise EnfError(f"{mcp.FILE} is tracked by git: a --scope {scope} entry would put this machine's path to "
                       "git-enf into a file the team shares; left it untouched",
                       hint="git enf init --mcp --scope project (the entry calls git-enf from PATH)")
    result = mcp.install(scope, ctx.top, store.state_dir(ctx.repo) / mcp.RECORD)
    if result.exclude:
        workcopy.ensure_excluded(store.common_dir(ctx.repo), result.exclude)
    verb = "registered" if result.changed else "already registered"
    command = " ".join([result.entry["command"], *result.entry.get("args", [])])
    click.echo(f"MCP server {mcp.SERVER!r} {verb} in {result.path}, calling: {command}")
    from ..memory.health import mcp_checks

    lacking = mcp_checks.sdk_missing(str(result.entry["command"]), ctx.top)
    if lacking is not None:  # registered all the same: the next session starts it once the SDK is there
        click.echo(f"warning: the MCP server needs the MCP Python SDK, which {lacking} lacks: Claude Code lists "
                   f"the server as failed until it is installed: {mcp_checks.install_command(lacking)}", err=True)
    if scope != "project" and not result.created:
        click.echo(f"  it calls this machine's git-enf by path: if {mcp.FILE} is committed, "
                   "git enf init --mcp --scope project calls git-enf from PATH instead")


def _install_git_hooks(ctx: Context) -> None:
    from ..install import githooks
    from ..plumbing import store

    result = githooks.install(ctx.top, store.common_dir(ctx.repo))
    for line in result.lines("installed in"):
        click.echo(line)
    if not result.hooks and not result.add_lines:
        click.echo(f"git hooks already installed in {result.folder}")


@click.command(context_settings=CONTEXT)
@click.option("--scope", type=click.Choice(["project", "local", "user"]), default="local", show_default=True,
              help="Which settings file to clean.")
@click.option("--purge", is_flag=True, help=f"Also delete .git/{paths.STATE_DIR}/ (this machine's state) and the "
              f"working copy {paths.WC_DIR}/, after a confirmation. Never the {paths.BRANCH} branch.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before --purge deletes.")
@click.option("--assistant", type=click.Choice(ASSISTANTS), default="claude", show_default=True,
              help="Which client's registration to remove (codex, gemini, cursor, copilot, qwen: its hooks, skill and MCP "
              "entry only).")
def uninstall(scope: str, purge: bool, yes: bool, assistant: str) -> None:
    """Remove what git enf init set up: hooks, skill, the files and exclude lines it added (memory is kept)."""
    from ..install import claude
    from ..plumbing import store

    ctx = workspace()
    if assistant != "claude" and purge:
        raise EnfError("--purge goes with Claude Code's uninstall: it deletes what every client shares",
                       hint=f"git enf uninstall --assistant {assistant}, then git enf uninstall --purge")
    if assistant == "codex":
        _uninstall_codex(ctx, scope)
        return
    if assistant in SETTINGS_CLIENTS:
        _uninstall_settings_client(ctx, assistant, scope)
        return
    if assistant in FILE_CLIENTS:
        _uninstall_file_client(ctx, assistant, scope)
        return
    if purge:
        _confirm_purge(ctx, yes)  # before anything is removed
    common = store.common_dir(ctx.repo)
    result = claude.uninstall(scope, ctx.top, Path.home(), common / paths.STATE_DIR / claude.RECORD)
    # per repository, whatever the scope; before --purge's deletes. The git hooks stay
    # while another scope still registers ours (removing a duplicate registration must
    # not stop memory travelling with push and pull).
    still = _registered_scopes(ctx)
    if still and not purge:
        git_hooks = [f"kept the git hooks: enf-git's hooks are still registered in {' and '.join(still)} scope "
                     f"(git enf uninstall --scope {still[0]} takes those back, and then the git hooks go too)"]
    else:
        git_hooks = _uninstall_git_hooks(ctx) + _untrack(ctx)
    git_hooks += _uninstall_mcp(ctx, scope)
    if scope == "local":
        result.done += [f"removed {line} from .git/info/exclude"
                        for line in claude.remove_excluded(common / "info" / "exclude", claude.OWN_EXCLUDES)]
    if purge:
        from ..memory.record import setup as memory_setup

        result.done += memory_setup.unset_config(ctx) + _purge(ctx)
    for line in [*result.done, *result.kept]:
        click.echo(line)
    if not result.done:
        click.echo(f"no enf-git hooks in {scope} scope{_elsewhere(ctx)}")
    for line in git_hooks:
        click.echo(line)
    if purge:
        click.echo(f"kept the {paths.BRANCH} branch: your memory is still in git. To delete it as well: "
                   f"git branch -D {paths.BRANCH} (and git push origin --delete {paths.BRANCH} for a remote)")
    else:
        click.echo(f"the {paths.BRANCH} branch and {paths.WC_DIR}/ are untouched (--purge deletes the working copy)")


def _uninstall_codex(ctx: Context, scope: str) -> None:
    """Codex's hooks, skill and MCP entry; the git hooks and the memory stay (Claude Code's
    uninstall takes those)."""
    from ..install import codex

    done = codex.uninstall(_codex_scope(scope), ctx.top, _codex_home())
    done_mcp = codex.uninstall_mcp(codex.config_folder(_codex_scope(scope), ctx.top, _codex_home()))
    _echo(done.lines + done_mcp.lines)
    if not done.changed and not done_mcp.changed:
        click.echo(f"no enf-git Codex hooks in {_codex_scope(scope)} scope")
    click.echo(f"the {paths.BRANCH} branch and {paths.WC_DIR}/ are untouched")


def _registered_scopes(ctx: Context) -> list[str]:
    from ..memory.health import install_checks

    return [r.scope for r in install_checks.registered(ctx.top, Path.home())[0]]


def _uninstall_mcp(ctx: Context, scope: str) -> list[str]:
    from ..install import claude, mcp
    from ..plumbing import store

    done = mcp.uninstall(scope, ctx.top, store.state_dir(ctx.repo) / mcp.RECORD)
    if not (ctx.top / mcp.FILE).exists():
        exclude = store.common_dir(ctx.repo) / "info" / "exclude"
        done += [f"removed {line} from .git/info/exclude" for line in claude.remove_excluded(exclude, (mcp.EXCLUDE,))]
    return done


def _uninstall_git_hooks(ctx: Context) -> list[str]:
    from ..install import githooks
    from ..plumbing import store

    return githooks.uninstall(ctx.top, store.common_dir(ctx.repo)).lines("removed from")


def _untrack(ctx: Context) -> list[str]:
    """The fetch refspecs init added in a single-branch or shallow clone (memory.setup): to
    every remote it noted, whatever enf.remote says now, and to enf.remote's (an init from
    before the note)."""
    from ..memory.record import setup
    from ..plumbing import gitcli, gitclones

    top = str(ctx.top)
    names = dict.fromkeys([*setup.tracked(ctx), *([ctx.settings.remote] if ctx.settings.remote else [])])
    done = [f"removed {gitclones.memory_refspec(name)} from remote.{name}.fetch" for name in names
            if gitcli.remote_exists(top, name) and gitclones.untrack(top, name)]
    setup.forget_tracked(ctx)
    return done


def _elsewhere(ctx: Context) -> str:
    from ..memory.health.install_checks import registered

    found, _ = registered(ctx.top, Path.home())
    return "".join(f"; found them in {r.scope} scope: git enf uninstall --scope {r.scope}" for r in found)


def _state_dirs(ctx: Context) -> list[Path]:
    from ..plumbing import store

    common = store.common_dir(ctx.repo) / paths.STATE_DIR
    own = Path(ctx.repo.path).resolve() / paths.STATE_DIR  # a linked worktree's manifest lives here
    return [common] if own == common else [own, common]


def _confirm_purge(ctx: Context, yes: bool) -> None:
    from .. import memory
    from ..plumbing import store

    tip = store.tip(ctx.repo)
    if tip is not None and ctx.root.is_dir():
        found = memory.pending(ctx, tip=tip)
        unsaved = sorted([p for p, data in found.changes.items() if data is not None] + list(found.views))
        if unsaved:
            refused = {p for p, _ in memory.would_refuse(ctx, found.changes)}
            stuck = [p for p in unsaved if p in refused]
            hint = ("git enf commit saves them, then rerun git enf uninstall --purge" if not stuck else
                    f"{stuck[0]} cannot be committed as it is (git enf status says why): fix or move it out of "
                    f"{paths.WC_DIR}/, git enf commit the rest, then rerun git enf uninstall --purge")
            raise EnfError(f"{len(unsaved)} change(s) in {paths.WC_DIR}/ are not on the branch yet (e.g. "
                           f"{(stuck or unsaved)[0]}): --purge would lose them; nothing removed", hint=hint)
    targets = " and ".join(str(p) for p in [ctx.root, *_state_dirs(ctx)] if p.exists())
    if yes or not targets:
        return
    if not sys.stdin.isatty():
        raise EnfError(f"--purge deletes {targets}, and there is no terminal to confirm it; nothing removed",
                       hint="rerun with --yes: git enf uninstall --purge --yes")
    if not click.confirm(f"delete {targets}? (the {paths.BRANCH} branch keeps your memory)", default=False):
        raise EnfError("nothing removed")


def _purge(ctx: Context) -> list[str]:
    """The working copy and this machine's state; the exclude line once no worktree has a copy."""
    import shutil

    from ..install import claude
    from ..plumbing import store

    done = []
    for folder in [ctx.root, *_state_dirs(ctx)]:
        if folder.is_symlink():
            folder.unlink()  # never follow it out of the repository
        elif folder.is_dir():
            shutil.rmtree(folder)
        else:
            continue
        done.append(f"deleted {folder}")
    others = _other_copies(store.common_dir(ctx.repo), ctx.top)
    if others:
        done.append(f"kept {paths.EXCLUDE_LINE} in .git/info/exclude: {others[0]} still has a working copy")
    else:
        exclude = store.common_dir(ctx.repo) / "info" / "exclude"
        done += [f"removed {line} from .git/info/exclude" for line in claude.remove_excluded(exclude, (paths.EXCLUDE_LINE,))]
    return done


def _other_copies(common: Path, top: Path) -> list[Path]:
    """Working copies of the repository's other worktrees (which share info/exclude)."""
    tops = [common.parent] if common.name == ".git" else []
    for pointer in sorted((common / "worktrees").glob("*/gitdir")):
        try:
            tops.append(Path(pointer.read_text(encoding="utf-8").strip()).parent)
        except OSError:
            continue
    return [t / paths.WC_DIR for t in tops if t.resolve() != top.resolve() and (t / paths.WC_DIR).is_dir()]


COMMANDS = (init, uninstall)
