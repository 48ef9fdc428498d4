"""Validated manifest documents as the planner's `DesiredState`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from reconciler import state
from reconciler.errors import ManifestError
from reconciler.kinds.registry import kind_named
from reconciler.manifest import models
from reconciler.manifest.checks import source
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
    desired.sources["Portal"] = source(portal)
    for document in documents:
        if not isinstance(document.model, models.Portal):  # the Portal is no kind
            kind_named(document.kind).desired(desired, document)
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
        pruneRoles=spec.pruneRoles,
        keepRoles=frozenset(spec.keepRoles),
        applyWindows=tuple(Window(w.schedule, w.duration, w.timeZone) for w in spec.applyWindows),
    )
