"""`orgctl serve` answers the reads real organizations were captured answering (REST JS's
test mocks and Hub.js's fixtures, tests/fixtures/real_portals) with at least their keys,
each with the same JSON type: clients written against real portals read them unchecked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.service.harness import Api
from tests.service.world import ANALYST, CLOUD, FIELD, HQ
from tests.shapes import shape_problems

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real_portals"
ANALYSTS = {"dave", "erin", "grace", "oscar", "hank", "kim"}  # hq's custom-role members
PORTAL_IDS = {"hq": HQ, "field": FIELD, "cloud": CLOUD}


def captured(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


REST_JS_USERS = captured("rest-js-user-search.json")["UserSearchResponse"]
HUB_USERS = captured("hub-js-portal-users-search.json")
REST_JS_PORTAL = captured("rest-js-portal-response.json")["PortalResponse"]
REST_JS_ERRORS = captured("rest-js-errors.json")


def problems_against_every_entry(entries: list[Any], answers: list[Any]) -> list[str]:
    """Each captured entry against each answered one: the captured entries differ in which
    text they leave null, and every answered member must fit all of them."""
    assert entries and answers
    return sorted(
        {
            problem
            for entry in entries
            for answer in answers
            for problem in shape_problems(entry, answer)
        }
    )


def user_objects(api: Api, key: str) -> list[Any]:
    """A portal's members as each read of a user object shows them: both searches, one
    member, self, and the signed-in member of `portals/self`."""
    search = api.get(key, "portals/self/users/search", q="*", num=100)
    community = api.get(key, "community/users", q="*", num=100)
    first = search["results"][0]["username"]
    return [
        *search["results"],
        *community["results"],
        api.get(key, f"community/users/{first}"),
        api.get(key, "community/self"),
        api.get(key, "portals/self")["user"],
    ]


@pytest.mark.parametrize("key", ["hq", "field", "cloud"])
def test_members_have_the_keys_and_types_of_a_real_user_search(world_ro: Api, key: str) -> None:
    answers = user_objects(world_ro, key)
    assert problems_against_every_entry(REST_JS_USERS["results"], answers) == []
    search = world_ro.get(key, "portals/self/users/search", q="*")
    assert shape_problems({k: v for k, v in REST_JS_USERS.items() if k != "results"}, search) == []


@pytest.mark.parametrize("key", ["field", "cloud"])
def test_members_of_portals_with_user_types_fit_hub_js_too(world_ro: Api, key: str) -> None:
    """Hub.js's organization answers `userLicenseTypeId`, which portals with user types
    (10.7 and later, hosted-cloud) give; before them members had only levels."""
    answers = user_objects(world_ro, key)
    assert problems_against_every_entry(HUB_USERS["results"], answers) == []
    levels_only = user_objects(world_ro, "hq")
    assert all("userLicenseTypeId" not in user for user in levels_only)


def test_the_captured_rules_hold_member_by_member(world_ro: Api) -> None:
    """`level` a string, `roleId` only on a custom role, credits numbers; the member
    listing orgctl reads keeps the first two."""
    search = world_ro.get("hq", "portals/self/users/search", q="*", num=100)["results"]
    listing = world_ro.get("hq", f"portals/{HQ}/users", num=100)["users"]
    for member in search + listing:
        assert member["level"] in ("1", "2")
        assert ("roleId" in member) == (member["username"] in ANALYSTS), member
    for member in search:
        assert isinstance(member["availableCredits"], int | float)
        assert isinstance(member["assignedCredits"], int | float)
    assert {m["username"]: m.get("roleId") for m in listing}["dave"] == ANALYST


# Keys the service used to send that no real portal does, and that orgctl's predictions
# read (docs/rules.md §A): each fact now comes from where the vendor publishes it.
INTERNAL_KEYS = frozenset(
    {"deployment", "levelQuotas", "levelDisallowedApps", "appLicenses", "defaultAdmin", "editable"}
)


def keys_anywhere(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_anywhere(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_anywhere(v)}
    return set()


@pytest.mark.parametrize("key", ["hq", "field", "cloud"])
def test_no_internal_key_reaches_the_wire(world_ro: Api, key: str) -> None:
    pid = PORTAL_IDS[key]
    members = world_ro.listing(key, f"portals/{pid}/users", "users")
    answers = [
        world_ro.get(key, "portals/self"),
        world_ro.get(key, f"portals/{pid}/roles", returnPrivileges="true", num=100),
        members,
        *user_objects(world_ro, key),
        *(world_ro.get(key, f"community/users/{m['username']}") for m in members),
    ]
    assert keys_anywhere(answers) & INTERNAL_KEYS == set()


@pytest.mark.parametrize("key", ["hq", "cloud"])
def test_portals_self_has_the_keys_and_types_of_a_real_one(world_ro: Api, key: str) -> None:
    answer = world_ro.get(key, "portals/self")
    assert shape_problems(REST_JS_PORTAL, answer) == []


def test_error_envelopes_have_the_keys_and_types_of_real_ones(world_ro: Api) -> None:
    missing_token = world_ro.get("hq", "portals/self", auth=None)
    assert shape_problems(REST_JS_ERRORS["ArcGISServerTokenRequired"], missing_token) == []
    assert missing_token["error"]["code"] == 499
    bad_password = world_ro.generate_token("hq", "admin", "wrong")
    assert shape_problems(REST_JS_ERRORS["GenerateTokenError"], bad_password) == []
    assert (
        bad_password["error"]["message"] == REST_JS_ERRORS["GenerateTokenError"]["error"]["message"]
    )
    refused = world_ro.post("hq", f"portals/{HQ}/createRole", name="")
    assert shape_problems(REST_JS_ERRORS["ArcGISOnlineError"], refused) == []
