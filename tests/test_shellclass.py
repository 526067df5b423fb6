"""The shell classifier behind the toolset profiles' Bash rules: what a command line
may do (read, write, push, force push, or unknown), judged from its text alone."""

from __future__ import annotations

import random

import pytest

from enf_git.pure.shellclass import Kind, classify

R, W, U, P, F = Kind.READ, Kind.WRITE, Kind.UNKNOWN, Kind.PUSH, Kind.FORCE_PUSH
CASES = [
    (R, "git log --oneline"), (R, "git diff HEAD~1 -- src/"), (R, "git show HEAD:README.md"),
    (R, "git status --short"), (R, "git blame -L 1,20 setup.py"), (R, "git grep -n TODO"),
    (R, "git branch"), (R, "git branch -a"), (R, "git stash list"), (R, "git remote -v"),
    (R, "git -C sub log -1"), (R, "git --no-pager log -3"), (R, "git config --get user.name"),
    (R, "ls -la"), (R, "cat README.md"), (R, "rg -n 'def main' src"), (R, "grep -r foo . > /dev/null 2>&1"),
    (R, "head -n 20 log.txt | wc -l"), (R, "ls -la | grep foo && wc -l x"), (R, "git status 2>&1 | head"),
    (R, "FOO=1 git diff"), (R, "echo x >/dev/null"), (R, "sed s/a/b/ f"), (R, "find . -name '*.py'"),
    (R, "cat < input.txt"), (R, "env"), (R, "pwd; date"), (R, "(cd src && ls)"), (R, "echo $(git rev-parse HEAD)"),
    (W, "git log > out.txt"), (W, "git log >> out.txt"), (W, "echo hi | tee notes.txt"), (W, "rm -rf build"),
    (W, "mv a b"), (W, "sed -i s/a/b/ f"), (W, "git commit -m wip"), (W, "git reset --hard HEAD~1"),
    (W, "git checkout main"), (W, "git branch -D x"), (W, "find . -name '*.pyc' -delete"),
    (W, "find . -name '*.tmp' -exec rm {} \\;"), (W, "cat <<EOF > f\nhi\nEOF"), (W, "ls $(rm -rf x)"),
    (W, "cat `touch x`"), (W, "xargs rm"), (W, "bash -c 'rm x'"), (W, "pip install requests"),
    (W, "npm install"), (W, "touch a && ls"), (W, "ls; mkdir out"), (W, "ls &> all.log"),
    (U, "python -c 'print(1)'"), (U, "./deploy.sh"), (U, "frobnicate --all"), (U, "bash <<EOF\nls\nEOF"),
    (P, "git push origin main"), (P, "git push"), (P, "git push -u origin feature"),
    (F, "git push --force origin main"), (F, "git push -f"), (F, "git push --force-with-lease"),
    (F, "git push origin +main"), (F, "git push origin :old"), (F, "git push --mirror backup"),
    (F, "git push origin --delete old"), (F, "sudo -u u git push -f"), (F, "ls && git push -f origin x"),
]


@pytest.mark.parametrize(("kind", "command"), CASES, ids=[c for _, c in CASES])
def test_each_command(kind: Kind, command: str) -> None:
    assert classify(command).kind is kind


def test_a_denial_reason_names_the_part_that_writes() -> None:
    v = classify("git status && rm -rf build")
    assert v.reason == "`rm -rf build` deletes files"
    assert not v.read_only and not v.pushes
    assert classify("git push origin main").pushes and classify("git log").read_only


def test_unknown_is_never_read_only_and_never_a_push() -> None:
    v = classify("./deploy.sh")
    assert not v.read_only and not v.pushes


@pytest.mark.parametrize("seed", range(20))
def test_a_write_joined_to_anything_is_never_read(seed: int) -> None:
    rng = random.Random(seed)
    writes = [c for k, c in CASES if k is not R and "\n" not in c]
    reads = [c for k, c in CASES if k is R]
    w, r = rng.choice(writes), rng.choice(reads)
    joins = [f"{r}; {w}", f"{w} && {r}", f"{r} | {w}", f"{r} $({w})", f"{r} || {w}", f"({w})", f"{r}\n{w}"]
    if "`" not in w:  # unescaped backticks do not nest in the shell either
        joins.append(f"{r} `{w}`")
    for joined in joins:
        assert classify(joined).kind is not R, joined
