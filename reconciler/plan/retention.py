"""Task-run retention: delete runs beyond the newest `keepLast` and runs older than
`maxAgeDays`; a run still scheduled or executing is never deleted."""

from __future__ import annotations

from reconciler.operations import OperationName
from reconciler.plan.diff import deleted
from reconciler.plan.draft import Draft, Group
from reconciler.plan.unread import task_runs
from reconciler.state import RunRetention, Task, TaskRun

ACTIVE_STATUSES = frozenset({"scheduled", "executing"})
DAY_MS = 86_400_000


def plan_retention(draft: Draft) -> None:
    for policy in draft.desired.retention:
        for task in _tasks(draft, policy):
            for run in _expired(task, policy, draft.now_ms):
                address = f"TaskRun/{policy.user}/{task.id}/{run.runId}"
                draft.changes.append(
                    deleted(address, {"status": run.status, "created": run.created})
                )
                draft.call(
                    Group.DELETE_TASK_RUNS,
                    address,
                    OperationName.DELETE_TASK_RUN,
                    {},
                    ids={"username": policy.user, "taskId": task.id, "runId": run.runId},
                )


def _tasks(draft: Draft, policy: RunRetention) -> list[Task]:
    if task_runs(policy.user) in draft.live.unread:
        return []  # not read: `report_not_compared` says so
    if policy.user not in draft.live.tasks:
        # A misspelt user would otherwise make the policy silently do nothing, forever.
        draft.error(
            f"TaskRun/{policy.user}",
            f"TaskRunRetention {policy.name}: the portal has no member {policy.user}",
        )
        return []
    owned = {t.id: t for t in draft.live.tasks[policy.user]}
    if policy.all_tasks:
        return [owned[tid] for tid in sorted(owned)]
    for tid in sorted(policy.tasks - owned.keys()):
        draft.error(
            f"TaskRun/{policy.user}/{tid}",
            f"TaskRunRetention {policy.name}: user {policy.user} has no task {tid}",
        )
    return [owned[tid] for tid in sorted(policy.tasks & owned.keys())]


def _expired(task: Task, policy: RunRetention, now_ms: int) -> list[TaskRun]:
    newest_first = sorted(task.runs, key=lambda r: (-r.created, r.runId))
    cutoff = None if policy.maxAgeDays is None else now_ms - policy.maxAgeDays * DAY_MS
    expired = []
    for rank, run in enumerate(newest_first):
        beyond_count = policy.keepLast is not None and rank >= policy.keepLast
        too_old = cutoff is not None and run.created < cutoff
        if (beyond_count or too_old) and run.status not in ACTIVE_STATUSES:
            expired.append(run)
    return sorted(expired, key=lambda r: r.runId)
