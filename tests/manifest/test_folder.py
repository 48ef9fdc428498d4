"""A manifest folder is read completely or not at all: linked folders inside it are
followed, a link out of it is refused, and every entry that cannot be read is an error
naming it, never silently skipped."""

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
    """A portal folder holding a hidden folder of roles, read through a link to it."""
    portal = tmp_path / "hq"
    shared = portal / ".shared"
    shared.mkdir(parents=True)
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


def test_a_link_out_of_the_manifest_folder_is_refused_naming_it(tmp_path: Path) -> None:
    portal, _ = portal_with_shared_roles(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "roles.yaml").write_text(BROKEN_ROLE.replace("Shared", "Outside"))
    (portal / "outside").symlink_to(elsewhere, target_is_directory=True)
    (portal / "outside.yaml").symlink_to(elsewhere / "roles.yaml")
    result = run_cli("validate", str(portal))
    assert result.exit_code == 1
    for link in ("outside", "outside.yaml"):
        assert f"{portal / link}:1: a symbolic link out of the manifest folder" in result.output
    assert "Outside" not in result.output, "a file behind the link was read"


def test_a_link_to_the_file_system_root_is_one_problem_not_a_walk(tmp_path: Path) -> None:
    """A link to / or /proc in a pull request made validate read the whole machine."""
    portal, _ = portal_with_shared_roles(tmp_path)
    (portal / "root").symlink_to("/", target_is_directory=True)
    (portal / "proc").symlink_to("/proc", target_is_directory=True)
    found = [m for m in messages(portal) if "symbolic link out of" in m]
    assert sorted(m.split(":")[0] for m in found) == [str(portal / "proc"), str(portal / "root")]
    assert len(messages(portal)) == 3  # the two links, and the shared role's own problem


def test_a_portal_folder_named_through_a_link_still_reads_its_links(tmp_path: Path) -> None:
    portal, _ = portal_with_shared_roles(tmp_path)
    (tmp_path / "alias").symlink_to(portal, target_is_directory=True)
    found = messages(tmp_path / "alias")
    assert any("shared/roles.yaml" in m and "portal:user:nope" in m for m in found), found
    assert not any("out of the manifest folder" in m for m in found), found


def test_a_loop_of_links_is_an_error_naming_it(tmp_path: Path) -> None:
    """A link loop named like a folder was skipped in silence: its roles, unmanaged."""
    portal, _ = portal_with_shared_roles(tmp_path)
    (portal / "roles").symlink_to(portal / "more")
    (portal / "more").symlink_to(portal / "roles")
    found = messages(portal)
    for link in ("more", "roles"):
        assert f"{portal / link}: a loop of symbolic links" in found, found
