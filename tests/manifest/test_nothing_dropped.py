"""Nothing that looks meant for orgctl is dropped in silence: a document with an orgctl
kind and a wrong apiVersion, an overlay's apiVersion, a fleet's Portal that cannot be
read; and what YAML allows (a trailing `---`) is accepted."""

from __future__ import annotations

from pathlib import Path

from tests.manifest.conftest import members_document, run_cli
from tests.manifest.test_overlays import BASE_ROLES, portal, problems_of, write

MEMBERS = members_document("    alice: {role: org_user}\n")
OVERLAY = """\
apiVersion: orgctl/v9
kind: Role
metadata: {name: Analyst}
spec:
  description: Views and shares content
"""

K8S_ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
"""


def test_a_trailing_document_marker_is_accepted(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal(includes=()), "members.yaml": MEMBERS + "---\n"})
    assert problems_of(tmp_path) == []
    write(tmp_path, {"members.yaml": "---\n" + MEMBERS + "---\n# nothing more\n---\n"})
    assert problems_of(tmp_path) == []


def test_a_document_of_an_orgctl_kind_with_a_wrong_api_version_is_an_error(
    tmp_path: Path,
) -> None:
    for written in ("123", "v1", "orgctl/v2", "orgclt/v1"):
        text = MEMBERS.replace("apiVersion: orgctl/v1", f"apiVersion: {written}")
        write(tmp_path, {"portal.yaml": portal(includes=()), "members.yaml": text})
        (problem,) = problems_of(tmp_path)
        assert problem.startswith(f"{tmp_path}/members.yaml:1: "), problem
        assert "apiVersion: must be 'orgctl/v1'" in problem, problem


def test_an_overlays_api_version_is_checked(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(
        tmp_path,
        {
            "base/roles.yaml": BASE_ROLES,
            "portals/prod/portal.yaml": portal(),
            "portals/prod/roles.yaml": OVERLAY,
        },
    )
    (problem,) = problems_of(tmp_path / "portals/prod")
    assert problem.startswith(f"{tmp_path}/portals/prod/roles.yaml:1: "), problem
    assert "apiVersion: must be 'orgctl/v1', not 'orgctl/v9'" in problem, problem
    assert "(base " in problem


def _fleet(root: Path) -> Path:
    (root / ".git").mkdir()
    return write(
        root,
        {
            "portals/base/roles.yaml": BASE_ROLES,
            "portals/prod/portal.yaml": portal("prod", ("../base",)),
            "portals/staging/portal.yaml": portal("staging", ("../base",)),
            "portals/dev/portal.yaml": portal("dev", ("../base",)).replace("kind: Portal\n", ""),
            "portals/dev/members.yaml": MEMBERS,
            "mkdocs.yml": "site_name: Docs\n",
            "k8s/role.yaml": K8S_ROLE,  # its words look like ours, but it is not
        },
    )


def test_a_fleet_portal_whose_portal_cannot_be_read_is_an_error(tmp_path: Path) -> None:
    """A portal.yaml without `kind` once dropped the whole portal: "2 portals: 2 valid",
    and `targets` listed two folders, so CI planned two portals of three."""
    root = _fleet(tmp_path)
    for command in (["validate"], ["targets"], ["plan"], ["drift"]):
        result = run_cli(*command, str(root / "portals"))
        assert result.exit_code == 1, (command, result.output)
        lines = [line for line in result.output.splitlines() if line.startswith("Error: ")]
        assert [line.split(": ")[1] for line in lines] == [
            f"{root}/portals/dev/members.yaml:1",
            f"{root}/portals/dev/portal.yaml:1",
        ], result.output
        assert "no portal reads this manifest" in lines[0], result.output
        assert "2 portals" not in result.output


def test_a_fleet_with_every_folder_read_is_not_refused(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    (root / "portals/dev/portal.yaml").write_text(portal("dev", ("../base",)))
    result = run_cli("targets", str(root / "portals"))
    assert result.exit_code == 0, result.output
    assert [Path(line).name for line in result.output.splitlines()] == ["dev", "prod", "staging"]


def test_one_portals_commands_given_a_fleet_root_say_so(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    (root / "portals/dev/portal.yaml").write_text(portal("dev", ("../base",)))
    for command in ("apply", "render"):
        result = run_cli(command, str(root / "portals"))
        assert result.exit_code == 1, result.output
        assert result.output == (
            f"Error: {root}/portals is a fleet of 3 portal folders ({root}/portals/dev,"
            f" {root}/portals/prod, {root}/portals/staging): name one portal folder, such as"
            f" {root}/portals/dev\n"
        ), (command, result.output)
    for args in (["adopt", "Role/Analyst"], ["force-unlock", "0123456789abcdef"]):
        result = run_cli(*args, str(root / "portals"))
        assert result.exit_code == 1 and "is a fleet of 3 portal folders" in result.output
