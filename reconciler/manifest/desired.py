"""Validated manifest documents as the planner's `DesiredState`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from reconciler import state
from reconciler.errors import ManifestError
from reconciler.manifest import models
from reconciler.manifest.loader import Document
from reconciler.manifest.portal import declared_platform, effective_urls
from reconciler.manifest.validation import Checked, check
from reconciler.versions import Platform
from reconciler.windows import Window


def load_desired(path: Path, environ: Mapping[str, str] | None = None) -> state.DesiredState:
    """Everything the manifests under `path` declare; `ManifestError` lists every problem."""
    env = os.environ if environ is None else environ
    return desired_from(check(path, env), env)


def desired_from(checked: Checked, environ: Mapping[str, str]) -> state.DesiredState:
    """The desired state of a checked manifest set; `ManifestError` lists every problem."""
    env = environ
    documents, problems = checked.documents, checked.problems
    if problems:
        raise ManifestError([str(p) for p in problems])
    portal = next(d for d in documents if isinstance(d.model, models.Portal))
    desired = state.DesiredState(portal=_target(portal, env))
    desired.sources["Portal"] = _source(portal)
    for document in documents:
        _add(desired, document)
    return desired


def _target(document: Document, environ: Mapping[str, str]) -> state.PortalTarget:
    assert isinstance(document.model, models.Portal)
    spec = document.model.spec
    platform = declared_platform(spec)
    assert isinstance(platform, Platform)  # validated
    url, admin_url = effective_urls(spec, environ, document.name)
    return state.PortalTarget(
        name=document.name,
        url=url,
        adminUrl=admin_url,
        platform=platform,
        auth=state.Auth(spec.auth.tokenEnv, spec.auth.usernameEnv, spec.auth.passwordEnv),
        extraPrivileges=frozenset(spec.extraPrivileges),
        maxDeletes=spec.safety.maxDeletes,
        applier=spec.applier,
        applyWindows=tuple(Window(w.schedule, w.duration, w.timeZone) for w in spec.applyWindows),
    )


def _source(document: Document, *path: str | int) -> state.Source:
    file, line, column = document.locate(path)
    return state.Source(file, line, column)


def _add(desired: state.DesiredState, document: Document) -> None:
    model = document.model
    if isinstance(model, models.Role):
        desired.roles[document.name] = _role(model)
        desired.sources[f"Role/{document.name}"] = _source(document)
    elif isinstance(model, models.Members):
        for username, member in model.spec.members.items():
            desired.members[username] = state.Member(username, member.role, member.level)
            desired.sources[f"Member/{username}"] = _source(document, "spec", "members", username)
    elif isinstance(model, models.Collaboration):
        _add_collaboration(desired, document, model)
    elif isinstance(model, models.WebhookSettings):
        desired.webhookSettings = model.spec.model_dump(exclude_none=True)
        desired.sources["WebhookSettings"] = _source(document)
    elif isinstance(model, models.OrganizationWebhooks):
        spec = model.spec
        desired.webhookRemoval = state.WebhookRemoval(
            frozenset(spec.absent), frozenset(spec.keep), spec.prune
        )
        desired.sources["OrganizationWebhooks"] = _source(document)
    elif isinstance(model, models.TaskRunRetention):
        desired.retention.append(_retention(document.name, model.spec))
        desired.sources[f"TaskRunRetention/{document.name}"] = _source(document)


def _role(model: models.Role) -> state.Role:
    spec = model.spec
    privileges = frozenset(spec.privileges) if spec.privileges is not None else None
    return state.Role(
        model.metadata.name, spec.description, privileges, present=spec.state == "present"
    )


def _add_collaboration(
    desired: state.DesiredState, document: Document, model: models.Collaboration
) -> None:
    cid = model.metadata.id
    workspaces = {wid: _workspace(wid, ws) for wid, ws in model.spec.workspaces.items()}
    # metadata.name is only a label: no operation renames a collaboration, so the name is
    # left unmanaged (None) rather than a difference no plan could ever remove.
    desired.collaborations[cid] = state.Collaboration(
        cid,
        name=None,
        workspaces=workspaces,
        present=model.spec.state == "present",
        invalidInvitations=frozenset(model.spec.invalidInvitations),
    )
    desired.sources[f"Collaboration/{cid}"] = _source(document)
    for wid in workspaces:
        desired.sources[f"Workspace/{cid}/{wid}"] = _source(document, "spec", "workspaces", wid)
    for invitation in model.spec.invalidInvitations:
        index = model.spec.invalidInvitations.index(invitation)
        desired.sources[f"Invitation/{cid}/{invitation}"] = _source(
            document, "spec", "invalidInvitations", index
        )


def _workspace(wid: str, spec: models.WorkspaceSpec) -> state.Workspace:
    return state.Workspace(
        wid,
        name=spec.name,
        description=spec.description,
        maxItemSizeInMB=_number(spec.maxItemSizeInMB),
        maxReplicationPackageSizeInMB=_number(spec.maxReplicationPackageSizeInMB),
        copyByRefIfCopyFail=spec.copyByRefIfCopyFail,
        groupLink=_group_link(spec.groupLink) if spec.groupLink else None,
        schedule=_schedule(spec.schedule) if spec.schedule else None,
    )


def _number(value: float | None) -> int | float | None:
    # A whole number stays an integer, as the service reports it.
    return int(value) if value is not None and value.is_integer() else value


def _group_link(spec: models.GroupLinkSpec) -> state.GroupLink:
    return state.GroupLink(
        spec.portalGroupId,
        spec.enableRealtimeSync,
        spec.copyFeatureServiceData,
        spec.enableFeatureServiceBidirectionalSync,
    )


def _schedule(spec: models.ScheduleSpec) -> state.Schedule:
    return state.Schedule(spec.startTime, spec.interval, spec.repeatCount)


def _retention(name: str, spec: models.TaskRunRetentionSpec) -> state.RunRetention:
    return state.RunRetention(
        name, spec.user, frozenset(spec.tasks), spec.keepLast, spec.maxAgeDays
    )
