"""Live records → manifest documents (README: manifest reference), as plain ordered mappings.

Only what the manifest format can express, and only what this portal's platform and side
of each collaboration may change: a field the validator or the planner would refuse is
never written, so `orgctl plan` on the result is empty. Maps keyed by identity are sorted
by that identity and privileges are sorted; the fields of one record keep the order of
README: manifest reference, so the same live state always gives the same documents.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from reconciler import catalog
from reconciler.catalog import Feature
from reconciler.manifest.models import API_VERSION
from reconciler.operations import OperationName, availability_problem
from reconciler.state import (
    Auth,
    LiveState,
)
from reconciler.versions import Platform

Document = dict[str, Any]


def document(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> Document:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def iso_utc(epoch_ms: int) -> str:
    """`2026-01-01T00:00:00Z`; milliseconds appear only when there are some."""
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    if epoch_ms % 1000:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def available(needs: OperationName | Feature, platform: Platform) -> bool:
    return availability_problem(needs, platform) is None


# --- Portal ----------------------------------------------------------------------------------


def portal_document(
    live: LiveState,
    *,
    name: str,
    url: str,
    admin_url: str | None,
    auth: Auth,
    extra_privileges: Iterable[str] = (),
) -> Document:
    platform = live.portal.platform
    spec: dict[str, Any] = {"url": url}
    if admin_url:
        spec["adminUrl"] = admin_url
    spec["deployment"] = str(platform.deployment)
    spec["version"] = str(platform.release)
    spec["auth"] = {
        key: getattr(auth, key)
        for key in ("tokenEnv", "usernameEnv", "passwordEnv")
        if getattr(auth, key)
    }
    extra = sorted(set(extra_privileges))
    if extra:
        spec["extraPrivileges"] = extra
    return document("Portal", {"name": name}, spec)


# --- Roles -----------------------------------------------------------------------------------


def unknown_privileges(live: LiveState) -> list[str]:
    """Privileges that exported roles hold but the catalog does not allow on this platform
    (such as the self-hosted notebook web-tools privilege, whose id the spec does not
    show): the portal has them, so they go into `extraPrivileges`."""
    platform = live.portal.platform
    held = {p for role in live.roles.values() if role.editable for p in role.privileges or ()}
    return sorted(p for p in held if catalog.privilege_problem(p, platform) is not None)
