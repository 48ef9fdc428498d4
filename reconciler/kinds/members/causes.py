"""Why a member's policy verdict changed with a plan (reconciler.policy.verdicts.judge's
`cause_of`): the planned change of the member itself or, untouched itself, of the role
it holds after the plan or held before it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from reconciler.kinds.members.names import ADDRESS
from reconciler.kinds.role import document as role_kind
from reconciler.policy.variables import Access


def causes(changed: set[str], before: Access, after: Access) -> Mapping[str, str]:
    """Subject address -> the address of the planned change causing its verdict. A member
    untouched itself takes the change of its role, after the plan or (for a cure by
    leaving a role) before it. Worked out for the addresses asked about alone: only
    introduced and cured violations have a cause."""
    return _Causes(changed, before, after)


class _Causes(Mapping[str, str]):
    def __init__(self, changed: set[str], before: Access, after: Access) -> None:
        self.changed, self.before, self.after = changed, before, after

    def __getitem__(self, address: str) -> str:
        if address in self.changed:
            return address
        head, _, username = address.partition("/")
        member = self.after.members.get(username) if head == ADDRESS.head else None
        if member is None:
            raise KeyError(address)
        was = self.before.members.get(username)
        for role in (member.role, was.role if was else None):
            if role is not None and role_kind.ADDRESS.of(role) in self.changed:
                return role_kind.ADDRESS.of(role)
        raise KeyError(address)

    def __iter__(self) -> Iterator[str]:
        members = (ADDRESS.of(username) for username in self.after.members)
        return (a for a in {*self.changed, *members} if a in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)
