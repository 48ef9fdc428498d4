"""One round trip per manifest kind, each driven by its own fixture file
(`tests/fixtures/kinds/<Kind>.yaml`, picked up by glob; its format is described in
`Role.yaml`): manifest, validate, plan against `orgctl serve` (the addresses it changes
are the fixture's), apply, the next plan empty, export (and the exported folder plans
empty), then a value drifted by hand and adopted back (or, for a kind that states a
policy, adopt refusing and saying why). A kind whose plan changes nothing (a Policy) is
validated and planned only.

`PortalNote` is a kind defined only in the tests (tests/kinds/portal_note.py) and
registered through the same registry as the built-in ones: it passing the same trip is
what shows that a kind is one module (docs/adding-a-kind.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from orgctl_service.testing.service import PortalApi
from reconciler.kinds import registry
from tests.kinds import portal_note

from .harness import EXAMPLES, World, output_of, plan_json

pytestmark = pytest.mark.e2e

Runner = Callable[..., str]  # an orgctl command that must succeed; its output
FIXTURES = Path(__file__).parents[1] / "fixtures" / "kinds"


@dataclass(frozen=True)
class Drift:
    """A value changed by hand: `PortalApi.<method>(*args, **form)`."""

    method: str
    args: list[Any]
    form: dict[str, Any] = field(default_factory=dict)

    def on(self, api: PortalApi) -> None:
        args = [a.format(portalId=api.portal_id) if isinstance(a, str) else a for a in self.args]
        getattr(api, self.method)(*args, **self.form)


@dataclass(frozen=True)
class Case:
    kind: str  # the file's name
    portal: str  # the demo portal (urlKey) whose example Portal document is used
    manifest: str  # the kind's documents
    plan: list[str]  # the addresses the first plan changes, in any order
    drift: Drift | None = None
    adopt: str = ""  # the address adopted back
    adopted: str = ""  # what the manifests say once it is (or why adopt refuses)


def _case(path: Path) -> Case:
    given = yaml.safe_load(path.read_text(encoding="utf-8"))
    drift = given.pop("drift", None)
    return Case(path.stem, drift=Drift(**drift) if drift else None, **given)


CASES = [_case(path) for path in sorted(FIXTURES.glob("*.yaml"))]


@pytest.fixture
def test_kind() -> Iterator[None]:
    """The tests' own kind, registered for one test as any kind is."""
    registry.register(portal_note.KIND)
    yield
    registry.unregister(portal_note.KIND.name)


def test_every_registered_kind_has_its_fixture(test_kind: None) -> None:
    assert sorted(k.name for k in registry.registered()) == sorted(c.kind for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.kind for c in CASES])
def test_a_kind_makes_the_round_trip(
    demo: World, tmp_path: Path, test_kind: None, case: Case
) -> None:
    kind = registry.kind_named(case.kind)
    heads = {form.head for form in kind.addresses}
    assert {address.split("/")[0] for address in case.plan} <= heads, case.plan
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
    assert not planned["errors"], planned
    assert sorted({c["address"] for c in planned["changes"]}) == sorted(case.plan), planned
    assert bool(planned["calls"]) == bool(case.plan), planned
    if case.plan:
        run("apply", folder, "--auto-approve")
    run("plan", folder, "--detailed-exitcode")
    if case.plan:
        _export(demo, tmp_path / "exported", case, run)
        _drift_and_adopt(demo, folder, case, run)


def _export(demo: World, out: Path, case: Case, run: Runner) -> None:
    """The exported folder holds the kind's file and plans empty, or says what it left out."""
    kind = registry.kind_named(case.kind)
    root = demo.service.url + "/" + case.portal
    said = run(
        "export", "--portal-url", f"{root}/sharing/rest", "--admin-url", f"{root}/admin", "-o", out
    )
    if kind.export.file:
        assert (out / kind.export.file).is_file(), said
        run("plan", out, "--detailed-exitcode")
    else:
        assert case.kind in said  # what it leaves out, and why


def _drift_and_adopt(demo: World, folder: Path, case: Case, run: Runner) -> None:
    if case.drift is None:
        refused = demo.orgctl("adopt", case.adopt, folder, portal=case.portal)
        assert refused.returncode == 1 and case.adopted in refused.stderr, output_of(refused)
        return
    case.drift.on(demo.api(case.portal))
    drifted = demo.orgctl("plan", folder, "--detailed-exitcode", portal=case.portal)
    assert drifted.returncode == 2, output_of(drifted)
    run("adopt", case.adopt, folder)
    assert case.adopted in "".join(p.read_text() for p in sorted(folder.glob("*.yaml")))
    run("plan", folder, "--detailed-exitcode")
