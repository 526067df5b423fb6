"""Redaction before anything is written to the event log or committed (invariant 7).

The text is cut into tokens at separators (spaces, quotes, brackets, `,;|`); a
token keeps `=`, `:`, `/`, `.`, so `KEY=value`, URLs and paths stay whole. Then:

- `<private>…</private>` spans and PEM private-key blocks are dropped whole;
- a token with a secret's own shape is masked: a provider prefix (`ghp_`, `sk-`,
  `AKIA`…), a JWT, a long random string (mixed classes, high entropy, no words);
- in a URL: the password, a token used as the user, webhook paths, `sig=`-style
  query values;
- a value is masked by its context: after a secret-named key (`password: x`,
  `"token": "x"`, `SECRET_KEY = '…'`, `--api-key x`), after `curl -u user:`,
  `Bearer` / `Basic`, `the password is x`, and a long hex string a few words after
  "secret" / "key" / "token";
- and left alone when that value is code or a placeholder: `request.form[…]`,
  `os.environ…`, `get_token()`, `${DB_PASSWORD}`, `$X`, `None`, `********`.

Digests (`sha256:…`, SRI `sha384-…`), git SHAs, UUIDs, paths and CamelCase
identifiers are not secrets. Used on the per-tool-call hook path, so it avoids
`re` (whose import costs more than the whole hook): plain string scanning, and `math`
(a shared library to load) only for a token that may be random.
"""

MASK = "[REDACTED]"
Span = tuple[int, int]

PREFIXES = (
    "AKIA", "ASIA",  # AWS access key ids
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",  # GitHub
    "glpat-", "glptt-", "gldt-", "glrt-",  # GitLab
    "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxe-", "xoxs-", "xapp-",  # Slack
    "sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "whsec_",  # OpenAI/Anthropic, Stripe
    "AIza", "ya29.", "npm_", "pypi-", "hf_", "SG.", "dop_v1_", "doo_v1_", "dor_v1_",
    "shpat_", "shpss_", "shpca_", "sq0atp-", "sq0csp-", "key-",  # Shopify, Square, Mailgun
)
DIGESTS = ("sha1:", "sha256:", "sha384:", "sha512:", "md5:", "sha256-", "sha384-", "sha512-")
# Names whose value is a secret; matched as a suffix, so `DB_PASSWORD` and `csrftoken` count.
KEYS = ("password", "passwd", "pwd", "passphrase", "secret", "token", "api_key", "apikey", "access_key",
        "private_key", "secret_key", "secretkey", "accountkey", "sharedaccesskey", "signing_key")
INLINE_KEYS = KEYS + ("auth",)  # `--auth=…` in one token; `auth:` alone is too often prose or YAML
QUERY_KEYS = ("sig", "signature", "key", "access_token", "x-amz-signature", "x-amz-security-token")
NAMING_WORDS = ("secret", "token", "key", "password", "passphrase", "hmac", "credential", "credentials")
PLACEHOLDERS = ("changeme", "pass", "password", "passwd", "secret", "token", "example", "redacted",
                "none", "null", "nil", "true", "false", "undefined", "~")
SEPARATORS = " \t\n\r\"'`,;()[]{}<>|"
SPACING = " \t\"'`"  # may sit between a key, its `:` and its value
QUOTES = "\"'`"
VALUE_STOPS = " \t\n\r\"'`,;[]{}<>|"  # a value runs through `(` `)`: Django keys contain them
USER_FLAGS = ("-u", "--user", "--proxy-user")
KEY_ENDINGS = "dtnyDTNYeEhH:="  # last characters of KEYS (and of `key:` / `key=`): a cheap filter
B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
HEX = frozenset("0123456789abcdefABCDEF")
MIN_RANDOM = 24


def redact(text: str) -> str:
    return redact_count(text)[0]


def redact_count(text: str) -> tuple[str, int]:
    """The redacted text and how many spans were masked or dropped."""
    if not text:
        return text, 0
    text, private = _drop_private(text)
    text, blocks = _drop_key_blocks(text)
    spans = _find_spans(text)
    return _apply(text, spans), private + blocks + len(spans)


def spans_in_bytes(data: bytes) -> int:
    """How many spans of `data` look like secrets, whatever its encoding: UTF-8, else
    Latin-1 (which maps every byte to a character, so an ASCII key inside a Latin-1 note
    or a binary file is still seen). For reporting only: such bytes are never rewritten."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    clean, spans = redact_count(text)
    return max(1, spans) if clean != text else 0


def _drop_private(text: str) -> tuple[str, int]:
    out, pos, count = [], 0, 0
    lower = text.lower()
    while True:
        start = lower.find("<private>", pos)
        if start < 0:
            out.append(text[pos:])
            return "".join(out), count
        count += 1
        end = lower.find("</private>", start)
        out.append(text[pos:start])
        if end < 0:
            return "".join(out), count  # unclosed: drop to the end rather than leak
        pos = end + len("</private>")


def _drop_key_blocks(text: str) -> tuple[str, int]:
    """PEM private keys, whole. A public block (a certificate) before one is skipped, not a stop."""
    pos, count = 0, 0
    while True:
        start = text.find("-----BEGIN ", pos)
        if start < 0:
            return text, count
        header_end = text.find("-----", start + 11)
        if header_end < 0 or "PRIVATE KEY" not in text[start:header_end]:
            pos = start + 11
            continue
        end = text.find("-----END ", header_end)
        close = text.find("-----", end + 9) if end >= 0 else -1
        stop = close + 5 if close >= 0 else len(text)  # unclosed: drop to the end rather than leak
        text = text[:start] + MASK + text[stop:]
        pos, count = start + len(MASK), count + 1


def _apply(text: str, spans: list[Span]) -> str:
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out += (text[pos:start], MASK)
        pos = end
    out.append(text[pos:])
    return "".join(out)


# --- finding spans ------------------------------------------------------------------

def _tokens(text: str) -> list[Span]:
    # One split on a translated copy, rather than a Python loop over every character.
    toks, pos = [], 0
    for part in text.translate(_TO_SPACE).split(" "):
        if part:
            toks.append((pos, pos + len(part)))
        pos += len(part) + 1
    return toks


_TO_SPACE = str.maketrans({ch: " " for ch in SEPARATORS})


def _find_spans(text: str) -> list[Span]:
    """Sorted, disjoint spans to mask. A span may run past its token (a quoted Django key
    holds `(`), so tokens that start inside the last span are skipped."""
    toks = _tokens(text)
    spans: list[Span] = []
    covered = 0
    for i, (s, e) in enumerate(toks):
        if s < covered or (text[s] in "sSmM" and text[s:s + 7].lower().startswith(DIGESTS)):
            continue
        found = _by_context(text, toks, i) if i and _maybe_context(text, toks, i) else None
        for span in [found] if found else _by_shape(text, s, e) if e - s >= 8 else []:
            spans.append(span)
            covered = span[1]
    return spans


def _maybe_context(text: str, toks: list[Span], i: int) -> bool:
    """A cheap filter, since this runs for every token of every tool call: the previous
    token can only be a key (`…:` `…=`), a flag (`-…`), `is`/`was`, `Basic`/`Bearer`;
    or this token is long enough for the hex-near-a-name rule."""
    ps, pe = toks[i - 1]
    if text[pe - 1] in ":=" or text[ps] == "-" or toks[i][1] - toks[i][0] >= 32:
        return True
    return pe - ps in (2, 3, 5, 6) and text[ps:pe].lower() in ("is", "was", "basic", "bearer")


def _by_context(text: str, toks: list[Span], i: int) -> Span | None:
    """A value masked for what precedes it, or None."""
    s, _ = toks[i]
    ps, pe = toks[i - 1]
    prev, gap = text[ps:pe], text[pe:s]
    if not _spacing(gap):
        return _named_nearby(text, toks, i)
    quote = gap[-1] if gap[-1] in QUOTES else ""
    key = _key_before(text, toks, i)
    if key is not None or (prev.startswith("-") and "=" not in prev and _is_key(prev, KEYS)):  # `--token x`
        return _value(text, s, quote, key or prev, prose=True)
    if prev in USER_FLAGS:  # curl -u user:password
        colon = text.find(":", s, toks[i][1])
        return _value(text, colon + 1, "", "", prose=False) if colon > 0 else None
    low = prev.lower()
    if low in ("bearer", "basic") and "\n" not in gap:
        return _credential(text, s, 12)
    if low in ("is", "was") and i >= 2 and _is_key(text[toks[i - 2][0]:toks[i - 2][1]], KEYS):
        return _credential(text, s, 6)  # "the password is hunter2"
    return _named_nearby(text, toks, i)


def _key_before(text: str, toks: list[Span], i: int) -> str | None:
    """The secret-named key of `key: value`, `key=value`, `key = value`, `"key": "value"`."""
    ps, pe = toks[i - 1]
    prev = text[ps:pe]
    if prev[-1] not in ":=":
        return None
    if len(prev) > 1 and prev[-2] in KEY_ENDINGS and _is_key(prev[:-1], KEYS):
        return prev[:-1]
    if prev in (":", "=", ":=", "=>") and i >= 2:
        ks, ke = toks[i - 2]
        if _spacing(text[ke:ps]) and _is_key(text[ks:ke], KEYS):
            return text[ks:ke]
    return None


def _named_nearby(text: str, toks: list[Span], i: int) -> Span | None:
    """A long hex string a few words after "secret" / "key" / "token" on the same line
    ("the signing secret is 3f9a…"): hex alone is a git SHA, so it needs the name."""
    s, e = toks[i]
    if e - s < 32 or not _hexish(text[s:e]):
        return None
    for j in range(i - 1, max(i - 4, -1), -1):
        if "\n" in text[toks[j][1]:toks[j + 1][0]]:
            return None
        word = text[toks[j][0]:toks[j][1]].lower().rstrip(":=,.")
        if word in NAMING_WORDS or _is_key(word, KEYS):
            return s, e
    return None


def _by_shape(text: str, s: int, e: int) -> list[Span]:
    """Spans inside one token that are secrets by their own shape."""
    tok = text[s:e]
    if "://" in tok and _scheme(tok):
        return _url(text, s, e)
    if _secret_shape(tok):
        return [(s, e)]
    sep = tok.find("=")
    if sep < 0:
        sep = tok.find(":")
    if sep <= 0 or sep == len(tok) - 1 or tok[sep + 1] == ":":
        return []  # `jsonwebtoken::errors` is a path in code, not `key:value`
    if _is_key(tok[:sep], INLINE_KEYS):
        found = _value(text, s + sep + 1, "", tok[:sep], prose=False)
        return [found] if found else []
    return [(s + sep + 1, e)] if _secret_shape(tok[sep + 1:]) else []


def _scheme(tok: str) -> bool:
    """`postgres://`, `mongodb+srv://`, `jdbc:mysql://`, also after `DATABASE_URL=`: a real scheme, not a
    `://` somewhere inside pasted noise (whose other parts must still be checked)."""
    scheme = tok[:tok.find("://")].rpartition("=")[2]
    return bool(scheme) and all(c.isalnum() or c in "+.-:" for c in scheme)  # `jdbc:postgresql:`


def _url(text: str, s: int, e: int) -> list[Span]:
    """scheme://user:password@host, scheme://TOKEN@host, webhook paths, secret query values."""
    tok = text[s:e]
    base = tok.find("://") + 3
    rest = tok[base:]
    spans = []
    at = rest.find("@")
    if at > 0 and "/" not in rest[:at]:
        creds = rest[:at]
        colon = creds.find(":")
        if colon >= 0 and colon < at - 1 and not _placeholder(creds[colon + 1:]):
            spans.append((s + base + colon + 1, s + base + at))
        elif colon < 0 and _secret_shape(creds):
            spans.append((s + base, s + base + at))
    query = tok.find("?")
    path_end = query if query >= 0 else len(tok)
    if "hooks.slack.com/services/" in tok or "/api/webhooks/" in tok:
        last = tok.rfind("/", 0, path_end) + 1
        if path_end - last >= 16:
            spans.append((s + last, s + path_end))
    if query >= 0:
        spans += _query(tok, query + 1, s)
    return sorted(spans)


def _query(tok: str, pos: int, offset: int) -> list[Span]:
    spans = []
    for param in tok[pos:].split("&"):
        key, eq, value = param.partition("=")
        start = pos + len(key) + 1
        pos += len(param) + 1
        if eq and value and (key.lower() in QUERY_KEYS or _is_key(key, KEYS)) and not _placeholder(value):
            spans.append((offset + start, offset + start + len(value)))
    return spans


# --- values after a key ---------------------------------------------------------------

def _value(text: str, start: int, quote: str, key: str, prose: bool) -> Span | None:
    """The span of a value written after a secret-named key; None for code and placeholders.
    `prose`: the key stood apart (`password: see below`), so a short plain word is prose."""
    if quote:
        close, newline = text.find(quote, start), text.find("\n", start)
        if close > start and (newline < 0 or close < newline):
            return None if _placeholder(text[start:close]) else (start, close)
    end = _value_end(text, start)
    value = text[start:end]
    if not value or _placeholder(value):
        return None
    if not _secret_shape(value) and _code(text, start, end, key):
        return None
    if prose and value.isalpha() and len(value) < 12:
        return None
    return start, end


def _credential(text: str, start: int, min_len: int) -> Span | None:
    """A value after `Bearer` / `Basic` / "password is": long enough, not a word, not code."""
    end = _value_end(text, start)
    value = text[start:end]
    if len(value) < min_len or value.isalpha() or value.isdigit() or _placeholder(value):
        return None
    return None if _code(text, start, end, "") and not _secret_shape(value) else (start, end)


def _value_end(text: str, start: int) -> int:
    end = start
    while end < len(text) and text[end] not in VALUE_STOPS:
        end += 1
    while end > start and text[end - 1] == ")" and text.count(")", start, end) > text.count("(", start, end):
        end -= 1  # `f(password=x)`: the call's parenthesis is not part of the value
    return end


def _placeholder(value: str) -> bool:
    """`${DB_PASSWORD}`, `$X`, `%s`, `<token>`, `{{ var }}`, `********`, `sk-...`, `None`."""
    return (not value or value[0] in "$%<{" or value.lower() in PLACEHOLDERS
            or set(value) <= set("*xX.") or value.endswith("..."))


def _code(text: str, start: int, end: int, key: str) -> bool:
    """A reference to a value rather than the value: `os.environ[…]`, `get_token()`,
    `settings.SECRET_KEY`, `env::var(…)`, `api_key=api_key`, a `&str` type."""
    value = text[start:end]
    if value[0] in "&*" and value[1:].isalpha():
        return True
    stop = start
    while stop < len(text) and (text[stop].isalnum() or text[stop] in "_.:"):
        stop += 1
    ident = text[start:stop]
    if not ident or not (ident[0].isalpha() or ident[0] == "_"):
        return False
    if stop < len(text) and text[stop] in "([":
        return True
    if ident == key.lstrip("-") or ident.lower() == key.lower().lstrip("-"):
        return True
    parts = ident.replace("::", ".").split(".")
    return stop == end and len(parts) > 1 and all(p.isidentifier() and not _random(p) for p in parts)


def _is_key(word: str, keys: tuple[str, ...]) -> bool:
    return len(word) >= 3 and word.lower().lstrip("-$@").replace("-", "_").endswith(keys)


def _spacing(gap: str) -> bool:
    return gap == " " or (bool(gap) and all(ch in SPACING for ch in gap))


# --- shapes ---------------------------------------------------------------------------

def _secret_shape(tok: str) -> bool:
    """A provider token, a JWT, a Twilio SID/key, or a long random string."""
    if len(tok) < 16:
        return False
    if tok.startswith(PREFIXES):
        return _prefixed(tok)
    if tok.startswith("eyJ") and tok.count(".") == 2:
        return len(tok) >= 32
    if tok[:2] in ("AC", "SK") and len(tok) == 34 and all(c in HEX and not c.isupper() for c in tok[2:]):
        return True
    return _random(tok)


def _prefixed(tok: str) -> bool:
    """The part after the prefix looks generated: `npm_config_cache`, `hf_hub_download`,
    `sk-learn-…` and `key-value-store` do not."""
    prefix = next(p for p in PREFIXES if tok.startswith(p))
    rest = tok[len(prefix):]
    if prefix in ("AKIA", "ASIA"):
        return len(rest) == 16 and rest.isalnum() and rest.upper() == rest
    if prefix == "key-":
        return len(rest) >= 32 and all(c in HEX for c in rest)
    return any(c.isdigit() or c.isupper() for c in rest) and len(rest) >= 8


def _hexish(tok: str) -> bool:
    return all(c in HEX for c in tok) and any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok)


def _random(tok: str) -> bool:
    """Long, mixed-class, high-entropy, wordless: an API key, not a path, hostname, hex OID,
    UUID, CamelCase identifier or a typed object id (`ch_3Mml…`)."""
    if len(tok) < MIN_RANDOM or "\\" in tok or "." in tok.strip("."):
        return False  # Windows paths, hostnames, dotted identifiers
    if "/" in tok and not all(c in B64 for c in tok):
        return False  # a path; pure base64 with `/` is a key (AWS secret keys, Azure)
    if not (any(c.islower() for c in tok) and any(c.isupper() for c in tok) and any(c.isdigit() for c in tok)):
        return False
    if _object_id(tok) or _wordy(tok):
        return False
    counts: dict[str, int] = {}
    for c in tok:
        counts[c] = counts.get(c, 0) + 1
    import math

    n = len(tok)
    return -sum(k / n * math.log2(k / n) for k in counts.values()) >= 4.0


def _object_id(tok: str) -> bool:
    """`cus_…`, `ch_…`, `price_…`: a short lowercase type, one underscore, an id. Secret
    keys of this shape carry a known prefix (checked first) or a second underscore."""
    cut = tok.find("_")
    return 2 <= cut <= 6 and tok.count("_") == 1 and tok[:cut].isalpha() and tok[:cut].islower()


def _wordy(tok: str) -> bool:
    """Most characters sit in lowercase runs of 3+ (an optional capital first), and the
    character class changes less often than every other character: CamelCase words.
    A random base62 string has about 0.6 class changes per character and few such runs."""
    n, in_words, i = len(tok), 0, 0
    while i < n:
        j = i + 1 if tok[i].isupper() else i
        k = j
        while k < n and tok[k].islower():
            k += 1
        if k - j >= 3:
            in_words += k - i
        i = max(i + 1, k)
    changes = sum(1 for a, b in zip(tok, tok[1:]) if _cls(a) != _cls(b))
    return in_words >= n / 2 and changes < (n - 1) / 2


def _cls(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3
