"""Sign a memory commit exactly when, and exactly as, git would sign a commit.

git signs a commit when `commit.gpgSign` is true (git-config(1)); the tool and key
follow `gpg.format` (openpgp, the default; ssh; x509), `user.signingKey` and the
programs `gpg.program` / `gpg.openpgp.program`, `gpg.ssh.program`, `gpg.x509.program`.
This module mirrors gpg-interface.c:

- openpgp and x509: `<program> --status-fd=2 -bsau <key>` reads the commit buffer on
  stdin and writes an armoured detached signature on stdout; it succeeded only if its
  status lines hold `[GNUPG:] SIG_CREATED`. With no `user.signingKey`, the key is the
  committer's `Name <email>`, as git asks gpg for it.
- ssh: `ssh-keygen -Y sign -n git -f <key file> <buffer file>` writes `<buffer file>.sig`.
  `user.signingKey` is a key file (`~` expanded) or a literal public key (`key::ssh-…`,
  or one starting with `ssh-`), which is written to a temporary file and used with `-U`
  (the private half is in ssh-agent). With no key, `gpg.ssh.defaultKeyCommand`'s first
  line is the key, as in git.

Config is read through the store's getter (pygit2's view of git's files plus `git -c`),
in-process: an unsigned commit costs one config lookup, never a process.

A failure raises SigningError, an EnfError whose message is git's own ("gpg failed to
sign the data"): the commit is not written, and the working copy keeps what it would
have held, so the next commit carries it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NamedTuple

from ..errors import EnfError

SIGN_TIMEOUT = 120.0  # seconds: a pinentry prompt in a terminal may take a person a while
_TRUE = frozenset(("true", "yes", "on"))
_FALSE = frozenset(("false", "no", "off", ""))
_PROGRAMS = {"openpgp": "gpg", "x509": "gpgsm", "ssh": "ssh-keygen"}
FAILED_FILE = "signing-failed"  # in .git/enf: the last failure a hook could not tell anyone about


class SigningError(EnfError):
    """git's signing step failed: nothing was committed."""


class Signer(NamedTuple):
    format: str  # "openpgp", "x509" or "ssh"
    program: str
    key: str | None  # user.signingKey as configured (None: git's default for the format)
    default_key_command: str | None = None  # gpg.ssh.defaultKeyCommand


def git_bool(key: str, raw: str | None) -> bool | None:
    """A boolean as git reads it (true/yes/on, false/no/off/empty, any integer); None: not
    set. A value git would reject is refused as git refuses it."""
    if raw is None:
        return None
    word = raw.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    try:
        return int(word, 0) != 0
    except ValueError:
        raise EnfError(f"bad boolean config value '{raw}' for '{key}'",
                       hint=f"git config {key} true (or false)") from None


def signer(config: Callable[[str], str | None]) -> Signer | None:
    """How git would sign a commit under this config; None when it would not sign.

    Only `commit.gpgSign` is read for an unsigned commit: the rest only when it is on.
    """
    if not git_bool("commit.gpgSign", config("commit.gpgsign")):
        return None
    fmt = (config("gpg.format") or "openpgp").strip().lower()
    if fmt not in _PROGRAMS:
        raise EnfError(f"invalid value for 'gpg.format': '{fmt}'", hint="git config gpg.format openpgp (or ssh, x509)")
    program = config(f"gpg.{fmt}.program")
    if program is None and fmt == "openpgp":
        program = config("gpg.program")  # the older name, still git's for openpgp
    key = config("user.signingkey")
    return Signer(fmt, program or _PROGRAMS[fmt], key or None,
                  config("gpg.ssh.defaultkeycommand") if fmt == "ssh" else None)


def sign(how: Signer, buffer: bytes, committer: str) -> str:
    """The detached signature of `buffer` (a commit object's text), as git would make it.
    `committer`: "Name <email>", git's default openpgp/x509 key."""
    if how.format == "ssh":
        return _sign_ssh(how, buffer)
    return _sign_gpg(how, buffer, how.key or committer)


def _sign_gpg(how: Signer, buffer: bytes, key: str) -> str:
    run = _run([how.program, "--status-fd=2", "-bsau", key], buffer)
    status = "\n" + run[2]
    if run[0] != 0 or "\n[GNUPG:] SIG_CREATED " not in status:
        said = _said(run[2]) or f"{how.program} exited {run[0]}"
        raise SigningError("gpg failed to sign the data", hint=_hint(how, said))
    return run[1].replace("\r\n", "\n")


def _sign_ssh(how: Signer, buffer: bytes) -> str:
    import tempfile  # here, not at import: an unsigned commit never needs it

    key = how.key or _default_ssh_key(how)
    with tempfile.TemporaryDirectory(prefix="enf-sign-") as tmp:
        literal = _literal_ssh_key(key)
        if literal is not None:
            key_file = os.path.join(tmp, "key.pub")
            with open(key_file, "w", encoding="utf-8") as f:
                f.write(literal + "\n")
        else:
            key_file = os.path.expanduser(key)
        data = os.path.join(tmp, "buffer")
        with open(data, "wb") as f:
            f.write(buffer)
        args = [how.program, "-Y", "sign", "-n", "git", "-f", key_file, *(["-U"] if literal is not None else []), data]
        code, _out, err = _run(args, b"")
        if code != 0:
            said = _said(err) or f"{how.program} exited {code}"
            if "usage:" in err:
                said = "ssh-keygen -Y sign is needed for ssh signing (available in openssh version 8.2p1+)"
            raise SigningError(f"gpg failed to sign the data: {said}", hint=_hint(how, said))
        try:
            with open(data + ".sig", encoding="utf-8") as f:
                return f.read().replace("\r\n", "\n")
        except OSError as exc:
            raise SigningError(f"gpg failed to sign the data: no signature from {how.program} ({exc.strerror})",
                               hint=_hint(how, "")) from exc


def _default_ssh_key(how: Signer) -> str:
    """git's fallback with no user.signingKey: the first line of gpg.ssh.defaultKeyCommand."""
    import subprocess

    if not how.default_key_command:
        raise SigningError("gpg failed to sign the data: either user.signingkey or gpg.ssh.defaultKeyCommand "
                           "needs to be configured", hint=_hint(how, ""))
    try:
        proc = subprocess.run(how.default_key_command, shell=True, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=SIGN_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SigningError(f"gpg failed to sign the data: gpg.ssh.defaultKeyCommand failed: {exc}",
                           hint=_hint(how, "")) from exc
    first = proc.stdout.decode("utf-8", "replace").strip().splitlines()
    if proc.returncode != 0 or not first:
        raise SigningError("gpg failed to sign the data: gpg.ssh.defaultKeyCommand gave no key",
                           hint=_hint(how, _said(proc.stderr.decode("utf-8", "replace"))))
    return first[0]


def _literal_ssh_key(key: str) -> str | None:
    """The public key a literal `user.signingKey` names (git's is_literal_ssh_key), else None."""
    if key.startswith("key::"):
        return key[len("key::"):]
    if key.startswith("ssh-"):
        return key
    return None


def _run(args: list[str], stdin: bytes) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of a signing program. gpg may ask its agent for a
    passphrase (pinentry): a person at a terminal can answer; a hook gives up at the timeout."""
    import subprocess  # here, not at import: an unsigned commit never starts a process

    try:
        proc = subprocess.run(args, input=stdin, capture_output=True, timeout=SIGN_TIMEOUT, check=False)
    except FileNotFoundError:
        return 127, "", f"{args[0]}: command not found"
    except subprocess.TimeoutExpired:
        return 124, "", (f"{args[0]} gave no signature within {int(SIGN_TIMEOUT)} s "
                         "(a passphrase prompt nobody answered?)")
    except OSError as exc:
        return 126, "", f"{args[0]}: {exc.strerror}"
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def _said(stderr: str) -> str:
    """The signing program's own words, its status lines left out (one line)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip() and not ln.startswith("[GNUPG:]")]
    return "; ".join(lines[-2:])


def _hint(how: Signer, said: str) -> str:
    """What to do: nothing is lost, and the ways out git itself offers."""
    why = f"{said}. " if said else ""
    key = f"user.signingKey {how.key}" if how.key else "no user.signingKey"
    return (f"{why}commit.gpgSign is on ({how.format}, {how.program}, {key}); memory stays in the working copy "
            "and the next commit takes it. Fix the key or agent and run: git enf commit "
            "(or once unsigned: git -c commit.gpgSign=false enf commit)")


# --- telling someone once: a hook's failure ---------------------------------------------
# A hook cannot show an error to the person (it exits 0 and its stderr is not shown), so
# the first failure is kept in .git/enf/signing-failed: the next SessionStart's context
# names it once, `git enf status` while it lasts; the next commit that lands clears it.

_TOLD = "told"


def note_failure(state_dir: str, exc: SigningError) -> bool:
    """Keep a hook's signing failure; True when it is new (the hook logs it then, once)."""
    path = os.path.join(state_dir, FAILED_FILE)
    if os.path.exists(path):
        return False
    try:
        os.makedirs(state_dir, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"{exc.message}\n")
    except OSError:
        return False
    return True


def noted_failure(state_dir: str) -> str | None:
    """The failure a hook kept and no commit has cleared since, else None."""
    lines = _noted(state_dir)
    return lines[0] if lines else None


def tell_once(state_dir: str) -> str | None:
    """The kept failure if nobody was told of it yet (then it counts as told), else None."""
    lines = _noted(state_dir)
    if not lines or _TOLD in lines[1:]:
        return None
    try:
        with open(os.path.join(state_dir, FAILED_FILE), "a", encoding="utf-8") as f:
            f.write(_TOLD + "\n")
    except OSError:
        pass
    return lines[0]


def _noted(state_dir: str) -> list[str]:
    try:
        with open(os.path.join(state_dir, FAILED_FILE), encoding="utf-8") as f:
            return [ln.strip() for ln in f if ln.strip()]
    except OSError:
        return []


def clear_failure(state_dir: str) -> None:
    """A commit landed: the kept failure is over."""
    try:
        os.unlink(os.path.join(state_dir, FAILED_FILE))
    except OSError:
        pass
