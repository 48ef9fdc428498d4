"""`member.grants`: the members' time-bound grants as a policy's rule sees them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from reconciler.address_forms import MEMBER
from reconciler.policy.variables import Access
from reconciler.state import Grant


class GrantValue(dict[str, Any]):
    """A grant as a rule sees it, `{role, level, until, reason}`: a map (CEL has no
    records) that hashes, so members alike still share one verdict."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self.items()))


def with_grants(access: Access, grants: Mapping[str, Iterable[Grant]]) -> Access:
    """`access` with the members' grants (`DesiredState.grants`, by address)."""
    found = {
        address.partition("/")[2]: tuple(
            GrantValue(role=g.role, level=g.level, until=g.until, reason=g.reason) for g in listed
        )
        for address, listed in grants.items()
        if address.startswith(f"{MEMBER.head}/")
    }
    return replace(access, grants=found) if found else access
