"""The plan file (README: plan JSON): fixed key order, byte-identical for identical plans."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

from reconciler.errors import UserError
from reconciler.jsontext import indented
from reconciler.operations import OPERATIONS, OperationName, segment_problem
from reconciler.plan.elements import field_elements, granted_admin
from reconciler.plan.model import (
    FORMAT_VERSION,
    Action,
    Call,
    Change,
    GrantNote,
    Holders,
    Ignored,
    LiveAdmin,
    Plan,
    PlanProblem,
    PolicyVerdict,
    PortalRef,
    Ref,
    Value,
)
from reconciler.plan.render import Mode
from reconciler.plan.render.lines import riskiest_first

T = TypeVar("T")


def plan_document(plan: Plan, mode: Mode = "plan") -> dict[str, Any]:
    calls = plan.calls if mode == "plan" else ()
    summary = plan.summary()
    summary["calls"] = len(calls)
    return {
        "formatVersion": FORMAT_VERSION,
        "portal": plan.portal.to_json(),
        # A drift report puts the riskiest first: a reader (or a tool) meets an
        # administrative grant made outside Git before anything else.
        "changes": [
            _change_json(c)
            for c in (riskiest_first(plan.changes) if mode == "drift" else plan.changes)
        ],
        "calls": [c.to_json() for c in calls],
        "errors": [p.to_json() for p in plan.errors],
        "warnings": [p.to_json() for p in plan.warnings],
        "summary": summary,
        "liveFingerprint": plan.liveFingerprint,
        "liveDigests": dict(plan.liveDigests),
        **({"manifests": plan.manifests} if plan.manifests else {}),
        **({"targets": list(plan.targets)} if plan.targets else {}),
        **({"notCompared": dict(plan.notCompared)} if plan.notCompared else {}),
        **({"ignored": [i.to_json() for i in plan.ignored]} if plan.ignored else {}),
        # What --allow-deletes allowed, for apply --plan to allow exactly that again.
        **(
            {"allowedDeletes": list(plan.allowedDeletes)}
            if mode == "plan" and plan.allowedDeletes
            else {}
        ),
        **({"policies": [v.to_json() for v in plan.policies]} if plan.policies is not None else {}),
        # Information, not drift: the custom roles no manifest declares, left alone.
        **({"undeclaredRoles": list(plan.undeclaredRoles)} if mode == "drift" else {}),
        **_time_bound(plan),
    }


def _time_bound(plan: Plan) -> dict[str, Any]:
    """When the plan was judged, and the grants it depends on (README: Temporary access);
    nothing for a plan that depends on no time-bound grant and is no preview."""
    if plan.evaluationTime is None:
        return {}
    return {
        "evaluationTime": plan.evaluationTime,
        **({"preview": True} if plan.preview else {}),
        "grantDeadlines": [g.to_json() for g in plan.grantDeadlines],
        "expiringGrants": [g.to_json() for g in plan.expiringGrants],
    }


def _change_json(change: Change) -> dict[str, Any]:
    """The change, for an update of set-like fields their `added` and `removed` elements
    by field (README: plan JSON), so a tool need not diff the lists itself, and the
    administrative privileges it grants, if any."""
    shown = change.to_json()
    found = field_elements(change)
    if found:
        shown["added"] = {name: list(diff.added) for name, diff in found.items() if diff.added}
        shown["removed"] = {
            name: list(diff.removed) for name, diff in found.items() if diff.removed
        }
    admin = granted_admin(change, found)
    if admin:
        shown["grantsAdministrative"] = admin
    if change.administrative is not None:
        # Granted on the portal, not in Git: the privileges, and who holds them now.
        shown["administrative"] = list(change.administrative.privileges)
        shown["administrativeHolders"] = list(change.administrative.holders)
    return shown


def render_json(plan: Plan, mode: Mode = "plan") -> str:
    return indented(plan_document(plan, mode)) + "\n"


class PlanFileError(UserError):
    """A plan file that is not a plan orgctl can apply."""


def plan_from_json(text: str, source: str = "plan file") -> Plan:
    """The `Plan` a plan file holds; a clear `UserError` when it is not one."""
    return plan_from_document(plan_file_document(text, source), source)


def plan_file_document(text: str, source: str = "plan file") -> dict[str, Any]:
    """The JSON object of a plan file of this format version, not yet read as a plan:
    `apply --plan` compares it, as written, with a plan made now."""
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
    return doc


def plan_from_document(doc: dict[str, Any], source: str = "plan file") -> Plan:
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
        calls=tuple(_indexed(_call, c, f"calls[{i}]") for i, c in enumerate(doc["calls"])),
        errors=tuple(_problem(p) for p in doc["errors"]),
        warnings=tuple(_problem(p) for p in doc.get("warnings", [])),
        liveFingerprint=str(doc["liveFingerprint"]),
        liveDigests={str(k): str(v) for k, v in dict(doc.get("liveDigests", {})).items()},
        manifests=str(doc["manifests"]) if doc.get("manifests") else None,
        targets=tuple(str(t) for t in doc.get("targets", [])),
        notCompared={str(k): str(v) for k, v in dict(doc.get("notCompared", {})).items()},
        ignored=tuple(Ignored.from_json(dict(i)) for i in doc.get("ignored", [])),
        undeclaredRoles=tuple(str(name) for name in doc.get("undeclaredRoles", [])),
        allowedDeletes=_texts(doc.get("allowedDeletes", []), "allowedDeletes"),
        policies=_policies(doc.get("policies")),
        evaluationTime=str(doc["evaluationTime"]) if doc.get("evaluationTime") else None,
        preview=doc.get("preview") is True,
        grantDeadlines=_notes(doc.get("grantDeadlines", []), "grantDeadlines"),
        expiringGrants=_notes(doc.get("expiringGrants", []), "expiringGrants"),
    )


def _notes(shown: Any, name: str) -> tuple[GrantNote, ...]:
    if not isinstance(shown, list):
        raise TypeError(f"{name} must be a list")
    return tuple(_indexed(GrantNote.from_json, g, f"{name}[{i}]") for i, g in enumerate(shown))


def _policies(shown: Any) -> tuple[PolicyVerdict, ...] | None:
    if shown is None:
        return None
    if not isinstance(shown, list):
        raise TypeError("policies must be a list")
    return tuple(
        _indexed(PolicyVerdict.from_json, v, f"policies[{i}]") for i, v in enumerate(shown)
    )


def _texts(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{name} must be a list of strings")
    return tuple(value)


def _indexed(read: Callable[[dict[str, Any]], T], item: dict[str, Any], where: str) -> T:
    """`read(item)`, its error naming where the item stands in the file."""
    try:
        return read(item)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from exc


def _change(item: dict[str, Any]) -> Change:
    before, after = item["before"], item["after"]
    if before is not None and not isinstance(before, dict):
        raise TypeError(f"change {item['address']}: before must be an object or null")
    if after is not None and not isinstance(after, dict):
        raise TypeError(f"change {item['address']}: after must be an object or null")
    holders = item.get("holders")
    if holders is not None and not isinstance(holders, dict):
        raise TypeError(f"change {item['address']}: holders must be an object")
    renamed = item.get("renamedFrom")
    if renamed is not None and not isinstance(renamed, str):
        raise TypeError(f"change {item['address']}: renamedFrom must be a string")
    administrative = item.get("administrative")
    overdue = item.get("overdueRevocation")
    return Change(
        str(item["address"]),
        Action(item["action"]),
        before,
        after,
        Holders.from_json(holders) if holders is not None else None,
        renamed,
        LiveAdmin(
            _texts(administrative, "administrative"),
            _texts(item.get("administrativeHolders", []), "administrativeHolders"),
        )
        if administrative is not None
        else None,
        GrantNote.from_json(overdue) if isinstance(overdue, dict) else None,
    )


def _call(item: dict[str, Any]) -> Call:
    params = item["params"]
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        raise TypeError(f"call {item['seq']}: params must be an object of strings")
    if "operation" not in item:
        raise ValueError(f"call {item['seq']} names no operation (a plan of an older orgctl)")
    operation = OperationName(item["operation"])
    references = item.get("references", {})
    if not isinstance(references, dict):
        raise TypeError(f"call {item['seq']}: references must be an object")
    root, arguments = _split_url(operation, str(item["url"]), references.get("url", {}))
    return Call(
        seq=int(item["seq"]),
        address=str(item["address"]),
        operation=operation,
        root=root,
        arguments=arguments,
        params=_values(params, references.get("params", {})),
        dependsOn=tuple(int(s) for s in item["dependsOn"]),
    )


def _split_url(
    operation: OperationName, url: str, references: dict[str, str]
) -> tuple[str, dict[str, Value]]:
    """The root and path arguments of `url`, which must end in the operation's path.
    A reference is shown unquoted (`${Role/A b.id}`), so it stands aside while splitting."""
    stand_ins = {f"\0{name}\0": text for name, text in references.items()}
    for stand_in, text in stand_ins.items():
        url = url.replace(text, stand_in, 1)
    template = OPERATIONS[operation].path.segments
    root, *given = url.rsplit("/", len(template))
    if len(given) != len(template):
        raise ValueError(f"url {url!r} is not one of its operation, {operation}")
    texts: dict[str, str] = {}
    for part, value in zip(template, given, strict=True):
        if part.startswith("{"):
            texts[part[1:-1]] = stand_ins[value] if value in stand_ins else _argument(value, url)
        elif part.lower() != value.lower():
            raise ValueError(f"url {url!r} is not one of its operation, {operation}")
    return root, _values(texts, references)


def _argument(segment: str, url: str) -> str:
    """A path argument as the plan wrote it, quoted: `..` or `a%2Fb` never reaches apply."""
    text = unquote(segment)
    problem = segment_problem(text)
    if problem is not None:
        raise ValueError(f"URL {url!r} holds {text!r} where an id belongs ({problem})")
    return text


def _values(texts: dict[str, str], references: dict[str, str]) -> dict[str, Value]:
    """Each text as written, except where the plan recorded a reference."""
    values: dict[str, Value] = dict(texts)
    for name, text in references.items():
        reference = Ref.parse(text)
        if reference is None or texts.get(name) != text:
            raise ValueError(f"reference {name}={text!r} is not what the call holds")
        values[name] = reference
    return values


def _problem(item: dict[str, Any]) -> PlanProblem:
    return PlanProblem(str(item["address"]), str(item["message"]))
