"""render: index.md, topics.md, decisions.md and their archives, byte for byte."""

from __future__ import annotations

import datetime as dt
import random

from enf_git.pure import model, render

M = render.MARKER


def session(stem: str, header: str, body: str = "") -> model.Session:
    return model.parse_session(f"sessions/{stem}.md", f"---\n{header}\n---\n{body}".encode("utf-8"))


API_DESIGN = session(
    "2026-04-01-api-design",
    'session_id: aaaa1111\ndate: 2026-04-01\nstart_time: "09:00"\ntags: [api, design]\nstatus: completed\n'
    'summary: "Designed the public API"',
    "## Decisions\n- [09:30] Y: In the context of api, facing many clients, decided REST over GraphQL, to achieve "
    "simplicity, accepting verbosity. Confidence: high\n",
)
API_SWITCH = session(
    "2026-04-05-api-switch",
    'session_id: bbbb2222\ndate: 2026-04-05\nstart_time: "10:00"\ntags: [api]\nstatus: completed\n'
    "summary: Switched the API to GraphQL",
    "## Decisions\n"
    "- [10:15] Y: In the context of api, decided GraphQL over REST, to achieve flexible clients. Confidence: medium\n"
    "- [10:20] Y: In the context of search, decided Meilisearch over Elasticsearch. Confidence: low\n\n"
    "## Reversals\n"
    "- [10:15] REVERSED REST: Changed from REST to GraphQL because mobile clients need it\n"
    "- [10:30] REVERSED Kafka: Changed from Kafka to NATS because ops\n",
)
TIDY = session("2026-04-05-tidy-up", 'session_id: cccc3333\ndate: 2026-04-05\nstart_time: "16:00"\nstatus: active',
               "## Intent\nTidy up.\n")
SESSIONS = [API_DESIGN, API_SWITCH, TIDY]
EXTRA = model.parse_decision_file(
    "decisions/2026-04-03-d0000000.md",
    b"---\nschema: 1\ndate: 2026-04-03\n---\n\n## Decisions\n"
    b"- [2026-04-03] Y: In the context of ci, decided Buildkite over Jenkins. Confidence: high. Session: dddd4444\n",
)
REST, GRAPHQL, MEILI, BUILDKITE = API_DESIGN.decisions[0], *API_SWITCH.decisions, EXTRA[0]

INDEX = f"""# Session Index

{M}

> shop — 3 sessions, 3 active decisions

## Recent
- [2026-04-05-tidy-up](sessions/2026-04-05-tidy-up.md): (in progress)
- [2026-04-05-api-switch](sessions/2026-04-05-api-switch.md): Switched the API to GraphQL. Tags: api
- [2026-04-01-api-design](sessions/2026-04-01-api-design.md): Designed the public API. Tags: api, design

## By Topic
See [topics.md](topics.md)

## Standing Decisions
See [decisions.md](decisions.md)
"""

TOPICS = f"""# Topics

{M}

## api
- [2026-04-05-api-switch](sessions/2026-04-05-api-switch.md): Switched the API to GraphQL
- [2026-04-01-api-design](sessions/2026-04-01-api-design.md): Designed the public API

## design
- [2026-04-01-api-design](sessions/2026-04-01-api-design.md): Designed the public API
"""

DECISIONS = f"""# Standing Decisions

{M}

> 3 standing decisions, 1 superseded

## Api
- [2026-04-05 10:15] Y: In the context of api, decided GraphQL over REST, to achieve flexible clients. Confidence: medium. Session: bbbb2222 ({GRAPHQL.id})
  - ~~[2026-04-01 09:30] Previously: In the context of api, facing many clients, decided REST over GraphQL, to achieve simplicity, accepting verbosity. Confidence: high ({REST.id})~~ SUPERSEDED

## Ci
- [2026-04-03] Y: In the context of ci, decided Buildkite over Jenkins. Confidence: high. Session: dddd4444 ({BUILDKITE.id})

## Search
- [2026-04-05 10:20] Y: In the context of search, decided Meilisearch over Elasticsearch. Confidence: low. Session: bbbb2222 ({MEILI.id})

## Reversals that match no decision
- [2026-04-05 10:30] REVERSED Kafka: Changed from Kafka to NATS because ops (sessions/2026-04-05-api-switch.md)
"""


def test_small_fixture_exact_views() -> None:
    views = render.render_all("shop", SESSIONS, EXTRA)
    assert views == {
        "index.md": INDEX.encode("utf-8"),
        "index-archive.md": None,
        "topics.md": TOPICS.encode("utf-8"),
        "topics-archive.md": None,
        "decisions.md": DECISIONS.encode("utf-8"),
        "decisions-archive.md": None,
    }


def test_rerender_is_byte_identical_and_independent_of_input_order() -> None:
    first = render.render_all("shop", SESSIONS, EXTRA)
    r = random.Random(11)
    for _ in range(10):
        sessions, extra = list(SESSIONS), list(EXTRA)
        r.shuffle(sessions)
        assert render.render_all("shop", sessions, extra) == first
    assert render.render_all("shop", list(reversed(SESSIONS)), EXTRA) == first


def test_no_records_yet() -> None:
    views = render.render_all("shop", [], [])
    assert views["index.md"] == (
        f"# Session Index\n\n{M}\n\n> shop — 0 sessions, 0 active decisions\n\n## Recent\n- (no sessions yet)\n\n"
        "## By Topic\nSee [topics.md](topics.md)\n\n## Standing Decisions\nSee [decisions.md](decisions.md)\n"
    ).encode()
    assert views["topics.md"] == f"# Topics\n\n{M}\n\n(no tagged sessions yet)\n".encode()
    assert views["decisions.md"] == f"# Standing Decisions\n\n{M}\n\n> 0 standing decisions, 0 superseded\n".encode()
    assert views["index-archive.md"] is None and views["decisions-archive.md"] is None
    assert views["topics-archive.md"] is None


# -- single lines ---------------------------------------------------------------------


def test_session_line_shapes() -> None:
    def line(header: str) -> str:
        return render.session_line(session("2026-04-13-x-y", "session_id: a1b2c3d4\n" + header))

    assert line("tags: [a, b]\nsummary: Done") == "- [2026-04-13-x-y](sessions/2026-04-13-x-y.md): Done. Tags: a, b"
    assert line("tags: [a]\nsummary: Done?") == "- [2026-04-13-x-y](sessions/2026-04-13-x-y.md): Done? Tags: a"
    assert line('summary: "two\\n  lines"') == "- [2026-04-13-x-y](sessions/2026-04-13-x-y.md): two lines"
    assert line("status: completed") == "- [2026-04-13-x-y](sessions/2026-04-13-x-y.md): (no summary)"
    assert line("status: active") == "- [2026-04-13-x-y](sessions/2026-04-13-x-y.md): (in progress)"


def test_topics_agree_with_index_about_a_missing_summary() -> None:
    done = session("2026-04-13-x-y", "session_id: a1b2c3d4\nstatus: completed\ntags: [t]")
    assert render.render_topics([done])[0].splitlines()[5] == "- [2026-04-13-x-y](sessions/2026-04-13-x-y.md): (no summary)"


def test_decision_line_shapes() -> None:
    def line(y: str) -> str:
        d = model.parse_y_statement(y, source="s", date="2026-04-13", session_id="", stem="2026-04-13-x")
        assert d is not None
        return render.decision_line(d).removesuffix(f" ({d.id})")

    assert line("- [2026-04-10] Y: In the context of api, decided REST.") == \
        "[2026-04-10] Y: In the context of api, decided REST."
    assert line("- [09:00] Y: decided REST. confidence: LOW. Session: ab12cd34") == \
        "[2026-04-13 09:00] Y: decided REST. Confidence: low. Session: ab12cd34"
    assert line("- [09:00] Y: Use Postgres") == "[2026-04-13 09:00] Y: Use Postgres."


# -- chains ---------------------------------------------------------------------------


def test_chain_of_three_nests_each_superseded_entry_under_the_new_one() -> None:
    c = session("2026-04-09-api-grpc", "session_id: eeee5555",
                "## Decisions\n- [08:00] Y: In the context of api, decided gRPC over GraphQL. Confidence: low\n"
                "## Reversals\n- [08:00] REVERSED GraphQL: Changed from GraphQL to gRPC because latency\n")
    text = render.render_all("shop", [*SESSIONS, c], EXTRA)["decisions.md"].decode()
    (grpc,) = c.decisions
    assert f"""## Api
- [2026-04-09 08:00] Y: In the context of api, decided gRPC over GraphQL. Confidence: low. Session: eeee5555 ({grpc.id})
  - ~~[2026-04-05 10:15] Previously: In the context of api, decided GraphQL over REST, to achieve flexible clients. Confidence: medium ({GRAPHQL.id})~~ SUPERSEDED
    - ~~[2026-04-01 09:30] Previously: In the context of api, facing many clients, decided REST over GraphQL, to achieve simplicity, accepting verbosity. Confidence: high ({REST.id})~~ SUPERSEDED

""" in text
    assert "> 3 standing decisions, 2 superseded" in text


# -- archives -------------------------------------------------------------------------


def numbered_sessions(n: int) -> list[model.Session]:
    start = dt.date(2025, 1, 1)
    out = []
    for i in range(n):
        day = (start + dt.timedelta(days=i)).isoformat()
        out.append(session(f"{day}-work-{i:03d}", f"session_id: s{i:07d}\nstatus: completed\nsummary: Session {i}"))
    return out


def test_index_keeps_100_sessions() -> None:
    views = render.render_all("shop", numbered_sessions(100), [])
    assert views["index-archive.md"] is None
    assert views["index.md"].decode().count("](sessions/") == 100


def test_index_archives_beyond_100_sessions() -> None:
    sessions = numbered_sessions(102)
    views = render.render_all("shop", sessions, [])
    index = views["index.md"].decode()
    assert "> shop — 102 sessions, 0 active decisions" in index
    assert index.count("](sessions/") == 100
    assert "- [2025-04-12-work-101](sessions/2025-04-12-work-101.md): Session 101\n" in index
    assert "work-001" not in index and "work-000" not in index
    assert "\n\n2 older sessions: see [index-archive.md](index-archive.md)\n\n## By Topic\n" in index
    assert views["index-archive.md"] == (
        f"# Session Index Archive\n\n{M}\n\n> sessions older than the newest 100, one file per month, newest first\n\n"
        "- [2025-01](archive/index-2025-01.md)\n"
    ).encode()
    assert views["archive/index-2025-01.md"] == (
        f"# Session Index Archive: 2025-01\n\n{M}\n\n> 2 sessions of 2025-01\n\n"
        "- [2025-01-02-work-001](../sessions/2025-01-02-work-001.md): Session 1\n"
        "- [2025-01-01-work-000](../sessions/2025-01-01-work-000.md): Session 0\n"
    ).encode()


def test_the_archives_are_one_file_per_month_listed_newest_first() -> None:
    """A routine commit moves one line into the archive: it must rewrite one small month
    file, not a megabyte view. Every older session is in its month's file, once."""
    sessions = numbered_sessions(400)  # 2025-01-01 .. 2026-02-04: 300 older, 10 months
    views = render.render_all("shop", sessions, [])
    months = [p for p in views if render.is_month_file(p) and views[p] is not None]
    assert sorted(months) == [f"archive/index-{m}.md" for m in
                              ("2025-01", "2025-02", "2025-03", "2025-04", "2025-05", "2025-06", "2025-07",
                               "2025-08", "2025-09", "2025-10")]
    toc = views["index-archive.md"].decode()
    assert toc.index("[2025-10]") < toc.index("[2025-09]") < toc.index("[2025-01]")
    for s in sessions[:300]:
        month = views[f"archive/index-{s.date[:7]}.md"].decode()
        assert month.count(f"- [{s.stem}](../sessions/{s.stem}.md): ") == 1
    assert all(render.is_view(p) for p in months) and not render.is_view("archive/notes.md")


def test_an_undated_session_is_archived_in_its_own_file() -> None:
    odd = session("0-no-date", "session_id: u0000001\nstatus: completed\nsummary: Undated")  # sorts below 2025
    views = render.render_all("shop", [*numbered_sessions(100), odd], [])
    assert "- [0-no-date](../sessions/0-no-date.md)" in (views["archive/index-undated.md"] or b"").decode()
    assert b"- [undated](archive/index-undated.md)" in (views["index-archive.md"] or b"")


def tagged_sessions(tags_of: list[str]) -> list[model.Session]:
    """Session i on day i, carrying tags_of[i] (a YAML list), summary "Session i"."""
    start = dt.date(2025, 1, 1)
    return [session(f"{(start + dt.timedelta(days=i)).isoformat()}-work-{i:03d}",
                    f"session_id: s{i:07d}\nstatus: completed\nsummary: Session {i}\ntags: {tags}")
            for i, tags in enumerate(tags_of)]


def topic_lines(sessions: list[model.Session], numbers: range) -> str:
    return "".join(f"- [{sessions[i].stem}](sessions/{sessions[i].stem}.md): Session {i}\n" for i in numbers)


def test_topics_keep_20_sessions_per_tag_and_archive_the_rest() -> None:
    # api: all 23 (3 older); ui: the newest 20 exactly (no archive); zeta: 21 (1 older).
    sessions = tagged_sessions([f"[{'api' + (', zeta' if i >= 2 else '') + (', ui' if i >= 3 else '')}]"
                                for i in range(23)])
    views = render.render_all("shop", sessions, [])
    assert views["topics.md"] == (
        f"# Topics\n\n{M}\n\n"
        f"## api\n{topic_lines(sessions, range(22, 2, -1))}"
        "- 3 older sessions: see [topics-archive.md](topics-archive.md)\n\n"
        f"## ui\n{topic_lines(sessions, range(22, 2, -1))}\n"
        f"## zeta\n{topic_lines(sessions, range(22, 2, -1))}"
        "- 1 older session: see [topics-archive.md](topics-archive.md)\n"
    ).encode()
    assert views["topics-archive.md"] == (
        f"# Topics Archive\n\n{M}\n\n> sessions beyond the newest 20 of each topic, one file per month, "
        "newest first\n\n- [2025-01](archive/topics-2025-01.md)\n"
    ).encode()
    up = topic_lines(sessions, range(2, -1, -1)).replace("](sessions/", "](../sessions/")
    assert views["archive/topics-2025-01.md"] == (
        f"# Topics Archive: 2025-01\n\n{M}\n\n> sessions of 2025-01 beyond the newest 20 of each topic\n\n"
        f"## api\n{up}\n"
        f"## zeta\n{up.splitlines(keepends=True)[0]}"
    ).encode()


def test_a_tag_with_exactly_20_sessions_has_no_archive() -> None:
    sessions = tagged_sessions(["[api]"] * 20)
    views = render.render_all("shop", sessions, [])
    assert views["topics-archive.md"] is None
    assert views["topics.md"] == f"# Topics\n\n{M}\n\n## api\n{topic_lines(sessions, range(19, -1, -1))}".encode()
    assert b"older session" not in views["topics.md"]


def test_every_session_is_listed_once_per_tag_across_topics_and_archive() -> None:
    r = random.Random(7)
    sessions = tagged_sessions([f"[{', '.join(r.sample(['api', 'db', 'ui', 'ops', 'x'], r.randint(0, 3)))}]"
                                for _ in range(300)])
    views = render.render_all("shop", sessions, [])
    text = "".join(v.decode() for p, v in views.items() if v and (p == "topics.md" or p.startswith("archive/topics-")))
    assert views["topics.md"].decode().count("](sessions/") == 5 * 20
    for s in sessions:
        assert text.count(f"sessions/{s.stem}.md)") == len(s.tags), s.stem
    shuffled = list(sessions)
    r.shuffle(shuffled)
    assert render.render_all("shop", shuffled, []) == views


def test_adding_the_newest_session_patches_topics_exactly_like_a_full_render() -> None:
    """From no sessions to 130, one newest session at a time, with tags that cross the
    20-per-topic split (a first archive, a new archive section, a repeated tag)."""
    r = random.Random(2)
    sessions: list[model.Session] = []
    patched_count = archive_created = archive_grown = 0
    for tags in [f"[{', '.join(r.choices(['api', 'db', 'ui', 'zz'], k=r.randint(0, 2)))}]" for _ in range(130)]:
        (new,) = tagged_sessions([*([""] * len(sessions)), tags])[len(sessions):]
        before = render.render_all("shop", sessions, [])
        current = patchable(before)
        sessions.append(new)
        patched = render.patch_insert(current, [new], {s.stem: render.order_key(s) for s in sessions}.get)
        if patched is None:
            continue
        patched_count += 1
        archive_created += current[render.TOPICS_ARCHIVE] is None and render.TOPICS_ARCHIVE in patched
        archive_grown += any(p.startswith("archive/topics-") and current.get(p) not in (None, patched[p])
                             for p in patched)
        for view, data in render.render_all("shop", sessions, []).items():
            kept = before.get(view)  # a view the patch does not return stays as it was
            assert (patched[view].encode() if view in patched else kept) == data, (len(sessions), view)
    assert patched_count >= 100 and archive_created == 1 and archive_grown >= 20


def test_in_place_edit_renders_a_topics_md_from_before_the_split() -> None:
    sessions = tagged_sessions(["[api]"] * 21)
    views = {v: (d or b"").decode() or None for v, d in render.render_all("shop", sessions, []).items()}
    edited = tagged_sessions(["[api]"] * 20 + ["[api]\nsummary: Changed"])[20]
    assert render.patch_views(views, [(sessions[20], edited)]) is not None
    unsplit = f"# Topics\n\n{M}\n\n## api\n{topic_lines(sessions, range(20, -1, -1))}"
    assert render.patch_views({**views, render.TOPICS: unsplit, render.TOPICS_ARCHIVE: None},
                              [(sessions[20], edited)]) is None


def many_decisions(n: int, topic: str = "api") -> model.Session:
    """One session: decision A at 00:00 reversed to B at 00:01, then n-2 more, one a minute."""
    lines = [f"- [00:00] Y: In the context of {topic}, decided A over Z. Confidence: high",
             f"- [00:01] Y: In the context of {topic}, decided B over A. Confidence: high"]
    lines += [f"- [{i // 60:02d}:{i % 60:02d}] Y: In the context of {topic}, decided choice{i}. Confidence: low"
              for i in range(2, n + 1)]
    return session("2026-04-13-many", "session_id: s0000001",
                   "## Decisions\n" + "\n".join(lines) + "\n## Reversals\n- [00:01] REVERSED A: Changed from A to B\n")


def test_topic_keeps_50_decisions() -> None:
    views = render.render_all("shop", [many_decisions(50)], [])  # 50 chains: B (over A) and 49 others
    assert views["decisions-archive.md"] is None
    assert "> 50 standing decisions, 1 superseded" in views["decisions.md"].decode()


def test_topic_archives_beyond_50_decisions_with_their_chains() -> None:
    s = many_decisions(51)  # 51 chains; the oldest is B, which superseded A
    a, b = s.decisions[:2]
    views = render.render_all("shop", [s], EXTRA)
    main = views["decisions.md"].decode()
    assert "> 52 standing decisions, 1 superseded" in main  # archived ones still count
    api = main.split("## Api\n")[1].split("\n\n")[0].splitlines()
    assert len(api) == 51
    assert api[0].startswith("- [2026-04-13 00:51] Y: In the context of api, decided choice51.")
    assert api[49].startswith("- [2026-04-13 00:02] Y: In the context of api, decided choice2.")
    assert api[50] == "- 1 older decision: see [decisions-archive.md](decisions-archive.md)"
    assert "decided B over A" not in main
    assert views["decisions-archive.md"] == (
        f"# Decisions Archive\n\n{M}\n\n## Api\n"
        f"- [2026-04-13 00:01] Y: In the context of api, decided B over A. Confidence: high. Session: s0000001 ({b.id})\n"
        f"  - ~~[2026-04-13 00:00] Previously: In the context of api, decided A over Z. Confidence: high ({a.id})~~ SUPERSEDED\n"
    ).encode()
    # Another topic is untouched by the split.
    assert "\n\n## Ci\n- [2026-04-03] Y: In the context of ci, decided Buildkite over Jenkins." in main


def test_nothing_is_dropped_from_the_views() -> None:
    sessions = [*numbered_sessions(105), many_decisions(60), *SESSIONS]
    views = render.render_all("shop", sessions, EXTRA)
    text = "".join(v.decode() for v in views.values() if v is not None)
    for s in sessions:
        assert f"sessions/{s.stem}.md)" in text  # ../sessions/ from a month file
    for d in [d for s in sessions for d in s.decisions] + EXTRA:
        assert f"({d.id})" in text, d
    for r in [r for s in sessions for r in s.reversals]:
        assert r.new in text
    shuffled = list(sessions)
    random.Random(5).shuffle(shuffled)
    assert render.render_all("shop", shuffled, list(reversed(EXTRA))) == views


def test_adding_a_session_renders_a_topics_md_from_before_the_split() -> None:
    """Even when the new session's own tags are short: the old layout must not survive adds."""
    sessions = tagged_sessions(["[api]"] * 21 + ["[ui]"])
    views = {v: (d or b"").decode() or None for v, d in render.render_all("shop", sessions[:21], []).items()}
    keys = {s.stem: render.order_key(s) for s in sessions}.get
    assert render.patch_insert(views, [sessions[21]], keys) is not None
    unsplit = f"# Topics\n\n{M}\n\n## api\n{topic_lines(sessions, range(20, -1, -1))}"
    assert render.patch_insert({**views, render.TOPICS: unsplit, render.TOPICS_ARCHIVE: None}, [sessions[21]],
                               keys) is None


# -- inserting sessions anywhere (a merge brings older-dated ones) ----------------------


def random_session(r: random.Random, i: int, tags: list[str], days: int = 30,
                   start: dt.date = dt.date(2026, 1, 1)) -> model.Session:
    """Dates over a few weeks (many sessions a day), times that often collide, so the
    order key's every part decides somewhere; 0-3 tags from `tags`."""
    day = (start + dt.timedelta(days=r.randrange(days))).isoformat()
    time = r.choice(["", f"{r.randrange(8, 12):02d}:{r.choice(['00', '30'])}"])
    picked = r.sample(tags, r.randint(0, min(3, len(tags))))
    header = (f"session_id: r{i:07d}\ndate: {day}\nstatus: {r.choice(['completed', 'active'])}\n"
              f"summary: Session {i}\ntags: [{', '.join(picked)}]")
    if time:
        header += f'\nstart_time: "{time}"'
    return session(f"{day}-work-{r.choice('abc')}{i:04d}", header)


def patchable(views: dict[str, bytes | None]) -> dict[str, str | None]:
    """The texts patch_insert / patch_views work on, from a full render (month files too)."""
    return {v: (d or b"").decode() or None for v, d in views.items() if render.is_patchable(v)}


def inserted_like_a_full_render(have: list[model.Session], news: list[model.Session]) -> bool | None:
    """patch_insert of `news` into the full render of `have` against the full render of
    both: True (patched, equal), None (declined); a difference fails the test."""
    before = render.render_all("shop", have, [])
    current = patchable(before)
    keys = {s.stem: render.order_key(s) for s in [*have, *news]}
    patched = render.patch_insert(current, news, keys.get)
    if patched is None:
        return None
    for view, data in render.render_all("shop", [*have, *news], []).items():
        got = patched[view].encode() if view in patched else before.get(view)
        assert got == data, (len(have), [s.stem for s in news], view)
    return True


def test_inserting_sessions_anywhere_patches_exactly_like_a_full_render() -> None:
    """Random histories across both splits (100 in index.md, 20 a tag in topics.md): a
    few new sessions, any dates, inserted into a full render give the full render."""
    r = random.Random(8)
    patched = declined = 0
    for case in range(160):
        tags = ["api", "db", "ui", "zz"][: r.randint(1, 4)]
        pool = [random_session(r, i, tags) for i in range(r.choice([3, 30, 99, 101, 140, 260]) + 4)]
        have, news = pool[4:], r.sample(pool[:4], r.randint(1, 4))
        outcome = inserted_like_a_full_render(have, news)
        patched += outcome is True
        declined += outcome is None
    assert patched >= 140, (patched, declined)  # declined: a first archive to create, placeholders


def test_inserting_across_months_patches_exactly_like_a_full_render() -> None:
    """Dates over half a year: lines move into month files that exist and that do not yet."""
    r = random.Random(11)
    patched = created = 0
    for case in range(80):
        tags = ["api", "db", "ui"][: r.randint(1, 3)]
        have = [random_session(r, i, tags, days=180) for i in range(r.choice([101, 140, 260]))]
        news = [random_session(r, 1000 + i, tags, days=300, start=dt.date(2025, 9, 1)) for i in range(r.randint(1, 3))]
        before = render.render_all("shop", have, [])
        after = render.render_all("shop", [*have, *news], [])
        created += any(p not in before and render.is_month_file(p) for p in after)
        patched += inserted_like_a_full_render(have, news) is True
    assert patched >= 70 and created >= 10, (patched, created)


def test_editing_an_archived_session_swaps_its_line_in_its_month_file() -> None:
    sessions = numbered_sessions(200)
    views = patchable(render.render_all("shop", sessions, []))
    old = sessions[40]  # 2025-02-10: archived in index and topics-free
    edited = session(old.stem, f"session_id: s{40:07d}\nstatus: completed\nsummary: Rewritten")
    patched = render.patch_views(views, [(old, edited)])
    assert patched is not None and set(patched) == {"archive/index-2025-02.md"}
    full = render.render_all("shop", [*sessions[:40], edited, *sessions[41:]], [])
    assert patched["archive/index-2025-02.md"].encode() == full["archive/index-2025-02.md"]


def test_insert_declines_when_a_listed_session_is_unknown_or_the_views_are_not_ours() -> None:
    r = random.Random(4)
    have = [random_session(r, i, ["api"]) for i in range(130)]
    (new,) = [random_session(r, 999, ["api"])]
    before = render.render_all("shop", have, [])
    current = patchable(before)
    assert render.patch_insert(current, [new], lambda stem: None) is None  # a listed stem we cannot look up
    keys = {s.stem: render.order_key(s) for s in [*have, new]}
    assert render.patch_insert(current, [new], keys.get) is not None
    assert render.patch_insert({**current, render.INDEX: "hand edit\n"}, [new], keys.get) is None
    decided = session("2026-01-02-decided", "session_id: d0000001\ndate: 2026-01-02",
                      "## Decisions\n- [09:00] Y: In the context of api, decided REST over RPC. Confidence: high\n")
    assert render.patch_insert(current, [decided], {**keys, decided.stem: render.order_key(decided)}.get) is None


def test_inserting_where_the_archives_split_is_exact() -> None:
    """Just above and just below the oldest line kept in index.md and in a topic."""
    have = tagged_sessions(["[api]"] * 130)  # day i; index keeps 129..30, topics 129..110
    keys = {s.stem: render.order_key(s) for s in have}
    for after in (29, 30, 109, 110):  # a session dated between day `after` and the next
        day = (dt.date(2025, 1, 1) + dt.timedelta(days=after)).isoformat()
        new = session(f"{day}-zz-late", f"session_id: n{after:07d}\nstatus: completed\nsummary: Late\ntags: [api]")
        assert inserted_like_a_full_render(have, [new]) is True, after
        assert render.patch_insert({v: (d or b"").decode() or None for v, d in
                                    render.render_all("shop", have, []).items()}, [new],
                                   {**keys, new.stem: render.order_key(new)}.get) is not None


def test_inserting_into_a_full_topic_creates_its_archive_either_way() -> None:
    """A tag with exactly 20 sessions and no archive yet: a newer session pushes the oldest
    out, an older one goes there itself; either way topics-archive.md is created."""
    have = tagged_sessions(["[api]"] * 20 + ["[ui]"])
    for after in (-1, 5):
        day = (dt.date(2025, 1, 1) + dt.timedelta(days=after)).isoformat()
        new = session(f"{day}-zz-late", f"session_id: n{after + 1:07d}\nstatus: completed\nsummary: Late\ntags: [api]")
        assert render.render_all("shop", have, [])["topics-archive.md"] is None
        assert inserted_like_a_full_render(have, [new]) is True, after
        assert (render.render_all("shop", [*have, new], [])["topics-archive.md"] or b"").count(b"](archive/") == 1


def test_the_newest_session_costs_a_lookup_or_two_a_list() -> None:
    """Each lookup parses a session from the tree: a routine add must not bisect 10,000."""
    have = tagged_sessions(["[api, db]"] * 300)
    keys = {s.stem: render.order_key(s) for s in have}
    asked: list[str] = []

    def key_of(stem: str) -> render.Key | None:
        asked.append(stem)
        return keys.get(stem)

    new = session("2026-01-01-newest", "session_id: n0000001\nstatus: completed\nsummary: New\ntags: [api, db]")
    keys[new.stem] = render.order_key(new)
    views = {v: (d or b"").decode() or None for v, d in render.render_all("shop", have, []).items()}
    assert render.patch_insert(views, [new], key_of) is not None
    assert len(asked) <= 2 * 3  # index.md and each tag: the top line, and the last kept one
    asked.clear()
    older = session("2025-10-20-older", "session_id: n0000002\nstatus: completed\nsummary: Old\ntags: [api]")
    keys[older.stem] = render.order_key(older)  # 8 sessions are newer
    assert render.patch_insert(views, [older], key_of) is not None
    assert len(asked) <= 2 * (2 + 2 * 3)
