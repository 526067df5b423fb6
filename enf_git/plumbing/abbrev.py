"""Abbreviations that memory defines itself: "Elasticsearch (ES)", "ECR (Elastic Container Registry)".

A session that writes "Elasticsearch (ES)" once and "ES" afterwards, and another that
only ever says "Elasticsearch", are about one thing; a question may use either name.
Recall learns each pair from the indexed text (indexer.py stores them, search.py
searches a query's short form as its long form too, and the long form as the short),
never from a word list: only what the sessions themselves define is expanded.

A definition is a long form followed by its short form in parentheses, or a short form
followed by its long form in parentheses. Which words make the long form is decided as
Schwartz and Hearst do ("A simple algorithm for identifying abbreviation definitions in
biomedical text", 2003): the short form's characters are found right to left in the
words before it, the first one at the start of a word, and the long form starts at that
word; at most min(len + 5, 2 * len) words are looked at. "HTTPS (SSH to GitHub, say)"
and "the server (Unauthorized)" define nothing.

Stdlib only, and no `from __future__` import: the per-prompt pointers path (pointers.py)
builds its concepts with this module too. `re` is imported by pairs(), which only the
indexer calls.
"""

from . import stem

_PAREN = None  # re.compile(...).finditer, once re is imported


def pairs(text: str) -> list[tuple[str, str]]:
    """(short form, long form) for each abbreviation `text` defines, as written, in order."""
    out: list[tuple[str, str]] = []
    for written, inside in _definitions(text):
        before = written.split()
        inside = inside.strip()
        if not before:
            continue
        if is_short(inside):  # "Elasticsearch (ES)"
            words = before[-min(len(inside) + 5, 2 * len(inside)):]
            long = long_form(inside, " ".join(words))
            if long:
                out.append((inside, long))
        elif is_short(before[-1].strip(",.;:")) and len(inside.split()) <= 2 * len(before[-1]):  # "ES (Elasticsearch)"
            short = before[-1].strip(",.;:")
            long = long_form(short, inside)
            if long and long == inside.split(",")[0].strip():
                out.append((short, long))
    return out


def _definitions(text: str) -> list[tuple[str, str]]:
    """(the words before, the text inside) for each "words (inside)" of `text`: the inside
    one line of at most 80 characters without parentheses, the words the rest of the line
    before "(" after any parenthesis (spaces, even a line break, may come between).

    Found from each parenthesis back, not by a pattern that begins with the words: one
    that did tried every character of a line without "(" as a start and scanned on to the
    line's end (quadratic in the line, ~2 ms a session, most of a cold index build).
    """
    global _PAREN
    if "(" not in text:
        return []
    if _PAREN is None:
        import re

        _PAREN = re.compile(r"\(([^()\n]{1,80})\)").finditer
    out = []
    for m in _PAREN(text):
        end = m.start()
        while end and text[end - 1].isspace():
            end -= 1
        begin = max(text.rfind("(", 0, end), text.rfind(")", 0, end), text.rfind("\n", 0, end)) + 1
        words = text[begin:end].lstrip()
        if words:
            out.append((words, m.group(1)))
    return out


def is_short(word: str) -> bool:
    """A candidate short form: one word of 2 to 10 characters, starting with a letter, with at
    least two capitals ("ES", "IdP", "SOPS"), not a number or a plain word."""
    return (2 <= len(word) <= 10 and word[0].isalpha() and " " not in word
            and sum(c.isupper() for c in word) >= 2 and all(c.isalnum() or c in "-&" for c in word))


def long_form(short: str, words: str) -> str | None:
    """The end of `words` that `short` abbreviates (Schwartz-Hearst), or None."""
    s = [c.lower() for c in short if c.isalnum()]
    text = words.rstrip(" ,;:")
    low = text.lower()
    i = len(low) - 1
    for k in range(len(s) - 1, -1, -1):
        c = s[k]
        while i >= 0 and (low[i] != c or (k == 0 and i > 0 and low[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
    start = low.rfind(" ", 0, i + 2) + 1
    long = text[start:].strip(" -")
    if len(long) <= len(short) or long.lower() == short.lower() or not any(c.isalpha() for c in long):
        return None
    return long


def analyzed(pair: tuple[str, str]) -> tuple[str, str] | None:
    """The pair as index terms: (the short form's one term, the long form's terms joined by
    spaces), or None when either side has no term or the short one has several."""
    short = stem.analyze(pair[0])
    long = stem.analyze(pair[1])
    if len(short) != 1 or not long or long == short:
        return None
    return short[0], " ".join(long)


def relevant(pairs: "list[tuple[str, str]] | tuple[tuple[str, str], ...]", q: list[str]) -> list[tuple[str, str]]:
    """The analyzed (short, long) pairs whose short form the query holds, or its whole long form in a row."""
    qset = set(q)
    return [(short, long) for short, long in pairs if short in qset or contains(q, long.split())]


def contains(terms: list[str], parts: list[str]) -> bool:
    """Whether `parts` occur in `terms` in a row."""
    n = len(parts)
    return any(terms[i:i + n] == parts for i in range(len(terms) - n + 1))


def concepts(terms: list[str], synonyms: "dict[str, tuple[str, ...]]",
             pairs: "list[tuple[str, str]]") -> "list[tuple[str, ...]]":
    """Each term with its synonyms and the abbreviations memory defines: one concept each.

    Two terms of one synonym group are one concept ("login sso" asks one thing twice). A
    short form in the query also matches its long form, a member with spaces whose terms a
    row must all hold ("elast kubernet servic"); a long form in the query, its terms in a
    row as the definition writes them, is one concept with its short form.
    """
    out: dict[frozenset[str], tuple[str, ...]] = {}
    longs: dict[str, list[str]] = {}  # short -> long forms
    joined: dict[str, str] = {}  # a long form of several terms in the query -> its short form
    for short, long in pairs:
        longs.setdefault(short, []).append(long)
        parts = long.split()
        if len(parts) > 1 and contains(terms, parts):
            joined[long] = short
    inside = {t for long in joined for t in long.split()}
    for term in terms:
        if term in inside:
            continue  # scored as its long form, below
        members = tuple(dict.fromkeys((term, *synonyms.get(term, ()), *longs.get(term, ()),
                                       *(s for s, l in pairs if l == term))))
        out.setdefault(frozenset(members), members)
    for long, short in joined.items():
        members = (long, short, *(other for other in longs.get(short, ()) if other != long))
        out.setdefault(frozenset(members), members)
    return list(out.values())


def frequency(tf: "dict[str, float]", member: str) -> float:
    """A concept member's weighted frequency in a row; a long form's ("elast kubernet servic")
    is that of its scarcest term, as a row holds the name at most that often."""
    if " " not in member:
        return tf.get(member, 0.0)
    return min(tf.get(t, 0.0) for t in member.split())
