"""Frontmatter: split a markdown file into its YAML header and body.

Session files carry a small, flat header (`key: scalar` and `tags: [a, b]`). Full
YAML costs ~30 ms of import per process, which matters on commit and hook paths,
so a strict stdlib parser handles exactly that subset and hands anything else
(nesting, anchors, block scalars, escapes, booleans, and any bare value YAML 1.1
would type, such as `14:30` or `017`) to PyYAML. Dates are normalized to ISO text,
so on the subset the two paths give identical results.

Headers come from teammates' pushes too, so YAML is bounded: at most MAX_HEADER
characters, MAX_DEPTH levels of nesting (PyYAML composes recursively: thousands of
`[` were a RecursionError), and no aliases (a "billion laughs" bomb of nine aliases
per level grew past 1 GiB). Each limit is a FrontmatterError with a line, like any
other YAML error. No regex here backtracks on a long run of spaces.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

MAX_HEADER = 64 * 1024  # characters: a real header is a few hundred
MAX_DEPTH = 16  # nested collections; a session header uses at most two
# The value is stripped in Python: a lazy `(.*?)\s*$` is quadratic on a run of spaces.
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$")
# A plain scalar the fast path may take as written: no indicator first ('@' and '`'
# are reserved in YAML), no comment, no ': ' or trailing ':' (a nested mapping), no
# '- ' / lone '-' (a block sequence).
_PLAIN = re.compile(r"^(?!-(?:\s|$))[A-Za-z0-9_./+()-][^#]*$")
_MAPPING_COLON = re.compile(r":(?:\s|$)")
_INT = re.compile(r"^-?(?:0|[1-9][0-9]*)$")  # canonical decimal only: YAML 1.1 reads 017 as octal 15
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_AMBIGUOUS = {"true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"}
# Every other plain scalar YAML 1.1 (PyYAML's implicit resolvers) would not read as a
# string: floats, octal/hex/binary/underscored ints, base-60 numbers (`14:30` is 870),
# timestamps with a time. The fast path hands these to YAML so both paths agree.
_YAML_TYPED = (
    r"""^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
    |[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?
    |<<|=)$"""
)
_TYPED_STARTS = frozenset("+-.0123456789<=")  # every alternative above starts with one of these
# Characters the YAML reader refuses anywhere in a stream, plus the line breaks a
# one-line scalar cannot hold (YAML 1.1 breaks at \n, \r, U+0085, U+2028, U+2029):
# the fast path leaves these to YAML and dump() escapes them.
_UNSAFE_CLASS = "[^\x09\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]"


def _unsafe() -> re.Pattern[str]:
    # Compiled on first use (re keeps it cached): its Unicode ranges take ~6 ms to
    # compile, which every `git enf commit` paid, and ASCII text never needs it.
    return re.compile(_UNSAFE_CLASS)


def _yaml_typed() -> re.Pattern[str]:
    # Compiled on first use (~1 ms; re keeps it cached): most values start with a letter.
    return re.compile(_YAML_TYPED, re.VERBOSE)


def has_unsafe(text: str) -> bool:
    """Holds a character that _UNSAFE_CLASS matches (YAML refuses it, or it breaks a line)."""
    if text.isascii():  # there the safe set is tab plus 0x20-0x7E: exactly isprintable() once tabs are spaces
        return not text.replace("\t", " ").isprintable()
    return _unsafe().search(text) is not None


class Parsed(NamedTuple):  # not a dataclass: ~1 ms less on every commit's import
    meta: dict[str, Any]
    body: str
    body_line: int  # 1-based line number where the body starts, for error messages


class FrontmatterError(ValueError):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def split(text: str) -> tuple[list[str], str, int] | None:
    """The header lines, the body and the body's first line; None without a header."""
    if not text.startswith("---"):
        return None
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return lines[1:i], "\n".join(lines[i + 1 :]), i + 2
    raise FrontmatterError(1, "frontmatter opened with '---' but never closed")


def parse_record(path: str, data: bytes, schema: int) -> Parsed:
    """The record file at `path` parsed: RecordError (with the line) when it is not UTF-8
    text or its header is malformed, SchemaTooNew when a newer enf-git (a later `schema`)
    wrote it: refused, never rewritten in an older shape."""
    from ..errors import RecordError, SchemaTooNew

    try:
        parsed = parse(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RecordError(path, 0, f"not UTF-8 text (byte {exc.start})") from exc
    except FrontmatterError as exc:
        raise RecordError(path, exc.line, exc.reason) from exc
    found = parsed.meta.get("schema")
    if isinstance(found, int) and found > schema:
        raise SchemaTooNew(f"{path} was written by a newer enf-git (schema {found})",
                           hint="upgrade enf-git: pip install -U enf-git")
    return parsed


def parse(text: str) -> Parsed:
    """Parse a record; raises FrontmatterError (with a line number) on bad input."""
    parts = split(text)
    if parts is None:
        return Parsed({}, text, 1)
    header, body, body_line = parts
    size = sum(map(len, header)) + len(header)
    if size > MAX_HEADER:
        raise FrontmatterError(2, f"frontmatter is {size // 1024} KiB; at most {MAX_HEADER // 1024} KiB is read")
    meta = _fast(header)
    if meta is None:
        meta = _full(header)
    return Parsed({k: normalize(v) for k, v in meta.items()}, body, body_line)


def _fast(lines: list[str]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for line in lines:
        if has_unsafe(line.rstrip("\r")):
            return None  # YAML refuses it; let YAML say where
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _KEY.match(line)
        if m is None or m.group(1) in out or m.group(1).lower() in _AMBIGUOUS:
            return None  # `on:` / `null:` are keys True / None to YAML
        value = _scalar_or_list((m.group(2) or "").rstrip())
        if value is _FALLBACK:
            return None
        out[m.group(1)] = value
    return out


_FALLBACK = object()


def _scalar_or_list(raw: str) -> Any:
    if raw == "":
        return None
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        if not inner:
            return []
        if any(c in inner for c in "[]{}"):
            return _FALLBACK  # nested flow collections
        items = [_scalar(p.strip()) for p in inner.split(",")]
        return _FALLBACK if any(i is _FALLBACK or i is None for i in items) else items
    return _scalar(raw)


def _scalar(raw: str) -> Any:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        inner = raw[1:-1]
        return _FALLBACK if ("\\" in inner or '"' in inner) else inner
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        inner = raw[1:-1]
        return _FALLBACK if "'" in inner.replace("''", "") else inner.replace("''", "'")
    if not raw or not _PLAIN.match(raw) or _MAPPING_COLON.search(raw) or "," in raw or has_unsafe(raw):
        return _FALLBACK if raw else None
    if raw.lower() in _AMBIGUOUS:
        return _FALLBACK
    if _INT.match(raw):
        # Past 4300 digits int() refuses (CPython's limit): YAML's error then stands.
        return int(raw) if len(raw) <= 4000 else _FALLBACK
    if _DATE.match(raw):
        # YAML makes a date of it, which normalize() turns back into the same text,
        # unless it is no real date (2026-02-30): then YAML's error stands.
        return raw if _is_real_date(raw) else _FALLBACK
    if raw[0] in _TYPED_STARTS and _yaml_typed().match(raw):
        return _FALLBACK
    return raw


def _is_real_date(raw: str) -> bool:
    """`raw` (YYYY-MM-DD) names a day that exists, as datetime.date (and so YAML) sees it."""
    year, month, day = int(raw[:4]), int(raw[5:7]), int(raw[8:10])
    if year < 1 or not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]


def _full(lines: list[str]) -> dict[str, Any]:
    import yaml  # deferred: see module docstring

    _check_flow_depth(lines)
    try:
        data = yaml.load("\n".join(lines), Loader=_bounded_loader())
    except yaml.YAMLError as exc:
        # context_mark points at the construct that was left open (where a person looks).
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = (mark.line + 2) if mark is not None else 1
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(line, f"invalid YAML frontmatter: {reason}") from exc
    except Exception as exc:  # noqa: BLE001 - any bytes reach here; PyYAML's constructors raise
        # ValueError/OverflowError (`date: 2026-02-30`) and, on odd explicit tags, TypeError or
        # AttributeError. None carries a position, so point at the header.
        raise FrontmatterError(2, f"invalid YAML frontmatter: {exc or type(exc).__name__}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(2, "frontmatter must be a mapping of key: value lines")
    return {str(k): v for k, v in data.items()}


def load_document(text: str, depth: int = 2) -> tuple[Any, dict[tuple[str, ...], int]]:
    """A whole YAML document (a settings file, not a header), with the 1-based line of
    each mapping key by its path from the top, `depth` levels deep, so a mistake is named
    where it is. The same bounded loader as headers; a YAMLError carries its line
    (`error_line`)."""
    import yaml

    loader = _bounded_loader()(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    lines: dict[tuple[str, ...], int] = {}
    if node is not None:
        _key_lines(node, (), lines, depth, yaml)
    return data, lines


def _key_lines(node: Any, path: tuple[str, ...], lines: dict[tuple[str, ...], int], depth: int, yaml: Any) -> None:
    if not isinstance(node, yaml.MappingNode) or len(path) > depth:
        return
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode):
            here = (*path, str(key.value))
            lines[here] = key.start_mark.line + 1
            _key_lines(value, here, lines, depth, yaml)


def error_line(exc: Exception) -> tuple[int, str]:
    """Where a YAML error is (1-based line of the document) and what it is, in a line."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    reason = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
    return (mark.line + 1 if mark is not None else 1), str(reason)


def _check_flow_depth(lines: list[str]) -> None:
    """Refuse `[[[[…` before PyYAML sees it: its scanner keeps every open bracket as a
    possible key and rescans them on each token, so 30,000 of them take minutes even
    though the composer would stop at MAX_DEPTH. Quotes are not parsed here: a header
    that really holds 17 unclosed brackets in its strings is refused too."""
    depth = 0
    for n, line in enumerate(lines, 2):
        for m in _BRACKETS.finditer(line):
            depth = depth + 1 if m.group() in "[{" else max(depth - 1, 0)
            if depth > MAX_DEPTH:
                raise FrontmatterError(n, f"invalid YAML frontmatter: nested deeper than {MAX_DEPTH} levels")


_BRACKETS = re.compile(r"[\[\]{}]")
_LOADER: Any = None


def _bounded_loader() -> Any:
    """PyYAML's pure-Python SafeLoader, bounded in depth and refusing aliases.

    Always the pure loader: libyaml's CSafeLoader disagrees with it on edge cases
    (tabs, `[a:]`), which would make two clones render different views from the same
    bytes. The bounds sit in compose_node, the one recursive step, so they hold before
    any recursion or expansion happens; the error carries the line of the offending node,
    as does a constructor's (a ValueError for `2026-02-30` carries none of its own).
    """
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml
    from yaml.composer import ComposerError

    from yaml.constructor import ConstructorError

    class BoundedLoader(yaml.SafeLoader):
        _depth = 0

        def construct_object(self, node: Any, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep)
            except (ValueError, OverflowError) as exc:
                # `date: 2026-02-30`: the constructor knows no position; the node does.
                raise ConstructorError(None, None, str(exc) or type(exc).__name__, node.start_mark) from exc
            except (TypeError, AttributeError) as exc:  # `!!timestamp soon`: PyYAML trips on its own tag
                raise ConstructorError(None, None, f"the value does not match its tag {node.tag}",
                                       node.start_mark) from exc

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise ComposerError(None, None, "aliases (*name) are not allowed in a header",
                                    self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            if self._depth >= MAX_DEPTH:
                raise ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels",
                                    self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            self._depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    _LOADER = BoundedLoader
    return _LOADER


def normalize(value: Any) -> Any:
    """Dates to ISO strings, nested lists kept, everything else as YAML gave it."""
    if not isinstance(value, str) and callable(getattr(value, "isoformat", None)):
        return value.isoformat()  # YAML's dates and datetimes (not importing datetime here: ~1.5 ms)
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    return value


def dump(meta: dict[str, Any], body: str) -> str:
    """Canonical serialization: given key order, one line per key, deterministic bytes."""
    lines = ["---"]
    for key, value in meta.items():
        lines.append(f"{key}: {_emit(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n" + body


def _emit(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_emit(str(v)) for v in value) + "]"
    text = str(value)
    # Plain only when it reads back as exactly this text (no edge spaces, which parsing
    # strips; no tabs, which PyYAML's pure loader refuses in plain scalars).
    if text == text.strip() and "\t" not in text and _scalar(text) == text and not _INT.match(text):
        return text
    # Double-quoted YAML; control characters and line breaks escaped so the value
    # stays on its one line and reads back exactly.
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + (_unsafe().sub(_escape, escaped) if has_unsafe(escaped) else escaped) + '"'


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"

