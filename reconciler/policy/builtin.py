"""The policies orgctl ships: mandatory, judged on every plan whatever the manifests
declare, in the same CEL and over the same variables as a folder's own policies.

- default-administrator: the default administrators are the members holding the
  built-in Administrator role (`org_admin`, docs/rules.md §5). The portal refuses to move
  the last one out of it (ORG_1090), whichever member it is, so a plan that moves every
  one of them, with none moved in, is an error. It judges what a plan changes: on the
  live state alone (drift, access) the after-values equal the before-values and it
  holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from reconciler.plan.model import PolicyVerdict

if TYPE_CHECKING:
    from reconciler.policy.verdicts import Rule


@dataclass(frozen=True, slots=True)
class BuiltIn:
    name: str
    description: str
    subject: str
    rule: str
    message: str
    enforcement: str = "mandatory"
    match: str | None = None


DEFAULT_ADMINISTRATOR = BuiltIn(
    name="default-administrator",
    description=(
        "The portal keeps a default administrator (a member holding org_admin): it refuses"
        " to move the last one out of the role (ORG_1090)."
    ),
    subject="portal",
    rule="portal.administratorsBefore == 0 || portal.administrators > 0",
    message=(
        "this plan leaves the portal without a default administrator: it moves every"
        " org_admin ({administratorNamesBefore}) to another role, and the portal refuses"
        " to move the last one (ORG_1090); keep at least one"
    ),
)

BUILTINS: tuple[BuiltIn, ...] = (DEFAULT_ADMINISTRATOR,)


def shown(policy: BuiltIn) -> dict[str, object]:
    """As `orgctl policy list` shows a policy."""
    return {
        "name": policy.name,
        "builtIn": True,
        "declaredAt": None,
        "enforcement": policy.enforcement,
        "subject": policy.subject,
        "description": policy.description,
        "match": policy.match,
        "rule": policy.rule,
        "message": policy.message,
        "exceptions": [],
    }


@cache
def _portal_rules() -> list[Rule]:
    from reconciler.policy.verdicts import compiled

    return [
        compiled(p.name, p.enforcement, p.subject, p.match, p.rule, p.message, ())
        for p in BUILTINS
        if p.subject == "portal"
    ]


def judged(
    before: Mapping[str, object], after: Mapping[str, object], address: str, now_ms: int
) -> list[PolicyVerdict]:
    """The built-in portal policies' verdicts on the `portal` variable before and after a
    plan (reconciler.policy.variables)."""
    import datetime as dt

    from reconciler.policy.verdicts import judge

    rules = _portal_rules()
    now = dt.datetime.fromtimestamp(now_ms / 1000, dt.UTC)
    was = {"portal": [(address, dict(before))]}
    will = {"portal": [(address, dict(after))]}
    return judge(rules, was, will, now, {})
