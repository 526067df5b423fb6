"""Recall: one relevance-ranked list over memory, answered from an on-disk index.

The index is a SQLite database in `.git/enf/search.db` (machine-local, never on the
branch), tagged with the branch tip it was built from. Its data model:

  docs       one row per record file: `session` (a session file on the tip),
             `decision` (a decisions/*.md file on the tip) or `history` (an older
             version of either that the tip no longer has: before a compression, an
             edit, a deletion). Its `data` holds, deflated, four analyzed columns
             (stemmed terms without stopwords, see stem.py: the decided clauses, the
             summary, the tags, the body) and the raw text, and `length` the row's
             length in terms. FTS5 (`fts`, contentless) finds the candidates; _score
             ranks them (below) from the analyzed columns of those few rows alone.
             `data` is deflated against a dictionary of the index's first rows
             (meta `zdict`): a record file is too short to compress well alone. The
             index is ~1.4x the text it indexes on bench/index_size.py's fixture (4.3x
             when each row held its text and its columns as they are, one row a page).
  decisions  every decision of the ledger with its file, its text, and whether it is
             standing or superseded (by which decision, on which date).
  abbrevs    the abbreviations each row defines ("Elasticsearch (ES)", "ECR (Elastic
             Container Registry)", abbrev.py), analyzed: a query's short form is also
             searched as its long form, and its long form as the short one.

A query is analyzed like the documents and ranked by BM25F over the four columns,
concept by concept: a query word, its synonyms (thesaurus.py) and the pieces of its
compounds widen what matches, and a word with its synonyms is scored as one term, as
Lucene's SynonymQuery does (the sum of their frequencies, the idf of the rows holding
any of them), so a session is not rewarded for holding many synonyms of one word.
The rows are then fused into one result per file: a session's decisions, summary,
tags and body are one document, and its history counts only for query terms the tip
no longer has. The
result shows its best line (a decision line wins a tie, and then says whether that
decision still stands); a superseded decision is followed by the decision that
replaced it. Elephants Never Forget's recall order (decisions, sessions, history) only breaks ties.

A query is weak when memory most likely does not hold its answer: when the words the
first result lacks carry more than WEAK_SHARE of the query's weight, a term's weight
being its idf (a word no record holds gets the largest). A word memory has never seen
counts in full; a word other records hold, but not the first result, counts APART_WEIGHT
of its weight (the first result holds its topic with a synonym or an abbreviation's other
form too). "Kafka event bus" about a memory without Kafka is mostly unseen words; a
paraphrase ("how do we hear about crashes") has an unseen word or two, but its common
words carry the rest. Weighting by idf, and not counting words, keeps "the" kind of words
("get", "use") from diluting the share. The words apart count because a question memory
cannot answer is often made of words memory holds, never together ("what is Tom's
daughter's name": Tom in one note, names in others); they count less than unseen ones
because a paraphrase's everyday words are often in other notes than its answer.
The share makes a query weak only when the first result does not stand out: a first
result scoring LEAD times the second's or more is not weak by it. A question memory cannot
answer finds partial matches of about equal strength, each holding the same common word or
two (on the dev sets, each such question the share flags had its first result under 1.5
times the second), while an answer worded otherwise than its question still wins by what
it alone holds ("which part of the payments project was I responsible for": the billing
session, 1.7 times the next). Without a second result there is no lead. The proximity of
the query's words in the first result (its best line or block against the whole file),
their coverage by the top three results instead of the first alone, and a general stop
list weighing "many", "get", "keep" less did not tell the two apart on the dev sets
(bench/weak_rules.py; bench/README.md has the figures).
A name the query spells with a capital (Kafka, gRPC, GDPR) that no record mentions
makes it weak once unseen words alone carry NAME_SHARE: names carry a question's topic,
and memory never saw this one. Not at once: in a long question whose other words memory
holds ("why do the CMS specs use hand-written doubles instead of recorded responses") the
name is a small part, often an acronym of the trade (CMS, CDN) that the sessions spell out.
A rule on how much of the query the first results hold alone flagged paraphrases above
all: their answer shares few words with them by nature.
A status question ("do we still use Elasticsearch?", "why did we drop it?", stem.frame)
asks whether a decision stands: its frame words count for nothing in that share, and
never weigh more than its heaviest topic word in the ranking; results that decided
nothing come after those that did, when one holds a decision on the topic, so the first
hit is the decision, marked SUPERSEDED (and followed by its replacement) or standing.
Chosen on the dev queries of bench/recall_quality.py; its held-out sets judge them.

This module is stdlib-only so a warm `git enf recall` (index tip == branch tip) never
imports pygit2 or click; indexer.py builds and updates the index.
"""

from __future__ import annotations

import math
import sqlite3

from . import abbrev, asks, stem as analysis

TYPE_CHECKING = False  # the warm recall path avoids typing/pathlib/dataclasses (~30 ms of imports)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

KINDS = ("decision", "session", "history")  # tie-break order (Elephants Never Forget's recall order)
SCHEMA = 9
COLUMNS = ("decided", "summary", "tags", "body")
# BM25F column weights (_score; FTS5's bm25() too, choosing the candidates): the decided
# clause, the summary and the tags say what a session is about; the body also holds
# every decision line in full, so a decided clause counts once more through the body.
WEIGHTS = (2.0, 2.0, 2.0, 1.0)
LINE_WEIGHTS = {"decision": 2.0, "summary": 2.0, "tags": 2.0, "body": 1.0}
WEAK_SHARE = 0.63  # see the module docstring; bench/recall_quality.py reports the sensitivity
NAME_SHARE = 0.3  # the unseen words' share that makes a query with an unseen name weak
APART_WEIGHT = 0.65  # what a word other records hold, but not the first result, counts of its weight
LEAD = 1.5  # a first result scoring this many times the second's is not weak by its share (the module docstring)
# A question asking for an amount, a date, a name... (asks.py) is weak when the best window of
# the first results holding such a value holds less than this share of what the best window holds.
ANSWER_SHARE = 0.6
# That check is off unless `git config enf.answerCheck true`: chosen on the dev sets, it
# flagged 8.4% of the conversational held-out set's answerable questions (3.8% without it),
# for 38.3% of its unanswerable ones (23.3% without): docs/benchmarks.md, recall_quality.py.
ANSWER_CHECK_KEY = "answerCheck"  # the `enf.` setting that turns it on
WEAK_TOP = 3  # results `matched` reports on: the answer is often second or third, rarely further
_CANDIDATES = 50  # rows FTS5 ranks first, which _score ranks again (history rows may share a file)
K1, B = 1.2, 0.75  # BM25's (and FTS5's) saturation and length normalisation
_FTS_TOKENIZER = "unicode61 remove_diacritics 0 tokenchars '-._'"  # terms are pre-analyzed


class Hit:
    """One recall result. A plain class: dataclasses would import inspect on the warm path."""

    FIELDS = ("kind", "ref", "path", "date", "snippet", "rev", "score", "status", "superseded_by", "superseded_on")
    __slots__ = FIELDS

    def __init__(self, kind: str, ref: str, path: str, date: str, snippet: str, rev: str, score: float,
                 status: str | None = None, superseded_by: str | None = None, superseded_on: str | None = None) -> None:
        self.kind = kind
        self.ref = ref  # what to pass to `git enf show` (a path when the file does not parse)
        self.path = path
        self.date = date
        self.snippet = snippet
        self.rev = rev  # commit holding this text ("" = the tip)
        self.score = score  # -relevance, FTS5's convention: lower is better
        self.status = status  # decisions only: "standing" or "superseded"
        self.superseded_by = superseded_by
        self.superseded_on = superseded_on

    def as_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.FIELDS}

    @property
    def command(self) -> str:
        if self.kind == "history":
            return f"git enf show {self.path} --at {self.rev[:12]}"
        return f"git enf show {self.ref}"


class Answer:
    """The ranked hits, and how strongly the best of them matches (see the module docstring)."""

    __slots__ = ("hits", "terms", "matched", "unknown", "unknown_share", "unknown_names", "apart_share", "lead",
                 "asks", "gives", "mentions")

    def __init__(self, hits: list[Hit], terms: int, matched: int, unknown: int, unknown_share: float = 0.0,
                 unknown_names: list[str] | None = None, apart_share: float = 0.0, lead: float = 1.0,
                 asks: str = "", gives: float = 1.0, mentions: list[str] | None = None) -> None:
        self.hits = hits
        self.terms = terms  # query terms after stopwords
        self.matched = matched  # of them in the first results (the most any of them holds)
        self.unknown = unknown  # of them in no document at all
        self.unknown_share = unknown_share  # their share of the query's idf
        self.unknown_names = unknown_names or []  # capitalized query words no document holds
        self.apart_share = apart_share  # the share of words other documents hold, but not the first result
        self.lead = lead  # the first result's score over the second's (1.0 without a second)
        self.asks = asks  # the kind of answer the question asks for (asks.KINDS), "" for none
        self.gives = gives  # the best window with such an answer: its weight over the best window's
        self.mentions = mentions or []  # the question's words the best window holds

    @property
    def weak(self) -> bool:
        return is_weak(self.matched, self.unknown_share, bool(self.unknown_names), self.apart_share, self.lead,
                       self.gives)

    @property
    def reason(self) -> str:
        """Why the notes do not answer a question asking for an amount, a date, a name... ("" otherwise)."""
        if not self.asks or not self.matched or self.gives >= ANSWER_SHARE:
            return ""
        about = " and ".join(", ".join(self.mentions).rsplit(", ", 1)) if self.mentions else "its words"
        return f"the notes mention {about} but give no {asks.KINDS[self.asks]}"

    def strength(self) -> dict[str, object]:
        out: dict[str, object] = {
            "terms": self.terms, "matched": self.matched, "unknown": self.unknown,
            "unknown_share": round(self.unknown_share, 4), "unknown_names": self.unknown_names,
            "apart_share": round(self.apart_share, 4), "lead": round(self.lead, 4)}
        if self.asks:
            out.update(asks=self.asks, gives=round(self.gives, 4), reason=self.reason)
        return out


def is_weak(matched: int, unknown_share: float, names: bool = False, apart_share: float = 0.0, lead: float = 1.0,
            gives: float = 1.0, share: float = WEAK_SHARE, name_share: float = NAME_SHARE,
            apart_weight: float = APART_WEIGHT, lead_limit: float = LEAD, answer_share: float = ANSWER_SHARE) -> bool:
    """No first result holds a query term, or unseen words carry more than `name_share` of the
    query's idf when one of them is a name, or the question asks for a kind of answer (asks.py)
    and the best window holding one holds less than `answer_share` of the best window's weight
    (`gives`), or what the first result lacks carries more than `share` of it (unseen words in
    full, words apart at `apart_weight`) while the first result scores less than `lead_limit`
    times the second (see the module docstring)."""
    if not matched or (names and unknown_share > name_share) or gives < answer_share:
        return True
    return unknown_share + apart_weight * apart_share > share and lead < lead_limit


# --- the database -------------------------------------------------------------------

def connect(path: Path | str) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=5)
    db.execute("PRAGMA journal_mode=WAL")
    return db


def create(db: sqlite3.Connection, ledger_indexes: bool = True) -> bool:
    """Create the schema; returns whether full-text search (FTS5) is available. Without
    `ledger_indexes`, the decisions table's are left for create_ledger_indexes()."""
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE IF NOT EXISTS docs (id INTEGER PRIMARY KEY, kind TEXT, ref TEXT, path TEXT, date TEXT,
                                         rev TEXT, blob TEXT, length INTEGER, data BLOB);
        CREATE TABLE IF NOT EXISTS decisions (id TEXT, path TEXT, date TEXT, text TEXT, terms TEXT,
                                              status TEXT, superseded_by TEXT, superseded_on TEXT);
        CREATE TABLE IF NOT EXISTS abbrevs (doc INTEGER, short TEXT, long TEXT, first TEXT);
        """
    )
    for statement in _INDEXES:
        db.execute(statement)
    if ledger_indexes:
        create_ledger_indexes(db)
    try:
        # Contentless: FTS5 keeps its index only (bm25() needs no more); the columns are in
        # docs.data, and the indexer gives them back to forget a row (the 'delete' command,
        # which any FTS5 has; contentless_delete=1 would spare that but needs SQLite 3.43).
        db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5({', '.join(COLUMNS)}, content='', "
                   f"tokenize=\"{_FTS_TOKENIZER}\")")
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS vocab USING fts5vocab(fts, 'row')")
        return True
    except sqlite3.OperationalError:
        return False


_INDEXES = (
    "CREATE INDEX IF NOT EXISTS docs_path ON docs(path, kind)",
    "CREATE INDEX IF NOT EXISTS docs_length ON docs(length)",  # settle_lengths() reads it, not the rows
    # History rows only: the indexer looks blobs up among them (one a tip row was built
    # from is looked up by path); every row's blob was 0.04x of the text at 10,000 sessions.
    "CREATE INDEX IF NOT EXISTS docs_blob ON docs(blob) WHERE kind = 'history'",
    "CREATE INDEX IF NOT EXISTS abbrevs_doc ON abbrevs(doc)",
    "CREATE INDEX IF NOT EXISTS abbrevs_short ON abbrevs(short)",
    "CREATE INDEX IF NOT EXISTS abbrevs_first ON abbrevs(first)",
)


def create_ledger_indexes(db: sqlite3.Connection) -> None:
    """The decisions table's indexes, if they are not there yet; statement by statement,
    inside the caller's transaction (executescript would commit it first).

    A cold build writes the whole ledger at once, into an empty table, and makes them
    after: sorting 100,000 rows once cost half of keeping two indexes in order row by row
    (~0.2 s less of the parent's CPU). The docs rows are written all along the build, its
    indexes kept as they go: made at the end, they were cheaper too, but the work was then
    left for the build's last moments, when nothing else runs beside it."""
    db.execute("CREATE INDEX IF NOT EXISTS decisions_path ON decisions(path)")
    db.execute("CREATE INDEX IF NOT EXISTS decisions_id ON decisions(id)")


def indexed_tip(db: sqlite3.Connection) -> str | None:
    """The tip the index was built for; None if there is none or it has another schema."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key='tip'").fetchone()
        schema = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:
        return None
    if row is None or schema is None or schema[0] != str(SCHEMA):
        return None
    return str(row[0])


def clear(db: sqlite3.Connection) -> None:
    """Empty the index (its schema stays), to build it again from nothing."""
    for table in ("docs", "abbrevs", "decisions"):
        db.execute(f"DELETE FROM {table}")
    db.execute("DELETE FROM meta WHERE key IN ('zdict', 'zdict_rows', 'avg_length')")
    if has_fts(db):
        db.execute("INSERT INTO fts (fts) VALUES ('delete-all')")


def dictionary(db: sqlite3.Connection) -> bytes:
    """The dictionary docs.data is deflated against (b"" before the first row is written)."""
    row = db.execute("SELECT value FROM meta WHERE key='zdict'").fetchone()
    return bytes(row[0]) if row is not None else b""


# 6 (the default) took twice the time of 4 (~70 µs a session) for 7% less of docs.data; 2 takes
# 17% less CPU than 4 (~4.7 µs a row: ~0.5 s of a cold build at 100,000 sessions) for 5% more
# of docs.data (+2 MB of 162); 1 saved another 4% for another 5%.
PACK_LEVEL = 2
# zlib's memLevel: the copy each row gets of the compressor is 15% cheaper at 7 than at 9
# (26 µs a row against 30), docs.data the same size (394 bytes a row over 30,000 rows).
PACK_MEMORY = 7


def packer(zdict: bytes, level: int = PACK_LEVEL) -> Callable[[list[str]], bytes]:
    """A function making docs.data of [decided, summary, tags, body, text] (terms never hold a
    newline), deflated against `zdict`. One compressor takes the dictionary and each row
    gets a copy of it: taking a 32 KB dictionary again for each row costs more than the row."""
    import zlib

    base = zlib.compressobj(level, zlib.DEFLATED, -15, PACK_MEMORY, zlib.Z_DEFAULT_STRATEGY, *([zdict] if zdict else []))

    def pack(fields: list[str]) -> bytes:
        c = base.copy()
        return c.compress("\n".join(fields).encode("utf-8")) + c.flush()
    return pack


def unpack(zdict: bytes, data: bytes) -> list[str]:
    """[decided, summary, tags, body, text] of a docs.data."""
    import zlib

    d = zlib.decompressobj(-15, zdict=zdict) if zdict else zlib.decompressobj(-15)
    return (d.decompress(data) + d.flush()).decode("utf-8").split("\n", len(COLUMNS))


def has_fts(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name='fts'").fetchone() is not None


def terms(query: str) -> list[str]:
    """The words of a query (before stopwords and stemming): none means nothing to search."""
    return analysis.words(query)


# --- ranking ------------------------------------------------------------------------

def query(db: sqlite3.Connection, text: str, limit: int = 10, answer_check: bool = False) -> Answer:
    q = list(dict.fromkeys(analysis.analyze(text)))  # unique, in the query's order
    if not q:
        return Answer([], 0, 0, 0)
    # A status question's frame ("do we still use", "why did we drop") asks whether its
    # topic stands: each hit on the topic's decision says so. The frame's words count for
    # nothing in the weak rule and never weigh more than the topic's lightest word (stem.py).
    frame = analysis.frame(text, q)
    idf, unseen = _idf(db, q)
    topic = [t for t in q if t not in frame]
    cap = max(idf[t] for t in topic) if frame else math.inf
    # The pieces of the query's compounds ("copy-pasting" is also "copy" and "pasting")
    # widen the candidates, as the index holds the pieces of the documents' compounds.
    pieces = [t for t in analysis.analyze(text, parts=True) if t not in idf]
    concepts = _concepts([*q, *pieces], _abbreviations(db, q))
    groups = _rank(db, q, concepts, frame, cap)
    if frame:
        groups = _decisions_first(db, groups, set(topic))
    names = _unknown_names(text, unseen - frame)
    weights = {t: min(w, cap) if t in frame else w for t, w in idf.items()}
    hits: list[Hit] = []
    placed: set[str] = set()
    for group in groups:
        if len(hits) >= limit:
            break
        if group.path in placed:
            continue
        hit = _present(db, group, q, weights, _aliases(concepts, q))
        hits.append(hit)
        placed.add(group.path)
        replacement = _replacement(db, hit, groups, placed)
        if replacement is not None and len(hits) < limit:
            hits.append(replacement)
            placed.add(replacement.path)
    matched = max((len(g.matched() - frame) for g in groups[:WEAK_TOP]), default=0)
    total = sum(idf[t] for t in topic) or 1.0
    share = sum(idf[t] for t in unseen - frame) / total
    first = groups[0].held() if groups else set()
    apart = sum(idf[t] for t in topic if t not in unseen and t not in first) / total
    lead = groups[0].score / groups[1].score if len(groups) > 1 and groups[1].score > 0 else 1.0
    want = asks.asked(text) if groups and answer_check else None
    given, mentions = 1.0, list[str]()
    if want is not None:
        given, mentions = _answer_given(db, groups[:WEAK_TOP], want, topic, q, weights, concepts, text)
    return Answer(hits, len(topic), matched, len(unseen - frame), share, names, apart, lead,
                  want[0] if want else "", given, mentions)


def _answer_given(db: sqlite3.Connection, groups: list[_Group], want: tuple[str, frozenset[str]], topic: list[str],
                  q: list[str], idf: dict[str, float], concepts: list[tuple[str, ...]],
                  question: str) -> tuple[float, list[str]]:
    """(the weight of the best window holding an answer of the kind `want` asks for, over the
    best window's; the question's words that window holds), over the first results (asks.py).

    A window's weight is the idf of the question's words it holds, or its file's summary,
    tags and intent hold (a synonym or an abbreviation's other form counts, as in ranking);
    the words that only ask for the kind ("how much ... cost") are not counted. 1.0 (no
    signal) when the question has no other words or no window holds any of them.
    """
    kind, cue = want
    about = [t for t in topic if t not in cue]
    covers = _covers(concepts, set(about))
    best, given, held_best = 0.0, 0.0, set()
    for group in groups:
        row = group.best_history if group.kind == "history" and group.best_history is not None else group.tip
        if row is None:
            continue
        if not row.text:
            _fetch(db, [row], set(q))
        frame = _window_held(asks.header(row.text), covers)
        for window in asks.windows(row.text):
            held = _window_held(window, covers) | frame
            weight = sum(idf[t] for t in held)
            if weight > best:
                best, held_best = weight, held
            if weight > given and asks.gives(kind, window, question, row.text):
                given = weight
    if best <= 0:
        return 1.0, []
    return given / best, _words_of(question, held_best)


def _window_held(window: str, covers: dict[tuple[str, ...], tuple[str, ...]]) -> set[str]:
    """The query terms a window holds, each by itself or by a member of its concept."""
    terms = set(analysis.analyze(window, parts=True))
    return {t for c, ts in covers.items() if ts and any(set(m.split()) <= terms for m in c) for t in ts}


def _words_of(question: str, terms: set[str]) -> list[str]:
    """The question's words, as written, whose terms are among `terms` ("Aoife's" for "aoif")."""
    out: list[str] = []
    for raw in question.split():
        word = raw.strip(".,;:!?\"()").replace("\u2019", "'")
        word = word[:-2] if word.lower().endswith("'s") else word
        if word and set(analysis.analyze(word)) & terms and word not in out:
            out.append(word)
    return out


def _decisions_first(db: sqlite3.Connection, groups: list[_Group], q: set[str]) -> list[_Group]:
    """A status question's results, those that decided nothing after those that did.

    "Do we still use X?" asks about X's decision: when a result holds a decision on the
    question's terms, a session that only mentions X (the logs it shipped to X) must
    not come before it, whose hit then says whether it stands. Only sessions without
    any decision move: one whose decision is worded otherwise ("why does the server
    still keep its own database") may be the answer. The order is otherwise kept.
    """
    top = groups[:_CANDIDATES]
    marks = ",".join("?" * len(top))
    rows = db.execute(f"SELECT path, terms FROM decisions WHERE path IN ({marks})", [g.path for g in top]).fetchall()
    if not any(q.intersection(terms.split()) for _, terms in rows):
        return groups
    decided = {path for path, _ in rows}
    return sorted(top, key=lambda g: g.path not in decided) + groups[_CANDIDATES:]


def _unknown_names(text: str, unseen: set[str]) -> list[str]:
    """The query's names (words with a capital letter) whose every term no record holds."""
    out = []
    for word in text.split():
        if not any(c.isupper() for c in word):
            continue
        found = analysis.analyze(word)
        if found and all(t in unseen for t in found):
            out.append(word.strip(".,;:!?\"'()"))
    return out


def _idf(db: sqlite3.Connection, q: list[str]) -> tuple[dict[str, float], set[str]]:
    """BM25's idf per query term (a term no document holds gets the largest), and those terms."""
    n = _doc_count(db)
    df = _df(db, q)
    return {t: _idf_of(n, df[t]) for t in q}, {t for t in q if not df[t]}


def _idf_of(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def _df(db: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    """How many rows hold each term."""
    marks = ",".join("?" * len(terms))
    try:
        found = dict(db.execute(f"SELECT term, doc FROM vocab WHERE term IN ({marks})", terms).fetchall())
    except sqlite3.OperationalError:  # no FTS5: count the rows holding each term
        found = {t: _count_like(db, t) for t in terms}
    return {t: int(found.get(t, 0)) for t in terms}


def _doc_count(db: sqlite3.Connection) -> int:
    (n,) = db.execute("SELECT count(*) FROM docs").fetchone()
    return max(1, int(n))


class _Row:
    """A ranked row: what ranking needs; its text and terms are fetched only when needed."""

    __slots__ = ("id", "kind", "ref", "path", "date", "rev", "score", "text", "terms", "held")

    def __init__(self, id: int, kind: str, ref: str, path: str, date: str, rev: str, score: float = 0.0) -> None:
        self.id, self.kind, self.ref, self.path, self.date, self.rev, self.score = id, kind, ref, path, date, rev, score
        self.text = ""
        self.terms: set[str] | None = None  # the row's query terms, once fetched
        self.held: set[str] = set()  # the query terms whose concept (a synonym, an abbreviation too) it holds


class _Group:
    """The rows of one file that matched: the tip's and its history's."""

    __slots__ = ("path", "tip", "history", "best_history", "score", "kind")

    def __init__(self, path: str) -> None:
        self.path = path
        self.tip: _Row | None = None
        self.history: list[_Row] = []
        self.best_history: _Row | None = None
        self.score, self.kind = 0.0, "session"

    def settle(self) -> None:
        """The file's score: the tip's, or a history version's if it has query terms the tip lost."""
        tip_terms = self.tip_terms()
        self.score = self.tip.score if self.tip is not None else 0.0
        self.kind = self.tip.kind if self.tip is not None else "history"
        for row in self.history:
            assert row.terms is not None
            if row.terms - tip_terms and (self.best_history is None or row.score > self.best_history.score):
                self.best_history = row
        if self.best_history is not None and self.best_history.score > self.score:
            self.score, self.kind = self.best_history.score, "history"

    def tip_terms(self) -> set[str]:
        return self.tip.terms or set() if self.tip is not None else set()

    def matched(self) -> set[str]:
        if self.kind == "history" and self.best_history is not None and self.best_history.terms is not None:
            return self.best_history.terms | self.tip_terms()
        return self.tip_terms()

    def held(self) -> set[str]:
        """The query terms the file holds, each by itself or by a member of its concept."""
        tip = self.tip.held if self.tip is not None else set()
        if self.kind == "history" and self.best_history is not None:
            return self.best_history.held | tip
        return tip


_ROW = "d.id, d.kind, d.ref, d.path, d.date, d.rev"
_COLS = "d.data, d.length"


def _rank(db: sqlite3.Connection, q: list[str], concepts: list[tuple[str, ...]],
          frame: frozenset[str] = frozenset(), cap: float = math.inf) -> list[_Group]:
    # Candidates match the query, the pieces of its compounds, or a synonym of its
    # terms; what a result holds (the weak rule, the best line) is still counted in the
    # query's own terms.
    members = list(dict.fromkeys(t for c in concepts for t in c))
    found = _fts(db, members) if has_fts(db) else _scan(db, members)
    qset = set(q)
    _score(db, found, concepts, qset, frame, cap)
    groups: dict[str, _Group] = {}
    for row, _ in found:
        group = groups.setdefault(row.path, _Group(row.path))
        if row.kind == "history":
            group.history.append(row)
        elif group.tip is None:
            group.tip = row
    for group in groups.values():
        if group.history and group.tip is None:  # the tip's version ranked below the candidates, if it matched
            group.tip = _tip_row(db, group.path)
            if group.tip is not None:
                _fetch(db, [group.tip], qset, concepts)
        group.settle()
    order = {k: i for i, k in enumerate(KINDS)}
    ranked = [g for g in groups.values() if g.score > 0]
    ranked.sort(key=lambda g: (-round(g.score, 9), order.get(g.kind, 9), _neg_date(_date_of(g)), g.path))
    return ranked


def _concepts(terms: list[str], abbreviations: list[tuple[str, str]] | None = None) -> list[tuple[str, ...]]:
    """Each term with its synonyms (thesaurus.py) and the abbreviations memory defines
    (abbrev.concepts), analyzed like the index: one concept each."""
    return abbrev.concepts(terms, _synonyms(), abbreviations or [])


def _abbreviations(db: sqlite3.Connection, q: list[str]) -> list[tuple[str, str]]:
    """The (short, long) pairs memory defines whose short form, or whose whole long form, the
    query holds (abbrev.py; the indexer stores them)."""
    marks = ",".join("?" * len(q))
    try:
        rows = db.execute(f"SELECT DISTINCT short, long FROM abbrevs WHERE short IN ({marks}) OR first IN ({marks}) "
                          "ORDER BY short, long", [*q, *q]).fetchall()
    except sqlite3.OperationalError:  # an index without the table: nothing learned
        return []
    return abbrev.relevant(rows, q)


def _aliases(concepts: list[tuple[str, ...]], q: list[str]) -> list[tuple[frozenset[str], tuple[str, ...]]]:
    """(member's terms, the query terms of its concept) for each abbreviation member: a line
    that holds the member holds, for the best line, what the query asked."""
    qset = set(q)
    out = []
    for c in concepts:
        asked = tuple(t for m in c for t in m.split() if t in qset)
        for m in c:
            parts = frozenset(m.split())
            if asked and not parts & qset:
                out.append((parts, asked))
    return out


_SYNONYMS: dict[str, tuple[str, ...]] | None = None


def _synonyms() -> dict[str, tuple[str, ...]]:
    global _SYNONYMS
    if _SYNONYMS is None:
        from . import thesaurus

        table: dict[str, tuple[str, ...]] = {}
        for group in thesaurus.GROUPS:
            terms = tuple(dict.fromkeys(t for w in group.split() for t in analysis.analyze(w)))
            for t in terms:
                table[t] = table.get(t, ()) + terms
        _SYNONYMS = table
    return _SYNONYMS


def synonym_table() -> dict[str, tuple[str, ...]]:
    """The thesaurus analyzed like the index: each term with the terms of its groups."""
    return dict(_synonyms())


def lines_of(text: str) -> list[tuple[str, str]]:
    """(field, line) for the summary, the tags and each body line of a record file."""
    return _lines(text)


def _score(db: sqlite3.Connection, found: list[tuple[_Row, tuple[str, str, str, str, int]]],
           concepts: list[tuple[str, ...]], qset: set[str], frame: frozenset[str] = frozenset(),
           cap: float = math.inf) -> None:
    """BM25F over concepts, as Lucene's SynonymQuery scores: a concept's frequency in a
    row is the sum of its members' (weighted by column), its idf that of the rows
    holding any member. Scored term by term (FTS5's bm25()), a row holding "error",
    "exception" and "failure" scored three times for the query's one "crash", and a
    rare synonym brought a rare word's idf for a word the query did not use.
    """
    if not found:
        return
    n = _doc_count(db)
    idf = {c: min(_idf_of(n, df), cap) if c[0] in frame else _idf_of(n, df)
           for c, df in _concept_df(db, concepts).items()}
    avg = _avg_length(db)
    members = {t for c in concepts for m in c for t in m.split()}
    covers = _covers(concepts, qset)
    for row, (*cols, length) in found:
        tf: dict[str, float] = {}
        for weight, col in zip(WEIGHTS, cols):
            for t in col.split():
                if t in members:
                    tf[t] = tf.get(t, 0.0) + weight
        row.terms = qset.intersection(tf)
        norm = K1 * (1 - B + B * (length or 0) / avg)
        score = 0.0
        held: set[str] = set()
        for c in concepts:
            f = sum(abbrev.frequency(tf, m) for m in c)
            if f:
                score += idf[c] * f * (K1 + 1) / (f + norm)
                held.update(covers[c])
        row.score, row.held = score, held


def _covers(concepts: list[tuple[str, ...]], qset: set[str]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """The query terms each concept stands for (a long form's terms, a synonym group's)."""
    return {c: tuple(t for m in c for t in m.split() if t in qset) for c in concepts}


def _concept_df(db: sqlite3.Connection, concepts: list[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """How many rows hold any member of each concept."""
    single = _df(db, [c[0] for c in concepts if len(c) == 1 and " " not in c[0]])
    out: dict[tuple[str, ...], int] = {}
    for c in concepts:
        if len(c) == 1 and " " not in c[0]:
            out[c] = single[c[0]]
        elif has_fts(db):
            (out[c],) = db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (_match(c),)).fetchone()
        else:
            out[c] = _count_like(db, *c)
    return out


def _avg_length(db: sqlite3.Connection) -> float:
    """The rows' mean length in terms, as the indexer left it (reading every row's costs ~1 ms per 10,000)."""
    row = db.execute("SELECT value FROM meta WHERE key='avg_length'").fetchone()
    if row is None:
        row = db.execute("SELECT avg(length) FROM docs").fetchone()
    return max(1.0, float(row[0] or 1))


def settle_lengths(db: sqlite3.Connection) -> None:
    """Record the rows' mean length for _score (the indexer calls this after each update)."""
    db.execute("INSERT OR REPLACE INTO meta VALUES ('avg_length', (SELECT coalesce(avg(length), 1) FROM docs))")


def _fetch(db: sqlite3.Connection, rows: list[_Row], qset: set[str],
           concepts: list[tuple[str, ...]] | None = None) -> None:
    """Fill in the text and the query terms of `rows` (and, given the concepts, what they hold)."""
    if not rows:
        return
    by_id = {r.id: r for r in rows}
    marks = ",".join("?" * len(by_id))
    covers = _covers(concepts or [], qset)
    zdict = dictionary(db)
    for rid, data in db.execute(f"SELECT id, data FROM docs WHERE id IN ({marks})", list(by_id)):
        *cols, text = unpack(zdict, data)
        terms = set(" ".join(cols).split())
        by_id[rid].text = text
        by_id[rid].terms = qset & terms
        if concepts is not None:  # _present fetches a row's text only: what it holds stays as _score found it
            by_id[rid].held = {t for c, ts in covers.items() if any(set(m.split()) <= terms for m in c) for t in ts}


def _fts(db: sqlite3.Connection, q: list[str]) -> list[tuple[_Row, tuple[str, str, str, str, int]]]:
    """The rows FTS5 ranks first (bm25(), term by term), with their analyzed columns for _score."""
    match = _match(q)
    weights = ", ".join(str(w) for w in WEIGHTS)
    # Rank inside the FTS table first: joining docs before the LIMIT would read the text
    # of every matching row (thousands, for a common word at 10,000 sessions).
    sql = (f"SELECT {_ROW}, {_COLS} FROM (SELECT rowid, bm25(fts, {weights}) AS score FROM fts WHERE fts MATCH ? "
           "ORDER BY score LIMIT ?) s JOIN docs d ON d.id = s.rowid ORDER BY s.score")
    return _unpacked(db, db.execute(sql, (match, _CANDIDATES)).fetchall())


def _unpacked(db: sqlite3.Connection, found: list[tuple[Any, ...]]) -> list[tuple[_Row, tuple[str, str, str, str, int]]]:
    """(row, its analyzed columns and length) for rows selected as _ROW, _COLS."""
    zdict = dictionary(db) if found else b""
    out = []
    for r in found:
        decided, summary, tags, body, _text = unpack(zdict, r[6])
        out.append((_Row(*r[:6]), (decided, summary, tags, body, r[7])))
    return out


def _scan(db: sqlite3.Connection, q: list[str]) -> list[tuple[_Row, tuple[str, str, str, str, int]]]:
    """Without FTS5: every row that holds a query term (_score ranks them as it ranks FTS5's)."""
    rows = _unpacked(db, db.execute(f"SELECT {_ROW}, {_COLS} FROM docs d ORDER BY d.id").fetchall())
    return [(row, cols) for row, cols in rows if _holds(cols[:4], q)]


def _match(terms: tuple[str, ...] | list[str]) -> str:
    """An FTS5 query for the rows holding any of `terms` (a member with spaces: all its terms)."""
    def one(t: str) -> str:
        quoted = ['"' + p.replace('"', '""') + '"' for p in t.split()]
        return quoted[0] if len(quoted) == 1 else "(" + " AND ".join(quoted) + ")"
    return " OR ".join(one(t) for t in terms)


def _holds(cols: tuple[str, ...] | list[str], terms: tuple[str, ...] | list[str]) -> bool:
    """Whether a row's analyzed columns hold any of `terms` (a member with spaces: all its terms), as _match."""
    held = set(" ".join(cols).split())
    return any(all(p in held for p in t.split()) for t in terms)


def _count_like(db: sqlite3.Connection, *terms: str) -> int:
    """Without FTS5: how many rows hold any of `terms`."""
    zdict = dictionary(db)
    return sum(_holds(unpack(zdict, data)[:4], terms) for (data,) in db.execute("SELECT data FROM docs"))


def _tip_row(db: sqlite3.Connection, path: str) -> _Row | None:
    row = db.execute(f"SELECT {_ROW} FROM docs d WHERE path = ? AND kind != 'history'", (path,)).fetchone()
    return _Row(*row) if row else None


def _date_of(group: _Group) -> str:
    row = group.tip or group.best_history
    return row.date if row is not None else ""


def _shown(relevance: float) -> float:
    """The JSON `score`: FTS5's sign (lower is better), rounded so both paths print the same."""
    return round(-relevance, 4) + 0.0  # + 0.0 turns -0.0 into 0.0


def _neg_date(date: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in date)  # sorts newest first inside one key


# --- presenting a result ------------------------------------------------------------

Aliases = list[tuple[frozenset[str], tuple[str, ...]]]  # (an abbreviation member's terms, the query terms it stands for)


def _present(db: sqlite3.Connection, group: _Group, q: list[str], idf: dict[str, float],
             aliases: Aliases | None = None) -> Hit:
    """The group as one hit: its best line, and the decision that line is, if it is one."""
    if group.kind == "history" and group.best_history is not None:
        row = group.best_history
        if not row.text:
            _fetch(db, [row], set(q))
        lost = set(q) - group.tip_terms()  # show the text the tip no longer has
        _, line = _best_line(row.text, [], q, {t: (w if t in lost else w / 100) for t, w in idf.items()}, aliases)
        return Hit("history", row.ref, group.path, row.date, snip(line, q), row.rev, _shown(group.score))
    tip = group.tip
    assert tip is not None  # a group without a tip row ranks by its history
    if not tip.text:
        _fetch(db, [tip], set(q))
    decisions = db.execute("SELECT id, text, terms, status, superseded_by, superseded_on FROM decisions "
                           "WHERE path = ? ORDER BY rowid", (group.path,)).fetchall()
    chosen, line = _best_line(tip.text, decisions, q, idf, aliases)
    score = _shown(group.score)
    if chosen is None:
        return Hit(tip.kind, tip.ref, group.path, tip.date, snip(line, q), "", score)
    return Hit("decision", str(chosen[0]), group.path, tip.date, snip(line, q), "", score,
               str(chosen[3]), chosen[4] or None, chosen[5] or None)


def _best_line(text: str, decisions: list[tuple[str, ...]], q: list[str],
               idf: dict[str, float], aliases: Aliases | None = None) -> tuple[tuple[str, ...] | None, str]:
    """(the decision row or None, the line) that carries the most query weight.

    Decisions go first and a later line must weigh strictly more, so a tie goes to the
    decision (Elephants Never Forget's order); the decision's own line in the body weighs half of it.
    A line holding an abbreviation's other form (`aliases`) holds the query terms it stands for.
    """
    best: tuple[float, tuple[str, ...] | None, str] = (0.0, None, "")
    qset = set(q)
    aliases = aliases or []
    probes = [*q, *(t for parts, _ in aliases for t in parts)]
    for d in decisions:
        weight = LINE_WEIGHTS["decision"] * sum(idf[t] for t in _held(qset, set(d[2].split()), aliases))
        if weight > best[0]:
            best = (weight, d, d[1])
    for field, line in _lines(text):
        low = line.lower()
        flat = low.replace("-", "")  # a compound's term is written without its hyphens
        if not any(t[:-1] in low or t[:-1] in flat for t in probes):  # cheap test first: a stem is (nearly) a prefix of its words
            continue
        weight = LINE_WEIGHTS[field] * sum(idf[t] for t in _held(qset, set(analysis.analyze(line, parts=True)), aliases))
        if weight > best[0]:
            best = (weight, None, line)
    if not best[2]:
        return None, next((line for field, line in _lines(text) if field == "summary"), " ".join(text.split()))
    return best[1], best[2]


def _held(qset: set[str], terms: set[str], aliases: Aliases) -> set[str]:
    """The query terms a line holds, an abbreviation's other form standing for what it abbreviates."""
    held = qset & terms
    for parts, asked in aliases:
        if parts <= terms:
            held.update(asked)
    return held


def _lines(text: str) -> list[tuple[str, str]]:
    """(field, line) for the summary, the tags and each body line of a record file."""
    out = []
    lines = text.splitlines()
    end = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        for raw in lines[1:end]:
            key, _, value = raw.partition(":")
            if key.strip() in ("summary", "tags"):
                out.append((key.strip(), value.strip().strip("\"'[]")))
    for raw in lines[end + 1 if end else 0:]:
        line = raw.strip().lstrip("#-*> ").strip()
        if line:
            out.append(("body", line))
    return out


def snip(line: str, q: list[str], width: int = 160) -> str:
    """`line` cut to about `width` characters around its first query term, on word boundaries."""
    line = " ".join(line.split())
    if len(line) <= width:
        return line
    low = line.lower()
    first = min((i for i in (low.find(t[:-1] if len(t) > 3 else t) for t in q) if i >= 0), default=0)
    start = max(0, first - width // 3)
    if start:
        space = line.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 else start
    end = start + width
    if end < len(line):
        space = line.rfind(" ", start, end + 1)
        end = space if space > start else end
    return ("…" if start else "") + line[start:end].rstrip() + ("…" if end < len(line) else "")


def _replacement(db: sqlite3.Connection, hit: Hit, groups: list[_Group], placed: set[str]) -> Hit | None:
    """The decision that replaced a superseded hit, shown right after it (unless it came first)."""
    if hit.status != "superseded" or not hit.superseded_by:
        return None
    row = db.execute("SELECT d.id, d.path, d.text, d.status, d.superseded_by, d.superseded_on, s.date FROM decisions d "
                     "LEFT JOIN docs s ON s.path = d.path AND s.kind != 'history' WHERE d.id = ?",
                     (hit.superseded_by,)).fetchone()
    if row is None or row[1] in placed:
        return None
    score = next((_shown(g.score) for g in groups if g.path == row[1]), 0.0)
    return Hit("decision", row[0], row[1], row[6] or "", snip(row[2], []), "", score, row[3], row[4] or None,
               row[5] or None)


# --- output -------------------------------------------------------------------------

def format_hits(answer: Answer, query_text: str) -> str:
    if not answer.hits:
        return f"nothing in memory matches {query_text!r}\nhint: git enf log --oneline lists every session"
    reason = answer.reason if answer.weak else ""
    lines = [f"no strong match for {query_text!r}{': ' + reason if reason else ''}; closest:"] if answer.weak else []
    for h in answer.hits:
        where = f"{h.path}@{h.rev[:8]}" if h.kind == "history" else h.path
        mark = f"  SUPERSEDED by {h.superseded_by} ({h.superseded_on or '-'})" if h.status == "superseded" else ""
        lines.append(f"{h.kind:<8} {h.date or '-':<10}  {where}{mark}")
        lines.append(f"    {h.snippet}")
        lines.append(f"    → {h.command}")
    return "\n".join(lines)


def as_rows(hits: list[Hit]) -> list[dict[str, object]]:
    """The hits as JSON-ready rows (the edge wraps them in its envelope)."""
    return [{**h.as_dict(), "command": h.command} for h in hits]
