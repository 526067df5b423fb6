"""fm: the frontmatter fast path, its YAML fallback, and dump().

The fast path exists only to skip importing YAML; it must never disagree with it.
So besides exact expectations, every header here is also checked against
yaml.safe_load (normalized the way fm normalizes), including a few thousand
generated ones.
"""

from __future__ import annotations

import datetime as dt
import random

import pytest
import yaml

from enf_git.pure import fm

SEED_HEADER = """---
session_id: a1b2c3d4
date: 2026-04-13
start_time: "14:30"
tags: [tag1, tag2, tag3]
status: active
summary: "One sentence summary"
---
## Intent
Ship it.
"""


def yaml_view(header_lines: list[str]) -> dict | str:
    """What yaml.safe_load makes of a header, normalized like fm; "ERROR" if it refuses,
    or if the header uses an alias (fm refuses those: see test_hostile.py)."""
    try:
        data = yaml.safe_load("\n".join(header_lines))
        if any(isinstance(e, yaml.AliasEvent) for e in yaml.parse("\n".join(header_lines))):
            return "ERROR"
    except (yaml.YAMLError, ValueError):
        return "ERROR"
    if data is None:
        return {}
    if not isinstance(data, dict):
        return "ERROR"
    return {str(k): fm.normalize(v) for k, v in data.items()}


def fm_view(header_lines: list[str]) -> dict | str:
    try:
        return fm.parse("---\n" + "\n".join(header_lines) + "\n---\nbody\n").meta
    except fm.FrontmatterError:
        return "ERROR"


def took_fast_path(header_lines: list[str]) -> bool:
    return fm._fast(header_lines) is not None


# -- splitting and the Elephants Never Forget header ------------------------------------------------


def test_seed_header_parses_on_the_fast_path() -> None:
    parsed = fm.parse(SEED_HEADER)
    assert parsed.meta == {
        "session_id": "a1b2c3d4",
        "date": "2026-04-13",
        "start_time": "14:30",
        "tags": ["tag1", "tag2", "tag3"],
        "status": "active",
        "summary": "One sentence summary",
    }
    assert parsed.body == "## Intent\nShip it.\n"
    assert parsed.body_line == 9
    assert took_fast_path(SEED_HEADER.split("\n")[1:7])


def test_text_without_header_is_all_body() -> None:
    for text in ("## Intent\nno header\n", "----\nnot a header\n", "", "---x\n"):
        parsed = fm.parse(text)
        assert (parsed.meta, parsed.body, parsed.body_line) == ({}, text, 1)


def test_header_may_close_with_dots_and_be_empty() -> None:
    assert fm.parse("---\nk: v\n...\nbody").meta == {"k": "v"}
    empty = fm.parse("---\n---\nbody")
    assert (empty.meta, empty.body, empty.body_line) == ({}, "body", 3)


def test_comments_and_blank_lines_in_header_are_ignored() -> None:
    assert fm.parse("---\n# note\n\nk: v\n  # indented note\n---\n").meta == {"k": "v"}


def test_crlf_header_parses() -> None:
    assert fm.parse("---\r\nk: v\r\ntags: [a, b]\r\n---\r\nbody").meta == {"k": "v", "tags": ["a", "b"]}


# -- errors carry a line ------------------------------------------------------------


def test_unclosed_header_is_an_error_on_line_1() -> None:
    with pytest.raises(fm.FrontmatterError) as err:
        fm.parse("---\nsession_id: a\nsummary: x\n")
    assert (err.value.line, err.value.reason) == (1, "frontmatter opened with '---' but never closed")


@pytest.mark.parametrize(
    ("header", "line"),
    [
        ("session_id: a\nsummary: [unclosed", 3),
        ("session_id: a\n  bad: indent", 3),
        ("a: 1\nb: c: d", 3),
    ],
)
def test_yaml_errors_report_the_file_line(header: str, line: int) -> None:
    with pytest.raises(fm.FrontmatterError) as err:
        fm.parse(f"---\n{header}\n---\nbody")
    assert err.value.line == line
    assert err.value.reason.startswith("invalid YAML frontmatter: ")


def test_header_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(fm.FrontmatterError) as err:
        fm.parse("---\n- a\n- b\n---\n")
    assert (err.value.line, err.value.reason) == (2, "frontmatter must be a mapping of key: value lines")


@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-01"])
def test_impossible_date_is_a_frontmatter_error_not_a_crash(value: str) -> None:
    # On the fast path and through YAML (forced here by a nested mapping).
    # Either way the error names the line of the date itself.
    for header, line in ((f"date: {value}", 2), (f"nested: {{a: 1}}\ndate: {value}", 3)):
        with pytest.raises(fm.FrontmatterError) as err:
            fm.parse(f"---\n{header}\n---\n")
        assert err.value.line == line
        assert "out of range" in err.value.reason or "must be in" in err.value.reason


# -- the fast path agrees with YAML -------------------------------------------------

# value as written -> what both paths must give
AGREED = [
    ("plain words", "plain words"),
    ("café au lait", "café au lait"),
    ("it's fine", "it's fine"),
    ('say "hi"', 'say "hi"'),
    ("a#b", "a#b"),
    ("a #b", "a"),
    ("a:b", "a:b"),
    ("(x)", "(x)"),
    ("./path/to.md", "./path/to.md"),
    ("-a", "-a"),
    ("1e3", "1e3"),
    ("08", "08"),
    ("2026-04-13 10:00", "2026-04-13 10:00"),
    ('"quoted # not a comment"', "quoted # not a comment"),
    ("'it''s'", "it's"),
    ("''", ""),
    ('""', ""),
    ("", None),
    ("12345678", 12345678),
    ("0", 0),
    ("-3", -3),
    ("2026-04-13", "2026-04-13"),
    ("[]", []),
    ("[a, b c, 'd']", ["a", "b c", "d"]),
    # YAML 1.1 types these; the fast path must not guess them as strings
    ("14:30", 870),
    ("01234567", 342391),
    ("017", 15),
    ("+5", 5),
    ("1_000", 1000),
    ("0x1F", 31),
    ("1.5", 1.5),
    (".5", 0.5),
    ("yes", True),
    ("Off", False),
    ("~", None),
    ("null", None),
    ("y", "y"),
    ("2026-04-13T10:00:00Z", "2026-04-13T10:00:00+00:00"),
    ("2026-04-13 10:00:00", "2026-04-13T10:00:00"),
    ("[a, 1.5, yes]", ["a", 1.5, True]),
    ("{a: 1}", {"a": 1}),
]


@pytest.mark.parametrize(("written", "expected"), AGREED)
def test_value_means_what_yaml_says(written: str, expected: object) -> None:
    header = [f"k: {written}".rstrip()]
    assert fm_view(header) == {"k": expected}
    assert yaml_view(header) == {"k": expected}


@pytest.mark.parametrize("written", ["- a", "-", "@x", "`x", "%x", "=", "<<", "*a", "a: b", "a:\tb", "[a[b]]", "bell\x07"])
def test_values_yaml_refuses_are_refused(written: str) -> None:
    header = [f"k: {written}"]
    assert yaml_view(header) == "ERROR"
    assert fm_view(header) == "ERROR"


@pytest.mark.parametrize(("key", "as_yaml_reads_it"), [("on", "True"), ("yes", "True"), ("null", "None"), ("y", "y")])
def test_keys_yaml_reads_as_bool_or_null_agree(key: str, as_yaml_reads_it: str) -> None:
    header = [f"{key}: 1"]
    assert fm_view(header) == yaml_view(header) == {as_yaml_reads_it: 1}


def test_duplicate_key_last_wins_like_yaml() -> None:
    header = ["k: first", "k: second"]
    assert fm_view(header) == yaml_view(header) == {"k": "second"}


# A generator of small headers built from awkward pieces. libyaml and PyYAML's pure
# loader differ on tabs and on `a:` inside flow lists, so neither is generated.
ATOMS = [
    "a", "api", "Search", "x y", "14:30", "9:05", "1.5", "017", "08", "0", "-3", "+5", "1_000", "0x1F", ".5",
    ".inf", "yes", "No", "on", "y", "null", "~", "2026-04-13", "2026-02-30", "2026-04-13 10:00:00",
    "2026-04-13T10:00:00Z", "café", "日本", "it's", 'say "hi"', "a#b", "a #b", "a: b", "a:b", "a:", "-", "- a",
    "-a", "@x", "`x", "!x", "&x", "*x", "%x", "|", ">", "?x", "=", "<<", "(x)", "./p", "/p/q", "a,b", "[a]",
    "{a}", "a]", "12345678", "01234567", "1e3", "...", "--",
]
KEYS = ["session_id", "date", "start_time", "tags", "status", "summary", "schema", "k-1", "_x", "Key", "on", "null", "y"]


def _scalar(r: random.Random) -> str:
    atom = r.choice(ATOMS)
    roll = r.random()
    if roll < 0.15:
        return '"' + atom.replace('"', "") + '"'
    if roll < 0.25:
        return "'" + atom.replace("'", "''") + "'"
    if roll < 0.30:
        return atom + " # note"
    return atom


def _value(r: random.Random) -> str:
    roll = r.random()
    if roll < 0.15:
        items = (_scalar(r) for _ in range(r.randint(0, 3)))
        return "[" + ", ".join(i for i in items if not i.startswith("a:")) + "]"
    return "" if roll < 0.2 else _scalar(r)


def _header(r: random.Random) -> list[str]:
    lines = []
    for _ in range(r.randint(0, 6)):
        roll = r.random()
        if roll < 0.05:
            lines.append("# comment")
        elif roll < 0.08:
            lines.append("")
        elif roll < 0.10:
            lines.append("  indented: x")
        else:
            lines.append(f"{r.choice(KEYS)}: {_value(r)}".rstrip())
    return lines


def test_generated_headers_agree_with_yaml_safe_load() -> None:
    r = random.Random(20260413)
    fast = 0
    disagreements = []
    for _ in range(4000):
        header = _header(r)
        fast += took_fast_path(header)
        if fm_view(header) != yaml_view(header):
            disagreements.append((header, fm_view(header), yaml_view(header)))
    assert disagreements[:5] == []
    assert fast > 600  # the fast path really was exercised, not just the fallback


# -- normalize and dump --------------------------------------------------------------


def test_normalize_turns_dates_into_iso_text_at_any_depth() -> None:
    assert fm.normalize(dt.date(2026, 4, 13)) == "2026-04-13"
    assert fm.normalize(dt.datetime(2026, 4, 13, 9, 5)) == "2026-04-13T09:05:00"
    assert fm.normalize([dt.date(2026, 1, 2), "x", 3]) == ["2026-01-02", "x", 3]
    assert fm.normalize({"when": dt.date(2026, 1, 2), "n": [dt.date(2026, 1, 3)]}) == {
        "when": "2026-01-02", "n": ["2026-01-03"]}


def test_dump_exact_bytes() -> None:
    meta = {"schema": 1, "date": "2026-04-13", "session_id": "01234567", "start_time": "14:30",
            "tags": ["api", "yes"], "summary": "Fixed it: really", "draft": True, "note": None}
    assert fm.dump(meta, "\n## Decisions\n") == (
        "---\n"
        "schema: 1\n"
        "date: 2026-04-13\n"
        'session_id: "01234567"\n'
        'start_time: "14:30"\n'
        'tags: [api, "yes"]\n'
        'summary: "Fixed it: really"\n'
        "draft: true\n"
        "note: \n"
        "---\n"
        "\n## Decisions\n"
    )


ROUND_TRIP = ["14:30", "yes", "017", "a: b", "#x", "line1\nline2", "tab\there", 'say "hi"', "back\\slash", "café",
              "bell\x07", "", " lead", "trail ", "2026-04-13", "plain words", "- a", "@x", "1.5", "it's",
              "a\u2028b", "del\x7f", "\x85nel", "\U0001f600 emoji", "[x]", "a, b", "null", "12"]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_dump_reads_back_exactly_on_both_paths(text: str) -> None:
    meta = {"k": text, "n": 3, "tags": ["a", text]}
    out = fm.dump(meta, "body\n")
    assert out.count("\n") == 6  # every value stayed on its one line
    assert fm.parse(out).meta == meta
    assert yaml_view(out.split("\n")[1:4]) == meta


def test_has_unsafe_agrees_with_the_full_character_class() -> None:
    """The ASCII shortcut must flag exactly what the (lazily compiled) regex flags."""
    import re

    full = re.compile(fm._UNSAFE_CLASS)
    samples = [chr(c) for c in range(0x300)] + ["\u2028", "\u2029", "\ufeff", "\ufffe", "\U0001f600", "\ud800"]
    for ch in samples:
        for text in (ch, f"ab{ch}cd", f"\t{ch}"):
            assert fm.has_unsafe(text) == (full.search(text) is not None), repr(text)


def test_real_dates_agree_with_datetime() -> None:
    import datetime

    for raw in ["2026-02-28", "2026-02-29", "2024-02-29", "1900-02-29", "2000-02-29", "2026-04-31", "2026-13-01",
                "2026-00-10", "2026-01-00", "0000-01-01", "0001-01-01", "9999-12-31", "2026-12-32"]:
        try:
            datetime.date.fromisoformat(raw)
            real = True
        except ValueError:
            real = False
        assert fm._is_real_date(raw) == real, raw
