"""Who a memory commit is by, and when, decided the way git decides it.

git takes the author from GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL / GIT_AUTHOR_DATE, else from
`author.name` / `author.email`, else from `user.name` / `user.email` (and the email from
EMAIL after that); the committer likewise from GIT_COMMITTER_* and `committer.*`. CI jobs,
scripts and tools that commit on a person's behalf set those variables, so memory commits
read them too. `git -c user.name=…` reaches us through the config getter (store's
`config_value` reads git's command-line config).

The edge reads the variables (`from_environ`) and passes them down; this module only
decides. Dates are read in the formats git documents for them (git-commit(1), DATE
FORMATS): git's internal `<unix-time> <+zone>` (with or without `@`), RFC 2822 and ISO 8601;
a zone left out means the local one, as in git. A date in no such form is ignored (the
commit keeps its own clock) rather than failing a hook.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

ENV_KEYS = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
            "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "EMAIL")
Role = Literal["author", "committer"]
# git's strbuf_addstr_without_crud: these go at either end, and <, > and newlines anywhere.
_CRUD = ".,:;<>\"\\'" + "".join(map(chr, range(33)))  # and every control character or space
# Patterns, not compiled at import: few commits have a date set (re caches them on first use).
_RAW = r"@?(\d+)(?:\s+([+-])(\d\d)(\d\d))?"
_ISO = r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,]\d+)?)?\s*(Z|[+-]\d\d(?::?\d\d)?)?"


class Person(NamedTuple):
    name: str | None  # None: not given by the environment or config (the caller's fallback)
    email: str | None
    when: tuple[int, int] | None  # (unix time, UTC offset in minutes); None: the commit's clock


def from_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The identity variables of an environment (the edge's `os.environ`)."""
    return {key: environ[key] for key in ENV_KEYS if key in environ}


def person(role: Role, env: Mapping[str, str], config: Callable[[str], str | None]) -> Person:
    """The author or committer git would record under `env` and this config."""
    prefix = f"GIT_{role.upper()}_"
    name = _clean(env.get(prefix + "NAME")) or _clean(config(f"{role}.name")) or _clean(config("user.name"))
    email = (_clean(env.get(prefix + "EMAIL")) or _clean(config(f"{role}.email"))
             or _clean(config("user.email")) or _clean(env.get("EMAIL")))
    raw = env.get(prefix + "DATE")
    return Person(name, email, parse_date(raw) if raw else None)


def _clean(value: str | None) -> str | None:
    """`value` as git writes it in a commit header (crud trimmed, <, > and newlines gone)."""
    if value is None:
        return None
    trimmed = value.strip(_CRUD)
    out = "".join(ch for ch in trimmed if ch not in "<>\n")
    return out or None


def parse_date(text: str) -> tuple[int, int] | None:
    """(unix time, offset in minutes) of a date in a form git documents, else None."""
    text = text.strip()
    raw = re.fullmatch(_RAW, text)
    if raw:
        stamp = int(raw.group(1))
        if raw.group(2) is None:
            return stamp, _local_offset(stamp)
        minutes = int(raw.group(3)) * 60 + int(raw.group(4))
        return stamp, -minutes if raw.group(2) == "-" else minutes
    iso = re.fullmatch(_ISO, text, re.IGNORECASE)
    if iso:
        return _from_iso(iso)
    return _from_rfc2822(text)


def _from_rfc2822(text: str) -> tuple[int, int] | None:
    # email.utils and calendar load here, not at the top: every memory commit imports
    # this module (~5 ms for those two), and few have a date set in RFC 2822 form.
    import calendar
    from email.utils import parsedate_tz

    rfc = parsedate_tz(text)
    if rfc is not None and rfc[9] is not None:
        offset = rfc[9]
        return calendar.timegm(rfc[:6] + (0, 1, 0)) - offset, offset // 60
    return None


def _from_iso(match: re.Match[str]) -> tuple[int, int] | None:
    year, month, day, hour, minute = (int(match.group(n)) for n in range(1, 6))
    second = int(match.group(6) or 0)
    fields = (year, month, day, hour, minute, second)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    zone = match.group(7)
    if zone is None:  # local time, as git reads it
        stamp = int(time.mktime(fields + (0, 1, -1)))
        return stamp, _local_offset(stamp)
    if zone.upper() == "Z":
        offset = 0
    else:
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 60 + int(digits[2:4] or 0)
        offset = -offset if zone[0] == "-" else offset
    import calendar  # see _from_rfc2822

    return calendar.timegm(fields + (0, 1, 0)) - offset * 60, offset


def _local_offset(stamp: int) -> int:
    return time.localtime(stamp).tm_gmtoff // 60
