"""Write the brain-first pointers files (pointers.py) from the recall index (search.py).

The recall index already holds every record on the tip analyzed into recall's
columns, and every decision with its standing, so a pointers file is a re-layout of
it for reads without sqlite: postings sharded by term, records with their weighted
term frequencies. Each file is written to a temporary name and renamed, so a prompt
reads either the old file or the new one, never half of one.

A full file also carries a catalog (each record's path, blob and decisions' standing)
that only `refresh` reads: comparing it with the index says which records changed
since, and when they are few (DELTA_MAX) only they are written, into the delta file.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from .. import frame
from . import atomic, pointers, search

DELTA_MAX = 256  # changed records a delta may hold; more and the full file is rewritten
_ROWS = "SELECT kind, ref, path, date, blob, data FROM docs WHERE kind != 'history'"

Row = tuple[Any, ...]
# (the rules' version, why a text reads as an instruction to the assistant: truthy when it
# does). Passed in by the caller: plumbing does not read records (pure/suspicious.py).
Judge = tuple[int, Callable[[str], object]]


def withheld_digest(withheld: frozenset[str] | None) -> int:
    """What the file's header keeps of the records it leaves out (enf.trust): a change of
    the set means a full file, since a delta only knows records whose blob changed."""
    import zlib

    return zlib.crc32("\n".join(sorted(withheld or ())).encode("utf-8")) if withheld else 0


def refresh(db: sqlite3.Connection, out: str, tip: str, pins: list[str], by: dict[str, str] | None = None,
            withheld: frozenset[str] | None = None, judge: Judge | None = None) -> int:
    """Bring the files at `out` to `tip`: a delta over the full file when few records
    changed, else a new full file. Returns the number of records written."""
    base = pointers.load(out)
    if (base is not None and "catalog" in base.header and "avg" in base.header
            and base.header.get("wh", 0) == withheld_digest(withheld)
            and base.header.get("rules") == (judge[0] if judge else None)):  # the full file's verdicts still hold
        try:
            written = _delta(db, base, out, tip, pins, by or {}, withheld or frozenset(), judge)
        except (ValueError, EOFError, TypeError, KeyError, IndexError):
            written = None  # a damaged full file: write a new one
        if written is not None:
            return written
    return build(db, out, tip, pins, by, withheld, judge)


def build(db: sqlite3.Connection, out: str, tip: str, pins: list[str], by: dict[str, str] | None = None,
          withheld: frozenset[str] | None = None, judge: Judge | None = None) -> int:
    """Write the full file for the index in `db` (built for `tip`) and drop the delta.
    `by`: record path -> "Alice, 2026-12-01" for the records someone else last changed;
    `judge`: the verdicts on the record texts a pointer can show, kept in the header
    (without it the per-prompt hook judges the texts it shows itself)."""
    rows = [r for r in _rows(db, " ORDER BY path") if not withheld or r[2] not in withheld]
    decisions = _decisions(db)
    freqs, lengths = _frequencies(rows)
    avg = max(1.0, sum(lengths) / len(lengths)) if lengths else 1.0
    standing = _standings(db)
    catalog = (tuple(r[2] for r in rows), tuple(r[5] or "" for r in rows),
               tuple(standing.get(r[2], ()) for r in rows))
    _write(out, rows, freqs, lengths, avg, decisions, pins,
           {"tip": tip, "avg": avg, "abbr": _abbreviations(db), "wh": withheld_digest(withheld)}, by or {},
           judge, extra=catalog)
    try:
        os.unlink(pointers.delta_path(out))
    except OSError:
        pass
    return len(rows)


def _delta(db: sqlite3.Connection, base: pointers.Index, out: str, tip: str, pins: list[str],
           by: dict[str, str], withheld: frozenset[str], judge: Judge | None) -> int | None:
    """Write the records that changed since `base` as its delta; None when a full file is due."""
    (catalog,) = base.blobs([tuple(base.header["catalog"])])
    if not isinstance(catalog, tuple) or len(catalog) != 3:
        return None
    paths, blobs, standing = catalog
    known = {p: (b, s) for p, b, s in zip(paths, blobs, standing)}
    where = {p: i for i, p in enumerate(paths)}
    standing = _standings(db)
    now = {p: b or "" for p, b in db.execute("SELECT path, blob FROM docs WHERE kind != 'history'")
           if p not in withheld}
    changed = {p for p, b in now.items() if known.get(p) != (b, standing.get(p, ()))}
    changed |= known.keys() - now.keys()
    if len(changed) > DELTA_MAX:
        return None
    wanted = sorted(changed & now.keys())
    marks = ",".join("?" * len(wanted))
    rows = _rows(db, f" AND path IN ({marks}) ORDER BY path", wanted) if wanted else []
    freqs, lengths = _frequencies(rows)
    masked = tuple(sorted(where[p] for p in changed if p in where))
    decisions = _decisions(db, wanted)
    _write(pointers.delta_path(out), rows, freqs, lengths, float(base.header["avg"]), decisions, pins,
           {"tip": tip, "base_tip": base.tip, "masked": masked, "abbr": _abbreviations(db)}, by, judge)
    return len(rows)


def _rows(db: sqlite3.Connection, tail: str, args: Sequence[str] = ()) -> list[Row]:
    """(kind, ref, path, date, text, blob, decided, summary, tags, body) of the tip's records."""
    zdict = search.dictionary(db)
    out: list[Row] = []
    for kind, ref, path, date, blob, data in db.execute(_ROWS + tail, args):
        decided, summary, tags, body, text = search.unpack(zdict, data)
        out.append((kind, ref, path, date, text, blob, decided, summary, tags, body))
    return out


def _frequencies(rows: Sequence[Row]) -> tuple[list[dict[str, float]], list[int]]:
    """Each row's column-weighted term frequencies (search._score's) and its length in terms."""
    freqs: list[dict[str, float]] = []
    lengths: list[int] = []
    for row in rows:
        freq: dict[str, float] = {}
        length = 0
        for weight, col in zip(search.WEIGHTS, row[6:]):
            for t in (col or "").split():
                freq[t] = freq.get(t, 0.0) + weight
                length += 1
        freqs.append(freq)
        lengths.append(length)
    return freqs, lengths


def _write(out: str, rows: Sequence[Row], freqs: list[dict[str, float]], lengths: list[int], avg: float,
           decisions: dict[str, list[pointers.Decision]], pins: list[str], head: dict[str, Any],
           by: dict[str, str], judge: Judge | None, extra: Any = None) -> None:
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
                round(norms[doc], 4), freqs[doc], frame.inline(by.get(path, "")))
               for doc, (kind, ref, path, date, text, *_cols) in enumerate(rows)]
    record_blob, record_spans = _blobs(records, start=len(body))
    end = len(body) + len(record_blob)
    offsets = b"".join(off.to_bytes(8, "little") for off in [*(o for o, _ in record_spans), end])
    tail = marshal.dumps(extra) if extra is not None else b""
    header = {"schema": pointers.SCHEMA, "n": len(rows), "shards": spans, "docs": offsets,
              "syn": search.synonym_table(), "pins": tuple(pins), **head}
    if judge is not None:
        header["rules"], header["flagged"] = judge[0], _flagged(records, judge[1])
    if extra is not None:
        header["catalog"] = (end, len(tail))
    data = marshal.dumps(header)
    atomic.write(out, pointers.MAGIC + len(data).to_bytes(8, "little") + data + body + record_blob + tail)


def _flagged(records: Sequence[tuple[Any, ...]], why: Callable[[str], object]) -> tuple[str, ...]:
    """The texts a pointer can show (a record's summary, its decisions) that `why` flags."""
    texts = {r[4] for r in records} | {d[2] for r in records for d in r[5]}
    return tuple(sorted(t for t in texts if t and why(t)))


def _abbreviations(db: sqlite3.Connection) -> tuple[tuple[str, str], ...]:
    """The analyzed (short, long) abbreviations memory defines (search.py's abbrevs table)."""
    try:
        return tuple(db.execute("SELECT DISTINCT short, long FROM abbrevs ORDER BY short, long").fetchall())
    except sqlite3.OperationalError:
        return ()


def _blobs(items: Sequence[Any], start: int = 0) -> tuple[bytes, list[tuple[int, int]]]:
    parts, spans, off = [], [], start
    for item in items:
        data = marshal.dumps(item)
        parts.append(data)
        spans.append((off, len(data)))
        off += len(data)
    return b"".join(parts), spans


def _standings(db: sqlite3.Connection) -> dict[str, tuple[tuple[str, str, str], ...]]:
    """_standing() of every record's decisions, straight from the index."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for did, path, status, by in db.execute("SELECT id, path, status, superseded_by FROM decisions ORDER BY rowid"):
        out.setdefault(path, []).append((did, status or "", by or ""))
    return {p: tuple(v) for p, v in out.items()}


def _decisions(db: sqlite3.Connection, paths: list[str] | None = None) -> dict[str, list[pointers.Decision]]:
    """The decisions of the records at `paths` (None: all) as pointer records carry them."""
    sql = "SELECT id, path, text, terms, status, superseded_by, superseded_on FROM decisions"
    args: list[str] = []
    if paths is not None:
        sql += f" WHERE path IN ({','.join('?' * len(paths))})"
        args = paths
    out: dict[str, list[pointers.Decision]] = {}
    for did, path, text, terms, status, by, on in db.execute(sql + " ORDER BY rowid", args):
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
    """One line of a pointer, shown as data (frame.py) when the file is built, so the
    per-prompt hook reads it ready."""
    line = frame.inline(" ".join(line.split()))
    return line if len(line) <= width else line[: width - 1].rsplit(" ", 1)[0] + "…"
