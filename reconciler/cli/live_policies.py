"""How `drift` shows a policy finding on stderr, for one portal or each portal of a fleet
(the findings themselves: reconciler.api.drifting, judged on the live state alone)."""

from __future__ import annotations

from typing import Any


def finding_line(finding: dict[str, Any], gating: bool, portal: str | None = None) -> str:
    """`Finding (policy, --fail-on) in hq: Member/gina: ...`: `gating` when --fail-on names
    its kind; `portal` in a fleet."""
    kind = f"{finding['kind']}, --fail-on" if gating else finding["kind"]
    where = f" in {portal}" if portal else ""
    return f"Finding ({kind}){where}: {finding['subject']}: {finding['message']}"
