"""One round trip per manifest kind, each driven by its own fixture (a `Case`): manifest,
validate, plan against `orgctl serve`, apply, the next plan empty, export (and the
exported folder plans empty), then a value drifted by hand and adopted back (or, for a
kind that states a policy, adopt refusing and saying why).

`PortalNote` is a kind defined only in the tests (tests/kinds/portal_note.py) and
registered through the same registry as the built-in ones: it passing the same trip is
what shows that a kind is one module (docs/adding-a-kind.md).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from reconciler.kinds import registry
from tests.kinds import portal_note

from .harness import EXAMPLES, PortalApi, World, output_of, plan_json

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class Case:
    kind: str
    portal: str  # the demo portal (urlKey) whose example Portal document is used
    manifest: str  # the kind's documents
    drift: Callable[[PortalApi], None] | None  # a value changed by hand on the portal
    adopt: str  # the address adopted back
    adopted: str  # what the manifests say once it is (or why adopt refuses)


def _workspace_info(api: PortalApi) -> None:
    path = f"portals/{api.portal_id}/collaborations/c1/workspaces/ws1/updateInfo"
    api.post(path, name="Renamed by hand")


def _settings(api: PortalApi) -> None:
    values = {"notificationAttempts": 2, "notificationTimeOutInSeconds": 10}
    values |= {"notificationElapsedTimeInSeconds": 5, "numberOfFailures": 5, "daysInPast": 5}
    api.admin_post("services/webhooks/settings", **values)


def _note(api: PortalApi) -> None:
    text = json.dumps({"message": "written by hand"})
    api.post(f"portals/{api.portal_id}/addResource", key="note-banner.json", text=text)


CASES = [
    Case(
        "Role",
        "hq",
        "kind: Role\nmetadata: {name: Round Trip}\n"
        "spec: {description: Reads, privileges: [portal:user:joinGroup]}\n",
        lambda api: api.set_privileges(
            "Round Trip", ["portal:user:joinGroup", "portal:user:viewOrgItems"]
        ),
        "Role/Round Trip",
        "portal:user:viewOrgItems",
    ),
    Case(
        "Members",
        "hq",
        "kind: Members\nmetadata: {name: staff}\nspec: {members: {bob: {role: org_publisher}}}\n",
        lambda api: api.post(
            f"portals/{api.portal_id}/updateuserrole", user="bob", role="org_user"
        ),
        "Member/bob",
        "role: org_user",
    ),
    Case(
        "Collaboration",
        "hq",
        "kind: Collaboration\nmetadata: {name: Regional sharing, id: c1}\n"
        "spec: {workspaces: {ws1: {name: Field data 2}}}\n",
        _workspace_info,
        "Workspace/c1/ws1",
        "name: Renamed by hand",
    ),
    Case(
        "WebhookSettings",
        "field",
        "kind: WebhookSettings\nmetadata: {name: delivery}\nspec: {notificationAttempts: 4}\n",
        _settings,
        "WebhookSettings",
        "notificationAttempts: 2",
    ),
    Case(
        "OrganizationWebhooks",
        "field",
        "kind: OrganizationWebhooks\nmetadata: {name: org}\nspec: {absent: [old-sync-hook]}\n",
        None,
        "OrganizationWebhook/w1",
        "cannot be adopted: OrganizationWebhooks states which webhooks must go",
    ),
    Case(
        "TaskRunRetention",
        "field",
        "kind: TaskRunRetention\nmetadata: {name: runs}\n"
        "spec: {user: frank, tasks: ['*'], keepLast: 10}\n",
        None,
        "TaskRun/frank/t1/t1-run-12",
        "cannot be adopted: TaskRunRetention states which runs must go",
    ),
    Case(
        "PortalNote",
        "field",
        "kind: PortalNote\nmetadata: {name: banner}\nspec: {message: Maintenance on Sunday}\n",
        _note,
        "PortalNote/banner",
        "message: written by hand",
    ),
]


@pytest.fixture
def test_kind() -> Iterator[None]:
    """The tests' own kind, registered for one test as any kind is."""
    registry.register(portal_note.KIND)
    yield
    registry.unregister(portal_note.KIND.name)


# Kinds that declare no live resource, so have nothing to apply, export or adopt: each
# is driven against the service by its own tests (Policy: tests/e2e/test_policies.py,
# Campaign: tests/e2e/test_certify.py).
JUDGED_ONLY = {"Policy", "Campaign"}


def test_every_registered_kind_has_its_round_trip(test_kind: None) -> None:
    kinds = sorted(k.name for k in registry.registered() if k.name not in JUDGED_ONLY)
    assert kinds == sorted(c.kind for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.kind for c in CASES])
def test_a_kind_makes_the_round_trip(
    demo: World, tmp_path: Path, test_kind: None, case: Case
) -> None:
    kind = registry.kind_named(case.kind)
    folder = tmp_path / "manifests"
    folder.mkdir()
    shutil.copy(EXAMPLES / case.portal / "portal.yaml", folder / "portal.yaml")
    (folder / "kind.yaml").write_text("apiVersion: orgctl/v1\n" + case.manifest)

    def run(*args: str | Path) -> str:
        result = demo.orgctl(*args, portal=case.portal)
        assert result.returncode == 0, output_of(result)
        return result.stdout + result.stderr

    run("validate", folder)
    planned = plan_json(demo.orgctl("plan", folder, "--format", "json", portal=case.portal))
    heads = tuple(form.head for form in kind.addresses)
    assert planned["calls"] and not planned["errors"], planned
    assert all(c["address"].split("/")[0] in heads for c in planned["changes"]), planned
    run("apply", folder, "--auto-approve")
    run("plan", folder, "--detailed-exitcode")

    out = tmp_path / "exported"
    root = demo.service.url + "/" + case.portal
    said = run(
        "export", "--portal-url", f"{root}/sharing/rest", "--admin-url", f"{root}/admin", "-o", out
    )
    if kind.export.file:
        assert (out / kind.export.file).is_file(), said
        run("plan", out, "--detailed-exitcode")
    else:
        assert case.kind in said  # what it leaves out, and why

    if case.drift is None:
        refused = demo.orgctl("adopt", case.adopt, folder, portal=case.portal)
        assert refused.returncode == 1 and case.adopted in refused.stderr, output_of(refused)
        return
    case.drift(demo.api(case.portal))
    drifted = demo.orgctl("plan", folder, "--detailed-exitcode", portal=case.portal)
    assert drifted.returncode == 2, output_of(drifted)
    run("adopt", case.adopt, folder)
    assert case.adopted in "".join(p.read_text() for p in sorted(folder.glob("*.yaml")))
    run("plan", folder, "--detailed-exitcode")
