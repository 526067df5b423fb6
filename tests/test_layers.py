"""The package's shape is a test (docs/design.md, section 2): imports point down the layers,
pygit2 lives in plumbing/store.py alone, click in cli/ alone, and the per-call hooks
import nothing but the standard library, measured on a real repository."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from enf_git import memory
from gitfixtures import session_text

PACKAGE = Path(memory.__file__).resolve().parent.parent
# Rank of each top-level part of the package: a module may import its own part or
# any part of a lower rank, never a higher one.
RANKS = {
    "errors": 0, "paths": 0, "fastjson": 0, "redact": 0, "frame": 0, "__init__": 0,
    "pure": 1, "plumbing": 1,
    "memory": 2, "install": 2,
    "cli": 3, "assistants": 3, "githooks": 3, "mcp": 3,
    "entry": 4, "hook": 4,
}
# Same rank, still forbidden: the two edges never import each other; pure code has
# no I/O, and plumbing speaks bytes and paths, never records.
FORBIDDEN = {("pure", "plumbing"), ("plumbing", "pure"),
             ("install", "memory"), ("mcp", "cli"), ("cli", "assistants"),
             ("assistants", "cli"), ("mcp", "assistants")}


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        out.append((".".join(("enf_git", *rel.parts)), path))
    return out


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in the file, lazy ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, node.lineno))
            found += [(f"{target}.{alias.name}", node.lineno) for alias in node.names]
    return found


def test_modules_import_only_down_the_layers() -> None:
    wrong = []
    for module, path in _modules():
        mine = _part(module)
        for target, line in _imports(module, path):
            if not target.startswith("enf_git.") or target == "enf_git.__version__":
                continue
            theirs = _part(target)
            if theirs not in RANKS or (mine, theirs) == (theirs, mine):
                continue
            if RANKS[theirs] > RANKS[mine] or (mine, theirs) in FORBIDDEN:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line}: {mine} imports {target}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("library", "allowed"), [
    ("pygit2", {"enf_git.plumbing.store", "enf_git.plumbing.store_write", "enf_git.plumbing.store_merge"}),
    ("click", None),  # anywhere under enf_git.cli
    ("yaml", {"enf_git.pure.fm"}),
    ("frontmatter", set()),  # fm.py parses with PyYAML's SafeLoader itself, to bound it
    ("mcp", {"enf_git.mcp.server"}),  # the MCP SDK (~1 s to import): `git enf mcp` alone loads it
    ("anyio", {"enf_git.mcp.server"}),
])
def test_third_party_libraries_stay_in_their_module(library: str, allowed: set[str] | None) -> None:
    users = {module for module, path in _modules()
             if any(t == library or t.startswith(library + ".") for t, _ in _imports(module, path))}
    if allowed is None:
        assert users and all(m.startswith("enf_git.cli.") for m in users), users
    else:
        assert users == allowed


def test_subpackage_inits_are_empty_except_the_memory_facade() -> None:
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        if init.parent.name != "memory":
            assert init.read_text(encoding="utf-8").strip() == "", init


PER_CALL = """
import json, sys
before = set(sys.modules)
from enf_git import hook
payloads = json.loads(sys.argv[1])
assistant = sys.argv[2]
for event, payload in payloads:
    hook.respond(event, b"", lambda: hook.run(event, json.dumps(payload).encode(), assistant))
new = sorted(set(sys.modules) - before)
print(json.dumps(new))
"""


def test_per_call_hooks_import_only_the_standard_library_on_a_real_repo(repo_dir: Path, git: object) -> None:
    """Invariant 6, on a set-up repository: the gate denies (no session file), then
    allows (its file exists), the heartbeat counts, tool calls are logged."""
    memory.init(memory.Context.open(repo_dir))
    cwd = str(repo_dir)
    sid = "a1b2c3d4-0000-0000-0000-000000000000"
    base = {"session_id": sid, "cwd": cwd, "transcript_path": "/dev/null"}
    deny = {**base, "tool_name": "Bash", "tool_input": {"command": "ls"}}
    payloads = [("PreToolUse", deny), ("UserPromptSubmit", {**base, "prompt": "hello"})]
    first = _run_hooks(payloads)
    sessions = repo_dir / ".claude-sessions" / "sessions"
    from enf_git.assistants.claude import gate

    today = gate.days()[0]
    (sessions / f"{today}-layer-check.md").write_text(session_text(session_id="a1b2c3d4", date=today))
    payloads += [("PreToolUse", deny), ("PostToolUse", {**deny, "tool_response": {}}),
                 ("PostToolUseFailure", {**deny, "error": "Exit code 1"})]
    payloads += [("UserPromptSubmit", {**base, "prompt": f"p{i}"}) for i in range(6)]
    second = _run_hooks(payloads)
    for loaded in (first, second):
        outside = [m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names
                   and not m.startswith("enf_git")]
        assert not outside, outside
    raw = (repo_dir / ".claude-sessions" / "raw").glob("*.jsonl")
    assert any("tool-failure" in p.read_text() for p in raw)  # the handlers really ran


def test_per_call_hooks_under_codex_import_only_the_standard_library(repo_dir: Path, git: object) -> None:
    """The same invariant through the Codex adapter, on the calls only it makes: a shell
    command that writes the session file (the shell lexer loads), an apply_patch, a denial."""
    memory.init(memory.Context.open(repo_dir))
    sid = "01a25210-4049-7d23-83e8-7cf4269a2bc3"
    base = {"session_id": sid, "cwd": str(repo_dir), "transcript_path": "/dev/null", "turn_id": "t"}
    from enf_git.assistants.claude import gate

    today = gate.days()[0]
    create = (f"cat > .claude-sessions/sessions/{today}-layer.md <<'EOF'\n"
              f"{session_text(session_id='269a2bc3', date=today)}EOF")
    patch = "*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch\n"
    payloads = [("PreToolUse", {**base, "tool_name": "Bash", "tool_input": {"command": "ls"}}),
                ("PreToolUse", {**base, "tool_name": "Bash", "tool_input": {"command": create}}),
                ("PreToolUse", {**base, "tool_name": "apply_patch", "tool_input": {"command": patch}}),
                ("UserPromptSubmit", {**base, "prompt": "hello"}),
                ("PostToolUse", {**base, "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "x"})]
    loaded = _run_hooks(payloads, "codex")
    outside = [m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names and not m.startswith("enf_git")]
    assert not outside, outside
    assert "enf_git.pure.shellwrite" in loaded and "enf_git.assistants.codex.adapter" in loaded  # the paths ran


def test_per_call_hooks_under_gemini_import_only_the_standard_library(repo_dir: Path, git: object) -> None:
    """The same invariant through the Gemini adapter: a denial, write_file of the session
    file, a shell command that only writes it (the shell lexer loads), a failed tool."""
    memory.init(memory.Context.open(repo_dir))
    base = {"session_id": "2e2f127b-0722-4b36-9cbf-495e377a3eab", "cwd": str(repo_dir), "transcript_path": "/dev/null"}
    from enf_git.assistants.claude import gate

    target = f".claude-sessions/sessions/{gate.days()[0]}-layer.md"
    payloads = [("PreToolUse", {**base, "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
                ("PreToolUse", {**base, "tool_name": "write_file", "tool_input": {"file_path": target, "content": "x"}}),
                ("PreToolUse", {**base, "tool_name": "run_shell_command", "tool_input": {"command": f"echo x > {target}"}}),
                ("UserPromptSubmit", {**base, "prompt": "<hook_context>x</hook_context>\n\nhello"}),
                ("PostToolUse", {**base, "tool_name": "run_shell_command", "tool_input": {"command": "false"},
                                 "tool_response": {"llmContent": "", "error": "exit 1"}})]
    loaded = _run_hooks(payloads, "gemini")
    outside = [m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names and not m.startswith("enf_git")]
    assert not outside, outside
    assert "enf_git.pure.shellwrite" in loaded and "enf_git.assistants.gemini.adapter" in loaded  # the paths ran


def _only_stdlib(loaded: list[str]) -> None:
    outside = [m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names and not m.startswith("enf_git")]
    assert not outside, outside


def test_per_call_hooks_under_cursor_import_only_the_standard_library(repo_dir: Path, git: object) -> None:
    """Through the Cursor adapter: a shell denial, a read, an MCP call, an edit, a prompt."""
    memory.init(memory.Context.open(repo_dir))
    base = {"conversation_id": "5c0e7a51-92d4-4c1e-8f0b-3d6a1e2b9c44", "workspace_roots": [str(repo_dir)]}
    from enf_git.assistants.claude import gate

    target = f".claude-sessions/sessions/{gate.days()[0]}-layer.md"
    payloads = [("PreToolUse", {**base, "hook_event_name": "beforeShellExecution", "command": f"echo x > {target}"}),
                ("PreToolUse", {**base, "hook_event_name": "beforeShellExecution", "command": "ls"}),
                ("PreToolUse", {**base, "hook_event_name": "beforeReadFile", "file_path": "app.py"}),
                ("PreToolUse", {**base, "hook_event_name": "beforeMCPExecution", "tool_name": "recall",
                                "tool_input": {}, "command": "git-enf mcp"}),
                ("PostToolUse", {**base, "hook_event_name": "afterFileEdit", "file_path": target, "edits": []}),
                ("UserPromptSubmit", {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": "hello"})]
    loaded = _run_hooks(payloads, "cursor")
    _only_stdlib(loaded)
    assert "enf_git.pure.shellwrite" in loaded and "enf_git.assistants.cursor.adapter" in loaded  # the paths ran


def test_per_call_hooks_under_copilot_import_only_the_standard_library(repo_dir: Path, git: object) -> None:
    """Through the Copilot CLI adapter: a denial, create of the session file, a failed tool."""
    memory.init(memory.Context.open(repo_dir))
    base = {"session_id": "9b1f3c2e-4d5a-4e6f-8a7b-1c2d3e4f5a6b", "cwd": str(repo_dir)}
    from enf_git.assistants.claude import gate

    target = f".claude-sessions/sessions/{gate.days()[0]}-layer.md"
    payloads = [("PreToolUse", {**base, "tool_name": "bash", "tool_input": {"command": "ls"}}),
                ("PreToolUse", {**base, "tool_name": "create", "tool_input": json.dumps({"path": target})}),
                ("PreToolUse", {**base, "tool_name": "bash", "tool_input": {"command": f"echo x > {target}"}}),
                ("UserPromptSubmit", {**base, "prompt": "hello"}),
                ("PostToolUse", {**base, "tool_name": "bash", "tool_input": {"command": "false"},
                                 "tool_result": {"result_type": "failure", "text_result_for_llm": "exit 1"}})]
    loaded = _run_hooks(payloads, "copilot")
    _only_stdlib(loaded)
    assert "enf_git.pure.shellwrite" in loaded and "enf_git.assistants.copilot.adapter" in loaded  # the paths ran


def test_per_call_hooks_under_qwen_import_only_the_standard_library(repo_dir: Path, git: object) -> None:
    """Through the Qwen Code adapter: a denial, write_file and a shell write of the session file."""
    memory.init(memory.Context.open(repo_dir))
    base = {"session_id": "7e3d2c1b-0a9f-4e8d-b7c6-5a4b3c2d1e0f", "cwd": str(repo_dir), "transcript_path": "/dev/null"}
    from enf_git.assistants.claude import gate

    target = f".claude-sessions/sessions/{gate.days()[0]}-layer.md"
    payloads = [("PreToolUse", {**base, "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
                ("PreToolUse", {**base, "tool_name": "write_file", "tool_input": {"file_path": target}}),
                ("PreToolUse", {**base, "tool_name": "run_shell_command", "tool_input": {"command": f"echo x > {target}"}}),
                ("UserPromptSubmit", {**base, "prompt": "x", "submitted_prompt": "hello"}),
                ("PostToolUseFailure", {**base, "tool_name": "edit", "tool_input": {"file_path": "a"}, "error": "no"})]
    loaded = _run_hooks(payloads, "qwen")
    _only_stdlib(loaded)
    assert "enf_git.pure.shellwrite" in loaded and "enf_git.assistants.qwen.adapter" in loaded  # the paths ran


def _run_hooks(payloads: list[tuple[str, dict[str, object]]], assistant: str = "") -> list[str]:
    proc = subprocess.run([sys.executable, "-c", PER_CALL, json.dumps(payloads), assistant], capture_output=True,
                          text=True, check=True)
    loaded: list[str] = json.loads(proc.stdout)
    return loaded


# --- rooms inside memory/ -----------------------------------------------------------------
# memory/ is cut into rooms, one subpackage per capability (docs/design.md). A room imports
# only the rooms below it, the flat base (workspace, records, report, eventlog, flags)
# imports no room, and no modules import each other: KNOWN_CYCLES is empty, and a new
# cycle fails here.
ROOM_ORDER = ("record", "lifecycle", "share", "context", "health")  # bottom to top
ROOMS_ON_TOP = ("health",)
KNOWN_CYCLES: list[set[str]] = []


def _room_rank(name: str) -> int:
    """-1 for the flat base, else the room's place in ROOM_ORDER."""
    room = name.split(".")[0]
    return ROOM_ORDER.index(room) if "." in name else -1


def _memory_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in _modules():
        if not module.startswith("enf_git.memory.") or path.name == "__init__.py":
            continue
        name = module.removeprefix("enf_git.memory.")
        graph[name] = set()
        for target, _line in _imports(module, path):
            rest = target.removeprefix("enf_git.memory.")
            if target.startswith("enf_git.memory.") and rest.split(".")[0] != "__init__":
                found = next((m for m in (rest, rest.rsplit(".", 1)[0]) if m in {n for n, _ in _names()}), None)
                if found and found != name:
                    graph[name].add(found)
    return graph


def _names() -> list[tuple[str, Path]]:
    return [(m.removeprefix("enf_git.memory."), p) for m, p in _modules()
            if m.startswith("enf_git.memory.") and p.name != "__init__.py"]


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_no_module_below_a_top_room_imports_it() -> None:
    graph = _memory_graph()
    wrong = [f"{m} imports {t}" for m, targets in graph.items() for t in targets
             if t.split(".")[0] in ROOMS_ON_TOP and m.split(".")[0] not in ROOMS_ON_TOP]
    assert wrong == []


def test_each_room_imports_only_the_rooms_below_it() -> None:
    graph = _memory_graph()
    assert graph, "the memory graph is empty: the test reads nothing"
    wrong = [f"{m} imports {t}" for m, targets in graph.items() for t in targets if _room_rank(t) > _room_rank(m)]
    assert wrong == []


def test_every_memory_module_lives_in_a_room_or_the_base() -> None:
    """A new capability goes into its room; the flat base stays the five modules under every room."""
    flat = sorted(name for name in _memory_graph() if "." not in name)
    assert flat == ["eventlog", "flags", "records", "report", "workspace"]
    rooms = {name.split(".")[0] for name in _memory_graph() if "." in name}
    assert rooms == set(ROOM_ORDER)
    for room in ROOM_ORDER:
        init = PACKAGE / "memory" / room / "__init__.py"
        assert (init.read_text(encoding="utf-8").strip().startswith('"""')), f"{init}: say what the room owns"


def test_the_import_cycles_left_in_memory_are_the_known_ones() -> None:
    found = [{n.rsplit(".", 1)[-1] for n in c} for c in _cycles(_memory_graph())]
    assert sorted(map(sorted, found)) == sorted(map(sorted, KNOWN_CYCLES))


# What Python 3.11 added that 3.10 (requires-python >= 3.10) lacks, by import.
NEWER_THAN_310 = {("typing", n) for n in ("dataclass_transform", "Self", "Never", "LiteralString", "assert_never",
                                           "assert_type", "reveal_type", "Required", "NotRequired", "TypeVarTuple",
                                           "Unpack")} | {("tomllib", "*"), ("enum", "StrEnum")}


def _guarded(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Inside `if TYPE_CHECKING:` or an `if sys.version_info …:` test (either branch)."""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and any(name in ast.unparse(node.test)
                                            for name in ("TYPE_CHECKING", "version_info")):
            return True
    return False


def test_nothing_imports_what_python_310_lacks_outside_a_guard() -> None:
    wrong = []
    for module, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not _guarded(node, parents):
                hits = [a.name for a in node.names if (node.module, a.name) in NEWER_THAN_310
                        or (node.module, "*") in NEWER_THAN_310]
                wrong += [f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.module}.{h}" for h in hits]
            elif isinstance(node, ast.Import) and not _guarded(node, parents):
                wrong += [f"{path.relative_to(PACKAGE)}:{node.lineno}: {a.name}" for a in node.names
                          if (a.name, "*") in NEWER_THAN_310]
    assert wrong == []
