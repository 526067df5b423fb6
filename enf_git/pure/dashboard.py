"""`git enf dashboard`: one self-contained HTML page of the stats envelope. Pure.

The page is three inline parts and nothing else: a stylesheet, the data (dashboard_data's
compact model, as a JSON data block) and a script of a few hundred lines that draws every
chart as SVG and every table from that data, and draws them again when a filter changes.
No chart library: the charts are bars, lines and a timeline, which SVG draws in a few lines
each, accessibly (role="img", a title, an aria-label, and the same numbers in a table
beside it), at a few kilobytes instead of uPlot's 50 or Chart.js's 200, and with nothing to
vendor or update.

Memory is shared, so its text is untrusted (a teammate's session title can say
`</script><img onerror=…>`): the data block escapes `<`, `>` and `&` so nothing in it can
close the block, the script only ever sets text (textContent, never innerHTML), and a
Content-Security-Policy allows exactly the page's own style and script (by hash) and no
request of any kind: an injected handler or a network fetch would be refused by the
browser itself.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from .dashboard_data import compact

_JSON_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026",
                 0x2028: "\\u2028", 0x2029: "\\u2029"}


def render(stats: Mapping[str, Any], title: str = "enf-git dashboard") -> str:
    """The page for one `git enf stats --json` envelope: same envelope, same bytes."""
    style, script = _asset("dashboard.css"), _asset("dashboard.js")
    data = data_block(compact(stats))
    policy = ("default-src 'none'; img-src data:; base-uri 'none'; form-action 'none'; "
              f"style-src '{_sha256(style)}'; script-src '{_sha256(script)}'")
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"color-scheme\" content=\"light dark\">\n"
        "<link rel=\"icon\" href=\"data:,\">\n"  # else the browser asks the server for /favicon.ico
        f"<title>{escape_text(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n{_BODY}"
        f"<script type=\"application/json\" id=\"enf-data\">{data}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def data_block(model: Mapping[str, Any]) -> str:
    """JSON that cannot end the <script> element it sits in, whatever the memory says."""
    return json.dumps(model, ensure_ascii=False, separators=(",", ":"), sort_keys=True).translate(_JSON_ESCAPES)


def escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _asset(name: str) -> str:
    """A file shipped inside the package (package data, the same bytes on every call)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _section(key: str, heading: str, note: str) -> str:
    return (f"<section class=\"card\" id=\"{key}\" aria-labelledby=\"{key}-h\">"
            f"<h2 id=\"{key}-h\">{heading}</h2><p class=\"note\">{note}</p>"
            f"<div class=\"pair\"><figure class=\"chart\" data-chart=\"{key}\"></figure>"
            f"<div class=\"table\" data-table=\"{key}\"></div></div></section>\n")


# The skeleton: headings and empty places the script fills. The filters' choices come
# from the data, so the script adds them too.
_BODY = (
    "<header><h1>enf-git dashboard</h1><p class=\"meta\" id=\"meta\"></p>"
    "<button type=\"button\" id=\"theme\" aria-label=\"Colour theme\">Theme: auto</button></header>\n"
    "<form id=\"filters\" class=\"filters\" aria-label=\"Filters\">"
    "<label>Author <select id=\"f-author\"><option value=\"\">everyone</option></select></label>"
    "<label>Tag <select id=\"f-tag\"><option value=\"\">any</option></select></label>"
    "<label>From <input type=\"date\" id=\"f-since\"></label>"
    "<label>To <input type=\"date\" id=\"f-until\"></label>"
    "<button type=\"reset\" id=\"f-reset\">Reset</button></form>\n"
    "<noscript><p>The charts and tables are drawn by the page's script: allow scripts for this file, or read "
    "the same figures with <code>git enf stats</code>.</p></noscript>\n"
    "<section class=\"card\" aria-labelledby=\"kpi-h\"><h2 id=\"kpi-h\">In figures</h2>"
    "<dl class=\"kpis\" id=\"kpis\"></dl></section>\n"
    + _section("sessions", "Sessions over time, by author", "Sessions per week (ISO weeks, by their Monday).")
    + _section("timeline", "Reversal timeline",
               "Each line runs from the day a decision was made to the day it was reversed.")
    + _section("topics", "Reversal rate by topic",
               "Decisions made and reversed, by the tags of the session that made them.")
    + _section("friction", "Friction", "Friction events per week (the sessions' Friction Events lines).")
    + _section("errors", "Recurring errors",
               "Errors seen in two sessions or more (the same code, or the same text once numbers and names are "
               "masked): in how many sessions.")
    + _section("tokens", "Token spend and cache hit rate",
               "From Claude Code's transcripts: tokens by type and the share read from the cache.")
    + _section("context", "Memory's context cost",
               "Tokens memory put in front of each session at SessionStart, per week.")
    + "<section class=\"card\" id=\"whole\" aria-labelledby=\"whole-h\"><h2 id=\"whole-h\">Whole memory</h2>"
    "<p class=\"note\">Not filtered: these count the whole branch.</p><div class=\"tables\" id=\"whole-tables\">"
    "</div></section>\n"
)
