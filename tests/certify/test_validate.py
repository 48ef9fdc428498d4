"""`orgctl validate` on campaigns (kind: Campaign) and role owners: each mistake one error
at its file:line, and a campaign changes no plan (it declares nothing live)."""

from __future__ import annotations

import shutil
from pathlib import Path

from reconciler.testing import orgctl

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "reviews"


def _portal(tmp_path: Path, old: str = "", new: str = "", file: str = "campaign.yaml") -> Path:
    folder = tmp_path / "reviews"
    shutil.copytree(EXAMPLE, folder)
    path = folder / file
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    return folder


def _invalid(folder: Path, line: str, message: str, file: str = "campaign.yaml") -> None:
    result = orgctl("validate", folder, env={})
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert f"{folder / file}:{line}" in output and message in output, output
    assert "Traceback" not in output


def test_the_example_campaign_validates(tmp_path: Path) -> None:
    result = orgctl("validate", _portal(tmp_path), env={})
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_due_that_is_no_time_is_an_error(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "due: 2026-12-15 ", "due: end of year ")
    _invalid(folder, "18:", "neither RFC 3339 nor a date")


def test_a_scope_naming_no_one_is_an_error(tmp_path: Path) -> None:
    old = '    privileges: ["portal:admin:*"]   # whoever holds an administrative privilege\n'
    folder = _portal(tmp_path, old + "    roles: [Analyst]", "    roles: []")
    _invalid(folder, "12:", "the scope names no one")


def test_no_reviewer_at_all_is_an_error(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "roleOwners: true", "roleOwners: false")
    path = folder / "campaign.yaml"
    path.write_text(path.read_text().replace("fallback: [admin, alice]", "fallback: []"))
    _invalid(folder, "15:", "no one reviews")


def test_a_fallback_reviewer_listed_twice_is_an_error(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "fallback: [admin, alice]", "fallback: [admin, admin]")
    _invalid(folder, "17:", "reviewer 'admin' is listed twice")


def test_a_revoke_to_role_nobody_declares_is_a_warning(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "revokeTo: {role: org_user", "revokeTo: {role: org_usr")
    result = orgctl("validate", folder, env={})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "campaign.yaml:20:" in output and "did you mean 'org_user'" in output, output


def test_role_owners_are_usernames(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "owners: [carol]", "owners: [carol, 'Carol Smith']", "roles.yaml")
    _invalid(folder, "8:", "should match pattern", "roles.yaml")


def test_a_role_owner_listed_twice_is_an_error(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "owners: [carol]", "owners: [carol, carol]", "roles.yaml")
    _invalid(folder, "8:", "owner 'carol' is listed twice", "roles.yaml")


def test_a_campaign_name_that_is_no_folder_name_is_an_error(tmp_path: Path) -> None:
    folder = _portal(tmp_path, "name: q4-admins", "name: ../q4")
    _invalid(folder, "9:", "a campaign's name names its folder of reviews")
