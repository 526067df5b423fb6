"""English analysis for recall: tokens, stopwords, and the Porter2 (Snowball English) stemmer.

Standard library only, and nothing imported at all: the warm `git enf recall` path
(entry.py) and the per-prompt brain-first hook (pointers.py) stem the query with this
module, and the index (indexer.py) stems the documents with the same code, so both
sides agree on every term. `re` (~4 ms to import) is loaded on first use; the
per-prompt hook asks for a character scan instead (`scan=True`), which finds the same
words (a test compares them) and is fast enough for a prompt, not for a corpus.

The stemmer follows the Snowball English algorithm as libstemmer 2.2 ships it
(https://snowballstem.org/algorithms/english/stemmer.html); tests compare it with
a table of that reference's output.
"""

# A word: letters/digits, then letters/digits/dots/hyphens/apostrophes ("node.js",
# "psr-16", "couldn't"); a trailing "." "-" or "'" is punctuation, not part of the word
# ("Jenkins." is "jenkins").
_WORD_PATTERN = r"[\w][\w.'\u2019-]*"
_INNER = frozenset(".'\u2019-")
_FINDALL = None  # re.compile(_WORD_PATTERN).findall, once re is imported
# English clitics: "the team's", "we're", "they've", "it'll", "we'd", "I'm" are the word
# before the apostrophe; "couldn't" is "not" (negations are kept, see STOPWORDS). Split
# at the apostrophe instead, "couldn" and "t" were terms no document meant.
_CLITICS = frozenset(("s", "re", "ve", "ll", "d", "m"))

# English function words: articles, pronouns, auxiliaries, prepositions, conjunctions,
# question words ("how do we…" carries no topic). This is the Snowball English stop
# list without its determiners and quantifiers ("each", "own", "same", "other", "only",
# "all", "more"…: "its own pair of clusters", "one cluster for every environment" are
# about exactly that) and without its negations ("no", "not", "nor", "against").
STOPWORDS = frozenset("""
a about above after am an and are as at be because been before being below between but by can could did
do does doing down during for from had has have having he her here hers herself him himself his how i
if in into is it its itself just me my myself of on or ought our ours ourselves out over shall she
should so than that the their theirs them themselves then there these they this those through to under
until up was we were what when where which while who whom why will with would you your yours yourself
yourselves
""".split())


# The frame of a question about whether a decision still holds: "do we still use X?",
# "are we still on X?", "why did we drop X?", "why did we move away from X?". These words
# ask about X's standing; they are not X. In a memory that never wrote "still" or
# "drop", they were its rarest terms: the question was called weak (unseen words
# carried most of its weight) and a session that happened to say "still" ranked first.
# They count for nothing in the weak rule, and in the ranking never weigh more than the
# question's heaviest topic word (search.py, pointers.py). Dropped outright, "why did the
# service stop having its own Redis" lost the "stop" its answer was written with; and
# "keep" and "switch" are not here: "why does the server still keep its own database",
# "why is the firewall only switched on for some routers" are about keeping, switching.
# Stems, as analyze() makes them (a test checks each against stem()).
STATUS_MARKERS = frozenset(("still", "anymor", "nowaday", "current", "longer", "away", "rid"))
CHANGE_VERBS = frozenset(("drop", "stop", "ditch", "abandon", "remov", "quit", "retir", "leav", "left",
                          "replac"))
FRAME_VERBS = CHANGE_VERBS | frozenset(("use", "run", "move", "get", "reli"))
_QUESTION_OPENERS = frozenset(("do", "does", "did", "are", "is", "was", "were", "why", "when", "have", "has",
                               "can", "should"))


def frame(text: str, terms: list[str], scan: bool = False) -> frozenset[str]:
    """The terms of `terms` (analyze(text)) that are the frame of a status question, if `text` is one.

    A status question is a question (it opens with a question word or ends with "?")
    that holds a marker of standing ("still", "anymore", "no longer", "move away") or,
    opened by "why" or "when", a verb of giving something up ("drop", "stop",
    "remove"). Its frame is those words and the verbs of using ("use", "run", "keep");
    none when nothing else would be left ("do we still?"), or when it is no question:
    "use case exceptions" is about use cases.
    """
    raw = words(text, scan)
    if not raw or not (raw[0] in _QUESTION_OPENERS or text.rstrip().endswith("?")):
        return frozenset()
    held = set(terms)
    if not (held & STATUS_MARKERS or (raw[0] in ("why", "when") and held & CHANGE_VERBS)):
        return frozenset()
    found = frozenset(t for t in held if t in STATUS_MARKERS or t in FRAME_VERBS)
    return found if held - found else frozenset()


def words(text: str, scan: bool = False) -> list[str]:
    """The words of `text`, lower-cased, without trailing punctuation."""
    out = []
    for raw in (scan_words(text) if scan else _raw_words(text)):
        w = _word(raw)
        if w:
            out.append(w)
    return out


def _word(raw: str) -> str:
    """A token as a word: lower-cased, without trailing punctuation or an English clitic."""
    w = raw.replace("\u2019", "'").rstrip(".-'").lower()
    return _clitic(w) if "'" in w else w


def _raw_words(text: str) -> list[str]:
    """The matches of _WORD_PATTERN in `text`."""
    global _FINDALL
    if _FINDALL is None:
        import re

        _FINDALL = re.compile(_WORD_PATTERN).findall
    found: list[str] = _FINDALL(text)
    return found


def scan_words(text: str) -> list[str]:
    """re.findall(_WORD_PATTERN, text) without re: `\\w` is what str.isalnum() accepts, and "_"."""
    out = []
    start = -1
    for i, ch in enumerate(text):
        if ch.isalnum() or ch == "_":
            if start < 0:
                start = i
        elif start >= 0 and ch not in _INNER:
            out.append(text[start:i])
            start = -1
    if start >= 0:
        out.append(text[start:])
    return out


def _clitic(word: str) -> str:
    """`word` without its English clitic ("team's" -> "team", "don't" -> "not")."""
    head, _, tail = word.rpartition("'")
    if tail == "t" and head.endswith("n"):
        return "not"
    if tail in _CLITICS:
        return head
    return word.replace("'", "")  # "o'clock", "rock'n'roll": one word (the index's tokenizer splits at "'")


def analyze(text: str, *, parts: bool = False, scan: bool = False) -> list[str]:
    """Index terms of `text`: words minus stopwords, stemmed.

    With `parts`, a compound ("rich-text", "node.js") also yields its pieces, so a
    document that writes "rich-text" answers a query that says "rich text"; queries
    are analyzed without parts (their compounds match the document's compounds).
    """
    cache = _TERMS[1 if parts else 0]
    if len(cache) > _TERMS_MAX:
        cache.clear()
    out: list[str] = []
    for raw in (scan_words(text) if scan else _raw_words(text)):
        terms = cache.get(raw)
        if terms is None:
            terms = cache[raw] = _terms(raw, parts)
        out += terms
    return out


# The terms of each token as written, without and with parts: a corpus repeats its
# tokens, and looking one up costs a fifth of lower-casing, stopping and stemming it
# again (most of a cold index build). Bounded: a huge vocabulary starts it afresh.
_TERMS: tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]] = ({}, {})
_TERMS_MAX = 200_000


def joined_terms(data: bytes) -> str:
    """" ".join(analyze(data.decode("utf-8", "replace"), parts=True)), for the indexer.

    The regex scan of a document cost the index's cold build most of its analysis (~40 us
    a session of 1 KB at 100,000 sessions, its Python loop over the tokens another third):
    here C does both. Bytes outside ASCII's word characters and ".'-" become spaces
    (bytes.translate), bytes.split() cuts the runs between them, and each run is looked up
    (map, dict.__getitem__) in a table of its terms, already joined. A run the table lacks
    is decoded and scanned with the pattern (_Runs.__missing__): a run is cut at ASCII
    characters the pattern never crosses, so its matches are the pattern's matches in the
    whole text; what it holds beyond ASCII ("’", "é", "—") is the pattern's to judge, and
    an invalid byte decodes to U+FFFD there as in the whole text, which no word holds.
    """
    global _RUNS
    if _RUNS is None or len(_RUNS) > _TERMS_MAX:
        _RUNS = _Runs()
    return " ".join(filter(None, map(_RUNS.__getitem__, data.translate(_run_table()).split())))


class _Runs(dict[bytes, str]):
    """A run of bytes -> its terms with parts, joined by spaces ("" for none)."""

    def __missing__(self, run: bytes) -> str:
        terms = self[run] = " ".join(analyze(run.decode("utf-8", "replace"), parts=True))
        return terms


_RUNS: _Runs | None = None
_RUN_TABLE: bytes | None = None


def _run_table() -> bytes:
    global _RUN_TABLE
    if _RUN_TABLE is None:
        kept = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.'-")
        _RUN_TABLE = bytes(b if b in kept or b >= 0x80 else 0x20 for b in range(256))
    return _RUN_TABLE


def _terms(raw: str, parts: bool) -> tuple[str, ...]:
    """analyze() of one token."""
    w = _word(raw)
    if not w:
        return ()
    out = [] if w in STOPWORDS else [stem_compound(w)]
    if parts and ("-" in w or "." in w):
        out += pieces(w)
    return tuple(out)


def stem_compound(word: str) -> str:
    """The term of a word: its stem; a hyphenated compound is stemmed as one word.

    "password-less" is "passwordless" and "sign-in" "signin", the spellings of a
    writer who drops the hyphen; "hand-tuned" and "hand-tuning" are one term, as
    "tuned" and "tuning" are. A dotted name ("node.js") or one with digits ("psr-16")
    is kept as written.
    """
    if "-" not in word or "." in word:
        return stem(word)
    joined = word.replace("-", "")
    return stem(joined) if joined.isalpha() else word


def pieces(word: str) -> list[str]:
    """The pieces of a compound, stemmed ("rich-text" is also "rich" and "text")."""
    return [stem(p) for p in word.replace(".", "-").split("-") if p and p not in STOPWORDS]


# --- Porter2 ---------------------------------------------------------------------

_VOWELS = frozenset("aeiouy")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_LI_ENDING = frozenset("cdeghkmnrt")
_EXCEPTIONS = {
    "skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "idly": "idl",
    "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
    "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias",
    "andes": "andes",
}
_AFTER_1A = frozenset(("inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed"))
_STEP2 = (
    ("ization", "ize"), ("ational", "ate"), ("fulness", "ful"), ("ousness", "ous"), ("iveness", "ive"),
    ("tional", "tion"), ("biliti", "ble"), ("lessli", "less"), ("entli", "ent"), ("ation", "ate"),
    ("alism", "al"), ("aliti", "al"), ("ousli", "ous"), ("iviti", "ive"), ("fulli", "ful"), ("enci", "ence"),
    ("anci", "ance"), ("abli", "able"), ("izer", "ize"), ("ator", "ate"), ("alli", "al"), ("bli", "ble"),
    ("ogi", "og"), ("li", ""),
)
_STEP3 = (
    ("ational", "ate"), ("tional", "tion"), ("alize", "al"), ("icate", "ic"), ("iciti", "ic"), ("ative", ""),
    ("ical", "ic"), ("ness", ""), ("ful", ""),
)
_STEP4 = ("ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous", "ive",
          "ize", "ion", "al", "er", "ic")
_CACHE: dict[str, str] = {}


def stem(word: str) -> str:
    """The Porter2 stem of a lower-case word (memoized: documents repeat their words)."""
    out = _CACHE.get(word)
    if out is None:
        out = _CACHE[word] = _stem(word) if word.isalpha() else word
    return out


def _stem(w: str) -> str:
    if w in _EXCEPTIONS:
        return _EXCEPTIONS[w]
    if len(w) < 3:
        return w
    w = _prelude(w)
    r1, r2 = _regions(w)
    w = _step1a(w)
    if w in _AFTER_1A:
        return w
    w = _step1c(_step1b(w, r1))
    w = _step2(w, r1)
    w = _step3(w, r1, r2)
    w = _step4(w, r2)
    w = _step5(w, r1, r2)
    return w.replace("Y", "y")


def _prelude(w: str) -> str:
    w = w.lstrip("'")
    chars = list(w)
    for i, c in enumerate(chars):
        if c == "y" and (i == 0 or chars[i - 1] in _VOWELS):
            chars[i] = "Y"
    return "".join(chars)


def _regions(w: str) -> tuple[int, int]:
    for prefix in ("gener", "commun", "arsen"):
        if w.startswith(prefix):
            r1 = len(prefix)
            break
    else:
        r1 = _region_after(w, 0)
    return r1, _region_after(w, r1)


def _region_after(w: str, start: int) -> int:
    """The position after the first non-vowel that follows a vowel, from `start`."""
    for i in range(start + 1, len(w)):
        if w[i] not in _VOWELS and w[i - 1] in _VOWELS:
            return i + 1
    return len(w)


def _short_syllable_at_end(w: str) -> bool:
    n = len(w)
    if n >= 3:
        return w[-3] not in _VOWELS and w[-2] in _VOWELS and w[-1] not in _VOWELS and w[-1] not in "wxY"
    return n == 2 and w[0] in _VOWELS and w[1] not in _VOWELS


def _has_vowel(s: str) -> bool:
    return any(c in _VOWELS for c in s)


def _step1a(w: str) -> str:
    if w.endswith("'s'"):
        w = w[:-3]
    elif w.endswith("'s"):
        w = w[:-2]
    elif w.endswith("'"):
        w = w[:-1]
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith(("ied", "ies")):
        return w[:-2] if len(w) > 4 else w[:-1]
    if w.endswith(("us", "ss")):
        return w
    if w.endswith("s") and _has_vowel(w[:-2]):
        return w[:-1]
    return w


def _step1b(w: str, r1: int) -> str:
    for suffix in ("eedly", "eed"):
        if w.endswith(suffix):
            return w[: -len(suffix)] + "ee" if len(w) - len(suffix) >= r1 else w
    for suffix in ("ingly", "edly", "ing", "ed"):
        if w.endswith(suffix):
            base = w[: -len(suffix)]
            if not _has_vowel(base):
                return w
            if base.endswith(("at", "bl", "iz")):
                return base + "e"
            if base.endswith(_DOUBLES):
                return base[:-1]
            if r1 >= len(base) and _short_syllable_at_end(base):
                return base + "e"
            return base
    return w


def _step1c(w: str) -> str:
    if len(w) > 2 and w[-1] in "yY" and w[-2] not in _VOWELS:
        return w[:-1] + "i"
    return w


def _step2(w: str, r1: int) -> str:
    for suffix, repl in _STEP2:
        if w.endswith(suffix):
            base = w[: -len(suffix)]
            if len(base) < r1:
                return w
            if suffix == "ogi" and not base.endswith("l"):
                return w
            if suffix == "li" and (not base or base[-1] not in _LI_ENDING):
                return w
            return base + repl
    return w


def _step3(w: str, r1: int, r2: int) -> str:
    for suffix, repl in _STEP3:
        if w.endswith(suffix):
            base = w[: -len(suffix)]
            if len(base) < r1 or (suffix == "ative" and len(base) < r2):
                return w
            return base + repl
    return w


def _step4(w: str, r2: int) -> str:
    for suffix in _STEP4:
        if w.endswith(suffix):
            base = w[: -len(suffix)]
            if len(base) < r2:
                return w
            if suffix == "ion" and not base.endswith(("s", "t")):
                return w
            return base
    return w


def _step5(w: str, r1: int, r2: int) -> str:
    if w.endswith("e"):
        base = w[:-1]
        if len(base) >= r2 or (len(base) >= r1 and not _short_syllable_at_end(base)):
            return base
    elif w.endswith("l"):
        if len(w) - 1 >= r2 and w[-2:-1] == "l":
            return w[:-1]
    return w
