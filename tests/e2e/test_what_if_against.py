"""`orgctl what-if PATH --against GIT_REF` against `orgctl serve`: the manifests at a base
commit, compared with the working tree's, in a temporary Git repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

DELETE_USERS = "portal:admin:deleteUsers"


def _git(repository: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repository), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _repository_with_hq(world: World) -> Path:
    """A repository whose base commit holds examples/hq, and whose second commit gives
    the Analyst role (dave, erin) an administrative privilege; the base's SHA tagged."""
    repository = world.workdir / "repo"
    folder = repository / "portals" / "hq"
    shutil.copytree(EXAMPLES / "hq", folder)
    _git(repository.parent, "init", "-q", "-b", "main", str(repository))
    _git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    _git(repository, "tag", "base")
    roles = folder / "roles.yaml"
    edited = roles.read_text().replace(
        "    - portal:user:shareToGroup\n",
        f"    - portal:user:shareToGroup\n    - {DELETE_USERS}\n",
        1,
    )
    assert edited != roles.read_text()
    roles.write_text(edited)
    _git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "admin")
    return folder


def test_what_if_against_the_base_lists_the_gained_privileges_and_fails_on_new_access(
    demo: World,
) -> None:
    folder = _repository_with_hq(demo)
    api = demo.api("hq")
    before = api.snapshot()
    reported = demo.orgctl("what-if", folder, "--against", "base", "--format", "json", portal="hq")
    assert reported.returncode == 0, output_of(reported)
    report = json.loads(reported.stdout)
    assert report["against"] == "base"
    # Both analysts (erin moves to level 2 in the manifests, at either revision).
    assert [(m["username"], m["gained"], m["lost"]) for m in report["members"]] == [
        ("dave", [DELETE_USERS], []),
        ("erin", [DELETE_USERS], []),
    ]
    assert all("lastLogin" in m for m in report["members"])
    failed = demo.orgctl(
        "what-if", folder, "--against", "base", "--fail-on-new-access", portal="hq"
    )
    assert failed.returncode == 2, output_of(failed)
    assert "What if: hq, against base" in failed.stdout
    assert f"gains {DELETE_USERS}" in failed.stdout
    # The working tree against itself: nobody gains, the check passes.
    same = demo.orgctl(
        "what-if",
        folder,
        "--against",
        "HEAD",
        "--fail-on-new-access",
        "--format",
        "markdown",
        portal="hq",
    )
    assert same.returncode == 0, output_of(same)
    assert "Nobody gains or loses an effective privilege." in same.stdout
    assert api.snapshot() == before


def test_what_if_against_compares_with_the_uncommitted_working_tree(
    demo: World,
) -> None:
    folder = _repository_with_hq(demo)
    # Uncommitted: the working tree, not HEAD, is the after side.
    (folder / "roles.yaml").write_text(
        (folder / "roles.yaml").read_text().replace(f"    - {DELETE_USERS}\n", "")
    )
    reported = demo.orgctl("what-if", folder, "--against", "HEAD", "--format", "json", portal="hq")
    assert reported.returncode == 0, output_of(reported)
    assert [(m["username"], m["lost"]) for m in json.loads(reported.stdout)["members"]] == [
        ("dave", [DELETE_USERS]),
        ("erin", [DELETE_USERS]),
    ]


def test_what_if_against_an_unknown_ref_or_outside_a_repository_is_one_clear_error(
    demo: World,
) -> None:
    folder = _repository_with_hq(demo)
    unknown = demo.orgctl("what-if", folder, "--against", "no-such-branch", portal="hq")
    assert unknown.returncode == 1, output_of(unknown)
    assert "--against 'no-such-branch': no such revision" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    loose = demo.workdir / "loose"
    shutil.copytree(EXAMPLES / "hq", loose)
    outside = demo.orgctl("what-if", loose, "--against", "main", portal="hq")
    assert outside.returncode == 1, output_of(outside)
    assert "is not inside a Git repository" in outside.stderr
    both = demo.orgctl(
        "what-if", folder, "--against", "base", "--set-role", "dave=org_user", portal="hq"
    )
    assert both.returncode == 1, output_of(both)
    assert "name no change beside it" in both.stderr


def test_what_if_against_reads_the_includes_as_they_were_at_the_revision(demo: World) -> None:
    repository = demo.workdir / "fleet-repo"
    shutil.copytree(EXAMPLES / "fleet", repository)
    _git(repository.parent, "init", "-q", "-b", "main", str(repository))
    _git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    # The shared base (included by hq's Portal) gains the live Analyst role, with an
    # administrative privilege: its holder dave (level 2) gains it.
    analyst = f"""---
apiVersion: orgctl/v1
kind: Role
metadata:
  name: Analyst
spec:
  privileges: [portal:user:joinGroup, portal:user:viewOrgItems, portal:user:viewOrgUsers,
               portal:user:createItem, {DELETE_USERS}]
"""
    with (repository / "base" / "roles.yaml").open("a") as roles:
        roles.write(analyst)
    reported = demo.orgctl(
        "what-if", repository / "hq", "--against", "main", "--format", "json", portal="hq"
    )
    assert reported.returncode == 0, output_of(reported)
    assert [(m["username"], m["gained"]) for m in json.loads(reported.stdout)["members"]] == [
        ("dave", [DELETE_USERS])
    ]
