"""Recall that is right: one ranked list, superseded decisions marked, weak answers said.

Pure tests of the analysis (stem.py) and the snippet cutter, then `git enf recall`
against real repositories through click's runner and through the warm fast path.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git.plumbing import search, stem
from gitfixtures import COST, SCALE, search_sessions, session_text, write_session

# The Snowball English reference (libstemmer 2.2) for words that exercise every step.
REFERENCE = {
    "caresses": "caress", "ponies": "poni", "ties": "tie", "cries": "cri", "gaps": "gap", "gas": "gas",
    "kiwis": "kiwi", "agreed": "agre", "feed": "feed", "proceed": "proceed", "exceedingly": "exceed",
    "hopping": "hop", "hoping": "hope", "luxuriating": "luxuri", "controllably": "control",
    "sensational": "sensat", "conditional": "condit", "hesitancy": "hesit", "digitizer": "digit",
    "generously": "generous", "communication": "communic", "arsenal": "arsenal", "skies": "sky", "dying": "die",
    "news": "news", "sky": "sky", "cry": "cri", "by": "by", "say": "say", "crying": "cri", "relational": "relat",
    "formalize": "formal", "electrical": "electr", "hopeful": "hope", "goodness": "good", "allowance": "allow",
    "adjustable": "adjust", "replacement": "replac", "adoption": "adopt", "effective": "effect", "cease": "ceas",
    "rolled": "roll", "scheduled": "schedul", "scheduling": "schedul", "crashes": "crash", "servers": "server",
    "certificates": "certif", "expire": "expir", "organisation": "organis", "clusters": "cluster",
    "deployments": "deploy", "migrations": "migrat", "reversal": "revers", "superseded": "supersed",
    "deciding": "decid", "decisions": "decis", "elasticsearch": "elasticsearch", "postgres": "postgr",
    "caching": "cach", "cached": "cach", "yearly": "year", "happily": "happili",
}



@pytest.mark.parametrize(("word", "expected"), sorted(REFERENCE.items()))
def test_stem_matches_the_snowball_reference(word: str, expected: str) -> None:
    assert stem.stem(word) == expected


def test_analyze_drops_function_words_keeps_compounds_and_their_parts() -> None:
    assert stem.analyze("How do we cache the pages?") == ["cach", "page"]
    assert stem.analyze("its own pair of clusters") == ["own", "pair", "cluster"]  # "own" carries the topic
    assert stem.analyze("rich-text emails.") == ["richtext", "email"]
    assert stem.analyze("rich-text emails.", parts=True) == ["richtext", "rich", "text", "email"]
    assert stem.analyze("node.js psr-16", parts=True) == ["node.js", "node", "js", "psr-16", "psr", "16"]


def test_a_hyphenated_compound_is_one_word_stemmed() -> None:
    # Writers drop hyphens ("password-less" / "passwordless") and inflect the last piece.
    assert stem.analyze("password-less sign-in") == stem.analyze("passwordless signin") == ["passwordless", "signin"]
    assert stem.analyze("hand-tuned") == stem.analyze("hand-tuning") == stem.analyze("handtuned")
    assert stem.words("Jenkins. node.js psr-16-") == ["jenkins", "node.js", "psr-16"]


_TRICKY = [
    "", "...", "-x ..a --b.", "Jenkins. node.js psr-16- rich-text", "we're don't o'clock users' team\u2019s",
    "caf\u00e9 na\u00efve \u65e5\u672c Stra\u00dfe \ufb01le \u0130stanbul", "em\u2014dash \u201cquoted\u201d \u2026 a\u00a0b c\u2028d",
    "snake_case __init__ x_1 \x1c\x85 tab\there", "(ES) Elasticsearch; ok: yes! why? 3.14 v1.2.3-rc",
]


@pytest.mark.parametrize("text", _TRICKY)
def test_the_indexers_bytes_analysis_gives_the_terms_analyze_gives(text: str) -> None:
    # The indexer analyzes bytes (stem.joined_terms): the same terms as analyze(), or recall moves.
    want = " ".join(stem.analyze(text, parts=True))
    assert stem.joined_terms(text.encode()) == want
    assert want or not any(c.isalnum() for c in text)  # the cases hold terms where they hold words
    # An invalid byte is what the text decodes it to (U+FFFD), which no word holds.
    for bad in (b"\xff", b"\xe2\x80", b"\xed\xa0\x80"):
        data = bad + text.encode() + bad + b"x" + bad
        assert stem.joined_terms(data) == " ".join(stem.analyze(data.decode("utf-8", "replace"), parts=True))


def test_clitics_are_not_terms() -> None:
    # Split at the apostrophe, "couldn't" and "team's" made the terms "couldn", "t" and "s".
    assert stem.analyze("why couldn't the team\u2019s app see each other's logs") == [
        "not", "team", "app", "see", "each", "other", "log"]
    assert stem.words("we're they've it'll we'd I'm users' o'clock") == [
        "we", "they", "it", "we", "i", "users", "oclock"]


def test_snippets_cut_on_word_boundaries() -> None:
    for pad in range(1, 12):  # words of every length, so a cut at a fixed offset would split one
        words = [f"w{i}{'x' * ((i * pad) % 7)}" for i in range(80)]  # "w" + a unique number: no word ends another
        line = " ".join([*words[:40], "algolia", *words[40:]])
        out = search.snip(line, ["algolia"], width=80)
        assert "algolia" in out and out.startswith("…") and out.endswith("…")
        inner = out.strip("…")
        assert f" {inner} " in f" {line} "  # starts and ends on a word boundary
        assert inner.split()[0].startswith("w") and inner.split()[-1] in words
        assert len(inner) <= 80
    assert search.snip("short line", ["x"]) == "short line"


def test_weak_rule_weighs_unseen_words_by_idf() -> None:
    assert not search.is_weak(matched=3, unknown_share=0.0)
    assert search.is_weak(matched=1, unknown_share=0.7)  # most of the query's weight is words memory never saw
    assert not search.is_weak(matched=1, unknown_share=0.4)  # a paraphrase: an unseen word or two
    assert search.is_weak(matched=0, unknown_share=0.0)  # no first result holds any of it
    # An unseen name lowers the share that makes it weak, not to nothing.
    assert search.is_weak(matched=3, unknown_share=0.4, names=True)
    assert not search.is_weak(matched=3, unknown_share=0.2, names=True)


def test_weak_rule_counts_the_words_the_first_result_lacks() -> None:
    # The same unseen share: the first result holding the rest of the question is a
    # paraphrase's answer; the rest only in other records (never together), no answer.
    assert not search.is_weak(matched=2, unknown_share=0.45, apart_share=0.0)
    assert search.is_weak(matched=2, unknown_share=0.45, apart_share=0.4)
    # Words apart count less than unseen ones: alone, they are a paraphrase's everyday words.
    assert not search.is_weak(matched=1, unknown_share=0.0, apart_share=0.9)
    assert search.is_weak(matched=1, unknown_share=0.9)


def test_weak_rule_spares_a_first_result_that_stands_out() -> None:
    # What the first result lacks makes a question weak only among near-equal results: one
    # scoring LEAD times the second's is found by what it alone holds.
    assert search.is_weak(matched=2, unknown_share=0.45, apart_share=0.4, lead=1.2)
    assert not search.is_weak(matched=2, unknown_share=0.45, apart_share=0.4, lead=search.LEAD)
    assert search.is_weak(matched=2, unknown_share=0.45, apart_share=0.4)  # no second result: no lead
    # Nothing held, or a name memory never saw, stays weak however far ahead the first result is.
    assert search.is_weak(matched=0, unknown_share=0.0, lead=5.0)
    assert search.is_weak(matched=3, unknown_share=0.4, names=True, lead=5.0)


# --- through the CLI ----------------------------------------------------------------

write = write_session  # the shared helper, under this file's short name


def two_sessions(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    search_sessions(repo_dir)
    enf("commit", "-m", "sessions")


def test_a_superseded_decision_is_marked_and_followed_by_its_replacement(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    data = json.loads(enf("recall", "algolia", "--json"))
    old, new = data["results"][:2]
    assert (old["kind"], old["status"], old["path"]) == ("decision", "superseded", "sessions/2026-04-13-search-api.md")
    assert old["superseded_by"] == new["ref"] and old["superseded_on"] == "2026-04-20"
    assert (new["status"], new["path"], new["superseded_by"]) == ("standing", "sessions/2026-04-20-postgres-fts.md", None)
    lines = enf("recall", "algolia").splitlines()
    assert lines[0].endswith(f"sessions/2026-04-13-search-api.md  SUPERSEDED by {new['ref']} (2026-04-20)")
    assert lines[2] == f"    → git enf show {old['ref']}"
    assert lines[3].startswith("decision 2026-04-20  sessions/2026-04-20-postgres-fts.md")
    assert "SUPERSEDED" not in lines[3]
    shown = enf("show", old["ref"])
    assert "SUPERSEDED" in shown  # the command it points to works
    # Both sessions match "elasticsearch": the replacement, pulled up, is not listed twice.
    rows = json.loads(enf("recall", "elasticsearch", "--json"))["results"]
    assert [r["path"] for r in rows] == ["sessions/2026-04-13-search-api.md", "sessions/2026-04-20-postgres-fts.md"]


def test_one_result_per_session_ranked_by_relevance_across_kinds(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    # "postgres" is in the summary, the decided clause, the reversal and the body of one session.
    rows = json.loads(enf("recall", "postgres", "--json"))["results"]
    assert [r["path"] for r in rows] == ["sessions/2026-04-20-postgres-fts.md"]
    # "build cache": four sessions match on summary; each appears once, none is a decision.
    rows = json.loads(enf("recall", "build", "cache", "--json"))["results"]
    assert len(rows) == len({r["path"] for r in rows}) == 4
    assert {r["kind"] for r in rows} == {"session"}
    assert all(r["snippet"].startswith("Tuned the build cache") for r in rows)


def test_history_hits_only_for_text_the_tip_no_longer_has(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    path = write(repo_dir, "2026-04-13-search-api", session_text(summary="Added search, reworded", body=SCALE))
    enf("commit", "-m", "reword")
    rows = json.loads(enf("recall", "algolia", "--json"))["results"]
    assert [r["kind"] for r in rows] == ["decision", "decision"]  # the old version says nothing the tip does not
    path.write_text(session_text(summary="compressed"))
    enf("commit", "-m", "compress")
    rows = json.loads(enf("recall", "algolia", "--json"))["results"]
    history = [r for r in rows if r["path"] == "sessions/2026-04-13-search-api.md"]
    assert len(history) == 1 and history[0]["kind"] == "history"
    assert "Algolia" in history[0]["snippet"]
    assert history[0]["command"].startswith("git enf show sessions/2026-04-13-search-api.md --at ")
    at = history[0]["command"].split("--at ")[1]
    assert "Algolia" in enf("show", "sessions/2026-04-13-search-api.md", "--at", at)


def test_weak_matches_are_said_to_be_weak(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    strong = json.loads(enf("recall", "postgres", "fts", "--json"))
    assert strong["weak"] is False and strong["strength"] == {"terms": 2, "matched": 2, "unknown": 0,
                                                                 "unknown_share": 0.0, "unknown_names": [],
                                                                 "apart_share": 0.0, "lead": 1.0}
    weak = json.loads(enf("recall", "kafka", "event", "bus", "search", "--json"))
    assert weak["weak"] is True and weak["strength"]["unknown"] == 3 and weak["strength"]["unknown_share"] > 0.5
    assert weak["results"]  # still shown: the closest there is
    out = enf("recall", "kafka", "event", "bus", "search")
    assert out.startswith("no strong match for 'kafka event bus search'; closest:\n")
    assert not enf("recall", "postgres", "fts").startswith("no strong match")


def test_a_hit_on_a_malformed_file_points_at_its_path(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    write(repo_dir, "2026-04-22-broken", "---\nsession_id: [x\n---\n## Intent\nMigrate the zookeeper ensemble.\n")
    enf("commit", "-m", "broken")
    rows = json.loads(enf("recall", "zookeeper", "--json"))["results"]
    assert rows[0]["command"] == "git enf show sessions/2026-04-22-broken.md"
    assert "zookeeper ensemble" in enf("show", "sessions/2026-04-22-broken.md")


def test_an_index_of_an_older_schema_is_rebuilt(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    db_file = repo_dir / ".git" / "enf" / "search.db"
    db_file.unlink(missing_ok=True)
    with sqlite3.connect(db_file) as db:  # schema 3: one text column, no decisions table
        db.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
                         "CREATE TABLE docs (id INTEGER PRIMARY KEY, kind TEXT, ref TEXT, path TEXT, date TEXT,"
                         " rev TEXT, blob TEXT, text TEXT);")
        tip = subprocess.run(["git", "rev-parse", "claude-memory"], cwd=repo_dir, capture_output=True, text=True).stdout
        db.execute("INSERT INTO meta VALUES ('tip', ?), ('schema', '3')", (tip.strip(),))
    rows = json.loads(enf("recall", "postgres", "--json"))["results"]
    assert rows[0]["path"] == "sessions/2026-04-20-postgres-fts.md"
    with sqlite3.connect(db_file) as db:
        assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(search.SCHEMA),)


def test_an_index_of_schema_8_is_rebuilt_not_misread(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """Schema 8 kept each row's text and analyzed columns as they were (FTS5 reading them from
    docs); schema 9 deflates them into docs.data. An index of 8 for the current tip is rebuilt."""
    two_sessions(enf, repo_dir)
    db_file = repo_dir / ".git" / "enf" / "search.db"
    db_file.unlink(missing_ok=True)
    tip = subprocess.run(["git", "rev-parse", "claude-memory"], cwd=repo_dir, capture_output=True, text=True).stdout
    with sqlite3.connect(db_file) as db:
        db.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
            "CREATE TABLE docs (id INTEGER PRIMARY KEY, kind TEXT, ref TEXT, path TEXT, date TEXT, rev TEXT, blob TEXT,"
            " text TEXT, decided TEXT, summary TEXT, tags TEXT, body TEXT, length INTEGER);"
            "CREATE TABLE decisions (id TEXT, path TEXT, date TEXT, text TEXT, terms TEXT, status TEXT,"
            " superseded_by TEXT, superseded_on TEXT);"
            "CREATE TABLE abbrevs (doc INTEGER, short TEXT, long TEXT, first TEXT);"
            "CREATE VIRTUAL TABLE fts USING fts5(decided, summary, tags, body, content='docs', content_rowid='id');"
            "CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, 'row');")
        db.execute("INSERT INTO docs VALUES (1, 'session', 'stale', 'sessions/stale.md', '2020-01-01', '', '',"
                   " 'postgres', '', 'postgr', '', 'postgr', 2)")
        db.execute("INSERT INTO fts (rowid, decided, summary, tags, body) VALUES (1, '', 'postgr', '', 'postgr')")
        db.execute("INSERT INTO meta VALUES ('tip', ?), ('schema', '8')", (tip.strip(),))
    rows = json.loads(enf("recall", "postgres", "--json"))["results"]
    assert rows[0]["path"] == "sessions/2026-04-20-postgres-fts.md"
    assert "sessions/stale.md" not in {r["path"] for r in rows}
    with sqlite3.connect(db_file) as db:
        assert db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(search.SCHEMA),)
        assert "data" in {c[1] for c in db.execute("PRAGMA table_info(docs)")}


def test_rows_are_stored_deflated_and_read_back_whole(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    enf("recall", "postgres")
    db = search.connect(repo_dir / ".git" / "enf" / "search.db")
    zdict = search.dictionary(db)
    assert 0 < len(zdict) <= 32768
    (path, data), *_ = db.execute("SELECT path, data FROM docs WHERE path LIKE '%postgres-fts%'").fetchall()
    decided, summary, tags, body, text = search.unpack(zdict, data)
    assert text == (repo_dir / ".claude-sessions" / path).read_text(encoding="utf-8")
    assert "postgr" in body.split() and len(data) < len(text.encode())


def test_an_updated_index_holds_what_a_rebuilt_one_holds(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """The full-text index is contentless: it forgets a row only when the indexer gives the
    row's columns back exactly. After edits, a deletion and a revert, updated and rebuilt agree."""
    two_sessions(enf, repo_dir)
    db_file = repo_dir / ".git" / "enf" / "search.db"

    def snapshot() -> tuple[object, ...]:
        with sqlite3.connect(db_file) as db:
            docs = sorted(db.execute("SELECT kind, path, blob, length FROM docs"))
            return (docs, sorted(db.execute("SELECT term, doc, cnt FROM vocab")),
                    sorted(db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'algolia OR postgr'")))

    enf("recall", "postgres")
    path = write(repo_dir, "2026-04-13-search-api", session_text(summary="Added search, reworded", body=SCALE))
    enf("commit", "-m", "reword")
    enf("recall", "postgres")
    path.write_text(session_text(summary="compressed"), encoding="utf-8")
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-20-postgres-fts.md").unlink()
    enf("commit", "-m", "compress and delete")
    enf("recall", "postgres")
    path.write_text(session_text(summary="Added search, reworded", body=SCALE), encoding="utf-8")
    enf("commit", "-m", "revert")  # a blob that was history is live again
    enf("recall", "postgres")
    updated = snapshot()
    for suffix in ("", "-wal", "-shm"):
        db_file.with_name(db_file.name + suffix).unlink(missing_ok=True)
    enf("recall", "postgres")
    assert snapshot() == updated


def test_a_dictionary_taken_from_a_few_rows_is_taken_again_as_memory_grows(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    db_file = repo_dir / ".git" / "enf" / "search.db"

    def sampled() -> int:
        with sqlite3.connect(db_file) as db:
            return int(db.execute("SELECT value FROM meta WHERE key='zdict_rows'").fetchone()[0])

    write(repo_dir, "2026-04-20-postgres-fts", session_text(session_id="b2c3d4e5", date="2026-04-20",
                                                           summary="Moved search to Postgres", body=COST))
    enf("commit", "-m", "first")
    enf("recall", "postgres")
    first = sampled()
    for i in range(4 * first):
        write(repo_dir, f"2026-03-{i + 1:02d}-other-{i}", session_text(session_id=f"c{i}d4e5f6",
                                                                      date=f"2026-03-{i + 1:02d}",
                                                                      summary=f"Tuned the build cache {i}"))
    enf("commit", "-m", "more")
    db = search.connect(db_file)  # a reader's connection stays good: the index is rebuilt in place
    enf("recall", "postgres")  # an update: the index holds 4x the rows its dictionary came from
    write(repo_dir, "2026-04-21-more", session_text(session_id="d4e5f6a7", date="2026-04-21", summary="More"))
    enf("commit", "-m", "one more")
    rows = json.loads(enf("recall", "postgres", "--json"))["results"]
    assert rows[0]["path"] == "sessions/2026-04-20-postgres-fts.md"
    assert sampled() > first  # rebuilt: the dictionary now comes from every row
    assert db.execute("SELECT count(*) FROM docs").fetchone() == (4 * first + 2,)


def test_without_fts5_the_same_ranking_is_computed_in_python(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    fts_answer = json.loads(enf("recall", "elasticsearch", "cost", "--json"))
    with_fts = fts_answer["results"]
    db = search.connect(repo_dir / ".git" / "enf" / "search.db")
    db.execute("DROP TABLE vocab")
    db.execute("DROP TABLE fts")
    answer = search.query(db, "elasticsearch cost", 10)
    assert [h.path for h in answer.hits][:2] == [r["path"] for r in with_fts][:2]
    assert answer.strength() == fts_answer["strength"]
    assert answer.strength() == {"terms": 2, "matched": 2, "unknown": 0, "unknown_share": 0.0, "unknown_names": [],
                                 "apart_share": 0.0, "lead": answer.strength()["lead"]}


def test_a_name_memory_never_saw_makes_an_answer_weak(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    # "search engine" matches strongly by the word counts; "Kafka", spelled as a name,
    # is in no record: the question is about something memory does not hold.
    named = json.loads(enf("recall", "Kafka", "search", "engine", "cluster", "--json"))
    assert named["weak"] is True and named["strength"]["unknown_names"] == ["Kafka"]
    plain = json.loads(enf("recall", "kafka", "search", "engine", "cluster", "--json"))
    assert plain["weak"] is False  # the same words in lower case: only the counts decide
    assert json.loads(enf("recall", "Postgres", "search", "--json"))["weak"] is False  # a name it knows


def test_an_unseen_name_in_a_question_memory_otherwise_holds_is_not_weak(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    # "CMS" is in no record, but the other six words are memory's: the name is a small
    # part of the question (an acronym of the trade, say), not its whole topic.
    out = json.loads(enf("recall", "CMS", "algolia", "elasticsearch", "postgres", "search", "engine", "cost",
                         "--json"))
    assert out["strength"]["unknown_names"] == ["CMS"]
    assert out["weak"] is False


def test_a_synonym_finds_a_session_written_in_other_words(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    write(repo_dir, "2026-04-23-error-tracking", session_text(
        session_id="c3d4e5f6", date="2026-04-23", summary="Exceptions from production go to the tracker",
        tags="[observability]"))
    enf("commit", "-m", "tracking")
    rows = json.loads(enf("recall", "who", "hears", "about", "crashes", "--json"))["results"]
    assert rows[0]["path"] == "sessions/2026-04-23-error-tracking.md"
    # The weak rule counts what the first result holds as the ranking does: "error", in
    # another session, is held by this one's "exceptions".
    write(repo_dir, "2026-04-24-build-error", session_text(
        session_id="d4e5f6a7", date="2026-04-24", summary="Fixed a build error", tags="[ci]"))
    enf("commit", "-m", "build")
    out = json.loads(enf("recall", "production", "error", "tracker", "--json"))
    assert out["results"][0]["path"] == "sessions/2026-04-23-error-tracking.md"
    assert out["strength"]["unknown"] == 0 and out["strength"]["apart_share"] == 0.0


def test_synonyms_of_one_query_word_score_as_that_one_word(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    write(repo_dir, "2026-04-23-importer-errors", session_text(
        session_id="c3d4e5f6", date="2026-04-23", summary="Errors, exceptions and failures of the importer",
        tags="[import]"))
    write(repo_dir, "2026-04-24-production-crash", session_text(
        session_id="d4e5f6a7", date="2026-04-24", summary="A crash in production", tags="[ops]"))
    enf("commit", "-m", "two")
    # Three synonyms of "crashes" are one word of the question, not three: the session
    # that also holds "production" answers more of it. Scored word by word, the three
    # synonyms (each as rare as "production") won.
    rows = json.loads(enf("recall", "crashes", "in", "production", "--json"))["results"]
    assert [r["path"] for r in rows] == ["sessions/2026-04-24-production-crash.md",
                                         "sessions/2026-04-23-importer-errors.md"]
    db = search.connect(repo_dir / ".git" / "enf" / "search.db")
    db.execute("DROP TABLE vocab")
    db.execute("DROP TABLE fts")
    answer = search.query(db, "crashes in production", 10)  # without FTS5, the same concepts
    assert [h.path for h in answer.hits] == [r["path"] for r in rows]
    assert [h.score for h in answer.hits] == [r["score"] for r in rows]


@pytest.mark.parametrize("args", [["kafka", "event", "bus", "search"], ["algolia"], ["algolia", "--json"]])
def test_the_fast_path_prints_what_the_full_path_prints(enf, repo_dir: Path, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    full = enf("recall", *args)  # builds the index
    probe = ("import sys; from enf_git.entry import main; main(); "
             "print(sorted(m for m in ('pygit2', 'click', 'yaml') if m in sys.modules), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe, "recall", *args], cwd=repo_dir, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == full
    assert proc.stderr.strip() == "[]"  # answered on the stdlib-only path


def test_a_compound_matches_its_spelling_without_the_hyphen(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    write(repo_dir, "2026-04-24-magic-links", session_text(
        session_id="d4e5f6a7", date="2026-04-24", summary="Looked at sign-in for applicants", tags="[auth]",
        body="\n## Notes\n- Password-less magic links were turned down: mail is slow\n"))
    enf("commit", "-m", "links")
    rows = json.loads(enf("recall", "passwordless", "--json"))["results"]
    assert [r["path"] for r in rows] == ["sessions/2026-04-24-magic-links.md"]
    assert "Password-less magic links" in rows[0]["snippet"]  # the line that holds it, not the summary




def test_a_paraphrase_whose_answer_holds_few_of_its_words_is_not_weak(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    # No result holds more than one of the three terms (a rule on what the first results
    # hold alone, a third of the terms, called that weak), but every word is memory's own,
    # in other sessions: words apart count less than unseen ones. A paraphrase.
    out = json.loads(enf("recall", "algolia", "moved", "tuned", "--json"))
    assert out["strength"]["matched"] == 1 and out["strength"]["unknown"] == 0
    assert out["strength"]["apart_share"] > 0.5
    assert out["weak"] is False
    assert json.loads(enf("recall", "algolia", "pricey", "bills", "--json"))["weak"] is True  # mostly unseen


def test_the_ledger_is_rebuilt_only_when_a_decision_or_reversal_changed(
        enf, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from enf_git import memory
    from enf_git.memory.context import indexer

    two_sessions(enf, repo_dir)
    ctx = memory.Context.open(repo_dir)
    indexer.ensure(ctx.repo, ctx.cache()).close()
    rebuilt: list[str] = []
    real = indexer._reindex_decisions
    monkeypatch.setattr(indexer, "_reindex_decisions", lambda *a: (rebuilt.append("x"), real(*a)))
    old = write(repo_dir, "2026-04-13-search-api", session_text(body=SCALE + "\n## Interactions\n- more notes\n"))
    enf("commit", "-m", "notes grew")
    indexer.ensure(ctx.repo, ctx.cache()).close()
    assert rebuilt == []  # the same decisions and reversals: their standing cannot have moved
    old.write_text(session_text(body=SCALE.replace("Algolia", "Typesense")))
    enf("commit", "-m", "a decision changed")
    db = indexer.ensure(ctx.repo, ctx.cache())
    assert rebuilt == ["x"]
    (text,) = db.execute("SELECT text FROM decisions WHERE path = 'sessions/2026-04-13-search-api.md'").fetchone()
    assert "Typesense" in text
    (repo_dir / ".claude-sessions" / "sessions" / "2026-04-20-postgres-fts.md").unlink()
    enf("commit", "-m", "the reversal is gone")
    db = indexer.ensure(ctx.repo, ctx.cache())
    assert rebuilt == ["x", "x"]
    assert {r[0] for r in db.execute("SELECT status FROM decisions")} == {"standing"}


def test_an_index_being_rebuilt_is_never_removed_by_a_reader_outside_the_lock(
        enf, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The lock's holder removes a stale index and builds a new one; a reader that opens it
    at that moment sees "disk I/O error", and used to remove the file being built."""
    import sqlite3

    from enf_git import memory, paths
    from enf_git.errors import EnfError
    from enf_git.memory.context import indexer
    from enf_git.plumbing import locks, search

    two_sessions(enf, repo_dir)
    ctx = memory.Context.open(repo_dir)
    db_file = repo_dir / ".git" / "enf" / paths.SEARCH_DB
    with search.connect(db_file) as db:  # an index of no tip, which the lock's holder would rebuild
        db.execute("CREATE TABLE being_built (x)")
    db.close()
    real = search.connect
    calls: list[str] = []

    def mid_rebuild(path: Path | str) -> sqlite3.Connection:
        calls.append(str(path))
        if len(calls) == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return real(path)

    monkeypatch.setattr(search, "connect", mid_rebuild)
    monkeypatch.setattr(indexer, "LOCK_WAIT", 0.3)
    with locks.file_lock(repo_dir / ".git" / "enf" / paths.SEARCH_LOCK, wait=0) as held:
        assert held
        with pytest.raises(EnfError, match="being updated by another process"):
            indexer.ensure(ctx.repo, ctx.cache())
    assert calls
    with real(db_file) as db:
        assert db.execute("SELECT name FROM sqlite_master WHERE name='being_built'").fetchone()
    db.close()


def test_an_update_waits_for_another_and_says_so_when_it_never_ends(
        enf, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import concurrent.futures

    from enf_git import memory, paths
    from enf_git.errors import EnfError
    from enf_git.memory.context import indexer
    from enf_git.plumbing import locks

    two_sessions(enf, repo_dir)
    ctx = memory.Context.open(repo_dir)
    lock = repo_dir / ".git" / "enf" / paths.SEARCH_LOCK
    monkeypatch.setattr(indexer, "LOCK_WAIT", 0.3)
    with locks.file_lock(lock, wait=0) as held:
        assert held
        with pytest.raises(EnfError, match="being updated by another process"):
            indexer.ensure(ctx.repo, ctx.cache())
        from enf_git.plumbing import search, store

        db = search.connect(repo_dir / ".git" / "enf" / paths.SEARCH_DB)
        assert search.indexed_tip(db) != str(store.tip(ctx.repo).id)  # it did not update behind the lock
        db.close()
    monkeypatch.setattr(indexer, "LOCK_WAIT", 30.0)
    script = ("import sys; from enf_git import memory; from enf_git.memory.context import indexer; "
              "c = memory.Context.open(sys.argv[1]); db = indexer.ensure(c.repo, c.cache()); "
              "print(db.execute('SELECT count(*) FROM docs').fetchone()[0])")
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(lambda _: subprocess.run([sys.executable, "-c", script, str(repo_dir)],
                                                      capture_output=True, text=True), range(3)))
    assert [r.returncode for r in runs] == [0, 0, 0], [r.stderr[-500:] for r in runs]
    assert len({r.stdout for r in runs}) == 1  # three at once: one built it, the others read it


def test_doctor_does_not_report_an_index_being_built(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    from enf_git import memory, paths
    from enf_git.memory.health import state_checks
    from enf_git.plumbing import locks

    ctx = memory.Context.open(repo_dir)
    state = repo_dir / ".git" / "enf"
    sqlite3.connect(state / paths.SEARCH_DB).close()  # an empty database, as a build begins
    assert state_checks.recall_index(ctx)  # on its own it is worth a warning
    with locks.file_lock(state / paths.SEARCH_LOCK, wait=0) as held:
        assert held
        assert state_checks.recall_index(ctx) == []  # a build holds the lock: nothing to report


# --- questions about a decision's standing ----------------------------------------------

def test_the_frame_of_a_status_question_is_not_its_topic() -> None:
    for word, term in (("still", "still"), ("anymore", "anymor"), ("nowadays", "nowaday"), ("currently", "current"),
                       ("dropped", "drop"), ("stopped", "stop"), ("removed", "remov"), ("retired", "retir"),
                       ("replaced", "replac"), ("using", "use"), ("running", "run"), ("relying", "reli")):
        assert stem.stem(word) == term and term in stem.STATUS_MARKERS | stem.FRAME_VERBS, word
    cases = {
        "do we still use Elasticsearch?": {"still", "use"},
        "why did we drop Elasticsearch?": {"drop"},
        "Why did we move away from node-fetch": {"move", "away"},
        "are platform pipelines still on Concourse?": {"still"},
        "is Kafka still running anymore?": {"still", "run", "anymor"},
        "use case exceptions": set(),  # not a question: "use" is its topic
        "drop the old indices": set(),  # an order, not a question
        "what did we use for search": set(),  # no marker of standing
        "do we still?": set(),  # nothing else: the words are all there is
    }
    for text, expected in cases.items():
        assert stem.frame(text, stem.analyze(text)) == expected, text


def logs_session(repo_dir: Path) -> None:
    """A session that names Elasticsearch without deciding anything about it, and says "still"."""
    write(repo_dir, "2026-04-25-log-shipping", session_text(
        session_id="e5f6a7b8", date="2026-04-25", summary="Shipped the importer's logs to Elasticsearch",
        tags="[logging]", body="\n## Notes\n- The importer still logs twice on retries\n"))


@pytest.mark.parametrize("question", ["do we still use Elasticsearch?", "why did we drop Elasticsearch?",
                                      "are we still on Elasticsearch", "Why did we stop using Elasticsearch?"])
def test_a_status_question_finds_the_decision_and_says_it_no_longer_stands(
        enf, repo_dir: Path, question: str) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    logs_session(repo_dir)
    enf("commit", "-m", "logs")
    data = json.loads(enf("recall", *question.split(), "--json"))
    # Memory never wrote "use", "drop" or "stop" (and "still" once): they were the question's
    # rarest words, so it was called weak, and the session saying "still" came first.
    assert data["weak"] is False
    first, second = data["results"][:2]
    assert (first["kind"], first["status"], first["path"]) == ("decision", "superseded",
                                                               "sessions/2026-04-13-search-api.md")
    assert (second["status"], second["path"]) == ("standing", "sessions/2026-04-20-postgres-fts.md")
    out = enf("recall", *question.split())
    assert out.startswith("decision 2026-04-13  sessions/2026-04-13-search-api.md  SUPERSEDED by ")


def test_a_status_question_about_a_standing_decision_says_it_stands(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    logs_session(repo_dir)
    enf("commit", "-m", "logs")
    data = json.loads(enf("recall", "do", "we", "still", "use", "Postgres", "FTS?", "--json"))
    assert data["weak"] is False
    assert (data["results"][0]["status"], data["results"][0]["path"]) == ("standing",
                                                                          "sessions/2026-04-20-postgres-fts.md")


def people_sessions(repo_dir: Path, together: bool) -> None:
    """Tom, a school and a name, each in two sessions; with `together`, one session holds all three."""
    summaries = ["Tom reviewed the billing rewrite", "Tom paired on the invoice export", "Mapped the school run",
                 "Baked for the school fete", "Picked a name for the package", "The queue name is final",
                 "Tuned the build cache", "Tuned the test cache"]
    if together:
        summaries[0] = "Tom chose a name for the school run"
    for i, summary in enumerate(summaries):
        write(repo_dir, f"2026-05-0{i + 1}-note-{i}", session_text(session_id=f"d{i}e5f6a7", date=f"2026-05-0{i + 1}",
                                                                  summary=summary, tags="[notes]"))


def beacon_sessions(repo_dir: Path, ahead: bool) -> None:
    """Two sessions mention the beacon: with `ahead`, one is about it and the other names it once
    in passing; without, both are about it. Unrelated sessions around them, so idf means something."""
    about = {"summary": "Replaced the beacon battery", "tags": "[beacon]",
             "body": "\n## Notes\n- The beacon battery lasts a year; the beacon blinks when it is low\n"}
    passing = {"summary": "Walked the coast path", "tags": "[walks]",
               "body": "\n## Notes\n- Passed the beacon on the way back, then a long stretch of dunes, a cafe, "
                       "the harbour, the lifeboat station and the old pier before the car park\n"}
    for i, kind in enumerate((about, about if not ahead else passing)):
        write(repo_dir, f"2026-06-0{i + 1}-beacon-{i}", session_text(session_id=f"e{i}f6a7b8", date=f"2026-06-0{i + 1}",
                                                                    **kind))
    for i in range(4):
        write(repo_dir, f"2026-05-1{i}-other-{i}", session_text(session_id=f"f{i}a7b8c9", date=f"2026-05-1{i}",
                                                               summary=f"Tuned the build cache {i}", tags="[ci]"))


@pytest.mark.parametrize("ahead", [False, True])
def test_a_first_result_far_ahead_of_the_rest_is_not_weak(enf, repo_dir: Path, ahead: bool) -> None:  # type: ignore[no-untyped-def]
    # "warranty" and "lighthouse" are in no session, most of the question's weight. Among two
    # sessions about the beacon, that makes it weak; when one session is about the beacon and
    # the other only names it, the first stands out and the question is taken as a paraphrase.
    beacon_sessions(repo_dir, ahead)
    enf("commit", "-m", "beacon")
    out = json.loads(enf("recall", "beacon", "warranty", "lighthouse", "--json"))
    first = out["results"][0]["path"]
    assert "-beacon-" in first and (first == "sessions/2026-06-01-beacon-0.md" or not ahead)
    assert out["strength"]["unknown_share"] > search.WEAK_SHARE
    assert (out["strength"]["lead"] >= search.LEAD) is ahead
    assert out["weak"] is (not ahead)


@pytest.mark.parametrize("together", [False, True])
def test_words_memory_holds_but_never_together_make_a_question_weak(enf, repo_dir: Path, together: bool) -> None:  # type: ignore[no-untyped-def]
    # "daughter" is in no session, under half the question's weight: unseen words alone
    # would not call it weak. Whether it is depends on the rest: memory has Tom, schools and
    # names, but no note about Tom's school or name, so it holds no answer; with one such
    # note, the question is a paraphrase of it.
    people_sessions(repo_dir, together)
    enf("commit", "-m", "notes")
    out = json.loads(enf("recall", "Tom's", "daughter's", "school", "and", "name", "--json"))
    assert out["strength"]["unknown"] == 1 and out["strength"]["unknown_share"] < search.WEAK_SHARE
    assert out["weak"] is (not together)
    assert (out["strength"]["apart_share"] == 0.0) is together


def test_a_status_question_about_what_memory_never_held_stays_weak(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    logs_session(repo_dir)
    enf("commit", "-m", "logs")
    for question in ("do we still use Kafka?", "why did we drop RabbitMQ?"):
        assert json.loads(enf("recall", *question.split(), "--json"))["weak"] is True, question


# --- abbreviations memory defines ---------------------------------------------------------

def test_definitions_are_found_both_ways_and_nothing_else_is() -> None:
    from enf_git.plumbing import abbrev

    text = ("Logs went to Elasticsearch (ES) first. Pull images from ECR (Elastic Container Registry). "
            "The Elastic Kubernetes Service (EKS) nodes; role-based access control (RBAC); the identity provider (IdP). "
            "Anything but HTTPS (SSH to GitHub, say); the server (Unauthorized); PaaS (Cloud Foundry); "
            "Razzle (SSR only, any framework); version (2.1); the cluster (EKS).")
    assert abbrev.pairs(text) == [("ES", "Elasticsearch"), ("ECR", "Elastic Container Registry"),
                                  ("EKS", "Elastic Kubernetes Service"), ("RBAC", "role-based access control"),
                                  ("IdP", "identity provider")]
    assert abbrev.analyzed(("EKS", "Elastic Kubernetes Service")) == ("ek", "elast kubernet servic")


def test_a_definition_starts_after_a_line_or_a_parenthesis() -> None:
    """The words before "(" begin at a newline or a parenthesis (the pattern is anchored there,
    so a line without "(" is not scanned again from each of its characters)."""
    from enf_git.plumbing import abbrev

    assert abbrev.pairs("Elasticsearch\n(ES) then") == [("ES", "Elasticsearch")]
    assert abbrev.pairs("see (the docs) Elastic Search (ES)") == [("ES", "Elastic Search")]
    assert abbrev.pairs("  (ES) alone") == []
    assert abbrev.pairs("ECR (Elastic Container Registry) and\tSSO  (single sign-on)") == [
        ("ECR", "Elastic Container Registry"), ("SSO", "single sign-on")]
    assert abbrev.pairs("x" * 300 + " a) Elasticsearch (ES)") == [("ES", "Elasticsearch")]


def abbreviation_sessions(repo_dir: Path) -> None:
    """One session defines each pair once; the others use one spelling only."""
    write(repo_dir, "2026-05-01-audit-logs", session_text(
        session_id="f1a2b3c4", date="2026-05-01", summary="Kept audit logs in CloudWatch", tags="[logging]",
        body="\n## Notes\n- The first target was our own Elasticsearch (ES) cluster\n"
             "- Images come from ECR (Elastic Container Registry) only\n"))
    write(repo_dir, "2026-05-02-search-costs", session_text(
        session_id="f2a3b4c5", date="2026-05-02", summary="Priced the Elasticsearch domain", tags="[search]",
        body="\n## Notes\n- The Elasticsearch domain costs more each month than the app servers\n"))
    write(repo_dir, "2026-05-03-image-expiry", session_text(
        session_id="f3a4b5c6", date="2026-05-03", summary="Expired old container images", tags="[containers]",
        body="\n## Notes\n- Only the ten newest ECR images are kept\n"))


def test_an_abbreviation_memory_defines_is_searched_both_ways(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    abbreviation_sessions(repo_dir)
    enf("commit", "-m", "abbreviations")
    # "ES" asks about Elasticsearch, which the session on costs never abbreviates.
    short = json.loads(enf("recall", "ES", "domain", "costs", "--json"))
    assert short["results"][0]["path"] == "sessions/2026-05-02-search-costs.md" and short["weak"] is False
    assert "Elasticsearch domain" in short["results"][0]["snippet"]  # a line that says it, in its own words
    # "Elastic Container Registry" asks about ECR, which the expiry session never spells out.
    long = json.loads(enf("recall", "Elastic", "Container", "Registry", "newest", "images", "--json"))
    assert long["results"][0]["path"] == "sessions/2026-05-03-image-expiry.md"
    assert "ten newest ECR images" in long["results"][0]["snippet"]
    # The fast path and the full one agree (the table is read by both).
    probe = "from enf_git.entry import main; main()"
    proc = subprocess.run([sys.executable, "-c", probe, "recall", "ES", "domain", "costs"], cwd=repo_dir,
                          capture_output=True, text=True)
    assert proc.stdout == enf("recall", "ES", "domain", "costs")


def test_only_what_memory_defines_is_expanded(enf, repo_dir: Path) -> None:  # type: ignore[no-untyped-def]
    two_sessions(enf, repo_dir)
    write(repo_dir, "2026-05-02-search-costs", session_text(
        session_id="f2a3b4c5", date="2026-05-02", summary="Priced the Elasticsearch domain", tags="[search]"))
    enf("commit", "-m", "no definition anywhere")
    enf("recall", "ES", "domain")  # brings the index to the tip (a first build replaces the file: connect after)
    db = search.connect(repo_dir / ".git" / "enf" / "search.db")
    assert db.execute("SELECT count(*) FROM abbrevs").fetchone() == (0,)
    assert search._abbreviations(db, ["es", "domain"]) == []  # a query's words teach nothing
    abbreviation_sessions(repo_dir)
    enf("commit", "-m", "abbreviations")
    enf("recall", "ES", "domain")
    assert sorted(db.execute("SELECT short, long FROM abbrevs")) == [("ecr", "elast contain registri"),
                                                                   ("es", "elasticsearch")]
    # The defining session deleted: its tip row and that row's pairs go; its history keeps them
    # (memory still holds the text, and recall still finds it there).
    (repo_dir / ".claude-sessions" / "sessions" / "2026-05-01-audit-logs.md").unlink()
    enf("commit", "-m", "the definition is gone from the tip")
    enf("recall", "ES", "domain")
    kinds = db.execute("SELECT DISTINCT d.kind FROM abbrevs a JOIN docs d ON d.id = a.doc").fetchall()
    assert kinds == [("history",)]
    assert db.execute("SELECT count(*) FROM abbrevs WHERE doc NOT IN (SELECT id FROM docs)").fetchone() == (0,)


def test_a_cold_build_in_worker_processes_equals_one_built_in_process(enf, repo_dir: Path,  # type: ignore[no-untyped-def]
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A large cold build analyzes its rows in forked workers; the index, row for row (ids,
    columns, the full-text index, decisions, abbreviations), and recall's answers are the same."""
    from enf_git.memory import workspace
    from enf_git.memory.context import index_cold, index_rows, indexer

    two_sessions(enf, repo_dir)
    write(repo_dir, "2026-04-22-es", session_text(session_id="d4e5f6a7", date="2026-04-22", summary="ES tuning",
                                                  body="\nWe run Elasticsearch (ES) behind the API gateway.\n"))
    write(repo_dir, "2026-04-23-broken", "---\nsession_id: [unclosed\n---\nnot a session\n")
    enf("commit", "-m", "more")
    db_file = repo_dir / ".git" / "enf" / "search.db"

    def build(parallel: bool) -> tuple[object, ...]:
        for suffix in ("", "-wal", "-shm"):
            db_file.with_name(db_file.name + suffix).unlink(missing_ok=True)
        monkeypatch.setattr(index_rows, "PARALLEL_MIN", 1 if parallel else 10**9)
        monkeypatch.setattr(index_cold.os, "cpu_count", lambda: 2)
        monkeypatch.setattr(indexer._Writer, "BATCH", 3)  # most rows come deflated by the workers
        pools: list[bool] = []
        real_enter = index_cold.Workers.__enter__
        monkeypatch.setattr(index_cold.Workers, "__enter__", lambda self: (real_enter(self), pools.append(self.parallel))[0])
        ctx = workspace.Context.open(repo_dir)
        indexer.ensure(ctx.repo, ctx.cache()).close()
        assert pools == [parallel]  # the workers really ran, or really did not
        with sqlite3.connect(db_file) as db:
            return (list(db.execute("SELECT id, kind, ref, path, date, rev, blob, length, data FROM docs ORDER BY id")),
                    sorted(db.execute("SELECT term, doc, cnt FROM vocab")),
                    sorted(db.execute("SELECT * FROM decisions")), sorted(db.execute("SELECT * FROM abbrevs")),
                    enf("recall", "--json", "elasticsearch"), enf("recall", "--json", "ES"))

    serial = build(parallel=False)
    assert len(serial[0]) >= 8 and serial[3]  # sessions, the broken file and an abbreviation are all there
    assert build(parallel=True) == serial
