"""`orgctl doctor --portal-url` against a portal answering what real organizations
answered (tests/fixtures/real_portals): REST JS's captured `portals/self`, signed in as
an administrator of Hub.js's captured user search, whose members make the member
listing. Real shapes carry every key orgctl's readers take, with the JSON types they
read, so the doctor names no difference of the reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.cli import env_with, orgctl
from tests.e2e.captured import CapturedPortal, listing
from tests.e2e.harness import output_of

pytestmark = pytest.mark.e2e

SIGNED_IN = "t.hervey"  # org_admin in Hub.js's captured search


class SignedInPortal(CapturedPortal):
    """The captured organization as its administrator sees it: `portals/self` names the
    member (REST JS's capture was made signed out), and its file resources, where the
    apply lock would live, are an empty listing."""

    def __init__(self) -> None:
        super().__init__("hub-js")
        self.portal = {**self.portal, "user": _member(self.members, SIGNED_IN)}

    def body(self, segments: list[str], fields: dict[str, str]) -> Any:
        if segments[:1] == ["portals"] and segments[2:] == ["resources"]:
            return listing([], "resources", fields)
        return super().body(segments, fields)


def _member(members: list[Any], username: str) -> Any:
    return next(m for m in members if m["username"] == username)


def test_a_captured_organization_fits_every_read_orgctl_makes() -> None:
    with SignedInPortal() as portal:
        env = env_with(ORGCTL_TOKEN="captured-organization-token")
        done = orgctl("doctor", "--portal-url", portal.url, "--format", "json", env=env)
    assert done.returncode == 0, output_of(done)
    report = json.loads(done.stdout)
    assert report["release"] == "hosted-cloud 2017-12"
    assert [f for f in report["findings"] if f["severity"] != "ok" and f["check"] == "reads"] == []
    assert report["reads"]["portal"] == 1 and report["reads"]["members"] >= 1
    signed = next(f for f in report["findings"] if f["check"] == "sign-in")
    assert signed == {
        "check": "sign-in",
        "severity": "ok",
        "message": f"signed in as {SIGNED_IN} (org_admin)",
    }
    assert "captured-organization-token" not in done.stdout + done.stderr


def test_a_signed_out_capture_is_named_as_such() -> None:
    """REST JS's `portals/self` as captured names nobody: the doctor says what it could
    not check, and that the key the readers take the member from is missing."""
    with CapturedPortal() as portal:
        env = env_with(ORGCTL_TOKEN="captured-organization-token")
        done = orgctl("doctor", "--portal-url", portal.url, env=env)
    assert done.returncode == 1, output_of(done)
    anonymous = "DIFFERS  sign-in: portals/self names no signed-in member (an anonymous view)"
    assert anonymous in done.stdout
    assert "DIFFERS  reads: portal: user.username is missing from all 1 answer(s)" in done.stdout
    assert "BLOCKER  apply lock: the portal's resources" in done.stdout
