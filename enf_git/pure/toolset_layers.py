"""Custom toolset profiles: `toolsets.yaml` files layered over the built-ins, and the
compiled form a PreToolUse hook reads instead of YAML.

A file maps profile names to settings (optionally under a top-level `profiles:` key):

    review-web:
      extends: review          # a built-in or a profile defined before it
      allow: [WebFetch]        # single tools on top of the classes
      deny_bash: ["docker *"]  # command globs denied whatever the classifier says
    site:
      extends: docs
      paths: ["site/**"]       # the globs a write or edit may touch

Layers apply lowest first (the user's file, then the project's), so the project wins.
A malformed profile is left out with a Problem (file, line, what is wrong), so the
built-in of its name stays in force: never a crash, never a silent allow-all.

Parsing YAML costs ~30 ms of import; a tool call must not pay it. `compiled` turns a
table into plain JSON data, keyed by the files' sizes and times, which the hook reads
with json's C core; only a changed file is parsed again.
"""

from .toolsets import BUILTINS, CLASSES, META, SHELL_MODES, WRITE_MODES, WRITES_NONE, WRITES_PATHS, Problem, Profile


TYPE_CHECKING = False  # the hook reads the compiled table through this module: no typing, no collections
if TYPE_CHECKING:
    from collections.abc import Iterable


KEYS = ("extends", "description", "classes", "allow", "deny", "deny_bash", "paths", "shell", "writes")
LISTS = ("classes", "allow", "deny", "deny_bash", "paths")
Lines = dict[tuple[str, ...], int]  # a key's path in the file -> its line (1-based)
Layer = tuple[str, object, Lines]


def layered(layers: "Iterable[Layer]") -> tuple[dict[str, Profile], list[Problem]]:
    """The profiles of the built-ins with each layer on top, lowest first (user, then
    project): a layer's profile replaces the one of its name below it, and `extends`
    names a profile of the layers below or one defined earlier in the same file (a
    profile extending its own name extends the one it replaces)."""
    table = dict(BUILTINS)
    problems: list[Problem] = []
    for source, data, lines in layers:
        for name, spec, where in _entries(source, data, lines, problems):
            profile = _profile(source, name, spec, table, where, problems)
            if profile is not None:
                table[name] = profile
    return table, problems


def _entries(source: str, data: object, lines: Lines, problems: list[Problem]) -> list[tuple[str, object, Lines]]:
    if data is None:
        return []
    if isinstance(data, dict) and set(data) == {"profiles"}:
        data = data["profiles"]
        lines = {k[1:]: v for k, v in lines.items() if k[:1] == ("profiles",)} | lines
    if not isinstance(data, dict):
        problems.append(Problem(source, 1, "expected a mapping of profile names to their settings"))
        return []
    out = []
    for name, spec in data.items():
        if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum():
            problems.append(Problem(source, lines.get((str(name),), 1), f"{_shown(name)} is not a profile name "
                                    "(letters, digits, - and _)"))
            continue
        out.append((name, spec, lines))
    return out


def _profile(source: str, name: str, spec: object, table: dict[str, Profile], lines: Lines,
             problems: list[Problem]) -> Profile | None:
    def bad(key: str | None, message: str) -> None:
        where = lines.get((name, key) if key else (name,), lines.get((name,), 1))
        kept = f"the built-in {name} is used" if name in BUILTINS else "it is ignored"
        problems.append(Problem(source, where, f"profile {name}: {message}; {kept}"))

    if not isinstance(spec, dict):
        bad(None, "expected a mapping of settings (extends, allow, deny, deny_bash, paths, …)")
        return None
    wrong = _wrong_setting(spec, table)
    if wrong is not None:
        bad(*wrong)
        return None
    base_name = spec.get("extends")
    base = Profile(name, frozenset([META])) if base_name is None else table[str(base_name)]
    return _extend(base, name, source, spec)


def _wrong_setting(spec: dict[object, object], table: dict[str, Profile]) -> tuple[str, str] | None:
    """The first setting of a profile that is wrong, and what is wrong with it."""
    unknown = [k for k in spec if k not in KEYS]
    if unknown:
        return str(unknown[0]), f"unknown setting {_shown(unknown[0])} (known: {', '.join(KEYS)})"
    base = spec.get("extends")
    if base is not None and not (isinstance(base, str) and base in table):
        return "extends", f"extends {_shown(base)}, which is no profile defined before it (built-ins: {', '.join(BUILTINS)})"
    for key in LISTS:
        items = spec.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
            return key, f"{key} must be a list of strings"
    classes = spec.get("classes", [])
    bad_class = [c for c in classes if c not in CLASSES] if isinstance(classes, list) else []
    if bad_class:
        return "classes", f"{_shown(bad_class[0])} is no tool class (classes: {', '.join(CLASSES)})"
    for key, modes in (("shell", SHELL_MODES), ("writes", WRITE_MODES)):
        if key in spec and spec[key] not in modes:
            return key, f"{key} must be one of {', '.join(modes)}"
    if "description" in spec and not isinstance(spec["description"], str):
        return "description", "description must be text"
    return None


def _extend(base: Profile, name: str, source: str, spec: dict[object, object]) -> Profile:
    """`base` with a custom profile's settings on top: lists add to the base's, modes replace.
    `paths` alone makes the writes path-bound (a profile that names paths means them)."""
    def listed(key: str) -> list[str]:
        value = spec.get(key, [])
        return [str(v) for v in value] if isinstance(value, list) else []

    default_writes = WRITES_PATHS if "paths" in spec and base.writes != WRITES_NONE else base.writes
    # a path-bound base (docs) keeps its paths and gains these; any other base is bound to these alone
    kept = base.paths if base.writes == WRITES_PATHS else ()
    description = str(spec.get("description", base.restriction))[:200]  # shown in every denial
    return Profile(
        name=name, classes=base.classes | frozenset(listed("classes")), shell=str(spec.get("shell", base.shell)),
        writes=str(spec.get("writes", default_writes)), paths=(*kept, *listed("paths")),
        allow=(base.allow | frozenset(listed("allow"))) - frozenset(listed("deny")),
        deny=(base.deny | frozenset(listed("deny"))) - frozenset(listed("allow")),
        deny_shell=(*base.deny_shell, *listed("deny_bash")),
        restriction=description, source=source)


def _shown(value: object, width: int = 60) -> str:
    """A value from the file, quoted and cut: it reaches the model in denials and context."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def parse_layer(source: str, raw: bytes) -> tuple[Layer | None, list[Problem]]:
    """One toolsets file's bytes as `layered` takes them; a file that is not UTF-8 or not
    YAML gives no layer and one Problem that says where."""
    from . import fm

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(source, 1 + raw[: exc.start].count(b"\n"), "is not UTF-8 text; the file is ignored")]
    try:
        data, lines = fm.load_document(text)
    except Exception as exc:  # noqa: BLE001 - PyYAML raises YAMLError and, on odd tags, others
        line, what = fm.error_line(exc)
        return None, [Problem(source, line, f"is not valid YAML ({what}); the file is ignored")]
    return (source, data, lines), []


def from_files(files: "Iterable[tuple[str, bytes | None]]") -> tuple[dict[str, Profile], list[Problem]]:
    """The table from the files' bytes (None: no such file), lowest precedence first."""
    layers: list[Layer] = []
    problems: list[Problem] = []
    for source, raw in files:
        if raw is None:
            continue
        layer, found = parse_layer(source, raw)
        problems += found
        if layer is not None:
            layers.append(layer)
    table, more = layered(layers)
    return table, problems + more


# --- the compiled form -------------------------------------------------------------------

_FIELDS = ("classes", "shell", "writes", "paths", "allow", "deny", "deny_shell", "restriction", "source")  # from_compiled's order


def compiled(table: dict[str, Profile], problems: list[Problem]) -> dict[str, object]:
    """The custom part of a table and its problems as JSON data (built-ins are code)."""
    custom = {name: {f: sorted(v) if isinstance(v, frozenset) else list(v) if isinstance(v, tuple) else v
                     for f in _FIELDS for v in [getattr(p, f)]}
              for name, p in table.items() if BUILTINS.get(name) is not p}
    return {"profiles": custom, "problems": [[p.source, p.line, p.message] for p in problems]}
