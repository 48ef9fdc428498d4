"""A manifest folder is read completely or not at all: linked folders are followed, and
every entry that cannot be read is an error naming it, never silently skipped."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reconciler.errors import UserError
from reconciler.manifest import validate
from reconciler.manifest.loader import manifest_files
from tests.manifest.conftest import EXAMPLES, run_cli

BROKEN_ROLE = """apiVersion: orgctl/v1
kind: Role
metadata: {name: Shared}
spec: {privileges: [portal:user:nope]}
"""


def portal_with_shared_roles(tmp_path: Path) -> tuple[Path, Path]:
    """A portal folder and, beside it, a shared folder of roles linked into it."""
    portal = tmp_path / "hq"
    shared = tmp_path / "shared"
    portal.mkdir()
    shared.mkdir()
    shutil.copy(EXAMPLES / "hq" / "portal.yaml", portal)
    (shared / "roles.yaml").write_text(BROKEN_ROLE)
    (portal / "shared").symlink_to(shared, target_is_directory=True)
    return portal, shared


def messages(path: Path) -> list[str]:
    _, problems = validate(path, {})
    return [f"{p.file}: {p.message}" for p in problems]


def test_a_linked_folder_of_manifests_is_read(tmp_path: Path) -> None:
    portal, _ = portal_with_shared_roles(tmp_path)
    found = messages(portal)
    assert any("shared/roles.yaml" in m and "portal:user:nope" in m for m in found), found


def test_a_link_back_to_a_folder_already_read_is_refused(tmp_path: Path) -> None:
    portal, shared = portal_with_shared_roles(tmp_path)
    (shared / "loop").symlink_to(portal, target_is_directory=True)
    found = messages(portal)
    assert any("loop: a link to a folder already read" in m for m in found), found


def test_a_broken_link_is_an_error_naming_it(tmp_path: Path) -> None:
    portal, _ = portal_with_shared_roles(tmp_path)
    (portal / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    found = messages(portal)
    assert any("gone.yaml: a broken symbolic link" in m for m in found), found
    result = run_cli("validate", str(portal))
    assert result.exit_code == 1 and "gone.yaml:1: a broken symbolic link" in result.output


def test_a_fifo_is_an_error_not_a_hang(tmp_path: Path) -> None:
    portal, _ = portal_with_shared_roles(tmp_path)
    os.mkfifo(portal / "pipe.yaml")
    found = messages(portal)
    assert any("pipe.yaml: not a regular file" in m for m in found), found


def test_the_file_list_of_targets_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    portal, _ = portal_with_shared_roles(tmp_path)
    (portal / "gone.yml").symlink_to(tmp_path / "nowhere.yml")
    with pytest.raises(UserError, match=r"gone\.yml: a broken symbolic link"):
        manifest_files(portal)


def test_hidden_folders_are_still_skipped(tmp_path: Path) -> None:
    portal, _ = portal_with_shared_roles(tmp_path)
    (portal / ".github").mkdir()
    (portal / ".github" / "ci.yaml").write_text("on: push\n")
    assert all(".github" not in str(f) for f in manifest_files(portal))
