"""Hostile and broken record files: parsing is bounded, every problem is named with its
line, and one bad file (in the working copy or already on the branch) never stops the
good ones or any read command."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from enf_git.errors import EnfError, RecordError
from enf_git.pure import fm, model
from gitfixtures import Git, session_text

PATH = "sessions/2026-04-13-x.md"
HEAD = "---\nsession_id: a1b2c3d4\ndate: 2026-04-13\nstatus: completed\n"
Y = ("- [14:10] Y: In the context of search, facing scale, decided Elasticsearch over Algolia, "
     "to achieve control, accepting ops. Confidence: high")
NESTED_LIST = "---\nsession_id: b1\ntags: " + "[" * 5000 + "]" * 5000 + "\n---\n"
NESTED_MAP = "---\nsession_id: b1\n" + "".join(" " * i + f"k{i}:\n" for i in range(300)) + "---\n"


def alias_bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "---\nsession_id: b1\n" + "\n".join(lines) + f"\ntags: [{', '.join([f'*a{levels - 1}'] * 9)}]\n---\n"


def problems_of(text: str) -> list[tuple[int, str]]:
    with pytest.raises(RecordError) as info:
        model.parse_session(PATH, text.encode())
    return list(info.value.problems)


# -- bounded YAML --------------------------------------------------------------------


@contextmanager
def hang_guard(seconds: float = 20.0) -> Iterator[None]:
    """Fail an input that hangs the parser (catastrophic backtracking, a runaway alias).

    Not a speed check (the benchmarks measure speed): each input here parses in
    milliseconds, and the hang it guards against takes minutes to forever, so a bound
    this loose never trips on a slow or loaded machine.
    """
    def expired(*_: object) -> None:
        raise TimeoutError(f"parsing took over {seconds:g} s: something backtracks or expands without bound")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(("text", "line", "words"), [
    (NESTED_LIST, 3, "nested deeper than 16 levels"),
    (NESTED_MAP, 18, "nested deeper than 16 levels"),
    (alias_bomb(), 4, "aliases (*name) are not allowed"),  # the first alias
    ("---\nsession_id: b1\ntags: " + "[" * 60_000 + "\n---\n", 3, "nested deeper than 16 levels"),
    ("---\nsession_id: b1\nsummary: " + "x" * 70_000 + "\n---\n", 2, "at most 64 KiB"),
    ("---\nsession_id: b1\nschema: " + "9" * 5000 + "\n---\n", 3, "invalid YAML frontmatter"),
    ("---\nsession_id: b1\ndate: !!timestamp soon\n---\n", 3, "does not match its tag"),
])
def test_hostile_headers_are_a_record_error_with_a_line(text: str, line: int, words: str) -> None:
    with hang_guard():
        [(at, reason)] = problems_of(text)
    assert (at, words in reason) == (line, True), reason


def test_the_depth_limit_still_reads_real_nesting() -> None:
    assert fm.parse("---\nk: " + "[" * 15 + "]" * 15 + "\n---\n").meta["k"] is not None
    with pytest.raises(fm.FrontmatterError):
        fm.parse("---\nk: " + "[" * 16 + "]" * 16 + "\n---\n")


def test_alias_bomb_stays_small_in_memory(tmp_path: Path) -> None:
    """Measured in a fresh process: before the bound this grew past 1 GiB."""
    script = tmp_path / "bomb.py"
    script.write_text(
        "import resource, sys\n"
        "from enf_git.pure import model\n"
        "from enf_git.errors import RecordError\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n    model.parse_session('sessions/2026-04-14-bomb.md', data)\n"
        "except RecordError as e:\n    print(e.problems[0][1])\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n")
    (tmp_path / "bomb.md").write_text(alias_bomb())
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "bomb.md")], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    reason, grown_mib = out.stdout.splitlines()
    assert "aliases" in reason
    assert int(grown_mib) < 50, out.stdout


# -- every problem, with its line ----------------------------------------------------


def test_every_problem_of_a_file_is_reported_with_its_line() -> None:
    text = ("---\nsession_id: {a: 1}\ndate: [2026]\nstatus: done\ntags: [a, [b, c]]\nsummary: s\n---\n"
            "## Decisions\n- [14:10] Y: decided Postgres\n")
    assert problems_of(text) == [
        (2, "session_id must be text, not a mapping"),
        (3, "date must be text, not a list"),
        (4, "status must be active or completed, not 'done'"),
        (5, "tags must be a flat list like [search, api]; item 2 is a collection"),
        (9, "decision line is not a Y-statement (no 'decided … over …'): name what was chosen over what"),
    ]


def test_the_message_carries_every_problem_on_one_line() -> None:
    with pytest.raises(RecordError) as info:
        model.parse_session(PATH, b"---\nsession_id: x y\ndate: yesterday\n---\n")
    assert info.value.message == ("sessions/2026-04-13-x.md:2: session_id must be one word, not 'x y'; "
                                  "sessions/2026-04-13-x.md:3: date must be a real day as YYYY-MM-DD, not 'yesterday'")
    assert (info.value.line, info.value.reason) == (2, "session_id must be one word, not 'x y'")


@pytest.mark.parametrize(("field", "reason"), [
    ("date: 2026-02-30", "invalid YAML frontmatter: day is out of range for month"),
    ('date: "2026-02-30"', "date must be a real day as YYYY-MM-DD, not '2026-02-30'"),
    ("date: {y: 2026}", "date must be text, not a mapping"),
    ("date: soon", "date must be a real day as YYYY-MM-DD, not 'soon'"),
    ("tags: [" + ", ".join(f"t{i}" for i in range(101)) + "]", "tags holds 101 tags; at most 100"),
    ("tags: [{a: b}]", "tags must be a flat list like [search, api]; item 1 is a collection"),
    ("summary: [a, b]", "summary must be text, not a list"),
])
def test_malformed_fields(field: str, reason: str) -> None:
    assert problems_of("---\nsession_id: a1b2c3d4\nstatus: completed\n" + field + "\n---\n") == [(4, reason)]


def test_dates_that_are_days_still_parse() -> None:
    for date in ("2026-04-13", '"2026-04-13"', "2026-04-13 10:00:00", "2026-04-13T10:00:00Z"):
        assert model.parse_session(PATH, f"---\nsession_id: a1\ndate: {date}\n---\n".encode()).date.startswith("2026-04-13")


# -- decision and reversal lines: warnings, the session stays ------------------------


def test_decision_lines_off_the_format_are_warnings_with_their_lines() -> None:
    body = "\n".join([
        "## Decisions",            # 6
        Y,                          # 7: fine
        "- [14:11] Y: decided Postgres",  # 8
        "- [14:12] Y: In the context of db, decided Postgres over",  # 9
        Y.replace("high", "very high"),  # 10
        "- [25:99] Y: decided A over B",  # 11
        "- Y: decided A over B",  # 12
        "- we should use Redis",  # 13
        "  - a sub-bullet is prose",  # 14
        "## Reversals",  # 15
        "- [09:31] REVERSED Elasticsearch: Changed from Elasticsearch to Postgres because cost",  # 16: fine
        "- [09:32] REVERSED Redis",  # 17
        "- REVERSED Redis: Changed from Redis to Memcached",  # 18
    ])
    s = model.parse_session(PATH, (HEAD + "---\n" + body + "\n").encode())
    assert [(n, r.split(":")[0].split(" (")[0]) for n, r in s.problems] == [
        (8, "decision line is not a Y-statement"),
        (9, "Y-statement is cut short"),
        (10, "confidence must be high, medium or low, not 'very high'"),
        (11, "time stamp [25"),
        (12, "decision line has no [HH"),
        (13, "decision line is not a Y-statement"),
        (17, "REVERSED line is not a reversal"),
        (18, "REVERSED line has no [HH"),
    ]
    assert [d.time for d in s.decisions] == ["14:10", "14:11", "14:12", "14:10", "25:99"]  # kept, as written
    assert len(s.reversals) == 1


def test_a_malformed_file_lists_its_line_problems_too() -> None:
    problems = problems_of("---\nsession_id: a1\nstatus: done\n---\n## Decisions\n- [99:00] Y: decided A over B\n")
    assert [n for n, _ in problems] == [3, 6]


@pytest.mark.parametrize("line", [
    "## a" + " " * 50_000 + "b",
    "## Decisions\n- [10:00] Y: decided a" + " " * 3900 + "x",
    "## Decisions\n-" + " " * 3900 + "[",
    "## Decisions\n- [10:00] Y: " + "x ." * 1300,
    "## Reversals\n- [10:00] REVERSED a: Changed from b to c" + " " * 3900 + "x",
    "## Reversals\n- [10:00] REVERSED " + "a: Changed from " * 240,
    "## Decisions\n- [10:00] Y: decided a" + " " * 50_000 + "x",  # past MAX_LINE: reported, not read
])
def test_long_runs_never_make_a_regex_backtrack(line: str) -> None:
    with hang_guard():
        model.parse_session(PATH, (HEAD + "summary: a" + " " * 60_000 + "b\n---\n" + line + "\n").encode())


# -- fuzz: any bytes give a record or an EnfError ------------------------------------


PIECES = ["---", "\n", "session_id: a1", "date: 2026-04-13", "tags: [a, b]", "status: active", "[", "]", "{", "}",
          "&a", "*a", "!!binary", "!!timestamp", "!!python/object:os.system", "? ", ": ", "- ", "## Decisions",
          "## Reversals", "- [14:10] Y: ", "decided ", " over ", "Confidence: ", "REVERSED ", "Changed from ",
          " to ", " because ", "9" * 5000, " " * 3000, "\t", "\x00", "\ufeff", "\r", "é", "'", '"', "#", "|", ">",
          "<<: *a", "%YAML 1.1", "...", "schema: 2", "schema: yes", "\\", "\x85", "\u2028"]


def _fuzz_text(r: random.Random) -> bytes:
    roll = r.random()
    if roll < 0.1:
        return r.randbytes(r.randint(0, 200))
    if roll < 0.2:
        depth = r.randint(1, 3000)
        return ("---\nk: " + r.choice("[{") * depth + "\n---\n").encode()
    text = "".join(r.choice(PIECES) + (r.choice(" \n") if r.random() < 0.5 else "") for _ in range(r.randint(0, 40)))
    data = text.encode("utf-8", "surrogatepass")
    if r.random() < 0.1 and data:
        i = r.randrange(len(data))
        data = data[:i] + bytes([r.randrange(256)]) + data[i + 1:]
    return data


def test_fuzz_parsing_raises_nothing_but_enf_errors() -> None:
    r = random.Random(20260413)
    for _ in range(3000):
        data = _fuzz_text(r)
        for parse in (model.parse_session, model.parse_decision_file):
            try:
                with hang_guard():
                    parse(PATH, data)
            except EnfError:
                pass


# -- end to end: one bad file never stops the good ones -------------------------------


@pytest.fixture
def cli(run_cli):  # type: ignore[no-untyped-def]
    run_cli("init", "--no-hooks")
    return run_cli


GOOD = session_text(body="\n## Decisions\n" + Y + "\n")


def test_a_commit_with_a_hostile_file_lands_the_good_ones(cli, repo_dir: Path, git: Git) -> None:  # type: ignore[no-untyped-def]
    sessions = repo_dir / ".claude-sessions" / "sessions"
    (sessions / "2026-04-13-search-api.md").write_text(GOOD)
    hostile = {"2026-04-14-nested.md": NESTED_LIST, "2026-04-15-bomb.md": alias_bomb()}
    for name, text in hostile.items():
        (sessions / name).write_text(text)
    out = cli("commit", "-m", "mixed")
    assert ("committed as-is; left out of the views until fixed: sessions/2026-04-15-bomb.md:4: invalid YAML "
            "frontmatter: aliases (*name) are not allowed in a header (hint: ") in out
    assert "sessions/2026-04-14-nested.md:3: invalid YAML frontmatter: nested deeper than 16 levels" in out
    assert "2026-04-13-search-api" in git("show", "claude-memory:index.md")
    assert "Elasticsearch" in git("show", "claude-memory:decisions.md")
    for name, text in hostile.items():
        assert git("show", f"claude-memory:sessions/{name}") == text  # kept byte-identical


def _push_to_branch(repo: Path, files: dict[str, tuple[str, bytes]]) -> None:
    """What a teammate's push leaves: files (mode, bytes) added to claude-memory with plumbing."""
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "teammate-index")}

    def git(*args: str, data: bytes | None = None) -> str:
        return subprocess.run(["git", *args], cwd=repo, env=env, input=data, capture_output=True,
                              check=True).stdout.decode().strip()

    old = git("rev-parse", "refs/heads/claude-memory")
    git("read-tree", old)
    for path, (mode, data) in files.items():
        oid = git("hash-object", "-w", "--stdin", data=data)
        git("update-index", "--add", "--cacheinfo", f"{mode},{oid},{path}")
    tree = git("write-tree")
    new = git("commit-tree", tree, "-p", old, "-m", "teammate")
    git("update-ref", "refs/heads/claude-memory", new, old)


def test_hostile_files_on_the_branch_leave_every_command_working(cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    sessions = repo_dir / ".claude-sessions" / "sessions"
    (sessions / "2026-04-13-search-api.md").write_text(GOOD)
    cli("commit", "-m", "good")
    _push_to_branch(repo_dir, {
        "sessions/2026-04-14-nested.md": ("100644", NESTED_MAP.encode()),
        "sessions/2026-04-15-bomb.md": ("100644", alias_bomb().encode()),
        "sessions/2026-04-16-dup.md": ("100644", session_text(summary="unique walrus").encode()),
        "sessions/2026-04-17-link.md": ("120000", b"../../etc/passwd"),
        "sessions/2026-04-18-folder.md/inner.md": ("100644", b"x"),
        "sessions/2026-04-19-words.md": ("100644", (HEAD + "tags: [[a]]\n---\n## Decisions\n- Y: decided\n").encode()),
    })
    assert "2026-04-13-search-api" in cli("log")
    assert "Elasticsearch" in cli("log", "--decisions")
    assert "decided Elasticsearch" in cli("show", "2026-04-13-search-api")
    cli("status")
    out = cli("doctor", code=1)
    for where in ("sessions/2026-04-14-nested.md:18: invalid YAML frontmatter: nested deeper than 16 levels",
                  "sessions/2026-04-15-bomb.md:4: invalid YAML frontmatter: aliases",
                  "sessions/2026-04-17-link.md: a symlink where a record file belongs",
                  "sessions/2026-04-18-folder.md: a folder where a record file belongs",
                  "sessions/2026-04-19-words.md:5: tags must be a flat list",
                  "sessions/2026-04-19-words.md:8: decision line has no [HH:MM] time stamp",
                  "sessions/2026-04-13-search-api.md: session_id a1b2c3d4 is also the session_id of "
                  "sessions/2026-04-16-dup.md",
                  "sessions/2026-04-16-dup.md: session_id a1b2c3d4 is also the session_id of "
                  "sessions/2026-04-13-search-api.md"):
        assert f": {where}" in out, where
    doctor = json.loads(cli("doctor", "--json", code=1))
    assert not doctor["ok"]


def test_a_recall_hit_on_a_malformed_file_points_to_a_command_that_works(cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    sessions = repo_dir / ".claude-sessions" / "sessions"
    (sessions / "2026-04-14-broken.md").write_text("---\nsession_id: b1\nstatus: done\n---\nthe walrus plan\n")
    cli("commit")
    hits = json.loads(cli("recall", "walrus", "--json"))
    [hit] = [h for h in hits["results"] if h["path"] == "sessions/2026-04-14-broken.md"]
    assert hit["command"] == "git enf show sessions/2026-04-14-broken.md"
    assert "the walrus plan" in cli(*hit["command"].split()[2:])
