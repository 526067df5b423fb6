"""model: session files, Y-statements and reversals as records (the Elephants Never Forget formats)."""

from __future__ import annotations

import pytest

from enf_git.pure import model
from enf_git.errors import RecordError, SchemaTooNew

PATH = "sessions/2026-04-13-search-engine.md"

SESSION = """---
session_id: a1b2c3d4e5f6
date: 2026-04-13
start_time: "14:30"
tags: [Search, api]
status: completed
summary: "Picked a search engine"
---
## Intent
Add search to the product catalog.

## Interactions
### [14:31] User -> which engine?
**Claude ->** compared Elasticsearch and Algolia

## Decisions
- [14:40] Y: In the context of search engine, facing slow catalog queries, decided Elasticsearch over Algolia, to achieve self-hosted control, accepting operational overhead. Confidence: high
- [15:05] Y: In the context of api, decided REST over GraphQL. Confidence: Medium

## Reversals
- [15:30] REVERSED [14:40] engine: Changed from Elasticsearch to Meilisearch because ops cost too high.

## Open Items
- [ ] Pagination
"""


def parse(text: str, path: str = PATH) -> model.Session:
    return model.parse_session(path, text.encode("utf-8"))


def y(line: str, *, stem: str = "2026-04-13-search-engine", session_id: str = "a1b2c3d4") -> model.Decision | None:
    return model.parse_y_statement(line, source=PATH, date="2026-04-13", session_id=session_id, stem=stem)


def record_error(text: str | bytes, path: str = PATH) -> RecordError:
    data = text.encode("utf-8") if isinstance(text, str) else text
    with pytest.raises(RecordError) as err:
        model.parse_session(path, data)
    return err.value


# -- a whole session -----------------------------------------------------------------


def test_session_fields() -> None:
    s = parse(SESSION)
    assert (s.path, s.stem, s.session_id, s.date, s.start_time) == (
        PATH, "2026-04-13-search-engine", "a1b2c3d4", "2026-04-13", "14:30")
    assert s.tags == ("search", "api")
    assert (s.status, s.summary, s.interrupted) == ("completed", "Picked a search engine", False)
    assert list(s.sections) == ["Intent", "Interactions", "Decisions", "Reversals", "Open Items"]
    assert s.sections["Intent"] == "Add search to the product catalog."
    assert s.sections["Interactions"].startswith("### [14:31] User -> which engine?")


def test_session_decisions_carry_every_clause() -> None:
    first, second = parse(SESSION).decisions
    assert first == model.Decision(
        id=model.stable_id("d", "2026-04-13-search-engine", "14:40", "elasticsearch"),
        source=PATH, date="2026-04-13", time="14:40", context="search engine",
        facing="slow catalog queries", decided="Elasticsearch", over="Algolia",
        achieve="self-hosted control", accepting="operational overhead", confidence="high",
        session_id="a1b2c3d4",
        text="In the context of search engine, facing slow catalog queries, decided Elasticsearch over "
             "Algolia, to achieve self-hosted control, accepting operational overhead. Confidence: high",
    )
    assert first.topic == "Search engine"
    assert (second.context, second.decided, second.over, second.confidence, second.topic) == (
        "api", "REST", "GraphQL", "medium", "Api")


def test_session_reversal() -> None:
    (rev,) = parse(SESSION).reversals
    assert rev == model.Reversal(
        id=model.stable_id("r", "2026-04-13-search-engine", "15:30", "14:40] engine"),
        source=PATH, date="2026-04-13", time="15:30", ref="14:40] engine",
        old="Elasticsearch", new="Meilisearch", reason="ops cost too high", session_id="a1b2c3d4")


def test_active_session_without_summary_is_interrupted() -> None:
    s = parse("---\nsession_id: a1b2c3d4\n---\n## Intent\nx\n")
    assert (s.status, s.summary, s.interrupted, s.tags, s.start_time) == ("active", "", True, (), "")
    assert s.date == "2026-04-13"  # from the file name when the header has none


def test_crlf_and_byte_order_mark_are_accepted() -> None:
    crlf = model.parse_session(PATH, SESSION.replace("\n", "\r\n").encode("utf-8"))
    bom = model.parse_session(PATH, b"\xef\xbb\xbf" + SESSION.encode("utf-8"))
    plain = parse(SESSION)
    assert crlf == plain
    assert bom == plain


# -- header values YAML would type -----------------------------------------------------


def test_text_fields_are_read_as_written_even_when_yaml_types_them() -> None:
    # Unquoted, YAML 1.1 reads 14:30 as 870 (base 60), 01234567 as octal and yes as True.
    s = parse("---\nsession_id: 01234567\nstart_time: 14:30\nsummary: yes # short\n---\n")
    assert (s.session_id, s.start_time, s.summary) == ("01234567", "14:30", "yes")


def test_all_digit_session_id_that_yaml_reads_as_zero_is_kept() -> None:
    assert parse("---\nsession_id: 00000000\n---\n").session_id == "00000000"


@pytest.mark.parametrize(
    ("written", "tags"),
    [("[Search, API]", ("search", "api")), ("search, api", ("search", "api")), ("search api", ("search", "api")),
     ("[]", ()), ("", ())],
)
def test_tags_forms(written: str, tags: tuple[str, ...]) -> None:
    assert parse(f"---\nsession_id: a1b2c3d4\ntags: {written}\n---\n").tags == tags


# -- Y-statements ---------------------------------------------------------------------


def test_decisions_md_form_with_date_session_and_id() -> None:
    d = y("- [2026-04-10] Y: In the context of api, facing churn, decided REST over GraphQL, to achieve "
          "simplicity, accepting verbosity. Confidence: low. Session: ffff0000 (d1234567)")
    assert d is not None
    assert (d.date, d.time, d.session_id, d.confidence, d.decided, d.accepting) == (
        "2026-04-10", "", "ffff0000", "low", "REST", "verbosity")
    assert d.text == ("In the context of api, facing churn, decided REST over GraphQL, to achieve simplicity, "
                      "accepting verbosity. Confidence: low.")


def test_date_and_time_stamp() -> None:
    d = y("- [2026-04-12 09:05] Y: In the context of ci, decided Buildkite over Jenkins. Confidence: high")
    assert d is not None and (d.date, d.time) == ("2026-04-12", "09:05")


def test_warm_tier_wording_without_the() -> None:
    d = y("- [14:10] Y: In context of search engine, decided Elasticsearch over Algolia, to achieve "
          "self-hosted control, accepting operational overhead. Confidence: high")
    assert d is not None and (d.context, d.decided, d.over) == ("search engine", "Elasticsearch", "Algolia")


def test_decided_clause_may_hold_commas() -> None:
    d = y("- [10:00] Y: In the context of api, decided REST, not GraphQL, to achieve simplicity. confidence: HIGH")
    assert d is not None
    assert (d.decided, d.over, d.achieve, d.confidence) == ("REST, not GraphQL", "", "simplicity", "high")


@pytest.mark.parametrize(
    ("line", "decided"),
    [("- [10:00] Y: Use Postgres.", "Use Postgres"),
     ("- [10:00] Y: In the context of storage, we decided Postgres. Confidence: high",
      "In the context of storage, we decided Postgres")],
)
def test_y_line_outside_the_canonical_shape_is_kept_whole(line: str, decided: str) -> None:
    d = y(line)
    assert d is not None
    assert (d.decided, d.context, d.topic) == (decided, "", "General")


@pytest.mark.parametrize(
    "line",
    ["- ~~[2026-04-10] Previously: In the context of api, decided SOAP~~ SUPERSEDED",
     "Y: In the context of api, decided REST",
     "- [10:00] Decided REST",
     "### [14:31] User -> decided nothing",
     ""],
)
def test_lines_that_are_not_y_statements(line: str) -> None:
    assert y(line) is None


def test_decision_ids_are_stable() -> None:
    line = "- [14:40] Y: In the context of search, decided Elasticsearch over Algolia. Confidence: high"
    d = y(line)
    # Pinned: ids are written into decisions.md and named by later reversals.
    assert d is not None and d.id == model.stable_id("d", "2026-04-13-search-engine", "14:40", "elasticsearch")
    assert d.id == "df5a1377"
    # Same decision after a resume (new session id), an edited rationale, another case.
    same = [
        y(line, session_id="99999999"),
        y("- [14:40] Y: In the context of search, facing cost, decided Elasticsearch over Typesense. Confidence: low"),
        y("- [14:40] Y: decided ELASTICSEARCH."),
    ]
    assert {s.id for s in same if s} == {d.id}
    # Another file, minute or choice is another decision.
    other = [y(line, stem="2026-04-14-search-engine"), y(line.replace("14:40", "14:41")),
             y(line.replace("Elasticsearch", "Meilisearch"))]
    assert len({o.id for o in other if o} | {d.id}) == 4


def test_ids_do_not_depend_on_the_rest_of_the_file() -> None:
    before = parse(SESSION)
    after = parse(SESSION.replace("Add search to the product catalog.", "Something else.")
                  .replace("session_id: a1b2c3d4e5f6", "session_id: 77777777"))
    assert [d.id for d in before.decisions] == [d.id for d in after.decisions]
    assert [r.id for r in before.reversals] == [r.id for r in after.reversals]


def test_warm_tier_decisions_taken_section_keeps_the_decisions() -> None:
    warm = SESSION.replace("## Decisions\n", "## Decisions Taken\n")
    assert parse(warm).decisions == parse(SESSION).decisions


def test_repeated_decisions_heading_keeps_both_parts() -> None:
    resumed = SESSION + (
        "\n## Resumed 2026-04-13 in session 55556666\n\n## Decisions\n"
        "- [16:00] Y: In the context of api, decided gRPC over REST. Confidence: low\n"
    )
    assert [d.decided for d in parse(resumed).decisions] == ["Elasticsearch", "REST", "gRPC"]


# -- reversals ------------------------------------------------------------------------


def reversals(text: str) -> list[model.Reversal]:
    return model.parse_reversals(PATH, text, "2026-04-13", "a1b2c3d4", "2026-04-13-search-engine")


def test_reversal_by_id_without_reason() -> None:
    (r,) = reversals("- [11:00] REVERSED `d1234567`: Changed from REST to GraphQL.")
    assert (r.ref, r.old, r.new, r.reason, r.date, r.time) == ("d1234567", "REST", "GraphQL", "", "2026-04-13", "11:00")


def test_reversal_with_date_stamp_and_bracketed_parts() -> None:
    (r,) = reversals("- [2026-04-14 11:00] REVERSED [REST decision]: Changed from [REST] to [GraphQL] because [clients].")
    assert (r.date, r.time, r.ref, r.old, r.new, r.reason) == (
        "2026-04-14", "11:00", "REST decision", "REST", "GraphQL", "[clients]")


def test_non_reversal_lines_are_ignored() -> None:
    assert reversals("- [11:00] Reversed my opinion\nREVERSED x: Changed from a to b\n- [12:00] Y: decided z") == []


# -- schema and malformed files --------------------------------------------------------


def test_newer_schema_is_refused() -> None:
    with pytest.raises(SchemaTooNew) as err:
        parse("---\nschema: 2\nsession_id: a1b2c3d4\n---\n")
    assert str(err.value) == (f"{PATH} has schema 2; this enf-git understands up to 1\n"
                              "hint: upgrade enf-git: pip install -U enf-git")


def test_current_and_missing_schema_are_accepted() -> None:
    assert parse("---\nschema: 1\nsession_id: a1b2c3d4\n---\n").session_id == "a1b2c3d4"
    assert parse("---\nsession_id: a1b2c3d4\n---\n").session_id == "a1b2c3d4"


@pytest.mark.parametrize(("written", "shown"), [('"1"', "'1'"), ("yes", "True"), ("1.0", "1.0")])
def test_schema_must_be_a_whole_number(written: str, shown: str) -> None:
    err = record_error(f"---\nsession_id: a1b2c3d4\nschema: {written}\n---\n")
    assert (err.path, err.line, err.reason) == (PATH, 3, f"schema must be a whole number, not {shown}")


def test_newer_schema_refuses_decision_files_too() -> None:
    with pytest.raises(SchemaTooNew):
        model.parse_decision_file("decisions/2026-04-13-d1234567.md", b"---\nschema: 9\n---\n")


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("---\ndate: 2026-04-13\n---\n", 2, "frontmatter has no session_id"),
        ("## Intent\nno header at all\n", 1, "no frontmatter: start the file with a --- header holding session_id"),
        ("---\nsession_id: a1b2c3d4\nsummary: x\n", 1, "frontmatter opened with '---' but never closed"),
        ("---\nsession_id: a1b2c3d4\ndate: 2026-04-13\nstatus: done\n---\n", 4,
         "status must be active or completed, not 'done'"),
        ("---\nsession_id: a1b2c3d4\ntags: {a: 1}\n---\n", 3, "tags must be a list like [search, api]"),
    ],
)
def test_malformed_session_is_a_record_error(text: str, line: int, reason: str) -> None:
    err = record_error(text)
    assert (err.path, err.line, err.reason) == (PATH, line, reason)
    assert str(err) == f"{PATH}:{line}: {reason}\nhint: fix the file by hand, then run: git enf doctor"


def test_yaml_error_points_at_its_line() -> None:
    err = record_error("---\nsession_id: a1b2c3d4\ndate: 2026-04-13\ntags: [a, b\n---\n")
    assert err.line == 4  # the line that opened the unclosed list
    assert err.reason.startswith("invalid YAML frontmatter: ")


def test_impossible_date_is_a_record_error() -> None:
    err = record_error("---\nsession_id: a1b2c3d4\ndate: 2026-02-30\n---\n")
    assert err.line == 3 and err.reason.startswith("invalid YAML frontmatter: ")  # the date's own line


def test_non_utf8_names_the_line() -> None:
    err = record_error(b"---\nsession_id: a1b2c3d4\n---\n## Intent\ncaf\xe9\n")
    assert (err.path, err.line, err.reason) == (PATH, 5, "file is not valid UTF-8")


# -- decision files, paths and names ---------------------------------------------------


def test_decision_file() -> None:
    path = "decisions/2026-04-12-d1234567.md"
    data = (b"---\nschema: 1\ndate: 2026-04-12\nsource: decisions.md hand edit\n---\n\n## Decisions\n"
            b"- [2026-04-12] Y: In the context of ci, decided Buildkite over Jenkins. Confidence: high. Session: abcd1234\n")
    (d,) = model.parse_decision_file(path, data)
    assert (d.source, d.date, d.time, d.decided, d.session_id, d.topic) == (
        path, "2026-04-12", "", "Buildkite", "abcd1234", "Ci")
    assert d.id == model.stable_id("d", "2026-04-12-d1234567", "2026-04-12", "buildkite")


def test_decision_file_reads_a_yaml_typed_session_id_as_written() -> None:
    data = b"---\nsession_id: 01234567\n---\n- [09:00] Y: decided X\n"
    (d,) = model.parse_decision_file("decisions/2026-04-12-d7654321.md", data)
    assert (d.session_id, d.date) == ("01234567", "2026-04-12")


def test_record_paths() -> None:
    assert model.is_session_path("sessions/2026-04-13-x-y.md")
    assert not model.is_session_path("sessions/sub/2026-04-13-x-y.md")
    assert not model.is_session_path("sessions/2026-04-13-x-y.txt")
    assert not model.is_session_path("decisions/2026-04-13-x-y.md")
    assert model.is_decision_path("decisions/2026-04-13-d1234567.md")
    assert not model.is_decision_path("decisions/../index.md")


@pytest.mark.parametrize("stem", ["2026-04-13-api-refactor", "2026-04-13-api-refactor-a1b2", "2026-04-13-v2",
                                  "2026-04-13-" + "a" * 40 + "-a1b2"])
def test_check_stem_accepts_seed_names(stem: str) -> None:
    assert model.check_stem(stem) is None


@pytest.mark.parametrize(
    ("stem", "reason"),
    [
        ("api-refactor", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("2026-04-13-API-refactor", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("2026-04-13-api_refactor", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("2026-04-13-api--refactor", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("2026-04-13-café", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("2026-04-13-", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("2026-04-13-api\n", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("２０２６-04-13-api", "name must be YYYY-MM-DD-<slug> with [a-z0-9-] only"),
        ("2026-04-13-" + "a" * 46, "slug is 46 chars; keep it to 40"),
    ],
)
def test_check_stem_refuses(stem: str, reason: str) -> None:
    assert model.check_stem(stem) == reason


def test_stable_ids_are_sha1_of_the_parts_and_never_change() -> None:
    """Reversals name decisions by id on shared branches: the id function is frozen."""
    import hashlib

    assert model.stable_id("d", "2026-04-13-search-engine", "14:40", "elasticsearch") == \
        "d" + hashlib.sha1("2026-04-13-search-engine\x1f14:40\x1felasticsearch".encode()).hexdigest()[:7]
    assert model.stable_id("d", "ünïcode", "") == "d" + hashlib.sha1("ünïcode\x1f".encode()).hexdigest()[:7]
