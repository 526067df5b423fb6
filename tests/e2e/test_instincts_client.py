"""Instincts inside the real Claude Code client: in session one the scripted model runs a
Bash command that fails, then a corrected one that works; the client's PostToolUseFailure
and PostToolUse hooks log both, Stop learns the rule and commits it, and the request of
session two carries it under "Learned instincts"."""

from __future__ import annotations

import json
import re
from pathlib import Path

from projects import bash, git, run
from standin import StandIn, Text
from test_lifecycle_client import repo, write_session  # noqa: F401 - repo is a fixture

from enf_git.pure import instincts as pi

RULE = re.compile(r"Bash `git enf`: `git enf lgo -n 1` failed \(exit 2: [^)]*No such command 'lgo'[^)]*\); "
                  r"`git enf log -n 1` worked")


def test_a_failure_fixed_in_one_session_is_an_instinct_in_the_next(claude_bin: str, standin: StandIn, repo: Path,  # noqa: F811
                                                                    claude_home: Path) -> None:
    standin.add(write_session(repo), bash("git enf lgo -n 1"), bash("git enf log -n 1"), Text("Fixed the typo."))
    first = run("show me the last session", repo, claude_home, standin, claude_bin)
    results = [r for req in standin.main_requests for r in req.tool_results()]
    assert any(r.get("is_error") for r in results), results  # the client saw the first call fail
    raw = (repo / ".claude-sessions" / "raw" / f"{first.session_id}.jsonl").read_text().splitlines()
    kinds = [json.loads(line)["event"] for line in raw]
    assert "tool-failure" in kinds and kinds.count("tool") >= 2, kinds  # real PostToolUse(Failure) hooks ran

    names = git(repo, "ls-tree", "--name-only", "claude-memory", "instincts/").split()
    assert len(names) == 1, git(repo, "log", "--format=%s", "claude-memory")
    learned = pi.parse_instinct(names[0], git(repo, "show", f"claude-memory:{names[0]}").encode())
    assert RULE.fullmatch(learned.rule), learned.rule
    assert learned.sessions == (str(first.session_id)[:8],) and learned.authors == ("E2E <e2e@example.com>",)

    standin.add(Text("Noted."))
    run("what should I know?", repo, claude_home, standin, claude_bin)
    sent = standin.main_requests[-1].text()
    assert "## Learned instincts (1)" in sent, sent[-3000:]
    block = sent[sent.index("## Learned instincts (1)"):]
    assert f"- {learned.rule} ({learned.id}; 1 session)" in block, block[:2000]
