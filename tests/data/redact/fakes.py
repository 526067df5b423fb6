"""A deterministic corpus of FAKE secrets, each in its provider's real format, pasted
into session-note prose the way developers paste them; and the benign corpus.

Every value is generated from a seeded `random.Random`, so the corpus is the same
on every run and no real credential is ever stored in the repository (the random
parts carry FAKE/fake where the format allows a fixed run of letters). A case is
`(text, secrets)`: `secrets` are the parts that must not survive redaction (the
random part; a format's fixed prefix such as `sk_live_` is not the secret).

    python tests/data/redact/fakes.py          # print the corpus, for reading
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20260413
VARIANTS = 4  # cases per format, each with different random parts and prose

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
B62 = UPPER + LOWER + DIGITS
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEX = "0123456789abcdef"
DJANGO = LOWER + DIGITS + "!@#$%^&*(-_=+)"  # django.core.management.utils.get_random_secret_key

Case = tuple[str, list[str]]

PROSE = (
    "- Debugging the deploy: {x} was in the output, rotated it afterwards",
    "User pasted this into the chat by mistake: {x}",
    "## Errors & Fixes\n- CI failed with {x} in the env dump; moved it to the vault",
    "Note: the staging config had {x} (revoked 2026-04-12)",
    "{x}",
    "Reproduced with `{x}` and it worked, so the old one was stale",
)


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _with_all(rng: random.Random, alphabet: str, n: int, must: str) -> str:
    """n random characters that contain every character of `must` (AWS keys with `/` and `+`)."""
    chars = list(_r(rng, alphabet, n - len(must)) + must)
    rng.shuffle(chars)
    return "".join(chars)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _pw(rng: random.Random) -> str:
    return "Fake" + _r(rng, B62, 6) + rng.choice("!*~-") + _r(rng, B62, 5)


# --- one generator per format: (rng) -> (text as pasted, the secret parts) ----------

def aws_csv(rng: random.Random) -> Case:
    kid, key = "AKIAFAKE" + _r(rng, UPPER + "234567", 12), _with_all(rng, B64, 40, "/+/")
    return f"User name,Password,Access key ID,Secret access key\nfake-deployer,,{kid},{key}", [kid[4:], key]


def aws_env(rng: random.Random) -> Case:
    kid, key = "AKIAFAKE" + _r(rng, UPPER + "234567", 12), _with_all(rng, B64, 40, "/+")
    form = rng.choice(("AWS_ACCESS_KEY_ID={k}\nAWS_SECRET_ACCESS_KEY={s}",
                       "[default]\naws_access_key_id = {k}\naws_secret_access_key = {s}",
                       'export AWS_ACCESS_KEY_ID="{k}" AWS_SECRET_ACCESS_KEY="{s}"'))
    return form.format(k=kid, s=key), [kid[4:], key]


def aws_session(rng: random.Random) -> Case:
    kid = "ASIAFAKE" + _r(rng, UPPER + "234567", 12)
    return f"the temporary creds started with {kid}", [kid[4:]]


def github(rng: random.Random) -> Case:
    prefix = rng.choice(("ghp_", "gho_", "ghs_", "ghu_"))
    tok = "FAKE" + _r(rng, B62, 32)
    return f"GITHUB_TOKEN={prefix}{tok}" if rng.random() < 0.5 else f"token {prefix}{tok}", [tok]


def github_pat(rng: random.Random) -> Case:
    tok = "11FAKE" + _r(rng, UPPER + DIGITS, 16) + "_" + _r(rng, B62, 59)
    return f"fine-grained PAT github_pat_{tok} for the release bot", [tok]


def gitlab(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, B62 + "-_", 16)
    return f"gitlab token glpat-{tok}", [tok]


def slack_token(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        tok = f"{_r(rng, DIGITS, 12)}-{_r(rng, DIGITS, 13)}-FAKE{_r(rng, B62, 20)}"
        return f"SLACK_BOT_TOKEN=xoxb-{tok}", [tok]
    tok = f"{_r(rng, DIGITS, 12)}-{_r(rng, DIGITS, 12)}-{_r(rng, DIGITS, 13)}-fake{_r(rng, HEX, 28)}"
    return f"slack user token xoxp-{tok}", [tok]


def slack_webhook(rng: random.Random) -> Case:
    team, bot, tok = "T" + _r(rng, UPPER + DIGITS, 10), "B" + _r(rng, UPPER + DIGITS, 10), "FAKE" + _r(rng, B62, 20)
    return f"alerts go to https://hooks.slack.com/services/{team}/{bot}/{tok}", [tok]


def discord_webhook(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, B64URL, 64)
    return f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/{_r(rng, DIGITS, 18)}/{tok}", [tok]


def stripe(rng: random.Random) -> Case:
    prefix = rng.choice(("sk_live_", "rk_live_", "sk_test_"))
    tok = "FAKE" + _r(rng, B62, 20 + rng.randrange(80))
    return f"stripe key {prefix}{tok}", [tok]


def stripe_webhook(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, B62, 28)
    return f"STRIPE_WEBHOOK_SECRET: whsec_{tok}", [tok]


def openai(rng: random.Random) -> Case:
    tok = rng.choice(("proj-", "")) + "FAKE" + _r(rng, B64URL if rng.random() < 0.5 else B62, 44)
    return f"OPENAI_API_KEY=sk-{tok}" if rng.random() < 0.5 else f"openai key is sk-{tok}", [tok]


def anthropic(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, B64URL, 89) + "-" + _r(rng, B64URL, 4) + "AA"
    return f"ANTHROPIC_API_KEY=sk-ant-api03-{tok}", [tok]


def google(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, B64URL, 31)
    return f"maps key AIza{tok} restricted to the staging domain", [tok]


def npm(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, B62, 32)
    return f"//registry.npmjs.org/:_authToken=npm_{tok}", [tok]


def pypi(rng: random.Random) -> Case:
    tok = "AgEIcHlwaS5vcmc" + "FAKE" + _r(rng, B64URL, 120)
    return f"[pypi]\nusername = __token__\npassword = pypi-{tok}", [tok[15:]]


def huggingface(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, UPPER + LOWER, 30)
    return f"HF_TOKEN hf_{tok} for the private model", [tok]


def sendgrid(rng: random.Random) -> Case:
    a, b = "FAKE" + _r(rng, B64URL, 18), _r(rng, B64URL, 43)
    return f"SENDGRID_API_KEY=SG.{a}.{b}", [a, b]


def digitalocean(rng: random.Random) -> Case:
    tok = "fa4e" + _r(rng, HEX, 60)
    return f"doctl auth init -t dop_v1_{tok}", [tok]


def twilio(rng: random.Random) -> Case:
    sid, auth, key = "ACfa4e" + _r(rng, HEX, 28), _r(rng, HEX, 32), "SKfa4e" + _r(rng, HEX, 28)
    if rng.random() < 0.5:
        return f"TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={auth}", [sid[2:], auth]
    return f"twilio api key {key}, auth token {auth}", [key[2:], auth]


def mailgun(rng: random.Random) -> Case:
    tok = "fa4e" + _r(rng, HEX, 28)
    return f"mailgun key-{tok}", [tok]


def shopify(rng: random.Random) -> Case:
    tok = "fa4e" + _r(rng, HEX, 28)
    return f"shopify admin token shpat_{tok}", [tok]


def jwt(rng: random.Random) -> Case:
    head = _b64(json.dumps({"alg": rng.choice(("HS256", "RS256")), "typ": "JWT"}).encode())
    body = _b64(json.dumps({"sub": f"fake-user-{rng.randrange(10**6)}", "iat": 1770000000 + rng.randrange(10**6)}).encode())
    sig = _r(rng, B64URL, 43)
    tok = f"{head}.{body}.{sig}"
    return rng.choice((f"the id_token was {tok}", f"cookie session={tok}", f"jwt: {tok}")), [body, sig]


def azure_storage(rng: random.Random) -> Case:
    key = _with_all(rng, B64, 86, "/+") + "=="
    text = (f"DefaultEndpointsProtocol=https;AccountName=fakeacct{rng.randrange(100)};"
            f"AccountKey={key};EndpointSuffix=core.windows.net")
    return rng.choice((text, f'"AzureWebJobsStorage": "{text}"')), [key]


def azure_servicebus(rng: random.Random) -> Case:
    key = _with_all(rng, B64, 43, "/+") + "="
    return (f"Endpoint=sb://fake-ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
            f"SharedAccessKey={key}"), [key]


def azure_sas(rng: random.Random) -> Case:
    sig = _r(rng, B62, 30) + "%2B" + _r(rng, B62, 10) + "%3D"
    return f"https://fakeacct.blob.core.windows.net/backups?sv=2022-11-02&ss=b&sp=r&sig={sig}", [sig]


def django(rng: random.Random) -> Case:
    key = _r(rng, DJANGO, 50)
    form = rng.choice(("SECRET_KEY = 'django-insecure-{k}'", 'SECRET_KEY = "{k}"', "DJANGO_SECRET_KEY='{k}'"))
    return form.format(k=key), [key]


def db_url(rng: random.Random) -> Case:
    pw = _pw(rng)
    url = rng.choice((f"postgres://fakeuser:{pw}@db.internal:5432/app",
                      f"postgresql://app:{pw}@10.0.3.7/app_prod?sslmode=require",
                      f"mysql://root:{pw}@localhost:3306/shop",
                      f"mongodb+srv://fakeadmin:{pw}@cluster0.fake.mongodb.net/test?retryWrites=true",
                      f"redis://:{pw}@cache.internal:6379/0",
                      f"amqp://fakeuser:{pw}@rabbit.internal:5672/"))
    form = rng.choice(("DATABASE_URL={u}", 'DATABASE_URL="{u}"', "connected with {u}", "url: {u}"))
    return form.format(u=url), [pw]


def jdbc(rng: random.Random) -> Case:
    pw = _pw(rng)
    return f"jdbc:postgresql://db.internal:5432/app?user=fakeuser&password={pw}", [pw]


def git_url_token(rng: random.Random) -> Case:
    tok = "FAKE" + _r(rng, B62, 32)
    form = rng.choice(("git clone https://ghp_{t}@github.com/acme/private.git",
                       "git remote set-url origin https://x-access-token:ghs_{t}@github.com/acme/app.git",
                       "https://oauth2:glpat-{s}@gitlab.com/acme/app.git",
                       "pip install git+https://{t}@github.com/acme/lib.git"))
    return form.format(t=tok, s=tok[:20]), [tok[:20]]


def git_url_password(rng: random.Random) -> Case:
    pw = _pw(rng)
    return f"git push https://fakeuser:{pw}@bitbucket.org/acme/app.git", [pw]


def curl_user(rng: random.Random) -> Case:
    pw = _pw(rng)
    form = rng.choice(("curl -u fakeuser:{p} https://api.example.com/v1/me",
                       "curl --user 'admin:{p}' -X POST https://jenkins.internal/job/x/build",
                       "curl -s -u \"deploy:{p}\" https://nexus.internal/repository/"))
    return form.format(p=pw), [pw]


def bearer(rng: random.Random) -> Case:
    tok = "fake" + _r(rng, B64URL, 36)
    form = rng.choice(('curl -H "Authorization: Bearer {t}" https://api.example.com/v2/items',
                       "Authorization: Bearer {t}",
                       "-H 'authorization: bearer {t}'"))
    return form.format(t=tok), [tok]


def basic_auth(rng: random.Random) -> Case:
    creds = base64.b64encode(f"fakeuser:{_pw(rng)}".encode()).decode()
    return f"the request had Authorization: Basic {creds} in it", [creds[8:]]


def api_key_header(rng: random.Random) -> Case:
    tok = _r(rng, HEX, 32)
    return f"curl -H 'X-Api-Key: {tok}' https://api.fake-weather.example/v1", [tok]


def pem(rng: random.Random) -> Case:
    kind = rng.choice(("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"))
    body = [_r(rng, B64, 64) for _ in range(4)]
    block = f"-----BEGIN {kind}-----\n" + "\n".join(body) + f"\n-----END {kind}-----"
    if rng.random() < 0.5:  # a public certificate first must not hide the key after it
        cert = "-----BEGIN CERTIFICATE-----\nMIIBfakeCERT\n-----END CERTIFICATE-----\n"
        block = cert + block
    return f"deploy key (revoked):\n{block}\nend of paste", body


def hex_prose(rng: random.Random) -> Case:
    tok = _r(rng, HEX, rng.choice((32, 40, 64)))
    form = rng.choice(("the signing secret is {t}", "webhook secret: {t}", "GitHub webhook secret {t}",
                       "the HMAC key was {t} before rotation", "client secret = {t}"))
    return form.format(t=tok), [tok]


def password_note(rng: random.Random) -> Case:
    pw = rng.choice(("hunter2", "Tr0ub4dor&3", "s3cr3t-Fake!", _pw(rng)))
    form = rng.choice(("password: {p}", "- admin password is {p}", "DB_PASSWORD={p}", "pwd = {p}",
                       "psql --password={p}", "the root password was {p} on staging", "PGPASSWORD={p} psql -h db"))
    return form.format(p=pw), [pw]


def generic_env(rng: random.Random) -> Case:
    tok = _r(rng, rng.choice((HEX, B62)), 32)
    name = rng.choice(("DATADOG_API_KEY", "SENTRY_AUTH_TOKEN", "OPENWEATHER_APIKEY", "MAPBOX_SECRET", "CLIENT_SECRET"))
    return rng.choice((f"{name}={tok}", f"{name}: {tok}", f'"{name.lower()}": "{tok}"')), [tok]


def random_token(rng: random.Random) -> Case:
    tok = _r(rng, B62, 32 + rng.randrange(16))
    return f"the value {tok} showed up in the response", [tok]


GENERATORS: tuple[Callable[[random.Random], Case], ...] = (
    aws_csv, aws_env, aws_session, github, github_pat, gitlab, slack_token, slack_webhook, discord_webhook,
    stripe, stripe_webhook, openai, anthropic, google, npm, pypi, huggingface, sendgrid, digitalocean, twilio,
    mailgun, shopify, jwt, azure_storage, azure_servicebus, azure_sas, django, db_url, jdbc, git_url_token,
    git_url_password, curl_user, bearer, basic_auth, api_key_header, pem, hex_prose, password_note,
    generic_env, random_token,
)


def secret_cases() -> list[tuple[str, str, list[str]]]:
    """(format name, text as it lands in a session note, secret parts), deterministic."""
    rng = random.Random(SEED)
    out = []
    for gen in GENERATORS:
        for _ in range(VARIANTS):
            text, secrets = gen(rng)
            out.append((gen.__name__, rng.choice(PROSE).format(x=text), secrets))
    return out


def benign_lines() -> list[str]:
    """The hand-written benign corpus plus generated ids that must never be masked."""
    lines = [ln for ln in (HERE / "benign.txt").read_text().splitlines() if ln.strip()]
    rng = random.Random(SEED + 1)
    for _ in range(10):
        sha, uuid = _r(rng, HEX, 40), "-".join(_r(rng, HEX, n) for n in (8, 4, 4, 4, 12))
        lines += [f"- Reverted {sha[:7]} (full {sha}) after the token refresh regression",
                  f"request_id={uuid} failed with 502, retried fine",
                  f"image: ghcr.io/acme/api@sha256:{_r(rng, HEX, 64)}",
                  f"pinned actions/checkout@{_r(rng, HEX, 40)} # v4.1.1"]
    return lines


def leaks(before: str, after: str, secrets: list[str]) -> list[str]:
    """The secret parts still readable after redaction: the whole part, or any
    12-character run of it (a half-masked key is still a leak)."""
    found = []
    for s in secrets:
        runs = [s] if len(s) <= 12 else [s[i : i + 12] for i in range(len(s) - 11)]
        if any(r in after for r in runs):
            found.append(s)
    return found


if __name__ == "__main__":
    for name, text, _ in secret_cases():
        print(f"## {name}\n{text}\n")
