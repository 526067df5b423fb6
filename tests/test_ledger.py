"""ledger: decisions and reversals folded into chains; nothing is ever dropped."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest

from enf_git.pure import decision_pool, ledger, model


def session(stem: str, decisions: str = "", reversals: str = "", sid: str = "") -> model.Session:
    text = f"---\nsession_id: {sid or 'a1b2c3d4'}\nstatus: completed\nsummary: s\n---\n"
    if decisions:
        text += f"## Decisions\n{decisions}\n"
    if reversals:
        text += f"## Reversals\n{reversals}\n"
    return model.parse_session(f"sessions/{stem}.md", text.encode("utf-8"))


def build(*sessions: model.Session) -> ledger.Ledger:
    return ledger.build([d for s in sessions for d in s.decisions], [r for s in sessions for r in s.reversals])


def shape(led: ledger.Ledger) -> list[tuple[str, list[str]]]:
    """Each chain as (current decided, [superseded decided, newest first])."""
    return [(c.current.decided, [d.decided for d in c.superseded]) for c in led.chains]


REST = session("2026-04-01-api-design", "- [10:00] Y: In the context of api, decided REST over GraphQL, "
               "to achieve simplicity. Confidence: high")
SEARCH = session("2026-04-02-search-engine", "- [09:00] Y: In the context of search, decided Elasticsearch over "
                 "Algolia. Confidence: medium")


def test_decisions_without_reversals_each_stand() -> None:
    led = build(SEARCH, REST)
    assert shape(led) == [("REST", []), ("Elasticsearch", [])]  # oldest first
    assert (led.standing, led.unresolved) == (2, ())


def test_reversal_by_id_links_the_replacement_written_beside_it() -> None:
    (old,) = REST.decisions
    switch = session("2026-04-05-api-switch",
                     "- [09:00] Y: In the context of api, decided GraphQL over REST. Confidence: medium",
                     f"- [09:00] REVERSED {old.id}: Changed from REST to GraphQL because clients need it")
    led = build(REST, switch)
    (chain,) = led.chains
    assert chain.current == switch.decisions[0]
    assert chain.superseded == (old,)
    assert chain.reversals == switch.reversals
    assert led.unresolved == ()


def test_reversal_by_id_inside_other_words() -> None:
    (old,) = REST.decisions
    for ref in (f"({old.id})", f"decision {old.id} (REST)", old.id.upper()):
        switch = session("2026-04-05-api-switch", reversals=f"- [09:00] REVERSED {ref}: Changed from X to Y")
        assert shape(build(REST, SEARCH, switch)) == [("Elasticsearch", []), ("Y", ["REST"])], ref


def test_reversal_by_phrase_of_the_decision() -> None:
    switch = session("2026-04-05-search-switch",
                     "- [09:00] Y: In the context of search, decided Meilisearch over Elasticsearch. Confidence: high",
                     "- [09:00] REVERSED elasticsearch: Changed from the old engine to Meilisearch because cost")
    assert shape(build(REST, SEARCH, switch)) == [("REST", []), ("Meilisearch", ["Elasticsearch"])]


def test_reversal_falls_back_to_the_changed_from_phrase() -> None:
    switch = session("2026-04-05-search-switch",
                     reversals="- [09:00] REVERSED [14:10] engine decision: Changed from Elasticsearch to Meilisearch")
    assert shape(build(REST, SEARCH, switch)) == [("REST", []), ("Meilisearch", ["Elasticsearch"])]


def test_replacement_that_names_the_old_choice_is_not_mistaken_for_the_target() -> None:
    # The new Y-statement says "over REST" and its decided clause is longer than "GraphQL".
    switch = session("2026-04-05-api-switch",
                     "- [09:00] Y: In the context of api, decided GraphQL for the public API over REST. Confidence: medium",
                     "- [09:00] REVERSED REST decision: Changed from REST to GraphQL because clients need it")
    led = build(REST, switch)
    assert shape(led) == [("GraphQL for the public API", ["REST"])]
    assert led.chains[0].current == switch.decisions[0]


def test_the_replacement_named_in_other_words_is_found_by_what_it_decided_over() -> None:
    """"to Postgres FTS" beside "decided Postgres full-text search over Elasticsearch": one
    decision, not a synthesized copy standing beside it."""
    (old,) = SEARCH.decisions
    switch = session("2026-04-05-search-switch",
                     "- [09:00] Y: In the context of search, decided Postgres full-text search over Elasticsearch. "
                     "Confidence: medium",
                     f"- [09:00] REVERSED {old.id}: Changed from Elasticsearch to Postgres FTS because of cost")
    led = build(SEARCH, switch)
    assert shape(led) == [("Postgres full-text search", ["Elasticsearch"])]
    assert led.chains[0].current == switch.decisions[0] and led.standing == 1


def test_a_decision_beside_the_reversal_over_something_else_is_not_its_replacement() -> None:
    (old,) = SEARCH.decisions
    switch = session("2026-04-05-search-switch",
                     "- [09:00] Y: In the context of caching, decided Redis over Memcached. Confidence: medium",
                     f"- [09:00] REVERSED {old.id}: Changed from Elasticsearch to Postgres FTS because of cost")
    assert shape(build(SEARCH, switch)) == [("Postgres FTS", ["Elasticsearch"]), ("Redis", [])]


def test_reversal_alone_synthesizes_the_replacement() -> None:
    switch = session("2026-04-05-api-switch", sid="bbbb2222",
                     reversals="- [11:30] REVERSED REST: Changed from REST to GraphQL because clients need it.")
    led = build(REST, switch)
    (chain,) = led.chains
    (rev,) = switch.reversals
    (old,) = REST.decisions
    assert chain.superseded == (old,)
    assert chain.reversals == (rev,)
    assert chain.current == model.Decision(
        id=model.stable_id("d", rev.id, "graphql"), source="sessions/2026-04-05-api-switch.md",
        date="2026-04-05", time="11:30", context="api", facing="", decided="GraphQL", over="REST",
        achieve="clients need it", accepting="", confidence="", session_id="bbbb2222",
        text="In the context of api, decided GraphQL over REST, because clients need it")


def test_chain_of_three_newest_first() -> None:
    b = session("2026-04-05-api-b", "- [09:00] Y: In the context of api, decided GraphQL over REST. Confidence: medium",
                "- [09:00] REVERSED REST: Changed from REST to GraphQL because clients")
    c = session("2026-04-09-api-c", "- [09:00] Y: In the context of api, decided gRPC over GraphQL. Confidence: low",
                "- [09:00] REVERSED GraphQL: Changed from GraphQL to gRPC because latency")
    led = build(c, REST, b)
    assert shape(led) == [("gRPC", ["GraphQL", "REST"])]
    (chain,) = led.chains
    assert [r.source for r in chain.reversals] == [c.reversals[0].source, b.reversals[0].source]
    assert led.standing == 1


def test_chain_of_three_from_reversal_lines_only() -> None:
    b = session("2026-04-05-api-b", reversals="- [09:00] REVERSED REST: Changed from REST to GraphQL")
    c = session("2026-04-09-api-c", reversals="- [09:00] REVERSED GraphQL: Changed from GraphQL to gRPC")
    assert shape(build(REST, b, c)) == [("gRPC", ["GraphQL", "REST"])]


def test_flip_back_in_one_session_keeps_every_step() -> None:
    flip = session(
        "2026-04-06-db-flip",
        "- [10:00] Y: In the context of db, decided Postgres over MySQL. Confidence: high\n"
        "- [11:00] Y: In the context of db, decided MySQL over Postgres. Confidence: high",
        "- [11:00] REVERSED Postgres: Changed from Postgres to MySQL because hosting\n"
        "- [12:00] REVERSED MySQL: Changed from MySQL to Postgres because hosting changed again",
    )
    led = build(flip)
    assert [(c.current.decided, c.current.time, [(d.decided, d.time) for d in c.superseded]) for c in led.chains] == [
        ("Postgres", "12:00", [("MySQL", "11:00"), ("Postgres", "10:00")])]
    assert led.unresolved == ()


def test_two_decisions_replaced_by_one_both_stay() -> None:
    old = session("2026-04-07-ci", "- [10:00] Y: In the context of ci, decided Jenkins over Actions. Confidence: high\n"
                                   "- [10:05] Y: In the context of ci, decided Travis over CircleCI. Confidence: high")
    new = session("2026-04-08-ci-merge",
                  "- [10:00] Y: In the context of ci, decided Buildkite over Jenkins and Travis. Confidence: high",
                  "- [10:00] REVERSED Jenkins: Changed from Jenkins to Buildkite because speed\n"
                  "- [10:01] REVERSED Travis: Changed from Travis to Buildkite because speed")
    led = build(old, new)
    assert shape(led) == [("Buildkite", ["Travis", "Jenkins"])]
    assert len(led.chains[0].reversals) == 2


def test_unresolved_reversal_is_kept() -> None:
    stray = session("2026-04-05-misc", reversals="- [09:00] REVERSED Kafka: Changed from Kafka to NATS because ops")
    led = build(REST, stray)
    assert shape(led) == [("REST", [])]
    assert led.unresolved == stray.reversals


def test_reversal_never_targets_a_later_decision() -> None:
    early = session("2026-03-01-early", reversals="- [09:00] REVERSED REST: Changed from REST to GraphQL")
    led = build(REST, early)
    assert shape(led) == [("REST", [])]
    assert led.unresolved == early.reversals


def test_duplicates_count_once() -> None:
    twice = session("2026-04-05-api-switch", reversals="- [09:00] REVERSED REST: Changed from REST to GraphQL\n"
                                                       "- [09:00] REVERSED REST: Changed from REST to GraphQL")
    led = ledger.build([*REST.decisions, *REST.decisions], [*twice.reversals])
    assert shape(led) == [("GraphQL", ["REST"])]
    assert led.unresolved == ()


def test_input_order_does_not_matter() -> None:
    sessions = [
        REST, SEARCH,
        session("2026-04-05-api-b", "- [09:00] Y: In the context of api, decided GraphQL over REST. Confidence: medium",
                "- [09:00] REVERSED REST: Changed from REST to GraphQL"),
        session("2026-04-06-misc", reversals="- [09:00] REVERSED Kafka: Changed from Kafka to NATS\n"
                                             "- [10:00] REVERSED Elasticsearch: Changed from Elasticsearch to Typesense"),
    ]
    decisions = [d for s in sessions for d in s.decisions]
    reversals = [r for s in sessions for r in s.reversals]
    expected = ledger.build(decisions, reversals)
    r = random.Random(3)
    for _ in range(20):
        r.shuffle(decisions)
        r.shuffle(reversals)
        assert ledger.build(decisions, reversals) == expected
    assert shape(expected) == [("GraphQL", ["REST"]), ("Typesense", ["Elasticsearch"])]
    assert len(expected.unresolved) == 1


def test_nothing_is_dropped() -> None:
    sessions = [
        REST, SEARCH,
        session("2026-04-05-a", "- [09:00] Y: In the context of api, decided GraphQL over REST",
                "- [09:00] REVERSED REST: Changed from REST to GraphQL\n"
                "- [09:30] REVERSED GraphQL: Changed from GraphQL to REST"),
        session("2026-04-06-b", reversals="- [09:00] REVERSED nothing: Changed from Nope to Never"),
    ]
    led = build(*sessions)
    seen = [d for c in led.chains for d in (c.current, *c.superseded)]
    assert len(seen) == len({d.id for d in seen})
    assert {d.id for s in sessions for d in s.decisions} <= {d.id for d in seen}
    applied = [r for c in led.chains for r in c.reversals]
    assert sorted(r.id for r in (*applied, *led.unresolved)) == sorted(r.id for s in sessions for r in s.reversals)


def test_find_current_and_superseded() -> None:
    switch = session("2026-04-05-api-switch", reversals="- [09:00] REVERSED REST: Changed from REST to GraphQL")
    led = build(REST, switch)
    (old,) = REST.decisions
    chain, found = led.find(old.id)
    assert found == old and chain.current.decided == "GraphQL"
    assert led.find(chain.current.id) == (chain, chain.current)
    assert led.find("d0000000") is None


def test_every_permutation_of_a_small_ledger_is_the_same() -> None:
    b = session("2026-04-05-api-b", reversals="- [09:00] REVERSED REST: Changed from REST to GraphQL")
    items = [*REST.decisions, *SEARCH.decisions]
    results = {ledger.build(list(p), b.reversals) for p in itertools.permutations(items)}
    assert len(results) == 1


def test_large_ledger_resolves_every_reversal_to_its_designed_target() -> None:
    # 10,000 decisions, ten a day; 1,000 reversals cycling through four kinds, each at the
    # time of decision 10k+8 and naming decision 10k+3 (or the previous replacement):
    #   0: by id, replaced by decision 10k+8 written beside it;
    #   1: by phrase, reversing the replacement made by reversal k-1 (a chain of three);
    #   2: by phrase, alone in its file: the replacement is synthesized;
    #   3: naming only a later decision, or nothing: unresolved.
    def decision(i: int) -> model.Decision:
        date = f"{2000 + i // 3600:04d}-{i // 300 % 12 + 1:02d}-{i // 10 % 30 + 1:02d}"
        return model.Decision(
            id=model.stable_id("d", str(i)), source=f"sessions/{date}-s{i:05d}.md", date=date,
            time=f"{9 + i % 10:02d}:00", context="area", facing="", decided=f"option-{i:05d}",
            over=f"legacy-{i:05d}", achieve="", accepting="", confidence="", session_id=f"{i:08x}",
            text=f"In the context of area, decided option-{i:05d} over legacy-{i:05d}")

    decisions = [decision(i) for i in range(10_000)]
    reversals, expected, unresolved = [], {}, set()  # expected: superseded id -> (new id, reversal id)
    for k in range(1_000):
        beside, old = decisions[10 * k + 8], decisions[10 * k + 3]
        source, new = beside.source, beside.decided
        if k % 4 == 0:
            ref = f"({old.id})" if k % 8 else old.id
        elif k % 4 == 1:
            old = decisions[10 * (k - 1) + 8]
            ref = old.decided
        elif k % 4 == 2:
            source, new, ref = beside.source.replace(".md", "-alone.md"), f"fresh-{k}", old.decided
        else:
            ref = decisions[10 * k + 9].decided if k % 8 == 3 else f"never-{k}"
        rev = model.Reversal(id=model.stable_id("r", str(k)), source=source, date=beside.date,
                             time=beside.time, ref=ref, old=old.decided if k % 4 != 3 else "", new=new,
                             reason="", session_id=beside.session_id)
        reversals.append(rev)
        if k % 4 == 3:
            unresolved.add(rev.id)
        else:
            new_id = model.stable_id("d", rev.id, new.casefold()) if k % 4 == 2 else beside.id
            expected[old.id] = (new_id, rev.id)

    led = ledger.build(decisions, reversals)
    got = {}
    for chain in led.chains:
        newer = (chain.current, *chain.superseded)
        for d, by, rev in zip(chain.superseded, newer, chain.reversals):
            got[d.id] = (by.id, rev.id)
    assert got == expected
    assert {r.id for r in led.unresolved} == unresolved
    assert led.standing == 10_000 + 250 - 750
    assert sum(len(c.superseded) == 2 for c in led.chains) == 250  # the chains of three
    r = random.Random(7)
    r.shuffle(decisions)
    r.shuffle(reversals)
    assert ledger.build(decisions, reversals) == led


def _two_sides() -> tuple[model.Session, model.Session, str]:
    rid = REST.decisions[0].id
    alice = session("2026-04-05-graphql", "- [10:00] Y: In the context of api, decided GraphQL over REST, to achieve "
                    "fewer round trips. Confidence: medium", f"- [10:01] REVERSED {rid}: Changed from REST to GraphQL "
                    "because clients over-fetch", sid="a11ce000")
    bob = session("2026-04-05-grpc", "- [11:00] Y: In the context of api, decided gRPC over REST, to achieve typed "
                  "contracts. Confidence: medium", f"- [11:01] REVERSED {rid}: Changed from REST to gRPC because "
                  "services talk to services", sid="b0b00000")
    return alice, bob, rid


def test_two_reversals_of_one_decision_are_an_open_disagreement() -> None:
    alice, bob, rid = _two_sides()
    led = build(REST, alice, bob)
    [dis] = led.disagreements
    assert dis.open and dis.decision.id == rid
    assert [r.source for r in dis.reversals] == [alice.path, bob.path]
    assert [d.decided for d in dis.replacements] == ["GraphQL", "gRPC"]
    assert led.unresolved == ()  # not "matches no decision": it matched one already replaced
    assert {c.current.decided for c in led.chains} == {"GraphQL", "gRPC"}  # both stand until settled
    assert led.open_disagreements == (dis,)


def test_a_later_reversal_of_either_replacement_settles_it() -> None:
    alice, bob, _ = _two_sides()
    grpc = next(d for d in bob.decisions if d.decided == "gRPC")
    settle = session("2026-04-09-api-settled", "", f"- [09:00] REVERSED {grpc.id}: Changed from gRPC to GraphQL "
                     "because one API style is enough", sid="c0ffee00")
    led = build(REST, alice, bob, settle)
    [dis] = led.disagreements
    assert not dis.open and dis.settled_by is not None and dis.settled_by.source == settle.path
    assert led.open_disagreements == ()


def test_a_reversal_that_saw_the_first_one_is_no_disagreement() -> None:
    alice, _, _ = _two_sides()
    gql = next(d for d in alice.decisions if d.decided == "GraphQL")
    later = session("2026-04-07-back-to-rest", "", f"- [09:00] REVERSED {gql.id}: Changed from GraphQL to REST "
                    "because caching got hard", sid="d00d0000")
    assert build(REST, alice, later).disagreements == ()


# How a reversal names the decision it reverses: by id, by a phrase of it, by its session
# (file name with or without the date, session id), or only by its "Changed from" clause.
# Each is what the reversal names, never the head of the chain that decision is in.
REFERENCES = {
    "id": lambda d: d.id,
    "phrase": lambda d: "REST",
    "phrase-of-the-context": lambda d: "context of api",
    "session-name": lambda d: "api-design",
    "session-file": lambda d: "session 2026-04-01-api-design",
    "session-file-and-words": lambda d: "2026-04-01-api-design.md (REST)",
    "session-id": lambda d: "a1b2c3d4",
    "changed-from-only": lambda d: "the way clients call us",
}


def _sides(ref: str, replacement_written: bool) -> tuple[model.Session, model.Session]:
    def side(stem: str, new: str, at: str, sid: str) -> model.Session:
        y = (f"- [{at}] Y: In the context of api, decided {new} over REST, to achieve speed. Confidence: medium"
             if replacement_written else "")
        return session(stem, y, f"- [{at}] REVERSED {ref}: Changed from REST to {new} because of load", sid=sid)

    return (side("2026-04-05-graphql", "GraphQL", "10:01", "a11ce000"),
            side("2026-04-06-grpc", "gRPC", "11:01", "b0b00000"))


@pytest.mark.parametrize("written", [True, False], ids=["beside-a-y-statement", "reversal-line-alone"])
@pytest.mark.parametrize("kind", list(REFERENCES))
def test_two_reversals_of_one_decision_disagree_however_they_name_it(kind: str, written: bool) -> None:
    (rest,) = REST.decisions
    alice, bob = _sides(REFERENCES[kind](rest), written)
    led = build(REST, SEARCH, alice, bob)
    [dis] = led.disagreements
    assert dis.open and dis.decision == rest
    assert [r.source for r in dis.reversals] == [alice.path, bob.path]
    assert [d.decided for d in dis.replacements] == ["GraphQL", "gRPC"]
    assert sorted(shape(led)) == [("Elasticsearch", []), ("GraphQL", ["REST"]), ("gRPC", [])]  # both stand
    assert led.unresolved == ()
    # Whichever clone's sessions came first, the same ledger.
    decisions = [d for s in (bob, SEARCH, alice, REST) for d in s.decisions]
    assert ledger.build(decisions, [*bob.reversals, *alice.reversals]) == led


@pytest.mark.parametrize("kind", ["phrase", "session-name", "changed-from-only"])
def test_the_first_to_reverse_is_the_earlier_one_whichever_side_it_is(kind: str) -> None:
    (rest,) = REST.decisions
    alice, bob = _sides(REFERENCES[kind](rest), True)
    early_bob = session("2026-04-04-grpc",
                        "- [11:00] Y: In the context of api, decided gRPC over REST. Confidence: low",
                        f"- [11:01] REVERSED {REFERENCES[kind](rest)}: Changed from REST to gRPC", sid="b0b00000")
    [dis] = build(REST, alice, early_bob).disagreements
    assert [d.decided for d in dis.replacements] == ["gRPC", "GraphQL"]
    assert [r.source for r in dis.reversals] == [early_bob.path, alice.path]


@pytest.mark.parametrize("ref", ["GraphQL", "2026-04-05-graphql", "graphql", "a11ce000", "context of api"])
def test_a_reversal_that_names_the_first_replacement_is_a_chain(ref: str) -> None:
    """However it names it (phrase, session, the context both share with "Changed from"
    saying which), a reversal of the first replacement saw it: a chain, no disagreement."""
    alice, _ = _sides("REST", True)
    later = session("2026-04-07-back", reversals=f"- [09:00] REVERSED {ref}: Changed from GraphQL to gRPC because "
                    "typed contracts", sid="c0c0c0c0")
    led = build(REST, alice, later)
    assert led.disagreements == ()
    assert shape(led) == [("gRPC", ["GraphQL", "REST"])]


def test_a_phrase_reversal_of_either_replacement_settles_it() -> None:
    alice, bob = _sides("REST", True)
    settle = session("2026-04-09-api-settled", reversals="- [09:00] REVERSED gRPC: Changed from gRPC to GraphQL "
                     "because one API style is enough", sid="c0ffee00")
    led = build(REST, alice, bob, settle)
    [dis] = led.disagreements
    assert dis.settled_by == settle.reversals[0] and led.open_disagreements == ()


def test_a_standing_decision_named_exactly_wins_over_a_replaced_one_that_holds_the_phrase() -> None:
    """"REVERSED Postgres" names the standing Postgres decision, not a newer, replaced
    "Postgres FTS" whose decided clause merely holds the word: a chain, no disagreement."""
    db = session("2026-04-01-db", "- [10:00] Y: In the context of db, decided Postgres over MySQL. Confidence: high")
    fts = session("2026-04-02-search", "- [10:00] Y: In the context of search, decided Postgres FTS over Elasticsearch",
                  "- [11:00] REVERSED Postgres FTS: Changed from Postgres FTS to Meilisearch because ranking")
    move = session("2026-04-03-db-move", reversals="- [10:00] REVERSED Postgres: Changed from Postgres to SQLite")
    led = build(db, fts, move)
    assert led.disagreements == ()
    assert sorted(shape(led)) == [("Meilisearch", ["Postgres FTS"]), ("SQLite", ["Postgres"])]


def test_one_session_that_reverses_twice_is_a_chain_by_what_each_names() -> None:
    flip = session("2026-04-06-db-flip",
                   "- [10:00] Y: In the context of db, decided Postgres over MySQL. Confidence: high",
                   "- [11:00] REVERSED 2026-04-06-db-flip: Changed from Postgres to MySQL because hosting\n"
                   "- [12:00] REVERSED 2026-04-06-db-flip: Changed from MySQL to SQLite because hosting changed")
    led = build(flip)
    assert led.disagreements == () and shape(led) == [("SQLite", ["MySQL", "Postgres"])]


def test_a_side_that_moved_on_before_the_other_reversed_is_still_in_disagreement() -> None:
    """Alice reversed REST to GraphQL, then GraphQL to gRPC; Bob, who had seen neither,
    reversed REST to SOAP afterwards. Her second step came before his reversal, so it
    settled nothing: the disagreement is between where her side stood then and his."""
    alice, _ = _sides("REST", True)
    onward = session("2026-04-05-grpc", reversals="- [15:00] REVERSED GraphQL: Changed from GraphQL to gRPC",
                     sid="a11ce001")
    bob = session("2026-04-07-soap", reversals="- [09:00] REVERSED REST: Changed from REST to SOAP", sid="b0b00000")
    led = build(REST, alice, onward, bob)
    [dis] = led.disagreements
    assert dis.open and dis.decision == REST.decisions[0]
    assert [d.decided for d in dis.replacements] == ["gRPC", "SOAP"]
    assert [r.source for r in dis.reversals] == [alice.path, bob.path]
    later = session("2026-04-09-settle", reversals="- [09:00] REVERSED SOAP: Changed from SOAP to gRPC", sid="c0c0c0c0")
    [dis] = build(REST, alice, onward, bob, later).disagreements
    assert dis.settled_by == later.reversals[0]


def test_of_two_standing_decisions_named_exactly_the_newest_is_reversed() -> None:
    """One synthesized from a reversal line (Apr 2), one written later (Apr 3): "REVERSED
    GraphQL" on Apr 4 reverses the Apr 3 one, as it did before replaced decisions could be named."""
    alone = session("2026-04-02-api", reversals="- [09:00] REVERSED REST: Changed from REST to GraphQL")
    later = session("2026-04-03-gateway", "- [09:00] Y: In the context of gateway, decided GraphQL over SOAP")
    move = session("2026-04-04-grpc", reversals="- [09:00] REVERSED GraphQL: Changed from GraphQL to gRPC")
    led = build(REST, alone, later, move)
    assert sorted(shape(led)) == [("GraphQL", ["REST"]), ("gRPC", ["GraphQL"])]
    assert led.find(later.decisions[0].id)[0].current.decided == "gRPC"  # type: ignore[index]


def _every_match(self: decision_pool.Pool, needle: str, old: str, by: tuple[str, str, str],
                 standing: object, skip: Callable[[model.Decision], bool]) -> list[tuple[model.Decision, int]]:
    """Pool.phrase's contract by brute force: every decision looked at, no joined texts, no early stop."""
    if not needle:
        return []
    made = [d for d in self.items if decision_pool.key(d) <= by and not skip(d)]
    decided = [(d, 2 if needle == d.decided.casefold() else 1) for d in made if needle in d.decided.casefold()]
    if decided:
        texts = [d for d in made if old and d.decided.casefold() == old and needle in d.text.casefold()]
    else:
        texts = [d for d in made if needle in d.text.casefold()]
    named = {d for d, _ in decided}
    return decided + [(d, 0) for d in texts if d not in named]


def test_the_phrase_lookup_finds_what_looking_at_every_decision_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random small ledgers whose phrases overlap ("REST", "REST API", a session named
    like a choice), built with Pool.phrase and with a brute-force lookup: the same ledger."""
    r = random.Random(11)
    words = ["REST", "GraphQL", "gRPC", "REST API", "SOAP", "rest-api"]
    cases = []
    for _ in range(150):
        sessions = []
        for n in range(r.randrange(2, 7)):
            day = f"2026-04-{r.randrange(1, 9):02d}"
            name = f"{day}-{r.choice(['api', 'rest-api', 'grpc', 'misc'])}-{n}"
            ys = "\n".join(f"- [{r.randrange(9, 12)}:{r.choice(['00', '30'])}] Y: In the context of "
                           f"{r.choice(['api', 'rest api'])}, decided {r.choice(words)} over {r.choice(words)}"
                           for _ in range(r.randrange(0, 3)))
            revs = "\n".join(f"- [{r.randrange(9, 12)}:{r.choice(['05', '35'])}] REVERSED "
                             f"{r.choice([*words, 'api-3', 'rest api', 'thing'])}: Changed from "
                             f"{r.choice([*words, 'nothing'])} to {r.choice([*words, 'Thrift'])}"
                             for _ in range(r.randrange(0, 3)))
            sessions.append(session(name, ys, revs, sid=f"{n:08x}"))
        cases.append(sessions)
    fast = [build(*c) for c in cases]
    monkeypatch.setattr(decision_pool.Pool, "phrase", _every_match)
    assert [build(*c) for c in cases] == fast
    assert sum(len(led.disagreements) for led in fast) > 10 and sum(len(led.unresolved) for led in fast) > 10


def test_of_two_decisions_named_exactly_a_standing_one_wins_over_a_newer_replaced_one() -> None:
    """Two services both decided REST; the newer one's was replaced already. "REVERSED REST:
    Changed from REST to SOAP" then reverses the REST that still stands: a chain."""
    billing = session("2026-04-01-billing", "- [10:00] Y: In the context of billing, decided REST over SOAP")
    users = session("2026-04-02-users", "- [10:00] Y: In the context of users, decided REST over SOAP")
    users_move = session("2026-04-03-users-grpc", reversals=f"- [10:00] REVERSED {users.decisions[0].id}: "
                         "Changed from REST to gRPC")
    soap = session("2026-04-04-soap", reversals="- [10:00] REVERSED REST: Changed from REST to SOAP")
    led = build(billing, users, users_move, soap)
    assert led.disagreements == ()
    assert led.find(billing.decisions[0].id)[0].current.decided == "SOAP"  # type: ignore[index]
