"""Toolset profiles for one session, as both edges use them: the profile table (the
built-ins under the user's and the project's toolsets.yaml), which profile a session
works in and why, a switch recorded where memory sees it, and the line that says so.

Which profile: the session's own choice (kept per session under the git dir, see
plumbing/toolset_files.py), else the client's plan mode, else `.claude/active-toolset`,
else build. What a profile allows is pure/toolsets.py.

The Claude Code hooks call this on every tool call, so: standard library, plumbing and
pure only (the memory facade loads its heavy parts lazily), and the YAML of custom
profiles is read from a compiled cache (pure/toolset_layers.py), parsed again only when
a file changed.
"""


import os

from ...plumbing import events, session_head, toolset_files
from ...pure import toolsets as ts

TYPE_CHECKING = False  # typing's would cost every tool call an import
if TYPE_CHECKING:
    from ...pure.toolsets import Problem


class Places:
    """Where one session's profile is decided: the work tree, its memory working copy,
    the per-machine state folder, the user's config folder."""

    __slots__ = ("top", "root", "state", "user_dir")

    def __init__(self, top: str, root: str, state: str, user_dir: str) -> None:
        self.top, self.root, self.state, self.user_dir = top, root, state, user_dir


class Active:
    """The profile in force, why, names that match no profile, and problems in the files."""

    __slots__ = ("profile", "why", "missing", "problems")

    def __init__(self, profile: ts.Profile, why: str, missing: list[str], problems: "list[Problem]") -> None:
        self.profile, self.why, self.missing, self.problems = profile, why, missing, problems


def load(places: Places) -> "tuple[dict[str, ts.Profile], list[Problem]]":
    """The profile table, from the compiled cache while neither toolsets.yaml changed."""
    files = toolset_files.layer_files(places.top, places.user_dir)
    signature = toolset_files.signature(files)
    if all(size is None for _path, size, _time in signature):
        return dict(ts.BUILTINS), []
    cache = toolset_files.read_cache(places.state)
    if cache is not None and cache.get("signature") == signature:
        found = ts.from_compiled(cache.get("table"))
        if found is not None:
            return found
    from ...pure import toolset_layers  # only to compile the files again: YAML and layering

    readable, unreadable = _read(files)
    table, problems = toolset_layers.from_files(readable)
    problems = [ts.Problem(shown, 1, f"cannot be read ({why}); the file is ignored")
                for shown, why in unreadable] + problems
    toolset_files.write_cache(places.state, {"signature": signature,
                                             "table": toolset_layers.compiled(table, problems)})
    return table, problems


def _read(files: list[tuple[str, str]]) -> tuple[list[tuple[str, bytes | None]], list[tuple[str, str]]]:
    """The files' bytes (None: not there), and the ones that exist but cannot be read."""
    readable: list[tuple[str, bytes | None]] = []
    unreadable: list[tuple[str, str]] = []
    for path, shown in files:
        try:
            readable.append((shown, toolset_files.read(path)))
        except OSError as exc:
            unreadable.append((shown, exc.strerror or type(exc).__name__))
    return readable, unreadable


def active(places: Places, sid: str, permission_mode: object = None) -> Active:
    """The profile session `sid` works in ('' for none: the one new sessions get)."""
    table, problems = load(places)
    chosen = toolset_files.chosen(places.state, sid) if sid else None
    mode = permission_mode if isinstance(permission_mode, str) else None
    profile, why, missing = ts.pick(table, chosen, mode, toolset_files.project_default(places.top))
    return Active(profile, why, missing, problems)


def switch(places: Places, sid: str, name: str | None) -> tuple[str, Active]:
    """Make `name` the session's profile (None: forget its choice, back to the project's
    default or build); the profile it worked in before, and the one it works in now.
    A name that is no profile raises KeyError, and nothing changes."""
    before = active(places, sid)
    table, _ = load(places)
    if name is not None and name not in table:
        raise KeyError(name)
    if name is None:
        toolset_files.clear(places.state, sid)
    else:
        toolset_files.choose(places.state, sid, name)
    now = active(places, sid)
    record_switch(places, sid, now.profile.name, before.profile.name)
    return before.profile.name, now


def record_switch(places: Places, sid: str, name: str, before: str) -> None:
    """A switch in the session's event log and its file's frontmatter (`toolset:`), so
    memory knows which mode each session worked in; an untracked session keeps neither.
    The header is a convenience (Stop sets it again): a file that cannot be written there
    still has the log line."""
    if not os.path.isdir(places.root) or events.opted_out(places.root, sid):
        return
    events.append(places.root, sid, "toolset", profile=name, previous=before)
    own = session_head.matching_file(places.root, sid)
    if own is not None:
        session_head.set_value(own, "toolset", name)


def describe(profile: ts.Profile) -> str:
    every = all(c in profile.classes for c in ts.CLASSES)
    allows = "every tool" if every else ", ".join(c for c in ts.CLASSES if c in profile.classes and c != ts.META)
    extra = f"; also {', '.join(sorted(profile.allow))}" if profile.allow else ""
    return f"the toolset profile {profile.name} ({profile.restriction or 'custom'}; allows {allows}{extra})"


def status_line(found: Active) -> str:
    """One line: the profile in force and why, how to switch; then what is wrong, a line each."""
    names = "|".join(ts.BUILTINS)
    text = (f"Toolset: this session works in {describe(found.profile)}, {found.why}. Switch with /toolset {names} "
            f"(or a team profile), /toolset status, /toolset reset.")
    return text + problems_text(found)


def problems_text(found: Active) -> str:
    lines = [f"{line}; {ts.DEFAULT} is used" for line in found.missing]
    lines += [f"toolsets file {p}" for p in found.problems]
    return "".join(f"\n- {line}" for line in lines)
