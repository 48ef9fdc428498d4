"""Facts about the Portal document that other modules share: its platform and URLs."""

from __future__ import annotations

from collections.abc import Mapping

from reconciler.environment import effective_urls as override
from reconciler.manifest.models import PortalSpec
from reconciler.versions import Platform, VersionError


def effective_urls(
    spec: PortalSpec, environ: Mapping[str, str], name: str | None = None
) -> tuple[str, str | None]:
    """`url` and `adminUrl` after the environment's overrides (environment.py)."""
    return override(spec.url, spec.adminUrl, environ, name)


def declared_platform(spec: PortalSpec) -> Platform | VersionError:
    try:
        return Platform.parse(spec.deployment, spec.version)
    except VersionError as exc:
        return exc
