"""Reads of members as the vendor answers them: one visibility rule for a member read and
the user searches (`visibility`), an unknown member's 400, the search's AND / OR / NOT
(`user_query`), and the 403 and 499 envelopes in the vendor's words."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.harness import HQ_ID, Api, error_of, hq_state

from .conftest import Serve

PORTAL = HQ_ID
# The vendor's words, as real portals send them (not the service's own constants).
USER_INACCESSIBLE = "User does not exist or is inaccessible."
NO_PERMISSION = "You do not have permissions to access this resource or perform this operation."
ACCOUNT_KEYS = {"role", "roleId", "level", "privileges", "lastLogin", "disabled", "email"}
STATE = hq_state(
    "10.6.1",
    users=[
        {"username": "admin", "password": "admin-pass", "role": "org_admin",
         "defaultAdmin": True, "level": 2},
        {"username": "alice", "password": "alice-pass", "role": "org_user", "level": 2},
        {"username": "carol", "password": "carol-pass", "role": "org_publisher", "level": 2},
        {"username": "pat", "password": "pat-pass", "role": "org_user", "level": 2,
         "access": "private"},
        {"username": "quinn", "password": "quinn-pass", "role": "Hermit", "level": 2},
        {"username": "rita", "password": "rita-pass", "role": "Reviewer", "level": 2},
    ],
    roles=[
        {"id": "r0000000000008", "name": "Hermit", "description": "Sees no one",
         "privileges": ["portal:user:joinGroup"]},
        {"id": "r0000000000009", "name": "Reviewer", "description": "Reads accounts",
         "privileges": ["portal:admin:viewUsers"]},
    ],
)  # fmt: skip


@pytest.fixture
def hq(serve: Serve) -> Api:
    return serve(STATE)


def search(api: Api, token: str, q: str) -> list[dict[str, Any]]:
    answer = api.get("hq", "community/users", auth=token, q=q, num=100)
    assert "results" in answer, answer
    return list(answer["results"])


def names(results: list[dict[str, Any]]) -> list[str]:
    return [user["username"] for user in results]


def test_an_unknown_member_answers_as_the_vendor_does(hq: Api) -> None:
    """Code 400 and the text the vendor's Python client's users.get turns into None."""
    error = error_of(hq.get("hq", "community/users/nobody"), 400)
    assert error["message"] == USER_INACCESSIBLE


def test_a_colleague_read_by_a_member_shows_the_profile_not_the_account(hq: Api) -> None:
    alice = hq.token("hq", "alice", "alice-pass")
    carol = hq.get("hq", "community/users/carol", auth=alice)
    assert carol["username"] == "carol" and carol["orgId"] == PORTAL
    assert carol["access"] == "org"
    assert not ACCOUNT_KEYS & set(carol), sorted(ACCOUNT_KEYS & set(carol))
    own = hq.get("hq", "community/users/alice", auth=alice)
    assert ACCOUNT_KEYS - {"roleId"} <= set(own)


def test_account_readers_see_whole_accounts_in_reads_and_searches(hq: Api) -> None:
    for who in ("admin", "rita"):
        token = hq.token("hq", who, f"{who}-pass")
        assert hq.get("hq", "community/users/pat", auth=token)["role"] == "org_user"
        found = {u["username"]: u for u in search(hq, token, "role:org_user")}
        assert {"alice", "pat"} <= set(found)
        assert ACCOUNT_KEYS - {"roleId", "privileges"} <= set(found["alice"])


def test_a_member_s_search_shows_profiles_and_never_matches_on_account_fields(hq: Api) -> None:
    alice = hq.token("hq", "alice", "alice-pass")
    found = search(hq, alice, "")
    # pat is private, so alice sees neither pat nor pat's account; her own account she sees
    assert names(found) == ["admin", "alice", "carol", "quinn", "rita"]
    for user in found:
        shown = ACCOUNT_KEYS & set(user)
        assert (user["username"] == "alice") == bool(shown), (user["username"], shown)
    # a search by role would tell the roles the profiles leave out
    assert names(search(hq, alice, "role:org_admin")) == []


def test_a_private_member_is_out_of_reach_of_colleagues(hq: Api) -> None:
    alice = hq.token("hq", "alice", "alice-pass")
    error = error_of(hq.get("hq", "community/users/pat", auth=alice), 400)
    assert error["message"] == USER_INACCESSIBLE
    assert names(search(hq, alice, "pat")) == []
    pat = hq.token("hq", "pat", "pat-pass")
    assert hq.get("hq", "community/users/pat", auth=pat)["access"] == "private"


def test_a_member_without_view_org_users_sees_only_itself(hq: Api) -> None:
    quinn = hq.token("hq", "quinn", "quinn-pass")
    error_of(hq.get("hq", "community/users/alice", auth=quinn), 400)
    assert names(search(hq, quinn, "")) == ["quinn"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("role:org_admin OR role:org_publisher", ["admin", "carol"]),
        ("role:org_user", ["alice", "pat", "quinn", "rita"]),  # custom roles read org_user
        ("role:org_user AND username:a*", ["alice"]),
        ("role:org_user username:a*", ["alice"]),  # side by side: AND
        ("role:org_admin OR role:org_user AND username:p*", ["admin", "pat"]),
        ("(role:org_admin OR role:org_user) AND username:a*", ["admin", "alice"]),
        ("role:org_user NOT username:pat", ["alice", "quinn", "rita"]),
        (
            f"username:carol OR accountid:{PORTAL}",
            ["admin", "alice", "carol", "pat", "quinn", "rita"],
        ),
        ("username:carol OR accountid:ffffffffffffffff", ["carol"]),
    ],
)
def test_the_search_reads_and_or_not_and_parentheses(
    hq: Api, query: str, expected: list[str]
) -> None:
    assert names(search(hq, hq.token("hq"), query)) == expected


@pytest.mark.parametrize("query", ["(role:org_user", "role:org_user OR", "AND alice", "a )"])
def test_a_malformed_query_is_refused(hq: Api, query: str) -> None:
    error = error_of(hq.get("hq", "community/users", q=query), 400, "GWM_0001")
    assert error["message"].startswith("Invalid query")


def test_the_org_user_search_reads_or_as_the_vendor_s_captured_answer_shows(hq: Api) -> None:
    """REST JS keeps a real organization's answer to exactly this query."""
    q = "role:org_user OR role:org_publisher"
    answer = hq.get("hq", "portals/self/users/search", q=q, num=100)
    assert answer["query"] == q
    assert names(answer["results"]) == ["alice", "carol", "pat", "quinn", "rita"]


def test_403_and_499_speak_the_vendor_s_words(hq: Api) -> None:
    alice = hq.token("hq", "alice", "alice-pass")
    refused = error_of(hq.post("hq", f"portals/{PORTAL}/createRole", auth=alice, name="X"), 403)
    assert (refused["messageCode"], refused["message"]) == ("GWM_0003", NO_PERMISSION)
    assert refused["details"], "who may call it is in details"
    missing = error_of(hq.get("hq", "portals/self", auth=None), 499, "GWM_0003")
    assert (missing["message"], missing["details"]) == ("Token Required", ["Token Required"])


@pytest.mark.parametrize("portal_id", ["ffffffffffffffff", "0123456789ABCDEF", "made-up"])
def test_another_portal_id_is_not_this_portal(hq: Api, portal_id: str) -> None:
    """Only `self` and this portal's id name this portal; the answer was this portal."""
    error_of(hq.get("hq", f"portals/{portal_id}"), 404, "GWM_0006")
    assert hq.get("hq", f"portals/{PORTAL}")["id"] == PORTAL


def test_portals_languages_is_the_vendor_s_languages_list(hq: Api) -> None:
    """A bare array, as the vendor's Languages page shows; read without a token too."""
    languages = hq.get("hq", "portals/languages", auth=None)
    assert isinstance(languages, list) and languages
    assert {"language": "English", "culture": "en", "localizedName": "English"} in languages


def test_a_member_updates_its_profile_and_access_hides_it(hq: Api) -> None:
    alice = hq.token("hq", "alice", "alice-pass")
    path = "community/users/alice/update"
    body = hq.post("hq", path, auth=alice, description="Field analyst", access="private")
    assert body == {"success": True, "username": "alice"}
    own = hq.get("hq", "community/users/alice", auth=alice)
    assert (own["description"], own["access"]) == ("Field analyst", "private")
    carol = hq.token("hq", "carol", "carol-pass")
    error_of(hq.get("hq", "community/users/alice", auth=carol), 400)
    refused = error_of(hq.post("hq", path, auth=carol, description="x"), 403, "GWM_0003")
    assert "updateUsers" in " ".join(refused["details"])
    error_of(hq.post("hq", path, auth=alice, access="everyone"), 400, "GWM_0001")
    for field, text in (("fullname", "Ann\x1b[2J"), ("tags", "a\u202eb"), ("email", "x" * 257)):
        error_of(hq.post("hq", path, auth=alice, **{field: text}), 400, "GWM_0001")
    assert hq.post("hq", path, description="Set by admin")["success"] is True
