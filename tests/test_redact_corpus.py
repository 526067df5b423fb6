"""Invariant 7 measured: a corpus of fake secrets as developers paste them (goal: no
leak) and a corpus of ordinary code and notes (goal: at most 1 % of lines altered).

The corpus lives in tests/data/redact/ (`fakes.py` generates the secrets, seeded;
`benign.txt` is hand-written). The focused tests below pin each shape that a
leak report named, so a regression says which one.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from enf_git.redact import MASK, redact, redact_count


def _load_fakes() -> ModuleType:
    path = Path(__file__).parent / "data" / "redact" / "fakes.py"
    spec = importlib.util.spec_from_file_location("redact_fakes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


FAKES = _load_fakes()
CASES = FAKES.secret_cases()
BENIGN = FAKES.benign_lines()


def test_the_corpus_is_big_enough_to_mean_something() -> None:
    assert len(CASES) >= 150 and len({name for name, _, _ in CASES}) >= 35
    assert len(BENIGN) >= 300


def test_no_fake_secret_leaks() -> None:
    leaked = [(name, text, FAKES.leaks(text, redact(text), secrets)) for name, text, secrets in CASES]
    leaked = [item for item in leaked if item[2]]
    report = "\n".join(f"{name}: {text!r} -> {redact(text)!r}" for name, text, _ in leaked)
    assert not leaked, f"{len(leaked)} of {len(CASES)} cases leak:\n{report}"


def test_benign_lines_come_out_unchanged() -> None:
    altered = [(line, redact(line)) for line in BENIGN if redact(line) != line]
    report = "\n".join(f"{a!r}\n  -> {b!r}" for a, b in altered)
    assert len(altered) <= len(BENIGN) // 100, f"{len(altered)} of {len(BENIGN)} benign lines altered:\n{report}"


def test_redaction_is_idempotent_and_counted() -> None:
    for _, text, _ in CASES:
        once, count = redact_count(text)
        assert count >= 1 and once.count(MASK) >= 1
        assert redact_count(once) == (once, 0), text


def test_redact_count_counts_spans() -> None:
    assert redact_count("nothing here") == ("nothing here", 0)
    assert redact_count("") == ("", 0)
    text, count = redact_count("a <private>x</private> password=hunter2 and token ghp_FAKE0123456789abcdefABCDEF0123456789")
    assert count == 3 and text == f"a  password={MASK} and token {MASK}"


# --- each reported shape, one test each ------------------------------------------

PW = "FakePw9x!Lm2Qz"
HEX64 = "3f9a" + "0c1d2e3f4a5b6c7d8e9f" * 3
B64KEY = "FAKEwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLE+Q"


@pytest.mark.parametrize(("text", "secret"), [
    (f"DATABASE_URL=postgres://fakeuser:{PW}@db.internal:5432/app", PW),
    (f'DATABASE_URL="mysql://root:{PW}@localhost/shop"', PW),
    ("git clone https://ghp_FAKEa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6@github.com/acme/x.git", "FAKEa1B2c3D4e5F6g7H8"),
    ("https://hooks.slack.com/services/T0FAKE0001/B0FAKE0002/FAKEq8Zr2LmN5vXw9KpT3bYc", "FAKEq8Zr2LmN5vXw9KpT3bYc"),
    (f"curl -u fakeuser:{PW} https://api.example.com/v1/me", PW),
    ("id_token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlLXVzZXIifQ.FAKEc2lnbmF0dXJlX2Zha2VfZmFrZV9mYWtl",
     "FAKEc2lnbmF0dXJlX2Zha2VfZmFrZV9mYWtl"),
    (f"fake-deployer,,AKIAFAKEFAKEFAKE7777,{B64KEY}", B64KEY),
    (f"DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey={B64KEY}==;EndpointSuffix=core.windows.net",
     B64KEY),
    (f"Endpoint=sb://fake.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={B64KEY}=", B64KEY),
    ("SECRET_KEY = 'django-insecure-k#9x(a)b!fake_w@q^z&3+p=)7m*e%$-r2t8y4u6i0o'", "k#9x(a)b!fake_w@q^z&3+p=)7m*e%$"),
    (f"the signing secret is {HEX64}, rotate it monthly", HEX64),
    (f"webhook secret: {HEX64}", HEX64),
])
def test_named_shapes_are_masked(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and MASK in out, out
    assert not FAKES.leaks(text, out, [secret]), out


@pytest.mark.parametrize("text", [
    'password = request.form["password"]',
    'api_key = os.environ["API_KEY"]',
    "token = get_token()",
    "NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
    "password: ${DB_PASSWORD}",
    "export PGPASSWORD=$DB_PASSWORD",
    "class TestOAuth2ClientCredentialsFlowV3Handler(unittest.TestCase):",
    r"C:\Users\dev\AppData\Local\Programs\Python\Python311\Lib\site-packages",
    "FROM python:3.11-slim@sha256:5f0192a4f58a6ce99f732fe05e3b3d00f12ae62e183886bca3ebe3d202686c7f",
])
def test_named_code_is_left_alone(text: str) -> None:
    assert redact(text) == text
