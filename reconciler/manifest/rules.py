"""Every rule that can be checked offline, over all documents of a manifest set at once.

Gates and catalog lookups all go through `reconciler.catalog`, the single source of
truth the planner and the reference service share.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from reconciler import catalog
from reconciler.addresses import extras, is_loopback
from reconciler.catalog import Feature
from reconciler.environment import url_sources
from reconciler.manifest import models
from reconciler.manifest.loader import Document
from reconciler.manifest.portal import declared_platform, effective_urls
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.text_rules import text_problem
from reconciler.versions import Platform

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SINGLETONS = ("WebhookSettings", "OrganizationWebhooks")


@dataclass(frozen=True, slots=True)
class _Context:
    """What the per-document rules need to know about the rest of the manifest set."""

    platform: Platform | None  # None when the Portal is missing or its version invalid
    portal: models.PortalSpec | None
    name: str | None  # the Portal's metadata.name
    environ: Mapping[str, str]
    absent_roles: dict[str, Document]

    @property
    def extra_privileges(self) -> frozenset[str]:
        return frozenset(self.portal.extraPrivileges) if self.portal else frozenset()


def check(
    documents: list[Document],
    root: str,
    environ: Mapping[str, str],
    rejected_kinds: Iterable[str] = (),
) -> list[Problem]:
    """Every problem of the manifest set beyond the shape of single documents."""
    maybe_portal = bool({"Portal", ""} & set(rejected_kinds))
    problems = list(_cross_document(documents, root, maybe_portal))
    portal = next((d for d in documents if isinstance(d.model, models.Portal)), None)
    spec = _portal_spec(portal) if portal else None
    if portal:
        problems += _portal(portal, environ)
    found = declared_platform(spec) if spec else None
    context = _Context(
        platform=found if isinstance(found, Platform) else None,
        portal=spec,
        name=portal.name if portal else None,
        environ=environ,
        absent_roles=_absent_roles(documents),
    )
    for document in documents:
        problems += _document(document, context)
    return problems


def _portal_spec(document: Document) -> models.PortalSpec:
    assert isinstance(document.model, models.Portal)
    return document.model.spec


# --- cross-document rules --------------------------------------------------------------------


def _cross_document(
    documents: list[Document], root: str, portal_rejected: bool
) -> Iterator[Problem]:
    portals = [d for d in documents if d.kind == "Portal"]
    if not portals and not portal_rejected:
        yield Problem(root, 1, 1, "", "", "no Portal document: a manifest set needs exactly one")
    for extra in portals[1:]:
        yield extra.problem((), f"a second Portal document (first at {_at(portals[0])})")
    for kind in _SINGLETONS:
        same = [d for d in documents if d.kind == kind]
        for extra in same[1:]:
            yield extra.problem((), f"a second {kind} document (first at {_at(same[0])})")
    # The service keeps role names unique regardless of case (ROLE_1001).
    yield from _duplicates("role", _roles(documents), fold=str.casefold)
    yield from _duplicates("username", _members(documents))
    collaborations = [d for d in documents if isinstance(d.model, models.Collaboration)]
    yield from _duplicates(
        "collaboration id",
        ((d, ("metadata", "id"), _collab(d).metadata.id) for d in collaborations),
    )
    yield from _duplicates(
        "workspace id",
        (
            (d, ("spec", "workspaces", wid), wid)
            for d in collaborations
            for wid in _collab(d).spec.workspaces
        ),
    )


Declaration = tuple[Document, KeyPath, str]


def _roles(documents: Iterable[Document]) -> Iterator[Declaration]:
    for d in documents:
        if isinstance(d.model, models.Role):
            yield d, ("metadata", "name"), d.name


def _members(documents: Iterable[Document]) -> Iterator[Declaration]:
    for d in documents:
        if isinstance(d.model, models.Members):
            for username in d.model.spec.members:
                yield d, ("spec", "members", username), username


def _duplicates(
    what: str, declarations: Iterable[Declaration], fold: Callable[[str], str] = str
) -> Iterator[Problem]:
    first: dict[str, tuple[Document, str]] = {}
    for document, path, key in declarations:
        if fold(key) not in first:
            first[fold(key)] = (document, key)
            continue
        earlier, spelled = first[fold(key)]
        same = "" if spelled == key else f" as {spelled!r}"
        yield document.problem(
            path, f"{what} {key!r} is declared twice (first{same} at {_at(earlier)})"
        )


def _at(document: Document) -> str:
    return f"{document.file}:{document.line}"


def _collab(document: Document) -> models.Collaboration:
    assert isinstance(document.model, models.Collaboration)
    return document.model


# --- Portal ------------------------------------------------------------------------------------


def _portal(document: Document, environ: Mapping[str, str]) -> Iterator[Problem]:
    spec = _portal_spec(document)
    found = declared_platform(spec)
    if not isinstance(found, Platform):
        yield document.problem(("spec", "version"), str(found))
    url, admin_url = effective_urls(spec, environ, document.name)
    url_from, admin_from = url_sources(environ, document.name)
    for key, value, variable in (("url", url, url_from), ("adminUrl", admin_url, admin_from)):
        problem = _url_problem(value) if value else None
        if problem:
            origin = f" (from {variable})" if variable else ""
            yield document.problem(("spec", key), problem + origin)
    yield from _auth(document, spec.auth)


def _url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return _extras_problem(url)
    if parts.scheme == "http" and parts.hostname and is_loopback(parts.hostname):
        return _extras_problem(url)
    shown = f"{parts.scheme}://{parts.hostname}" if parts.hostname else repr(url)
    return f"must be an https URL unless the host is loopback, got {shown}"


def _extras_problem(url: str) -> str | None:
    """Why a manifest URL is more than a plain address (see `extras`), or None."""
    found = extras(url)
    if not found:
        return None
    return (
        "must be a plain address without user info, a query or a fragment, but it has"
        f" {' and '.join(found)}; credentials come from spec.auth, never the URL"
    )


def _auth(document: Document, auth: models.AuthSpec) -> Iterator[Problem]:
    for key in ("tokenEnv", "usernameEnv", "passwordEnv"):
        value = getattr(auth, key)
        if value is not None and not _ENV_NAME.match(value):
            # The value is never echoed: it may be the very secret it must not hold.
            yield document.problem(
                ("spec", "auth", key),
                "must be the NAME of an environment variable (such as ORGCTL_TOKEN),"
                " never a literal secret",
            )
    with_token = auth.tokenEnv is not None
    with_password = auth.usernameEnv is not None or auth.passwordEnv is not None
    complete_password = auth.usernameEnv is not None and auth.passwordEnv is not None
    if with_token == with_password or (with_password and not complete_password):
        yield document.problem(
            ("spec", "auth"), "give either tokenEnv, or both usernameEnv and passwordEnv"
        )


# --- per-document rules ------------------------------------------------------------------------


def _document(document: Document, context: _Context) -> Iterator[Problem]:
    model = document.model
    platform = context.platform
    yield from _identity_text(document)
    if isinstance(model, models.Role):
        yield from _role(document, model, platform, context.extra_privileges)
    elif isinstance(model, models.Members):
        yield from _member_rules(document, model, platform, context.absent_roles)
    elif isinstance(model, models.Collaboration):
        yield from _collaboration(document, model, platform)
    elif isinstance(model, models.WebhookSettings):
        yield from _gate(document, (), Feature.WEBHOOK_SETTINGS, platform)
        if context.portal and not effective_urls(context.portal, context.environ, context.name)[1]:
            yield document.problem((), "needs the Portal's spec.adminUrl (the admin root)")
    elif isinstance(model, models.OrganizationWebhooks):
        yield from _gate(document, (), Feature.DELETE_ORG_WEBHOOK, platform)
        for index, hook in enumerate(model.spec.absent):
            if hook in model.spec.keep:
                yield document.problem(("spec", "absent", index), f"{hook!r} is also in keep")
    elif isinstance(model, models.TaskRunRetention):
        yield from _gate(document, (), Feature.DELETE_TASK_RUN, platform)
        if model.spec.keepLast is None and model.spec.maxAgeDays is None:
            yield document.problem(("spec",), "give keepLast, maxAgeDays or both")


def _gate(
    document: Document, path: KeyPath, feature: Feature, platform: Platform | None
) -> Iterator[Problem]:
    problem = catalog.feature_problem(feature, platform) if platform else None
    if problem:
        yield document.problem(path, problem)


def _role(
    document: Document, model: models.Role, platform: Platform | None, extra: frozenset[str]
) -> Iterator[Problem]:
    name = model.metadata.name
    if len(name) > catalog.ROLE_NAME_MAX:
        yield document.problem(
            ("metadata", "name"),
            f"role name is {len(name)} characters, at most {catalog.ROLE_NAME_MAX} allowed",
        )
    if model.spec.description is not None:
        yield from _text(document, ("spec", "description"), model.spec.description, True)
    if name != name.strip():
        # The service trims names: the role would be created as another name, never matched.
        trimmed = f"; write {name.strip()!r}" if name.strip() else ""
        yield document.problem(
            ("metadata", "name"),
            f"role name {name!r} starts or ends with white space, which the service trims{trimmed}",
        )
    if model.spec.state == "absent" and (
        model.spec.description is not None or model.spec.privileges is not None
    ):
        yield document.problem(
            ("spec", "state"),
            "a role declared absent cannot also declare a description or privileges",
        )
    if platform is None:
        return
    for index, privilege in enumerate(model.spec.privileges or ()):
        problem = catalog.privilege_problem(privilege, platform, extra)
        if problem:
            yield document.problem(("spec", "privileges", index), problem)


def _text(
    document: Document, at: KeyPath, value: str, multiline: bool = False, label: str = ""
) -> Iterator[Problem]:
    """The portal refuses control and bidi characters: say so before anything is sent.
    `label`: what the value is, when it is a key (a username) rather than a field."""
    field = label or (at[-1] if isinstance(at[-1], str) else "text")
    problem = text_problem(field, value, multiline)
    if problem:
        yield document.problem(at, problem)


def _identity_text(document: Document) -> Iterator[Problem]:
    """Names and ids reach addresses, URLs, terminals and comments: every kind's, not only
    a role's, by the service's own rule."""
    yield from _text(document, ("metadata", "name"), document.name)
    model = document.model
    if isinstance(model, models.Collaboration):
        yield from _text(document, ("metadata", "id"), model.metadata.id)
        for workspace_id in model.spec.workspaces:
            at = ("spec", "workspaces", workspace_id)
            yield from _text(document, at, workspace_id, label="workspace id")
    elif isinstance(model, models.Members):
        for username in model.spec.members:
            yield from _text(document, ("spec", "members", username), username, label="username")


def _absent_roles(documents: list[Document]) -> dict[str, Document]:
    return {
        d.name: d
        for d in documents
        if isinstance(d.model, models.Role) and d.model.spec.state == "absent"
    }


def _member_rules(
    document: Document,
    model: models.Members,
    platform: Platform | None,
    absent_roles: dict[str, Document],
) -> Iterator[Problem]:
    for username, member in model.spec.members.items():
        at: KeyPath = ("spec", "members", username)
        if member.level is not None:
            yield from _gate(document, (*at, "level"), Feature.UPDATE_USER_LEVEL, platform)
        if member.level == 1 and member.role in catalog.BUILTIN_ROLES:
            yield document.problem(
                (*at, "level"),
                f"level 1 needs a custom role; built-in role {member.role!r} is always level 2",
            )
        if member.role in absent_roles:
            yield document.problem(
                (*at, "role"),
                f"role {member.role!r} is declared absent (at {_at(absent_roles[member.role])})",
            )


def _collaboration(
    document: Document, model: models.Collaboration, platform: Platform | None
) -> Iterator[Problem]:
    spec = model.spec
    if spec.state == "absent" and (spec.workspaces or spec.invalidInvitations):
        yield document.problem(
            ("spec", "state"),
            "a collaboration declared absent cannot also declare workspaces or invitations",
        )
    if spec.state == "absent" and platform is not None:
        # Offline the portal's side is unknown: the host deletes, a guest leaves. The
        # planner, which reads the side, checks the one that applies.
        reasons = [
            catalog.feature_problem(feature, platform)
            for feature in (Feature.DELETE_COLLABORATION, Feature.REMOVE_PARTICIPATION)
        ]
        if all(reasons):
            yield document.problem(("spec", "state"), "; ".join(r for r in reasons if r))
    if spec.invalidInvitations:
        yield from _gate(
            document, ("spec", "invalidInvitations"), Feature.INVALIDATE_INVITATION, platform
        )
    for workspace_id, workspace in spec.workspaces.items():
        yield from _workspace(document, ("spec", "workspaces", workspace_id), workspace, platform)


_WORKSPACE_FIELD_GATES: dict[str, Feature] = {
    **catalog.WORKSPACE_INFO_GATES,
    "schedule": Feature.UPDATE_SCHEDULE,
    "groupLink": Feature.UPDATE_GROUP_LINK,
}
# The groupLink gate covers the rest of its fields.
_GROUP_LINK_FIELD_GATES: dict[str, Feature] = {
    name: feature
    for name, feature in catalog.GROUP_LINK_GATES.items()
    if feature is not Feature.UPDATE_GROUP_LINK
}


def _workspace(
    document: Document, at: KeyPath, workspace: models.WorkspaceSpec, platform: Platform | None
) -> Iterator[Problem]:
    for key, feature in _WORKSPACE_FIELD_GATES.items():
        if getattr(workspace, key) is not None:
            yield from _gate(document, (*at, key), feature, platform)
    if workspace.name is not None:
        yield from _text(document, (*at, "name"), workspace.name)
    if workspace.description is not None:
        yield from _text(document, (*at, "description"), workspace.description, True)
    if workspace.name is not None and not workspace.name.strip():
        yield document.problem(
            (*at, "name"),
            f"workspace name must not be blank (1 to {catalog.WORKSPACE_NAME_MAX} characters)",
        )
    if workspace.schedule is not None:
        yield from _schedule(document, (*at, "schedule"), workspace.schedule)
    link = workspace.groupLink
    if link is not None:
        for key, feature in _GROUP_LINK_FIELD_GATES.items():
            if getattr(link, key) is not None:
                yield from _gate(document, (*at, "groupLink", key), feature, platform)
        if link.enableFeatureServiceBidirectionalSync and link.copyFeatureServiceData is not True:
            yield document.problem(
                (*at, "groupLink", "enableFeatureServiceBidirectionalSync"),
                "enableFeatureServiceBidirectionalSync: true needs copyFeatureServiceData: true",
            )


def _schedule(document: Document, at: KeyPath, schedule: models.ScheduleSpec) -> Iterator[Problem]:
    interval_problem = catalog.schedule_problem(schedule.interval, None)
    if interval_problem:
        yield document.problem((*at, "interval"), interval_problem)
    repeat_problem = catalog.schedule_problem(None, schedule.repeatCount)
    if repeat_problem:
        yield document.problem((*at, "repeatCount"), repeat_problem)
    if schedule.startTime is not None and schedule.startTime < 0:
        yield document.problem(
            (*at, "startTime"), f"startTime must not be before 1970, got {schedule.startTime}"
        )
    elif start_problem := catalog.schedule_problem(None, None, schedule.startTime):
        yield document.problem((*at, "startTime"), start_problem)
    finite = schedule.repeatCount is not None and schedule.repeatCount > 0
    if finite and schedule.startTime is None:
        # A finite job counts its triggers from startTime; "now" would restart the count
        # on every apply.
        yield document.problem(
            (*at, "repeatCount"), "a finite repeatCount needs an explicit startTime"
        )
