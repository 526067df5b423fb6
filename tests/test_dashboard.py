"""`git enf dashboard` without a browser: the page's bytes, its data, the command, and the
read-only server. The browser checks are in test_dashboard_browser.py."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from enf_git.plumbing import pageserver
from enf_git.pure import dashboard, dashboard_codec, dashboard_data

FIXTURE = Path(__file__).parent / "data" / "dashboard" / "stats.json"
HOSTILE = "</script><img src=x onerror=\"window.pwned=1\"><script>window.pwned=2</script>&amp;\u2028"


def stats() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


def hostile_stats() -> dict[str, Any]:
    """Every text field the page shows, set to markup that would run if parsed."""
    s = stats()
    for row in s["sessions"]["rows"]:
        row["author"] = HOSTILE + row["author"]
        row["tags"] = [HOSTILE + t for t in row["tags"]]
    for r in s["decisions"]["reversals"]:
        r.update(reason=HOSTILE, topic=HOSTILE, decision=HOSTILE, tags=[HOSTILE + t for t in r["tags"]])
    for e in s["errors"]["recurring"]:
        e.update(key=HOSTILE, text=HOSTILE)
    s["decisions"]["by_topic"][0]["topic"] = HOSTILE
    s["instincts"]["by_corroboration"][0]["rule"] = HOSTILE
    s["transcripts"]["cost"]["disclaimer"] = HOSTILE
    s["tip"] = HOSTILE
    return s


def data_of(page: str) -> dict[str, Any]:
    block = re.search(r'<script type="application/json" id="enf-data">(.*?)</script>', page, re.S)
    assert block is not None
    model: dict[str, Any] = json.loads(block.group(1))
    return model


def test_the_same_stats_give_the_same_bytes() -> None:
    assert dashboard.render(stats()) == dashboard.render(stats())


def test_hostile_text_cannot_leave_the_data_block() -> None:
    page = dashboard.render(hostile_stats())
    # The only elements are the page's own: one style, the data block and the script.
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<img" not in page and "onerror" not in page.replace("onerror=\\\"", "")
    assert "\u2028" not in page
    model = data_of(page)  # and the text itself arrives whole, to be shown as text
    assert model["reversals"][0][8] == HOSTILE
    assert model["recurring"][0][0] == HOSTILE
    assert all(name.startswith(HOSTILE) for name in model["authors"])


def test_the_policy_allows_only_the_pages_own_style_and_script() -> None:
    page = dashboard.render(stats())
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    assert style and script
    digest = lambda text: "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()  # noqa: E731
    assert f"script-src '{digest(script.group(1))}'" in policy.group(1)
    assert f"style-src '{digest(style.group(1))}'" in policy.group(1)
    assert "default-src 'none'" in policy.group(1) and "unsafe" not in policy.group(1)


def test_the_page_names_no_network_address() -> None:
    page = dashboard.render(stats())
    urls = set(re.findall(r"(?:https?:)?//[\w.-]+\.\w+[^\s\"'<>)]*", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # SVG's namespace: a name, never fetched


def test_the_script_never_parses_text_as_markup() -> None:
    script = (Path(dashboard.__file__).parent / "dashboard.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function("):
        assert sink not in script


def decode(col: Any) -> list[Any]:
    """The reference reader of a dashboard_codec column (dashboard.js's column() in Python)."""
    if not isinstance(col, str):
        return list(col)
    if col[0] == "#":  # fixed width: w digits of six bits a value
        width, body = dashboard_codec.DIGITS.index(col[1]), col[2:]
        return [sum(dashboard_codec.DIGITS.index(c) << 6 * (width - 1 - k) for k, c in enumerate(body[i:i + width]))
                for i in range(0, len(body), width)]
    out: list[Any] = []
    delta, prev, last, at = col[0] == "+", 0, 0, 1

    def number() -> int:
        nonlocal at
        n = 0
        while True:
            d = dashboard_codec.DIGITS.index(col[at])
            at += 1
            n = n * 32 + (d & 31)
            if d < 32:
                return n

    def emit(code: int) -> None:
        nonlocal prev
        if code == 0:
            out.append(None)
            return
        z = code - 2
        x = -(z + 1) // 2 if z % 2 else z // 2
        if delta:
            prev += x
            x = prev
        out.append(x)

    assert col[0] in "=+"
    while at < len(col):
        code = number()
        if code == 1:
            out.extend(_emitted(emit, last, number()))
        else:
            emit(code)
            last = code
    return out


def _emitted(emit: Callable[[int], None], code: int, times: int) -> list[Any]:
    for _ in range(times):
        emit(code)
    return []


def rows_of(model: dict[str, Any]) -> dict[str, list[Any]]:
    """The page's rows, a list per field, as the script rebuilds them."""
    rows = model["rows"]
    out = {f: decode(rows[f]) for f in ("day", "author", "done", "dec", "rev", "fri", "err")}
    out["tags"] = [rows["tagsets"][k] for k in decode(rows["tagset"])]
    return out


@pytest.mark.parametrize("values", [
    [], [0], [None], [5, None, 7], [-1, -2, 3, -40000], list(range(1000)), [7] * 500, [None] * 300 + [1],
    [2 ** 40, -(2 ** 40), 0, 2 ** 49], [31, 32, 1023, 1024, 32767, 32768], [3, 3, 3, 4, 4, 4, 4, 3, 3],
])
def test_a_column_reads_back_as_it_was_written(values: list[int | None]) -> None:
    col = dashboard_codec.column(values)
    assert isinstance(col, str) and decode(col) == values
    assert set(col[1:]) <= set(dashboard_codec.DIGITS)  # nothing JSON or HTML would escape


def test_a_column_takes_the_shorter_of_values_and_differences() -> None:
    assert dashboard_codec.column(list(range(10_000, 20_000))).startswith("+")
    assert len(dashboard_codec.column(list(range(10_000, 20_000)))) < 40  # a run of +1: a few characters
    assert dashboard_codec.column([0, 30000, 0, 30000]).startswith("=")
    # zero (C), then repeat (B) 99,999 (digits 3, 1, 20, 31) more times
    assert dashboard_codec.column([0] * 100_000) == "=CBjh0f"


def test_scattered_large_figures_take_fixed_width_digits() -> None:
    import random

    rng = random.Random(3)
    values = [rng.randrange(2 ** 30) for _ in range(1000)]
    col = dashboard_codec.column(values)
    assert col[:2] == "#F" and len(col) == 2 + 5 * 1000 and decode(col) == values  # 30 bits: five digits
    assert dashboard_codec.column([*values, None])[0] != "#"  # a None: the other forms say it
    assert decode(dashboard_codec.column([*values, None])) == [*values, None]


def test_a_value_the_script_could_not_add_exactly_keeps_the_list() -> None:
    assert dashboard_codec.column([1, 2 ** 50, None]) == [1, 2 ** 50, None]


def test_rows_become_columns_with_names_by_index() -> None:
    model = dashboard_data.compact(stats())
    assert model["model"] == dashboard_data.MODEL == 2
    assert model["day0"] == "2026-03-02"
    assert model["authors"] == ["Alice <a@x>", "Bob <bob@x>", "Mallory <m@x>"]
    assert model["tags"] == ["api", "search", "ui"]
    rows = rows_of(model)
    assert rows["day"] == [44, 39, 7, 0]  # newest first, as the envelope lists them
    assert rows["author"] == [2, 1, 0, 0]
    assert rows["tags"] == [[2], [1], [0], [0, 1]]
    assert rows["done"] == [0, 1, 1, 1] and rows["fri"] == [1, 0, 2, 0]
    assert rows["dec"] == [0, 1, 0, 1] and rows["rev"] == [0, 1, 0, 0] and rows["err"] == [1, 1, 0, 1]
    assert "stem" not in json.dumps(model)  # stems are never shown: they stay out of the page


def test_rows_with_the_same_tags_share_one_tag_set_the_commonest_first() -> None:
    s = stats()
    base = s["sessions"]["rows"][1]  # Bob's, tagged search
    s["sessions"]["rows"] = [dict(base, date=f"2026-04-{d:02d}") for d in range(28, 0, -1)] + s["sessions"]["rows"]
    model = dashboard_data.compact(s)
    assert model["rows"]["tagsets"] == [[1], [2], [0], [0, 1]]  # search (29 rows), then first seen first
    assert decode(model["rows"]["tagset"]) == [0] * 28 + [1, 0, 2, 3]
    rows = rows_of(model)
    assert rows["day"][:28] == list(range(57, 29, -1))  # their own dates still (April 28 is day 57)
    assert rows["author"][:30] == [1] * 28 + [2, 1]
    assert len(model["rows"]["author"]) < 10  # 32 rows: a run and a few more


def test_references_to_sessions_become_row_indexes() -> None:
    s = stats()
    model = dashboard_data.compact(s)
    assert [r[:2] + [decode(r[2])] for r in model["recurring"]] == [["ENOENT", "ENOENT: no such file <b>x</b>", [3, 0]]]
    assert model["reversals"][0][5] == 1  # written in 2026-04-10-cost: row 1
    assert model["joined"] is False and decode(model["usage"]["row"]) == [-1, -1]
    s["decisions"]["reversals"][0]["source"] = "2026-03-02-scale"  # made there: that row wins
    s["sessions"]["rows"][3]["session"] = "aaaa1111-0000"
    model = dashboard_data.compact(s)
    assert model["reversals"][0][5] == 3
    assert model["joined"] is True and decode(model["usage"]["row"]) == [3, -1]
    assert decode(model["context"]["row"]) == [3, -1] and decode(model["context"]["tokens"]) == [1000, 2000]


def test_transcript_figures_read_back_exactly() -> None:
    usage = dashboard_data.compact(stats())["usage"]
    assert [decode(usage[k]) for k in ("day", "in", "out", "cw", "cr")] == [
        [0, 39], [50, 50], [100, 100], [100, 200], [400, 500]]
    assert usage["id"] == {"hex": usage["id"]["hex"]} and decode(usage["id"]["hex"]) == [0xaaaa1111, 0xbbbb2222]
    assert [None if m is None else m / 1e6 for m in decode(usage["cost"]["micro"])] == [0.12, None]


@pytest.mark.parametrize(("costs", "ids"), [
    ([0.123456, 1e-06, 12.5, None, 0], ["0f0f0f0f", "deadbeef", "00000000", "ffffffff", "12345678"]),
    ([0.1234567, 1.0, 2.0, 3.0, 4.0], ["a", "ABCDEF12", "not-hex!", "1234567", "x" * 8]),
])
def test_costs_and_ids_keep_every_digit_either_way(costs: list[float | None], ids: list[str]) -> None:
    s = stats()
    per = s["transcripts"]["per_session"][0]
    s["transcripts"]["per_session"] = [dict(per, cost_usd=c, session=i) for c, i in zip(costs, ids)]
    usage = dashboard_data.compact(s)["usage"]
    cost = usage["cost"]
    read = [None if m is None else m / 1e6 for m in decode(cost["micro"])] if isinstance(cost, dict) else cost
    assert read == [None if c is None else float(c) for c in costs]
    assert isinstance(cost, dict) == (costs[0] == 0.123456)  # seven places cannot be millionths: numbers
    shown = [f"{n:08x}" for n in decode(usage["id"]["hex"])] if isinstance(usage["id"], dict) else usage["id"]
    assert shown == ids


def test_an_empty_or_odd_envelope_still_renders() -> None:
    for odd in ({"command": "stats"}, {"command": "stats", "sessions": {"rows": [{"date": "soon", "tags": "x"}]}}):
        model = data_of(dashboard.render(odd))
        assert decode(model["rows"]["day"]) in ([], [None])


def test_a_hundred_thousand_sessions_leave_room_in_the_pages_budget() -> None:
    """Rows as different as they can be (twenty authors, any of 299 tag sets, random counts)
    take at most half the 2 MB: the rest is room for transcript and SessionStart figures."""
    import random

    rng = random.Random(7)
    n, tags = 100_000, [f"tag{k}" for k in range(12)]
    rows = [{"stem": f"s{i}", "date": f"202{rng.randrange(6)}-0{1 + rng.randrange(9)}-1{rng.randrange(10)}",
             "author": f"dev{rng.randrange(20)}", "tags": rng.sample(tags, rng.randrange(4)),
             "status": rng.choice(["active", "completed"]), "decisions": rng.randrange(3),
             "reversals": rng.randrange(2), "friction": rng.randrange(3), "errors": rng.randrange(3)} for i in range(n)]
    rows.sort(key=lambda r: r["date"], reverse=True)  # as git enf stats lists them
    page = dashboard.render({"command": "stats", "sessions": {"rows": rows}})
    assert len(page.encode()) < 1024 * 1024, len(page.encode())
    model = data_of(page)
    assert [[model["tags"][t] for t in ts] for ts in rows_of(model)["tags"]] == [sorted(r["tags"]) for r in rows]


# --- the command -------------------------------------------------------------------------

def test_dashboard_writes_into_the_git_dir_by_default(run_cli: Callable[..., str], repo_dir: Path,
                                                      git: Callable[..., str]) -> None:
    out = run_cli("dashboard", "--from", str(FIXTURE))
    target = repo_dir / ".git" / "enf" / "dashboard.html"
    assert out.strip() == f"wrote the dashboard to {target}"
    assert target.read_text(encoding="utf-8") == dashboard.render(stats())
    assert git("status", "--porcelain") == ""  # nothing in the user's work tree


def test_dashboard_to_a_file_and_to_stdout(run_cli: Callable[..., str], tmp_path: Path) -> None:
    run_cli("dashboard", "--from", str(FIXTURE), "-o", str(tmp_path / "d.html"))
    assert (tmp_path / "d.html").read_text(encoding="utf-8") == dashboard.render(stats())
    assert run_cli("dashboard", "--from", str(FIXTURE), "-o", "-") == dashboard.render(stats())


@pytest.mark.parametrize(("content", "said"), [
    (None, "cannot read"), ("not json", "is not JSON"), ('{"command": "log"}', "is not the output of git enf stats"),
])
def test_a_bad_envelope_is_refused_with_the_next_step(run_cli: Callable[..., str], tmp_path: Path,
                                                       content: str | None, said: str) -> None:
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    out = run_cli("dashboard", "--from", str(path), code=1)
    assert said in out and "hint: save one first: git enf stats --json > stats.json" in out


def test_port_without_serve_is_a_usage_error(run_cli: Callable[..., str]) -> None:
    assert "--port is the port of --serve" in run_cli("dashboard", "--from", str(FIXTURE), "--port", "8000", code=2)


# --- the server --------------------------------------------------------------------------

@pytest.fixture
def served() -> Iterator[pageserver.http.server.ThreadingHTTPServer]:
    httpd = pageserver.server(b"<!doctype html><p>the page</p>")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


def _ask(httpd: Any, method: str, path: str) -> tuple[int, bytes, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", httpd.server_address[1], timeout=10)
    try:
        conn.request(method, path)
        resp = conn.getresponse()
        return resp.status, resp.read(), dict(resp.getheaders())
    finally:
        conn.close()


def test_the_server_binds_loopback_only(served: Any) -> None:
    assert served.socket.getsockname()[0] == "127.0.0.1"


def test_the_server_answers_get_of_the_page_and_nothing_else(served: Any) -> None:
    status, body, headers = _ask(served, "GET", "/")
    assert (status, body) == (200, b"<!doctype html><p>the page</p>")
    assert headers["Content-Type"] == "text/html; charset=utf-8" and headers["Cache-Control"] == "no-store"
    assert _ask(served, "GET", "/index.html?x=1")[0] == 200
    assert _ask(served, "HEAD", "/")[:2] == (200, b"")
    for path in ("/favicon.ico", "/../.git/config", "/dashboard.html"):
        assert _ask(served, "GET", path)[0] == 404


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"])
def test_the_server_refuses_every_method_but_get(served: Any, method: str) -> None:
    status, body, _ = _ask(served, method, "/")
    assert status == 405 and b"the page" not in body
