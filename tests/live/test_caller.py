"""The signed-in member and the default administrators, as `portals/self` tells them:
the default administrators are the members assigned the built-in Administrator role
(docs/rules.md §5), which a portal says by `role` and `roleId`; what it leaves out stays
unknown."""

from __future__ import annotations

from reconciler.live import records
from reconciler.plan.capabilities import is_default_admin
from reconciler.state import Caller


def test_every_member_on_the_built_in_administrator_role_is_a_default_administrator() -> None:
    user = {
        "username": "admin2",
        "role": "org_admin",
        "roleId": "org_admin",
        "privileges": ["portal:admin:changeUserRoles"],
        # The flag an older reference service sent is not the vendor's, and not read.
        "defaultAdmin": False,
    }
    caller = records.caller(user)
    assert caller == Caller(
        "admin2", "org_admin", "org_admin", frozenset({"portal:admin:changeUserRoles"})
    )
    assert is_default_admin(caller)


def test_a_real_portal_s_user_leaves_privileges_unknown() -> None:
    custom_admin = records.caller({"username": "deputy", "role": "org_admin", "roleId": "rX1"})
    assert custom_admin == Caller("deputy", "org_admin", "rX1", None)
    assert not is_default_admin(custom_admin)  # a custom administrative role
    built_in = records.caller({"username": "boss", "role": "org_admin"})
    assert built_in is not None and is_default_admin(built_in)
    assert records.caller({}) is None
