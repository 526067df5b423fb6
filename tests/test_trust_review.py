"""`git enf trust review`: under `enf.trust signed` or `authors`, which records are kept
from the model and why, from the commit that last changed each record (authors.py) and
git's own verdict on its signature (verify.py). Real ssh-keygen, real git."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from enf_git import paths
from gitfixtures import run_git, session_text

BIN = str(Path(sys.executable).parent)
MINE = "sessions/2026-04-13-a1a1a1a1.md"
BOBS = "sessions/2026-04-13-b2b2b2b2.md"


def enf(cwd: Path, *args: str, code: int = 0, env: dict[str, str] | None = None,
        config: tuple[str, ...] = ()) -> str:
    full = {**os.environ, **(env or {}), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(["git", *sum((["-c", c] for c in config), []), "enf", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc.stdout


def add(repo: Path, rel: str, **env: str) -> None:
    sid = rel.rsplit("-", 1)[1].removesuffix(".md")
    (repo / paths.WC_DIR / rel).write_text(session_text(sid), encoding="utf-8")
    enf(repo, "commit", "-m", f"add {sid}", env=env)


@pytest.fixture
def team(repo_dir: Path, tmp_path: Path) -> Path:
    """A branch with my session, signed by my allowed ssh key, and Bob's, unsigned."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed: ssh signing cannot be tried")
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "me", "-f", str(key)], check=True)
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"author@example.com {key.with_suffix('.pub').read_text().strip()}\n")
    for k, v in (("gpg.format", "ssh"), ("user.signingKey", str(key)), ("gpg.ssh.allowedSignersFile", str(allowed)),
                 ("commit.gpgSign", "true")):
        run_git(repo_dir, "config", k, v)
    enf(repo_dir, "init", "--no-hooks")
    add(repo_dir, MINE)
    add(repo_dir, BOBS, GIT_AUTHOR_NAME="Bob", GIT_AUTHOR_EMAIL="bob@example.com",
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="commit.gpgSign", GIT_CONFIG_VALUE_0="false")
    return repo_dir


def review(repo: Path, *config: str) -> dict[str, object]:
    doc: dict[str, object] = json.loads(enf(repo, "trust", "review", "--json", config=config))
    return doc


def reasons(doc: dict[str, object]) -> dict[str, str]:
    rows = doc["withheld"]
    assert isinstance(rows, list)
    return {r["path"]: r["reason"] for r in rows}


def test_all_withholds_nothing(team: Path) -> None:
    doc = review(team)
    assert doc["mode"] == "all" and doc["withheld"] == []
    assert "nothing is withheld" in enf(team, "trust", "review")


def test_signed_withholds_the_unsigned_record_and_says_whose_it_is(team: Path) -> None:
    run_git(team, "config", "enf.trust", "signed")
    doc = review(team)
    assert reasons(doc) == {BOBS: "unsigned"}
    row = doc["withheld"][0]  # type: ignore[index]
    assert (row["author"], row["email"]) == ("Bob", "bob@example.com")
    text = enf(team, "trust", "review")
    assert text.startswith("enf.trust signed: 1 of ")
    assert f"  {BOBS}  Bob <bob@example.com>, " in text and text.rstrip().endswith(": unsigned")
    assert BOBS.rsplit("/", 1)[1].removesuffix(".md") in enf(team, "log")  # still shown to the person


def test_a_key_not_in_allowed_signers_and_a_bad_signature_are_named(team: Path, tmp_path: Path) -> None:
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "x", "-f", str(stranger)], check=True)
    carol = "sessions/2026-04-13-c3c3c3c3.md"
    add(team, carol, GIT_AUTHOR_NAME="Carol", GIT_AUTHOR_EMAIL="carol@example.com",
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="user.signingKey", GIT_CONFIG_VALUE_0=str(stranger))
    # Dave's commit, then its text changed under the same signature (what a forged push would be)
    dave = "sessions/2026-04-13-d4d4d4d4.md"
    add(team, dave, GIT_AUTHOR_NAME="Dave", GIT_AUTHOR_EMAIL="dave@example.com")
    repo = pygit2.Repository(str(team))
    signature, data = repo.revparse_single("claude-memory").gpg_signature  # type: ignore[attr-defined]
    forged = repo.create_commit_with_signature(data.replace(b"add d4d4d4d4", b"add evil").decode(), signature.decode())
    run_git(team, "update-ref", "refs/heads/claude-memory", str(forged))
    found = reasons(review(team, "enf.trust=signed"))
    assert found == {BOBS: "unsigned", carol: "signed by a key not in gpg.ssh.allowedSignersFile",
                     dave: "bad signature"}


def test_authors_shows_only_listed_emails_and_ones_own(team: Path) -> None:
    found = reasons(review(team, "enf.trust=authors"))
    assert found == {BOBS: "author bob@example.com is not in enf.trustedAuthors"}
    run_git(team, "config", "--add", "enf.trustedAuthors", "alice@example.com, BOB@example.com")
    assert review(team, "enf.trust=authors")["withheld"] == []
    assert review(team, "enf.trust=authors")["trusted_authors"] == ["alice@example.com", "bob@example.com"]


def test_as_previews_another_setting_and_a_bad_value_is_refused(team: Path) -> None:
    assert reasons(json.loads(enf(team, "trust", "review", "--as", "signed", "--json"))) == {BOBS: "unsigned"}
    assert run_git(team, "config", "--get", "enf.trust", check=False).strip() == ""  # nothing set
    run_git(team, "config", "enf.trust", "sign")
    proc = subprocess.run(["git", "enf", "trust", "review"], cwd=team, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"})
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: enf.trust is 'sign': it must be all, signed or authors\n")
