"""A member's role is judged once per role, not once per member (100,000 members hold a
handful of roles): each holder of a retired name still gets its own problem, at its own
entry beside its other problems, and a member holding a name no one retires gets none."""

from __future__ import annotations

from pathlib import Path

from reconciler.manifest import validate
from tests.manifest.conftest import members_document

PORTAL = """apiVersion: orgctl/v1
kind: Portal
metadata: {name: hq}
spec:
  url: https://gis.example.com/portal/sharing/rest
  deployment: self-hosted
  version: "11.3"
  auth: {tokenEnv: ORGCTL_TOKEN}
"""
ROLES = """apiVersion: orgctl/v1
kind: Role
metadata: {name: Gone}
spec: {state: absent}
---
apiVersion: orgctl/v1
kind: Role
metadata: {name: Analyst, previousNames: [Viewer]}
spec: {description: d, privileges: [portal:user:joinGroup]}
"""


def test_each_holder_of_a_retired_role_name_has_its_own_problem(tmp_path: Path) -> None:
    (tmp_path / "portal.yaml").write_text(PORTAL)
    (tmp_path / "roles.yaml").write_text(ROLES)
    entries = (
        "    ann: {role: GONE}\n    bob: {role: Analyst}\n    cy: {role: gone}\n"
        "    di: {role: viewer}\n    ed: {role: Viewer, level: 2}\n"
    )
    (tmp_path / "members.yaml").write_text(members_document(entries))
    _documents, problems = validate(tmp_path, {"ORGCTL_TOKEN": "t"})
    found = {(p.field, p.message.split(" (")[0]) for p in problems}
    assert found == {
        ("spec.members.ann.role", "role 'GONE' is declared absent"),
        ("spec.members.cy.role", "role 'gone' is declared absent"),
        ("spec.members.di.role", "role 'viewer' is renamed to 'Analyst'"),
        ("spec.members.ed.role", "role 'Viewer' is renamed to 'Analyst'"),
        ("spec.members.ed.level", "updateUserLevel exists only up to self-hosted 10.6.1"),
    }
