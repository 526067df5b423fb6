"""Invariant 7: secrets never reach a shared ref."""

from __future__ import annotations

from pathlib import Path

import pytest

from enf_git import memory
from enf_git.redact import MASK, redact
from gitfixtures import Git, session_text


@pytest.mark.parametrize("secret", [
    "AKIAIOSFODNN7EXAMPLE", "ghp_1234567890abcdefghijABCDEFGHIJ123456", "sk-ant-api03-abcdefghijklmnop1234",
    "xoxb-123456789012-abcdefghijkl", "glpat-abcdefghij1234567890", "AIzaSyA1234567890abcdefghijklmnopqrs",
    "q8Zr2LmN5vXw9KpT3bYc7HdJ4fGs6aQe",  # no known prefix, just random
])
def test_known_and_random_tokens_are_masked(secret: str) -> None:
    assert redact(f"use {secret} now") == f"use {MASK} now"


@pytest.mark.parametrize("text", [
    "src/services/search.ts", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "decided Elasticsearch over Algolia",
    "123e4567-e89b-12d3-a456-426614174000", "TestTemplateRenderingWithUnicodeNames", "https://example.com/a/b?x=1",
])
def test_ordinary_text_survives(text: str) -> None:
    assert redact(text) == text


def test_assignments_urls_private_spans_and_key_blocks() -> None:
    assert redact("password=hunter2 --api-key=abc123def") == f"password={MASK} --api-key={MASK}"
    assert redact("git clone https://bob:s3cret@host/x.git") == f"git clone https://bob:{MASK}@host/x.git"
    assert redact("a <private>pin 1234</private> b <PRIVATE>x</PRIVATE>") == "a  b "
    assert redact("keep <private>unclosed secret") == "keep "
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----"
    assert redact(f"k: {key} end") == f"k: {MASK} end"


def test_commit_redacts_session_files_and_the_working_copy(repo_dir: Path, git: Git) -> None:
    ctx = memory.Context.open(repo_dir)
    memory.init(ctx)
    path = ctx.root / "sessions" / "2026-04-13-secret-test.md"
    path.write_text(session_text(body="\n## Errors & Fixes\n- token AKIAIOSFODNN7EXAMPLE leaked <private>pw</private>\n"))
    memory.commit(ctx)
    assert "AKIA" not in git("grep", "-h", "token", "claude-memory")
    assert git("grep", "-c", "AKIA", "claude-memory", check=False) == ""
    assert "AKIA" not in path.read_text() and MASK in path.read_text()
    assert memory.pending(ctx).empty


@pytest.mark.parametrize(("text", "want"), [
    ("password: hunter2", f"password: {MASK}"),
    ('{"password": "hunter2", "user": "bob"}', f'{{"password": "{MASK}", "user": "bob"}}'),
    ('{"api_key":"abcd"}', f'{{"api_key":"{MASK}"}}'),
    ("DB_PASSWORD = s3cr3t!", f"DB_PASSWORD = {MASK}"),
    ("export GITHUB_TOKEN='abc'", f"export GITHUB_TOKEN='{MASK}'"),
    ("client_secret: correcthorsebatterystaple", f"client_secret: {MASK}"),
    ("- secret: `zx81-spectrum`", f"- secret: `{MASK}`"),
])
def test_a_value_written_apart_from_its_key_is_masked(text: str, want: str) -> None:
    assert redact(text) == want


@pytest.mark.parametrize("text", [
    "the token: see below", "Rotated the password, then", "password:\nnext line", "tags: [auth, token]",
    '{"password": "", "user": "bob"}', "token count: 12", "## Secret handling", "secret (see vault): no",
])
def test_prose_around_secret_words_survives(text: str) -> None:
    assert redact(text) == text
