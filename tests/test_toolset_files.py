"""Where toolset profiles and each session's choice live on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from enf_git.plumbing import toolset_files as tf


def test_each_session_keeps_its_own_choice(tmp_path: Path) -> None:
    state = str(tmp_path / "enf")
    tf.choose(state, "aaaa1111-2222", "plan")
    tf.choose(state, "bbbb3333-4444", "docs")
    assert (tf.chosen(state, "aaaa1111-9999"), tf.chosen(state, "bbbb3333")) == ("plan", "docs")
    assert tf.clear(state, "aaaa1111") is True
    assert tf.chosen(state, "aaaa1111") is None and tf.clear(state, "aaaa1111") is False
    assert tf.chosen(state, "bbbb3333") == "docs"


def test_a_session_id_is_confined_to_one_file_name(tmp_path: Path) -> None:
    assert tf.choice_path(str(tmp_path), "../../etc/x") == str(tmp_path / "toolsets" / "etcx")
    with pytest.raises(ValueError):
        tf.choice_path(str(tmp_path), "../..")
    assert tf.chosen(str(tmp_path), "/..") is None


def test_the_project_default(tmp_path: Path) -> None:
    assert tf.project_default(str(tmp_path)) is None
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "active-toolset").write_text("review\n")
    assert tf.project_default(str(tmp_path)) == "review"
    (tmp_path / ".claude" / "active-toolset").write_bytes(b"\xff")
    assert tf.project_default(str(tmp_path)) is None


def test_the_files_and_their_order(tmp_path: Path) -> None:
    user, project = tf.layer_files(str(tmp_path / "top"), str(tmp_path / "cfg"))
    assert user[0] == str(tmp_path / "cfg" / "toolsets.yaml")
    assert project == (str(tmp_path / "top" / "toolsets.yaml"), "toolsets.yaml")
    assert tf.read(project[0]) is None
