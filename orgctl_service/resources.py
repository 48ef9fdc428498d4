"""The portal's file resources (`portals/<id>/addResource`, `resources`, `removeResource`):
named texts an administrator stores with the portal, such as a logo or a banner's JSON.

orgctl keeps its apply lock as one (README: the apply lock), so they behave as the vendor
documents them: adding a key that exists replaces its text, any member may read, only an
administrator writes. The reference service keeps texts only; an uploaded `file` part
arrives as a text field (app.multipart_fields) and is stored as its text.
"""

from __future__ import annotations

import json
from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.errors import bad_request, not_found
from orgctl_service.params import page
from orgctl_service.rules import check_portal_id
from orgctl_service.world import Doc
from reconciler.text_rules import text_problem

ACCESS = ("public", "org", "orgprivate")
MAX_KEY = 128
MAX_TEXT = 512_000


def add_resource(ctx: Ctx) -> dict[str, Any]:
    key = _key(ctx)
    text = ctx.params.text("text")
    if text is None:
        text = ctx.params.text("file") or ""
    if len(text) > MAX_TEXT:
        raise bad_request(f"A resource holds at most {MAX_TEXT} characters")
    access = (ctx.params.text("access") or "public").strip().lower()
    if access not in ACCESS:
        raise bad_request(f"'access' must be one of {', '.join(ACCESS)}, got {access[:20]!r}")
    _stored(ctx.portal)[key] = {
        "key": key,
        "text": text,
        "access": access,
        "created": ctx.now,
        "size": len(text.encode("utf-8")),
    }
    ctx.touch_portal()
    return {"success": True}


def remove_resource(ctx: Ctx) -> dict[str, Any]:
    key = _key(ctx)
    if _stored(ctx.portal).pop(key, None) is None:
        raise not_found(f"Resource '{key}' does not exist")
    ctx.touch_portal()
    return {"success": True}


def list_resources(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    rows = sorted(_stored(ctx.portal).values(), key=lambda r: r["key"])
    return page(ctx.params, rows, "resources", _summary)


def one_resource(ctx: Ctx) -> dict[str, Any]:
    """The resource's content. The real portal answers the file as stored; this one
    serves JSON texts, which is all orgctl stores, and refuses to fake the rest."""
    check_portal_id(ctx)
    key = ctx.args["key"]
    resource = _stored(ctx.portal).get(key)
    if resource is None:
        raise not_found(f"Resource '{key}' does not exist")
    try:
        content = json.loads(resource["text"])
    except ValueError:
        content = None
    if not isinstance(content, dict):
        raise bad_request(f"Resource '{key}' is not a JSON object; this service serves only those")
    return content


def _key(ctx: Ctx) -> str:
    key = (ctx.params.text("key", required=True) or "").strip()
    if not key or len(key) > MAX_KEY or "/" in key or "\\" in key:
        raise bad_request(f"'key' must be a file name of 1 to {MAX_KEY} characters, without '/'")
    problem = text_problem("key", key)
    if problem:
        raise bad_request(problem)
    return key


def _stored(portal: Doc) -> dict[str, Doc]:
    return portal.setdefault("resources", {})  # type: ignore[no-any-return]


def _summary(resource: Doc) -> dict[str, Any]:
    return {
        "key": resource["key"],
        "access": resource["access"],
        "created": resource["created"],
        "size": resource["size"],
    }
