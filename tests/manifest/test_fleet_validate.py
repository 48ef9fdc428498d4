"""`orgctl validate` of a fleet: several paths or a fleet root, each portal on its own,
grouped by portal with a summary and the worst exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from reconciler.cli import cli
from tests.manifest.conftest import REPO, run_cli
from tests.manifest.test_overlays import BASE_ROLES, portal, write

CURATOR = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Curator}
spec: {privileges: [portal:user:reassignItems]}
"""


def _fleet(root: Path) -> Path:
    """The README's layout: portals/<name>, a shared base, and files of other tools."""
    (root / ".git").mkdir()
    return write(
        root,
        {
            "portals/base/roles.yaml": BASE_ROLES + "---\n" + CURATOR,
            "portals/prod/portal.yaml": portal("prod", ("../base",), version="11.3"),
            "portals/staging/portal.yaml": portal("staging", ("../base",), version="10.6.1"),
            "mkdocs.yml": "site_name: Docs\nnav: [index.md]\n",
            ".gitlab-ci.yml": "stages: [validate]\n",
        },
    )


def test_a_fleet_root_validates_each_portal_against_its_own_release(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    result = run_cli("validate", str(root))
    assert result.exit_code == 1, result.output
    sections = result.stdout.split("\n\n")
    assert sections[0] == f"=== prod ({root}/portals/prod)\nvalid: no problems found"
    assert sections[1].startswith(f"=== staging ({root}/portals/staging)\n{root}/portals/base/")
    assert "portal:user:reassignItems" in sections[1] and "1 problem found" in sections[1]
    assert f"(included by {root}/portals/staging/portal.yaml:10)" in sections[1]
    assert result.stdout.endswith("\n2 portals: 1 invalid, 1 valid\n")


def test_several_paths_are_a_fleet_too(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    (root / "portals/base/roles.yaml").write_text(BASE_ROLES)
    result = run_cli("validate", str(root / "portals/staging"), str(root / "portals/prod"))
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("2 portals: 2 valid\n")


def test_json_of_a_fleet_is_keyed_by_portal_name(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    result = run_cli("validate", str(root), "--format", "json")
    assert result.exit_code == 1
    body = json.loads(result.stdout)
    assert list(body) == ["prod", "staging"]
    assert body["prod"] == {
        "path": f"{root}/portals/prod",
        "valid": True,
        "problems": [],
        "warnings": [],
    }
    assert body["staging"]["valid"] is False
    assert body["staging"]["problems"][0]["file"] == f"{root}/portals/base/roles.yaml"
    assert "2 portals: 1 invalid, 1 valid" in result.stderr


def test_github_annotations_of_a_fleet_are_only_annotations(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    result = run_cli("validate", str(root), "--format", "github")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith("::error file=") and "roles.yaml" in line


def test_files_of_other_tools_in_a_fleet_are_noted_with_verbose(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    write(root, {"portals/prod/notes.yml": "title: not a manifest\n"})
    result = CliRunner().invoke(cli, ["validate", str(root / "portals/prod"), "-v"])
    assert result.exit_code == 0, result.output
    assert f"note: {root}/portals/prod/notes.yml: no orgctl document" in result.stderr


def test_two_portals_of_one_name_are_refused(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    write(root, {"portals/staging/portal.yaml": portal("prod", ("../base",))})
    result = run_cli("validate", str(root))
    assert result.exit_code == 1
    assert "two portals named alike, 'prod'" in result.stderr
    assert "ORGCTL_PROD_TOKEN" in result.stderr


def test_a_single_portal_folder_reports_as_before(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    result = run_cli("validate", str(root / "portals/prod"))
    assert (result.exit_code, result.stdout) == (0, "valid: no problems found\n")


BROKEN = "kind: Role\nspec: [unclosed\n"


def test_a_yaml_error_in_one_portals_file_fails_that_portal_alone(tmp_path: Path) -> None:
    # The fleet's start no longer parses every manifest: the portal's own load names the
    # file and line, and the other portals go on, as for any other problem of one portal.
    root = _fleet(tmp_path)
    (root / "portals/base/roles.yaml").write_text(BASE_ROLES)
    write(root, {"portals/prod/broken.yaml": BROKEN})
    result = run_cli("validate", str(root))
    assert result.exit_code == 1, result.output
    prod, staging, summary = result.stdout.split("\n\n")
    assert prod.startswith(f"=== prod ({root}/portals/prod)\n{root}/portals/prod/broken.yaml:2:")
    assert staging == f"=== staging ({root}/portals/staging)\nvalid: no problems found"
    assert summary == "2 portals: 1 invalid, 1 valid\n"


def test_a_broken_manifest_no_portal_reads_still_stops_the_fleet(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    write(root, {"portals/attic/broken.yaml": BROKEN})
    result = run_cli("validate", str(root))
    assert result.exit_code == 1
    assert f"{root}/portals/attic/broken.yaml:2: no portal reads this manifest" in result.output
    assert "===" not in result.output


def test_validate_of_a_fleet_loads_no_network_stack(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    probe = (
        "import sys\n"
        "from reconciler.cli import run\n"
        "run(['validate', sys.argv[1]])\n"
        "heavy = ('httpx', 'asyncio', 'reconciler.apply', 'reconciler.live', 'starlette')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(root)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_a_link_out_of_a_fleet_root_is_named_not_followed(tmp_path: Path) -> None:
    """Which portals a fleet holds cannot be known past an entry it may not read: that
    entry is the error, not "a fleet of 2 portal folders"."""
    root = _fleet(tmp_path)
    (root / "portals" / "everything").symlink_to("/", target_is_directory=True)
    result = run_cli("validate", str(root))
    assert result.exit_code == 1
    link = root / "portals" / "everything"
    assert f"{link}: a symbolic link out of the manifest folder (to /)" in result.output
    assert "fleet of" not in result.output
