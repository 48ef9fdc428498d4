"""Adoption end to end against `orgctl serve`: `orgctl export` of each demo portal, then
`orgctl validate`, `orgctl plan --detailed-exitcode` and `orgctl drift` on the result:
valid, no changes, no drift."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli import env_with, orgctl, output_of
from tests.service.harness import Service

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEMO_STATE = EXAMPLES / "demo" / "state.yaml"
PORTALS = ("hq", "field", "cloud")
PASSWORD = "admin-pass"
PASSWORD_ENV = {"ORGCTL_USERNAME": "admin", "ORGCTL_PASSWORD": PASSWORD}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """One demo service for the module: export, plan and drift only read."""
    db = tmp_path_factory.mktemp("service") / "demo.sqlite"
    running = Service(db, DEMO_STATE, control=False).start()
    yield running
    running.stop()


def export(service: Service, portal: str, out: Path, env: dict[str, str]) -> str:
    root = f"{service.url}/{portal}"
    result = orgctl(
        "export",
        *("--portal-url", f"{root}/sharing/rest", "--admin-url", f"{root}/admin"),
        *("-o", out),
        env=env,
    )
    assert result.returncode == 0, output_of(result)
    return result.stdout.strip()


def text_of(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()))


@pytest.mark.parametrize("portal", PORTALS)
def test_export_then_plan_shows_no_changes(service: Service, tmp_path: Path, portal: str) -> None:
    env = env_with(**PASSWORD_ENV)
    out = tmp_path / portal
    summary = export(service, portal, out, env)
    assert summary.startswith("Exported ") and str(out) in summary

    validated = orgctl("validate", out, env=env)
    assert validated.returncode == 0, output_of(validated)
    planned = orgctl("plan", out, "--detailed-exitcode", env=env)
    assert planned.returncode == 0, output_of(planned)
    as_json = json.loads(orgctl("plan", out, "--format", "json", env=env).stdout)
    assert (as_json["changes"], as_json["calls"], as_json["errors"]) == ([], [], [])
    drift = orgctl("drift", out, env=env)
    assert drift.returncode == 0, output_of(drift)
    assert PASSWORD not in text_of(out) + summary


def test_demo_portals_export_what_they_hold(service: Service, tmp_path: Path) -> None:
    env = env_with(**PASSWORD_ENV)
    # The built-in kinds' phrases, in their order; a kind added later says its own after them.
    built_in = {
        "hq": "Exported 2 roles, 6 members, 1 collaboration (1 workspace)",
        "field": "Exported 0 roles, 2 members, 1 collaboration (1 workspace), webhook settings",
        "cloud": "Exported 1 role, 2 members, 0 collaborations",
    }
    for portal in PORTALS:
        line = export(service, portal, tmp_path / portal, env)
        assert line.startswith(built_in[portal]) and line.endswith(f" to {tmp_path / portal}."), (
            line
        )


def test_a_token_export_names_the_token_variable_and_plans_clean(
    service: Service, tmp_path: Path
) -> None:
    root = f"{service.url}/hq/sharing/rest"
    # Bound as orgctl binds its own: to the Referer it sends, the portal URL.
    form = {"username": "admin", "password": PASSWORD, "client": "referer", "referer": root}
    token = httpx.post(f"{root}/generateToken", data={**form, "f": "json"}).json()["token"]
    env = env_with(ORGCTL_TOKEN=token)
    out = tmp_path / "hq"
    export(service, "hq", out, env)
    portal = (out / "portal.yaml").read_text(encoding="utf-8")
    assert "tokenEnv: ORGCTL_TOKEN" in portal and "usernameEnv" not in portal
    assert token not in text_of(out)
    planned = orgctl("plan", out, "--detailed-exitcode", env=env)
    assert planned.returncode == 0, output_of(planned)


def test_exporting_again_gives_the_same_manifests(service: Service, tmp_path: Path) -> None:
    env = env_with(**PASSWORD_ENV)
    export(service, "hq", tmp_path / "a", env)
    export(service, "hq", tmp_path / "b", env)
    for first in sorted((tmp_path / "a").iterdir()):
        second = tmp_path / "b" / first.name
        # Only the header's time may differ.
        assert first.read_text().splitlines()[1:] == second.read_text().splitlines()[1:]


def test_after_the_examples_are_applied_the_export_still_plans_clean(tmp_path: Path) -> None:
    """The applied examples leave a level-1 member, a new role, two-way sync and a future
    schedule: states the demo seed does not have."""
    service = Service(tmp_path / "demo.sqlite", DEMO_STATE, control=False).start()
    try:
        for portal in PORTALS:
            root = f"{service.url}/{portal}"
            env = env_with(
                ORGCTL_PORTAL_URL=f"{root}/sharing/rest",
                ORGCTL_ADMIN_URL=f"{root}/admin",
                **PASSWORD_ENV,
            )
            applied = orgctl("apply", EXAMPLES / portal, "--auto-approve", env=env)
            assert applied.returncode == 0, output_of(applied)
        for portal in PORTALS:
            env = env_with(**PASSWORD_ENV)
            out = tmp_path / portal
            export(service, portal, out, env)
            planned = orgctl("plan", out, "--detailed-exitcode", env=env)
            assert planned.returncode == 0, output_of(planned)
        assert "enableFeatureServiceBidirectionalSync: true" in text_of(tmp_path / "field")
        assert "alice: {level: 1, role: Field Analyst}" in text_of(tmp_path / "hq")
    finally:
        service.stop()
