"""Session file names: `YYYY-MM-DD-<slug>.md`, slug rules from Elephants Never Forget.

[a-z0-9-] only, 2-5 words, at most 40 chars, non-ASCII folded to ASCII where it
has an ASCII form and dropped otherwise; a same-day collision gets
`-<first 4 of the session id>`.
"""

from __future__ import annotations

import re
from collections.abc import Container

MAX_SLUG = 40
MAX_WORDS = 5
_STOP = {"a", "an", "the", "to", "of", "and", "for", "in", "on", "with", "please", "can", "you", "i", "we"}
# Latin letters NFKD does not decompose; without this "Straße" would become "strae".
_FOLD = str.maketrans({"ß": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o", "ł": "l",
                       "Ł": "l", "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ı": "i"})
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # fullmatch: `\d` and `$` would let "…\n" through


def slugify(text: str) -> str:
    """2-5 meaningful words of `text`, kebab-case, <= 40 chars; 'session' pads a lone word."""
    import unicodedata  # only a rename hint needs it: model imports this module on every commit

    ascii_text = unicodedata.normalize("NFKD", text.translate(_FOLD)).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    words = ([w for w in words if w not in _STOP] or words)[:MAX_WORDS] or ["session"]
    if len(words) == 1:
        words.append("session" if words[0] != "session" else "notes")
    first, second = words[0], words[1]
    if len(first) + 1 + len(second) > MAX_SLUG:
        # Two words always: shorten them to share the 40 chars rather than drop one
        # or cut the second to a stub ("…-sessi").
        second = second[: max(MAX_SLUG // 2 - 1, MAX_SLUG - 1 - len(first))]
        first = first[: MAX_SLUG - 1 - len(second)]
    picked = [first, second]
    for word in words[2:]:
        if len("-".join(picked + [word])) > MAX_SLUG:
            break
        picked.append(word)
    return "-".join(picked)


def session_filename(date: str, text: str, session_id: str, taken: Container[str]) -> str:
    """`YYYY-MM-DD-<slug>.md`, suffixed with the id's first 4 chars if the name is taken."""
    if not _DATE.fullmatch(date):
        raise ValueError(f"date must be YYYY-MM-DD, not {date!r}")  # it becomes a path
    name = f"{date}-{slugify(text)}.md"
    if name in taken:
        name = f"{name[:-3]}-{re.sub(r'[^a-z0-9]', '', session_id.lower())[:4] or 'x'}.md"
    return name


_NAME = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})-([a-z0-9]+(?:-[a-z0-9]+)*)")
COLLISION_SUFFIX = 5  # "-xxxx": the first 4 characters of the session id


def name_problem(stem: str) -> str | None:
    """Why a session file's name (without `.md`) breaks the rules above, or None."""
    m = _NAME.fullmatch(stem)
    if m is None:
        return "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"
    slug = m.group(2)
    if len(slug) > MAX_SLUG + COLLISION_SUFFIX:
        return f"slug is {len(slug)} chars; keep it to {MAX_SLUG}"
    return None


def is_date(text: str) -> bool:
    """`text` has the YYYY-MM-DD shape a session file name starts with."""
    return _DATE.fullmatch(text) is not None


def suggested_name(stem: str, fallback_date: str, session_id: str = "", taken: Container[str] = ()) -> str:
    """A name that follows the rules for a file called `stem`: its date (or
    `fallback_date`) and a slug made of the rest, suffixed when `taken` has it."""
    date = stem[:10] if _DATE.fullmatch(stem[:10]) else fallback_date
    rest = stem[10:] if date == stem[:10] else stem
    return session_filename(date, rest.replace("_", " ").replace("-", " "), session_id, taken)[:-3]
