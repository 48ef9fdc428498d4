"""`orgctl targets`: portal folders of a fleet, for a CI matrix."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reconciler.cli import cli

PORTAL = """apiVersion: orgctl/v1
kind: Portal
metadata: {{name: {name}}}
spec:
  url: https://{name}.example.com/portal/sharing/rest
  deployment: self-hosted
  version: "11.3"
  auth: {{tokenEnv: ORGCTL_TOKEN}}
"""
ROLE = """apiVersion: orgctl/v1
kind: Role
metadata: {name: Analyst}
spec: {privileges: [portal:user:joinGroup]}
"""


def _fleet(root: Path, *names: str) -> None:
    for name in names:
        folder = root / "portals" / name
        (folder / "roles").mkdir(parents=True)
        (folder / "portal.yaml").write_text(PORTAL.format(name=name))
        (folder / "roles" / "analyst.yaml").write_text(ROLE)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_lists_one_folder_per_portal_sorted(tmp_path: Path) -> None:
    _fleet(tmp_path, "staging", "prod")
    code, out = _run("targets", str(tmp_path / "portals"))
    assert code == 0
    assert out.splitlines() == [
        (tmp_path / "portals" / "prod").as_posix(),
        (tmp_path / "portals" / "staging").as_posix(),
    ]


def test_json_feeds_a_matrix(tmp_path: Path) -> None:
    _fleet(tmp_path, "prod")
    code, out = _run("targets", str(tmp_path / "portals"), "--json")
    assert code == 0
    assert "\n" not in out.strip(), "a step output must be one line"
    assert json.loads(out) == [
        {
            "name": "prod",
            "path": (tmp_path / "portals" / "prod").as_posix(),
            "url": "https://prod.example.com/portal/sharing/rest",
            "secrets": {
                "token": "ORGCTL_PROD_TOKEN",
                "username": "ORGCTL_PROD_USERNAME",
                "password": "ORGCTL_PROD_PASSWORD",
            },
        }
    ]


def test_secret_names_of_a_hyphenated_portal_are_valid(tmp_path: Path) -> None:
    # export names a portal "field-office"; a hyphen is no part of a GitHub secret name.
    _fleet(tmp_path, "field-office")
    code, out = _run("targets", str(tmp_path / "portals"), "--json")
    assert code == 0
    assert json.loads(out)[0]["secrets"]["token"] == "ORGCTL_FIELD_OFFICE_TOKEN"
    code, out = _run("targets", str(tmp_path / "portals"), "--secrets")
    assert code == 0
    assert out.strip().endswith(
        "ORGCTL_FIELD_OFFICE_TOKEN, or ORGCTL_FIELD_OFFICE_USERNAME + ORGCTL_FIELD_OFFICE_PASSWORD"
    )


def test_two_portals_in_one_folder_is_an_error(tmp_path: Path) -> None:
    _fleet(tmp_path, "prod")
    (tmp_path / "portals" / "prod" / "second.yaml").write_text(PORTAL.format(name="other"))
    code, out = _run("targets", str(tmp_path / "portals"))
    assert code == 1
    assert "two Portal documents" in out
    assert "second.yaml" in out and "portal.yaml" in out


def test_nested_portal_folders_are_refused(tmp_path: Path) -> None:
    _fleet(tmp_path, "prod")
    inner = tmp_path / "portals" / "prod" / "sub"
    inner.mkdir()
    (inner / "portal.yaml").write_text(PORTAL.format(name="sub"))
    code, out = _run("targets", str(tmp_path / "portals"))
    assert code == 1
    assert "inside portal folder" in out


def test_broken_yaml_names_file_and_line(tmp_path: Path) -> None:
    _fleet(tmp_path, "prod")
    (tmp_path / "portals" / "prod" / "bad.yaml").write_text("kind: Role\nspec: [unclosed\n")
    code, out = _run("targets", str(tmp_path / "portals"))
    assert code == 1
    assert "bad.yaml:" in out and "Traceback" not in out


def test_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    code, out = _run("targets", str(tmp_path / "nowhere"))
    assert code == 1
    assert "no such file or folder" in out


def test_no_portals_lists_nothing(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, out = _run("targets", str(tmp_path / "empty"), "--json")
    assert code == 0
    assert json.loads(out) == []


def test_hidden_folders_are_skipped_as_plan_skips_them(tmp_path: Path) -> None:
    _fleet(tmp_path, "prod")
    hidden = tmp_path / "portals" / ".archive" / "old"
    hidden.mkdir(parents=True)
    (hidden / "portal.yaml").write_text(PORTAL.format(name="old"))
    code, out = _run("targets", str(tmp_path / "portals"))
    assert code == 0
    assert out.splitlines() == [(tmp_path / "portals" / "prod").as_posix()]


def test_several_roots_are_listed_together(tmp_path: Path) -> None:
    _fleet(tmp_path / "a", "prod")
    _fleet(tmp_path / "b", "staging")
    code, out = _run("targets", str(tmp_path / "a" / "portals"), str(tmp_path / "b" / "portals"))
    assert code == 0
    assert [Path(line).name for line in out.splitlines()] == ["prod", "staging"]


def test_two_portals_named_alike_are_refused(tmp_path: Path) -> None:
    _fleet(tmp_path / "a", "prod")
    _fleet(tmp_path / "b", "prod")
    code, out = _run("targets", str(tmp_path / "a" / "portals"), str(tmp_path / "b" / "portals"))
    assert code == 1
    assert "two portals named alike" in out
