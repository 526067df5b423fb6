"""bench/recall/: the recall evaluation set is well formed (the benchmark trusts it).

Pure checks of the files themselves; bench/recall_quality.py measures recall on them.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from enf_git.pure import model, render

SET_DIR = Path(__file__).resolve().parent.parent / "bench" / "recall"
SESSIONS = sorted((SET_DIR / "sessions").glob("*.md"))
MINIMUM = {"lexical": 15, "paraphrase": 20, "reversal": 10, "none": 15}


def _parse(path: Path) -> model.Session:
    return model.parse_session(f"sessions/{path.name}", path.read_bytes())


@pytest.fixture(scope="module")
def sessions() -> dict[str, model.Session]:
    return {p.stem: _parse(p) for p in SESSIONS}


@pytest.fixture(scope="module")
def queries() -> list[dict[str, object]]:
    data = yaml.safe_load((SET_DIR / "queries.yaml").read_text(encoding="utf-8"))
    assert data["schema"] == 1
    return list(data["queries"])


def test_at_least_100_sessions_that_parse_cleanly(sessions: dict[str, model.Session]) -> None:
    assert len(sessions) >= 100
    for stem, s in sessions.items():
        assert s.session_id and s.status == "completed" and s.summary and s.tags, stem
        assert "Intent" in s.sections and "Interactions" in s.sections, stem
        assert s.date == stem[:10], stem
        # Every Y-statement in the canonical shape, not the loose fallback.
        assert s.decisions, stem
        for d in s.decisions:
            assert d.context and d.decided and d.over and d.achieve and d.accepting and d.confidence, (stem, d.text)


def test_file_names_follow_the_slug_rule() -> None:
    for path in SESSIONS:
        assert model.check_stem(path.stem) is None, path.name
        slug = path.stem[11:]
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+){1,4}", slug) and len(slug) <= 40, path.name
        assert "2024-01-01" <= path.stem[:10] <= "2026-12-31", path.name


def test_queries_of_the_four_kinds_in_the_required_numbers(queries: list[dict[str, object]]) -> None:
    assert len(queries) >= 60
    assert len({q["id"] for q in queries}) == len(queries)
    counts = Counter(str(q["kind"]) for q in queries)
    assert set(counts) == set(MINIMUM)
    for kind, least in MINIMUM.items():
        assert counts[kind] >= least, kind


def test_every_labelled_session_exists(queries: list[dict[str, object]], sessions: dict[str, model.Session]) -> None:
    for q in queries:
        relevant = list(q["relevant"] or [])  # type: ignore[call-overload]
        assert (q["kind"] == "none") == (not relevant), q["id"]
        if q["kind"] == "reversal":
            assert len(relevant) == 2, q["id"]
        for stem in relevant:
            assert stem in sessions, (q["id"], stem)


def test_reversal_queries_name_a_reversal_the_ledger_resolves(
        queries: list[dict[str, object]], sessions: dict[str, model.Session]) -> None:
    ledger = render.build_ledger(sessions.values(), [])
    assert ledger.unresolved == ()
    # superseded session -> sessions whose decisions replaced one of its decisions
    replaced_by: dict[str, set[str]] = {}
    for chain in ledger.chains:
        for old in chain.superseded:
            replaced_by.setdefault(_stem(old.source), set()).add(_stem(chain.current.source))
    for q in queries:
        if q["kind"] != "reversal":
            continue
        old, new = sorted(q["relevant"], key=lambda stem: stem[:10])  # type: ignore[call-overload]
        assert old[:10] < new[:10], q["id"]
        assert sessions[new].reversals, (q["id"], new)
        assert new in replaced_by.get(old, set()), (q["id"], old, new)


@pytest.fixture(scope="module")
def held_out() -> list[dict[str, object]]:
    data = yaml.safe_load((SET_DIR / "held_out.yaml").read_text(encoding="utf-8"))
    assert data["schema"] == 1
    return list(data["queries"])


def test_the_held_out_set_has_150_queries_of_every_kind(held_out: list[dict[str, object]],
                                                         queries: list[dict[str, object]]) -> None:
    assert len(held_out) >= 150
    ids = [q["id"] for q in [*queries, *held_out]]
    assert len(set(ids)) == len(ids)  # one id space: a query is in one set only
    assert all(str(q["id"]).startswith("ho-") for q in held_out)
    counts = Counter(str(q["kind"]) for q in held_out)
    assert set(counts) == {*MINIMUM, "status", "abbreviation"}
    assert counts["status"] >= 30 and counts["abbreviation"] >= 15 and counts["none"] >= 30


def test_held_out_labels_agree_with_the_ledger(held_out: list[dict[str, object]],
                                               sessions: dict[str, model.Session]) -> None:
    # "Do we still use X?" is labelled with whether X's decision stands: the ledger is the judge.
    ledger = render.build_ledger(sessions.values(), [])
    replaced_by: dict[str, set[str]] = {}
    for chain in ledger.chains:
        for old in chain.superseded:
            replaced_by.setdefault(_stem(old.source), set()).add(_stem(chain.current.source))
    for q in held_out:
        relevant = list(q["relevant"] or [])  # type: ignore[call-overload]
        assert (q["kind"] == "none") == (not relevant), q["id"]
        assert all(stem in sessions for stem in relevant), q["id"]
        assert ("stands" in q) == (q["kind"] == "status"), q["id"]
        if q["kind"] == "status":
            first = relevant[0]
            if q["stands"]:
                assert first not in replaced_by and len(relevant) == 1, q["id"]
            else:
                assert set(relevant[1:]) <= replaced_by.get(first, set()) and len(relevant) == 2, q["id"]
        if q["kind"] == "reversal":
            old, new = relevant
            assert new in replaced_by.get(old, set()), q["id"]


def test_abbreviation_queries_spell_what_the_sessions_define(held_out: list[dict[str, object]]) -> None:
    # The pair must be defined somewhere in memory ("Elasticsearch (ES)", "SOPS (Secrets
    # OPerationS)"), never only in a query: the query spells one side of a defined pair.
    text = " ".join(p.read_text(encoding="utf-8") for p in SESSIONS)
    short = set(re.findall(r"\(([A-Z][A-Za-z]{1,9})\)", text)) | set(re.findall(r"\b([A-Z]{2,9}) \([A-Z]", text))
    long = [" ".join(m.split()[-2:]).lower() for m in re.findall(r"((?:[\w-]+ ){1,2})\([A-Z][A-Za-z]{1,9}\)", text)]
    long += [" ".join(m.split()[:2]).lower() for m in re.findall(r"\b[A-Z]{2,9} \(([A-Z][\w ]+)\)", text)]
    assert {"ES", "EKS", "ECR", "SOPS"} <= short
    for q in held_out:
        if q["kind"] == "abbreviation":
            words = str(q["text"])
            assert any(re.search(rf"\b{re.escape(a)}\b", words) for a in short) or any(
                f.strip() in words.lower() for f in long), q["id"]


def test_sources_lists_every_session_file_once() -> None:
    text = (SET_DIR / "SOURCES.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    listed = [re.match(r"\| `([^`]+)\.md`", row).group(1) for row in rows]  # type: ignore[union-attr]
    assert sorted(listed) == [p.stem for p in SESSIONS]
    repos = set()
    for row in rows:
        if "*noise*" in row:
            continue
        m = re.search(r"\(https://github\.com/([\w.-]+/[\w.-]+)/blob/HEAD/[^)]+\)", row)
        assert m, row
        repos.add(m.group(1))
    assert len(repos) >= 8


def _stem(source: str) -> str:
    return source.rsplit("/", 1)[-1].removesuffix(".md")


def test_the_conversational_notes_are_well_formed() -> None:
    folder = SET_DIR / "conversations"
    parsed = {p.stem: _parse(p) for p in sorted((folder / "sessions").glob("*.md"))}
    assert len(parsed) >= 30
    for stem, s in parsed.items():
        assert s.session_id and s.summary and "Interactions" in s.sections and s.date == stem[:10], stem
        assert model.check_stem(stem) is None, stem
    data = yaml.safe_load((folder / "queries.yaml").read_text(encoding="utf-8"))
    qs = list(data["queries"])
    assert len(qs) >= 100 and len({q["id"] for q in qs}) == len(qs)
    assert {str(q["id"])[:3] for q in qs} == {"cd-", "ch-"}
    for q in qs:
        relevant = list(q["relevant"] or [])
        assert q["kind"] in ("lexical", "paraphrase", "none"), q["id"]
        assert (q["kind"] == "none") == (not relevant), q["id"]
        assert all(stem in parsed for stem in relevant), q["id"]
    for prefix in ("cd-", "ch-"):
        kinds = Counter(q["kind"] for q in qs if str(q["id"]).startswith(prefix))
        assert kinds["none"] >= 15 and kinds["lexical"] + kinds["paraphrase"] >= 35, prefix


def test_the_second_conversational_corpus_is_a_well_formed_set() -> None:
    # conversations2 (conv-dev3) checks the weak flag on conversational notes: one set (cx-*),
    # the sizes it was written to, every label pointing at a session that parses.
    folder = SET_DIR / "conversations2"
    parsed = {p.stem: _parse(p) for p in sorted((folder / "sessions").glob("*.md"))}
    assert len(parsed) >= 30
    assert len({s.session_id for s in parsed.values()}) == len(parsed)
    for stem, s in parsed.items():
        assert s.session_id and s.summary and s.tags and s.status == "completed", stem
        assert "Intent" in s.sections and "Interactions" in s.sections and s.date == stem[:10], stem
        assert model.check_stem(stem) is None, stem
    qs = list(yaml.safe_load((folder / "queries.yaml").read_text(encoding="utf-8"))["queries"])
    assert len({q["id"] for q in qs}) == len(qs)
    assert {str(q["id"])[:3] for q in qs} == {"cx-"}
    kinds = Counter(str(q["kind"]) for q in qs)
    assert set(kinds) == {"lexical", "paraphrase", "none"}
    assert len(qs) >= 150 and kinds["none"] >= 45 and kinds["paraphrase"] > kinds["lexical"]
    for q in qs:
        relevant = list(q["relevant"] or [])
        assert (q["kind"] == "none") == (not relevant), q["id"]
        assert all(stem in parsed for stem in relevant), q["id"]
