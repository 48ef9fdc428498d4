"""The plan file (design §3): fixed key order, byte-identical for identical plans."""

from __future__ import annotations

import json
from typing import Any

from reconciler.errors import UserError
from reconciler.plan.draft import PRODUCES
from reconciler.plan.model import FORMAT_VERSION, Action, Call, Change, Plan, PortalRef, Problem
from reconciler.plan.render import Mode
from reconciler.plan.urls import operation_of


def plan_document(plan: Plan, mode: Mode = "plan") -> dict[str, Any]:
    calls = plan.calls if mode == "plan" else ()
    summary = plan.summary()
    summary["calls"] = len(calls)
    return {
        "formatVersion": FORMAT_VERSION,
        "portal": plan.portal.to_json(),
        "changes": [c.to_json() for c in plan.changes],
        "calls": [c.to_json() for c in calls],
        "errors": [p.to_json() for p in plan.errors],
        "warnings": [p.to_json() for p in plan.warnings],
        "summary": summary,
        "liveFingerprint": plan.liveFingerprint,
        "liveDigests": dict(plan.liveDigests),
        **({"manifests": plan.manifests} if plan.manifests else {}),
        **({"targets": list(plan.targets)} if plan.targets else {}),
    }


def render_json(plan: Plan, mode: Mode = "plan") -> str:
    return json.dumps(plan_document(plan, mode), sort_keys=False, indent=2) + "\n"


class PlanFileError(UserError):
    """A plan file that is not a plan orgctl can apply."""


def plan_from_json(text: str, source: str = "plan file") -> Plan:
    """The `Plan` a plan file holds; a clear `UserError` when it is not one."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanFileError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(doc, dict):
        raise PlanFileError(f"{source}: not an orgctl plan (expected a JSON object)")
    version = doc.get("formatVersion")
    if version != FORMAT_VERSION:
        raise PlanFileError(
            f"{source}: plan formatVersion {version!r} is not supported "
            f"(this orgctl reads {FORMAT_VERSION}); re-run orgctl plan -o"
        )
    try:
        return _plan(doc)
    except (KeyError, TypeError, ValueError) as exc:
        raise PlanFileError(f"{source}: malformed plan ({type(exc).__name__}: {exc})") from exc


def _plan(doc: dict[str, Any]) -> Plan:
    portal = doc["portal"]
    return Plan(
        portal=PortalRef(
            str(portal["url"]),
            str(portal["portalId"]),
            str(portal["deployment"]),
            str(portal["version"]),
        ),
        changes=tuple(_change(c) for c in doc["changes"]),
        calls=tuple(_call(c) for c in doc["calls"]),
        errors=tuple(_problem(p) for p in doc["errors"]),
        warnings=tuple(_problem(p) for p in doc.get("warnings", [])),
        liveFingerprint=str(doc["liveFingerprint"]),
        liveDigests={str(k): str(v) for k, v in dict(doc.get("liveDigests", {})).items()},
        manifests=str(doc["manifests"]) if doc.get("manifests") else None,
        targets=tuple(str(t) for t in doc.get("targets", [])),
    )


def _change(item: dict[str, Any]) -> Change:
    before, after = item["before"], item["after"]
    if before is not None and not isinstance(before, dict):
        raise TypeError(f"change {item['address']}: before must be an object or null")
    if after is not None and not isinstance(after, dict):
        raise TypeError(f"change {item['address']}: after must be an object or null")
    return Change(str(item["address"]), Action(item["action"]), before, after)


def _call(item: dict[str, Any]) -> Call:
    params = item["params"]
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        raise TypeError(f"call {item['seq']}: params must be an object of strings")
    operation = operation_of(str(item["url"]))
    return Call(
        seq=int(item["seq"]),
        address=str(item["address"]),
        operation=operation,
        url=str(item["url"]),
        params=dict(params),
        dependsOn=tuple(int(s) for s in item["dependsOn"]),
        produces=PRODUCES.get(operation),
        method=str(item.get("method", "POST")),
    )


def _problem(item: dict[str, Any]) -> Problem:
    return Problem(str(item["address"]), str(item["message"]))
