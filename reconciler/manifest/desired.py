"""Validated manifest documents as the planner's `DesiredState`."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from pathlib import Path

from reconciler import state
from reconciler.errors import ManifestError
from reconciler.kind import kind_named
from reconciler.manifest import models
from reconciler.manifest.checks import source
from reconciler.manifest.ignoring import ignore_changes, shown, stripped
from reconciler.manifest.loader import Document
from reconciler.manifest.portal import declared_platform, effective_urls
from reconciler.manifest.validation import Checked, check
from reconciler.versions import Platform
from reconciler.windows import Window


def load_desired(path: Path, environ: Mapping[str, str] | None = None) -> state.DesiredState:
    """Everything the manifests under `path` declare; `ManifestError` lists every problem.
    `environ` holds the URL overrides (None: none; the command line passes its settings')."""
    env = {} if environ is None else environ
    return desired_from(check(path, env), env)


def desired_from(checked: Checked, environ: Mapping[str, str]) -> state.DesiredState:
    """The desired state of a checked manifest set; `ManifestError` lists every problem."""
    env = environ
    documents, problems = checked.documents, checked.problems
    if problems:
        raise ManifestError([str(p) for p in problems])
    portal = next(d for d in documents if isinstance(d.model, models.Portal))
    desired = state.DesiredState(portal=_target(portal, env))
    desired.sources["Portal"] = source(portal)
    kinds = [d for d in documents if not isinstance(d.model, models.Portal)]  # no kind
    for document in kinds:
        _add(desired, document)
    ignoring = [d for d in kinds if ignore_changes(d)]
    if ignoring:
        declared = desired.declared = state.DesiredState(portal=desired.portal)
        for document in ignoring:
            kind_named(document.kind).desired(declared, document)
    return desired


def _add(desired: state.DesiredState, document: Document) -> None:
    """The document's declarations, without the fields it ignores (`ignoring`)."""
    paths = ignore_changes(document)
    if not paths:
        kind_named(document.kind).desired(desired, document)
        return
    # The sources keep their order of insertion: the document's resources are those past
    # the count before it. (A copy of every address per document made 1,000 role
    # documents beside 100,000 members quadratic: 9 s of a 25 s plan.)
    known = len(desired.sources)
    kind_named(document.kind).desired(desired, stripped(document))
    added = list(islice(desired.sources, known, None))
    ignored = state.IgnoredPaths(tuple(map(shown, paths)), frozenset(added), document.kind)
    desired.ignoring[_address(desired, document, added)] = ignored


def _address(desired: state.DesiredState, document: Document, added: list[str]) -> str:
    """The address the document declares as a whole (`Role/<name>`, `Collaboration/<id>`),
    or `<kind>/<name>` for one declaring several resources (a Members document)."""
    whole = source(document)
    return next(
        (a for a in added if desired.sources[a] == whole), f"{document.kind}/{document.name}"
    )


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
        ignorePrivileges=tuple(spec.ignorePrivileges),
        maxDeletes=spec.safety.maxDeletes,
        applier=spec.applier,
        pruneRoles=spec.pruneRoles,
        keepRoles=frozenset(spec.keepRoles),
        selfHeal=spec.agent.selfHeal,
        applyWindows=tuple(Window(w.schedule, w.duration, w.timeZone) for w in spec.applyWindows),
    )
