"""The environment variables named after a portal, and the URL overrides, in one place.

A portal's own variables are `ORGCTL_<NAME>_*`, NAME being its `metadata.name`
upper-cased with every character but A-Z and 0-9 turned into `_` (`field-office`:
`ORGCTL_FIELD_OFFICE_TOKEN`): a valid shell variable and GitHub or GitLab secret name.
The URL overrides (`ORGCTL_<NAME>_PORTAL_URL`, else the plain `ORGCTL_PORTAL_URL`; the
same for the admin root) are applied once, when the manifests become desired state; every
later step takes the target's URLs as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reconciler.settings import ADMIN_URL, PORTAL_URL

# The demo and the tests point a manifest set at a service on a free port.
PORTAL_URL_ENV = PORTAL_URL.name
ADMIN_URL_ENV = ADMIN_URL.name


def portal_key(name: str) -> str:
    """A portal name as its variables spell it: `field-office` and `FIELD_OFFICE` share
    variables, and so credentials and trusted origins."""
    return re.sub(r"[^A-Z0-9]", "_", name.upper())


def variable_stem(name: str) -> str:
    """`ORGCTL_<NAME>`, the prefix of the portal's own variables."""
    return f"ORGCTL_{portal_key(name)}"


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
    url: str, admin_url: str | None, environ: Mapping[str, str], name: str | None = None
) -> tuple[str, str | None]:
    """`url` and `adminUrl` after the environment's overrides, the portal's own first."""
    url_from, admin_from = url_sources(environ, name)
    return (
        environ[url_from] if url_from else url,
        environ[admin_from] if admin_from else admin_url,
    )
