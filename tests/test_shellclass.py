"""The shell classifier behind the toolset profiles' Bash rules: what a command line
may do (read, write, push, force push, or unknown), judged from its text alone."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git.pure.shellclass import NAMES, Kind, classify

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
def test_each_command(kind: int, command: str) -> None:
    assert classify(command).kind == kind


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
    writes = [c for k, c in CASES if k != R and "\n" not in c]
    reads = [c for k, c in CASES if k == R]
    w, r = rng.choice(writes), rng.choice(reads)
    joins = [f"{r}; {w}", f"{w} && {r}", f"{r} | {w}", f"{r} $({w})", f"{r} || {w}", f"({w})", f"{r}\n{w}"]
    if "`" not in w:  # unescaped backticks do not nest in the shell either
        joins.append(f"{r} `{w}`")
    for joined in joins:
        assert classify(joined).kind != R, joined


def test_kinds_are_plain_ints_with_the_names_profiles_use() -> None:
    assert [NAMES[k] for k in (R, W, U, P, F)] == ["read", "write", "unknown", "push", "force-push"]
    assert classify("git push -f").name == "force-push" and classify("ls").name == "read"
    assert repr(classify("ls")) == "Verdict(read, 'ls', 'reads only')"


SED_AWK = [
    (R, "sed -n '1,5p' f"), (R, "sed -e 's/a/b/g' -e '/^#/d' f"), (R, "sed 's|/usr|/opt|g' f"),
    (R, "sed -n '/start/,/end/{p;}' f"), (R, "sed '$a\\\\' f"), (R, "sed 'y/abc/xyz/' f"),
    (W, "sed -n 'w out.txt' f"), (W, "sed 's/a/b/w out.txt' f"), (W, "sed 's|a|b|w out' f"),
    (W, "sed '/x/,/y/w out' f"), (W, "sed 's/.*/date/e' f"), (W, "sed '1e touch x' f"), (W, "sed -i.bak s/a/b/ f"),
    (R, "awk '{print $1}' f"), (R, "awk -F: '/a|b/ {print $1}' f"), (R, "awk '{printf \"%s|%s>\\n\", $1, $2}' f"),
    (R, "awk 'NR > 1 && $3 > 10' f"), (R, "awk '$1 == 1 || $2 == 2 {print}' f"),
    (U, "awk '{print > \"out\"}' f"), (U, "awk '{print $1 >> $2}' f"), (U, "awk 'BEGIN{c=\"rm x\"; print \"\" | c}'"),
    (U, "awk '{ system (\"rm \" $1) }' f"), (U, "awk 'BEGIN{\"date\" | getline d}'"), (U, "awk -f prog.awk f"),
    (W, "gawk -i inplace '{print}' f"),
]


@pytest.mark.parametrize(("kind", "command"), SED_AWK, ids=[c for _, c in SED_AWK])
def test_sed_and_awk_scripts_are_read_for_what_they_do(kind: int, command: str) -> None:
    assert classify(command).kind == kind


def test_importing_the_classifier_loads_no_costly_module() -> None:
    """It runs in the per-call hook: enum, re, typing or dataclasses would be paid on every tool call."""
    code = ("import sys; before = set(sys.modules); import enf_git.pure.shellclass as s; "
            "s.classify(\"git log | sed -n 's/a/b/p' | awk '{print $1}' > /dev/null\"); "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(Path(__file__).resolve().parents[1])}).stdout.split()
    assert not {"enum", "re", "typing", "dataclasses", "collections", "functools"} & set(out), out


CODE_RUNNING = [
    (U, "LD_PRELOAD=./hook.so ls"), (U, "GIT_PAGER='sh -c \"rm x\"' git log"), (R, "GIT_PAGER=cat git log"),
    (U, "PATH=./bin:$PATH ls"), (U, "export PATH=./node_modules/.bin:$PATH; ls"), (U, "env LESSOPEN='|rm x' less f"),
    (R, "export PATH=\"$HOME/.local/bin:$PATH\""), (R, "env -i PATH=/usr/bin ls"),
    (U, "git -c core.pager='rm -rf x' log"), (U, "git -c diff.foo.textconv=./conv diff"),
    (U, "git --exec-path=/tmp/bin log"), (R, "git -c color.ui=always log"), (W, "git -c user.name=bot commit -m x"),
    (F, "git -c core.sshCommand='ssh -i k' push -f"), (F, "GIT_SSH_COMMAND='ssh -i k' git push --force"),
    (P, "git subtree push --prefix dist origin gh-pages"),
    (W, "trap 'rm -f \"$tmp\"' EXIT"), (R, "trap - EXIT"), (R, "trap -p"), (W, "history -c"), (R, "history 20"),
    (W, "ip link set eth0 down"), (R, "ip -br addr"), (W, "watch 'rm -f x'"), (R, "watch -n 1 ls"),
    (W, "watch -x rm x"), (W, "systemctl restart nginx"), (R, "systemctl status nginx"), (W, "crontab -r"),
    (R, "crontab -l"), (U, "openssl req -new -key k.pem -out csr.pem"), (R, "openssl x509 -in c.pem -noout -dates"),
    (R, "[ -f x ] && cat x"), (R, "kubectl rollout status deploy/web"), (W, "kubectl rollout undo deploy/web"),
    (U, "x='a[$(touch f)]'; echo $((x))"), (U, "x=$'a[\\x24(touch f)]'; echo $((x))"), (U, "printf -v x %s y"),
    (R, "x=$(git rev-parse HEAD); echo $x"), (R, "i=$((i + 1))"),
]


@pytest.mark.parametrize(("kind", "command"), CODE_RUNNING, ids=[c for _, c in CODE_RUNNING])
def test_settings_and_builtins_that_run_other_code(kind: int, command: str) -> None:
    """Pagers, loaders, git -c keys, traps and watch can turn a read into arbitrary code."""
    assert classify(command).kind == kind


def test_the_rarer_programs_rules_are_all_reachable() -> None:
    """shellclass sends exactly these names to shellprograms.py: a name in one list and not
    the other would be judged as an unknown program, or never loaded."""
    from enf_git.pure import shellclass, shellprograms

    assert set(shellprograms.HANDLERS) == shellclass._MORE_PROGRAMS
    assert not set(shellprograms.HANDLERS) & set(shellclass._HANDLERS)
    assert shellclass.classify("kubectl get pods").name == "read"
    assert shellclass.classify("python3 -m pip install requests").name == "write"
