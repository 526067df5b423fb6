"""Instincts (seed 002): failures a later call of the same session fixed become one-line
rules, derived without a model; records on the branch, deduplicated and corroborated,
capped, merged as a union between clones, forgotten for good, offered at SessionStart.
Pure derivation first, then real repositories driven through the hooks and the CLI,
checked with the real git binary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from enf_git import hook, memory
from enf_git.cli.app import main
from enf_git.assistants.claude import lifecycle
from enf_git.assistants.claude.protocol import Where
from enf_git.errors import RecordError
from enf_git.memory.lifecycle import instincts
from enf_git.pure import fixes, instincts as pi
from gitfixtures import Git, run_git, user_state

GIT_ENF = str(Path(sys.executable).with_name("git-enf"))
SID = "a1b2c3d4-0000-4000-8000-000000000001"
OTHER = "e5f6a7b8-0000-4000-8000-000000000002"
PYTEST_ERROR = ("Exit code 4\nERROR: file or directory not found: tests\n\n"
                "============================ no tests ran in 0.01s =============================")
PYTEST_RULE = ("Bash `pytest`: `pytest tests` failed (exit 4: ERROR: file or directory not found: tests); "
               "`python -m pytest tests` worked")
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def ok(summary: str, tool: str = "Bash", ts: str = "2026-04-13T10:00:02Z", session: str = "a1b2c3d4") -> fixes.Call:
    return fixes.Call(True, tool, summary, "", ts, session)


def failed(summary: str, error: str = "Exit code 1", tool: str = "Bash", ts: str = "2026-04-13T10:00:00Z",
           session: str = "a1b2c3d4") -> fixes.Call:
    return fixes.Call(False, tool, summary, error, ts, session)


def rules(calls: list[fixes.Call], **kw: object) -> list[str]:
    return [f.rule for f in fixes.derive(calls, **kw)]  # type: ignore[arg-type]


# --- deriving fixes: pure -------------------------------------------------------------------

def test_a_failed_command_fixed_later_in_the_session_is_one_rule() -> None:
    calls = [failed("pytest tests", PYTEST_ERROR), ok("ls"), ok("python -m pytest tests")]
    found = fixes.derive(calls)
    assert [f.rule for f in found] == [PYTEST_RULE]
    assert found[0].program == "pytest" and found[0].session == "a1b2c3d4" and found[0].ts == "2026-04-13T10:00:02Z"
    assert found[0].id == fixes.derive(calls)[0].id and found[0].id.startswith("i") and len(found[0].id) == 9


def test_no_fix_no_instinct() -> None:
    assert rules([failed("pytest tests", PYTEST_ERROR)]) == []  # never fixed
    assert rules([ok("python -m pytest tests"), failed("pytest tests")]) == []  # the success came first
    assert rules([failed("pytest tests/a.py"), ok("pytest tests/b.py")]) == []  # another test, not a fix
    assert rules([failed("git push"), ok("git status")]) == []  # another subcommand
    assert rules([failed("make"), ok("make")]) == []  # the same call just worked on a retry
    assert rules([failed("src/a.py", tool="Edit"), ok("src/b.py", tool="Edit")]) == []  # another file
    assert rules([failed("pytest", tool="Bash"), ok("pytest", tool="Grep")]) == []  # another tool


def test_similar_calls_add_or_drop_words_or_chain_a_step() -> None:
    assert rules([failed("git push", "Exit code 128\nfatal: The current branch main has no upstream branch."),
                  ok("git push -u origin main")]) == [
        "Bash `git push`: `git push` failed (exit 128: fatal: The current branch main has no upstream branch.); "
        "`git push -u origin main` worked"]
    assert rules([failed("npm test"), ok("npm install && npm test")])[0].endswith("`npm install && npm test` worked")
    assert rules([failed("pytest -q"), ok("cd src && uv run pytest -q")]) == [
        "Bash `pytest`: `pytest -q` failed (exit 1); `cd src && uv run pytest -q` worked"]


def test_the_same_command_after_a_step_names_the_step() -> None:
    error = "Exit code 1\nTraceback (most recent call last):\n  File \"app.py\", line 1\nModuleNotFoundError: No module named 'flask'"
    assert rules([failed("python app.py", error), ok("pip install flask"), ok("python app.py")]) == [
        "Bash `python`: `python app.py` failed (exit 1: ModuleNotFoundError: No module named 'flask'); "
        "it worked after `pip install flask`"]


def test_a_file_tool_fix_is_keyed_by_its_file_relative_to_the_project() -> None:
    calls = [failed("/p/src/utils.py", "<tool_use_error>File does not exist.</tool_use_error>", tool="Read"),
             ok("/p/lib", tool="Glob"), ok("/p/lib/utils.py", tool="Read")]
    found = fixes.derive(calls, top="/p")
    assert [(f.program, f.rule) for f in found] == [("src/utils.py", (
        "Read `src/utils.py`: failed (File does not exist.); Read `lib/utils.py` worked"))]
    elsewhere = [fixes.Call(c.ok, c.tool, c.summary.replace("/p/", "/home/bob/p/"), c.error, c.ts, c.session)
                 for c in calls]
    assert fixes.derive(elsewhere, top="/home/bob/p")[0].id == found[0].id  # the same lesson on another clone


CANNOT_EDIT = "<tool_use_error>String to replace not found in file.\nString: def old()</tool_use_error>"
NOT_READ = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
TEST_FAILED = "Exit code 1\nFAILED tests/test_m.py::test_x - assert 2 == 3\n1 failed in 0.02s"


def red_green(n: int) -> list[fixes.Call]:
    """A test fails, the code is read and edited, the test passes: work, not a lesson."""
    test = f"pytest -q tests/test_m{n}.py"
    return [failed(test, TEST_FAILED), ok(f"src/m{n}.py", tool="Read"), ok(f"src/m{n}.py", tool="Edit"), ok(test)]


@pytest.mark.parametrize("calls", [
    pytest.param(red_green(1), id="red-green-edit"),
    pytest.param([failed("pytest -q", TEST_FAILED), ok("src/new.py", tool="Write"), ok("pytest -q")],
                 id="red-green-write"),
    pytest.param([failed("pytest -q", TEST_FAILED), ok("src/m.py", tool="Edit"), ok("ruff check src"), ok("pytest -q")],
                 id="a-command-after-an-edit"),
    pytest.param([failed("pytest tests", PYTEST_ERROR), ok("conftest.py", tool="Edit"), ok("python -m pytest tests")],
                 id="another-form-after-an-edit"),
    pytest.param([failed("pytest -q tests/a.py", TEST_FAILED), ok("pytest -q tests/b.py")], id="another-test-file"),
    pytest.param([failed("pytest -q tests/a.py tests/c.py", TEST_FAILED), ok("pytest -q tests/b.py tests/c.py")],
                 id="another-test-file-among-shared-ones"),
    pytest.param([failed("pytest -k test_a -q", TEST_FAILED), ok("pytest -k test_b -q")], id="another-flag-value"),
    pytest.param([failed("grep -rn foo src"), ok("grep -rn bar src")], id="two-grep-patterns"),
    pytest.param([failed("grep -rn foo src", "Exit code 1\n'foo' unknown"), ok("grep -rn foo lib")], id="another-dir"),
    pytest.param([failed("pytest -q", TEST_FAILED), ok("git status"), ok("cat src/m.py | grep x"), ok("pytest -q")],
                 id="a-rerun-after-a-look"),
    pytest.param([failed("src/x.py", CANNOT_EDIT, tool="Edit"), ok("src/x.py", tool="Edit")], id="edit-retry"),
    pytest.param([failed("src/x.py", NOT_READ, tool="Edit"), ok("src/x.py", tool="Read"), ok("src/x.py", tool="Edit")],
                 id="edit-before-read"),
    pytest.param([failed("src/a/x.py", CANNOT_EDIT, tool="Edit"), ok("src/b/x.py", tool="Edit")],
                 id="edit-retry-same-name"),
    pytest.param([failed("src/x.py", "File does not exist.", tool="Read"), ok("src/x.py", tool="Write"),
                  ok("lib/x.py", tool="Write"), ok("lib/x.py", tool="Read")], id="read-a-file-just-written"),
    pytest.param([failed("src/x.py", "File does not exist.", tool="Read"), ok("src/x.py", tool="Read")],
                 id="read-once-it-exists"),
    pytest.param([failed("/home/alice/.config/x.toml", "File does not exist.", tool="Read"),
                  ok("/home/alice/.local/x.toml", tool="Read")], id="read-outside-the-project"),
])
def test_ordinary_work_teaches_nothing(calls: list[fixes.Call]) -> None:
    assert rules(calls, top="/p") == []


def test_a_session_of_ordinary_work_learns_nothing() -> None:
    # The reviewer's session: five red-green cycles, a grep for another pattern, an Edit retry.
    calls = [c for n in range(5) for c in red_green(n)]
    calls += [failed("grep -rn 'def foo' src"), ok("grep -rn 'def bar' src"),
              failed("src/x.py", CANNOT_EDIT, tool="Edit"), ok("src/x.py", tool="Edit")]
    found, pending = fixes.scan(calls)
    assert found == []
    assert pending == 20  # the first grep may still be fixed by another form; an Edit retry is no candidate


@pytest.mark.parametrize(("calls", "rule"), [
    pytest.param([failed("git enf lgo -n 1", "Exit code 2\nUsage: git enf [OPTIONS] COMMAND [ARGS]...\n"
                         "Try 'git enf -h' for help.\n\nError: No such command 'lgo'."), ok("git enf log -n 1")],
                 "Bash `git enf`: `git enf lgo -n 1` failed (exit 2: Error: No such command 'lgo'.); "
                 "`git enf log -n 1` worked", id="a-word-the-error-rejects"),
    pytest.param([failed("make test", "Exit code 2\nmake: *** [test] Error 1"), ok("CI=1 make test")],
                 "Bash `make test`: `make test` failed (exit 2: make: *** [test] Error 1); `CI=1 make test` worked",
                 id="an-env-assignment"),
    pytest.param([failed("jest src", "Exit code 127\njest: command not found"), ok("npx jest src")],
                 "Bash `jest`: `jest src` failed (exit 127: jest: command not found); `npx jest src` worked",
                 id="a-runner"),
    pytest.param([failed("make", "Exit code 2\nmake: *** No targets specified and no makefile found."),
                  ok("cd build"), ok("make")],
                 "Bash `make`: `make` failed (exit 2: make: *** No targets specified and no makefile found.); "
                 "it worked after `cd build`", id="a-set-up-step"),
])
def test_real_lessons_still_count(calls: list[fixes.Call], rule: str) -> None:
    assert rules(calls) == [rule]


TRACEBACK = 'Exit code 1\nTraceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
NO_ZORBLAXMOD = TRACEBACK + "ModuleNotFoundError: No module named 'zorblaxmod'"


@pytest.mark.parametrize(("calls", "rule"), [
    pytest.param([failed('python3 -c "import zorblaxmod"', NO_ZORBLAXMOD), ok('python3 -c "import zorblaxlib"')],
                 "Bash `python3`: `python3 -c \"import zorblaxmod\"` failed (exit 1: ModuleNotFoundError: No module "
                 "named 'zorblaxmod'); `python3 -c \"import zorblaxlib\"` worked", id="inside-a-quoted-c-script"),
    pytest.param([failed('python3 -c "from zorblax.core import run; run()"',
                         TRACEBACK + "ModuleNotFoundError: No module named 'zorblax.core'"),
                  ok('python3 -c "from zorblax.engine import run; run()"')],
                 "Bash `python3`: `python3 -c \"from zorblax.core import run; run()\"` failed (exit 1: "
                 "ModuleNotFoundError: No module named 'zorblax.core'); `python3 -c \"from zorblax.engine import run; "
                 "run()\"` worked", id="a-dotted-name-in-a-script"),
    pytest.param([failed("python3 -c \"import json; json.parse('1')\"",
                         TRACEBACK + "AttributeError: module 'json' has no attribute 'parse'"),
                  ok("python3 -c \"import json; json.loads('1')\"")],
                 "Bash `python3`: `python3 -c \"import json; json.parse('1')\"` failed (exit 1: AttributeError: "
                 "module 'json' has no attribute 'parse'); `python3 -c \"import json; json.loads('1')\"` worked",
                 id="an-attribute-in-a-script"),
    pytest.param([failed("node -e \"require('zorblaxmod')\"", "Exit code 1\nError: Cannot find module 'zorblaxmod'\n"
                         "Require stack:\n- /p/[eval]"), ok("node -e \"require('zorblaxlib')\"")],
                 "Bash `node`: `node -e \"require('zorblaxmod')\"` failed (exit 1: Error: Cannot find module "
                 "'zorblaxmod'); `node -e \"require('zorblaxlib')\"` worked", id="inside-a-node-e-script"),
    pytest.param([failed("git clone https://github.com/acme/zorblaxmod.git", "Exit code 128\nremote: Repository "
                         "not found.\nfatal: repository 'https://github.com/acme/zorblaxmod.git/' not found"),
                  ok("git clone https://github.com/acme/zorblaxlib.git")],
                 "Bash `git clone`: `git clone https://github.com/acme/zorblaxmod.git` failed (exit 128: fatal: "
                 "repository 'https://github.com/acme/zorblaxmod.git/' not found); `git clone "
                 "https://github.com/acme/zorblaxlib.git` worked", id="inside-a-url"),
    pytest.param([failed("python3 scripts/zorblaxmod.py", "Exit code 2\npython3: can't open file "
                         "'/p/scripts/zorblaxmod.py': [Errno 2] No such file or directory"),
                  ok("python3 scripts/zorblaxlib.py")],
                 "Bash `python3`: `python3 scripts/zorblaxmod.py` failed (exit 2: python3: can't open file "
                 "'/p/scripts/zorblaxmod.py': [Errno 2] No such file or directory); `python3 scripts/zorblaxlib.py` "
                 "worked", id="inside-a-path"),
])
def test_a_word_the_error_names_counts_wherever_it_sits_in_the_command(calls: list[fixes.Call], rule: str) -> None:
    assert rules(calls) == [rule]


IMPORT_ERROR = ("Exit code 2\n==================================== ERRORS ====================================\n"
                "ImportError while importing test module '/p/tests/test_a.py'.\n"
                "Hint: make sure your test modules/packages have valid Python names.\n"
                "E   ModuleNotFoundError: No module named 'requests'")


@pytest.mark.parametrize("calls", [
    pytest.param([failed('python3 -c "import zorblaxmod"', NO_ZORBLAXMOD), ok("setup.py", tool="Edit"),
                  ok('python3 -c "import zorblaxlib"')], id="an-edit-in-between"),
    pytest.param([failed("pytest -q tests/test_a.py", IMPORT_ERROR), ok("pytest -q tests/test_b.py")],
                 id="another-test-file-whose-error-quotes-the-first"),
    pytest.param([failed("pytest -q tests/test_a.py", IMPORT_ERROR), ok("src/a.py", tool="Edit"),
                  ok("pytest -q tests/test_a.py")], id="red-green-of-an-import-error"),
    pytest.param([failed("python3 tools/zorblaxmod.py", 'Exit code 1\nTraceback (most recent call last):\n  File '
                         '"/p/tools/zorblaxmod.py", line 3, in <module>\nValueError: bad input'),
                  ok("python3 tools/zorblaxlib.py")], id="another-script-that-ran-and-failed"),
    pytest.param([failed('python3 -c "import yaml"', TRACEBACK + "ModuleNotFoundError: No module named 'yaml'"),
                  ok('python3 -c "print(1 + 1)"')], id="another-script-altogether"),
    pytest.param([failed('python3 -c "import m3; m3.run()"', TRACEBACK + "AttributeError: module 'm3' has no "
                         "attribute 'run'"), ok('python3 -c "import m4; print(m4.VERSION)"')],
                 id="another-script-that-dropped-the-named-word"),
    pytest.param([failed('python3 -c "print(x)"', TRACEBACK + "NameError: name 'x' is not defined"),
                  ok('python3 -c "x = 1; print(x)"')], id="the-named-word-is-still-there"),
    pytest.param([failed("python3 -c \"import json; json.loads('{')\"", TRACEBACK + "json.decoder.JSONDecodeError: "
                         "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
                  ok("python3 -c \"import json; json.loads('{}')\"")], id="another-script-no-word-named"),
    pytest.param([failed("curl -fsS https://api.example.com/v1/zorblaxmod", "Exit code 22\ncurl: (22) The requested "
                         "URL returned error: 404"), ok("curl -fsS https://api.example.com/v1/zorblaxlib")],
                 id="another-url-the-error-does-not-quote"),
])
def test_a_changed_argument_the_error_does_not_name_teaches_nothing(calls: list[fixes.Call]) -> None:
    assert rules(calls, top="/p") == []


def test_one_lesson_per_session_and_only_what_is_new() -> None:
    calls = [failed("pytest tests", PYTEST_ERROR), ok("python -m pytest tests"),
             failed("pytest tests", PYTEST_ERROR), ok("python -m pytest tests")]
    assert rules(calls) == [PYTEST_RULE]
    assert rules(calls, new_from=4) == []  # every fix was seen by an earlier derivation
    assert rules(calls[:3], new_from=2) == []  # the new failure is not fixed (yet)
    assert rules(calls, new_from=3) == [PYTEST_RULE]  # a new working call


def test_scan_says_where_the_oldest_unfixed_failure_is() -> None:
    calls = [failed("make"), ok("make build"), failed("pytest tests", PYTEST_ERROR), ok("ls"),
             ok("python -m pytest tests"), failed("cargo test")]
    found, pending = fixes.scan(calls)
    assert [f.rule for f in found] == [PYTEST_RULE] and pending == 0  # `make build` is another target
    assert fixes.scan(calls[2:5]) == (fixes.derive(calls[2:5]), None)


def test_at_most_max_pending_failures_wait_for_a_fix() -> None:
    # Each success is compared with every waiting failure: a log of failures nothing fixes
    # (another test file each time) must not make Stop quadratic in the scan window.
    waiting = [failed(f"pytest -q tests/test_{n}.py", TEST_FAILED) for n in range(fixes.MAX_PENDING + 1)]
    found, pending = fixes.scan([failed("pytest tests", PYTEST_ERROR), *waiting, ok("python -m pytest tests")])
    assert found == [] and pending == 2  # the oldest was no longer waited for
    assert [f.rule for f in fixes.scan([failed("pytest tests", PYTEST_ERROR), *waiting[2:],  # 100 in all
                                        ok("python -m pytest tests")])[0]] == [PYTEST_RULE]


def test_a_secret_in_a_command_never_reaches_the_rule() -> None:
    command = f"curl -H 'Authorization: token {SECRET}' https://api.example.com/x"
    found = fixes.derive([failed(command, f"Exit code 22\ncurl: (22) 401 for {SECRET}"), ok(command + " -f")])
    assert len(found) == 1 and SECRET not in found[0].rule and "[REDACTED]" in found[0].rule
    assert SECRET not in found[0].program


def test_rules_are_one_bounded_line() -> None:
    long = "pytest " + " ".join(f"tests/test_{n}.py" for n in range(60))
    rule = rules([failed(long, "Exit code 1\n" + "x" * 900), ok("python -m " + long)])[0]
    assert len(rule) <= fixes.RULE_CHARS and "\n" not in rule and "…" in rule


def test_programs_skip_wrappers_and_runners() -> None:
    assert fixes.programs("FOO=1 BAR=2 sudo -E env X=1 /usr/bin/python3 -m pytest -q") == ["pytest"]
    assert fixes.programs("cd web && npx -y prettier --check . | tee out") == ["prettier", "tee"]
    assert fixes.programs("git -C repo push origin") == ["git push"]
    assert fixes.programs("poetry run ./node_modules/.bin/jest") == ["jest"]
    assert fixes.programs("echo 'unclosed") == ["echo"]


def test_error_digest_keeps_the_exit_code_and_the_telling_line() -> None:
    assert fixes.error_digest(PYTEST_ERROR) == "exit 4: ERROR: file or directory not found: tests"
    assert fixes.error_digest("Exit code 2") == "exit 2"
    assert fixes.error_digest("boom") == "boom"
    assert fixes.error_digest("") == ""


# --- records, corroboration, the cap: pure ---------------------------------------------------

def fix(n: int = 0, session: str = "a1b2c3d4", ts: str = "2026-04-13T10:00:00Z") -> fixes.Fix:
    return fixes.Fix(fixes.instinct_id(("Bash", f"prog{n}")), "Bash", f"prog{n}", f"rule {n}", session, ts)


def test_an_instinct_file_round_trips_byte_for_byte() -> None:
    i = pi.union(pi.new_instinct(fix(), "Alice <a@example.com>"),
                 pi.new_instinct(fix(session="12345678", ts="2026-04-14T09:00:00Z"), "Bob, Jr. <b@example.com>"))
    data = pi.instinct_bytes(i)
    back = pi.parse_instinct(i.path, data)
    assert back == i and pi.instinct_bytes(back) == data
    assert back.sessions == ("12345678", "a1b2c3d4") and back.corroboration() == (2, 2)
    with pytest.raises(RecordError):
        pi.parse_instinct("instincts/i00000000.md", data)  # a file named by another id


def test_the_same_lesson_from_another_session_raises_corroboration() -> None:
    first = pi.learn({}, [fix()], "Alice <a@example.com>")
    assert first.new == [fix().id] and first.written[fix().id].corroboration() == (1, 1)
    current = dict(first.written)
    again = pi.learn(current, [fix()], "Alice <a@example.com>")
    assert again.empty  # the same session and author: already counted
    other = pi.learn(current, [fix(session="e5f6a7b8", ts="2026-04-14T09:00:00Z")], "Bob <b@example.com>")
    assert other.corroborated == [fix().id] and not other.new
    i = other.written[fix().id]
    assert i.corroboration() == (2, 2) and i.first_seen == "2026-04-13T10:00:00Z" and i.last_seen == "2026-04-14T09:00:00Z"


def test_a_forgotten_instinct_is_not_learned_again() -> None:
    gone = pi.Instinct(fix().id, "Bash", "prog0", "rule 0", ("a1b2c3d4",), (), "t", "t", forgotten="2026-04-14T00:00:00Z")
    assert pi.learn({gone.id: gone}, [fix(session="ffffffff")], "Bob <b@example.com>").empty
    assert pi.block([gone], 4000) == ""


def test_the_cap_drops_the_least_corroborated_oldest_first() -> None:
    current = {}
    for n in range(pi.CAP):
        i = pi.new_instinct(fix(n, ts=f"2026-04-{1 + n % 28:02d}T00:00:00Z"), "A <a@x>")
        if n % 2:
            i = pi.union(i, pi.new_instinct(fix(n, session=f"s{n:07d}"), "B <b@x>"))
        current[i.id] = i
    done = pi.learn(current, [fix(99, ts="2026-05-01T00:00:00Z")], "A <a@x>")
    assert done.new == [fix(99).id]
    assert len(done.dropped) == 1 and done.dropped[0].corroboration() == (1, 1)
    assert done.dropped[0].first_seen == "2026-04-01T00:00:00Z"  # of the once-seen ones, the oldest
    assert done.changes()[done.dropped[0].path] is None
    assert instincts.learn_message(done).startswith("enf: instincts: learned 1, dropped 1\n")
    assert "Dropped at the cap of 50 live instincts" in instincts.learn_message(done)


def test_union_is_the_same_in_either_direction() -> None:
    a = pi.new_instinct(fix(ts="2026-04-13T10:00:00Z"), "Alice <a@x>")
    b = pi.union(pi.new_instinct(fix(session="e5f6a7b8", ts="2026-04-12T08:00:00Z"), "Bob <b@x>"),
                 pi.Instinct(a.id, a.tool, a.program, "another wording", ("e5f6a7b8",), (), "2026-04-12T08:00:00Z",
                             "2026-04-12T08:00:00Z", forgotten="2026-04-15T00:00:00Z"))
    assert pi.union(a, b) == pi.union(b, a)
    merged = pi.union(a, b)
    assert merged.sessions == ("a1b2c3d4", "e5f6a7b8") and merged.authors == ("Alice <a@x>", "Bob <b@x>")
    assert merged.first_seen == "2026-04-12T08:00:00Z" and merged.last_seen == "2026-04-13T10:00:00Z"
    assert merged.forgotten == "2026-04-15T00:00:00Z"


def test_the_block_puts_the_most_corroborated_first_within_its_room() -> None:
    lone = pi.new_instinct(fix(1), "A <a@x>")
    shared = pi.union(pi.new_instinct(fix(2), "A <a@x>"), pi.new_instinct(fix(2, session="e5f6a7b8"), "B <b@x>"))
    text = pi.block([lone, shared], 4000)
    assert text.splitlines()[0] == "## Learned instincts (2)"
    assert text.index("rule 2") < text.index("rule 1") and f"({shared.id}; 2 sessions, 2 people)" in text
    many = [pi.new_instinct(fix(n), "A <a@x>") for n in range(40)]
    small = pi.block(many, 600)
    assert len(small) <= 600 and "more: git enf instincts" in small


def test_a_long_rule_is_cut_when_read_and_never_hides_the_others() -> None:
    long = pi.Instinct(fix(1).id, "Bash", "prog1", "x" * 5000, ("a1b2c3d4", "e5f6a7b8"), (), "t", "t")
    too_long = pi.parse_instinct(long.path, pi.instinct_bytes(long))  # the most corroborated: first in line
    assert len(too_long.rule) <= fixes.RULE_CHARS and too_long.rule.endswith("…")
    short = [pi.new_instinct(fix(n), "A <a@x>") for n in (2, 3)]
    text = pi.block([too_long, *short], 500)
    assert len(text) <= 500 and "rule 2" in text and "rule 3" in text  # the lines after it still fit
    assert text.splitlines()[-1] == "- … 1 more: git enf instincts" and "xxx" not in text


# --- on a real repository, through the hooks -------------------------------------------------

@pytest.fixture
def project(repo_dir: Path) -> Path:
    memory.init(memory.Context.open(repo_dir))
    return repo_dir


def call(event: str, project: Path, sid: str = SID, **fields: object) -> dict[str, object] | None:
    payload = {"session_id": sid, "cwd": str(project), "hook_event_name": event, **fields}
    out = hook.respond(event, json.dumps(payload).encode())
    return json.loads(out) if out else None


def bash(project: Path, command: str, error: str | None = None, sid: str = SID) -> None:
    if error is None:
        call("PostToolUse", project, sid, tool_name="Bash", tool_input={"command": command}, tool_response={})
    else:
        call("PostToolUseFailure", project, sid, tool_name="Bash", tool_input={"command": command}, error=error)


def fix_pytest(project: Path, sid: str = SID) -> None:
    bash(project, "pytest tests", PYTEST_ERROR, sid)
    bash(project, "python -m pytest tests", sid=sid)


def on_branch(git: Git) -> dict[str, pi.Instinct]:
    names = git("ls-tree", "--name-only", "claude-memory", "instincts/").split()
    return {(i := pi.parse_instinct(n, git("show", f"claude-memory:{n}").encode())).id: i for n in names}


def context(project: Path, sid: str = OTHER) -> str:
    reply = call("SessionStart", project, sid, source="startup")
    assert reply is not None
    return str(reply["hookSpecificOutput"]["additionalContext"])  # type: ignore[index]


def test_stop_learns_a_fixed_failure_and_the_next_session_is_told(project: Path, git: Git) -> None:
    before = user_state(project)
    fix_pytest(project)
    call("Stop", project)
    found = on_branch(git)
    assert [i.rule for i in found.values()] == [PYTEST_RULE]
    i = next(iter(found.values()))
    assert i.sessions == (SID[:8],) and i.authors == ("Test Author <author@example.com>",)
    subjects = git("log", "--format=%s", "claude-memory").splitlines()
    assert "enf: instincts: learned 1" in subjects and subjects[0] == f"enf: stop {SID[:8]}"
    assert (project / ".claude-sessions" / i.path).is_file()  # the working copy follows the branch
    assert user_state(project) == before
    text = context(project)
    assert "## Learned instincts (1)" in text and PYTEST_RULE in text
    call("Stop", project)
    assert git("log", "--format=%s", "claude-memory").count("enf: instincts") == 1  # nothing new: no commit


def test_a_module_name_fixed_inside_a_c_script_is_learned_and_told(project: Path, git: Git) -> None:
    """The hook log's own shapes, end to end: the failing -c script and the working one
    are one lesson on the branch, offered to the next session."""
    bash(project, 'python3 -c "import zorblaxmod"', NO_ZORBLAXMOD)
    bash(project, "git status")
    bash(project, 'python3 -c "import zorblaxlib"')
    call("Stop", project)
    [found] = on_branch(git).values()
    assert found.program == "python3" and "No module named 'zorblaxmod'" in found.rule
    assert found.rule.endswith("`python3 -c \"import zorblaxlib\"` worked")
    assert found.rule in context(project)


def test_a_fix_split_across_turns_is_still_one_session(project: Path, git: Git) -> None:
    bash(project, "pytest tests", PYTEST_ERROR)
    call("Stop", project)
    assert on_branch(git) == {}
    bash(project, "python -m pytest tests")
    call("Stop", project)
    assert [i.rule for i in on_branch(git).values()] == [PYTEST_RULE]


def test_a_failure_is_not_waited_for_past_the_scan_window(project: Path, git: Git,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instincts, "MAX_SCAN", 2000)
    bash(project, "pytest tests", PYTEST_ERROR)
    call("Stop", project)
    for n in range(30):  # ~4 KB of other calls
        bash(project, f"ls src/module_{n}")
    call("Stop", project)
    bash(project, "python -m pytest tests")
    call("Stop", project)
    assert on_branch(git) == {}


def test_two_sessions_hitting_one_lesson_corroborate_it(project: Path, git: Git) -> None:
    fix_pytest(project, SID)
    call("Stop", project, SID)
    fix_pytest(project, OTHER)
    call("Stop", project, OTHER)
    (i,) = on_branch(git).values()
    assert i.sessions == tuple(sorted((SID[:8], OTHER[:8])))
    assert "corroborated 1" in git("log", "-1", "--format=%s", "claude-memory", "--", "instincts/")
    assert f"({i.id}; 2 sessions)" in context(project)


def test_forget_is_for_good_and_unknown_ids_are_errors_with_a_hint(project: Path, git: Git,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fix_pytest(project)
    call("Stop", project)
    (i,) = on_branch(git).values()
    monkeypatch.chdir(project)
    runner = CliRunner()
    listed = runner.invoke(main, ["instincts"], catch_exceptions=False)
    assert listed.exit_code == 0 and f"{i.id}  {PYTEST_RULE}" in listed.output
    as_json = json.loads(runner.invoke(main, ["instincts", "list", "--json"]).output)
    assert as_json["schema"] == 1 and as_json["command"] == "instincts" and as_json["enabled"] is True
    assert [r["id"] for r in as_json["instincts"]] == [i.id] and as_json["instincts"][0]["sessions"] == [SID[:8]]
    wrong = runner.invoke(main, ["instincts", "forget", "i0000"])
    assert wrong.exit_code == 1 and "error: no instinct has the id 'i0000'" in wrong.output
    assert "\nhint: git enf instincts" in wrong.output and "Usage:" not in wrong.output
    done = runner.invoke(main, ["instincts", "forget", i.id[:5]], catch_exceptions=False)
    assert done.exit_code == 0 and done.output.startswith(f"forgotten: {i.id} ")
    assert on_branch(git)[i.id].forgotten  # a tombstone: the file stays, history keeps the rest
    assert git("log", "-1", "--format=%s", "claude-memory") == f"enf: instincts: forget {i.id}\n"
    assert "Learned instincts" not in context(project)
    after = runner.invoke(main, ["instincts"]).output
    assert after == "no instincts in use: 1 instinct forgotten (git enf instincts --all lists them)\n"
    assert json.loads(runner.invoke(main, ["instincts", "--json"]).output)["forgotten"] == 1
    assert "forgotten" in runner.invoke(main, ["instincts", "--all"]).output
    fix_pytest(project, OTHER)  # the same lesson again, in another session
    call("Stop", project, OTHER)
    assert on_branch(git)[i.id].sessions == (SID[:8],)
    again = runner.invoke(main, ["instincts", "forget", i.id])
    assert again.exit_code == 0 and "already forgotten" in again.output


def test_enf_instincts_false_turns_learning_and_the_block_off(project: Path, git: Git) -> None:
    run_git(project, "config", "enf.instincts", "false")
    fix_pytest(project)
    call("Stop", project)
    assert on_branch(git) == {}
    run_git(project, "config", "enf.instincts", "true")
    call("Stop", project)  # the events are still there: learned once it is on again
    assert len(on_branch(git)) == 1
    run_git(project, "config", "enf.instincts", "off")
    assert "Learned instincts" not in context(project)


def test_the_cap_keeps_fifty_and_history_keeps_the_dropped(project: Path, git: Git) -> None:
    ctx = memory.Context.open(project)
    old = {}
    for n in range(pi.CAP):
        i = pi.new_instinct(fix(n, ts=f"2026-03-{1 + n % 28:02d}T00:00:00Z"), "A <a@x>")
        old[i.path] = pi.instinct_bytes(pi.union(i, pi.new_instinct(fix(n, session="ffffffff"), "B <b@x>"))
                                        if n else i)
    instincts._commit(ctx, lambda loaded: dict(old), "seed instincts", None)
    fix_pytest(project)
    call("Stop", project)
    found = on_branch(git)
    assert len(found) == pi.CAP and PYTEST_RULE in {i.rule for i in found.values()}
    dropped = pi.new_instinct(fix(0), "A <a@x>")
    assert dropped.id not in found
    message = git("log", "-1", "--format=%B", "claude-memory", "--", "instincts/")
    assert "learned 1, dropped 1" in message and f"- {dropped.id} (1 sessions): rule 0" in message
    assert "rule 0" in git("show", f"claude-memory~2:{dropped.path}")  # still in history
    call("Stop", project)  # the same events do not bring the dropped one's rival back and forth
    assert len(git("log", "--format=%s", "claude-memory", "--", "instincts/").splitlines()) == 2


def test_a_learning_failure_never_breaks_stop(project: Path, git: Git, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ctx: memory.Context, now: int | None = None) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(instincts, "learn", broken)
    fix_pytest(project)
    assert call("Stop", project) is None
    assert git("log", "-1", "--format=%s", "claude-memory") == f"enf: stop {SID[:8]}\n"  # the notes still landed
    assert "disk on fire" in (project / ".git" / "enf" / "hook-errors.log").read_text()


def test_a_malformed_instinct_file_is_left_out_not_fatal(project: Path, git: Git) -> None:
    ctx = memory.Context.open(project)
    instincts._commit(ctx, lambda loaded: {"instincts/i12345678.md": b"---\nid: [\n---\n"}, "hand-made", None)
    fix_pytest(project)
    call("Stop", project)
    assert PYTEST_RULE in context(project)
    assert any("i12345678" in p for p in instincts.load(ctx.repo, memory.require_branch(ctx)).problems)


def test_a_file_of_a_newer_enf_git_is_never_written_over(project: Path, git: Git,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = memory.Context.open(project)
    lesson = fixes.derive([failed("pytest tests", PYTEST_ERROR), ok("python -m pytest tests")])[0].id
    path = pi.instinct_path(lesson)
    newer = (f"---\nschema: 2\nid: {lesson}\nsessions: [b0b0b0b0]\nauthors: [Bob <bob@example.com>]\n"
             f"weight: 0.9\n---\n{PYTEST_RULE}\n").encode()
    instincts._commit(ctx, lambda loaded: {path: newer}, "a teammate's newer enf-git", None)
    fix_pytest(project)
    call("Stop", project)
    assert git("show", f"claude-memory:{path}").encode() == newer
    assert "enf: instincts" not in git("log", "--format=%s", "claude-memory")
    assert instincts._commit(ctx, lambda loaded: {path: b"mine"}, "a change over it", None) is None
    monkeypatch.chdir(project)
    out = CliRunner().invoke(main, ["instincts", "forget", lesson])
    assert out.exit_code == 1 and "newer enf-git (schema 2)" in out.output and "left as it is" in out.output
    assert git("show", f"claude-memory:{path}").encode() == newer


def test_an_opted_out_session_is_not_learned_from(project: Path, git: Git) -> None:
    (project / ".claude-sessions" / ".opt-out" / SID[:8]).write_text("")
    fix_pytest(project, SID)
    call("Stop", project, SID)
    assert on_branch(git) == {}
    fix_pytest(project, OTHER)  # a session that did not opt out: its own lesson only
    call("Stop", project, OTHER)
    (i,) = on_branch(git).values()
    assert i.sessions == (OTHER[:8],)


def test_the_cap_applies_when_a_merge_brought_more_than_fifty(project: Path, git: Git) -> None:
    ctx = memory.Context.open(project)
    merged = {pi.instinct_path(i.id): pi.instinct_bytes(i) for i in
              (pi.new_instinct(fix(n, ts=f"2026-03-{1 + n % 28:02d}T00:00:00Z"), "A <a@x>") for n in range(2 * pi.CAP))}
    instincts._commit(ctx, lambda loaded: merged, "two clones' fifty each, merged", None)
    call("Stop", project)  # nothing new was learned
    assert len(on_branch(git)) == pi.CAP
    assert git("log", "-1", "--format=%s", "claude-memory", "--", "instincts/") == f"enf: instincts: dropped {pi.CAP}\n"
    call("Stop", project)
    assert len(git("log", "--format=%s", "claude-memory", "--", "instincts/").splitlines()) == 2  # once


def test_long_errors_keep_their_end_in_the_event_log(project: Path) -> None:
    output = "Exit code 1\n" + "collecting ...\n" * 80 + "E   AssertionError: expected 2, got 3\n"
    bash(project, "pytest -q", output)
    (line,) = (project / ".claude-sessions" / "raw" / f"{SID}.jsonl").read_text().splitlines()
    error = json.loads(line)["error"]
    assert error.startswith("Exit code 1\ncollecting") and error.endswith("AssertionError: expected 2, got 3")
    assert len(error) <= 500


# --- two clones -------------------------------------------------------------------------------

def enf(cwd: Path, *args: str) -> str:
    proc = subprocess.run([GIT_ENF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def test_one_instinct_learned_in_two_clones_merges_as_a_union(tmp_path: Path, repo_dir: Path) -> None:
    bare = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(repo_dir, "remote", "add", "origin", str(bare))
    run_git(repo_dir, "push", "-q", "origin", "main")
    clones = []
    for name in ("alice", "bob"):
        path = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(bare), str(path))
        run_git(path, "config", "user.name", name)
        run_git(path, "config", "user.email", f"{name}@example.com")
        enf(path, "init", "--no-hooks")
        clones.append(path)
    a, b = clones
    enf(a, "sync")
    enf(b, "sync")
    fix_pytest(a, SID)
    lifecycle.checkpoint(Where(str(a), str(a / ".git")), "alice stop")
    fix_pytest(b, OTHER)
    lifecycle.checkpoint(Where(str(b), str(b / ".git")), "bob stop")
    enf(a, "sync")
    out = enf(b, "sync")
    enf(a, "sync")
    assert "conflict" not in out
    for clone in (a, b):
        (i,) = on_branch(lambda *args, c=clone: run_git(c, *args)).values()
        assert i.sessions == tuple(sorted((SID[:8], OTHER[:8])))
        assert i.authors == ("alice <alice@example.com>", "bob <bob@example.com>")
    assert run_git(a, "rev-parse", "claude-memory^{tree}") == run_git(b, "rev-parse", "claude-memory^{tree}")
    assert run_git(a, "ls-tree", "-r", "--name-only", "claude-memory", "conflicts/") == ""
