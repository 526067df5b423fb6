"""Weigh shell parsers for the Bash classifier: our lexer vs shlex vs bashlex vs tree-sitter-bash.

The toolset profiles ask, on every Bash call in the PreToolUse hook, whether a command
line only reads. Four ways to find its commands, each followed by the same judgement of
programs and flags (`shellclass._program`, so only the parsing differs):

- ours: `enf_git.pure.shellclass.classify` (its own lexer: quotes, `$( )`, backticks,
  here-docs, redirections, sh -c).
- shlex: `shlex.shlex(punctuation_chars=True)`, split naively on `; & | ( )` and
  newlines; `>`/`>>` take the next token as their target. No substitutions, no here-docs.
- bashlex: its AST; every CommandNode (substitutions included) is judged, with its
  RedirectNodes. Anything bashlex raises on is a parse failure.
- tree-sitter-bash: every `command` node (substitutions included), `file_redirect`
  targets, `declaration_command`s. A tree with an ERROR node is a parse failure.

A parse failure counts as UNKNOWN (never read-only), as in the hook.

Figures (633-line corpus, tests/data/shell/corpus.jsonl: 282 read, 351 not, 74 of
them pushes; two runs of 60 interleaved repetitions on a shared 2-core machine, which
agreed to within 0.1x; ratios only):

    parser            writes read-only  reads denied  parse failures  pushes missed  classify time  import -S  import site
    ours                   0/351           0/282            0             0/74           1.00x        1.12x       1.05x
    shlex                  1/351          10/282            0             0/74           1.20x        2.0x        1.07x
    bashlex 0.18           1/351           5/282            7             0/74           6.4x        13.4x        5.3x
    tree-sitter-bash 0.25  0/351           0/282            0             0/74           1.1x         4.1x        1.60x

"import" is the whole process (`python -c "import …; parse one line"`) as the median of
paired ratios to `python -c pass` in the same repetition, the order rotated each time.
"-S" runs without site, with the checkout and site-packages on PYTHONPATH: what a module
imports is then paid in full, as in an installed (not editable) copy. "site" runs as
this venv's interpreter does, where the editable-install finder has already loaded re,
enum and pathlib, so it hides part of the cost. "classify time" is the in-process time
for the whole corpus relative to ours.

Reading the figures:
- shlex is cheap only where re and enum are already loaded; it is blind to quoted
  substitutions (`echo "$(touch marker)"` passes as a read) and to here-docs, loops,
  `[[ ]]`, `<( )` and `$(( ))`, which it denies.
- bashlex misses a substitution inside a here-doc body (`cat <<EOF` … `$(rm -rf …)`
  passes as a read), cannot parse `time`, `[[ ]]`, `$(( ))`, quoted here-doc delimiters
  or `"$(… || …)"` (7 lines), and costs 5x a bare start with site (13x without): it
  imports enum, re, collections and builds its yacc tables at import.
- tree-sitter-bash is as exact as ours on this corpus and as fast per line, but loading
  the native grammar makes the process 1.6x a bare start (4.1x without site): beyond the
  hook's 1.3x budget on its own, before the hook does anything else.
So we keep our own lexer. tree-sitter-bash would make a good differential oracle in
tests (same verdicts on generated lines) if the corpus ever stops being enough.

The adapters lose quoting: a parser-built word carries the substitutions the parser
found, so the arithmetic check (a quoted `$(…)` stored in a variable) is judged more
kindly for the other parsers than for ours.

    python bench/shell_classifier.py [--reps N] [--verbose]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from enf_git.pure import shellclass as sc  # noqa: E402 - after the path fix-up above

CORPUS = ROOT / "tests" / "data" / "shell" / "corpus.jsonl"
Result = tuple[int, bool]  # (kind, parse failed)
PROBE = "git log --oneline | head -5 2>/dev/null"


# --- judging a command the same way for every parser -------------------------------------------

def _token(text: str, kind: str = "word") -> Any:
    tok = sc._Token(kind, text, 0, 0)
    tok.expands = any(c in text for c in "$`*?") or ("[" in text and text != "[")
    # the parser found (and judges) the commands inside; record them so an assignment such as
    # `x=$(git rev-parse HEAD)` is not mistaken for a stored, quoted substitution
    try:
        tok.subs = sc._substitutions(text) if "$(" in text or "`" in text else []
    except sc._LexError:
        pass  # a fragment split off by a naive parser: nothing to record
    return tok


def _judge(words: list[str], redirs: list[tuple[str, str]], segment: str) -> int:
    """The worst kind of one simple command's program and its redirections."""
    kinds = [sc.Kind.READ]
    if words:
        kinds.append(sc._program([_token(w) for w in words], segment, 0, False).kind)
    for op, target in redirs:
        op_tok = _token(op, "redir")
        op_tok.heredoc = op.startswith("<<") and op != "<<<"
        kinds.append(sc._redirection_verdict(op_tok, _token(target) if target else None, segment).kind)
    return max(kinds)


# --- parsers ----------------------------------------------------------------------------------------

def ours(command: str) -> Result:
    verdict = sc.classify(command)
    return verdict.kind, verdict.reason.startswith("cannot be parsed")


_SPLIT = {";", "&", "|", "&&", "||", "(", ")", "\n", ";;", "|&"}
_REDIR = {">", ">>", "<", "&>", ">&", "&>>", ">|", "<<", "<<<", "<>"}


def shlex_baseline(command: str) -> Result:
    try:
        lex = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>\n")
        lex.whitespace = " \t\r"
        lex.whitespace_split = True
        tokens = list(lex)
    except ValueError:
        return sc.Kind.UNKNOWN, True
    kinds: list[int] = [sc.Kind.READ]
    words: list[str] = []
    redirs: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _SPLIT or set(tok) <= set(";&|()\n"):
            kinds.append(_judge(words, redirs, command))
            words, redirs = [], []
        elif tok in _REDIR:
            redirs.append((tok, tokens[i + 1] if i + 1 < len(tokens) else ""))
            i += 1
        else:
            words.append(tok)
        i += 1
    kinds.append(_judge(words, redirs, command))
    return max(kinds), False


def _bashlex() -> Callable[[str], Result] | None:
    if importlib.util.find_spec("bashlex") is None:
        return None
    import bashlex  # type: ignore[import-untyped]

    def classify(command: str) -> Result:
        try:
            trees = bashlex.parse(command)
        except Exception:  # noqa: BLE001 - ParsingError, NotImplementedError, and the odd IndexError
            return sc.Kind.UNKNOWN, True
        return max([sc.Kind.READ, *(_bashlex_command(node, command) for node in _bashlex_nodes(trees))]), False

    return classify


def _bashlex_nodes(trees: list[Any]) -> Iterator[Any]:
    stack = list(trees)
    while stack:
        node = stack.pop()
        if node.kind == "command":
            yield node
        for name in ("parts", "list", "command", "output"):
            child = getattr(node, name, None)
            if isinstance(child, list):
                stack.extend(child)
            elif child is not None and hasattr(child, "kind"):
                stack.append(child)


def _bashlex_command(node: Any, command: str) -> int:
    words = [p.word for p in node.parts if p.kind in ("word", "assignment")]
    redirs = [(p.type, getattr(p.output, "word", str(p.output))) for p in node.parts if p.kind == "redirect"]
    return _judge(words, redirs, command)


def _tree_sitter() -> Callable[[str], Result] | None:
    if importlib.util.find_spec("tree_sitter") is None or importlib.util.find_spec("tree_sitter_bash") is None:
        return None
    import tree_sitter
    import tree_sitter_bash

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))

    def classify(command: str) -> Result:
        root = parser.parse(command.encode()).root_node
        if root.has_error:
            return sc.Kind.UNKNOWN, True
        return max([sc.Kind.READ, *(_ts_node(node, command) for node in _ts_walk(root))]), False

    return classify


def _ts_walk(node: Any) -> Iterator[Any]:
    yield node
    for child in node.children:
        yield from _ts_walk(child)


def _ts_node(node: Any, command: str) -> int:
    if node.type in ("command", "declaration_command"):
        words = [_ts_text(c) for c in node.named_children if c.type != "file_redirect"]
        return _judge(words, [], command)
    if node.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
        op = next((c.text.decode() for c in node.children if not c.is_named), "<<")
        named = [c for c in node.named_children if c.type != "file_descriptor"]
        return _judge([], [(op, _ts_text(named[0]) if named else "")], command)
    return sc.Kind.READ


def _ts_text(node: Any) -> str:
    """A word's text with quotes removed, as the shell would pass it."""
    text: str = node.text.decode()
    if node.type == "command_name" and node.named_children:
        return _ts_text(node.named_children[0])
    if node.type == "variable_assignment" and len(node.named_children) == 2:
        name, value = node.named_children
        return f"{name.text.decode()}={_ts_text(value)}"
    if node.type in ("raw_string", "string"):
        return text[1:-1]
    if node.type == "concatenation":
        return "".join(_ts_text(c) for c in node.children)
    if node.type == "word":
        out, i = [], 0
        while i < len(text):
            out.append(text[i + 1] if text[i] == "\\" and i + 1 < len(text) else text[i])
            i += 2 if text[i] == "\\" else 1
        return "".join(out)
    return text


# --- correctness -----------------------------------------------------------------------------------

def load_corpus() -> list[dict[str, str]]:
    return [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line]


def score(name: str, classify: Callable[[str], Result], rows: list[dict[str, str]], verbose: bool) -> dict[str, Any]:
    counts: dict[str, float] = {"writes_read": 0, "reads_denied": 0, "failures": 0, "pushes_missed": 0}
    t0 = time.perf_counter()
    for row in rows:
        kind, failed = classify(row["command"])
        label = row["label"]
        misses = {"writes_read": label != "read" and kind == sc.Kind.READ,
                  "reads_denied": label == "read" and kind != sc.Kind.READ,
                  "failures": failed,
                  "pushes_missed": label in ("push", "force-push") and kind < sc.Kind.PUSH}
        for key, missed in misses.items():
            counts[key] += missed
            if missed and verbose:
                print(f"  {name}: {key}: {row['command']!r} -> {sc.NAMES[kind]}")
    counts["seconds"] = time.perf_counter() - t0
    return counts


# --- import cost ------------------------------------------------------------------------------------

IMPORTS = {
    "ours": f"import enf_git.pure.shellclass as s; s.classify({PROBE!r})",
    "shlex": f"import shlex, enf_git.pure.shellclass; shlex.split({PROBE!r})",
    "bashlex": f"import bashlex, enf_git.pure.shellclass; bashlex.parse({PROBE!r})",
    "tree-sitter-bash": ("import tree_sitter as t, tree_sitter_bash as b, enf_git.pure.shellclass; "
                         f"t.Parser(t.Language(b.language())).parse({PROBE!r}.encode())"),
}


def import_ratios(names: list[str], reps: int, no_site: bool) -> dict[str, float]:
    """Median over repetitions of (subject process / `python -c pass`), order rotated each time."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if no_site:
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), sysconfig.get_paths()["purelib"],
                                             sysconfig.get_paths()["platlib"]])
    flags = ["-S"] if no_site else []
    subjects = ["pass", *names]
    ratios: dict[str, list[float]] = {n: [] for n in names}
    for rep in range(reps):
        order = subjects[rep % len(subjects):] + subjects[:rep % len(subjects)]
        times = {n: _time([sys.executable, *flags, "-c", IMPORTS.get(n, "pass")], env) for n in order}
        for n in names:
            ratios[n].append(times[n] / times["pass"])
    return {n: statistics.median(r) for n, r in ratios.items()}


def _time(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, cwd=ROOT)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--verbose", action="store_true", help="list every miss")
    args = ap.parse_args()
    import compileall

    compileall.compile_dir(str(ROOT / "enf_git"), quiet=1)  # as pip install would; children write nothing
    parsers = {"ours": ours, "shlex": shlex_baseline, "bashlex": _bashlex(), "tree-sitter-bash": _tree_sitter()}
    present = {n: p for n, p in parsers.items() if p is not None}
    for name in parsers.keys() - present.keys():
        print(f"{name}: not installed, skipped")
    rows = load_corpus()
    reads = sum(r["label"] == "read" for r in rows)
    pushes = sum(r["label"] in ("push", "force-push") for r in rows)
    print(f"corpus: {len(rows)} lines, {reads} read, {len(rows) - reads} not; {os.cpu_count()} cpu, "
          f"loadavg {' '.join(f'{x:.2f}' for x in os.getloadavg())}, N={args.reps}")
    scores = {n: score(n, p, rows, args.verbose) for n, p in present.items()}
    bare = import_ratios(list(present), args.reps, no_site=True)
    site = import_ratios(list(present), args.reps, no_site=False)
    print(f"{'parser':<18}{'writes read-only':>18}{'reads denied':>14}{'parse failures':>16}{'pushes missed':>15}"
          f"{'classify time':>15}{'import (-S)':>13}{'import (site)':>15}")
    base = scores["ours"]["seconds"]
    for n, s in scores.items():
        print(f"{n:<18}{s['writes_read']:>12}/{len(rows) - reads:<5}{s['reads_denied']:>8}/{reads:<5}"
              f"{s['failures']:>16}{s['pushes_missed']:>12}/{pushes:<3}{s['seconds'] / base:>14.2f}x"
              f"{bare[n]:>12.2f}x{site[n]:>14.2f}x")


if __name__ == "__main__":
    main()
