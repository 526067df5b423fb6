"""The "Learned instincts" block of SessionStart's context, and the instinct records read
from the branch (memory/instincts.py learns them, and builds on this module).

Every session start asks for it, and most find it as the last one left it: this
module reads that cached text with nothing but the branch's folder id and the budget,
and imports the instinct records and their derivation (dataclasses, regexes: ~8 ms)
only to build it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import fastjson, paths
from ...errors import EnfError
from ...plumbing import atomic, store
from ..workspace import Context

if TYPE_CHECKING:  # the records' module is loaded only to build the block or read them
    from ...pure import instincts as pi

ENABLED_KEY = "enf.instincts"
BUDGET_KEY = "enf.budget.instincts"  # tokens of SessionStart's context the instincts may use
BUDGET_DEFAULT = 300
CHARS_PER_TOKEN = 4
_FALSE = ("false", "no", "off", "0")


def enabled(repo: store.Repo) -> bool:
    return (store.config_value(repo, ENABLED_KEY) or "true").strip().lower() not in _FALSE


BLOCK_FILE = "instincts-block.json"
BLOCK_VERSION = 3  # bump whenever the block's text changes for the same records (3: teammates' signed)


def session_start_block(ctx: Context) -> str:
    """The most corroborated live instincts within enf.budget.instincts tokens ("" when
    off or none). The block is a function of the branch's instincts/ folder and the
    budget alone, so a start that finds both as an earlier one did reuses its text
    from `.git/enf/` (BLOCK_FILE) without parsing a record (~0.1 ms each)."""
    if not enabled(ctx.repo):
        return ""
    tip = store.tip(ctx.repo)
    room = _budget(ctx.repo) * CHARS_PER_TOKEN
    from ..record.authors import reader

    key = [BLOCK_VERSION, store.blob_oid(ctx.repo, tip.tree, paths.INSTINCTS_DIR) if tip is not None else None, room,
           list(reader(ctx))]  # whose lines go unsigned
    cache = store.state_dir(ctx.repo) / BLOCK_FILE
    from ..record import trust

    gate = trust.shown_gate(ctx)
    try:
        saved = fastjson.loads(cache.read_text(encoding="utf-8"))
        if (isinstance(saved, dict) and saved.get("key") == [*key, trust.cache_key(gate)]
                and isinstance(saved.get("text"), str)):  # whose instincts are withheld is part of it
            return str(saved["text"])
    except (OSError, ValueError):
        pass
    from ...pure import instincts as pi

    every = list(load(ctx.repo, tip).instincts.values())
    withheld = gate.withheld([pi.instinct_path(i.id) for i in every])
    found = [i for i in every if pi.instinct_path(i.id) not in withheld]
    text = pi.block(found, room, _by(ctx, [pi.instinct_path(i.id) for i in found]))
    if withheld:
        text = (text or "## Learned instincts") + f"\n- {trust.withheld_line(len(withheld), 'instinct')}"
    from ..record import authors

    try:
        if not authors.provisional():  # names not known yet: the next start signs them
            atomic.write(cache, fastjson.dumps({"key": [*key, trust.cache_key(gate)], "text": text}).encode("utf-8"))
    except OSError:
        pass  # a read-only state dir costs the next start a recompute, never this one
    return text


def _by(ctx: Context, files: list[str]) -> dict[str, str]:
    """instincts/<id>.md -> "Alice, 2026-12-01" for those of `files` someone else last changed."""
    from ...errors import EnfError
    from ..record import authors

    try:
        table = authors.load(ctx)
    except (EnfError, OSError):
        return {}
    return {p: who for p in files if (who := table.by(p))}


def _budget(repo: store.Repo) -> int:
    raw = (store.config_value(repo, BUDGET_KEY) or "").strip()
    return int(raw) if raw.isdigit() else BUDGET_DEFAULT


class Loaded:  # a plain class: see workspace.Settings
    """The instinct records on the branch at one tip."""

    def __init__(self) -> None:
        self.instincts: dict[str, pi.Instinct] = {}
        self.problems: list[str] = []  # one line each: the file, and why it is left out
        self.unreadable: dict[str, EnfError] = {}  # path -> why: never written over (a newer enf-git's file)

    @property
    def blocked(self) -> set[str]:
        """The ids whose files are there but cannot be read: learning must not take them for new."""
        return {path.rsplit("/", 1)[-1].removesuffix(".md") for path in self.unreadable}


def load(repo: store.Repo, tip: store.Commit | None) -> Loaded:
    """The instincts on the branch at `tip`; malformed files (and a newer enf-git's) are
    reported and listed in `unreadable`, never rewritten."""
    from ...pure import instincts as pi

    out = Loaded()
    for name, oid, kind in store.folder_entries(repo, tip.tree if tip is not None else None, pi.INSTINCTS_DIR):
        path = f"{pi.INSTINCTS_DIR}/{name}"
        if not name.endswith(".md"):
            continue
        try:
            if kind != "blob":
                raise EnfError(f"{path}: a {kind} where an instinct file belongs")
            found = pi.parse_instinct(path, store.blob_data(repo, oid))
        except EnfError as exc:
            out.problems.append(exc.message)
            out.unreadable[path] = exc
            continue
        out.instincts[found.id] = found
    return out
