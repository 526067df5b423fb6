"""Recall: ranked search over memory, answered from an on-disk index.

The index is a SQLite database in `.git/enf/search.db` (machine-local, never on the
branch) holding one row per searchable document, tagged with the branch tip it was
built from. Documents come in the seed's recall order: decisions first (they
survive every compression), then the index/topics views, then session files, then
text that only the branch's history still has (e.g. before a compression).

This module is stdlib-only so a warm `git enf recall` (index tip == branch tip)
never imports pygit2 or click; indexer.py builds and updates the index.
"""

from __future__ import annotations

import re
import sqlite3

TYPE_CHECKING = False  # the warm recall path avoids typing/pathlib/dataclasses (~30 ms of imports)
if TYPE_CHECKING:
    from pathlib import Path

KINDS = ("decision", "index", "topics", "session", "history")
SCHEMA = 3
_WORD = re.compile(r"[\w][\w.-]*", re.UNICODE)


class Hit:
    """One recall result. A plain class: dataclasses would import inspect on the warm path."""

    FIELDS = ("kind", "ref", "path", "date", "snippet", "rev", "score")
    __slots__ = FIELDS

    def __init__(self, kind: str, ref: str, path: str, date: str, snippet: str, rev: str, score: float) -> None:
        self.kind = kind
        self.ref = ref  # what to pass to `git enf show`
        self.path = path
        self.date = date
        self.snippet = snippet
        self.rev = rev  # commit holding this text ("" = the tip)
        self.score = score

    def as_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.FIELDS}

    @property
    def command(self) -> str:
        if self.kind == "history":
            return f"git enf show {self.path} --at {self.rev[:12]}"
        return f"git enf show {self.ref}"


def connect(path: Path | str) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=5)
    db.execute("PRAGMA journal_mode=WAL")
    return db


def create(db: sqlite3.Connection) -> bool:
    """Create the schema; returns whether full-text search (FTS5) is available."""
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE IF NOT EXISTS docs (id INTEGER PRIMARY KEY, kind TEXT, ref TEXT, path TEXT,
                                         date TEXT, rev TEXT, blob TEXT, text TEXT);
        CREATE INDEX IF NOT EXISTS docs_path ON docs(path, kind);
        CREATE INDEX IF NOT EXISTS docs_blob ON docs(blob);
        """
    )
    try:
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, content='docs', content_rowid='id')")
        return True
    except sqlite3.OperationalError:
        return False


def indexed_tip(db: sqlite3.Connection) -> str | None:
    try:
        row = db.execute("SELECT value FROM meta WHERE key='tip'").fetchone()
        schema = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:
        return None
    if row is None or schema is None or schema[0] != str(SCHEMA):
        return None
    return str(row[0])


def has_fts(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name='fts'").fetchone() is not None


def terms(query: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(query)]


def query(db: sqlite3.Connection, text: str, limit: int = 10) -> list[Hit]:
    words = terms(text)
    if not words:
        return []
    rows = _fts(db, words, limit) if has_fts(db) else _like(db, words, limit)
    hits = [Hit(kind, ref, path, date, _snippet(body, words), rev, score) for kind, ref, path, date, rev, body, score in rows]
    order = {k: i for i, k in enumerate(KINDS)}
    hits.sort(key=lambda h: (order.get(h.kind, 99), h.score, _neg_date(h.date)))
    return hits[:limit]


def _fts(db: sqlite3.Connection, words: list[str], limit: int) -> list[tuple[str, str, str, str, str, str, float]]:
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    sql = """SELECT d.kind, d.ref, d.path, d.date, d.rev, d.text, bm25(fts) AS score
             FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? AND d.kind = ?
             ORDER BY score LIMIT ?"""
    out = []
    for kind in KINDS:  # per kind, so a flood of session hits cannot starve the decisions
        out += db.execute(sql, (match, kind, limit)).fetchall()
        if len(out) >= limit:
            break
    return out


def _like(db: sqlite3.Connection, words: list[str], limit: int) -> list[tuple[str, str, str, str, str, str, float]]:
    where = " OR ".join("lower(text) LIKE ?" for _ in words)
    rows = db.execute(f"SELECT kind, ref, path, date, rev, text FROM docs WHERE {where}", [f"%{w}%" for w in words])
    scored = [(*r, -float(sum(r[5].lower().count(w) for w in words))) for r in rows]
    return sorted(scored, key=lambda r: r[6])[: limit * len(KINDS)]


def _snippet(body: str, words: list[str], width: int = 160) -> str:
    """The line with the most query words, trimmed around the first hit."""
    best, best_score = "", 0
    for line in body.splitlines():
        low = line.lower()
        score = sum(1 for w in words if w in low)
        if score > best_score:
            best, best_score = line.strip(), score
    if not best:
        return " ".join(body.split())[:width]
    low = best.lower()
    first = min((low.find(w) for w in words if w in low), default=0)
    start = max(0, first - width // 3)
    text = best[start : start + width]
    return ("…" if start else "") + text + ("…" if start + width < len(best) else "")


def _neg_date(date: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in date)  # sorts newest first inside one key


def format_hits(hits: list[Hit], query_text: str) -> str:
    if not hits:
        return f"nothing in memory matches {query_text!r}\nhint: git enf log --oneline lists every session"
    lines = []
    for h in hits:
        where = f"{h.path}@{h.rev[:8]}" if h.kind == "history" else h.path
        lines.append(f"{h.kind:<8} {h.date or '-':<10}  {where}")
        lines.append(f"    {h.snippet}")
        lines.append(f"    → {h.command}")
    return "\n".join(lines)


def as_rows(hits: list[Hit]) -> list[dict[str, object]]:
    """The hits as JSON-ready rows (the edge wraps them in its envelope)."""
    return [{**h.as_dict(), "command": h.command} for h in hits]
