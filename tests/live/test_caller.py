"""The signed-in member and the default administrator, as `portals/self` and the member
listing tell them: the reference service names its default administrator, real portals
only the role (`roleId`), and what a portal leaves out stays unknown."""

from __future__ import annotations

from reconciler.live import records
from reconciler.plan.capabilities import is_default_admin
from reconciler.state import Caller


def test_the_reference_service_s_user_names_privileges_and_the_default_administrator() -> None:
    user = {
        "username": "admin2",
        "role": "org_admin",
        "roleId": "org_admin",
        "privileges": ["portal:admin:changeUserRoles"],
        "defaultAdmin": False,
    }
    caller = records.caller(user)
    assert caller == Caller(
        "admin2", "org_admin", "org_admin", frozenset({"portal:admin:changeUserRoles"}), False
    )
    assert not is_default_admin(caller)


def test_a_real_portal_s_user_leaves_privileges_and_the_default_administrator_unknown() -> None:
    custom_admin = records.caller({"username": "deputy", "role": "org_admin", "roleId": "rX1"})
    assert custom_admin == Caller("deputy", "org_admin", "rX1", None, None)
    assert not is_default_admin(custom_admin)  # a custom administrative role
    built_in = records.caller({"username": "boss", "role": "org_admin"})
    assert built_in is not None and is_default_admin(built_in)
    assert records.caller({}) is None


def test_the_member_listing_names_the_default_administrator_only_when_it_says() -> None:
    service = [
        {"username": "admin", "defaultAdmin": True},
        {"username": "admin2", "defaultAdmin": False},
    ]
    assert records.default_admins(service) == frozenset({"admin"})
    assert records.default_admins([{"username": "admin", "role": "org_admin"}]) is None
