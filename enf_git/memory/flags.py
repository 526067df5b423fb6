"""Records that read as instructions to the assistant, judged once per blob.

pure/suspicious.py says whether a text reads as an order to the assistant; which
records at the tip do is what `git enf status`, `doctor` and `scan` name. Scanning
every record on each of them would cost a read of all of them, and a blob's bytes
(so its verdict) never change, so each verdict is kept per machine in
`.git/enf/flags.log` under the blob's OID. Commits and merges note the record blobs
they wrote (best effort: nothing here ever fails them); a read judges whatever blob
is not noted yet, and notes it.

The log is append-only text, a blob a line: `<oid>` alone when nothing in it is
flagged, else `<oid>\\t<JSON list of [line, [reasons], text]>`. Appending costs a
commit no read of the rest. Its first line, `enf-flags <format> <rules version>`,
names the rules that judged it: when suspicious.RULES_VERSION moves, the log starts
again. A read that finds it mostly superseded lines (the same blob noted twice, by
two writers) rewrites it. A pure accelerator: delete it and the next read rebuilds it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from .. import paths
from ..plumbing import atomic, store
from ..pure import model, suspicious

FORMAT = 1
HEADER = f"enf-flags {FORMAT} {suspicious.RULES_VERSION}"
# pure/facts.py's MEMORIES_DIR: importing that module would load re and json into every commit.
FACTS_DIR = "memories"
MAX_BLOB = 2 << 20  # bytes read of a record: nothing a session holds is longer
MAX_NOTED = 200  # blobs a merge judges on its way; more (a first fetch) are left to the first read
STATUS_BUDGET = 300  # blobs `git enf status` judges itself (~0.2 s); scan and doctor judge every one


class Flagged:  # a plain class: see workspace.Settings
    """One flagged line of a record at the tip."""

    def __init__(self, path: str, oid: str, line: int, reasons: tuple[str, ...], text: str) -> None:
        self.path, self.oid, self.line, self.reasons, self.text = path, oid, line, reasons, text

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "reasons": list(self.reasons), "text": self.text}


Verdict = list[tuple[int, tuple[str, ...], str]]  # (line, reasons, text) per flagged line; [] when clean


def is_judged(path: str) -> bool:
    """A record whose text reaches the model: a session, a decision file, a fact, an instinct."""
    fact = path.startswith(f"{FACTS_DIR}/") and path.endswith(".md") and path.count("/") == 1
    return model.is_session_path(path) or model.is_decision_path(path) or fact or paths.is_instinct_path(path)


def log_path(repo: store.Repo) -> Path:
    return store.state_dir(repo) / paths.FLAGS_LOG


def judge(data: bytes) -> Verdict:
    text = data[:MAX_BLOB].decode("utf-8", "replace")
    return [(f.line, f.reasons, f.text) for f in suspicious.flags(text)]


# --- writers: commits and merges -------------------------------------------------------

def note(repo: store.Repo, written: Mapping[str, str | None], known: Mapping[str, bytes] | None = None) -> None:
    """Judge and log the records among `written` (path -> blob OID, None: deleted) that a
    commit or merge just wrote; `known`: their bytes, where the caller holds them.
    Best effort: a commit never fails nor waits on this (an error leaves the blob to the
    next read)."""
    try:
        todo = [(p, oid) for p, oid in written.items() if oid is not None and is_judged(p)]
        if not todo or len(todo) > MAX_NOTED:
            return
        known = known or {}
        lines = []
        for path, oid in todo:
            data = known.get(path)
            lines.append(_line(oid, judge(data if data is not None else store.blob_data(repo, oid))))
        _append(log_path(repo), lines)
    except Exception:  # noqa: BLE001 - a cache: whatever went wrong, the read judges the blob itself
        return


def note_moved(repo: store.Repo, old: store.Commit | None, new: store.Commit) -> None:
    """Judge what a fast-forward from `old` to `new` brought (none before a first tip: a
    whole branch is left to the first read)."""
    if old is None:
        return
    try:
        changed = store.changed_paths(old.tree, new.tree)
    except Exception:  # noqa: BLE001 - see note
        return
    note(repo, changed)


def _line(oid: str, verdict: Verdict) -> str:
    if not verdict:
        return oid
    import json

    return f"{oid}\t{json.dumps([[line, list(why), text] for line, why, text in verdict])}"


def _append(path: Path, lines: list[str]) -> None:
    """Add lines to the log in one write (O_APPEND: concurrent writers' lines do not
    interleave); a log of other rules, or none yet, starts with the header."""
    fresh = not _has_header(path)
    body = "".join(f"{line}\n" for line in lines)
    if fresh:
        atomic.write(path, f"{HEADER}\n{body}".encode("utf-8"))
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, body.encode("utf-8"))
    finally:
        os.close(fd)


def _has_header(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.readline().decode("utf-8", "replace").rstrip("\n") == HEADER
    except OSError:
        return False


# --- readers: status, doctor, scan -----------------------------------------------------

def flagged(repo: store.Repo, tree: store.Tree | None, files: Mapping[str, str] | None = None) -> list[Flagged]:
    """Every flagged line of the records in `tree`, by path then line; blobs not judged
    yet are judged and logged (a log that cannot be written only costs the next read).
    `files`: store.list_files of `tree`, when the caller has it."""
    return flagged_within(repo, tree, files)[0]


def flagged_within(repo: store.Repo, tree: store.Tree | None, files: Mapping[str, str] | None = None,
                   budget: int | None = None) -> tuple[list[Flagged], int]:
    """flagged(), judging at most `budget` blobs no write judged (the newest paths first:
    what SessionStart shows), and how many records were left unjudged. A first read of a
    fresh clone of 10,000 sessions judges them all in seconds: status leaves that to scan."""
    if tree is None:
        return [], 0
    files = store.list_files(repo, tree) if files is None else files
    records = {p: oid for p, oid in files.items() if is_judged(p)}
    where = log_path(repo)
    known, stale = _load(where)
    todo = sorted({oid: p for p, oid in records.items() if oid not in known}.items(), key=lambda i: i[1], reverse=True)
    fresh = {oid: judge(store.blob_data(repo, oid)) for oid, _ in todo[:budget]}
    _save(where, known, fresh, stale)
    known.update(fresh)
    out = [Flagged(path, oid, line, why, text) for path, oid in records.items() if oid in known
           for line, why, text in known[oid]]
    unjudged = sum(1 for oid in records.values() if oid not in known)
    return sorted(out, key=lambda f: (f.path, f.line)), unjudged


def flagged_paths(found: Iterable[Flagged]) -> list[str]:
    """The records `found` names, each once."""
    return sorted({f.path for f in found})


def summary(records: int) -> str:
    """What status and doctor say of `records` flagged records."""
    if records == 1:
        return "1 record reads as instructions to the assistant"
    return f"{records} records read as instructions to the assistant"


def _load(path: Path) -> tuple[dict[str, Verdict], int]:
    """(the log's verdicts by OID, how many of its lines are superseded); empty for a log
    of other rules."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}, 0
    lines = text.split("\n")
    if lines[0] != HEADER:
        return {}, 0
    out: dict[str, Verdict] = {}
    count = 0
    for line in lines[1:]:
        if not line:
            continue
        count += 1
        oid, _, verdict = line.partition("\t")
        out[oid] = _verdict(verdict) if verdict else []
    return out, count - len(out)


def _verdict(raw: str) -> Verdict:
    import json

    try:
        return [(int(line), tuple(str(r) for r in why), str(text)) for line, why, text in json.loads(raw)]
    except (ValueError, TypeError):
        return []  # a torn line: judged again when its blob is next written


def _save(path: Path, known: dict[str, Verdict], fresh: dict[str, Verdict], stale: int) -> None:
    if not fresh and stale <= len(known):
        return
    try:
        if not known or stale > len(known):  # other rules, none yet, or mostly repeats: one whole file
            body = "".join(f"{_line(oid, v)}\n" for oid, v in {**known, **fresh}.items())
            atomic.write(path, f"{HEADER}\n{body}".encode("utf-8"))
        else:
            _append(path, [_line(oid, v) for oid, v in fresh.items()])
    except OSError:
        return  # an unwritable .git: this read judged them, the next will again
