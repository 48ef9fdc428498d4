"""Members' `disabled` and `lastLogin`: seeded from the state file, reported by the member
listing and the user objects as real portals answer them, `lastLogin` recorded by each
sign-in on the service clock, and a disabled account refused (told only to who knows its
password). The access report (README: access reviews) reads these."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.service.harness import Api, error_of

CLOCK = "2026-11-01T00:00:00Z"
CLOCK_MS = 1_793_491_200_000
STATE: dict[str, Any] = {
    "clock": CLOCK,
    "portals": [
        {
            "id": "0123456789abcdef",
            "urlKey": "hq",
            "name": "HQ",
            "deployment": "self-hosted",
            "version": "10.6.1",
            "users": [
                {
                    "username": "admin",
                    "password": "admin-pass",
                    "role": "org_admin",
                    "defaultAdmin": True,
                },
                {
                    "username": "sam",
                    "password": "sam-pass",
                    "role": "org_admin",
                    "lastLogin": "2026-01-01T00:00:00Z",
                },
                {
                    "username": "dora",
                    "password": "dora-pass",
                    "role": "org_admin",
                    "disabled": True,
                    "lastLogin": 1_790_000_000_000,
                },
                {"username": "nina", "password": "nina-pass", "role": "org_user"},
            ],
        }
    ],
}


def members(api: Api) -> dict[str, dict[str, Any]]:
    return {u["username"]: u for u in api.listing("hq", "portals/self/users", "users")}


def test_the_listing_reports_what_the_state_seeds_and_sign_ins_record(
    serve: Callable[[dict[str, Any]], Api],
) -> None:
    api = serve(STATE)
    listed = members(api)  # signs in as admin first
    assert listed["sam"]["lastLogin"] == 1_767_225_600_000 and listed["sam"]["disabled"] is False
    assert listed["dora"]["lastLogin"] == 1_790_000_000_000 and listed["dora"]["disabled"] is True
    assert listed["nina"]["lastLogin"] == -1  # never signed in
    assert listed["admin"]["lastLogin"] == CLOCK_MS  # this very sign-in, on the service clock
    assert api.get("hq", "community/users/sam")["lastLogin"] == 1_767_225_600_000

    api.token("hq", "nina")
    assert members(api)["nina"]["lastLogin"] == CLOCK_MS


def test_a_disabled_account_is_refused_and_says_so_only_with_its_password(
    serve: Callable[[dict[str, Any]], Api],
) -> None:
    api = serve(STATE)
    refused = error_of(api.generate_token("hq", "dora", "dora-pass"), 400, "GWM_0009")
    assert "This account has been disabled." in refused["details"]
    guessed = error_of(api.generate_token("hq", "dora", "wrong"), 400, "GWM_0009")
    assert "disabled" not in str(guessed)
    assert members(api)["dora"]["lastLogin"] == 1_790_000_000_000  # no sign-in recorded
