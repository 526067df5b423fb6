"""What a git transfer returns (Outcome, State, Remote, Presence, FetchResult,
PushResult, Plan) and how its failures read: each sorted into an Outcome, with a message
saying what happened and what to type next, URLs shown without credentials.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from enf_git import paths

from .gitrun import _Run


def tracking_ref(remote_name: str, branch: str = paths.BRANCH) -> str:
    return f"refs/remotes/{remote_name}/{branch}"


class Outcome(str, Enum):
    OK = "ok"  # fetched / pushed
    UP_TO_DATE = "up-to-date"
    ABSENT = "absent"  # the remote has no claude-memory (fetch)
    NON_FAST_FORWARD = "non-fast-forward"
    NO_RIGHTS = "no-rights"  # 403, protected branch, a hook declined, credentials needed
    NOT_FOUND = "not-found"  # no repository at that URL/path (or not readable)
    OFFLINE = "offline"  # DNS, refused, unreachable, timed out
    UNKNOWN = "unknown"


class State(str, Enum):
    PRESENT = "present"
    ABSENT = "absent"
    UNKNOWN = "unknown"


# NamedTuples, not frozen dataclasses: six of those cost ~5 ms at import, on every sync and
# every pre-push hook (they compare and read the same; the values are never mutated).
class Remote(NamedTuple):
    """What to hand to git (`arg`: a remote name or a URL) and where its branch is tracked."""

    arg: str
    is_url: bool

    @property
    def label(self) -> str:
        return _redact_url(self.arg)

    @property
    def tracking_ref(self) -> str:
        return tracking_ref(paths.URL_REMOTE_NAME if self.is_url else self.arg)


class Presence(NamedTuple):
    state: State
    oid: str | None = None  # PRESENT: the remote's OID
    reason: Outcome | None = None  # UNKNOWN: why we could not tell
    message: str = ""
    names: tuple[str, ...] = ()  # remote_has_code_branches: the branches found

    @property
    def may_create(self) -> bool:
        """Only a definite "absent" allows creating the branch there; "could not tell" never."""
        return self.state is State.ABSENT


class FetchResult(NamedTuple):
    outcome: Outcome
    ref: str  # the remote-tracking ref written
    before: str | None  # its OID before the fetch
    after: str | None  # and after
    message: str
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.OK, Outcome.UP_TO_DATE, Outcome.ABSENT)


class PushResult(NamedTuple):
    outcome: Outcome
    message: str
    summary: str = ""  # git's per-ref status line ("[new branch]", "[rejected] (fetch first)", ...)
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome in (Outcome.OK, Outcome.UP_TO_DATE)


class Plan(NamedTuple):
    """What a sync would move, read without writing anything (`--dry-run`)."""

    remote: Presence  # the remote's claude-memory
    local: str | None  # refs/heads/claude-memory
    tracking: str | None  # refs/remotes/<remote>/claude-memory
    fetch: str  # "nothing", "new", "update", "unknown"
    push: str  # "nothing", "create", "fast-forward", "merge first", "fetch first", "unknown"
    ahead: int | None  # local commits the remote lacks (when known)
    behind: int | None  # remote commits we lack (when known)


_LOST_RACE_WORDS = ("failed to update ref", "failed to lock", "cannot lock ref", "incorrect old value")


def _classify_rejection(summary: str) -> Outcome:
    text = summary.lower()
    behind = ("non-fast-forward", "fetch first", "stale info", "already exists")
    if "[rejected]" in text and any(w in text for w in behind):
        return Outcome.NON_FAST_FORWARD
    # receive-pack lost the ref's lock, or found it moved, after the pack went over: a
    # teammate's push landed in between (measured with three clones through git daemon).
    # Another round fetches their memory; a server that always says so ends after MAX_ROUNDS.
    if "[remote rejected]" in text and any(w in text for w in _LOST_RACE_WORDS):
        return Outcome.NON_FAST_FORWARD
    if "[remote rejected]" in text and any(w in text for w in _RIGHTS_WORDS + ("hook declined", "denied")):
        return Outcome.NO_RIGHTS
    return Outcome.UNKNOWN


# --- classifying failures --------------------------------------------------------------

_RIGHTS_WORDS = ("returned error: 403", "returned error: 401", "permission denied", "protected branch",
                 "authentication failed", "could not read username", "could not read password",
                 "terminal prompts disabled", "host key verification failed", "not authorized",
                 "access denied", "pre-receive hook declined", "you are not allowed", "forbidden")
_NOT_FOUND_WORDS = ("does not appear to be a git repository", "repository not found", "returned error: 404",
                    "could not be found", "no such repository", "not exported")
_OFFLINE_WORDS = ("could not resolve host", "could not resolve hostname", "connection refused",
                  "connection timed out", "network is unreachable", "no route to host", "unable to connect",
                  "failed to connect", "operation timed out", "connection reset", "unable to look up",
                  "temporary failure in name resolution", "name or service not known",
                  "the remote end hung up unexpectedly",
                  "couldn't connect", "from proxy", "ssl_connect", "gnutls_handshake")


def _classify(run: _Run) -> Outcome:
    if run.timed_out:
        return Outcome.OFFLINE
    text = run.err.lower()
    # An access refusal is often worded as "repository not found" (GitHub, git daemon), so
    # credentials are looked at first, then absence, then the network.
    for outcome, words in ((Outcome.NO_RIGHTS, _RIGHTS_WORDS), (Outcome.NOT_FOUND, _NOT_FOUND_WORDS),
                           (Outcome.OFFLINE, _OFFLINE_WORDS)):
        if any(w in text for w in words):
            return outcome
    return Outcome.UNKNOWN


def _message(outcome: Outcome, remote: Remote, verb: str, run: _Run, summary: str = "") -> str:
    name, branch = remote.label, paths.BRANCH
    kept = "memory stays committed locally; "
    if outcome is Outcome.NON_FAST_FORWARD:
        return (f"{name} has memory you do not have yet ({summary or 'not a fast-forward'}): "
                f"{kept}run git enf sync again")
    if outcome is Outcome.NO_RIGHTS:
        if "terminal prompts disabled" in run.err or "could not read username" in run.err.lower():
            return (f"{name} asked for credentials and enf-git never prompts: {kept}set up a credential "
                    f"helper or an ssh key (try git fetch {remote.arg} by hand once), then run git enf sync")
        if "host key verification failed" in run.err.lower():
            return (f"ssh does not know {name}'s host key yet: {kept}connect once by hand "
                    f"(git fetch {remote.arg}) to accept it, then run git enf sync")
        what = "push to" if verb == "push" else "read"
        said = _server_said(run.err)
        why = _first_line(summary or run.err) + (f"; the server said: {said}" if said else "")
        return (f"you may not {what} {branch} on {name} ({why}): {kept}"
                "ask for access, or set enf.remote to a remote you can push to")
    if outcome is Outcome.NOT_FOUND:
        return (f"{name} was not found, or you may not read it ({_first_line(run.err)}): {kept}"
                "check the URL with git remote -v, or set enf.remote")
    if outcome is Outcome.OFFLINE:
        why = "timed out" if run.timed_out else f"could not be reached (offline?): {_first_line(run.err)}"
        return f"{name} {why}; {kept}it goes with the next sync"
    return f"git {verb} {name} failed: {_first_line(summary or run.err) or 'no message'}; {kept}run git enf doctor"


def _server_said(text: str, most: int = 2) -> str:
    """What the server's own hook or policy printed (git's `remote: ` lines): why it said no."""
    said = [line.strip()[len("remote:"):].strip() for line in text.splitlines() if line.strip().startswith("remote:")]
    said = [line[:200] for line in said if line]
    return _redact_url(" / ".join(said[:most]))


def _first_line(text: str) -> str:
    """The most telling line of git's stderr: the first fatal/error one, else the first."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:", "remote: error", "! ")):
            return _redact_url(line)
    return _redact_url(lines[0]) if lines else ""


def masked(text: str) -> str:
    """`text` with every URL's user-info (user:token@) masked, for messages."""
    return _redact_url(text)


def _redact_url(text: str) -> str:
    """Drop the user-info (user:token@) from every URL in `text`: messages must not leak it."""
    out, start = [], 0
    while (i := text.find("://", start)) >= 0:
        end = i + 3
        stop = end
        while stop < len(text) and text[stop] not in " \t\n'\"/":
            stop += 1
        at = text.rfind("@", end, stop)
        out.append(text[start:end])
        start = at + 1 if at >= 0 else end
        if at >= 0:
            out.append("***@")
    out.append(text[start:])
    return "".join(out)
