"""Every rule that can be checked offline, over all documents of a manifest set at once.

Gates and catalog lookups all go through `reconciler.catalog`, the single source of
truth the planner and the reference service share.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import repeat
from urllib.parse import urlsplit

from reconciler.addresses import extras, is_loopback
from reconciler.environment import url_sources
from reconciler.kind import Identities, kind_named, registered
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, at, lookalike, text
from reconciler.manifest.ignoring import change_problems, pattern_problems
from reconciler.manifest.loader import Document
from reconciler.manifest.portal import declared_platform, effective_urls
from reconciler.manifest.problems import Problem
from reconciler.text_rules import REFUSED_IN_NAMES
from reconciler.versions import Platform

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check(
    documents: list[Document],
    root: str,
    environ: Mapping[str, str],
    rejected_kinds: Iterable[str] = (),
) -> list[Problem]:
    """Every problem of the manifest set beyond the shape of single documents."""
    maybe_portal = bool({"Portal", ""} & set(rejected_kinds))
    # Each document's identities, built once for the name rules and the duplicate check.
    identities = [list(_identities(document)) for document in documents]
    problems = list(_cross_document(documents, root, maybe_portal))
    problems += _duplicates([i for found in identities for i in found])
    portal = next((d for d in documents if isinstance(d.model, models.Portal)), None)
    spec = _portal_spec(portal) if portal else None
    if portal:
        problems += _portal(portal, environ)
    found = declared_platform(spec) if spec else None
    context = RuleContext(
        platform=found if isinstance(found, Platform) else None,
        portal=spec,
        name=portal.name if portal else None,
        environ=environ,
        documents=tuple(documents),
    )
    for document, keys in zip(documents, identities, strict=True):
        problems += _names(document, keys)
        if not isinstance(document.model, models.Portal):  # the Portal is no kind
            kind = kind_named(document.kind)
            problems += kind.rules(document, context)
            problems += change_problems(document, kind.model)
    return problems


def _portal_spec(document: Document) -> models.PortalSpec:
    assert isinstance(document.model, models.Portal)
    return document.model.spec


def _identities(document: Document) -> Iterator[Identities[Document]]:
    if not isinstance(document.model, models.Portal):  # the Portal is no kind
        yield from kind_named(document.kind).identities(document)


def _names(document: Document, identities: Iterable[Identities[Document]]) -> Iterator[Problem]:
    """Names and identities reach addresses, URLs, terminals and comments: every kind's
    (a Portal's, a Members label, usernames, collaboration and workspace ids), not only a
    role's, refuse control characters by the service's own rule."""
    yield from text(document, ("metadata", "name"), document.name)
    yield from lookalike(document, ("metadata", "name"), document.name, "name")
    for identity in identities:
        if identity.keyed or identity.path != ("metadata", "name"):
            yield from _key_names(identity)


def _key_names(identity: Identities[Document]) -> Iterator[Problem]:
    """The text and lookalike rules of each key. Both judge single characters, so one
    search of all the keys together says whether any key needs its own look: 100,000
    plain usernames are one search, not 200,000 calls."""
    joined = "".join(identity.keys)
    if joined.isascii() and REFUSED_IN_NAMES.search(joined) is None:
        return  # no lookalike is ASCII; no key holds a refused character
    document = identity.document
    for key in identity.keys:
        yield from text(document, identity.at(key), key, label=identity.what)
        yield from lookalike(document, identity.at(key), key, identity.what)


# --- cross-document rules --------------------------------------------------------------------


def _cross_document(
    documents: list[Document], root: str, portal_rejected: bool
) -> Iterator[Problem]:
    portals = [d for d in documents if d.kind == "Portal"]
    if not portals and not portal_rejected:
        yield Problem(root, 1, 1, "", "", "no Portal document: a manifest set needs exactly one")
    for extra in portals[1:]:
        yield extra.problem((), f"a second Portal document (first at {at(portals[0])})")
    kinds = registered()
    for kind in kinds:
        same = [d for d in documents if d.kind == kind.name]
        for extra in same[1:] if kind.singleton else ():
            yield extra.problem((), f"a second {kind.name} document (first at {at(same[0])})")


def _duplicates(identities: Iterable[Identities[Document]]) -> Iterator[Problem]:
    """Each key the documents declare (role names, usernames, ids) declared once: one pass,
    each key folded once, among the keys of its kind and sort."""
    firsts: dict[tuple[str, str], dict[str, tuple[str, Document]]] = {}
    for identity in identities:
        first = firsts.setdefault((identity.document.kind, identity.what), {})
        folded = list(map(identity.fold, identity.keys))
        if len(set(folded)) == len(folded) and first.keys().isdisjoint(folded):
            # No key declared before: all filed at once, where a loop over 100,000
            # usernames took a tenth of a second.
            first.update(zip(folded, zip(identity.keys, repeat(identity.document)), strict=True))
            continue
        yield from _repeated(identity, folded, first)


def _repeated(
    identity: Identities[Document], folded: list[str], first: dict[str, tuple[str, Document]]
) -> Iterator[Problem]:
    """The keys of `identity` (folded as `folded`) declared before, each filed in `first`
    with where it was first declared."""
    for key, same_key in zip(identity.keys, folded, strict=True):
        if same_key not in first:
            first[same_key] = (key, identity.document)
            continue
        spelled, earlier = first[same_key]
        same = "" if spelled == key else f" as {spelled!r}"
        yield identity.document.problem(
            identity.at(key),
            f"{identity.what} {key!r} is declared twice (first{same} at {at(earlier)})",
        )


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
    yield from pattern_problems(document, ("spec", "ignorePrivileges"), spec.ignorePrivileges)


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
