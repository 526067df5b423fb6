"""One recall-index row of a record file, and the rows of the decision ledger.

A row's work is analysis (stem.py) and finding the abbreviations the text defines:
pure functions of the file's text and its parsed record (at 100,000 sessions, ~120 MB
of text tokenized and stemmed in Python). A cold build works them out in worker
processes (index_cold.py); an update of a few files analyzes them where it runs.
"""

from __future__ import annotations

from typing import Any

from ...errors import EnfError
from ...plumbing import abbrev, stem
from ...pure import model

TYPE_CHECKING = False
if TYPE_CHECKING:  # the ledger module is imported where a ledger is built, not to name its type
    from ...pure import ledger as ledger_mod

Record = model.Session | list[model.Decision] | EnfError
# What a row needs of a record, in plain values a worker receives cheaply (a record's
# classes and errors need not survive pickling): (ref, date, decided clauses, summary,
# tags), None for a file that does not parse.
Gist = tuple[str, str, tuple[str, ...], str, tuple[str, ...]] | None
# (ref, date, decided, summary, tags, body, text, BM25 length, [(short, long)...])
Row = tuple[str, str, str, str, str, str, str, int, list[tuple[str, str]]]
Job = tuple[str, bytes, Gist]  # (path, blob bytes, its record's gist)
# A decisions-table row: (id, path, date, text, analyzed text, status, superseded by, on)
DecisionRow = tuple[str, str, str, str, str, str, str, str]

PARALLEL_MIN = 2000  # rows below which starting workers (~30 ms each, forked) costs more than it saves


def gist(path: str, record: Record) -> Gist:
    """What the row of `path` needs of its record."""
    if isinstance(record, model.Session):
        return record.stem, record.date, tuple(d.decided for d in record.decisions), record.summary, record.tags
    if isinstance(record, list):
        return path, min((d.date for d in record), default=""), tuple(d.decided for d in record), "", ()
    return None


def gist_of_entry(path: str, entry: dict[str, Any]) -> Gist:
    """gist(path, records._from_json(entry)) read off the records cache's entry itself.

    Making the record's objects (its session, each decision) to take five of their fields
    cost a cold build's workers ~1 s of CPU at 100,000 sessions; a test holds the two equal.
    """
    kind = entry["kind"]
    if kind == "session":
        data = entry["data"]
        return (data["stem"], data["date"], tuple(d["decided"] for d in data["decisions"]), data["summary"],
                tuple(data["tags"]))
    if kind == "decisions":
        found = entry["data"]
        return path, min((d["date"] for d in found), default=""), tuple(d["decided"] for d in found), "", ()
    return None


def row_of(job: Job) -> Row:
    """The analyzed columns of one record file, its length in terms and its abbreviations."""
    path, data, facts = job
    text = data.decode("utf-8", "replace")
    ref, date, decided, summary, tags, body = analyzed(path, data, facts)
    # BM25's document length, in terms: a column's terms are joined by single spaces, none empty.
    length = sum(c.count(" ") + 1 for c in (decided, summary, tags, body) if c)
    pairs = list(dict.fromkeys(p for p in map(abbrev.analyzed, abbrev.pairs(text)) if p is not None))
    return ref, date, decided, summary, tags, body, text, length, pairs


def analyzed(path: str, data: bytes, facts: Gist) -> tuple[str, str, str, str, str, str]:
    """(ref, date, decided, summary, tags, body) of a record file, the columns recall ranks:
    its terms with parts (stem.analyze), joined by spaces.

    A file that does not parse is still searchable by its whole text, and its ref is its
    path: `git enf show <stem>` only knows parsed sessions, `git enf show <path>` any file.
    """
    body = stem.joined_terms(_body(data))
    if facts is None:
        stem_name = path.rsplit("/", 1)[-1][:-3]
        return path, stem_name[:10] if stem_name[:4].isdigit() else "", "", "", "", body
    ref, date, clauses, summary, tags = facts
    decided = " ".join(filter(None, map(terms_of, clauses)))
    return ref, date, decided, terms_of(summary) if summary else "", terms_of(" ".join(tags)) if tags else "", body


def terms_of(text: str) -> str:
    """" ".join(stem.analyze(text, parts=True)), the way the indexer works it out (stem.joined_terms).

    A lone surrogate (JSON can hold one) is passed through to bytes: the pattern never
    takes it, nor the U+FFFD it decodes to, for part of a word.
    """
    return stem.joined_terms(text.encode("utf-8", "surrogatepass"))


def _body(data: bytes) -> bytes:
    """The text after a frontmatter block (summary and tags are columns of their own).

    Found in the bytes: an ASCII "\n---" is at the same place in them as in their text."""
    if data.startswith(b"---"):
        end = data.find(b"\n---", 3)
        if end >= 0:
            return data[end + 4:]
    return data


def decision_rows(ledger: ledger_mod.Ledger, analyzed: dict[str, str]) -> list[DecisionRow]:
    """Every decision of the ledger with its standing; `analyzed`: decision texts already
    analyzed (text -> terms), taken instead of analyzing them again."""
    rows = []
    for chain in ledger.chains:
        replaced_by = [chain.current, *chain.superseded]
        rows.append(_decision_row(chain.current, "standing", "", "", analyzed))
        for i, (d, rev) in enumerate(zip(chain.superseded, chain.reversals)):
            rows.append(_decision_row(d, "superseded", replaced_by[i].id, rev.date, analyzed))
        for d in chain.superseded[len(chain.reversals):]:  # defensive: a chain always pairs them
            rows.append(_decision_row(d, "superseded", chain.current.id, "", analyzed))
    return rows


def _decision_row(d: model.Decision, status: str, by: str, on: str, analyzed: dict[str, str]) -> DecisionRow:
    terms = analyzed.get(d.text)
    if terms is None:
        terms = terms_of(d.text)
    return (d.id, d.source, d.date, d.text, terms, status, by, on)
