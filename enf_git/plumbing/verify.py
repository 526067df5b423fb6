"""Who signed a memory commit, and whether git trusts the key: git's own verification,
asked once per commit and kept.

`verdicts(repo_dir, oids)` asks one `git log --no-walk=unsorted --stdin` for git's
signature placeholders (%G? %GS %GK %GF %GT) of every commit it has no verdict for, so
git runs gpg or ssh-keygen exactly as `git verify-commit` does, with the user's own
keyring, `gpg.ssh.allowedSignersFile`, `gpg.minTrustLevel` and `git -c` settings.

Trusted means what `git verify-commit` accepts (exit 0):
- openpgp, x509: a good signature (%G? G, or U: good, from a key in your keyring whose
  validity gpg does not know), unless `gpg.minTrustLevel` asks for more. Putting a
  teammate's key in your keyring is the act of trust, as it is for git; set
  `gpg.minTrustLevel marginal` to require keys you certified.
- ssh: a good signature by a key listed in `gpg.ssh.allowedSignersFile` (G). A good
  signature by any other key is U and not trusted: anyone can make an ssh key.
Expired (X, Y), revoked (R), bad (B), uncheckable (E) and unsigned (N) are never trusted.
git reports N for an ssh-signed commit when no allowedSignersFile is configured; the
commit's own gpgsig header tells that apart from unsigned ("unverifiable").

The cache (.git/enf/verdicts.json) keys verdicts by commit id. A commit's signature
never changes, but whether git trusts it does when the trust configuration does, so the
cache also holds a digest of that configuration: the allowedSignersFile and
revocationFile (path and content), gpg.minTrustLevel, the verifying programs, and the
gpg home's keyring and trustdb files (path, size, modification time; gpg rewrites its
trustdb when a key expires, is revoked or certified). When the digest differs, every
verdict of a signed commit is asked again; "unsigned" stays (no configuration changes it).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from .. import fastjson
from . import atomic, store

CACHE_FILE = "verdicts.json"
CACHE_VERSION = 1
BATCH = 500  # commits per `git log`: each chunk's verdicts are kept before the next is asked
VERIFY_TIMEOUT = 120.0
_FORMAT = "%H%x1f%G?%x1f%GS%x1f%GK%x1f%GF%x1f{trust}%x1e"
# git's trust levels, lowest first (gpg-interface.c)
_TRUST_ORDER = ("undefined", "never", "marginal", "fully", "ultimate")
_KINDS = {"B": "bad", "X": "expired", "Y": "expired-key", "R": "revoked",
          "E": "unverifiable", "N": "unsigned"}
_GNUPG_FILES = ("pubring.kbx", "pubring.gpg", "trustdb.gpg", "trustlist.txt")


class Verdict(NamedTuple):
    letter: str  # git's %G?: G B U X Y R E N
    kind: str  # good (trusted), untrusted, bad, expired, expired-key, revoked, unverifiable, unsigned
    trusted: bool  # `git verify-commit` would accept it (see the module's doc)
    signer: str = ""  # %GS: the key's user id (openpgp) or the allowed-signers principal (ssh)
    key: str = ""  # %GK: key id (openpgp) or fingerprint (ssh)
    fingerprint: str = ""  # %GF
    trust: str = ""  # %GT: undefined, never, marginal, fully, ultimate
    format: str = ""  # openpgp, ssh, x509 ('' unsigned)

    @property
    def why(self) -> str:
        """Why it is not trusted, in a phrase ('' when it is)."""
        if self.trusted:
            return ""
        return {
            "unsigned": "unsigned",
            "bad": "bad signature",
            "untrusted": ("signed by a key not in gpg.ssh.allowedSignersFile" if self.format == "ssh"
                          else f"signed by a key below gpg.minTrustLevel ({self.trust or 'undefined'})"),
            "expired": "expired signature",
            "expired-key": "signed by an expired key",
            "revoked": "signed by a revoked key",
        }.get(self.kind, "signature cannot be checked"
              + (" (no gpg.ssh.allowedSignersFile)" if self.format == "ssh" else " (key missing?)"))


UNSIGNED = Verdict("N", "unsigned", False)


def verdicts(repo_dir: str, commit_oids: Iterable[str], repo: store.Repo | None = None,
             env: Mapping[str, str] | None = None) -> dict[str, Verdict]:
    """Each commit's verdict (ids git does not have are left out); cached in .git/enf."""
    repo = repo if repo is not None else store.open_repo(repo_dir)
    environ = os.environ if env is None else env
    path = os.path.join(str(store.state_dir(repo)), CACHE_FILE)
    digest = trust_digest(repo, environ)
    known = _load(path, digest)
    out: dict[str, Verdict] = {}
    todo: list[str] = []
    for oid in dict.fromkeys(commit_oids):
        kept = known.get(oid)
        if kept is not None:
            out[oid] = kept
        elif _is_commit(repo, oid):
            todo.append(oid)
    for start in range(0, len(todo), BATCH):
        found = _ask_git(repo_dir, repo, todo[start:start + BATCH], environ)
        out.update(found)
        known.update(found)
        _save(path, trust_digest(repo, environ), known)  # after git: gpg may have rewritten its trustdb
    return out


def trust_digest(repo: store.Repo, env: Mapping[str, str]) -> str:
    """A digest of everything git's verdicts depend on besides the commits themselves."""
    import hashlib  # here: a start that trusts all memory never asks git for a verdict

    h = hashlib.sha1(usedforsecurity=False)
    for key in ("gpg.ssh.allowedsignersfile", "gpg.ssh.revocationfile"):
        where = store.config_value(repo, key)
        h.update(f"{key}={where}\0".encode())
        if where:
            h.update(_content(_expand(where, repo)))
    for key in ("gpg.mintrustlevel", "gpg.program", "gpg.openpgp.program", "gpg.x509.program", "gpg.ssh.program"):
        h.update(f"{key}={store.config_value(repo, key)}\0".encode())
    home = env.get("GNUPGHOME") or os.path.join(env.get("HOME", ""), ".gnupg")
    h.update(f"gnupghome={home}\0".encode())
    for name in _GNUPG_FILES:
        try:
            st = os.stat(os.path.join(home, name))
        except OSError:
            continue
        h.update(f"{name}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _expand(where: str, repo: store.Repo) -> str:
    """A path setting as git reads it: `~` expanded; relative to the repository's top
    (git runs ssh-keygen there)."""
    path = os.path.expanduser(where)
    top = repo.workdir or repo.path
    return path if os.path.isabs(path) else os.path.join(top, path)


def _content(path: str) -> bytes:
    import hashlib

    try:
        with open(path, "rb") as f:
            return hashlib.sha1(f.read(), usedforsecurity=False).digest()
    except OSError:
        return b"absent"


def _is_commit(repo: store.Repo, oid: str) -> bool:
    try:
        return store.commit_at(repo, oid) is not None
    except (ValueError, KeyError):
        return False


def _ask_git(repo_dir: str, repo: store.Repo, oids: list[str], env: Mapping[str, str]) -> dict[str, Verdict]:
    """git's verdicts for `oids` (commits it has), one process.

    %GT (the key's trust level) is asked only under gpg.minTrustLevel, the one setting it
    decides anything for: git 2.39 dies on %GT for an ssh signature it could not check
    ("BUG: invalid trust level requested -1"); then it is asked again without.
    """
    min_trust = store.config_value(repo, "gpg.mintrustlevel")
    run = _log(repo_dir, oids, env, with_trust=bool(min_trust))
    if run[0] != 0 and min_trust and "trust level" in run[2]:
        run = _log(repo_dir, oids, env, with_trust=False)
    if run[0] != 0:
        from ..errors import EnfError

        said = run[2].strip().splitlines()
        raise EnfError(f"git could not verify memory commits: {said[-1] if said else run[0]}",
                       hint="git log --show-signature claude-memory shows what git says")
    out: dict[str, Verdict] = {}
    for record in run[1].split("\x1e"):
        fields = record.strip("\n").split("\x1f")
        if len(fields) == 6:
            out[fields[0]] = _verdict(repo, fields, min_trust)
    return out


def _log(repo_dir: str, oids: list[str], env: Mapping[str, str], with_trust: bool) -> tuple[int, str, str]:
    import subprocess

    from . import gitenv

    fmt = _FORMAT.format(trust="%GT" if with_trust else "")
    proc = subprocess.run(["git", "log", "--no-walk=unsorted", "--stdin", f"--format={fmt}"], cwd=repo_dir,
                          input="\n".join(oids).encode() + b"\n", capture_output=True,
                          env=gitenv.env_for_git(env), timeout=VERIFY_TIMEOUT, check=False)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def _verdict(repo: store.Repo, fields: list[str], min_trust: str | None) -> Verdict:
    oid, letter, signer, key, fpr, trust = fields
    fmt = _signature_format(repo, oid)
    if not fmt:
        return UNSIGNED
    if letter == "N":  # signed, but git could not even try (ssh without allowedSignersFile)
        letter = "E"
    trusted = _accepted(letter, fmt, trust, min_trust)
    kind = "good" if trusted else "untrusted" if letter in ("G", "U") else _KINDS.get(letter, "unverifiable")
    return Verdict(letter, kind, trusted, signer, key, fpr, trust, fmt)


def _accepted(letter: str, fmt: str, trust: str, min_trust: str | None) -> bool:
    """Whether `git verify-commit` exits 0 for this verdict (gpg-interface.c check_signature)."""
    if letter == "G":
        ok = True
    elif letter == "U":
        ok = fmt != "ssh"  # git fails an ssh signature no allowed signer matched
    else:
        return False
    wanted = (min_trust or "").strip().lower()
    if ok and wanted in _TRUST_ORDER[1:]:  # above git's default, undefined
        level = trust.lower() if trust.lower() in _TRUST_ORDER else "undefined"  # not known: the lowest
        ok = _TRUST_ORDER.index(level) >= _TRUST_ORDER.index(wanted)
    return ok


def _signature_format(repo: store.Repo, oid: str) -> str:
    """openpgp, ssh or x509 from the commit's gpgsig header; '' when it has none."""
    found = store.commit_signature(repo, oid)
    if found is None:
        return ""
    if b"BEGIN SSH SIGNATURE" in found:
        return "ssh"
    if b"BEGIN SIGNED MESSAGE" in found:
        return "x509"
    return "openpgp"


def _load(path: str, digest: str) -> dict[str, Verdict]:
    """The kept verdicts: all of them under the same trust digest, else the unsigned ones.

    Stored as a table of distinct verdicts (a handful: one per signer and outcome) and
    commit id -> row number, so 10,000 commits read as 10,000 small integers.
    """
    try:
        with open(path, encoding="utf-8") as f:
            data = fastjson.loads(f.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    table, rows = data.get("table"), data.get("verdicts")
    if not isinstance(table, list) or not isinstance(rows, dict):
        return {}
    same = data.get("trust") == digest
    kinds = [_from_row(row) for row in table]
    out: dict[str, Verdict] = {}
    for oid, n in rows.items():
        found = kinds[n] if isinstance(n, int) and 0 <= n < len(kinds) else None
        if found is not None and (same or found.kind == "unsigned"):
            out[oid] = found
    return out


def _from_row(row: object) -> Verdict | None:
    if not isinstance(row, list) or len(row) != 8:
        return None
    letter, kind, trusted, signer, key, fpr, trust, fmt = row
    return Verdict(str(letter), str(kind), bool(trusted), str(signer), str(key), str(fpr), str(trust), str(fmt))


def _save(path: str, digest: str, known: dict[str, Verdict]) -> None:
    table: dict[Verdict, int] = {}
    rows = {oid: table.setdefault(v, len(table)) for oid, v in known.items()}
    data = {"version": CACHE_VERSION, "trust": digest, "table": [list(v) for v in table], "verdicts": rows}
    try:
        atomic.write(path, fastjson.dumps(data).encode())
    except OSError:
        pass  # a read-only .git: the verdicts are asked again next time
