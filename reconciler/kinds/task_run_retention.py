"""TaskRunRetention: delete runs of a user's tasks beyond the newest `keepLast` and runs
older than `maxAgeDays` (10.8.1+); a run still scheduled or executing is never deleted.
A policy no live portal can tell, so it is neither exported nor adopted."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

from pydantic import Field

from reconciler import address_forms as forms
from reconciler.export.documents import Document as Exported
from reconciler.kind import (
    AddressForm,
    Export,
    ExportInput,
    ExportPart,
    Fill,
    Kind,
    LiveRead,
    Unread,
    Write,
    model_reader,
)
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, gate, source
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.operations import OperationName, ReadName
from reconciler.plan.diff import deleted
from reconciler.plan.draft import Draft
from reconciler.plan.normalize import shows
from reconciler.state import DesiredState, LiveState, StateKey, Task, TaskRun

NAME = "TaskRunRetention"
# A run it deletes is shown with its creation time, which no manifest field holds.
shows(NAME, created=models.Meaning.TIME)
POLICY = AddressForm(NAME, ("name",))  # where a policy was declared (not a live resource)
RUN = forms.TASK_RUN
TASK = forms.TASK

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


@dataclass(frozen=True, slots=True)
class RunRetention:
    """One policy: which runs of a user's tasks to delete."""

    name: str
    user: str
    tasks: frozenset[str]  # task ids, or {"*"} for all of the user's tasks
    keepLast: int | None = None
    maxAgeDays: int | None = None

    @property
    def all_tasks(self) -> bool:
        return "*" in self.tasks


# The declared policies, in declared order; the tasks of their users, by owner (an owner
# the portal does not know is left out, as is one whose tasks may not be read).
POLICIES: StateKey[list[RunRetention]] = StateKey(NAME, list)
TASKS: StateKey[dict[str, list[Task]]] = StateKey(NAME, dict)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    spec = _model(document).spec
    yield from gate(document, (), OperationName.DELETE_TASK_RUN, context.platform)
    if spec.keepLast is None and spec.maxAgeDays is None:
        yield document.problem(("spec",), "give keepLast, maxAgeDays or both")


def _desired(desired: DesiredState, document: Document) -> None:
    spec = _model(document).spec
    desired.get(POLICIES).append(
        RunRetention(
            document.name, spec.user, frozenset(spec.tasks), spec.keepLast, spec.maxAgeDays
        )
    )
    desired.sources[POLICY.of(document.name)] = source(document)


# --- live --------------------------------------------------------------------------------------


def _owners(desired: DesiredState | None) -> dict[str, set[str]]:
    """The task ids (or "*") each user's policies cover: only those tasks are read."""
    owners: dict[str, set[str]] = {}
    for policy in desired.get(POLICIES) if desired is not None else ():
        owners.setdefault(policy.user, set()).update(policy.tasks)
    return owners


async def _read(source: LiveRead) -> Fill:
    # Imported here, not at the top: `orgctl validate` loads every kind's module and no
    # network stack (reconciler.live brings httpx and asyncio).
    from reconciler.live.concurrency import gather

    owners = _owners(source.desired)
    users = sorted(owners)
    found = await gather(*(_user_tasks(source, user, owners[user]) for user in users))
    tasks = {user: owned for user, owned in zip(users, found, strict=True) if owned is not None}

    def fill(live: LiveState) -> None:
        live.put(TASKS, tasks)

    return fill


async def _user_tasks(source: LiveRead, user: str, wanted: set[str]) -> list[Task] | None:
    """The user's tasks the policies cover, each with its runs; None when the portal has
    no such user or refuses the listing (kept in `unread`)."""
    from reconciler.live import records  # as in `_read`: only when read
    from reconciler.live.concurrency import gather
    from reconciler.live.errors import ForbiddenError, NotFoundError

    try:
        raw = await source.pages(ReadName.TASKS, username=user)
    except NotFoundError:
        return None  # no such user
    except ForbiddenError as refused:
        source.unread[task_runs(user)] = refused.message
        return None
    where = f"a task of {user}"
    identified = [
        (tid, t) for t in raw if (tid := source.readable(partial(records.entry_id, t, where)))
    ]
    distinct = source.distinct(identified, "id", _first, lambda pair: TASK.of(user, pair[0]))
    covered = [(tid, t) for tid, t in distinct if "*" in wanted or tid in wanted]
    runs = await gather(
        *(source.pages(ReadName.RUNS, username=user, taskId=tid) for tid, _ in covered)
    )
    built = (
        source.readable(partial(records.task, t, user, r))
        for (_, t), r in zip(covered, runs, strict=True)
    )
    return sorted((t for t in built if t is not None), key=lambda t: t.id)


def _first(pair: tuple[str, Any]) -> str:
    return pair[0]


def task_runs(user: str) -> str:
    """The part of `LiveState.unread` a refused listing of the user's tasks is kept as."""
    return f"{RUN.below(user)}/*"


def _depending(desired: DesiredState, part: str) -> list[str]:
    return [part] if any(task_runs(p.user) == part for p in desired.get(POLICIES)) else []


def _forget(live: LiveState, parts: Mapping[str, str]) -> LiveState:
    users = {part.split("/")[1] for part in parts}
    kept = {user: tasks for user, tasks in live.get(TASKS).items() if user not in users}
    return live.with_slot(TASKS, kept)


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for user, tasks in live.get(TASKS).items():
        for task in tasks:
            for run in task.runs:
                yield RUN.of(user, task.id, run.runId), run


# --- plan --------------------------------------------------------------------------------------


def _plan(draft: Draft) -> None:
    for policy in draft.desired.get(POLICIES):
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
    tasks = draft.live.get(TASKS)
    if policy.user not in tasks:
        # A misspelt user would otherwise make the policy silently do nothing, forever.
        draft.error(
            RUN.below(policy.user),
            f"{NAME} {policy.name}: the portal has no member {policy.user}",
        )
        return []
    owned = {t.id: t for t in tasks[policy.user]}
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
    tasks = sum(len(t) for t in given.live.get(TASKS).values())
    notes = [
        f"{tasks} task(s) left out: a manifest can only set the retention of their runs ({NAME})"
    ]
    return ExportPart([], notes if tasks else [], None)


def _writes(desired: DesiredState, live: LiveState) -> Iterator[Write]:
    """Deleting a run, as the task's owner's."""
    for policy in desired.get(POLICIES):
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
    read=_read,
    people=False,
    live=_live,
    defaults={},
    # A user's tasks the planning account may not list, one part per user (TaskRun/<u>/*).
    unread=Unread(f"{RUN.head}/", ReadName.TASKS, _depending, _forget),
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
