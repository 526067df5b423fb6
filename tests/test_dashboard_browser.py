"""`git enf dashboard` in a real headless Chromium (tests/browser.py), from a real
repository: the page loads with no console error and no network request, every chart is
drawn with the marks its figures call for, the numbers on the page are `git enf stats
--json`'s, the filters give what `git enf stats --json --author/--tag/--since` gives, and
hostile memory text stays text. A screenshot per theme is kept in test-artifacts/."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import browser
from enf_git.pure import dashboard, dashboard_data
from gitfixtures import commit_as, session_text

pytestmark = pytest.mark.skipif(browser.skip_reason() is not None, reason=browser.skip_reason() or "")

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
ALICE = {"GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com"}
BOB = {"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
HOSTILE = '</script><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'

SCALE = ("\n## Decisions\n- [14:10] Y: In the context of search engine, facing scale, decided Elasticsearch over "
         "Algolia, to achieve self-hosted control, accepting ops overhead. Confidence: high\n"
         "\n## Errors & Fixes\n- [14:20] Error: `ModuleNotFoundError: No module named 'foo'`. Fix: pip install foo\n"
         "\n## Friction Events\n- [14:30] User redirected approach: was doing X, switched to Y\n"
         "- [14:40] Abandoned approach: the Algolia client, it could not page\n")
COST = ("\n## Decisions\n- [09:30] Y: In the context of search engine, facing cost, decided Postgres FTS over "
        "Elasticsearch, to achieve fewer parts, accepting weaker ranking. Confidence: medium\n"
        "\n## Reversals\n- [09:31] REVERSED Elasticsearch: Changed from Elasticsearch to Postgres FTS because "
        f"the cluster cost too much {HOSTILE}\n"
        "\n## Errors & Fixes\n- [09:40] Error: `ModuleNotFoundError: No module named 'bar'`. Fix: added it\n")
DOCKER = ("\n## Decisions\n- [10:00] Y: In the context of deploy, facing drift, decided Docker over VMs, to achieve "
          "repeatable builds, accepting image size. Confidence: low\n"
          "\n## Errors & Fixes\n- [10:05] Error: `ModuleNotFoundError: No module named 'baz'`. Fix: the path\n"
          "\n## Friction Events\n- [10:10] The build server was down all morning\n")
K8S = ("\n## Decisions\n- [11:00] Y: In the context of deploy, facing scale, decided Kubernetes over Docker, to "
       "achieve autoscaling, accepting complexity. Confidence: medium\n"
       "\n## Reversals\n- [11:01] REVERSED Docker: Changed from Docker to Kubernetes because of autoscaling\n")


@pytest.fixture
def team(run_cli: Callable[..., str], repo_dir: Path) -> Path:
    """Five sessions by two authors over five weeks: decisions, two reversals (one of
    Alice's decisions by Bob), friction, an error that comes back in three sessions, and a
    session title and a reversal's reason that are markup."""
    run_cli("init")
    commit_as(repo_dir, ALICE, {"sessions/2026-04-06-search.md": session_text(
        "a1a1a1a1", "2026-04-06", "Search", "[search, api]", body=SCALE)})
    commit_as(repo_dir, BOB, {"sessions/2026-04-08-search-cost.md": session_text(  # Bob reverses Alice
        "a2a2a2a2", "2026-04-08", "Cheaper search", "[search]", body=COST)})
    commit_as(repo_dir, BOB, {"sessions/2026-04-20-deploy.md": session_text(
        "b3b3b3b3", "2026-04-20", "", "[deploy]", status="active", body=DOCKER)})
    commit_as(repo_dir, BOB, {"sessions/2026-05-01-deploy-k8s.md": session_text(
        "b4b4b4b4", "2026-05-01", "Kubernetes", "[deploy]", body=K8S)})
    commit_as(repo_dir, BOB, {"sessions/2026-05-12-evil.md": session_text(
        "b5b5b5b5", "2026-05-12", "evil \\\"</script><img src=x onerror=window.pwned=3>", "[ui]")})
    return repo_dir


@pytest.fixture(scope="module")
def chrome() -> Iterator[browser.Browser]:
    with browser.chromium() as running:
        yield running


def stats(run_cli: Callable[..., str], *args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(run_cli("stats", "--json", *args))
    return data


def load(chrome: browser.Browser, path: Path, scheme: str = "light") -> browser.Page:
    page = chrome.new_page()
    page.color_scheme(scheme)
    page.goto(path.as_uri())
    assert browser.wait_for(page, "document.body.dataset.ready === '1'"), page.errors
    return page


def written(run_cli: Callable[..., str], tmp_path: Path) -> Path:
    target = tmp_path / "dashboard.html"
    run_cli("dashboard", "-o", str(target))
    return target


def network(page: browser.Page, own: str) -> list[str]:
    """Requests other than the page itself; data: URLs are no request (Chromium draws the
    date field's calendar icon from one)."""
    return [url for url in page.requests if url != own and not url.startswith("data:")]


def kpis(page: browser.Page) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(page.evaluate(
        "JSON.stringify(Object.fromEntries([...document.querySelectorAll('[data-kpi]')]"
        ".map(e => [e.dataset.kpi, e.dataset.value])))"))
    return {k: None if v == "null" else json.loads(v) for k, v in found.items()}


def marks(page: browser.Page) -> dict[str, int]:
    found: dict[str, int] = json.loads(page.evaluate(
        "JSON.stringify(Object.fromEntries([...document.querySelectorAll('svg[data-plot]')]"
        ".map(s => [s.dataset.plot, s.querySelectorAll('.mark').length])))"))
    return found


def table(page: browser.Page, key: str) -> list[list[Any]]:
    rows: list[list[str]] = json.loads(page.evaluate(
        f"JSON.stringify([...document.querySelectorAll('table[data-key={key}] tbody tr')]"
        ".map(tr => [...tr.children].map(c => c.dataset.value)))"))
    return [[_value(v) for v in row] for row in rows]


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def choose(page: browser.Page, select: str, label: str | None = None, value: str | None = None) -> None:
    """Pick an option by its text (or set a field's value) as a person would: a change event."""
    if label is not None:
        page.evaluate(f"(() => {{ const s = document.getElementById({json.dumps(select)});"
                      f" s.value = [...s.options].find(o => o.text === {json.dumps(label)}).value; }})()")
    else:
        page.evaluate(f"document.getElementById({json.dumps(select)}).value = {json.dumps(value)}")
    page.evaluate(f"document.getElementById({json.dumps(select)}).dispatchEvent(new Event('change', {{bubbles: true}}))")


def expected_kpis(s: dict[str, Any]) -> dict[str, Any]:
    d = s["decisions"]
    return {"sessions": s["sessions"]["total"], "active": s["sessions"]["active"],
            "completed": s["sessions"]["completed"], "decisions": d["made"], "reversed": d["reversed"],
            "reversal_rate": d["reversal_rate"], "median_days": d["days_to_reversal"]["median"],
            "within_7": d["reversed_within_7_days"], "friction": s["friction"]["total"],
            "errors": s["errors"]["total"], "recurring": len(s["errors"]["recurring"])}


def test_the_page_loads_with_no_error_and_no_request(team: Path, run_cli: Callable[..., str], tmp_path: Path,
                                                     chrome: browser.Browser) -> None:
    path = written(run_cli, tmp_path)
    page = load(chrome, path)
    assert page.errors == []
    assert network(page, path.as_uri()) == []
    assert page.evaluate("window.pwned === undefined")
    marks_drawn = [m["name"] for m in page.timing()["mark"]]
    assert marks_drawn == ["enf-start", "enf-drawn", "enf-painted"]


def test_every_chart_is_drawn_with_a_mark_per_figure(team: Path, run_cli: Callable[..., str], tmp_path: Path,
                                                     chrome: browser.Browser) -> None:
    s = stats(run_cli)
    page = load(chrome, written(run_cli, tmp_path))
    drawn = marks(page)
    rows = s["sessions"]["rows"]
    assert drawn["sessions"] == sum(len(w["by_author"]) for w in s["sessions"]["by_week"])
    assert drawn["timeline"] == len(s["decisions"]["reversals"]) == 2
    assert drawn["topics"] == len([t for t in s["decisions"]["by_tag"] if t["made"]])
    friction_weeks = {dashboard_week(r["date"]) for r in rows if r["friction"]}
    assert drawn["friction"] == len(friction_weeks) == 2
    assert drawn["errors"] == len(s["errors"]["recurring"]) == 1
    # no transcript and no SessionStart on this machine: said, not drawn
    assert "tokens" not in drawn and "context" not in drawn
    assert page.evaluate("document.querySelector('[data-chart=tokens] .empty').textContent").startswith("No transcript")
    labels = json.loads(page.evaluate("JSON.stringify([...document.querySelectorAll('svg[data-plot]')]"
                                      ".map(s => [s.getAttribute('role'), s.getAttribute('aria-label'),"
                                      " s.querySelector('title').textContent]))"))
    assert all(role == "img" and label and title == label for role, label, title in labels)


def dashboard_week(date: str) -> str:
    import datetime as dt

    year, week, _ = dt.date.fromisoformat(date).isocalendar()
    return f"{year}-W{week:02d}"


def test_the_numbers_are_those_of_git_enf_stats(team: Path, run_cli: Callable[..., str], tmp_path: Path,
                                                chrome: browser.Browser) -> None:
    s = stats(run_cli)
    page = load(chrome, written(run_cli, tmp_path))
    shown = kpis(page)
    assert {k: shown[k] for k in expected_kpis(s)} == expected_kpis(s)
    assert (shown["sessions"], shown["reversed"], shown["recurring"]) == (5, 2, 1)  # the fixture, as built
    authors = [a["author"] for a in sorted(s["sessions"]["by_author"], key=lambda a: a["author"])]
    weeks = table(page, "sessions")
    assert [(w[0], w[1]) for w in weeks] == [(w["week"], w["total"]) for w in s["sessions"]["by_week"]]
    header = json.loads(page.evaluate("JSON.stringify([...document.querySelectorAll('table[data-key=sessions] th[scope=col]')].map(t => t.textContent))"))
    for row, week in zip(weeks, s["sessions"]["by_week"]):
        per = dict(zip(header[2:], row[2:]))
        assert {a: n for a, n in per.items() if n} == week["by_author"]
    assert set(header[2:]) == set(authors)
    assert table(page, "topics") == [[t["tag"], t["made"], t["reversed"], t["rate"]]
                                     for t in s["decisions"]["by_tag"] if t["made"]]
    assert [(e[0], e[1]) for e in table(page, "errors")] == [(e["key"], e["count"]) for e in s["errors"]["recurring"]]
    assert [(r[1], r[2], r[3]) for r in table(page, "timeline")] == [
        (r["decided_on"], r["reversed_on"], r["days"]) for r in s["decisions"]["reversals"]]


@pytest.mark.parametrize(("field", "pick", "option"), [
    ("f-author", {"label": "Alice <alice@example.com>"}, ("--author", "alice@example.com")),
    ("f-author", {"label": "Bob <bob@example.com>"}, ("--author", "bob@example.com")),
    ("f-tag", {"label": "deploy"}, ("--tag", "deploy")),
    ("f-tag", {"label": "search"}, ("--tag", "search")),
    ("f-since", {"value": "2026-04-20"}, ("--since", "2026-04-20")),
    ("f-until", {"value": "2026-04-08"}, ("--until", "2026-04-08")),
])
def test_a_filter_gives_the_figures_of_stats_with_that_option(team: Path, run_cli: Callable[..., str],
                                                              tmp_path: Path, chrome: browser.Browser, field: str,
                                                              pick: dict[str, str], option: tuple[str, str]) -> None:
    whole, part = stats(run_cli), stats(run_cli, *option)
    page = load(chrome, written(run_cli, tmp_path))
    choose(page, field, **pick)
    shown = kpis(page)
    assert {k: shown[k] for k in expected_kpis(part)} == expected_kpis(part)
    assert shown["sessions"] < whole["sessions"]["total"]  # the filter did take something away
    assert [(w[0], w[1]) for w in table(page, "sessions")] == [(w["week"], w["total"]) for w in part["sessions"]["by_week"]]
    assert marks(page).get("timeline", 0) == len(part["decisions"]["reversals"])
    page.evaluate("document.getElementById('filters').reset()")
    assert browser.wait_for(page, f"document.querySelector('[data-kpi=sessions]').dataset.value === "
                                  f"'{whole['sessions']['total']}'")
    assert page.errors == []


def test_hostile_memory_text_is_shown_as_text(team: Path, run_cli: Callable[..., str], tmp_path: Path,
                                              chrome: browser.Browser) -> None:
    page = load(chrome, written(run_cli, tmp_path))
    assert page.evaluate("window.pwned === undefined") and page.errors == []
    assert page.evaluate("document.querySelectorAll('img').length") == 0
    reasons = [r[5] for r in table(page, "timeline")]
    assert any(HOSTILE in r for r in reasons)  # the reversal's reason, verbatim, as text


def test_themes_light_and_dark_with_a_screenshot_each(team: Path, run_cli: Callable[..., str], tmp_path: Path,
                                                       chrome: browser.Browser) -> None:
    path = written(run_cli, tmp_path)
    ARTIFACTS.mkdir(exist_ok=True)
    background = "getComputedStyle(document.body).backgroundColor"
    colours = {}
    for scheme in ("light", "dark"):
        page = load(chrome, path, scheme)
        colours[scheme] = page.evaluate(background)
        shot = page.screenshot(tmp_path / f"dashboard-{scheme}.png")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
        shutil.copy(shot, ARTIFACTS / shot.name)
    assert colours["light"] != colours["dark"]
    page = load(chrome, path, "dark")  # the toggle wins over the system's choice: auto, light, dark
    page.evaluate("document.getElementById('theme').click()")
    assert page.evaluate(background) == colours["light"]
    page.evaluate("document.getElementById('theme').click()")
    assert page.evaluate(background) == colours["dark"]
    assert page.evaluate("document.getElementById('theme').textContent") == "Theme: dark"


def test_a_saved_envelope_with_hostile_text_loads_clean(tmp_path: Path, chrome: browser.Browser) -> None:
    from test_dashboard import HOSTILE as EVERYWHERE
    from test_dashboard import hostile_stats

    path = tmp_path / "hostile.html"
    path.write_text(dashboard.render(hostile_stats()), encoding="utf-8")
    page = load(chrome, path)
    assert page.errors == [] and network(page, path.as_uri()) == []
    assert page.evaluate("window.pwned === undefined")
    texts = json.loads(page.evaluate("JSON.stringify([...document.querySelectorAll('td, th, option')].map(e => e.textContent))"))
    assert sum(EVERYWHERE in t for t in texts) >= 5


# --- transcript and SessionStart figures, as the page's columns carry them ------------------

def measured_team(sessions: int = 400, steady: bool = False) -> dict[str, Any]:
    """A saved envelope of `sessions` sessions by three authors over twenty weeks, most with
    transcript figures (some unpriced, some past 2**31 tokens) and a SessionStart size, in
    the orders git enf stats lists them. `steady`: cache reads past 2**31 that drift a
    little from one session to the next (the page's columns store them as differences)."""
    import datetime as dt
    import random

    from test_dashboard import stats as saved

    rng = random.Random(5)
    s = saved()
    authors = ["Alice <a@x>", "Bob <bob@x>", "Carol <c@x>"]
    rows = []
    for i in range(sessions):
        day = dt.date(2026, 1, 5) + dt.timedelta(days=rng.randrange(140))
        rows.append({"stem": f"{day}-s{i}", "session": f"{rng.getrandbits(32):08x}", "date": day.isoformat(),
                     "author": authors[i % 3], "tags": rng.sample(["api", "search", "ui"], rng.randrange(3)),
                     "status": "completed", "decisions": 1, "reversals": 0, "friction": 0, "errors": 0})
    rows.sort(key=lambda r: (r["date"], r["stem"]), reverse=True)
    usage = [{"session": r["session"], "date": r["date"], "input": rng.randrange(10 ** 5),
              "output": rng.randrange(10 ** 6), "cache_creation": rng.randrange(10 ** 6),
              "cache_read": (3 * 10 ** 9 + 7 * i + rng.randrange(100) if steady
                             else rng.randrange(3 * 10 ** 9) if i % 7 else rng.randrange(10 ** 7)),
              "cost_usd": None if i % 11 == 0 else round(rng.random() * 40, 6)}
             for i, r in enumerate(rows) if i % 4]
    starts = [{"session": r["session"], "date": r["date"], "tokens": rng.randrange(40_000)} for r in rows]
    s["sessions"]["rows"] = rows
    s["transcripts"]["per_session"] = sorted(usage, key=lambda p: (p["date"], p["session"]))
    s["memory"]["context"]["per_session"] = sorted(starts, key=lambda p: (p["date"], p["session"]))
    s["decisions"]["reversals"], s["errors"]["recurring"] = [], []
    return s


def js_round4(x: float) -> float:
    import math

    return math.floor(x * 10000 + 0.5) / 10000  # Math.round(x * 10000) / 10000, as the page rounds


def expected_usage(s: dict[str, Any], keep: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    import statistics

    by_id = {r["session"]: r for r in s["sessions"]["rows"]}
    usage = [u for u in s["transcripts"]["per_session"] if keep(by_id[u["session"]]) and keep(u)]
    starts = [p for p in s["memory"]["context"]["per_session"] if keep(by_id[p["session"]]) and keep(p)]
    kinds = {k: sum(u[k] for u in usage) for k in ("input", "output", "cache_creation", "cache_read")}
    priced = 0.0
    for u in usage:
        priced += u["cost_usd"] if u["cost_usd"] is not None else 0.0
    prompt = kinds["input"] + kinds["cache_creation"] + kinds["cache_read"]
    return {"tokens": sum(kinds.values()), "cache_hit_rate": js_round4(kinds["cache_read"] / prompt),
            "cost": js_round4(priced), "context_median": statistics.median(p["tokens"] for p in starts),
            "usage": usage}


@pytest.mark.parametrize("steady", [False, True])
@pytest.mark.parametrize(("field", "pick", "keep"), [
    (None, {}, lambda x: True),
    ("f-author", {"label": "Bob <bob@x>"}, lambda x: x.get("author", "Bob <bob@x>") == "Bob <bob@x>"),
    ("f-tag", {"label": "ui"}, lambda x: "ui" in x.get("tags", ["ui"])),
    ("f-since", {"value": "2026-05-01"}, lambda x: x["date"] >= "2026-05-01"),
])
def test_transcript_and_start_figures_are_exact_under_every_filter(
        tmp_path: Path, chrome: browser.Browser, field: str | None, pick: dict[str, str],
        keep: Callable[[dict[str, Any]], bool], steady: bool) -> None:
    s = measured_team(steady=steady)
    assert dashboard_data.compact(s)["usage"]["cr"][0] == ("+" if steady else "#")  # both forms of a column
    path = tmp_path / "measured.html"
    path.write_text(dashboard.render(s), encoding="utf-8")
    page = load(chrome, path)
    if field is not None:
        choose(page, field, **pick)
    want = expected_usage(s, keep)
    shown = kpis(page)
    assert {k: shown[k] for k in ("tokens", "cache_hit_rate", "cost", "context_median")} == {
        k: want[k] for k in ("tokens", "cache_hit_rate", "cost", "context_median")}
    assert want["tokens"] > 2 ** 31  # past what 32-bit arithmetic would add up
    assert page.errors == []


def test_a_few_transcripts_are_drawn_one_bar_each_with_their_ids(tmp_path: Path, chrome: browser.Browser) -> None:
    s = measured_team()
    path = tmp_path / "measured.html"
    path.write_text(dashboard.render(s), encoding="utf-8")
    page = load(chrome, path)
    choose(page, "f-author", label="Carol <c@x>")
    choose(page, "f-since", value="2026-05-10")
    want = expected_usage(s, lambda x: x.get("author", "Carol <c@x>") == "Carol <c@x>" and x["date"] >= "2026-05-10")
    assert 0 < len(want["usage"]) <= 60  # one bar a session
    assert [row[:5] + [row[6]] for row in table(page, "tokens")] == [
        [f"{u['date']} {u['session']}", u["input"], u["output"], u["cache_creation"], u["cache_read"],
         None if u["cost_usd"] is None else js_round4(u["cost_usd"])] for u in want["usage"]]
