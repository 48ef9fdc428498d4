"""What validate cannot know to be wrong offline is a warning: printed in every format,
never failing. A member's role that is neither built-in nor declared is one, with the
closest name, unless the manifests hold every role of the portal (then it is an error)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.manifest.conftest import members_document, run_cli
from tests.manifest.test_loader_and_rules import portal, write

ROLES = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Field Analyst}
spec:
  privileges: [portal:user:joinGroup]
"""
MEMBERS = members_document(
    "    alice: {role: Feld Analyst}\n"
    "    bob: {role: org_publishr}\n"
    "    carol: {role: org_publisher}\n"
    "    dave: {role: Viewer}\n"
)


def folder(tmp_path: Path, portal_text: str = "") -> Path:
    files = {"portal.yaml": portal_text or portal(), "roles.yaml": ROLES, "members.yaml": MEMBERS}
    return write(tmp_path, files)


def test_unknown_member_roles_are_warnings_with_the_closest_name(tmp_path: Path) -> None:
    root = folder(tmp_path)
    result = run_cli("validate", str(root))
    assert result.exit_code == 0, result.output
    members = root / "members.yaml"
    assert (
        f"{members}:6: warning: Members \"staff\": spec.members.alice.role: role 'Feld Analyst'"
        " is neither built-in nor declared: plan fails unless the portal already has it"
        " (did you mean 'Field Analyst'?)"
    ) in result.output
    assert f"{members}:7: warning: " in result.output and "'org_publisher'?" in result.output
    assert "carol" not in result.output and "dave" not in result.output  # built-in, pre-built
    assert result.output.rstrip().endswith("valid: no problems found (2 warnings)")


def test_warnings_in_json_and_github_formats_leave_the_exit_code_alone(tmp_path: Path) -> None:
    root = folder(tmp_path)
    result = run_cli("validate", str(root), "--format", "json")
    assert result.exit_code == 0
    body = json.loads(result.output)
    assert body["valid"] is True and body["problems"] == []
    assert [(w["line"], w["field"]) for w in body["warnings"]] == [
        (6, "spec.members.alice.role"),
        (7, "spec.members.bob.role"),
    ]
    result = run_cli("validate", str(root), "--format", "github")
    assert result.exit_code == 0
    file = str(root / "members.yaml").replace(":", "%3A").replace(",", "%2C")
    lines = result.output.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f'::warning file={file},line=6::Members "staff": ')
    assert "did you mean 'Field Analyst'?" in lines[0]


def test_with_prune_roles_an_unknown_member_role_is_an_error(tmp_path: Path) -> None:
    root = folder(tmp_path, portal() + "  pruneRoles: true\n  keepRoles: [Feld Analyst]\n")
    result = run_cli("validate", str(root), "--format", "github")
    assert result.exit_code == 1
    (line,) = result.output.splitlines()  # Feld Analyst is a kept live role
    assert line.startswith("::error ") and "line=7::" in line
    assert "pruneRoles deletes every other role (did you mean 'org_publisher'?)" in line


def test_a_role_held_by_many_members_is_one_warning(tmp_path: Path) -> None:
    members = members_document("".join(f"    user{i}: {{role: Analysts}}\n" for i in range(500)))
    write(tmp_path, {"portal.yaml": portal(), "members.yaml": members})
    result = run_cli("validate", str(tmp_path))
    assert result.exit_code == 0
    (warning,) = [line for line in result.output.splitlines() if "warning:" in line]
    assert "role 'Analysts' (held by 500 members of this document)" in warning


def role(name: str) -> str:
    return ROLES.replace("{name: Field Analyst}", "{name: " + json.dumps(name) + "}")


def test_names_that_read_as_other_names_are_warnings(tmp_path: Path) -> None:
    """A Cyrillic letter among Latin ones, a zero-width space, a name Unicode normalizes
    otherwise: the portal stores each, and each reads as another name in a review."""
    roles = "---\n".join(role(n) for n in ("\u0410nalyst", "Cafe\u0301 Staff", "営業 Team"))
    members = members_document("    bo\u200bb: {role: org_user}\n    m\u00fcller: {}\n")
    write(tmp_path, {"portal.yaml": portal(), "roles.yaml": roles, "members.yaml": members})
    result = run_cli("validate", str(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.output
    found = {(w["field"], w["message"]) for w in json.loads(result.output)["warnings"]}
    assert found == {
        (
            "metadata.name",
            "name '\u0410nalyst' mixes Latin and Cyrillic letters (U+0410 CYRILLIC CAPITAL"
            " LETTER A at position 1): it looks like a name written in Latin alone",
        ),
        (
            "metadata.name",
            "name 'Cafe\u0301 Staff' is not in Unicode normal form NFC ('Caf\u00e9 Staff' looks"
            " the same but is another name); write it as NFC",
        ),
        (
            "spec.members.bo\u200bb",
            "username 'bo\\u200bb' holds an invisible character: U+200B ZERO WIDTH SPACE at"
            " position 3; it reads as another name",
        ),
    }


def test_a_character_the_service_refuses_stays_an_error(tmp_path: Path) -> None:
    write(tmp_path, {"portal.yaml": portal(), "roles.yaml": role("Analyst\u2066")})
    result = run_cli("validate", str(tmp_path), "--format", "json")
    assert result.exit_code == 1
    (problem,) = json.loads(result.output)["problems"]
    assert "U+2066" in problem["message"]
