"""Write the brain-first pointers file (pointers.py) from the recall index (search.py).

The recall index already holds every record on the tip analyzed into recall's
columns, and every decision with its standing, so the pointers file is a re-layout of
it for reads without sqlite: postings sharded by term, per-record norms, record details
in chunks. Written to a temporary file and renamed, so a prompt reads either the old
file or the new one, never half of one.
"""

from __future__ import annotations

import marshal
import sqlite3
from collections.abc import Sequence
from typing import Any

from . import atomic, pointers, search


def build(db: sqlite3.Connection, out: str, tip: str, pins: list[str]) -> int:
    """Write `out` for the index in `db` (built for `tip`); returns the number of records."""
    rows = db.execute("SELECT kind, ref, path, date, text, decided, summary, tags, body FROM docs "
                      "WHERE kind != 'history' ORDER BY path").fetchall()
    decisions = _decisions(db)
    freqs: list[dict[str, float]] = []
    lengths: list[int] = []
    for *_meta, cols in ((r[:5], r[5:]) for r in rows):
        freq: dict[str, float] = {}
        length = 0
        for weight, col in zip(search.WEIGHTS, cols):
            for t in (col or "").split():
                freq[t] = freq.get(t, 0.0) + weight
                length += 1
        freqs.append(freq)
        lengths.append(length)
    avg = max(1.0, sum(lengths) / len(lengths)) if lengths else 1.0
    norms = [pointers.K1 * (1 - pointers.B + pointers.B * n / avg) for n in lengths]
    postings: dict[str, list[tuple[float, int]]] = {}
    for doc, freq in enumerate(freqs):
        for t, f in freq.items():
            postings.setdefault(t, []).append((f * (pointers.K1 + 1) / (f + norms[doc]), doc))
    shards: list[dict[str, tuple[int, tuple[int, ...], tuple[float, ...]]]] = [{} for _ in range(pointers.SHARDS)]
    for t, plist in postings.items():
        best = sorted(plist, reverse=True)[: pointers.CAP] if len(plist) > pointers.CAP else plist
        shards[pointers.shard_of(t)][t] = (len(plist), tuple(d for _, d in best), tuple(round(x, 4) for x, _ in best))
    body, spans = _blobs(list(shards))
    records = [(kind, ref or path, path, date or "", _summary(text or ""), decisions.get(path, []),
                round(norms[doc], 4), freqs[doc]) for doc, (kind, ref, path, date, text, *_cols) in enumerate(rows)]
    record_blob, record_spans = _blobs(records, start=len(body))
    offsets = b"".join(off.to_bytes(8, "little") for off in [*(o for o, _ in record_spans), len(body) + len(record_blob)])
    header = {"schema": pointers.SCHEMA, "tip": tip, "n": len(rows), "shards": spans, "docs": offsets,
              "syn": search.synonym_table(), "pins": tuple(pins)}
    head = marshal.dumps(header)
    atomic.write(out, pointers.MAGIC + len(head).to_bytes(8, "little") + head + body + record_blob)
    return len(rows)


def _blobs(items: Sequence[Any], start: int = 0) -> tuple[bytes, list[tuple[int, int]]]:
    parts, spans, off = [], [], start
    for item in items:
        data = marshal.dumps(item)
        parts.append(data)
        spans.append((off, len(data)))
        off += len(data)
    return b"".join(parts), spans


def _decisions(db: sqlite3.Connection) -> dict[str, list[pointers.Decision]]:
    out: dict[str, list[pointers.Decision]] = {}
    for did, path, text, terms, status, by, on in db.execute(
            "SELECT id, path, text, terms, status, superseded_by, superseded_on FROM decisions ORDER BY rowid"):
        out.setdefault(path, []).append(
            (did, tuple(dict.fromkeys((terms or "").split())), _short(_decided(text or "")), status or "", by or "",
             on or ""))
    return out


def _decided(text: str) -> str:
    """A Y-statement from its "decided" clause on (what was chosen matters more than its context)."""
    at = text.find("decided ")
    return text[at:] if at > 0 else text


def _summary(text: str) -> str:
    for field, line in search.lines_of(text):
        if field == "summary" and line:
            return _short(line)
    body = next((line for field, line in search.lines_of(text) if field == "body"), "")
    return _short(body)


def _short(line: str, width: int = 110) -> str:
    line = " ".join(line.split())
    return line if len(line) <= width else line[: width - 1].rsplit(" ", 1)[0] + "…"

