"""Facts about the Portal document that other modules share: its platform and URLs."""

from __future__ import annotations

import re
from collections.abc import Mapping

from reconciler.manifest.models import PortalSpec
from reconciler.versions import Platform, VersionError

# The demo and the tests point a manifest set at a service on a free port (COMMON rules).
PORTAL_URL_ENV = "ORGCTL_PORTAL_URL"
ADMIN_URL_ENV = "ORGCTL_ADMIN_URL"


def variable_stem(name: str) -> str:
    """`ORGCTL_<NAME>`: a portal's name upper-cased, every character but A-Z and 0-9 turned
    into `_` (`field-office`: `ORGCTL_FIELD_OFFICE`), a valid shell variable and GitHub or
    GitLab secret name; the prefix of the portal's own variables."""
    return "ORGCTL_" + re.sub(r"[^A-Z0-9]", "_", name.upper())


def url_variables(name: str | None) -> tuple[str, str]:
    """The variables overriding `url` and `adminUrl` of the portal named `name`: its own
    (`ORGCTL_<NAME>_PORTAL_URL`, `_ADMIN_URL`), else the plain ones."""
    if not name:
        return PORTAL_URL_ENV, ADMIN_URL_ENV
    stem = variable_stem(name)
    return f"{stem}_PORTAL_URL", f"{stem}_ADMIN_URL"


def url_sources(environ: Mapping[str, str], name: str | None) -> tuple[str | None, str | None]:
    """The variable each URL comes from (None: the manifest), most specific first."""
    own = url_variables(name)
    found = []
    for specific, plain in zip(own, (PORTAL_URL_ENV, ADMIN_URL_ENV), strict=True):
        found.append(next((v for v in (specific, plain) if environ.get(v)), None))
    return found[0], found[1]


def effective_urls(
    spec: PortalSpec, environ: Mapping[str, str], name: str | None = None
) -> tuple[str, str | None]:
    """`url` and `adminUrl` after the environment overrides: the portal's own variables
    (`ORGCTL_<NAME>_PORTAL_URL`, `ORGCTL_<NAME>_ADMIN_URL`), else the plain ones."""
    url_from, admin_from = url_sources(environ, name)
    url = environ[url_from] if url_from else spec.url
    admin = environ[admin_from] if admin_from else spec.adminUrl
    return url, admin


def declared_platform(spec: PortalSpec) -> Platform | VersionError:
    try:
        return Platform.parse(spec.deployment, spec.version)
    except VersionError as exc:
        return exc
