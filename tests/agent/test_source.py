"""The agent's sources: a Git repository read at a ref into a tree of its own, and a plain
folder whose revision changes with its files."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from reconciler.agent.portal_ops import find_portals, load
from reconciler.agent.source import FolderSource, GitSource, source_for
from reconciler.errors import UserError
from tests.e2e.agent_process import commit, edit, git
from tests.e2e.harness import EXAMPLES

BASE_ROLE = (
    "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: Shared}\n"
    "spec: {description: d, privileges: [portal:user:joinGroup]}\n"
)


def repository_with_a_base(tmp_path: Path) -> Path:
    """portals/hq includes ../../base: a folder above the portal, inside the repository."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "hq", repo / "portals" / "hq")
    (repo / "base").mkdir()
    (repo / "base" / "roles.yaml").write_text(BASE_ROLE)
    edit(repo / "portals/hq/portal.yaml", "  safety:\n", "  include: [../../base]\n  safety:\n")
    git(repo, "init", "--quiet", "--initial-branch", "main")
    commit(repo, "a base")
    return repo


def test_a_git_revision_reads_includes_inside_the_repository(tmp_path: Path) -> None:
    repo = repository_with_a_base(tmp_path)
    source = source_for(str(repo), "main", "", tmp_path / "cache")
    assert isinstance(source, GitSource)
    snapshot = asyncio.run(source.read())
    assert snapshot.revision == git(repo, "rev-parse", "HEAD")
    (portal,) = find_portals(snapshot.root)
    assert portal.name == "hq"
    assert "Shared" in load(portal.path, {}).desired.roles  # read from ../../base


def test_a_ref_that_does_not_exist_is_a_clear_error(tmp_path: Path) -> None:
    repo = repository_with_a_base(tmp_path)
    source = source_for(str(repo), "no-such-branch", "", tmp_path / "cache")
    with pytest.raises(UserError, match=r"git fetch failed: .*no-such-branch"):
        asyncio.run(source.read())


def test_a_plain_folder_changes_revision_with_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "hq"
    shutil.copytree(EXAMPLES / "hq", folder)
    source = source_for(str(folder), "main", "", tmp_path / "cache")
    assert isinstance(source, FolderSource)
    first = asyncio.run(source.read()).revision
    assert asyncio.run(source.read()).revision == first
    edit(folder / "roles.yaml", "  name: Analyst\n", "  name: Analysts\n")
    assert asyncio.run(source.read()).revision != first
