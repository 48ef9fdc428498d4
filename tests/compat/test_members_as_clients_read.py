"""Reads and updates of members as the vendor's client makes them: `users.get` of an
unknown member, a colleague read by a non-administrator, an OR search, `User.update`."""

from __future__ import annotations

from .conftest import SignIn


def test_users_get_of_an_unknown_member_is_none(sign_in: SignIn) -> None:
    """The client returns None only on the vendor's "User does not exist or is
    inaccessible." text; any other error is raised to the script."""
    assert sign_in("hq").users.get("nobody") is None


def test_a_member_reads_a_colleague_s_profile(sign_in: SignIn) -> None:
    colleague = sign_in("hq", "alice").users.get("carol")
    assert colleague is not None and colleague.username == "carol"


def test_an_or_search_finds_both_roles(sign_in: SignIn) -> None:
    found = sign_in("hq").users.search("role:org_admin OR role:org_publisher")
    assert sorted(u.username for u in found) == ["admin", "carol"]


def test_a_member_updates_its_own_profile(sign_in: SignIn) -> None:
    alice = sign_in("hq", "alice").users.me
    assert alice.update(description="Field analyst") is True
    assert sign_in("hq").users.get("alice").description == "Field analyst"
