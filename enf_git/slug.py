"""Session file names: `YYYY-MM-DD-<slug>.md`, slug rules from seed 000.

[a-z0-9-] only, 2-5 words, at most 40 chars, non-ASCII folded to ASCII where it
has an ASCII form and dropped otherwise; a same-day collision gets
`-<first 4 of the session id>`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container

MAX_SLUG = 40
MAX_WORDS = 5
_STOP = {"a", "an", "the", "to", "of", "and", "for", "in", "on", "with", "please", "can", "you", "i", "we"}


def slugify(text: str) -> str:
    """2-5 meaningful words of `text`, kebab-case, <= 40 chars; 'session' pads a lone word."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    meaningful = [w for w in words if w not in _STOP] or words
    picked: list[str] = []
    for word in meaningful[:MAX_WORDS]:
        candidate = "-".join(picked + [word[:MAX_SLUG]])
        if len(candidate) > MAX_SLUG:
            break
        picked.append(word[:MAX_SLUG])
    if not picked:
        picked = ["session"]
    if len(picked) == 1:
        picked.append("session" if picked[0] != "session" else "notes")
    return "-".join(picked)[:MAX_SLUG].strip("-")


def session_filename(date: str, text: str, session_id: str, taken: Container[str]) -> str:
    """`YYYY-MM-DD-<slug>.md`, suffixed with the id's first 4 chars if the name is taken."""
    name = f"{date}-{slugify(text)}.md"
    if name in taken:
        name = f"{name[:-3]}-{re.sub(r'[^a-z0-9]', '', session_id.lower())[:4] or 'x'}.md"
    return name
