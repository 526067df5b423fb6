"""Signed memory: memory commits are signed exactly when git would sign a commit, with
the real gpg and ssh-keygen, and git's own verification (`git verify-commit`,
`gpg.ssh.allowedSignersFile`) gives each commit its verdict, asked once and kept."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest

from enf_git import paths
from enf_git.plumbing import signing, store, store_merge, store_write, verify
from gitfixtures import run_git, session_text

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
BIN = str(Path(sys.executable).parent)
ME = "Test Author <author@example.com>"  # conftest's identity: git's default openpgp key


def _gen_key(home: str, uid: str) -> None:
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never"],
                   env={**os.environ, "GNUPGHOME": home}, check=True, capture_output=True)


@pytest.fixture
def gnupg(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A throwaway GNUPGHOME holding a key for the test identity, no passphrase (a short
    path: gpg-agent's socket must fit in a Unix socket name)."""
    if shutil.which("gpg") is None:
        pytest.skip("gpg is not installed: openpgp signing cannot be tried")
    home = tempfile.mkdtemp(prefix="enfg", dir="/tmp")
    os.chmod(home, 0o700)
    monkeypatch.setenv("GNUPGHOME", home)
    _gen_key(home, ME)
    yield home
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], env={**os.environ, "GNUPGHOME": home}, capture_output=True)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def ssh_key(tmp_path: Path) -> Path:
    """An ed25519 key file (no passphrase); its public half is `<key>.pub`."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed: ssh signing cannot be tried")
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", str(key)], check=True)
    return key


def _allow(allowed: Path, principal: str, key: Path) -> None:
    with allowed.open("a", encoding="utf-8") as f:
        f.write(f"{principal} {key.with_suffix('.pub').read_text().strip()}\n")


def enf(cwd: Path, *args: str, code: int = 0, config: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """`git [-c …] enf ARGS` as git runs it (so `-c` reaches us the way git passes it on)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(["git", *sum((["-c", c] for c in config), []), "enf", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return proc


def new_session(repo: Path, sid: str) -> Path:
    path = repo / paths.WC_DIR / "sessions" / f"2026-04-13-{sid}.md"
    path.write_text(session_text(sid), encoding="utf-8")
    return path


def letters(repo: Path, rev: str = "claude-memory") -> list[str]:
    return run_git(repo, "log", "--format=%G?", rev).split()


def tip_signature(repo: Path) -> bytes | None:
    return store.commit_signature(store.open_repo(repo), run_git(repo, "rev-parse", "claude-memory").strip())


def hook(repo: Path, event: str, **fields: object) -> str:
    payload = json.dumps({"session_id": "5e55104a-aaaa-bbbb-cccc-000000000001", "cwd": str(repo),
                          "hook_event_name": event, **fields})
    proc = subprocess.run([sys.executable, "-c", paths.LAUNCH, event], input=payload, capture_output=True,
                          text=True, cwd=repo, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# --- signing ---------------------------------------------------------------------------

def test_memory_commits_are_signed_with_gpg_and_git_verifies_them(repo_dir: Path, gnupg: str) -> None:
    run_git(repo_dir, "config", "commit.gpgSign", "true")
    enf(repo_dir, "init", "--no-hooks")
    new_session(repo_dir, "a1b2c3d4")
    enf(repo_dir, "commit", "-m", "signed session")
    assert set(letters(repo_dir)) == {"G"}  # every memory commit, init's too
    run_git(repo_dir, "verify-commit", "claude-memory")
    assert run_git(repo_dir, "log", "-1", "--format=%GS", "claude-memory").strip() == ME


@pytest.mark.parametrize("spelling", ["no", "off", "0", "false"])
def test_no_signature_and_no_gpg_when_commit_gpgsign_is_off(repo_dir: Path, spelling: str) -> None:
    run_git(repo_dir, "config", "commit.gpgSign", spelling)
    run_git(repo_dir, "config", "gpg.program", "/nonexistent/gpg")  # would fail the commit if it ran
    enf(repo_dir, "init", "--no-hooks")
    new_session(repo_dir, "a1b2c3d4")
    enf(repo_dir, "commit", "-m", "x")
    assert set(letters(repo_dir)) == {"N"}
    assert tip_signature(repo_dir) is None


def test_git_dash_c_turns_signing_on_and_off_for_one_command(repo_dir: Path, gnupg: str) -> None:
    enf(repo_dir, "init", "--no-hooks")
    new_session(repo_dir, "a1b2c3d4")
    enf(repo_dir, "commit", "-m", "signed", config=("commit.gpgSign=yes",))
    new_session(repo_dir, "b2b2b2b2")
    run_git(repo_dir, "config", "commit.gpgSign", "true")
    enf(repo_dir, "commit", "-m", "unsigned", config=("commit.gpgSign=false",))
    assert letters(repo_dir)[:2] == ["N", "G"]


def test_ssh_signing_follows_user_signingkey_and_allowed_signers(repo_dir: Path, ssh_key: Path, tmp_path: Path) -> None:
    run_git(repo_dir, "config", "commit.gpgSign", "true")
    run_git(repo_dir, "config", "gpg.format", "ssh")
    run_git(repo_dir, "config", "user.signingKey", str(ssh_key))
    allowed = tmp_path / "allowed_signers"
    _allow(allowed, "author@example.com", ssh_key)
    run_git(repo_dir, "config", "gpg.ssh.allowedSignersFile", str(allowed))
    enf(repo_dir, "init", "--no-hooks")
    new_session(repo_dir, "a1b2c3d4")
    enf(repo_dir, "commit", "-m", "ssh-signed")
    run_git(repo_dir, "verify-commit", "claude-memory")
    assert set(letters(repo_dir)) == {"G"}
    assert b"BEGIN SSH SIGNATURE" in (tip_signature(repo_dir) or b"")


def test_a_merge_of_teammates_memory_is_signed_too(repo_dir: Path, gnupg: str) -> None:
    enf(repo_dir, "init", "--no-hooks")
    repo = store.open_repo(repo_dir)
    base = store.tip(repo)
    assert base is not None
    ours = store_write.commit(repo, lambda _tip: {"a.md": b"a\n"}, "ours")
    run_git(repo_dir, "branch", "-f", "theirs", str(base.id))
    theirs_oid = repo.create_commit("refs/heads/theirs", *store_write._signatures(repo, None, None), "theirs",
                                    store_write.write_tree(repo, base.tree, {"b.md": b"b\n"}), [base.id])
    run_git(repo_dir, "config", "commit.gpgSign", "true")
    tip = store.tip(repo)
    theirs = store.commit_at(repo, str(theirs_oid))
    assert ours is not None and tip is not None and theirs is not None
    merged = store_merge.commit_merge(repo, tip, theirs, {"b.md": b"b\n"}, "merge")
    assert merged is not None
    run_git(repo_dir, "verify-commit", merged.oid)
    assert len(run_git(repo_dir, "rev-list", "--parents", "-n1", merged.oid).split()) == 3


def test_a_signing_failure_fails_like_git_and_loses_nothing(repo_dir: Path, gnupg: str) -> None:
    enf(repo_dir, "init", "--no-hooks")
    before = run_git(repo_dir, "rev-parse", "claude-memory").strip()
    run_git(repo_dir, "config", "commit.gpgSign", "true")
    run_git(repo_dir, "config", "user.signingKey", "nobody@example.invalid")  # no such secret key
    session = new_session(repo_dir, "a1b2c3d4")
    proc = enf(repo_dir, "commit", "-m", "x", code=1)
    assert proc.stderr.startswith("error: gpg failed to sign the data\nhint: ")
    assert "git -c commit.gpgSign=false enf commit" in proc.stderr
    assert run_git(repo_dir, "rev-parse", "claude-memory").strip() == before  # no commit, signed or not
    assert session.read_text(encoding="utf-8") == session_text("a1b2c3d4")  # still here, as written
    assert f"new: sessions/{session.name}" in enf(repo_dir, "status").stdout
    run_git(repo_dir, "config", "--unset", "user.signingKey")  # the committer's own key: git's default
    enf(repo_dir, "commit", "-m", "x")
    assert letters(repo_dir)[0] == "G"
    assert run_git(repo_dir, "show", f"claude-memory:sessions/{session.name}") == session_text("a1b2c3d4")


def test_a_missing_signing_program_is_a_signing_failure(repo_dir: Path) -> None:
    enf(repo_dir, "init", "--no-hooks")
    new_session(repo_dir, "a1b2c3d4")
    proc = enf(repo_dir, "commit", "-m", "x", code=1,
               config=("commit.gpgSign=true", "gpg.program=/nonexistent/gpg"))
    assert proc.stderr.startswith("error: gpg failed to sign the data\n")
    assert "/nonexistent/gpg: command not found" in proc.stderr


def test_hooks_exit_0_on_a_signing_failure_and_say_so_once(repo_dir: Path, gnupg: str) -> None:
    enf(repo_dir, "init", "--no-hooks")
    before = run_git(repo_dir, "rev-parse", "claude-memory").strip()
    run_git(repo_dir, "config", "commit.gpgSign", "true")
    run_git(repo_dir, "config", "user.signingKey", "nobody@example.invalid")
    session = new_session(repo_dir, "a1b2c3d4")
    hook(repo_dir, "Stop")
    hook(repo_dir, "PreCompact", trigger="auto")
    state = Path(paths.state_dir(str(repo_dir / ".git")))
    log = (state / paths.HOOK_ERRORS).read_text(encoding="utf-8")
    assert log.count("gpg failed to sign the data") == 1  # logged once, not on every hook
    first = json.loads(hook(repo_dir, "SessionStart", source="startup"))["hookSpecificOutput"]["additionalContext"]
    assert "## Memory not committed" in first and "gpg failed to sign the data" in first
    again = json.loads(hook(repo_dir, "SessionStart", source="startup"))["hookSpecificOutput"]["additionalContext"]
    assert "Memory not committed" not in again  # told once
    assert "a hook could not commit memory: gpg failed to sign the data" in enf(repo_dir, "status").stdout
    assert run_git(repo_dir, "rev-parse", "claude-memory").strip() == before
    assert session.is_file()
    run_git(repo_dir, "config", "--unset", "user.signingKey")
    hook(repo_dir, "Stop")
    assert letters(repo_dir)[0] == "G"
    assert signing.noted_failure(str(state)) is None  # a commit landed: the failure is over
    assert "could not commit" not in enf(repo_dir, "status").stdout


def test_an_edit_waiting_on_a_failed_signature_survives_session_start(repo_dir: Path, gnupg: str) -> None:
    """SessionStart commits, merges and refreshes the working copy: with the commit refused
    at git's signing step, the refresh must leave the uncommitted edit alone."""
    enf(repo_dir, "init", "--no-hooks")
    session = new_session(repo_dir, "a1b2c3d4")
    enf(repo_dir, "commit", "-m", "unsigned first")
    edited = session.read_text(encoding="utf-8").replace("Added search", "Added search and ranking")
    session.write_text(edited, encoding="utf-8")
    run_git(repo_dir, "config", "commit.gpgSign", "true")
    run_git(repo_dir, "config", "user.signingKey", "nobody@example.invalid")
    hook(repo_dir, "SessionStart", source="startup")
    assert session.read_text(encoding="utf-8") == edited
    assert f"changed: sessions/{session.name}" in enf(repo_dir, "status").stdout
    run_git(repo_dir, "config", "--unset", "user.signingKey")
    enf(repo_dir, "commit", "-m", "now signed")
    assert letters(repo_dir)[:2] == ["G", "N"]
    assert "Added search and ranking" in run_git(repo_dir, "show", f"claude-memory:sessions/{session.name}")


def test_git_booleans_as_git_reads_them() -> None:
    assert [signing.git_bool("k", v) for v in ("true", "Yes", "on", "1", "2", "false", "NO", "off", "0", "")] == \
        [True, True, True, True, True, False, False, False, False, False]
    assert signing.git_bool("k", None) is None
    with pytest.raises(Exception, match="bad boolean config value 'maybe' for 'k'"):
        signing.git_bool("k", "maybe")


# --- verification ------------------------------------------------------------------------

def _commit(repo: Path, message: str, *config: str) -> str:
    args = sum((["-c", c] for c in config), [])
    run_git(repo, *args, "commit", "-q", "--allow-empty", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").strip()


def _tampered(repo_dir: Path, oid: str) -> str:
    """A copy of a signed commit with its message changed and the old signature kept."""
    repo = pygit2.Repository(str(repo_dir))
    sig, data = repo.get(oid).gpg_signature  # type: ignore[union-attr]
    altered = data.replace(b"good one", b"evil one")
    return str(repo.create_commit_with_signature(altered.decode(), sig.decode()))


@pytest.fixture
def ssh_repo(repo_dir: Path, ssh_key: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """repo_dir with allowed signers listing `ssh_key` for the test identity, and a stranger's key."""
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "x", "-f", str(stranger)], check=True)
    allowed = tmp_path / "allowed_signers"
    _allow(allowed, "author@example.com", ssh_key)
    run_git(repo_dir, "config", "gpg.format", "ssh")
    run_git(repo_dir, "config", "gpg.ssh.allowedSignersFile", str(allowed))
    return repo_dir, allowed, stranger


def test_verdicts_good_unsigned_untrusted_and_bad(ssh_repo: tuple[Path, Path, Path], ssh_key: Path) -> None:
    repo_dir, _allowed, stranger = ssh_repo
    good = _commit(repo_dir, "good one", "commit.gpgSign=true", f"user.signingKey={ssh_key}")
    unsigned = _commit(repo_dir, "plain")
    untrusted = _commit(repo_dir, "stranger's", "commit.gpgSign=true", f"user.signingKey={stranger}")
    bad = _tampered(repo_dir, good)
    found = verify.verdicts(str(repo_dir), [good, unsigned, untrusted, bad, "0" * 40])
    assert (found[good].kind, found[good].trusted, found[good].signer) == ("good", True, "author@example.com")
    assert found[unsigned] == verify.UNSIGNED and found[unsigned].why == "unsigned"
    assert (found[untrusted].letter, found[untrusted].trusted) == ("U", False)
    assert found[untrusted].why == "signed by a key not in gpg.ssh.allowedSignersFile"
    assert (found[bad].kind, found[bad].trusted, found[bad].why) == ("bad", False, "bad signature")
    assert "0" * 40 not in found  # git has no such commit
    for oid, v in found.items():  # the same answer git verify-commit gives
        ok = subprocess.run(["git", "verify-commit", oid], cwd=repo_dir, capture_output=True).returncode == 0
        assert ok == v.trusted, (oid, v)


def test_verdicts_are_one_git_process_then_cached_until_trust_changes(
        ssh_repo: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    repo_dir, allowed, stranger = ssh_repo
    oids = [_commit(repo_dir, f"c{n}", "commit.gpgSign=true", f"user.signingKey={stranger}") for n in range(3)]
    oids.append(_commit(repo_dir, "plain"))
    calls: list[int] = []
    real = verify._log

    def counted(*args: object, **kw: object) -> tuple[int, str, str]:
        calls.append(1)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(verify, "_log", counted)
    first = verify.verdicts(str(repo_dir), oids)
    assert len(calls) == 1 and [first[o].trusted for o in oids] == [False, False, False, False]
    again = verify.verdicts(str(repo_dir), oids)
    assert len(calls) == 1 and again == first  # from .git/enf/verdicts.json
    _allow(allowed, "author@example.com", stranger)  # the trust configuration changed
    now = verify.verdicts(str(repo_dir), oids)
    assert len(calls) == 2
    assert [now[o].kind for o in oids] == ["good", "good", "good", "unsigned"]


def test_openpgp_trust_is_git_verify_commits(repo_dir: Path, gnupg: str) -> None:
    """A key in the keyring of unknown validity is U and git verify-commit accepts it;
    gpg.minTrustLevel marginal refuses it, as git does; one's own key (ultimate) stays good."""
    other = tempfile.mkdtemp(prefix="enfo", dir="/tmp")
    try:
        _gen_key(other, "Bob <bob@example.com>")
        exported = subprocess.run(["gpg", "--export", "bob@example.com"], env={**os.environ, "GNUPGHOME": other},
                                  capture_output=True, check=True).stdout
        subprocess.run(["gpg", "--batch", "--import"], input=exported, capture_output=True, check=True)
        mine = _commit(repo_dir, "mine", "commit.gpgSign=true")
        env = {**os.environ, "GNUPGHOME": other}
        subprocess.run(["git", "-c", "commit.gpgSign=true", "-c", "user.signingKey=bob@example.com", "commit", "-q",
                        "--allow-empty", "-m", "bob's"], cwd=repo_dir, env=env, check=True)
        bobs = run_git(repo_dir, "rev-parse", "HEAD").strip()
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env={**os.environ, "GNUPGHOME": other}, capture_output=True)
        shutil.rmtree(other, ignore_errors=True)
    found = verify.verdicts(str(repo_dir), [mine, bobs])
    assert (found[mine].letter, found[mine].trusted) == ("G", True)
    assert (found[bobs].letter, found[bobs].trusted, found[bobs].signer) == ("U", True, "Bob <bob@example.com>")
    run_git(repo_dir, "config", "gpg.minTrustLevel", "marginal")
    strict = verify.verdicts(str(repo_dir), [mine, bobs])
    assert (strict[mine].trusted, strict[bobs].trusted) == (True, False)
    for oid, v in strict.items():
        ok = subprocess.run(["git", "verify-commit", oid], cwd=repo_dir, capture_output=True).returncode == 0
        assert ok == v.trusted, (oid, v)


def test_an_ssh_signature_without_allowed_signers_is_unverifiable_not_unsigned(
        repo_dir: Path, ssh_key: Path) -> None:
    run_git(repo_dir, "config", "gpg.format", "ssh")
    oid = _commit(repo_dir, "signed", "commit.gpgSign=true", f"user.signingKey={ssh_key}")
    found = verify.verdicts(str(repo_dir), [oid])[oid]
    assert (found.kind, found.trusted, found.format) == ("unverifiable", False, "ssh")
    assert "no gpg.ssh.allowedSignersFile" in found.why


def test_a_literal_ssh_key_signs_with_the_agents_private_half(repo_dir: Path, ssh_key: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("ssh-agent") is None or shutil.which("ssh-add") is None:
        pytest.skip("ssh-agent is not installed: a literal key::… signing key needs one")
    sock = tempfile.mktemp(prefix="enfa", dir="/tmp")
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", sock], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.05)  # the agent creates its socket once it listens
        monkeypatch.setenv("SSH_AUTH_SOCK", sock)
        subprocess.run(["ssh-add", "-q", str(ssh_key)], check=True, capture_output=True)
        public = ssh_key.with_suffix(".pub").read_text().strip()
        allowed = tmp_path / "allowed_signers"
        _allow(allowed, "author@example.com", ssh_key)
        for key, value in (("commit.gpgSign", "true"), ("gpg.format", "ssh"), ("user.signingKey", f"key::{public}"),
                           ("gpg.ssh.allowedSignersFile", str(allowed))):
            run_git(repo_dir, "config", key, value)
        enf(repo_dir, "init", "--no-hooks")
        run_git(repo_dir, "verify-commit", "claude-memory")
    finally:
        agent.kill()
        agent.wait()
