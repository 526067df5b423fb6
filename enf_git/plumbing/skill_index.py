"""Skill suggestions: seed 002's TF-IDF retriever over the installed skills, answered
per prompt from a small cached index.

A skill is one `SKILL.md`: the `name` of its frontmatter (else its folder's name) and
its `description` (else the first paragraph of its body). Both are tokenized the
seed's way (lower-case runs of [a-z0-9], at least 3 long, minus STOPWORDS); a skill's
terms are the set of both, its name terms weigh NAME_BOOST. idf(t) = log((n + 1) /
(df + 0.5)), and a skill scores the idf-sum of the distinct prompt terms it holds. A
suggestion needs MIN_HITS distinct terms, MIN_SCORE, and REL_GAP of the best score;
at most MAX_SUGGESTIONS are made.

The index (marshal, `<worktree git dir>/enf/skills.bin`) holds:
  schema, key    what discovery depended on (the project, Claude Code's config dir)
  watch          [(path, stamp)]: every file and folder the index was built from (the
                 settings naming the enabled plugins, each skills folder, each SKILL.md);
                 a stamp is (mtime_ns, size, inode), None for a path that was missing,
                 so a skill that appears later is noticed too
  names          each skill's name as typed after `/` (a plugin's: `plugin:name`)
  shards         {first two letters: marshal of {term: (idf, skills holding it, skills
                 whose name holds it)}}: a prompt decodes only its terms' shards

UserPromptSubmit checks `watch` with os.stat alone and rebuilds inline when a stamp
differs (200 skills: a few ms). Stdlib only, and no `re` or `typing` (this runs
before every prompt): words are found with bytes.translate.
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False  # typing would cost the per-prompt hook an import
if TYPE_CHECKING:
    Stamp = tuple[int, int, int] | None
    # (folder, plugin prefix or "", whether the folder is itself one skill)
    Root = tuple[str, str, bool]
    # (name as typed after "/", name, description)
    Skill = tuple[str, str, str]
    # a term's (idf, the skills holding it, the skills whose name holds it)
    Postings = tuple[float, tuple[int, ...], tuple[int, ...]]

SCHEMA = 1
MAX_SUGGESTIONS = 3
MIN_SCORE = 7.0  # absolute idf-sum floor (the seed: 3.0 let one common word clear it)
MIN_HITS = 2  # a skill must match at least two distinct prompt terms
REL_GAP = 0.5  # drop results scoring under half the top score
NAME_BOOST = 2.5  # a hit in the skill's name outweighs one in its description
MIN_LENGTH = 3
MAX_PROMPT = 2000  # characters of a prompt that are read (a pasted log is not a request), as pointers.py
HEAD_BYTES = 16384  # of a SKILL.md read: the frontmatter and the first paragraph
SKILL_FILE = "SKILL.md"

# English function words, and the words that steer a conversation rather than name a
# task ("please", "thanks", "continue"); "use"/"when" open most skill descriptions.
STOPWORDS = frozenset("""
the and for are but not you your yours all any can could would should will shall may might must had has have
having was were been being our ours out off over under again further then once here there when where why how
what which who whom this that these those with without into onto from upon about above below between through
during before after its they them their theirs she her hers him his himself herself itself myself
yourself ourselves themselves does did doing done don very too just also only own same such than both each
few more most other some nor now yes yeah yep okay please pls thanks thank thx cheers continue proceed go
ahead sure fine great good nice cool let lets want wanted need needs like get got use uses used using whenever
one thing things something anything
""".split())

_ALNUM = b"abcdefghijklmnopqrstuvwxyz0123456789"
# Every byte that is not [a-z0-9] becomes a space; non-ASCII was replaced by "?" first.
_SPACES = bytes(c if c in _ALNUM else 32 for c in range(256))


def tokenize(text: str) -> list[str]:
    """re.findall(r"[a-z0-9]+", text.lower()), without re, minus short words and STOPWORDS."""
    data = text.lower().encode("ascii", "replace").translate(_SPACES)
    return [w for w in data.decode("ascii").split() if len(w) >= MIN_LENGTH and w not in STOPWORDS]


# --- reading a SKILL.md --------------------------------------------------------------

def read_skill(path: str, folder_name: str) -> tuple[str, str] | None:
    """(name, description) of the SKILL.md at `path`; None when there is none, it is not
    UTF-8, has no closed frontmatter, or the model may not invoke it."""
    try:
        with open(path, "rb") as f:
            data = f.read(HEAD_BYTES)
    except OSError:
        return None
    text = _decode(data, truncated=len(data) == HEAD_BYTES)
    if text is None:
        return None
    parsed = frontmatter(text)
    if parsed is None:
        return None
    fields, body = parsed
    if fields.get("disable-model-invocation", "").lower() == "true":
        return None  # only the user may run it: suggesting it to the model is noise
    name = fields.get("name") or folder_name
    return name, fields.get("description") or first_paragraph(body)


def _decode(data: bytes, truncated: bool) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(data) - 3:  # a character cut by HEAD_BYTES, not bad bytes
            return data[: exc.start].decode("utf-8", "replace")
        return None


def frontmatter(text: str) -> tuple[dict[str, str], list[str]] | None:
    """The `key: value` pairs of the leading `---` block and the lines after it; None if
    the block is missing, unclosed, or holds a line that is neither a key nor indented.

    Not YAML: enough for what SKILL.md frontmatter holds. An indented line continues the
    key before it (folded `>` and literal `|` blocks, plain multi-line scalars), joined by
    spaces, which is all tokenizing needs."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    out: dict[str, str] = {}
    key = ""
    for i in range(1, len(lines)):
        raw = lines[i]
        stripped = raw.strip()
        if raw.rstrip() in ("---", "..."):
            return out, lines[i + 1:]
        if not stripped or stripped.startswith("#"):
            continue
        if raw[0] in " \t":
            if key:
                out[key] = f"{out[key]} {_unquote(stripped)}".strip()
            continue
        name, colon, value = raw.partition(":")
        if not colon or not name.strip():
            return None
        key = name.strip().lower()
        value = value.strip()
        out[key] = "" if value in ("|", ">", "|-", ">-", "|+", ">+") else _unquote(value)
    return None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return value


def first_paragraph(lines: list[str]) -> str:
    """What Claude Code describes a skill by when its frontmatter has no description."""
    out: list[str] = []
    for line in lines:
        text = line.strip()
        if not text:
            if out:
                break
        elif not text.startswith("#"):
            out.append(text)
    return " ".join(out)


# --- building the index --------------------------------------------------------------

def stamp(path: str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def build(key: tuple[str, ...], sources: list[str], roots: list[Root]) -> dict[str, object]:
    """The index of the skills under `roots` (earlier roots win a name), watching `sources` too.

    Each path is stamped before it is read: an edit during the build changes the
    stamp, so the next prompt rebuilds."""
    watch: list[tuple[str, Stamp]] = [(p, stamp(p)) for p in sources]
    skills: list[Skill] = []
    taken: set[str] = set()
    for folder, prefix, single in roots:
        for md, folder_name in _skill_files(folder, single, watch):
            watch.append((md, stamp(md)))
            found = read_skill(md, folder_name)
            if found is None:
                continue
            name, description = found
            typed = f"{prefix}:{name}" if prefix else name
            if typed not in taken:
                taken.add(typed)
                skills.append((typed, name, description))
    names, shards = index_of(skills)
    return {"schema": SCHEMA, "key": key, "watch": watch, "names": names, "shards": shards}


def _skill_files(folder: str, single: bool, watch: list[tuple[str, Stamp]]) -> list[tuple[str, str]]:
    """(SKILL.md path, its folder's name) for each skill folder in `folder` (or `folder` itself)."""
    if single:
        return [(os.path.join(folder, SKILL_FILE), os.path.basename(folder.rstrip(os.sep)))]
    watch.append((folder, stamp(folder)))  # a skill folder added, removed or renamed
    try:
        with os.scandir(folder) as entries:
            found = sorted(e.name for e in entries if e.is_dir() and not e.name.startswith("."))
    except OSError:
        return []
    return [(os.path.join(folder, name, SKILL_FILE), name) for name in found]


def index_of(skills: list[Skill]) -> tuple[list[str], dict[str, bytes]]:
    """(names, shards) of `skills`: each term's (idf, skills holding it, skills naming it), the
    terms grouped by their first two letters and each group marshalled on its own, so a
    prompt decodes the few groups of its terms, not the whole index."""
    import math  # an extension module: loaded only when the index is rebuilt

    holding: dict[str, list[int]] = {}
    naming: dict[str, list[int]] = {}
    for doc, (_typed, name, description) in enumerate(skills):
        in_name = set(tokenize(name))
        for t in in_name.union(tokenize(description)):
            holding.setdefault(t, []).append(doc)
        for t in in_name:
            naming.setdefault(t, []).append(doc)
    n, log = len(skills), math.log
    groups: dict[str, dict[str, Postings]] = {}
    for t in sorted(holding):
        docs = holding[t]
        groups.setdefault(t[:2], {})[t] = (log((n + 1) / (len(docs) + 0.5)), tuple(docs), tuple(naming.get(t, ())))
    return [s[0] for s in skills], {g: marshal.dumps(terms) for g, terms in groups.items()}


# --- the cache -----------------------------------------------------------------------

def load(path: str) -> dict[str, object] | None:
    """The cached index at `path`, or None when there is none or it cannot be read."""
    try:
        with open(path, "rb") as f:
            index = marshal.loads(f.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    ok = isinstance(index, dict) and index.get("schema") == SCHEMA and isinstance(index.get("watch"), list)
    return index if ok else None


def fresh(index: dict[str, object], key: tuple[str, ...]) -> bool:
    """Whether `index` was built for `key` and nothing it watches has changed since."""
    watch = index["watch"]
    assert isinstance(watch, list)
    if index.get("key") != key:
        return False
    for path, was in watch:
        if stamp(path) != was:
            return False
    return True


def save(path: str, index: dict[str, object]) -> None:
    from . import atomic

    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic.write(path, marshal.dumps(index))


# --- answering a prompt --------------------------------------------------------------

def score(index: dict[str, object], prompt: str) -> list[tuple[float, str]]:
    """(score, name) of every skill holding MIN_HITS distinct prompt terms, best first."""
    names, shards = index["names"], index["shards"]
    assert isinstance(names, list) and isinstance(shards, dict)
    terms = sorted(set(tokenize(prompt[:MAX_PROMPT])))  # sorted: the same float sums in every process
    groups: dict[str, dict[str, Postings]] = {}
    for g in {t[:2] for t in terms}:
        if g in shards:
            groups[g] = marshal.loads(shards[g])
    hits: dict[int, int] = {}
    total: dict[int, float] = {}
    for t in terms:
        found = groups.get(t[:2], {}).get(t)
        if found is None:
            continue
        idf, docs, named = found
        for doc in docs:
            hits[doc] = hits.get(doc, 0) + 1
            total[doc] = total.get(doc, 0.0) + (idf * NAME_BOOST if doc in named else idf)
    ranked = [(s, str(names[d])) for d, s in total.items() if hits[d] >= MIN_HITS]
    return sorted(ranked, key=lambda r: (-r[0], r[1]))


def suggest(index: dict[str, object], prompt: str) -> list[str]:
    """The names to suggest for `prompt`: the seed's thresholds, at most MAX_SUGGESTIONS."""
    ranked = [r for r in score(index, prompt) if r[0] >= MIN_SCORE]
    if not ranked:
        return []
    top = ranked[0][0]
    return [name for s, name in ranked if s >= REL_GAP * top][:MAX_SUGGESTIONS]
