"""Tasks, runs (docs/rules.md §4.9) and the item resource files the runs leave behind.

An item's resources are the files of the runs of the tasks that use the item, so a
deleted run's files disappear from `content/items/<itemId>/resources` with it.
"""

from __future__ import annotations

from typing import Any

from orgctl_service.auth import holds, is_admin, require_admin
from orgctl_service.context import Ctx
from orgctl_service.errors import forbidden, not_found
from orgctl_service.params import page
from orgctl_service.rules import check_portal_id
from orgctl_service.world import Doc
from reconciler.operations import VIEW_ITEMS


def addressed(ctx: Ctx) -> Doc:
    """The task the path names, of the member it names (404 otherwise)."""
    username = ctx.args["username"]
    ctx.member(username)
    task = ctx.portal["tasks"].get(ctx.args["taskId"])
    if task is None or task["owner"] != username:
        raise not_found(f"Task '{ctx.args['taskId']}' not found for user '{username}'")
    return task  # type: ignore[no-any-return]


def task_view(task: Doc) -> dict[str, Any]:
    return {
        "id": task["id"],
        "itemId": task["itemId"],
        "owner": task["owner"],
        "userId": task["owner"],  # the name clients read the owner under
        "title": task["title"],
        "type": task["type"],
        "active": True,
        "taskState": "active",
    }


def list_tasks(ctx: Ctx) -> dict[str, Any]:
    username = ctx.args["username"]
    ctx.member(username)
    rows = [
        task_view(t)
        for t in sorted(ctx.portal["tasks"].values(), key=lambda t: t["id"])
        if t["owner"] == username
    ]
    return page(ctx.params, rows, "tasks")


def one_task(ctx: Ctx) -> dict[str, Any]:
    return task_view(addressed(ctx))


def run_view(run: Doc) -> dict[str, Any]:
    return {"runId": run["runId"], "status": run["status"], "result": {}, "created": run["created"]}


def list_runs(ctx: Ctx) -> dict[str, Any]:
    task = addressed(ctx)
    rows = [run_view(r) for r in sorted(task["runs"], key=lambda r: (r["created"], r["runId"]))]
    if not (ctx.params.given("start") or ctx.params.given("num")):
        # Unpaged, a task's runs come whole (a task keeps at most 30); clients read them so.
        return {"total": len(rows), "start": 1, "num": len(rows), "nextStart": -1, "runs": rows}
    return page(ctx.params, rows, "runs")


def one_run(ctx: Ctx) -> dict[str, Any]:
    task = addressed(ctx)
    for run in task["runs"]:
        if run["runId"] == ctx.args["runId"]:
            return run_view(run)
    raise not_found(f"Run '{ctx.args['runId']}' not found for task '{task['id']}'")


def all_scheduled_tasks(ctx: Ctx) -> dict[str, Any]:
    """Every member's tasks, for administrators; `userFilter` and `itemId` narrow it."""
    check_portal_id(ctx)
    require_admin(ctx)
    user = ctx.params.text("userFilter")
    item = ctx.params.text("itemId")
    rows = [
        task_view(t)
        for t in sorted(ctx.portal["tasks"].values(), key=lambda t: t["id"])
        if (not user or t["owner"] == user) and (not item or t["itemId"] == item)
    ]
    return page(ctx.params, rows, "tasks")


def delete_run(ctx: Ctx) -> dict[str, Any]:
    task = addressed(ctx)
    run_id = ctx.args["runId"]
    kept = [r for r in task["runs"] if r["runId"] != run_id]
    if len(kept) == len(task["runs"]):
        raise not_found(f"Run '{run_id}' not found for task '{task['id']}'")
    task["runs"] = kept
    ctx.touch_portal()
    return {"success": True, "taskId": task["id"], "runId": run_id}


def item_resources(ctx: Ctx) -> dict[str, Any]:
    item_id = ctx.args["itemId"]
    tasks = [t for t in ctx.portal["tasks"].values() if t["itemId"] == item_id]
    if not tasks:
        raise not_found(f"Item '{item_id}' not found")
    owner = any(t["owner"] == ctx.user["username"] for t in tasks)
    if not (owner or is_admin(ctx.user) or holds(ctx.user, ctx.portal, VIEW_ITEMS)):
        raise forbidden(
            "You do not have permissions to access this item: only its owner, an organization"
            f" administrator or a holder of {VIEW_ITEMS} may."
        )
    rows = [
        {"resource": name, "created": run["created"], "size": 0, "access": "inherit"}
        for task in sorted(tasks, key=lambda t: t["id"])
        for run in sorted(task["runs"], key=lambda r: (r["created"], r["runId"]))
        for name in run["resourceFiles"]
    ]
    return page(ctx.params, rows, "resources")
