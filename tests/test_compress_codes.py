"""Compression never loses an error code, and hot is the current sessions plus the last 3.

Error codes (the seed: "exact file paths and error codes" are never compressed): every
code and exact error text a session names survives every tier verbatim, checked here
independently of the compressor's own extractor, over generated code shapes and over a
corpus of real-shaped error lines (tests/data/errors/error_lines.tsv: Python, Node, Go,
Rust, Java, PostgreSQL, HTTP, errno). The guard refuses an output that loses one.

Hot: a session in progress (status active, or its `.claude-sessions/.active/` marker)
is a current one, for SessionStart and for `git enf compress` from a shell alike, so the
last 3 other sessions stay whole; on real repositories.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import string
from collections.abc import Callable
from pathlib import Path

import pytest

from enf_git import memory
from enf_git.memory.lifecycle import compress
from enf_git.pure import tiers
from gitfixtures import Git

CORPUS = Path(__file__).parent / "data" / "errors" / "error_lines.tsv"
PATH = "sessions/2026-01-10-reader.md"


def corpus() -> list[tuple[str, str, list[str]]]:
    """(ecosystem, error line, the codes in it) of each corpus line."""
    rows = []
    for raw in CORPUS.read_text(encoding="utf-8").splitlines():
        if raw and not raw.startswith("#"):
            lang, line, *codes = raw.split("\t")
            rows.append((lang, line, codes))
    return rows


def session(sections: dict[str, list[str]], sid: str = "a1b2c3d4", date: str = "2026-01-10",
            status: str = "completed") -> bytes:
    head = ["---", f"session_id: {sid}", f"date: {date}", 'start_time: "10:00"', "tags: [reader]",
            f"status: {status}", 'summary: "Fixed the block reader"', "---"]
    return "\n".join([*head, *(f"## {name}\n" + "\n".join(lines) + "\n" for name, lines in sections.items())]).encode()


def interactions(claude_lines: list[str], padding: int = 25) -> list[str]:
    """Interactions whose first entries say `claude_lines`, then enough more that the
    fold tier folds those first ones away (it keeps the newest 20)."""
    out = []
    for k, line in enumerate([*claude_lines, *(f"ran the reader tests, pass {i}" for i in range(padding))]):
        out += [f"### [1{k // 60 % 10}:{k % 60:02d}] User -> look at step {k}", f"**Claude ->** {line}", ""]
    return out


def body_of(data: bytes) -> str:
    return data.decode().split("\n---\n", 1)[1]


def verbatim(text: str, body: str) -> bool:
    """`text` is in `body` as itself: not as a piece of a longer word or code."""
    return re.search(rf"(?<!\w){re.escape(text)}(?!\w)", body) is not None


def every_tier(data: bytes) -> dict[str, str]:
    """The body each tier writes (compress raises if its guard refuses)."""
    return {tier: body_of(tiers.compress(PATH, data, tier)) for tier in tiers.TIERS}


# --- error codes: the cases the report named ----------------------------------------------

def test_an_error_code_with_underscores_and_a_short_hex_offset_survive_every_tier() -> None:
    entry = "- [10:15] Error: `ERR_ZQ_4421: checksum mismatch at offset 0x1f`. Fix: reread the block"
    data = session({"Intent": ["Fix the block reader."], "Errors & Fixes": [entry]})
    for tier, body in every_tier(data).items():
        assert entry in body.split("\n"), tier  # the whole entry, as written
    cold = every_tier(data)["cold"]
    assert "## Errors & Fixes\n" + entry + "\n" in cold


def test_codes_named_only_in_prose_are_listed_under_references() -> None:
    data = session({"Intent": ["Fix the block reader."],
                    "Interactions": interactions(["hit ERR_ZQ_4421 at offset 0x1f, then HTTP/1.1 503 Service Unavailable"])})
    for tier, body in every_tier(data).items():
        refs = body.split("## References\n", 1)[1]
        for code in ("ERR_ZQ_4421", "0x1f", "503 Service Unavailable"):
            assert f"`{code}`" in refs, (tier, code)


def test_an_exact_error_text_in_backticks_is_listed_once_with_its_codes() -> None:
    text = "psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint \"users_email_key\""
    data = session({"Intent": ["Fix the import."], "Interactions": interactions([f"read `src/db.py`, and the import failed with `{text}`"])})
    for tier, body in every_tier(data).items():
        refs = body.split("## References\n", 1)[1]
        assert f"- errors:\n  - `{text}`\n" in refs, tier
        assert "`psycopg2.errors.UniqueViolation`" not in refs  # the error text holds it already


# --- error codes: the corpus --------------------------------------------------------------

@pytest.mark.parametrize("lang", sorted({lang for lang, _, _ in corpus()}))
def test_real_error_lines_in_errors_and_fixes_survive_every_tier_whole(lang: str) -> None:
    entries = [f"- [10:{k:02d}] Error: {line} Fix: handled it" for k, (la, line, _) in enumerate(corpus()) if la == lang]
    data = session({"Intent": ["Fix the service."], "Errors & Fixes": entries})
    for tier, body in every_tier(data).items():
        lines = body.split("\n")
        assert [e for e in entries if e not in lines] == [], tier


@pytest.mark.parametrize("lang", sorted({lang for lang, _, _ in corpus()}))
def test_the_codes_of_real_error_lines_named_in_prose_survive_every_tier(lang: str) -> None:
    rows = [(line, codes) for la, line, codes in corpus() if la == lang]
    data = session({"Intent": ["Fix the service."], "Interactions": interactions([f"saw {line} there" for line, _ in rows]),
                    "Friction Events": [f"- [12:0{k % 10}] retried after {line}" for k, (line, _) in enumerate(rows)]})
    found = tiers.references(body_of(data))["codes"]
    for line, codes in rows:
        assert set(codes) <= found, line  # the extractor sees each code as it stands
    for tier, body in every_tier(data).items():
        for line, codes in rows:
            assert [c for c in codes if not verbatim(c, body)] == [], (tier, line)


def test_real_error_lines_quoted_in_prose_survive_every_tier_whole() -> None:
    quoted = [line for _, line, _ in corpus() if "`" not in line]
    data = session({"Intent": ["Fix the service."], "Interactions": interactions([f"got `{q}` again" for q in quoted])})
    for tier, body in every_tier(data).items():
        assert [q for q in quoted if f"`{q}`" not in body] == [], tier


# --- error codes: generated shapes --------------------------------------------------------

ERRNO = ["EACCES", "ENOENT", "EEXIST", "EPERM", "EIO", "E2BIG", "EAGAIN", "EBADF", "ENOSPC", "EPIPE", "EROFS",
         "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET", "EADDRINUSE", "EHOSTUNREACH", "EMFILE", "ENOTEMPTY", "EWOULDBLOCK"]
REASONS = ["Bad Request", "Unauthorized", "Forbidden", "Not Found", "Conflict", "Gone", "Too Many Requests",
           "Internal Server Error", "Bad Gateway", "Service Unavailable", "Gateway Timeout", "Payload Too Large"]
SUFFIXES = ["Error", "Exception", "Warning", "Interrupt", "Exit", "Timeout", "Violation"]


def generated_code(rng: random.Random) -> tuple[str, str]:
    """(the code, how a session writes it) in one of the shapes sessions name."""
    up = lambda k: "".join(rng.choice(string.ascii_uppercase) for _ in range(k))  # noqa: E731
    dig = lambda k: "".join(rng.choice(string.digits) for _ in range(k))  # noqa: E731
    def mixed() -> str:  # [A-Z][A-Z0-9_]* with a digit somewhere
        rest = [rng.choice(string.ascii_uppercase + string.digits + "_") for _ in range(rng.randint(1, 10))]
        rest[rng.randrange(len(rest))] = rng.choice(string.digits)
        return rng.choice(string.ascii_uppercase) + "".join(rest)
    shape = rng.randrange(13)
    if shape == 0:
        code = f"{up(rng.randint(1, 4))}{dig(rng.randint(1, 6))}"  # E0308, TS2345, CS0246
    elif shape == 1:
        code = f"{up(rng.randint(1, 4))}-{dig(rng.randint(2, 6))}"  # ORA-00942
    elif shape == 2:
        code = "_".join(up(rng.randint(1, 6)) for _ in range(rng.randint(2, 4)))  # MODULE_NOT_FOUND
        code += rng.choice(["", f"_{dig(rng.randint(1, 5))}"])  # ERR_ZQ_4421
    elif shape == 3:
        code = rng.choice(["ERR_", "E_", "ERR"]) + up(rng.randint(2, 8))  # ERR_SOCKET_CLOSED, ERRFOO
    elif shape == 4:
        code = rng.choice(ERRNO) if rng.random() < 0.5 else "E" + up(rng.randint(2, 10))  # errno, made-up ones too
    elif shape == 5:
        code = mixed()
    elif shape == 6:
        code = "0x" + "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(rng.randint(1, 16)))
    elif shape == 7:
        code = rng.choice(["SQLSTATE ", "SQLSTATE: ", "SQLSTATE="]) + rng.choice([dig(5), dig(2) + "P" + dig(2)])
    elif shape == 8:
        code = rng.choice([dig(2) + up(1) + dig(2), dig(1) + up(1) + dig(3)])  # 42P01, 0A000
    elif shape == 9:
        reason = rng.choice(REASONS)
        code = f"{rng.randint(4, 5)}{dig(2)} {rng.choice([reason, reason.lower(), reason.upper()])}"
    elif shape == 10:
        name = "".join(rng.choice(string.ascii_uppercase) + "".join(rng.choice(string.ascii_lowercase)
                                                                   for _ in range(rng.randint(1, 6)))
                       for _ in range(rng.randint(0, 3))) + rng.choice(SUFFIXES)
        if name in SUFFIXES:
            name = "Io" + name
        module = ".".join(rng.choice(["java", "lang", "psycopg2", "errors", "exc", "io", "net"])
                          for _ in range(rng.randint(0, 3)))
        code = f"{module}.{name}" if module else name
    elif shape == 11:
        code = "SIG" + up(rng.randint(2, 6))
    else:
        n = rng.randint(1, 140)
        return f"Errno {n}", f"[Errno {n}]"
    context = rng.choice(["{}", "`{}`", "({})", "{}:", "{},", "got {}.", "[{}]", "'{}'", '"{}"', "an {}-style failure"])
    return code, context.format(code)


def generated_session(rng: random.Random, n: int) -> tuple[bytes, list[str]]:
    """A session naming codes anywhere: in sections every tier keeps and in ones they drop."""
    named = [generated_code(rng) for _ in range(rng.randint(1, 8))]
    spots: dict[str, list[str]] = {"Intent": ["Fix the reader."], "Interactions": [], "Friction Events": [],
                                   "Open Items": [], "Errors & Fixes": [], "Files Touched": [], "Notes": []}
    claude = []
    for k, (_, written) in enumerate(named):
        where = rng.choice([*spots, "Interactions", "Interactions"])
        line = f"ran step {k} and hit {written} on the reader"
        if where == "Interactions":
            claude.append(line)
        elif where == "Open Items":
            spots[where].append(f"- [{rng.choice(' x')}] {line}")
        elif where == "Files Touched":
            spots[where].append(f"- `src/reader{k}.py` — role: modified, what: {line}")
        else:
            spots[where].append(f"- [11:{k:02d}] {line}")
    spots["Interactions"] = interactions(claude, padding=rng.choice([0, 25]))
    return session({k: v for k, v in spots.items() if v}, sid=f"g{n:07x}"), [c for c, _ in named]


@pytest.mark.parametrize("seed", range(0, 400, 50))
def test_generated_code_shapes_survive_every_tier_verbatim(seed: int) -> None:
    for n in range(seed, seed + 50):
        data, codes = generated_session(random.Random(n), n)
        found = tiers.references(body_of(data))["codes"]
        assert [c for c in codes if c not in found] == [], n  # the extractor sees every shape
        for tier, body in every_tier(data).items():
            assert [c for c in codes if not verbatim(c, body)] == [], (n, tier)


@pytest.mark.parametrize("seed", range(0, 400, 100))
def test_tiers_still_compose_over_generated_code_shapes(seed: int) -> None:
    # Clones that compressed in other steps agree: what one tier lists under References
    # the next reads back as the same kind (a code of several words stays a code).
    for n in range(seed, seed + 100):
        data, _ = generated_session(random.Random(n), n)
        warm, cold, folded = (tiers.compress(PATH, data, tier) for tier in ("warm", "cold", "fold"))
        assert tiers.compress(PATH, warm, "cold") == cold, n
        assert tiers.compress(PATH, folded, "warm") == warm and tiers.compress(PATH, folded, "cold") == cold, n


def test_every_code_found_is_found_again_where_references_lists_it() -> None:
    # What keeps the guard from refusing its own output: a code alone between backticks
    # is found as itself, whatever shape and context it was found in.
    texts = [line for _, line, _ in corpus()] + [generated_code(random.Random(n))[1] for n in range(2000)]
    for text in texts:
        for code in tiers.codes(text):
            assert code in tiers.codes(f"- codes: `{code}`, `x`"), (text, code)


# --- error codes: the guard ---------------------------------------------------------------

def test_the_guard_refuses_a_compression_that_loses_a_code_or_an_error_text() -> None:
    entry = "- [10:15] Error: `ERR_ZQ_4421: checksum mismatch at offset 0x1f`. Fix: reread the block"
    quoted = "`panic: runtime error: index out of range [5] with length 3`"
    data = session({"Intent": ["Fix the block reader."], "Errors & Fixes": [entry],
                    "Interactions": interactions([f"then EADDRINUSE, SQLSTATE 40001 and {quoted}"])})
    cold = tiers.compress(PATH, data, "cold").decode()
    losses = {
        "the error line": cold.replace(entry + "\n", ""),
        "code 'EADDRINUSE'": cold.replace("`EADDRINUSE`, ", ""),
        "code 'SQLSTATE 40001'": cold.replace("`SQLSTATE 40001`", "`40001`"),
        "error 'panic": cold.replace(f"  - {quoted}\n", ""),
        "code 'ERR_ZQ_4421'": cold.replace("ERR_ZQ_4421:", "ERR_ZQ:"),
        "code '0x1f'": cold.replace("offset 0x1f", "offset 0x1"),
    }
    for what, text in losses.items():
        assert text != cold, what  # the case does change the output
        with pytest.raises(tiers.CompressionRefused, match="would lose") as refused:
            tiers.guard(PATH, data, text.encode(), "cold")
        assert what.replace("'", "") in refused.value.message.replace("'", ""), (what, refused.value.message)
    tiers.guard(PATH, data, cold.encode(), "cold")  # the real output passes


# --- hot: the current sessions plus the last 3 --------------------------------------------

AS_OF = dt.date(2026, 4, 13)
NOW = int(dt.datetime(2026, 4, 13, 9, 0, tzinfo=dt.timezone.utc).timestamp())
IN_PROGRESS = "2026-04-13-in-progress"
LAST3 = ["2026-04-12-last-one", "2026-04-11-last-two", "2026-04-10-last-three"]  # the third is 3 days old
OLDER = {"2026-04-01-older-warm": "warm", "2026-01-10-older-cold": "cold"}


def long_session(stem: str, status: str = "completed") -> str:
    sid = f"{sum(map(ord, stem)) % 10**8:08d}"
    return session({"Intent": [f"Work on {stem[11:]}."],
                    "Interactions": interactions([f"changed src/{stem[11:]}.py"], padding=3),
                    "Errors & Fixes": ["- [10:15] Error: `EPIPE on the socket`. Fix: retried"]},
                   sid=sid, date=stem[:10], status=status).decode()


def sid_of(stem: str) -> str:
    return f"{sum(map(ord, stem)) % 10**8:08d}"


@pytest.fixture
def ctx(repo_dir: Path) -> memory.Context:
    c = memory.Context.open(repo_dir)
    memory.init(c, now=NOW - 86400 * 200)
    return c


def put(ctx: memory.Context, in_progress_status: str) -> dict[str, str]:
    texts = {IN_PROGRESS: long_session(IN_PROGRESS, in_progress_status),
             **{stem: long_session(stem) for stem in [*LAST3, *OLDER]}}
    for stem, text in texts.items():
        (ctx.root / "sessions" / f"{stem}.md").write_text(text)
    assert memory.commit(ctx, "sessions", now=NOW - 3600).commit is not None
    return texts


def mark(ctx: memory.Context, stem: str) -> Path:
    marker = ctx.root / ".active" / sid_of(stem)
    marker.parent.mkdir(exist_ok=True)
    marker.write_text("")
    return marker


def on_branch(git: Git, stem: str) -> str:
    return git("show", f"claude-memory:sessions/{stem}.md")


@pytest.mark.parametrize("how", ["status", "marker"])
def test_the_dry_run_from_a_shell_lists_no_active_session_nor_the_last_three(
        ctx: memory.Context, git: Git, run_cli: Callable[..., str], how: str) -> None:
    put(ctx, "active" if how == "status" else "completed")
    if how == "marker":
        mark(ctx, IN_PROGRESS)
    got = json.loads(run_cli("compress", "--dry-run", "--as-of", AS_OF.isoformat(), "--json"))
    assert [(s["session"], s["tier"]) for s in got["sessions"]] == \
        [("2026-01-10-older-cold", "cold"), ("2026-04-01-older-warm", "warm")]
    run_cli("compress", "--as-of", AS_OF.isoformat())
    for stem in [IN_PROGRESS, *LAST3]:
        assert "tier:" not in on_branch(git, stem), stem
    assert "tier: warm" in on_branch(git, "2026-04-01-older-warm")


def test_session_start_counts_another_active_session_as_current(ctx: memory.Context, git: Git) -> None:
    put(ctx, "active")  # an interrupted session, and a new one starting (its file not written yet)
    done = [s for k in range(3) for s in compress.scheduled(ctx, NOW + k * 60, current="f00dfeed").done]
    assert [(s.stem, s.tier) for s in done] == [("2026-01-10-older-cold", "cold"), ("2026-04-01-older-warm", "warm")]
    for stem in [IN_PROGRESS, *LAST3]:
        assert "tier:" not in on_branch(git, stem), stem


def test_a_marked_session_is_never_compressed_and_says_which_marker_keeps_it(
        ctx: memory.Context, run_cli: Callable[..., str]) -> None:
    put(ctx, "completed")
    mark(ctx, "2026-01-10-older-cold")
    out = run_cli("compress", "2026-01-10-older-cold", "--as-of", AS_OF.isoformat(), code=1)
    assert out == (f"skipped 2026-01-10-older-cold: never compressed: active (its marker "
                   f".claude-sessions/.active/{sid_of('2026-01-10-older-cold')} exists; delete the marker once "
                   "that session has ended)\n")


def test_removing_a_marker_lets_the_next_session_start_compress_what_is_due(ctx: memory.Context, git: Git) -> None:
    put(ctx, "completed")
    marker = mark(ctx, IN_PROGRESS)
    while compress.scheduled(ctx, NOW).done:  # the older two; the last three and the marked one stay
        pass
    assert "tier:" not in on_branch(git, LAST3[2])
    marker.unlink()  # that session ended: it is one of the last three now, the third of them is not
    assert [(s.stem, s.tier) for s in compress.scheduled(ctx, NOW).done] == [(LAST3[2], "warm")]
