"""Facts about the Portal document that other modules share: its platform and URLs."""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.manifest.models import PortalSpec
from reconciler.versions import Platform, VersionError

# The demo and the tests point a manifest set at a service on a free port (COMMON rules).
PORTAL_URL_ENV = "ORGCTL_PORTAL_URL"
ADMIN_URL_ENV = "ORGCTL_ADMIN_URL"


def effective_urls(spec: PortalSpec, environ: Mapping[str, str]) -> tuple[str, str | None]:
    """`url` and `adminUrl` after the environment overrides."""
    return environ.get(PORTAL_URL_ENV) or spec.url, environ.get(ADMIN_URL_ENV) or spec.adminUrl


def declared_platform(spec: PortalSpec) -> Platform | VersionError:
    try:
        return Platform.parse(spec.deployment, spec.version)
    except VersionError as exc:
        return exc
