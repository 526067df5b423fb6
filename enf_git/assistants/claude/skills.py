"""Skill suggestions (UserPromptSubmit, seed 002): one line naming up to three installed
skills that fit the prompt, as a hint the model may ignore, never an invocation.

Which skills are installed is Claude Code's layout (measured on 2.1.332): personal
`~/.claude/skills/*/SKILL.md` (or under `$CLAUDE_CONFIG_DIR`), the project's
`.claude/skills/*/SKILL.md`, and every enabled plugin's `skills/*/SKILL.md` plus the
skill folders its `.claude-plugin/plugin.json` names under `"skills"`. A plugin is
enabled when `enabledPlugins["name@marketplace"]` is true in the user's, the project's
or the local settings (the later wins) and `~/.claude/plugins/installed_plugins.json`
says where it is installed. A personal skill wins a name over a project one; a plugin's
skills are typed `/plugin:skill`.

The ranking and the cache are plumbing/skill_index.py (the build skill_build.py); this
module only says where to look. Stdlib only: it runs before every prompt.
"""

import os
import time

from ... import fastjson, paths
from ...plumbing import fastconfig, prompt_kind, skill_index
from .protocol import Where

LINE = "Possibly relevant skills (suggestion, not auto-fired — invoke only if it fits): "
MAX_SETTINGS = 1024 * 1024  # bytes of a settings file read (a bigger one is not a settings file)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...plumbing.skill_build import Root


# What reading a cache that loads but is malformed raises (a bad watch entry, a shard that
# is not marshal, a posting naming no skill): such a cache is stale, not an error. Caught
# only for a cached index: one just built that raises is a bug, and is reported.
BROKEN = (ValueError, TypeError, LookupError, AssertionError, EOFError)


def hint(where: Where, prompt: str, config: dict[str, str], home: str) -> str:
    """The suggestion line for `prompt` ('' for none); `home` is Claude Code's config dir."""
    if not fastconfig.flag(config, "skillHints", True) or prompt_kind.trivial(prompt):
        return ""
    names = suggestions(where, home, prompt)
    return LINE + ", ".join("/" + n for n in names) if names else ""


def suggestions(where: Where, home: str, prompt: str) -> list[str]:
    """The skills to suggest for `prompt`, from the cached index, else (stale or malformed) a new one."""
    index = cached(where, home)
    if index is not None:
        try:
            return skill_index.suggest(index, prompt)
        except BROKEN:
            pass  # written by another version, or damaged: rebuilt below, and the file replaced
    return skill_index.suggest(rebuild(where, home), prompt)


def claude_home(environ: dict[str, str] | os._Environ[str]) -> str:
    """Claude Code's config dir: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    return environ.get("CLAUDE_CONFIG_DIR") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".claude")


def cache_path(where: Where) -> str:
    """Per worktree: each work tree has its own `.claude/skills`."""
    return os.path.join(where.git_dir, paths.STATE_DIR, paths.SKILLS_INDEX)


def current(where: Where, home: str) -> dict[str, object]:
    """The index, rebuilt (and saved) first if a skill, a skills folder or a setting changed,
    or the cache cannot be read."""
    index = cached(where, home)
    return index if index is not None else rebuild(where, home)


def cached(where: Where, home: str) -> dict[str, object] | None:
    """The cached index if it is still fresh; None when it is stale, missing or malformed."""
    path = cache_path(where)
    index = skill_index.load(path)
    if index is None:
        return None
    # The cache file's mtime says when its SKILL.md files were last all checked.
    checked, now = skill_index.stamp(path), time.time_ns()
    files_checked = checked[0] if checked else None
    try:
        if not skill_index.fresh(index, (where.top, home), files_checked, now):
            return None
    except BROKEN:
        return None  # loads, but not as this version wrote it: stale
    if files_checked is None or now - files_checked >= skill_index.RECHECK_NS:
        os.utime(path, ns=(now, now))
    return index


def rebuild(where: Where, home: str) -> dict[str, object]:
    """The index built from the installed skills now, and saved over the cache."""
    from ...plumbing import skill_build  # only when something changed

    sources, roots = discover(where.top, home)
    index = skill_build.build((where.top, home), sources, roots)
    skill_build.save(cache_path(where), index)
    return index


def discover(top: str, home: str) -> "tuple[list[str], list[Root]]":
    """(files whose change means re-discovering, skill roots in precedence order)."""
    from ...plumbing.skill_build import valid_name  # discovery runs only to rebuild
    settings = [os.path.join(home, "settings.json"), os.path.join(top, ".claude", "settings.json"),
                os.path.join(top, ".claude", "settings.local.json")]
    installed = os.path.join(home, "plugins", "installed_plugins.json")
    sources = [*settings, installed]
    roots: "list[Root]" = [(os.path.join(home, "skills"), "", False), (os.path.join(top, ".claude", "skills"), "", False)]
    records = _json(installed).get("plugins")
    records = records if isinstance(records, dict) else {}
    for plugin_id in enabled_plugins(settings):
        root = install_path(records.get(plugin_id), top)
        if root is None:
            continue
        manifest = os.path.join(root, ".claude-plugin", "plugin.json")
        sources.append(manifest)
        meta = _json(manifest)
        name = meta.get("name")
        prefix = name if isinstance(name, str) and valid_name(name) else plugin_id.partition("@")[0]
        if not valid_name(prefix):
            continue
        roots.append((os.path.join(root, "skills"), prefix, False))
        roots += [(folder, prefix, True) for folder in declared_skills(root, meta.get("skills"))]
    return sources, roots


def enabled_plugins(settings: list[str]) -> list[str]:
    """The plugin ids `enabledPlugins` turns on, the later settings file winning."""
    state: dict[str, object] = {}
    for path in settings:
        found = _json(path).get("enabledPlugins")
        if isinstance(found, dict):
            state.update(found)
    return sorted(k for k, v in state.items() if v is True and isinstance(k, str))


def install_path(record: object, top: str) -> str | None:
    """Where a plugin is installed: installed_plugins.json version 2 holds a list of installs
    (one per scope: this project's first, then the user's), version 1 one object."""
    installs = record if isinstance(record, list) else [record]
    entries = [e for e in installs if isinstance(e, dict) and isinstance(e.get("installPath"), str)]
    here = os.path.normpath(top)
    for entry in entries:
        project = entry.get("projectPath")
        if isinstance(project, str) and os.path.normpath(project) == here:
            return str(entry["installPath"])
    for entry in entries:
        if entry.get("scope") in (None, "user", "managed"):
            return str(entry["installPath"])
    return str(entries[0]["installPath"]) if entries else None


def declared_skills(root: str, value: object) -> list[str]:
    """The skill folders plugin.json names (in addition to skills/), kept inside the plugin."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    base = os.path.normpath(root)
    out = []
    for item in items:
        if isinstance(item, str) and item:
            folder = os.path.normpath(os.path.join(base, item))
            if folder == base or folder.startswith(base + os.sep):
                out.append(folder)
    return out


def _json(path: str) -> dict[str, object]:
    """A settings file's object; {} when it is missing, too big or not a JSON object."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SETTINGS + 1)
        found = fastjson.loads(data.decode("utf-8")) if len(data) <= MAX_SETTINGS else None
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
