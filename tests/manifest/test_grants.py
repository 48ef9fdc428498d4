"""Time-bound grants in the manifests: what `validate` says of them (file:line), and the
one resolution step that turns them into plain records at an evaluation time."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from reconciler import kind as registry
from reconciler.kind import Grants
from reconciler.manifest import load_desired
from reconciler.manifest.grants import next_deadline, resolved
from reconciler.plan.grants import overdue_grants
from reconciler.state import DesiredState, Grant, LiveState, PortalInfo
from reconciler.testing import orgctl
from tests.kinds import portal_note
from tests.plan.world import hq_target

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


def _noted(desired: DesiredState, active: Mapping[str, Sequence[Grant]]) -> DesiredState:
    """A test kind's grants: each note in force reads as its grant's reason."""
    notes = dict(desired.get(portal_note.NOTES))
    for address, grants in active.items():
        notes[address.partition("/")[2]] = grants[0].reason
    return replace(desired, kinds={**desired.kinds, portal_note.NOTES: notes})


def _still_noted(grant: Grant, live: LiveState, at_now: DesiredState) -> bool:
    name = grant.address.partition("/")[2]
    return live.get(portal_note.NOTES).get(name) == grant.reason


@pytest.fixture
def granting_notes() -> Iterator[None]:
    kind = replace(portal_note.KIND, grants=Grants(apply=_noted, held=_still_noted))
    registry.register(kind)
    yield
    registry.unregister(kind.name)


def test_each_kind_applies_its_own_grants(granting_notes: None) -> None:
    """The resolution names no kind: a kind of the tests' own states how its grants
    apply, and when an expired one is still held live."""
    desired = DesiredState(hq_target())
    desired.put(portal_note.NOTES, {"hello": "hi", "later": "bye"})
    until = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    for name in ("hello", "later"):
        address = portal_note.ADDRESS.of(name)
        desired.grants[address] = (Grant(address, until, f"{name}, granted"),)
    desired.grants["Unowned/x"] = (Grant("Unowned/x", until, "no kind's"),)
    before, after = until - dt.timedelta(days=1), until + dt.timedelta(days=1)
    assert resolved(desired, before).get(portal_note.NOTES) == {
        "hello": "hello, granted",
        "later": "later, granted",
    }
    assert resolved(desired, after).get(portal_note.NOTES) == {"hello": "hi", "later": "bye"}
    live = LiveState(PortalInfo("p", "hq", hq_target().platform, "admin"))
    live.put(portal_note.NOTES, {"hello": "hello, granted", "later": "bye"})
    assert list(overdue_grants(desired, live, after)) == [portal_note.ADDRESS.of("hello")]
