"""A saved plan is data to check, not to trust (README: saved plans). `apply --plan`
plans again on the live state and sends that plan, only when the file agrees with it in
every part that decides what is sent, what it says it changes and what stops it. The
errors, the guards and the prompt's counts are the new plan's, never the file's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler.errors import UserError
from reconciler.live.client import PortalClient
from reconciler.live.reader import read_live
from reconciler.plan.fingerprint import StalePlan, check_fresh
from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.plan.render.json import plan_document, plan_file_document, plan_from_document
from reconciler.plan.unread import as_planned
from reconciler.state import DesiredState

# The parts of a plan file compared, as written, with a plan made now: where it goes,
# what it changes and sends (in order), its counts, and the deletions it allows. Errors
# are compared on their own (a reviewer's plan may be applied by another account).
COMPARED = ("portal", "changes", "calls", "summary", "allowedDeletes")
NAMED = 10  # differences named in a refusal; the rest are counted


@dataclass(frozen=True, slots=True)
class SavedPlan:
    """A plan file: the plan it holds and the document as written."""

    path: Path
    plan: Plan
    document: dict[str, Any]

    @classmethod
    def read(cls, path: Path) -> SavedPlan:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{path}: cannot read the plan file ({exc.strerror})") from exc
        document = plan_file_document(text, source=str(path))
        return cls(path, plan_from_document(document, source=str(path)), document)


def check_same_portal(desired: DesiredState, saved: SavedPlan) -> None:
    """Refuse a plan made for another portal, or with a call outside the portal's URLs."""
    if saved.plan.portal.url != desired.portal.url:
        raise UserError(
            f"{saved.path}: the plan is for {saved.plan.portal.url}, the manifests for"
            f" {desired.portal.url}"
        )
    # The token goes with every call: a plan file must not send it anywhere else.
    roots = tuple(
        root.rstrip("/") + "/" for root in (desired.portal.url, desired.portal.adminUrl) if root
    )
    for call in saved.plan.calls:
        if not call.url.startswith(roots):
            raise UserError(
                f"{saved.path}: call {call.seq} ({call.address}) goes to {call.url}, outside"
                f" the portal's URLs ({', '.join(r.rstrip('/') for r in roots)}); refusing"
                " to send credentials there"
            )


async def replan(client: PortalClient, desired: DesiredState, saved: SavedPlan) -> Plan:
    """The plan to apply: made now, as the saved one was (its targets, the parts its
    account could not read, the deletions it allowed), checked for every guard as the
    signed-in account. Refused (StalePlan) when the portal changed since the file's
    fingerprint, or when the file differs from it; refused (UserError) when the plan
    made now has errors the file does not hold."""
    live = as_planned(await read_live(client, desired), saved.plan.notCompared)
    check_fresh(saved.plan, live)
    fresh = build_plan(
        desired,
        live,
        allow_deletes=frozenset(saved.plan.allowedDeletes),
        targets=saved.plan.targets,
        now=client.server_clock,
        signed_in_applies=True,
    )
    fresh_document = plan_document(fresh)
    differing = [
        found
        for part in COMPARED
        for found in differences(saved.document.get(part), fresh_document.get(part), part)
    ]
    if differing:
        raise StalePlan(
            "stale plan: the manifests changed since the plan was made, or the plan file was"
            f" edited; a plan made now differs at"
            f" {listed(differing, saved.document, fresh_document)}; nothing was sent."
            " Run orgctl plan -o again."
        )
    user = live.portal.username or "the signed-in account"
    _check_errors(saved.document.get("errors"), fresh_document["errors"], fresh, user)
    return fresh


def _check_errors(saved: Any, fresh: list[dict[str, str]], plan: Plan, user: str) -> None:
    """The plan made now decides: its errors stop the apply whatever the file says, and
    a file that holds other errors (or none where there are some) is named as such."""
    if saved == fresh:
        return  # the same errors (none, or the plan is shown with them and refused)
    if fresh:
        raise UserError(
            f"refusing to apply the saved plan as {user}; nothing was sent: "
            + "; ".join(str(problem) for problem in plan.errors)
            + " (the plan file's errors do not say so: it was made for another account,"
            " or edited)"
        )
    differing = listed(list(differences(saved, fresh, "errors")), {"errors": saved})
    raise StalePlan(
        f"stale plan: the plan file's errors are not those of a plan made now ({differing});"
        " nothing was sent. Run orgctl plan -o again."
    )


def differences(saved: Any, fresh: Any, path: str) -> Iterator[str]:
    """The paths (`calls[3].url`, `summary.delete`) at which two JSON values differ."""
    if isinstance(saved, dict) and isinstance(fresh, dict):
        for key in sorted(set(saved) | set(fresh)):
            yield from differences(saved.get(key), fresh.get(key), f"{path}.{key}")
    elif isinstance(saved, list) and isinstance(fresh, list):
        for index in range(max(len(saved), len(fresh))):
            old = saved[index] if index < len(saved) else None
            new = fresh[index] if index < len(fresh) else None
            yield from differences(old, new, f"{path}[{index}]")
    elif saved != fresh or type(saved) is not type(fresh):
        yield path


def listed(paths: list[str], *documents: dict[str, Any]) -> str:
    """`calls[3].url (Role/Old Role)`, `calls[0].{operation, url} (Member/hank)`,
    `summary.delete`: the paths grouped by the change or call they lie in, the first few
    of them."""
    grouped: dict[str, list[str]] = {}
    for path in paths:
        item, dot, rest = path.partition("].")
        head, tail = (item + "]", rest) if dot else (path, "")
        grouped.setdefault(head, []).append(tail)
    shown = [_item(head, tails, documents) for head, tails in grouped.items()]
    more = len(shown) - NAMED
    return ", ".join(shown[:NAMED]) + (f" and {more} more" if more > 0 else "")


def _item(head: str, tails: list[str], documents: tuple[dict[str, Any], ...]) -> str:
    fields = [tail for tail in tails if tail]
    if len(fields) == 1:
        text = f"{head}.{fields[0]}"
    elif fields:
        text = f"{head}.{{{', '.join(fields)}}}"
    else:
        text = head
    address = next(filter(None, (_address(head, document) for document in documents)), None)
    return f"{text} ({address})" if address else text


def _address(head: str, document: dict[str, Any]) -> str | None:
    """The address of the change or call at `calls[3]` in a plan document, if any."""
    part, _, rest = head.partition("[")
    items = document.get(part)
    index = rest.rstrip("]")
    if not (isinstance(items, list) and index.isdigit() and int(index) < len(items)):
        return None
    item = items[int(index)]
    address = item.get("address") if isinstance(item, dict) else None
    return address if isinstance(address, str) else None
