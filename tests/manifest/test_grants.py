"""Time-bound grants in the manifests: what `validate` says of them (file:line), and the
one resolution step that turns them into plain records at an evaluation time."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from reconciler.manifest import load_desired
from reconciler.manifest.grants import next_deadline, resolved
from reconciler.testing import orgctl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hq"
ENV = {"ORGCTL_USERNAME": "admin", "ORGCTL_PASSWORD": "admin-pass"}

MEMBERS = """apiVersion: orgctl/v1
kind: Members
metadata:
  name: staff
spec:
  members:
    alice: {{level: 1, role: Field Analyst}}
    bob:
{bob}
"""
ROLE = """---
apiVersion: orgctl/v1
kind: Role
metadata:
  name: Reviewer
spec:
  description: Reads what it reviews
  privileges: [portal:user:viewOrgItems]
  temporaryPrivileges:
    - {privileges: [portal:user:createItem], until: "2030-03-01", reason: migration}
"""


def _portal(tmp_path: Path, bob: str, role: str = "") -> Path:
    folder = tmp_path / "hq"
    shutil.copytree(EXAMPLES, folder)
    (folder / "members.yaml").write_text(MEMBERS.format(bob=bob) + role)
    return folder


def _validated(folder: Path) -> tuple[int, str]:
    result = orgctl("validate", folder, env={})
    return result.returncode, result.stdout + result.stderr


GRANTED = """      role: org_user
      level: 2
      grants:
        - {role: org_publisher, until: 2030-01-01, reason: covers the team}
        - {level: 1, role: Field Analyst, until: "2030-02-01T12:00:00Z", reason: pilot}"""


FALLBACK = "      role: org_user\n      level: 2\n      grants:\n"


def test_a_grant_without_a_reason_is_refused_at_its_line(tmp_path: Path) -> None:
    bob = FALLBACK + "        - {role: org_admin, until: 2030-01-01}"
    code, said = _validated(_portal(tmp_path, bob))
    assert code == 1, said
    assert "members.yaml:12:" in said and "grants[0].reason" in said, said
    assert "Traceback" not in said


def test_an_entry_with_grants_declares_what_it_falls_back_to(tmp_path: Path) -> None:
    bob = "      grants:\n        - {role: org_publisher, until: 2030-01-01, reason: cover}"
    code, said = _validated(_portal(tmp_path, bob))
    assert code == 1, said
    assert "members.yaml:9:" in said, said
    assert "declares its own role" in said and "declares its own level" in said, said


def test_an_expired_grant_still_in_git_is_a_warning_to_remove_it(tmp_path: Path) -> None:
    bob = FALLBACK + "        - {role: org_admin, until: 2020-01-01, reason: old cover}"
    code, said = _validated(_portal(tmp_path, bob))
    assert code == 0, said
    assert "members.yaml:12:" in said and "expired on 2020-01-01" in said, said
    assert "remove it" in said


def test_the_desired_state_at_a_time_holds_the_grants_in_force_then(tmp_path: Path) -> None:
    desired = load_desired(_portal(tmp_path, GRANTED, ROLE), ENV)
    assert desired.members["bob"].role == "org_user"  # as declared: the fallback

    def at(text: str) -> tuple[str | None, int | None, frozenset[str] | None]:
        moment = dt.datetime.fromisoformat(text)
        state = resolved(desired, moment)
        return (
            state.members["bob"].role,
            state.members["bob"].level,
            state.roles["Reviewer"].privileges,
        )

    base = frozenset({"portal:user:viewOrgItems"})
    more = base | {"portal:user:createItem"}
    # The first grant in force naming a role decides it; the level comes from the second.
    assert at("2029-12-31T23:59:59+00:00") == ("org_publisher", 1, more)
    assert at("2030-01-01T00:00:00+00:00") == ("Field Analyst", 1, more)
    assert at("2030-02-01T12:00:00+00:00") == ("org_user", 2, more)
    assert at("2030-03-01T00:00:00+00:00") == ("org_user", 2, base)
    assert next_deadline(desired, dt.datetime(2030, 1, 15, tzinfo=dt.UTC)) == dt.datetime(
        2030, 2, 1, 12, tzinfo=dt.UTC
    )
