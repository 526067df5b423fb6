"""Fixtures for end-to-end tests that drive the real Claude Code client offline."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Let test modules import the helpers as plain modules whatever pytest's rootdir/import mode.
sys.path.insert(0, str(Path(__file__).parent))

from harness import find_claude
from standin import StandIn


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: drives the real Claude Code client (slow-ish)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    e2e_dir = Path(__file__).parent
    for item in items:
        if e2e_dir in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def claude_bin() -> str:
    """Path to the Claude Code binary. Missing client: a failure in CI, a skip elsewhere."""
    path = find_claude()
    if path is None:
        msg = (
            "Claude Code client not found: pip install claude-agent-sdk (bundles the binary "
            "at claude_agent_sdk/_bundled/claude) or put `claude` on PATH"
        )
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture
def standin() -> Iterator[StandIn]:
    """A running scripted Messages API; add turns with ``standin.add(...)``."""
    with StandIn() as api:
        yield api


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    """A scratch HOME for the client (it needs no files there; it writes ~/.claude.json)."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory to run the client in."""
    proj = tmp_path / "project"
    proj.mkdir()
    return proj
