"""`git enf recall WORD` on a 10,000-session claude-memory branch vs `git grep -n WORD claude-memory`.

Warm: the recall index (.git/enf/search.db) is already built for the branch tip (one
recall runs before timing), so git-enf answers on its stdlib-only fast path.
Goal: recall / git grep <= 1.0, for a WORD in a handful of sessions and one in many.
A question row ("how much did the postgres migration cost", QUESTION) times the weak
rule's signal of meaning too (asks.py: the windows of the first results are read for an
amount), against `git grep` for its rarest word; it has no goal of its own.
The cold run (index build, full CLI) is reported once.

It measures the enf_git beside this script (first on PYTHONPATH, byte-compiled), not
whatever the venv has installed: a worktree's benchmark measures that worktree.

Run: .venv/bin/python bench/recall_10k.py [--quick] [--keep]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import common

FAST_PATH_PROBE = (
    "import sys; sys.argv = ['git-enf', 'recall', sys.argv[1]]\n"
    "from enf_git.entry import main; main()\n"
    "heavy = sorted(m for m in ('pygit2', 'click', 'yaml', 'frontmatter') if m in sys.modules)\n"
    "print('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
)


REPO_ROOT = common.BENCH_DIR.parent
QUESTION = f"how much did the {common.COMMON_WORD} migration cost"  # asks for an amount: reads the first results' windows


def main() -> int:
    sys.path.insert(0, str(REPO_ROOT))  # so common.hermetic() byte-compiles this checkout's enf_git
    return common.fixture_main("recall", __doc__, 21, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    os.environ["PYTHONPATH"] = str(REPO_ROOT)  # hermetic() dropped the caller's; every child uses this one
    common.header("recall_10k", sessions=n, repetitions=reps, objects="loose" if args.loose else "packed",
                  git_enf=common.GIT_ENF)
    repo = common.init_user_repo(work / "repo")
    common.seed_branch(repo, n, pack=not args.loose)
    common.run_enf(repo, "init")
    # One real commit so the branch has rendered views (index/topics/decisions) like in use.
    common.touch_session(common.newest_session_path(repo), 0)
    common.run_enf(repo, "commit", "-m", "render views")
    print(f"fixture: {n} sessions + views; '{common.RARE_WORD}' in {count_files(repo, common.RARE_WORD)} files, "
          f"'{common.COMMON_WORD}' in {count_files(repo, common.COMMON_WORD)} files of claude-memory")

    cold = common.time_cmd([common.GIT_ENF, "recall", common.RARE_WORD], repo)
    db = repo / ".git" / "enf" / "search.db"
    with sqlite3.connect(db) as con:
        docs = con.execute("SELECT kind, count(*) FROM docs GROUP BY kind ORDER BY kind").fetchall()
    print(f"COLD recall (builds search.db, full CLI): {cold * 1000:.0f} ms; "
          f"index {db.stat().st_size / 1e6:.1f} MB, docs {dict(docs)}")

    # The warm path must be the stdlib-only one; say so if it is not.
    probe = subprocess.run([common.PYTHON, "-c", FAST_PATH_PROBE, common.RARE_WORD], cwd=repo,
                           capture_output=True, check=False, text=True)
    heavy = next((ln[6:] for ln in probe.stderr.splitlines() if ln.startswith("HEAVY=")), "?")
    print(f"warm path imports of pygit2/click/yaml/frontmatter: {heavy or 'none'}")
    if heavy:
        print("WARNING: warm recall is not on the stdlib fast path (index tip != branch tip?)")

    plain = plain_install(work)
    for word in (common.RARE_WORD, common.COMMON_WORD, QUESTION):
        grep_word = common.COMMON_WORD if word == QUESTION else word
        cmds = {
            "recall": [common.GIT_ENF, "recall", *word.split()],
            "grep": [common.GIT, "grep", "-n", grep_word, "claude-memory"],
            "pass": [common.PYTHON, "-c", "pass"],
            "plain": [str(plain), "recall", *word.split()],
            "plainpass": [str(plain.parent / "python"), "-c", "pass"],
        }
        for argv in cmds.values():  # warm-up (page cache), not counted
            common.time_cmd(argv, repo)
        times: dict[str, list[float]] = {name: [] for name in cmds}
        names = list(cmds)
        for k in range(reps):
            order = names[k % len(names):] + names[: k % len(names)]  # rotate who goes first
            for name in order:
                times[name].append(common.time_cmd(cmds[name], repo))
        hits = subprocess.run(cmds["recall"], cwd=repo, capture_output=True, check=False, text=True).stdout.count("→ git enf show")
        lines = len(subprocess.run(cmds["grep"], cwd=repo, capture_output=True, check=False).stdout.splitlines())
        print(f"-- WORD={word!r}: recall prints {hits} hits, git grep prints {lines} lines")
        print(f"   git-enf recall {word:<10}             N={reps}: {common.spread_ms(times['recall'])}")
        print(f"   git grep -n {grep_word:<13}             N={reps}: {common.spread_ms(times['grep'])}")
        print(f"   python -c pass (this venv: editable)    N={reps}: {common.spread_ms(times['pass'])}")
        print(f"   git-enf recall, regular-install layout  N={reps}: {common.spread_ms(times['plain'])}")
        print(f"   python -c pass, regular-install layout  N={reps}: {common.spread_ms(times['plainpass'])}")
        goal = None if word == QUESTION else 1.0
        common.ratio_report(f"recall/git-grep[{word}]", times["recall"], times["grep"], goal=goal)
        common.ratio_report(f"recall-regular-install/git-grep[{word}]", times["plain"], times["grep"], goal=goal)
        common.ratio_report(f"python-c-pass/git-grep[{word}] (floor, editable venv)", times["pass"], times["grep"])
        common.ratio_report(f"python-c-pass/git-grep[{word}] (floor, regular install)", times["plainpass"], times["grep"])
    return 0


def plain_install(work: Path) -> Path:
    """The same git-enf script, run by a venv without the editable-install finder.

    `pip install -e` adds a .pth whose import hook (pathlib, re, importlib.util...)
    runs at every interpreter start; a regular wheel install has none. This venv
    reaches the same sources and dependencies through plain .pth path lines, which
    cost nothing, so the difference between the two rows is the dev-install tax.
    """
    import site
    import sysconfig

    venv = work / "plain-venv"
    subprocess.run([common.PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"])
    src = Path(common.__file__).resolve().parent.parent  # the checkout holding enf_git/
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "enf_plain.pth").write_text("\n".join([str(src), *deps]) + "\n", encoding="utf-8")
    script = venv / "bin" / "git-enf"
    text = Path(common.GIT_ENF).read_text(encoding="utf-8").split("\n", 1)[1]
    script.write_text(f"#!{venv / 'bin' / 'python'}\n{text}", encoding="utf-8")
    script.chmod(0o755)
    return script


def count_files(repo: Path, word: str) -> int:
    out = subprocess.run([common.GIT, "grep", "-l", word, "claude-memory"], cwd=repo, capture_output=True, check=False)
    return len(out.stdout.splitlines())


if __name__ == "__main__":
    sys.exit(main())
