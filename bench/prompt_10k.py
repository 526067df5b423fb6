"""UserPromptSubmit with brain-first pointers and skill suggestions, at 10,000 sessions and
200 installed skills, vs `python -c pass` (goal <= 1.5).

The fixture: the shared 10,000-session branch (common.py), `git enf init`, one rendering
commit, the pointers file built (`indexer.refresh_pointers`, what the background refresh
after SessionStart writes), this session's own file in the working copy (mid-session: no
gate reminder), and 200 skills (140 in the project's `.claude/skills`, 60 personal). The
prompt is one a user would type that gets both pointers and a skill hint; the script
checks it does before timing.

Rows, each one whole hook process (`python -c LAUNCH user-prompt-submit`, the command
`git enf init` registers), interleaved with the baseline, rotating who goes first:
  both          brain-first + skill hints (the defaults): the goal row
  brain-first   enf.skillHints=false
  skills        enf.brainFirst=false
  neither       both off (the session file check and the state save alone)
  skills-cold   both on, the skills index deleted before each run (an inline rebuild)
The switches come from a global git config per row (GIT_CONFIG_GLOBAL), which the hook
reads as git would. The session's hook state is restored before each run, so every run
sees the same second prompt of a session (no pointer already shown, no heartbeat).

The hook runs from a regular-install layout: a venv without the editable-install finder
that reaches this checkout's enf_git through a plain .pth line (recall_10k.py's
plain_install), so the baseline is not inflated by the dev install's import hook.

Run: .venv/bin/python bench/prompt_10k.py [--quick] [--reps N] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common

REPO_ROOT = common.BENCH_DIR.parent
SID = "b1c2d3e4-0000-4000-8000-000000000000"
SKILLS = 200
PERSONAL = 60
# Words memory holds (common.py's vocabulary and its rare word), so pointers pass the weak rule;
# two of them name a skill.
PROMPT = "Why is zanzibar in the worktree schema? The query latency of its index is too slow."
MATCH = ("query-latency", "Profile a slow query: read its plan, measure its latency and suggest a better index")
GOAL = 1.5
_ACTIONS = ("audit", "build", "check", "draft", "export", "format", "generate", "lint", "migrate", "plan",
            "review", "scaffold", "sync", "triage", "upgrade", "validate", "write", "deploy", "summarize", "convert")
_NOUNS = ("blog", "changelog", "carousel", "invoice", "pdf", "docker", "release", "schema", "api", "css", "i18n",
          "a11y", "terraform", "helm", "k8s", "log", "security", "seo", "email", "newsletter", "slides", "figma",
          "storybook", "graphql", "webhook", "cron", "backup", "cdn", "dns", "oauth", "sso", "billing", "pricing",
          "onboarding", "survey", "roadmap", "okr", "incident", "postmortem", "runbook")
_POOL = """
article page site content copy headline outline brief audience tone voice brand style guide template component
layout grid responsive mobile desktop image video asset icon font color theme palette contrast screen reader
keyboard focus markup form field input button modal dialog table chart graph dashboard metric report export
import spreadsheet csv json yaml toml config environment variable secret token key certificate domain record
server service container image cluster node pod deployment rollout canary health probe alert pager oncall ticket
issue label milestone sprint backlog estimate story epic task review comment approval merge branch commit tag
version semver package dependency lockfile vulnerability license audit policy compliance gdpr consent cookie
tracking analytics event funnel cohort retention churn revenue invoice payment refund subscription plan trial
customer account user role permission group team member invite email message notification digest summary
translation locale string plural currency timezone calendar schedule reminder deadline meeting agenda minutes
note document wiki handbook onboarding checklist template proposal contract quote estimate budget forecast
""".split()


def main() -> int:
    sys.path.insert(0, str(REPO_ROOT))  # so common.hermetic() byte-compiles this checkout's enf_git
    return common.fixture_main("prompt", __doc__, 40, run)


def run(work: Path, n: int, reps: int, args: argparse.Namespace) -> int:
    os.environ["PYTHONPATH"] = str(REPO_ROOT)  # the fixture's git-enf: this checkout, not the editable one
    common.header("prompt_10k", sessions=n, skills=SKILLS, repetitions=reps)
    repo = build_fixture(work, n)
    python = plain_python(work)
    hook = [python, "-c", _launch(), "user-prompt-submit"]
    payload = json.dumps({"session_id": SID, "cwd": str(repo), "transcript_path": "/dev/null", "prompt": PROMPT,
                          "hook_event_name": "UserPromptSubmit"}).encode()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    state = repo / ".git" / "enf" / "sessions" / f"{SID}.json"
    cases = {
        "python -c pass": ([python, "-c", "pass"], b"", env),
        "both": (hook, payload, env_with(work, env, "both", {})),
        "brain-first": (hook, payload, env_with(work, env, "brain", {"skillHints": "false"})),
        "skills": (hook, payload, env_with(work, env, "skills", {"brainFirst": "false"})),
        "neither": (hook, payload, env_with(work, env, "neither", {"brainFirst": "false", "skillHints": "false"})),
        "skills-cold": (hook, payload, env_with(work, env, "cold", {})),
    }
    snapshot = warm_up(cases["both"], state, repo)
    cache = repo / ".git" / "enf" / "skills.bin"
    print(f"prompt: {PROMPT!r}")
    print(f"skills index rebuilt in-process: {rebuild_ms(repo)}")
    samples: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for k in range(reps):
        for name in names[k % len(names):] + names[: k % len(names)]:  # rotate who goes first
            state.write_bytes(snapshot)
            if name == "skills-cold":
                cache.unlink(missing_ok=True)
            samples[name].append(timed(*cases[name]))
    report(samples, reps)
    return 0


def build_fixture(work: Path, n: int) -> Path:
    from enf_git import memory, paths
    from enf_git.memory.context import indexer, pointer_state
    from enf_git.plumbing import locks

    repo = common.init_user_repo(work / "repo")
    common.seed_branch(repo, n)
    common.run_enf(repo, "init")
    common.touch_session(common.newest_session_path(repo), 0)
    common.run_enf(repo, "commit", "-m", "render views")
    ctx = memory.Context.open(repo)
    started = time.perf_counter()
    # `git enf init` adopted memory and started the background refresh itself: this one
    # waits for it (the lock) and catches up with the render commit, or finds it current.
    with locks.file_lock(Path(indexer.pointers_path(ctx.repo)).with_name(paths.POINTERS_LOCK), wait=600):
        pass
    indexer.refresh_pointers(ctx.repo, ctx.cache())
    if pointer_state.pointers_stale(ctx.repo):
        raise RuntimeError("the pointers file did not get built")
    print(f"fixture: {n} sessions; pointers file current after {time.perf_counter() - started:.1f} s")
    today = time.strftime("%Y-%m-%d")
    (repo / ".claude-sessions" / "sessions" / f"{today}-prompt-bench.md").write_text(
        f"---\nsession_id: {SID[:8]}\ndate: {today}\nstatus: active\n---\n## Intent\nBenchmark a prompt.\n")
    write_skills(repo / ".claude" / "skills", Path(os.environ["HOME"]) / ".claude" / "skills")
    return repo


def write_skills(project: Path, personal: Path) -> None:
    """SKILLS skills with realistic names and descriptions; one of them fits PROMPT."""
    rng = random.Random(2026)
    pairs = [(a, b) for b in _NOUNS for a in _ACTIONS]
    rng.shuffle(pairs)
    skills = [MATCH] + [(f"{noun}-{action}", f"{action.capitalize()} the {noun}: " + " ".join(rng.sample(_POOL, 16)))
                        for action, noun in pairs[: SKILLS - 1]]
    for i, (name, description) in enumerate(skills):
        folder = (personal if i % (SKILLS // PERSONAL) == 1 else project) / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n"
                                         + "Steps to follow, with examples.\n" * 40, encoding="utf-8")


def plain_python(work: Path) -> str:
    """A venv without pip or the editable finder; this checkout and the deps on a .pth line."""
    import site
    import sysconfig

    venv = work / "plain-venv"
    subprocess.run([common.PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"])
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "enf_plain.pth").write_text("\n".join([str(REPO_ROOT), *deps]) + "\n", encoding="utf-8")
    return str(venv / "bin" / "python")


def _launch() -> str:
    from enf_git.paths import LAUNCH

    return LAUNCH


def env_with(work: Path, env: dict[str, str], name: str, switches: dict[str, str]) -> dict[str, str]:
    """`env` whose global git config is the hermetic one plus these `enf.*` switches."""
    base = (Path(env["HOME"]) / ".gitconfig").read_text(encoding="utf-8")
    path = work / f"gitconfig-{name}"
    path.write_text(base + ("[enf]\n" + "".join(f"\t{k} = {v}\n" for k, v in switches.items()) if switches else ""),
                    encoding="utf-8")
    return {**env, "GIT_CONFIG_GLOBAL": str(path)}


def warm_up(case: tuple[list[str], bytes, dict[str, str]], state: Path, repo: Path) -> bytes:
    """One run of the goal row: it must give pointers and the hint; returns the hook state to
    restore before every timed run (the session's first prompt, nothing yet pointed at)."""
    out = subprocess.run(case[0], input=case[1], env=case[2], capture_output=True, check=True).stdout
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    print("hook context:\n  " + text.replace("\n", "\n  "))
    if "pointers, not instructions" not in text or "Possibly relevant skills" not in text:
        raise SystemExit("the prompt did not get both pointers and a skill hint: fix the fixture")
    data = json.loads(state.read_text())
    data.pop("pointed", None)
    snapshot = json.dumps(data).encode()
    errors = repo / ".git" / "enf" / "hook-errors.log"
    if errors.exists():
        raise SystemExit(f"the hook logged errors:\n{errors.read_text()}")
    return snapshot


def rebuild_ms(repo: Path) -> str:
    """Median and min of rebuilding the skills index in-process (discovery, reading, indexing)."""
    from enf_git.assistants.claude import skills
    from enf_git.plumbing import skill_build

    home = skills.claude_home(os.environ)
    times = []
    for _ in range(25):
        started = time.perf_counter()
        sources, roots = skills.discover(str(repo), home)
        index = skill_build.build((str(repo), home), sources, roots)
        times.append(time.perf_counter() - started)
    count = len(index["names"])  # type: ignore[arg-type]
    assert count >= SKILLS, count  # ours, and the one `git enf init` installs
    return f"{count} skills: median {statistics.median(times) * 1000:.1f} ms, min {min(times) * 1000:.1f} ms (N=25)"


def timed(cmd: list[str], stdin: bytes, env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return elapsed


def report(samples: dict[str, list[float]], reps: int) -> None:
    base = samples["python -c pass"]
    print(f"\n{reps} interleaved rounds, whole processes, medians")
    for name, values in samples.items():
        print(f"  {name:<16} {common.spread_ms(values)}")
    print()
    ratio = common.ratio_report("UserPromptSubmit both/python-c-pass", samples["both"], base)
    for name in ("brain-first", "skills", "neither", "skills-cold"):
        common.ratio_report(f"UserPromptSubmit {name}/python-c-pass", samples[name], base)
    print(f"GOAL both <= {GOAL}: {'MET' if ratio <= GOAL else 'NOT MET'} ({ratio:.2f})")


if __name__ == "__main__":
    sys.exit(main())
