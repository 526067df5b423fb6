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
differs (skill_build.py, loaded only then). Stdlib only, and no `re` or `typing`
(this runs before every prompt): words are found with bytes.translate.
"""

import marshal
import os

# Plain aliases (no typing, no `from __future__`: each is an import before every prompt).
Stamp = tuple[int, int, int] | None
# a term's (idf, the skills holding it, the skills whose name holds it)
Postings = tuple[float, tuple[int, ...], tuple[int, ...]]

SCHEMA = 1
SKILL_FILE = "SKILL.md"
MAX_SUGGESTIONS = 3
MIN_SCORE = 7.0  # absolute idf-sum floor (the seed: 3.0 let one common word clear it)
MIN_HITS = 2  # a skill must match at least two distinct prompt terms
REL_GAP = 0.5  # drop results scoring under half the top score
NAME_BOOST = 2.5  # a hit in the skill's name outweighs one in its description
MIN_LENGTH = 3
MAX_PROMPT = 2000  # characters of a prompt that are read (a pasted log is not a request), as pointers.py

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

# bytes.translate's table: [0-9] and [a-z] stay, every other byte becomes a space (text
# was lower-cased, and each non-ASCII character replaced by "?", before).
_SPACES = b" " * 48 + b"0123456789" + b" " * 39 + b"abcdefghijklmnopqrstuvwxyz" + b" " * 133


def tokenize(text: str) -> list[str]:
    """re.findall(r"[a-z0-9]+", text.lower()), without re, minus short words and STOPWORDS."""
    data = text.lower().encode("ascii", "replace").translate(_SPACES)
    return [w for w in data.decode("ascii").split() if len(w) >= MIN_LENGTH and w not in STOPWORDS]


# --- the cache (written by skill_build.py) ------------------------------------------

def load(path: str) -> dict[str, object] | None:
    """The cached index at `path`, or None when there is none or it cannot be read."""
    try:
        with open(path, "rb") as f:
            index = marshal.loads(f.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return index if _well_formed(index) else None


def _well_formed(index: object) -> bool:
    """The shape build() writes, as far as fresh() takes it apart: every watch entry a
    (path, stamp) pair with a str path. 400 entries cost ~18 us, a few percent of their stats;
    what score() reads (the shards) is checked as it is read (skills.suggestions)."""
    if not isinstance(index, dict) or index.get("schema") != SCHEMA:
        return False
    watch = index.get("watch")
    if not (isinstance(watch, list) and isinstance(index.get("names"), list) and isinstance(index.get("shards"), dict)):
        return False
    try:
        return {type(path) for path, _stamp in watch} <= {str}
    except (TypeError, ValueError):  # an entry that is not a pair
        return False


RECHECK_NS = 5 * 10**9  # how often a prompt also stats every SKILL.md (folders: every prompt)


def fresh(index: dict[str, object], key: tuple[str, ...], files_checked_ns: int | None = None,
          now_ns: int = 0) -> bool:
    """Whether `index` was built for `key` and nothing it watches has changed since.

    Folders and settings files are checked every time (a skill added, removed or
    renamed, a plugin enabled); the SKILL.md files themselves (an edited description)
    only when `files_checked_ns`, the last time they were, is RECHECK_NS old: with 200
    skills their stats were a third of the hint's cost.
    """
    watch = index["watch"]
    assert isinstance(watch, list)
    if index.get("key") != key:
        return False
    files = files_checked_ns is None or now_ns - files_checked_ns >= RECHECK_NS
    for path, was in watch:
        if not files and path.endswith(SKILL_FILE):
            continue
        if stamp(path) != was:
            return False
    return True


def stamp(path: str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


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
