"""fastjson must read and write exactly what json does, and the hot path must stay light."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import pytest

from enf_git import fastjson

HEAVY = ("json", "re", "enum", "typing", "pathlib", "pygit2", "click", "yaml", "frontmatter", "sqlite3")


def _value(rng: random.Random, depth: int = 0) -> object:
    kinds = ["str", "int", "float", "none", "bool"] + (["list", "dict"] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "str":
        return "".join(rng.choice("aé\n\"\\\t/ \u2603\U0001f600\x01z") for _ in range(rng.randint(0, 12)))
    if kind == "int":
        return rng.randint(-10**12, 10**12)
    if kind == "float":
        return rng.uniform(-1e6, 1e6)
    if kind == "none":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "list":
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {str(_value(rng, 99)): _value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def test_round_trips_agree_with_json() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        value = _value(rng)
        text = fastjson.dumps(value)
        assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        assert fastjson.loads(text) == value
        pretty = json.dumps(value, indent=2)
        assert fastjson.loads(pretty) == json.loads(pretty)


@pytest.mark.parametrize("bad", ["", " ", "{", "[1,]", '{"a":1} x', "nul", '"\x00"', "[" * 100_000, "{'a': 1}"])
def test_malformed_input_is_a_value_error(bad: str) -> None:
    with pytest.raises(ValueError):
        fastjson.loads(bad)


def test_constants_and_refusals() -> None:
    assert math.isnan(fastjson.loads("NaN"))
    with pytest.raises(TypeError):
        fastjson.dumps({1: "x"})
    with pytest.raises(TypeError):
        fastjson.dumps(object())


def test_per_call_hook_path_imports_nothing_heavy(tmp_path: object) -> None:
    """Invariant 6: PreToolUse/PostToolUse/UserPromptSubmit stay cold-import-free."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from enf_git import hook\n"
        "for event in ('PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'PostToolUseFailure'):\n"
        "    hook.respond(event, b'{\"session_id\": \"abc\", \"cwd\": \"/\", \"tool_name\": \"Bash\", \"prompt\": \"p\"}')\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert not [m for m in out if m.split(".")[0] in HEAVY], out
