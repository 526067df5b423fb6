"""Compression tiers, pure: which tier a session is due for, and the compressor.

The property tests run the compressor over many generated sessions (random with fixed
seeds: hypothesis is not installed) and check what Elephants Never Forget says must
never be compressed, independently of the compressor's own guard.
"""

from __future__ import annotations

import datetime as dt
import random

import pytest

from enf_git.pure import model, render, tiers
from enf_git.pure.model import Session

AS_OF = dt.date(2026, 4, 13)
FULL = """---
session_id: a1b2c3d4
date: 2026-03-01
start_time: "14:30"
tags: [search, api]
status: completed
summary: "Added search"
---
## Intent
Add search functionality to the product catalog.

## Interactions
### [14:00] User -> add search
**Claude ->** read src/models/product.ts and wrote the index; saw ENOENT on cache/dir.

### [14:05] User -> fix the test
**Claude ->** fixed tests/search.test.ts (TS2345).

## Decisions
- [14:10] Y: In the context of search engine, facing self-hosting needs, decided Elasticsearch over Algolia, \
to achieve self-hosted control, accepting operational overhead. Confidence: high

## Reversals
- [14:20] REVERSED Algolia plan: Changed from Algolia to Elasticsearch because cost

## Files Touched
- `src/services/search.ts` — role: created, what: full-text search logic
- `src/routes/products.ts` — role: modified, what: expose search endpoint

## Errors & Fixes
- [14:15] Error: `TypeError: cannot read property 'hits' of undefined`. Fix: guard empty result

## Friction Events
- [14:12] User redirected approach: was doing Algolia, switched to Elasticsearch

## Open Items
- [ ] Add search result pagination
- [x] Write the index
"""
PATH = "sessions/2026-03-01-search.md"


def session(stem: str, date: str | None = None, status: str = "completed", start: str = "10:00") -> Session:
    return Session(path=f"sessions/{stem}.md", stem=stem, session_id=stem[-8:], date=date or stem[:10],
                   start_time=start, tags=(), status=status, summary="s", sections={})


# --- which tier -------------------------------------------------------------------

def test_the_newest_three_are_hot_then_warm_up_to_30_days_then_cold() -> None:
    days = ["2026-04-13", "2026-04-12", "2026-04-11", "2026-04-10", "2026-03-14", "2026-03-13", "2025-12-01"]
    found = tiers.assign([session(f"{d}-work-{i:04d}") for i, d in enumerate(days)], AS_OF)
    assert [found[f"sessions/{d}-work-{i:04d}.md"].tier for i, d in enumerate(days)] == \
        ["hot", "hot", "hot", "warm", "warm", "cold", "cold"]  # 2026-03-14 is 30 days old: still warm


def test_the_current_session_is_hot_besides_the_newest_three() -> None:
    old = session("2026-01-01-resumed-old")
    newer = [session(f"2026-04-1{i}-new-{i}") for i in range(4)]
    found = tiers.assign([old, *newer], AS_OF, current=old.session_id)
    assert found[old.path].tier == "hot"
    assert sum(v.tier == "hot" for v in found.values()) == 4  # the current one and three others


def test_the_tier_follows_the_frontmatter_date_not_the_file_name() -> None:
    renamed = session("2026-04-01-misnamed", date="2025-01-01")
    newest = [session(f"2026-04-1{i}-n-{i}") for i in range(3)]
    assert tiers.assign([renamed, *newest], AS_OF)[renamed.path].tier == "cold"


def test_hot_sessions_is_a_setting() -> None:
    sessions = [session(f"2026-04-1{i}-n-{i}") for i in range(5)]
    found = tiers.assign(sessions, AS_OF, tiers.Policy(hot=1))
    assert sorted(v.tier for v in found.values()) == ["hot", "warm", "warm", "warm", "warm"]


@pytest.mark.parametrize(("kind", "kwargs"), [("active", {}), ("pinned", {"pins": frozenset({"2025-01-01-x"})}),
                                              ("conflict", {"conflicted": frozenset({"sessions/2025-01-01-x.md"})})])
def test_active_pinned_and_conflicted_sessions_are_never_compressed(kind: str, kwargs: dict[str, frozenset[str]]) -> None:
    s = session("2025-01-01-x", status="active" if kind == "active" else "completed")
    newest = [session(f"2026-04-1{i}-n-{i}") for i in range(3)]
    verdict = tiers.assign([s, *newest], AS_OF, **kwargs)[s.path]  # type: ignore[arg-type]
    assert verdict.tier == "cold" and verdict.never
    assert tiers.due_tier(verdict, "", 0) == ""


def test_due_tier_never_goes_back_and_folds_only_long_hot_sessions() -> None:
    assert tiers.due_tier(tiers.Verdict("cold"), "warm", 0) == "cold"
    assert tiers.due_tier(tiers.Verdict("warm"), "cold", 0) == ""
    assert tiers.due_tier(tiers.Verdict("warm"), "warm", 0) == ""
    assert tiers.due_tier(tiers.Verdict("hot"), "", 21) == "fold"
    assert tiers.due_tier(tiers.Verdict("hot"), "", 20) == ""
    assert tiers.due_tier(tiers.Verdict("hot"), "fold", 40) == ""


# --- the compressor -----------------------------------------------------------------

def test_warm_is_the_anchored_summary_with_every_path_verbatim() -> None:
    warm = tiers.compress(PATH, FULL.encode(), "warm").decode()
    body = warm.split("\n---\n", 1)[1]
    assert [ln[3:] for ln in body.split("\n") if ln.startswith("## ")] == [*tiers.WARM_HEADINGS, "References"]
    assert "- `src/services/search.ts` — role: created, what: full-text search logic" in body
    assert "`TypeError: cannot read property 'hits' of undefined`" in body  # the exact error text
    assert "- [ ] Add search result pagination" in body and "Write the index" not in body
    assert "## Interactions" not in body and "## Friction Events" not in body
    assert "- paths: `cache/dir`, `src/models/product.ts`, `tests/search.test.ts`" in body  # named in Interactions
    assert "- codes: `ENOENT`, `TS2345`" in body
    assert f'compressed_from: "{tiers.blob_id(FULL.encode())}"\ncompressor: {tiers.VERSION}\ntier: warm\n' in warm
    assert warm.startswith(FULL.split("---\n## Intent")[0])  # the header as written, then our three keys


def test_cold_keeps_the_summary_decisions_reversals_open_items_and_references() -> None:
    cold = tiers.compress(PATH, FULL.encode(), "cold").decode()
    body = cold.split("\n---\n", 1)[1]
    assert [ln[3:] for ln in body.split("\n") if ln.startswith("## ")] == \
        [*tiers.COLD_HEADINGS[:3], tiers.ERRORS, *tiers.COLD_HEADINGS[3:], "References"]  # it has an error
    assert "## Summary\nAdded search\n" in body
    assert "REVERSED Algolia plan" in body and "decided Elasticsearch over Algolia" in body
    assert "`src/services/search.ts`" in body
    assert "- [14:15] Error: `TypeError: cannot read property 'hits' of undefined`. Fix: guard empty result" in body
    assert len(cold) < len(tiers.compress(PATH, FULL.encode(), "warm")) < len(FULL)


def test_decisions_keep_their_ids_so_decisions_md_does_not_change() -> None:
    full = model.parse_session(PATH, FULL.encode())
    for tier in ("warm", "cold"):
        out = model.parse_session(PATH, tiers.compress(PATH, FULL.encode(), tier))
        assert out.decisions == full.decisions and out.reversals == full.reversals
        assert (out.summary, out.tags, out.date, out.session_id, out.status) == \
            (full.summary, full.tags, full.date, full.session_id, full.status)


def test_a_file_at_its_tier_or_past_it_is_left_as_it_is() -> None:
    cold = tiers.compress(PATH, FULL.encode(), "cold")
    assert tiers.compress(PATH, cold, "cold") == cold
    assert tiers.compress(PATH, cold, "warm") == cold
    assert tiers.tier_of(cold) == "cold" and tiers.tier_of(FULL.encode()) == ""


def test_a_file_that_does_not_parse_is_refused() -> None:
    with pytest.raises(tiers.CompressionRefused, match="does not parse"):
        tiers.compress(PATH, b"---\ndate: 2026-03-01\n---\n## Intent\nx\n", "warm")


def test_long_sessions_fold_older_interactions_into_a_summary_of_earlier_work() -> None:
    entries = "".join(f"### [10:{i:02d}] User -> step {i}\n**Claude ->** edited src/step{i}.py\n\n" for i in range(25))
    text = FULL.replace("## Interactions\n", "## Interactions\n" + entries, 1).encode()
    out = tiers.compress(PATH, text, "fold").decode()
    sections = model.parse_session(PATH, out.encode()).sections
    earlier = sections[tiers.FOLD_HEADING].split("\n")
    assert earlier == [f"- [10:{i:02d}] User -> step {i}" for i in range(7)]  # 27 entries, the newest 20 stay
    assert sections["Interactions"].count("### ") == 20 and "### [10:07] User -> step 7" in sections["Interactions"]
    assert "## Decisions\n" in out and "## Friction Events\n" in out  # everything else as it was
    assert "`src/step0.py`" in sections["References"]
    assert out.index(f"## {tiers.FOLD_HEADING}") < out.index("## Interactions")


def test_the_guard_refuses_an_output_that_loses_what_must_survive() -> None:
    warm = tiers.compress(PATH, FULL.encode(), "warm").decode()
    decision = model.parse_session(PATH, FULL.encode()).decisions[0].id
    losses = {  # an output that drops one thing -> what the refusal must name
        f"decision {decision}": warm.replace("- [14:10] Y: In the context of search engine",
                                             "- [14:10] Y: In the context of sea"),
        "the reversal of Algolia plan": warm.replace("- [14:20] REVERSED Algolia plan",
                                                     "- [14:20] Reverted Algolia plan"),
        "the open item '- [ ] Add search result pagination'": warm.replace("- [ ] Add search result pagination\n", ""),
        "path src/routes/products.ts": warm.replace("`src/routes/products.ts`", "the routes file"),
        "code TS2345": warm.replace(", `TS2345`", ""),
        "the heading ## Errors & Fixes": warm.replace("## Errors & Fixes", "## Errors"),
        "the summary field": warm.replace('summary: "Added search"', 'summary: "Search"'),
    }
    for lost, text in losses.items():
        assert text != warm, lost  # the case really drops something from the real output
        with pytest.raises(tiers.CompressionRefused) as refused:
            tiers.guard(PATH, FULL.encode(), text.encode(), "warm")
        message = refused.value.message  # what the case dropped comes first (a heading takes its lines along)
        assert message.startswith(f"{PATH}: compressing it to warm would lose {lost}") and \
            message.endswith("; left as it is"), message
    tiers.guard(PATH, FULL.encode(), warm.encode(), "warm")  # the real output passes


def test_references_find_paths_codes_dates_and_ids() -> None:
    found = tiers.references("Edited `src/a.py`, config.toml and ./b/c. Got E0308, ORA-00942, EACCES, KeyError "
                             "on 2026-04-13 in session 1a2b3c4d (commit 0123abcd9).")
    assert found["paths"] == {"src/a.py", "config.toml", "./b/c"}
    assert found["codes"] == {"E0308", "ORA-00942", "EACCES", "KeyError"}
    assert found["dates"] == {"2026-04-13"} and found["ids"] == {"1a2b3c4d", "0123abcd9"}


# --- properties over generated sessions -------------------------------------------------

_WORDS = ["cache", "index", "parser", "schema", "token", "retry", "merge", "render", "gate", "hook", "query"]


def generated(rng: random.Random, n: int) -> bytes:
    """A random but well-formed session: any mix of sections, paths, codes, items."""
    word = lambda: rng.choice(_WORDS)  # noqa: E731
    path = lambda: f"{rng.choice(['src', 'lib', 'tests', '.github'])}/{word()}/{word()}{n}.{rng.choice(['py', 'ts', 'md'])}"  # noqa: E731
    code = lambda: rng.choice(["E0308", "TS2345", "ENOENT", "ValueError", f"HTTP-{rng.randrange(400, 600)}"])  # noqa: E731
    header = ["---", f"session_id: s{n:07x}", f"date: 2026-0{rng.randrange(1, 4)}-1{rng.randrange(10)}",
              f'start_time: "1{rng.randrange(10)}:{rng.randrange(60):02d}"', f"tags: [{word()}, {word()}]",
              "status: completed"]
    if rng.random() < 0.8:
        header.append(f'summary: "Worked on the {word()} {word()}"')
    parts = ["\n".join([*header, "---"])]
    if rng.random() < 0.2:
        parts.append(f"# Notes for {path()}")
    sections: list[tuple[str, list[str]]] = []
    if rng.random() < 0.9:
        sections.append(("Intent", [f"Make the {word()} faster; see {path()}."]))
    entries = []
    for k in range(rng.choice([0, 2, 5, 21, 30])):
        entries += [f"### [1{k % 10}:{k:02d}] User -> asked about {word()}",
                    f"**Claude ->** changed {path()} and hit {code()} on {word()}.", ""]
    if entries:
        sections.append(("Interactions", entries))
    decisions = [f"- [1{k}:0{k}] Y: In the context of {word()}, facing {word()}, decided use {word()} {n}-{k} over "
                 f"{word()}, to achieve speed, accepting cost. Confidence: high" for k in range(rng.randrange(4))]
    if decisions:
        sections.append((rng.choice(["Decisions", "Decisions Taken"]), decisions))
    if decisions and rng.random() < 0.5:
        sections.append(("Reversals", [f"- [19:59] REVERSED use {word()}: Changed from {word()} to {word()} "
                                       f"because {word()}"]))
    if rng.random() < 0.8:
        sections.append(("Files Touched", [f"- `{path()}` — role: modified, what: {word()}"
                                           for _ in range(rng.randrange(1, 4))]))
    if rng.random() < 0.6:
        sections.append(("Errors & Fixes", [f"- [12:00] Error: `{code()} in {path()}`. Fix: {word()}"]))
    if rng.random() < 0.5:
        sections.append(("Friction Events", [f"- [12:30] User redirected approach: was doing {word()} in {path()}"]))
    if rng.random() < 0.7:
        items = [f"- [{rng.choice([' ', 'x'])}] {word()} the {word()} {k}" for k in range(rng.randrange(1, 4))]
        if rng.random() < 0.3:
            items.append("  - with a sub-line about " + path())
        sections.append((rng.choice(["Open Items", "Next Steps"]), items))
    if rng.random() < 0.2:
        sections.append(("Resumed 2026-04-01 in session 9f8e7d6c", [f"Picked up {path()} again."]))
    rng.shuffle(sections)
    for name, lines in sections:
        parts.append(f"## {name}\n" + "\n".join(lines) + "\n")
    return ("\n".join(parts)).encode()


CASES = [(seed, generated(random.Random(seed), seed)) for seed in range(250)]


def _open_items(s: Session) -> set[str]:
    lines = (s.sections.get("Open Items", "") + "\n" + s.sections.get("Next Steps", "")).split("\n")
    return {ln.strip() for ln in lines if ln.startswith("- [ ]")}


@pytest.mark.parametrize("tier", tiers.TIERS)
def test_compression_never_loses_what_must_survive(tier: str) -> None:
    for seed, data in CASES:
        path = f"sessions/2026-03-01-gen-{seed}.md"
        out = tiers.compress(path, data, tier)
        before, after = model.parse_session(path, data), model.parse_session(path, out)
        assert after.decisions == before.decisions and after.reversals == before.reversals, seed
        assert _open_items(before) <= _open_items(after), seed
        body_before, body_after = data.decode().split("\n---\n", 1)[1], out.decode().split("\n---\n", 1)[1]
        for kind, found in tiers.references(body_before).items():
            assert found <= tiers.references(body_after)[kind], (seed, kind)
        for token in tiers.references(body_before)["paths"]:
            assert token in body_after, (seed, token)  # verbatim, not just by the same extractor


@pytest.mark.parametrize("tier", tiers.TIERS)
def test_compression_is_idempotent_and_deterministic(tier: str) -> None:
    for seed, data in CASES:
        path = f"sessions/2026-03-01-gen-{seed}.md"
        once = tiers.compress(path, data, tier)
        assert tiers.compress(path, data, tier) == once
        assert tiers.compress(path, once, tier) == once, seed


def test_tiers_compose_so_clones_that_compressed_in_other_steps_agree() -> None:
    for seed, data in CASES:
        path = f"sessions/2026-03-01-gen-{seed}.md"
        warm, cold = tiers.compress(path, data, "warm"), tiers.compress(path, data, "cold")
        folded = tiers.compress(path, data, "fold")
        assert tiers.compress(path, warm, "cold") == cold, seed
        if folded != data:
            assert tiers.compress(path, folded, "warm") == warm, seed
            assert tiers.compress(path, folded, "cold") == cold, seed


def test_views_render_the_same_bytes_from_compressed_sessions() -> None:
    full, compressed = [], []
    for seed, data in CASES[:120]:
        path = f"sessions/2026-03-{1 + seed % 28:02d}-gen-{seed}.md"
        full.append(model.parse_session(path, data))
        compressed.append(model.parse_session(path, tiers.compress(path, data, tiers.TIERS[seed % 3])))
    assert render.render_all("p", compressed, []) == render.render_all("p", full, [])


def test_a_header_value_is_found_as_the_line_by_line_definition_finds_it() -> None:
    import random

    rng = random.Random(1729)
    pool = [b"---", b"...", b"--- ", b"...\r", b"tier: cold", b"tier:warm", b"  tier: x", b"tier: \"fold\"\r",
            b"summary: tier: cold", b"", b"x: y", b"\xff\xfe", b"\xe2\x82", b"\r", b"compressor: 2",
            b"compressed_from: 'abc'", b"tier:", b"tier: caf\xc3\xa9", b"---\xc2\xa0", b"\ttier: cold"]
    for _ in range(4000):
        lines = [rng.choice(pool) for _ in range(rng.randrange(0, 80))]
        data = b"\n".join([b"---" if rng.random() < 0.9 else b"x", *lines])
        if rng.random() < 0.5:
            data += b"\n"
        for key in ("tier:", "compressor:", "compressed_from:"):
            assert tiers._header_value(data, key) == tiers._header_value_slow(data, key), (data, key)
    for before in (61, 62, 63):  # the key on header line 62, 63 (the last looked at), 64
        data = b"---\n" + b"x: y\n" * before + b"tier: cold\n---\n"
        assert tiers._header_value(data, "tier:") == tiers._header_value_slow(data, "tier:") == (
            "cold" if before < 63 else "")
