"""The documentation keeps up with the code: the README stays a short tour, every command
and every setting is documented under docs/, and no link leads nowhere.

- every `git enf` command and subcommand (click's tree from `enf_git.cli.app.main`, groups
  included) is named as `git enf <name>` on some docs/ page;
- every `enf.*` key the code reads (string constants such as `"enf.trust"`, the prefixes
  `"enf.ttl."` and `"enf.budget."`, the per-prompt switches read by
  `fastconfig.flag(config, "brainFirst", …)`, and the keys the git hook shims read with
  `git config`) is in docs/configuration.md, and a setting another page tabulates has the
  same default there;
- every relative link in README.md and docs/*.md leads to a file that exists, and a
  `#anchor` to a heading of it (GitHub's slugs);
- README.md is at most 250 lines.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from enf_git.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONFIG_PAGE = DOCS / "configuration.md"
README_MAX_LINES = 250
KEY = re.compile(r"enf\.[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*\.?")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def docs_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md")))


# --- commands ----------------------------------------------------------------------------

def command_names(group: click.Command = main, prefix: tuple[str, ...] = ()) -> Iterator[str]:
    """`instincts`, `instincts list`, …: every command under `git enf`, groups included."""
    if isinstance(group, click.Group):
        for name, sub in group.commands.items():
            if sub.hidden:
                continue
            yield " ".join((*prefix, name))
            yield from command_names(sub, (*prefix, name))


def undocumented_commands(text: str) -> list[str]:
    return [name for name in command_names()
            if not re.search(rf"git enf {re.escape(name)}(?![\w-])", text)]


def test_the_command_tree_is_walked() -> None:
    names = set(command_names())
    assert {"init", "recall", "instincts", "instincts forget", "trust review"} <= names


def test_every_command_is_documented_in_docs() -> None:
    assert undocumented_commands(docs_text()) == []


def test_a_command_missing_from_the_docs_is_caught() -> None:
    text = re.sub(r"git enf trust review", "git enf trust", docs_text())
    assert undocumented_commands(text) == ["trust review"]
    assert "pin" in undocumented_commands(re.sub(r"git enf pin(?![\w-])", "", docs_text()))


# --- settings ----------------------------------------------------------------------------

_SHELL_CONFIG = re.compile(r"git config (?:--[a-z]+ )*(" + KEY.pattern + ")")


def settings_read_by_code() -> dict[str, str]:
    """Each `enf.*` key (or key prefix, ending in a dot) the package reads -> where."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "enf_git").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=where)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if KEY.fullmatch(node.value):  # "enf.trust", "enf.ttl." (+ category)
                    found.setdefault(node.value, f"{where}:{node.lineno}")
                for m in _SHELL_CONFIG.finditer(node.value):  # the git hook shims' `git config --bool enf.ci`
                    found.setdefault(m.group(1), f"{where}:{node.lineno}")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "flag"
                  and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                  and isinstance(node.args[1].value, str)):  # fastconfig.flag(config, "brainFirst", True)
                found.setdefault(f"enf.{node.args[1].value}", f"{where}:{node.lineno}")
    return found


def missing_settings(text: str) -> list[str]:
    out = []
    for key in sorted(settings_read_by_code()):
        # a prefix (enf.ttl.) is documented as `enf.ttl.<category>`; a key must not match a longer one
        pattern = re.escape(key) if key.endswith(".") else re.escape(key) + r"(?![\w.])"
        if not re.search(pattern, text):
            out.append(key)
    return out


def test_the_code_is_scanned_for_settings() -> None:
    keys = settings_read_by_code()
    assert {"enf.trust", "enf.remote", "enf.brainFirst", "enf.skillHints", "enf.ttl.", "enf.budget.",
            "enf.ci", "enf.workingSet", "enf.autoinit"} <= set(keys), keys


def test_every_setting_the_code_reads_is_in_the_configuration_page() -> None:
    assert missing_settings(CONFIG_PAGE.read_text(encoding="utf-8")) == []


def test_a_setting_missing_from_the_configuration_page_is_caught() -> None:
    text = CONFIG_PAGE.read_text(encoding="utf-8").replace("enf.skillHints", "enf.skill")
    assert missing_settings(text) == ["enf.skillHints"]


_ROW = re.compile(r"^\| `(enf\.[^`]+)`[^|]*\| ([^|]+) \|", re.M)


def test_a_setting_has_one_default_wherever_it_is_tabulated() -> None:
    config = dict(_ROW.findall(CONFIG_PAGE.read_text(encoding="utf-8")))
    for page in sorted(DOCS.glob("*.md")):
        for key, default in _ROW.findall(page.read_text(encoding="utf-8")):
            assert config.get(key) == default, f"{page.name}: {key} defaults to {default}, configuration.md: {config.get(key)}"


# --- links -------------------------------------------------------------------------------

_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"(?<!!)\[(?:[^\]`]|`[^`]*`)*\]\(([^)\s]+)\)")


def prose(text: str) -> Iterator[str]:
    """The lines outside fenced code blocks."""
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            yield line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed,
    spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose(path.read_text(encoding="utf-8")):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(path: Path) -> list[str]:
    out = []
    for line in prose(path.read_text(encoding="utf-8")):
        line = re.sub(r"`[^`]*`", lambda m: "" if "](" not in m.group(0) else m.group(0), line)
        for target in _LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                out.append(f"{path.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                out.append(f"{path.name}: {target} (no such heading)")
    return out


def test_the_slugs_are_githubs() -> None:
    assert slug("Guarantees (each one is a test)") == "guarantees-each-one-is-a-test"
    assert slug("`git enf status`, `commit`, `restore`") == "git-enf-status-commit-restore"
    assert slug("Set-up (two commands)") == "set-up-two-commands"


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    assert broken_links(page) == []


def test_a_broken_link_is_caught(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Here it is\n\n```\n# not a heading\n```\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#here-it-is) [gone](gone.md) [bad](there.md#not-a-heading) "
                    "[self](#nowhere) [web](https://example.com)\n")
    assert broken_links(page) == ["page.md: gone.md (no such file)", "page.md: there.md#not-a-heading (no such heading)",
                                  "page.md: #nowhere (no such heading)"]


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [p.name for p in sorted(DOCS.glob("*.md")) if f"(docs/{p.name}" not in readme] == []


# --- the README --------------------------------------------------------------------------

def test_the_readme_is_a_short_tour() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines: move reference to docs/"
