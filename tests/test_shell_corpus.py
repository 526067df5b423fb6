"""The shell classifier against a labelled corpus of real command lines.

Each line of tests/data/shell/corpus.jsonl is a command shape seen in public material
(shell histories, CI `run:` steps, Makefiles, READMEs, dotfiles), paraphrased, with the
label a careful reviewer gives it and where the shape comes from. Labels: read, write,
push, force-push. Tests and interpreters are labelled write: they run arbitrary code.

The goals: no write or push is ever read-only (that would be a hole in the review
profile); at most 5% of reads are denied (friction); every push is seen as a push and
every force push as a force push (the debug and build profiles rely on that).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from enf_git.pure.shellclass import classify

CORPUS = Path(__file__).parent / "data" / "shell" / "corpus.jsonl"
LABELS = ("read", "write", "push", "force-push")
ROWS: list[dict[str, str]] = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line]
READS = [r["command"] for r in ROWS if r["label"] == "read"]
NOT_READS = [r["command"] for r in ROWS if r["label"] != "read"]


def _misses(rows: list[dict[str, str]], wrong: object) -> list[str]:
    found = []
    for row in rows:
        verdict = classify(row["command"])
        if wrong(row["label"], verdict):  # type: ignore[operator]
            found.append(f"{row['label']:>10} -> {verdict.name:<10} {row['command']!r} ({verdict.reason})")
    return found


def test_the_corpus_is_large_labelled_and_sourced() -> None:
    assert len(ROWS) >= 300
    assert {r["label"] for r in ROWS} == set(LABELS)
    assert all(r["source"].strip() and r["command"].strip() for r in ROWS)
    assert len({r["command"] for r in ROWS}) == len(ROWS), "a command is listed twice"


def test_no_write_or_push_is_classified_read_only() -> None:
    misses = _misses(ROWS, lambda label, v: label != "read" and v.read_only)
    assert not misses, "writes classified read-only:\n" + "\n".join(misses)


def test_at_most_five_percent_of_reads_are_denied() -> None:
    misses = _misses(ROWS, lambda label, v: label == "read" and not v.read_only)
    assert len(misses) <= 0.05 * len(READS), f"{len(misses)}/{len(READS)} reads denied:\n" + "\n".join(misses)


def test_every_push_is_a_push_and_every_force_push_is_forced() -> None:
    misses = _misses(ROWS, lambda label, v: (label == "push" and not v.pushes)
                     or (label == "force-push" and v.name != "force-push"))
    assert not misses, "pushes missed:\n" + "\n".join(misses)


# A here-doc swallows the lines after it and a comment the rest of its line, so joining
# such a command to another would hide the other from the shell too: leave those out.
_JOINABLE_READS = [c for c in READS if "\n" not in c and "#" not in c]
_JOINABLE_WRITES = [c for c in NOT_READS if "\n" not in c and "#" not in c]
# Spaces inside $( ) and ( ): `$((…))` and `((…))` are arithmetic, which runs no command.
_JOINS = ["{r}; {w}", "{w}; {r}", "{r} && {w}", "{r} || {w}", "{r} | {w}", "{w} | {r}", "{r} & {w}",
          "{r} $( {w} )", "echo \"$( {w} )\" | {r}", "( {w} )", "{{ {w}; }}", "{r}\n{w}", "{r} <( {w} )",
          "if {r}; then {w}; fi", "for x in a; do {w}; done", "sh -c {q}", "bash -c {q}", "{r} `{w}`"]


@settings(max_examples=400, deadline=None)
@given(read=st.sampled_from(_JOINABLE_READS), write=st.sampled_from(_JOINABLE_WRITES),
       join=st.sampled_from(_JOINS))
def test_a_write_joined_to_any_read_is_never_read_only(read: str, write: str, join: str) -> None:
    if "`" in join and "`" in write:
        return  # unescaped backticks do not nest in the shell either
    quoted = "'" + write.replace("'", "'\\''") + "'"
    line = join.format(r=read, w=write, q=quoted)
    assert not classify(line).read_only, line
