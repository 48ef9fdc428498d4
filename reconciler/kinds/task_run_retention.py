"""TaskRunRetention: delete runs of a user's tasks beyond the newest `keepLast` and runs
older than `maxAgeDays` (10.8.1+); a run still scheduled or executing is never deleted.
A policy no live portal can tell, so it is neither exported nor adopted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import Field

from reconciler import address_forms as forms
from reconciler import state
from reconciler.export.documents import Document as Exported
from reconciler.kind import (
    AddressForm,
    Export,
    ExportInput,
    ExportPart,
    Kind,
    Write,
    model_reader,
)
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, gate, source
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.operations import OperationName
from reconciler.plan.diff import deleted
from reconciler.plan.draft import Draft
from reconciler.plan.normalize import shows
from reconciler.plan.unread import task_runs
from reconciler.state import DesiredState, LiveState, RunRetention, Task, TaskRun

NAME = "TaskRunRetention"
# A run it deletes is shown with its creation time, which no manifest field holds.
shows(NAME, created=models.Meaning.TIME)
POLICY = AddressForm(NAME, ("name",))  # where a policy was declared (not a live resource)
RUN = forms.TASK_RUN

ACTIVE_STATUSES = frozenset({"scheduled", "executing"})
DAY_MS = 86_400_000


class TaskRunRetentionSpec(models.Strict):
    user: str = Field(min_length=1)
    tasks: Annotated[list[str], models.string_set(min_items=1)] = Field(
        min_length=1, description='task ids, or "*" for all'
    )
    keepLast: int | None = Field(None, ge=1)
    maxAgeDays: int | None = Field(None, ge=1)


class TaskRunRetention(models.Document):
    kind: Literal["TaskRunRetention"]
    metadata: models.DocumentMetadata
    spec: TaskRunRetentionSpec


_model = model_reader(TaskRunRetention)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    spec = _model(document).spec
    yield from gate(document, (), OperationName.DELETE_TASK_RUN, context.platform)
    if spec.keepLast is None and spec.maxAgeDays is None:
        yield document.problem(("spec",), "give keepLast, maxAgeDays or both")


def _desired(desired: DesiredState, document: Document) -> None:
    spec = _model(document).spec
    desired.retention.append(
        state.RunRetention(
            document.name, spec.user, frozenset(spec.tasks), spec.keepLast, spec.maxAgeDays
        )
    )
    desired.sources[POLICY.of(document.name)] = source(document)


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for user, tasks in live.tasks.items():
        for task in tasks:
            for run in task.runs:
                yield RUN.of(user, task.id, run.runId), run


def _plan(draft: Draft) -> None:
    for policy in draft.desired.retention:
        for task in _tasks(draft, policy):
            for run in _expired(task, policy, draft.now_ms):
                address = RUN.of(policy.user, task.id, run.runId)
                draft.changes.append(
                    deleted(address, {"status": run.status, "created": run.created})
                )
                draft.call(
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
            RUN.below(policy.user),
            f"{NAME} {policy.name}: the portal has no member {policy.user}",
        )
        return []
    owned = {t.id: t for t in draft.live.tasks[policy.user]}
    if policy.all_tasks:
        return [owned[tid] for tid in sorted(owned)]
    for tid in sorted(policy.tasks - owned.keys()):
        draft.error(
            RUN.below(policy.user, tid),
            f"{NAME} {policy.name}: user {policy.user} has no task {tid}",
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


def _export(given: ExportInput) -> ExportPart[Exported]:
    tasks = sum(len(t) for t in given.live.tasks.values())
    notes = [
        f"{tasks} task(s) left out: a manifest can only set the retention of their runs ({NAME})"
    ]
    return ExportPart([], notes if tasks else [], None)


def _writes(desired: DesiredState, live: LiveState) -> Iterator[Write]:
    """Deleting a run, as the task's owner's."""
    for policy in desired.retention:
        yield Write(
            OperationName.DELETE_TASK_RUN, f"{NAME}/{policy.name}", {"username": policy.user}
        )


KIND = Kind(
    name=NAME,
    model=TaskRunRetention,
    singleton=False,
    addresses=(RUN,),
    set_fields=(("spec", "tasks"),),
    identities=lambda document: (),
    rules=_rules,
    desired=_desired,
    read=None,  # by live/reader.py itself
    people=False,
    live=_live,
    defaults={},
    unread=None,
    grants=None,
    prepare=None,
    plan=_plan,
    plan_last=None,
    annotate=None,
    writes=_writes,
    privileges=None,
    export=Export(None, _export),
    adopt=None,
    unadoptable={"TaskRun": f"{NAME} states which runs must go; edit it by hand"},
)
