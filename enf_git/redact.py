"""Redaction before anything is written to the event log or committed (invariant 7).

Three rules: `<private>…</private>` spans are dropped whole; tokens with a known
secret shape (cloud keys, API tokens, private key blocks, credentials in URLs,
`password=…` style assignments) are replaced; long random-looking tokens (high
Shannon entropy, mixed character classes) are replaced too.

Used on the per-tool-call hook path, so it avoids `re` (whose import costs more
than the whole hook): plain string scanning is enough for these shapes.
"""

from __future__ import annotations

import math

MASK = "[REDACTED]"
PREFIXES = (
    "AKIA", "ASIA",  # AWS access key ids
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",  # GitHub
    "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xapp-",  # GitLab, Slack
    "sk-", "sk_live_", "sk_test_", "rk_live_", "pk_live_",  # OpenAI/Anthropic, Stripe
    "AIza", "ya29.", "npm_", "pypi-", "hf_", "SG.", "dop_v1_",
)
ASSIGN_KEYS = ("password", "passwd", "secret", "token", "api_key", "apikey", "access_key", "private_key", "auth")
SEPARATORS = " \t\n\r\"'`,;()[]{}<>|"
MIN_RANDOM = 24


def redact(text: str) -> str:
    if not text:
        return text
    text = _drop_private(text)
    text = _drop_key_blocks(text)
    return _scan_tokens(text)


def _drop_private(text: str) -> str:
    out, pos = [], 0
    lower = text.lower()
    while True:
        start = lower.find("<private>", pos)
        if start < 0:
            out.append(text[pos:])
            return "".join(out)
        end = lower.find("</private>", start)
        out.append(text[pos:start])
        if end < 0:
            return "".join(out)  # unclosed: drop to the end rather than leak
        pos = end + len("</private>")


def _drop_key_blocks(text: str) -> str:
    while True:
        start = text.find("-----BEGIN ")
        if start < 0 or "PRIVATE KEY" not in text[start : start + 80]:
            return text
        end = text.find("-----END ", start)
        stop = text.find("-----", end + 9) + 5 if end >= 0 else len(text)
        text = text[:start] + MASK + text[max(stop, start + 1):]


def _scan_tokens(text: str) -> str:
    """Every run of non-separator characters through _token, separators kept; and a
    value written apart from its key (`password: hunter2`, `"token": "abc"`,
    `DB_PASSWORD = s3cret`) masked as if it were `key=value`."""
    out: list[str] = []
    token: list[str] = []
    state = 0  # 0 idle, 1 after a secret key, 2 after its `:` or `=`: its value is next
    quoted = False  # the separator just before this token was a quote
    for ch in text:
        if ch in SEPARATORS:
            if token:
                tok = "".join(token)
                token = []
                out.append(_carried(tok, state, quoted) if state else _token(tok))
                # A cheap filter first: every secret key ends in one of these letters.
                state = _next_state(tok, state) if state == 1 or tok[-1] in KEY_ENDINGS else 0
            if state and ch not in SPACING:
                state = 0  # `,` `;` `(` a newline...: the pair is over
            quoted = ch in QUOTES
            out.append(ch)
        else:
            token.append(ch)
    if token:
        tok = "".join(token)
        out.append(_carried(tok, state, quoted) if state else _token(tok))
    return "".join(out)


def _carried(tok: str, state: int, quoted: bool) -> str:
    """A token that follows a secret key (state 1) or its `:`/`=` (state 2)."""
    if state == 2:
        return MASK if quoted or not tok.isalpha() or len(tok) >= 12 else tok
    return tok if tok in (":", "=") else _token(tok)


def _next_state(tok: str, state: int) -> int:
    if state == 1 and tok in (":", "="):
        return 2
    if len(tok) < 3:
        return 0
    if _is_secret_key(tok):
        return 1
    if tok[-1] in ":=" and _is_secret_key(tok[:-1]):
        return 2
    return 0


SPACING = " \t\"'`"  # may sit between a key, its `:` and its value
QUOTES = "\"'`"
KEY_ENDINGS = "dtnyDTNY:="  # last characters of CARRY_KEYS, and of `key:` / `key=`
CARRY_KEYS = ("password", "passwd", "pwd", "secret", "token", "api_key", "apikey", "access_key", "private_key")


def _is_secret_key(tok: str) -> bool:
    return tok.lower().lstrip("-").replace("-", "_").endswith(CARRY_KEYS)


def _token(tok: str) -> str:
    if len(tok) < 8:
        return tok
    key, sep, value = tok.partition("=")
    if not sep:
        key, sep, value = tok.partition(":")
        if sep and value.startswith("//"):
            return _url(tok)
    if sep and value and key.lower().lstrip("-").replace("-", "_").endswith(ASSIGN_KEYS):
        return f"{key}{sep}{MASK}"
    if tok.startswith(PREFIXES) and len(tok) >= 16:
        return MASK
    if sep and len(value) >= MIN_RANDOM and _random(value):
        return f"{key}{sep}{MASK}"
    return MASK if len(tok) >= MIN_RANDOM and _random(tok) else tok


def _url(tok: str) -> str:
    """scheme://user:password@host → scheme://user:[REDACTED]@host"""
    scheme, _, rest = tok.partition("://")
    creds, at, host = rest.partition("@")
    if not at or ":" not in creds or "/" in creds:
        return tok
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:{MASK}@{host}"


def _random(tok: str) -> bool:
    """Long, mixed-class, high-entropy: an API key, not a word, path, hex OID or UUID."""
    if "/" in tok or "." in tok.strip("."):
        return False  # paths, hostnames, dotted identifiers
    classes = sum((any(c.islower() for c in tok), any(c.isupper() for c in tok), any(c.isdigit() for c in tok)))
    if classes < 3:
        return False
    counts: dict[str, int] = {}
    for c in tok:
        counts[c] = counts.get(c, 0) + 1
    n = len(tok)
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return entropy >= 4.0
