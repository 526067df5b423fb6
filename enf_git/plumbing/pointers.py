"""Brain-first pointers: recall's ranking, answered per prompt from a compact file.

UserPromptSubmit runs before every prompt, so it cannot afford what `git enf recall`
imports (sqlite3 and re, ~10 ms together; a bare interpreter starts in ~15 ms). The
indexer therefore also writes `.git/enf/pointers.bin`, which this module reads with
builtins alone (marshal, open, int.from_bytes):

  MAGIC, 8 bytes: the header's length, the header (marshal), then blobs:
  header  schema, the branch tip it was built from, the number of records, each
          shard's (offset, length), each record's offset (8 bytes each), the analyzed synonym
          table (thesaurus.py), the pinned sessions' stems, the record texts that read as
          an instruction (pure/suspicious.py) and the version of the rules that said so
  shard   {term: (df, record ids, impacts)}; a term lives in shard hash(term) %
          SHARDS, so a prompt reads the few shards of its terms. Only the CAP
          highest-impact records of a term are listed (impact: its BM25 saturation
          f (K1 + 1) / (f + norm)): they are where candidates come from
  record  kind, ref, path, date, summary, its decisions (id, analyzed terms, text,
          status, replaced by, on), its norm K1 (1 - B + B length / avg) and its
          weighted term frequencies, so the RESCORE best candidates are scored exactly

The score is search.py's BM25F, concept by concept (a word and its synonyms are one
term whose frequency is the sum of theirs), over the records on the tip (history is
left to `git enf recall`). Frequencies are stored weighted by column, so summing them
is exactly what search._score does (a concept's idf is estimated from its members'
df, summed). A pointer is shown only for a strong match: the answer is not weak by
search.py's rule, the record holds at least COVERAGE of the query's idf, and it scores
at least RELATIVE of the best. Thresholds chosen on bench/pointers_quality.py.
"""

import marshal

from . import abbrev, stem as analysis

# Plain aliases, not typing's: this module runs before every prompt, and `from __future__
# import annotations` alone would cost the import of __future__ (~0.3 ms).
# (id, analyzed terms, text, status, superseded by, superseded on)
Decision = tuple[str, tuple[str, ...], str, str, str, str]
# (kind, ref, path, date, summary, decisions, norm, weighted term frequencies, author: "Alice,
# 2026-12-01" when someone other than this machine's user last changed it, else "")
Record = tuple[str, str, str, str, str, list[Decision], float, dict[str, float], str]
# term -> (df, the highest-impact records, their impacts)
Postings = dict[str, tuple[int, tuple[int, ...], tuple[float, ...]]]

SCHEMA = 2  # 2: records shown as data (frame.py) when the file is built, and their authors
MAGIC = b"ENFPTR1\n"
SHARDS = 256
CAP = 128  # postings kept per term, the highest-impact first (the candidates' source)
RESCORE = 8  # candidates scored exactly from their own record
K1, B = 1.2, 0.75  # as search.py
# The unseen words' share of search.py's weak rule, at the values COVERAGE was chosen with;
# recall's own rule also weighs the words its first result lacks (search.APART_WEIGHT).
WEAK_SHARE, NAME_SHARE = 0.5, 0.3
# Chosen on the dev queries of bench/pointers_quality.py (`--sweep` prints the grid):
COVERAGE = 0.3  # of the idf of the query terms memory holds, a record must hold this much
SEEN_ONLY = True  # (the unseen terms' share is the weak rule's: WEAK_SHARE, NAME_SHARE)
RELATIVE = 0.7  # of the best score a second or third pointer must reach
MAX_PROMPT = 2000  # characters of a prompt that are searched (a pasted log is not a question)


class Pointer:
    """One strong match. A plain class: the per-prompt path imports no dataclasses."""

    __slots__ = ("kind", "ref", "path", "date", "text", "status", "superseded_by", "superseded_on",
                 "matched", "pinned", "score", "author")

    def __init__(self, kind: str, ref: str, path: str, date: str, text: str, matched: list[str],
                 score: float, status: str = "", superseded_by: str = "", superseded_on: str = "",
                 pinned: bool = False) -> None:
        self.kind, self.ref, self.path, self.date, self.text = kind, ref, path, date, text
        self.matched, self.score, self.pinned = matched, score, pinned
        self.status, self.superseded_by, self.superseded_on = status, superseded_by, superseded_on
        self.author = ""  # "Alice, 2026-12-01": someone else last changed the record

    @property
    def key(self) -> str:
        """What "the same pointer" means within a session: the record (or its decision)."""
        return f"{self.kind}:{self.ref or self.path}"


def shard_of(term: str) -> int:
    """A stable hash (Python's own is salted per process): FNV-1a over the UTF-8 bytes."""
    h = 0x811C9DC5
    for byte in term.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h % SHARDS


class Index:
    """An open pointers file: the header read, blobs read on demand.

    Read through one open file for its whole life: a refresh renames a new file into
    place at any moment, and offsets from one file read in the other are garbage.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.file = open(path, "rb", buffering=0)  # closed with the object (hooks are one-shot)
        try:
            head = self.file.read(len(MAGIC) + 8)
            if head[: len(MAGIC)] != MAGIC:
                raise ValueError(f"{path} is not a pointers file")
            size = int.from_bytes(head[len(MAGIC):], "little")
            self.header = marshal.loads(self.file.read(size))
            if not isinstance(self.header, dict) or self.header.get("schema") != SCHEMA:
                raise ValueError(f"{path} has another schema")
        except BaseException:
            self.file.close()
            raise
        self.base = len(MAGIC) + 8 + size

    def is_at(self, path: str) -> bool:
        """Whether `path` is still the file this index reads (not one renamed over it since)."""
        import os

        try:
            here, there = os.fstat(self.file.fileno()), os.stat(path)
        except OSError:
            return False
        return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)

    @property
    def tip(self) -> str:
        return str(self.header.get("tip", ""))

    @property
    def n(self) -> int:
        return int(self.header["n"])

    @property
    def syn(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, tuple[str, ...]] = self.header["syn"]
        return found

    @property
    def abbr(self) -> tuple[tuple[str, str], ...]:
        """The abbreviations memory defines, analyzed (abbrev.py)."""
        return tuple(self.header.get("abbr", ()))

    @property
    def pins(self) -> set[str]:
        return set(self.header.get("pins", ()))

    @property
    def flagged(self) -> frozenset[str] | None:
        """The texts of this file's records that read as an instruction to the assistant
        (pure/suspicious.py, judged when the file was built, so that a prompt need not
        load the rules); None for a file written without verdicts: the caller judges."""
        found = self.header.get("flagged")
        return frozenset(found) if isinstance(found, tuple) else None

    def postings(self, terms: set[str]) -> Postings:
        """(df, highest-impact records, their impacts) per term that any record holds."""
        by_shard: dict[int, list[str]] = {}
        for t in terms:
            by_shard.setdefault(shard_of(t), []).append(t)
        order = sorted(by_shard)
        out = {}
        for s, blob in zip(order, self.blobs([tuple(self.header["shards"][s]) for s in order])):
            if not isinstance(blob, dict):
                raise ValueError(f"{self.path}: shard {s} is damaged")
            for t in by_shard[s]:
                if t in blob:
                    out[t] = blob[t]
        return out

    def records(self, docs: list[int]) -> dict[int, Record]:
        offsets: bytes = self.header["docs"]  # 8 bytes per record (and one past the last): no 10,000-int tuple to load
        spans = []
        for d in docs:
            start, end = (int.from_bytes(offsets[i * 8:i * 8 + 8], "little") for i in (d, d + 1))
            spans.append((start, end - start))
        out = {}
        for doc, blob in zip(docs, self.blobs(spans)):
            if not isinstance(blob, tuple) or len(blob) != 9:
                raise ValueError(f"{self.path}: record {doc} is damaged")
            out[doc] = blob
        return out

    def blobs(self, spans: list[tuple[int, int]]) -> list[object]:
        """The blobs at `spans` (offset, length after the header)."""
        out = []
        for off, size in spans:
            self.file.seek(self.base + off)
            out.append(marshal.loads(self.file.read(size)))
        return out


class Layered:
    """A full index and the delta written since (the records changed after its tip).

    Rebuilding the whole file costs seconds at 10,000 sessions, and Stop commits after
    most turns, so a refresh writes only the changed records into a small delta file;
    the delta's records replace the full file's records of the same paths (`masked`).
    Document frequencies add the two files' (a masked record's old terms still count:
    a few records among thousands), record ids of the delta follow the full file's.
    """

    def __init__(self, base: Index, delta: Index) -> None:
        self.base, self.delta = base, delta
        self.masked = frozenset(delta.header.get("masked", ()))

    @property
    def tip(self) -> str:
        return self.delta.tip

    def is_at(self, path: str) -> bool:
        return self.base.is_at(path) and self.delta.is_at(delta_path(path))

    @property
    def n(self) -> int:
        return self.base.n + self.delta.n - len(self.masked)

    @property
    def syn(self) -> dict[str, tuple[str, ...]]:
        return self.delta.syn

    @property
    def abbr(self) -> tuple[tuple[str, str], ...]:
        return self.delta.abbr

    @property
    def pins(self) -> set[str]:
        return self.delta.pins

    @property
    def flagged(self) -> frozenset[str] | None:
        """Both files' flagged texts (a verdict is the text's alone, whichever record holds it)."""
        base, delta = self.base.flagged, self.delta.flagged
        return None if base is None or delta is None else base | delta

    def postings(self, terms: set[str]) -> Postings:
        old, new = self.base.postings(terms), self.delta.postings(terms)
        shift = self.base.n
        out: Postings = {}
        for t in old.keys() | new.keys():
            df0, docs0, impacts0 = old.get(t, (0, (), ()))
            df1, docs1, impacts1 = new.get(t, (0, (), ()))
            if not docs1 and self.masked.isdisjoint(docs0):
                out[t] = (df0, docs0, impacts0)  # the common case: nothing of this term changed
                continue
            kept = [(d, x) for d, x in zip(docs0, impacts0) if d not in self.masked]
            kept += [(d + shift, x) for d, x in zip(docs1, impacts1)]
            out[t] = (df0 + df1, tuple(d for d, _ in kept), tuple(x for _, x in kept))
        return out

    def records(self, docs: list[int]) -> dict[int, Record]:
        shift = self.base.n
        out = self.base.records([d for d in docs if d < shift])
        out.update({d + shift: r for d, r in self.delta.records([d - shift for d in docs if d >= shift]).items()})
        return out


def query(index: Index | Layered, prompt: str, seen: frozenset[str] | set[str] = frozenset(), limit: int = 3) -> list[Pointer]:
    """At most `limit` strong pointers for `prompt`, pinned records first, none of `seen`."""
    text = prompt[:MAX_PROMPT]
    q = list(dict.fromkeys(analysis.analyze(text, scan=True)))
    n = index.n
    if not q or n <= 0:
        return []
    frame = analysis.frame(text, q, scan=True)  # a status question's frame: as search.py weighs it
    pieces = [t for t in analysis.analyze(text, parts=True, scan=True) if t not in q]
    concepts = abbrev.concepts([*q, *pieces], index.syn, abbrev.relevant(index.abbr, q))
    postings = index.postings({p for c in concepts for m in c for p in m.split()})
    idf_all = {t: _idf(n, postings[t][0] if t in postings else 0) for t in q}
    idf_q = {t: w for t, w in idf_all.items() if t not in frame}  # the weak rule's: the topic alone
    unseen = {t for t in idf_q if t not in postings}
    # A status question's frame never outweighs its topic (search.py): capped, it still
    # counts where a record holds it, as recall's ranking counts it.
    cap = max(idf_q.values()) if frame else float("inf")
    idf_all = {t: min(w, cap) if t in frame else w for t, w in idf_all.items()}
    # A concept's idf from the records holding any member: their df summed (capped at n)
    # stands in for the union, which the truncated postings cannot count.
    idf_c = [(c, _idf(n, min(n, sum(_df(postings, m) for m in c)))) for c in concepts]
    idf_c = [(c, min(w, cap) if c[0] in frame else w) for c, w in idf_c]
    idf_c = [(c, w) for c, w in idf_c if any(_df(postings, m) for m in c)]
    docs = _candidates(idf_c, postings)
    if not docs:
        return []
    details = index.records(docs)
    scored = sorted(((_exact(details[d], idf_c), d) for d in docs), reverse=True)
    held = {d: [t for t in q if t in details[d][7]] for d in docs}
    matched = max(len([t for t in held[d] if t in idf_q]) for _, d in scored[:3])
    share = sum(idf_q[t] for t in unseen) / (sum(idf_q.values()) or 1.0)
    if not matched or share > (NAME_SHARE if _unknown_name(text, unseen) else WEAK_SHARE):
        return []  # search.py's weak rule: memory most likely does not hold the answer
    total = sum(idf_all.values()) or 1.0
    seen_idf = (total - sum(idf_all[t] for t in unseen)) if SEEN_ONLY else total
    status = bool(frame) and any(set(idf_q).intersection(d[1]) for _, doc in scored for d in details[doc][5])
    if status:  # a status question asks about a decision: records that decided nothing last (as search.py)
        scored.sort(key=lambda s: not details[s[1]][5])
    best = scored[0][0]
    strong = [(d, score, held[d]) for score, d in scored
              if score >= RELATIVE * best and sum(idf_all[t] for t in held[d]) >= COVERAGE * seen_idf]
    return _present(details, strong, q, text, index.pins, seen, limit, status)


def _df(postings: Postings, member: str) -> int:
    """A concept member's df: a long form's ("elast kubernet servic") that of its scarcest term."""
    if " " not in member:
        return postings[member][0] if member in postings else 0
    return min(postings[t][0] if t in postings else 0 for t in member.split())


def _idf(n: int, df: int) -> float:
    return _ln(1 + (n - df + 0.5) / (df + 0.5))


# ln 2 split so that k * _LN2_HI is exact for any exponent k (fdlibm's constants).
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_SQRT2, _SQRT_HALF = 1.4142135623730951, 0.7071067811865476


def _ln(x: float) -> float:
    """math.log(x) for x > 0, within 2 ulp of it (tests compare them), without the math
    extension: loading its shared library was ~0.15 ms of every substantive prompt, and
    a prompt takes a dozen logarithms. x = 2^k m with m in [sqrt(1/2), sqrt(2)], and
    ln m = 2 atanh(z), z = (m - 1) / (m + 1), |z| <= 0.172: eleven terms of its series
    reach double precision."""
    k = int(x).bit_length() - 1 if x >= 1.0 else 0
    x *= 0.5 ** k  # a power of two: exact
    while x < _SQRT_HALF:
        x *= 2.0
        k -= 1
    if x > _SQRT2:
        x *= 0.5
        k += 1
    z = (x - 1.0) / (x + 1.0)
    w = z * z
    s = w * (1 / 3 + w * (1 / 5 + w * (1 / 7 + w * (1 / 9 + w * (1 / 11 + w * (1 / 13 + w * (
        1 / 15 + w * (1 / 17 + w * (1 / 19 + w * (1 / 21 + w / 23))))))))))
    return k * _LN2_HI + (2.0 * z + (2.0 * z * s + k * _LN2_LO))


def _candidates(idf_c: list[tuple[tuple[str, ...], float]], postings: Postings) -> list[int]:
    """The RESCORE records with the highest impact-based estimate (a concept's impacts summed)."""
    estimate: dict[int, float] = {}
    get = estimate.get  # the loop runs up to CAP times per term: no attribute lookups in it
    for c, idf in idf_c:
        for m in c:
            t = min(m.split(), key=lambda p: postings[p][0] if p in postings else 0)  # a long form: its scarcest term
            if t in postings and _df(postings, m):
                _n, docs, impacts = postings[t]
                for doc, x in zip(docs, impacts):
                    estimate[doc] = get(doc, 0.0) + idf * x
    return sorted(estimate, key=estimate.__getitem__, reverse=True)[:RESCORE]


def _exact(detail: Record, idf_c: list[tuple[tuple[str, ...], float]]) -> float:
    """search._score's BM25F for one record, from its own weighted frequencies."""
    norm, freq = detail[6], detail[7]
    score = 0.0
    for c, idf in idf_c:
        f = sum(abbrev.frequency(freq, m) for m in c)
        if f:
            score += idf * f * (K1 + 1) / (f + norm)
    return score


def _unknown_name(text: str, unseen: set[str]) -> bool:
    for word in text.split():
        if any(c.isupper() for c in word):
            found = analysis.analyze(word, scan=True)
            if found and all(t in unseen for t in found):
                return True
    return False


def _present(details: dict[int, Record], strong: list[tuple[int, float, list[str]]], q: list[str], text: str,
             pins: set[str], seen: frozenset[str] | set[str], limit: int, status: bool = False) -> list[Pointer]:
    """The pointers, pinned ones first, then (for a status question) those of records that decided something."""
    words = _surface(text, q)
    out = []
    for doc, score, terms in strong:
        kind, ref, path, date, summary, decisions, _norm, _freq, author = details[doc]
        stem = path.rsplit("/", 1)[-1].removesuffix(".md")
        found = _pointer(kind, ref, path, date, summary, decisions, terms, [words[t] for t in terms], score,
                         stem in pins)
        found.author = author
        out.append(found)
    decided = {details[doc][2] for doc, _, _ in strong if details[doc][5]}
    out.sort(key=lambda p: (not p.pinned, status and p.path not in decided, -p.score))
    return [p for p in out if p.key not in seen][:limit]


def _pointer(kind: str, ref: str, path: str, date: str, summary: str, decisions: list[Decision],
             terms: list[str], words: list[str], score: float, pinned: bool) -> Pointer:
    """The record's pointer: its best-matching decision if one holds a query term, else its summary."""
    best, weight = None, 0
    for d in decisions:
        held = len(set(terms) & set(d[1]))
        if held > weight:
            best, weight = d, held
    if best is None:
        return Pointer(kind, ref, path, date, summary, words, score, pinned=pinned)
    did, _terms, dtext, status, by, on = best
    return Pointer("decision", did, path, date, dtext, words, score, status, by, on, pinned)


def _surface(text: str, q: list[str]) -> dict[str, str]:
    """Each query term as the prompt wrote it (the pointer says what matched in the user's words)."""
    out: dict[str, str] = {}
    for w in analysis.words(text, scan=True):
        if w in analysis.STOPWORDS:
            continue
        term = analysis.stem_compound(w)
        out.setdefault(term, w)
    return {t: out.get(t, t) for t in q}


def load(path: str) -> Index | None:
    """The index at `path`, or None when there is none or it cannot be read (fail-open)."""
    try:
        return Index(path)
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None


def discard(path: str) -> None:
    """Remove the files at `path` (the full one and its delta); missing ones are fine."""
    import os

    for name in (path, delta_path(path)):
        try:
            os.unlink(name)
        except OSError:
            pass


def delta_path(path: str) -> str:
    return path[: -len(".bin")] + "-delta.bin" if path.endswith(".bin") else path + "-delta"


def load_current(path: str) -> Index | Layered | None:
    """The full index at `path` with its delta when the delta was written on top of it."""
    base = load(path)
    if base is None:
        return None
    delta = load(delta_path(path))
    if delta is None or delta.header.get("base_tip") != base.tip:
        return base
    return Layered(base, delta)
