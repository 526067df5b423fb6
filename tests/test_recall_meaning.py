"""Recall's signal of meaning: a question asking for an amount, a date, a name... that the notes
mention the people and things of but never give is weak, and says so.

Pure tests of what a question asks for and what a passage gives (asks.py), then `git enf
recall` against real repositories, through click's runner and through the warm fast path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from enf_git.mcp import tools
from enf_git.plumbing import asks, search
from gitfixtures import session_text, write_session


@pytest.mark.parametrize(("question", "kind"), [
    ("how much did Declan charge for the bed", "amount"),
    ("what did Seán charge for fitting the pump", "amount"),
    ("how old is my nephew", "age"),
    ("how long will the knitting take", "duration"),
    ("how many prints did I sell", "number"),
    ("when is Aoife's birthday", "date"),
    ("what time do the swimmers meet", "date"),
    ("who checked the wiring in the van", "name"),
    ("what is Kemi's husband called", "name"),
    ("what is the name of the print lab", "name"),
    # No kind: an open question, a "why", a "called" that is a verb.
    ("what did Máire say about my essay", None),
    ("why didn't we pay for a commercial product", None),
    ("how do we get a compile error when actions are called with a typo", None),
    ("what day rate did I quote the brewery", None),  # "what day" followed by a noun asks no date
])
def test_what_a_question_asks_for(question: str, kind: str | None) -> None:
    found = asks.asked(question)
    assert (found[0] if found else None) == kind


def test_the_words_that_only_ask_for_the_kind_are_not_its_topic() -> None:
    found = asks.asked("how much did Declan charge for the bed")
    assert found is not None and {"charg", "much"} <= found[1] and "bed" not in found[1]


@pytest.mark.parametrize(("kind", "passage", "gives"), [
    ("amount", "He paid 14,500 euro for it", True),
    ("amount", "About 420 each including the flat", True),
    ("amount", "A 30 percent deposit secures the date", True),
    ("amount", "The bed lifts on gas struts, with room for two camera cases", False),
    ("amount", "They took the next sailing at 10:30", False),
    ("age", "His nephew Kuba is eleven", True),
    ("age", "a three-year-old rescue beagle", True),
    ("age", "Orla swims every morning at 7", False),
    ("duration", "About 40 hours at her speed", True),
    ("duration", "A simple garter-stitch blanket in merino", False),
    ("date", "She starts on the 1st of December", True),
    ("date", "The group meets at the pier", False),
    ("number", "I have six galleries waiting", True),
    ("number", "The galleries are waiting", False),
])
def test_what_a_passage_gives(kind: str, passage: str, gives: bool) -> None:
    assert asks.gives(kind, passage, "", passage) is gives


def test_a_name_is_a_capitalised_word_the_note_does_not_also_write_in_lower_case() -> None:
    note = "Kemi's husband Tunde drove her. Later they ate."
    assert asks.gives("name", "Kemi's husband Tunde drove her.", "what is Kemi's husband called", note)
    # Kemi is the question's own word, Later a sentence's first word the note writes in lower case too.
    assert not asks.gives("name", "Kemi's husband drove her. Later they ate.", "what is Kemi's husband called",
                          note + " later")


def test_windows_are_the_summary_list_items_and_paragraphs_without_chat_times() -> None:
    text = ('---\nsummary: "Bought a van"\ntags: [van]\n---\n## Intent\nPlan the van.\n\n## Interactions\n'
            "### [19:41] User -> picked it up today\n**Claude ->** He paid 14,500 euro.\n\n"
            "## Notes\n- Declan builds the bed frame\n- van: bought in Athlone\n")
    assert asks.windows(text) == ["Bought a van", "## Intent Plan the van.",
                                  "## Interactions ###   User -> picked it up today **Claude ->** He paid 14,500 euro.",
                                  "## Notes", "- Declan builds the bed frame", "- van: bought in Athlone"]
    assert "Bought a van" in asks.header(text) and "Plan the van." in asks.header(text)


# --- through `git enf recall` ---------------------------------------------------------

@pytest.fixture
def enf(run_cli, repo_dir: Path):  # type: ignore[no-untyped-def]
    run_cli("init", "--no-hooks")
    subprocess.run(["git", "config", "enf.answerCheck", "true"], cwd=repo_dir, check=True)  # off by default
    return run_cli


write = write_session  # the shared helper, under this file's short name


def van_sessions(enf, repo_dir: Path, given: bool) -> None:  # type: ignore[no-untyped-def]
    """A van note: its price in one paragraph (with the question's "much" and "charge"), Declan and
    the bed in another; with `given`, what he charged."""
    declan = "Declan charged 300 euro for the bed frame." if given else "Declan offered to build the bed frame."
    write(repo_dir, "2026-02-17-van", session_text(
        session_id="a1a1a1a1", date="2026-02-17", summary="Bought a van to convert", tags="[van]",
        body=("\n## Interactions\n### [19:41] User -> picked it up today\n**Claude ->** He paid 14,500 euro "
              "for the van, not much over what dealers charge.\n\n### [19:55] User -> what about the bed\n"
              f"**Claude ->** {declan} It lifts on gas struts.\n")))
    others = [("Car service", "new tyres all round"), ("Garden day", "dug over the vegetable bed"),
              ("Lunch out", "met Declan's sister in town"), ("Tuned the build cache", ""), ("Tuned the test cache", ""),
              ("Walked the coast path", "")]
    for i, (summary, note) in enumerate(others):
        write(repo_dir, f"2026-03-0{i + 1}-other-{i}", session_text(
            session_id=f"b{i}b2b3b4", date=f"2026-03-0{i + 1}", summary=summary, tags="[notes]",
            body=f"\n## Notes\n- {note}\n" if note else ""))
    enf("commit", "-m", "van")


@pytest.mark.parametrize("given", [False, True])
def test_a_question_asking_an_amount_the_notes_never_give_is_weak(enf, repo_dir: Path, given: bool) -> None:  # type: ignore[no-untyped-def]
    # Memory holds Declan and the bed, in one passage, and an amount in another passage of
    # the same note: the words alone match well, only the amount's place tells them apart.
    van_sessions(enf, repo_dir, given)
    out = json.loads(enf("recall", "how", "much", "did", "Declan", "charge", "for", "the", "bed", "--json"))
    st = out["strength"]
    assert out["results"][0]["path"] == "sessions/2026-02-17-van.md"
    assert st["asks"] == "amount"
    # The words' rule alone would not call it weak: the flag is the amount's.
    assert not search.is_weak(st["matched"], st["unknown_share"], bool(st["unknown_names"]), st["apart_share"],
                              st["lead"])
    assert out["weak"] is (not given)
    assert (st["gives"] >= search.ANSWER_SHARE) is given
    assert st["reason"] == ("" if given else "the notes mention Declan and bed but give no amount")


def test_the_weak_line_says_what_the_notes_do_not_give(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    van_sessions(enf, repo_dir, given=False)
    out = enf("recall", "how", "much", "did", "Declan", "charge", "for", "the", "bed")
    assert out.startswith("no strong match for 'how much did Declan charge for the bed': the notes mention Declan "
                          "and bed but give no amount; closest:\n")
    probe = "from enf_git.entry import main; main()"
    args = ["recall", "how", "much", "did", "Declan", "charge", "for", "the", "bed"]
    for extra in ([], ["--json"]):
        full = enf(*args, *extra)
        proc = subprocess.run([sys.executable, "-c", probe, *args, *extra], cwd=repo_dir, capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == full  # the warm fast path says the same


@pytest.mark.parametrize("given", [False, True])
def test_a_question_asking_a_name_the_notes_never_give_is_weak(enf, repo_dir: Path, given: bool) -> None:  # type: ignore[no-untyped-def]
    husband = "Her husband Tunde drove her" if given else "Her husband drove her"
    write(repo_dir, "2026-04-01-kemi", session_text(
        session_id="c1c1c1c1", date="2026-04-01", summary="Kemi second shot the Barna wedding", tags="[work]",
        body=f"\n## Notes\n- Kemi came early. {husband} and waited in the car.\n- she shot the speeches\n"))
    for i, summary in enumerate(["Kemi priced her newborn sessions", "My sister's husband visited",
                                 "Tuned the build cache", "Tuned the test cache", "Walked the coast path"]):
        write(repo_dir, f"2026-03-0{i + 1}-other-{i}", session_text(session_id=f"d{i}d2d3d4", date=f"2026-03-0{i + 1}",
                                                                   summary=summary, tags="[notes]"))
    enf("commit", "-m", "kemi")
    out = json.loads(enf("recall", "what", "is", "Kemi's", "husband", "called", "--json"))
    assert out["strength"]["asks"] == "name"
    assert out["weak"] is (not given)


def test_a_question_asking_no_kind_of_answer_gets_no_signal(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    van_sessions(enf, repo_dir, given=False)
    out = json.loads(enf("recall", "what", "did", "Declan", "build", "--json"))
    assert "asks" not in out["strength"] and "reason" not in out["strength"]
    assert out["weak"] is False


def test_the_mcp_recall_says_why_too(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    van_sessions(enf, repo_dir, given=False)
    where = tools.Where(repo_dir, None, "", time.time)
    weak = json.loads(tools.call("recall", {"query": "how much did Declan charge for the bed"}, where).text)
    assert weak["weak"] is True and weak["reason"] == "the notes mention Declan and bed but give no amount"
    strong = json.loads(tools.call("recall", {"query": "how much did the van cost"}, where).text)
    assert strong["weak"] is False and "reason" not in strong


def test_the_answer_check_is_off_unless_the_config_asks(run_cli, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    # Off by default: on the conversational held-out set it flagged 8.4% of the answerable
    # questions (3.8% without it). `git -c` turns it on for one call, on the warm path too.
    run_cli("init", "--no-hooks")
    van_sessions(run_cli, repo_dir, given=False)
    question = ["how", "much", "did", "Declan", "charge", "for", "the", "bed", "--json"]
    assert "asks" not in json.loads(run_cli("recall", *question))["strength"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for config in (["-c", "enf.answerCheck=false"], ["-c", "enf.answerCheck=true"]):
        got = subprocess.run(["git", *config, "enf", "recall", *question], cwd=repo_dir, env=env,
                             capture_output=True, text=True, check=True)
        strength = json.loads(got.stdout)["strength"]
        assert ("asks" in strength) is (config[1].endswith("true")), got.stdout
    assert json.loads(got.stdout)["weak"] is True
